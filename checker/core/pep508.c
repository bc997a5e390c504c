/*
 * pep508.c: dependency specifiers and environment markers (pep508.h),
 * split by concern (pep508_int.h says how); here, requirements,
 * read as pypa/packaging 26.3 reads them (src/packaging/_tokenizer.py,
 * _parser.py, markers.py, specifiers.py): a recursive descent over
 * tokens matched the way its regular expressions match them, which is
 * where most of PEP 508's corner cases live ("name @ url;x" is all URL,
 * "foo>=1," is valid, "(a)" prints as a).  Versions compare through
 * verrange.c, which holds to packaging's own specifier cases.
 *
 * Where packaging itself would crash or loop rather than answer, this
 * answers plainly: markers nested deeper than DEPTH_MAX are an error (a
 * RecursionError there), \N{...} escapes and NUL characters in marker
 * strings are "Invalid quoted string" (there, a name lookup and a str
 * with a NUL), and comparing two strings or two variables is an error
 * (there, a KeyError or a comparison with a variable's name).
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "pep508_int.h"
#include "errors.h"
#include "str.h"
#include "strv.h"
#include "xalloc.h"

/* --- requirements ------------------------------------------------------- */

void
ep_req_clear(struct ep_req *r)
{
	free(r->name);
	free(r->norm);
	ep_strv_clear(&r->extras);
	free(r->url);
	pep508_specset_free(r->spec);
	ep_marker_free(r->marker);
	memset(r, 0, sizeof *r);
}

static int
req_extras(struct tok *t, struct ep_req *r)
{
	size_t open = t->pos, n;

	t->pos++;	/* [ */
	pep508_ws(t);
	if ((n = pep508_identifier(t)) > 0) {
		for (;;) {
			char *x = xstrndup(t->s + t->pos, n);

			if (!ep_strv_contains(&r->extras, x))
				ep_strv_push(&r->extras, x);
			free(x);
			t->pos += n;
			pep508_ws(t);
			if (pep508_identifier(t) > 0)
				return pep508_syntax(t, "Expected comma between extra "
				    "names");
			if (!pep508_at(t, ','))
				break;
			t->pos++;
			pep508_ws(t);
			if ((n = pep508_identifier(t)) == 0)
				return pep508_syntax(t, "Expected extra name after "
				    "comma");
		}
	}
	pep508_ws(t);
	if (!pep508_at(t, ']')) {
		t->pos = open;
		return pep508_syntax(t, "Expected matching RIGHT_BRACKET for "
		    "LEFT_BRACKET, after extras");
	}
	t->pos++;
	ep_strv_sort(&r->extras);
	return 0;
}

/* version_many: SPECIFIER (WS? , WS? SPECIFIER)*, as one string. */
static int
req_versions(struct tok *t, struct ep_strv *parsed)
{
	size_t n;

	while ((n = pep508_spec_len(t->s + t->pos)) > 0) {
		size_t start = t->pos;
		const char *p;

		ep_strv_push_owned(parsed, xstrndup(t->s + t->pos, n));
		t->pos += n;
		p = t->s + t->pos;
		if (p[0] == '.' && p[1] == '*') {
			t->pos = start;
			return pep508_syntax(t, strncmp(t->s + start, "!=", 2) == 0 ||
			    (strncmp(t->s + start, "==", 2) == 0 &&
			    strncmp(t->s + start, "===", 3) != 0) ?
			    ".* suffix cannot be used with pre-release, "
			    "post-release, dev or local versions" :
			    ".* suffix can only be used with `==` or `!=` "
			    "operators");
		}
		if (p[0] == '+' && ((p[1] >= 'a' && p[1] <= 'z') ||
		    ep_ascii_digit((unsigned char)p[1]))) {
			t->pos = start;
			return pep508_syntax(t, "Local version label can only be used "
			    "with `==` or `!=` operators");
		}
		pep508_ws(t);
		if (!pep508_at(t, ','))
			break;
		ep_strv_push(parsed, ",");
		t->pos++;
		pep508_ws(t);
	}
	return 0;
}

static int
req_marker(struct tok *t, struct ep_req *r, const char *expected)
{
	if (!pep508_at(t, ';'))
		return pep508_syntax(t, expected);
	t->pos++;
	if ((r->marker = pep508_marker_read(t)) == NULL)
		return -1;
	pep508_ws(t);
	return 0;
}

static int
req_parse(struct tok *t, struct ep_req *r)
{
	struct ep_strv parsed = { 0 };
	char *spec = NULL;
	size_t n, open;
	int rc = -1;

	pep508_ws(t);
	if ((n = pep508_identifier(t)) == 0)
		return pep508_syntax(t, "Expected package name at the start of "
		    "dependency specifier");
	r->name = xstrndup(t->s + t->pos, n);
	r->norm = ep_pep503_normalize(r->name);
	t->pos += n;
	pep508_ws(t);
	if (pep508_at(t, '[') && req_extras(t, r) < 0)
		goto done;
	pep508_ws(t);
	if (pep508_at(t, '@')) {
		t->pos++;
		pep508_ws(t);
		n = strcspn(t->s + t->pos, " \t");
		if (n == 0) {
			pep508_syntax(t, "Expected URL after @");
			goto done;
		}
		r->url = xstrndup(t->s + t->pos, n);
		t->pos += n;
		if (t->pos < t->len) {
			if (pep508_ws(t) == 0) {
				pep508_syntax(t, "Expected whitespace after URL");
				goto done;
			}
			if (t->pos < t->len && req_marker(t, r, "Expected "
			    "semicolon (after URL and whitespace) or end") < 0)
				goto done;
		}
	} else {
		open = t->pos;
		if (pep508_at(t, '('))
			t->pos++;
		pep508_ws(t);
		if (req_versions(t, &parsed) < 0)
			goto done;
		pep508_ws(t);
		if (t->s[open] == '(') {
			if (!pep508_at(t, ')')) {
				t->pos = open;
				pep508_syntax(t, "Expected matching RIGHT_PARENTHESIS "
				    "for LEFT_PARENTHESIS, after version "
				    "specifier");
				goto done;
			}
			t->pos++;
		}
		pep508_ws(t);
		if (t->pos < t->len && req_marker(t, r, parsed.n > 0 ?
		    "Expected comma (within version specifier), semicolon "
		    "(after version specifier) or end" : "Expected semicolon "
		    "(after name with no version specifier) or end") < 0)
			goto done;
	}
	if (t->pos < t->len) {
		pep508_syntax(t, "Expected end of dependency specifier");
		goto done;
	}
	spec = pep508_strv_join(&parsed);
	if (pep508_specset_parse(&r->spec, spec, t->err) < 0)
		goto done;
	rc = 0;
done:
	ep_strv_clear(&parsed);
	free(spec);
	return rc;
}

int
ep_req_parse(struct ep_req *out, const char *text, struct ep_err *err)
{
	struct tok t = { text, 0, strlen(text), 0, err };

	memset(out, 0, sizeof *out);
	if (req_parse(&t, out) < 0) {
		ep_req_clear(out);
		return -1;
	}
	return 0;
}

const char *
ep_req_specifier(const struct ep_req *r)
{
	return r->spec != NULL ? r->spec->str : "";
}

char *
ep_req_str(const struct ep_req *r)
{
	struct ep_strv o = { 0 };
	char *s;

	ep_strv_push(&o, r->name);
	if (r->extras.n > 0) {
		ep_strv_push(&o, "[");
		for (size_t i = 0; i < r->extras.n; i++) {
			if (i > 0)
				ep_strv_push(&o, ",");
			ep_strv_push(&o, r->extras.v[i]);
		}
		ep_strv_push(&o, "]");
	}
	ep_strv_push(&o, ep_req_specifier(r));
	if (r->url != NULL) {
		ep_strv_push(&o, " @ ");
		ep_strv_push(&o, r->url);
		if (r->marker != NULL)
			ep_strv_push(&o, " ");
	}
	if (r->marker != NULL) {
		ep_strv_push(&o, "; ");
		pep508_format_marker(&o, r->marker, 1);
	}
	s = pep508_strv_join(&o);
	ep_strv_clear(&o);
	return s;
}

int
ep_req_contains(const struct ep_req *r, const char *version)
{
	const struct ep_specset *s = r->spec;
	char *norm = NULL;
	int in = 1;

	if (s == NULL || s->n == 0)
		return 1;
	if (s->range != NULL && (!ep_version_pep440(version) ||
	    ep_verrange_match(s->range, version) != 1))
		return 0;
	/* pip holds a Version, whose str() === compares: the normal form. */
	for (size_t i = 0; i < s->n; i++) {
		if (s->v[i].op != OP_ARB)
			continue;
		if (norm == NULL && (norm = ep_version_pep440_norm(version)) ==
		    NULL)
			norm = xstrdup(version);
		if (strcasecmp(norm, s->v[i].ver) != 0)
			in = 0;
	}
	free(norm);
	return in;
}
