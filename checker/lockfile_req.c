/*
 * lockfile_req.c: pins from requirements*.txt as pip-compile (and uv pip
 * compile, poetry export, uv export, or a person) writes them.
 *
 * It follows pip's own reading of the file (pip/_internal/req/req_file.py):
 * backslash continuations are joined first (a comment line ends a
 * continuation), then "#" comments at the start or after white space are
 * dropped, then each logical line is an option or a requirement.  Options
 * (-r, -c, -e, --index-url, ...) and installs from a URL or a path name no
 * version and give no pin; their values are never recorded or quoted,
 * since index URLs carry passwords.
 */
#include "lockfile.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static const char *
skip_blank(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\f' ||
	    *p == '\v')
		p++;
	return p;
}

/* The options pip accepts on a line of their own in a requirements file
 * (pip/_internal/req/req_file.py, SUPPORTED_OPTIONS). */
static const char *const req_long_opts[] = {
	"requirement", "constraint", "editable", "index-url",
	"extra-index-url", "no-index", "find-links", "trusted-host", "pre",
	"prefer-binary", "only-binary", "no-binary", "require-hashes",
	"use-feature", NULL,
};

static int
req_option(const char *s, unsigned no, const char *name, struct ep_err *err)
{
	size_t n;

	if (s[1] != '-') {
		/* -r FILE, -c FILE, -e URL, -i URL, -f URL; the value may be
		 * glued on ("-rbase.txt"), so only the letter counts. */
		if (s[1] != '\0' && strchr("rceif", s[1]) != NULL)
			return 0;
		return ep_err_set(err, EP_E_INPUT, "%s:%u: unknown option "
		    "'-%c'", name, no, s[1] != '\0' ? s[1] : '?');
	}
	/* The name is letters, digits and dashes: whatever follows (":",
	 * "=", a blank) is the value, which can be a URL with a password. */
	for (n = 0; isalnum((unsigned char)s[2 + n]) || s[2 + n] == '-'; n++)
		;
	for (size_t i = 0; req_long_opts[i] != NULL; i++)
		if (strlen(req_long_opts[i]) == n &&
		    strncmp(s + 2, req_long_opts[i], n) == 0)
			return 0;
	return ep_err_set(err, EP_E_INPUT, "%s:%u: unknown option '--%.*s'",
	    name, no, (int)(n > 40 ? 40 : n), s + 2);
}

/* A line that installs from a URL or a path names no version to pin:
 * "git+https://…#egg=x", "./pkg", "/wheels/x.whl", "dist/x.whl". */
static int
req_is_location(const char *s)
{
	size_t tok = strcspn(s, " \t"), scheme = 0;

	if (s[0] == '.' || s[0] == '/' || s[0] == '~')
		return 1;
	while (isalnum((unsigned char)s[scheme]) || s[scheme] == '+' ||
	    s[scheme] == '-' || s[scheme] == '.')
		scheme++;
	if (scheme > 0 && strncmp(s + scheme, "://", 3) == 0)
		return 1;
	if (ep_startswith(s, "file:"))
		return 1;
	for (size_t i = 0; i < tok && s[i] != '@'; i++)
		if (s[i] == '/')
			return 1;
	return 0;
}

static size_t
req_op_len(const char *p)
{
	static const char *const ops[] = { "===", "==", "!=", "<=", ">=",
	    "~=", "<", ">", NULL };

	for (size_t i = 0; ops[i] != NULL; i++)
		if (ep_startswith(p, ops[i]))
			return strlen(ops[i]);
	return 0;
}

/* Parse "[(]OP VERSION[, OP VERSION...][)]" at *pp into spec (blanks
 * dropped) and return the pinned version (a pointer into spec) when it is
 * a single "==V" without a wildcard or "===V", else NULL. */
static int
req_specifier(char **exact, char *spec, const char **pp, unsigned no,
    const char *name, struct ep_err *err)
{
	const char *p = skip_blank(*pp), *v;
	char *o = spec;
	size_t oplen, clauses = 0;
	int paren = 0, pinned = 0;

	*exact = NULL;
	if (*p == '(') {
		paren = 1;
		p = skip_blank(p + 1);
	}
	while (*p != '\0' && strchr("=<>!~", *p) != NULL) {
		if ((oplen = req_op_len(p)) == 0)
			return ep_err_set(err, EP_E_INPUT, "%s:%u: invalid "
			    "version operator", name, no);
		pinned = clauses == 0 && (oplen == 3 || (oplen == 2 &&
		    p[0] == '='));
		memcpy(o, p, oplen);
		o += oplen;
		p = skip_blank(p + oplen);
		v = p;
		while (*p != '\0' && !isspace((unsigned char)*p) &&
		    strchr(",;()#", *p) == NULL)
			p++;
		if (p == v)
			return ep_err_set(err, EP_E_INPUT, "%s:%u: missing "
			    "version after '%.*s'", name, no, (int)oplen,
			    o - oplen);
		if (pinned && oplen == 2 && memchr(v, '*', (size_t)(p - v)))
			pinned = 0;
		memcpy(o, v, (size_t)(p - v));
		o += p - v;
		clauses++;
		p = skip_blank(p);
		if (*p != ',')
			break;
		*o++ = ',';
		p = skip_blank(p + 1);
		if (*p == '\0' || strchr("=<>!~", *p) == NULL)
			return ep_err_set(err, EP_E_INPUT, "%s:%u: expected a "
			    "version clause after ','", name, no);
	}
	*o = '\0';
	if (paren) {
		if (*p != ')')
			return ep_err_set(err, EP_E_INPUT, "%s:%u: missing ')' "
			    "after the version specifier", name, no);
		p = skip_blank(p + 1);
	}
	if (clauses == 1 && pinned)
		*exact = spec + (spec[2] == '=' ? 3 : 2);
	*pp = p;
	return 0;
}

static int
req_requirement(struct ep_pins *pins, const char *s, unsigned no,
    const char *name, struct ep_err *err)
{
	const char *p = s, *url;
	char *norm = NULL, *spec = NULL, *exact, *scrubbed, *ver = NULL;
	int rc = -1;

	if (req_is_location(s))
		return 0;
	while (isalnum((unsigned char)*p) || *p == '.' || *p == '_' ||
	    *p == '-')
		p++;
	if (!ep_lock_valid_name(s, (size_t)(p - s)))
		return ep_err_set(err, EP_E_INPUT, "%s:%u: not a requirement "
		    "(expected NAME[EXTRAS] [SPECIFIER] [; MARKERS])", name,
		    no);
	norm = ep_lock_pep503(s, (size_t)(p - s));
	p = skip_blank(p);
	if (*p == '[') {
		if ((p = strchr(p, ']')) == NULL) {
			ep_err_set(err, EP_E_INPUT, "%s:%u: '[' without ']' "
			    "in the extras", name, no);
			goto done;
		}
		p = skip_blank(p + 1);
	}
	if (*p == '@') {
		/* A direct reference; markers and options may follow. */
		url = p = skip_blank(p + 1);
		while (*p != '\0' && !isspace((unsigned char)*p))
			p++;
		if (p == url) {
			ep_err_set(err, EP_E_INPUT, "%s:%u: missing URL after "
			    "'@'", name, no);
			goto done;
		}
		scrubbed = ep_lock_url_scrub(url, (size_t)(p - url));
		ver = xasprintf("@ %s", scrubbed);
		free(scrubbed);
		ep_pins_add(pins, norm, ver);
		rc = 0;
		goto done;
	}
	spec = xmalloc(strlen(p) + 1);
	if (req_specifier(&exact, spec, &p, no, name, err) < 0)
		goto done;
	/* What may follow: markers, or per-requirement options (--hash). */
	if (*p != '\0' && *p != ';' && !ep_startswith(p, "--")) {
		ep_err_set(err, EP_E_INPUT, "%s:%u: unexpected text after the "
		    "%s", name, no, spec[0] != '\0' ? "version specifier" :
		    "package name");
		goto done;
	}
	ep_pins_add(pins, norm, exact != NULL ? exact :
	    spec[0] != '\0' ? spec : "*");
	rc = 0;
done:
	free(norm);
	free(spec);
	free(ver);
	return rc;
}

/* One logical line (continuations joined), NUL-terminated and ours. */
static int
req_logical(struct ep_pins *pins, char *s, unsigned no, const char *name,
    struct ep_err *err)
{
	for (size_t i = 0; s[i] != '\0'; i++) {
		if (s[i] == '#' && (i == 0 || isspace((unsigned char)s[i - 1]))) {
			s[i] = '\0';
			break;
		}
	}
	ep_trim(s);
	if (s[0] == '\0')
		return 0;
	if (s[0] == '-')
		return req_option(s, no, name, err);
	return req_requirement(pins, s, no, name, err);
}

static int
is_comment_line(const char *s, size_t n)
{
	size_t i = 0;

	while (i < n && (s[i] == ' ' || s[i] == '\t'))
		i++;
	return i < n && s[i] == '#';
}

int
ep_lock_parse_requirements(struct ep_pins *out, const char *buf, size_t len,
    const char *name, struct ep_err *err)
{
	struct ep_pins pins = { 0 };
	struct ep_lock_lines l;
	const char *s;
	char *logical = NULL;
	size_t n, ln = 0, cap = 0;
	unsigned first = 0;
	int cont = 0, rc = -1;

	ep_lock_lines_init(&l, buf, len);
	while (ep_lock_next_line(&l, &s, &n)) {
		int comment = is_comment_line(s, n);

		if (memchr(s, '\0', n) != NULL) {
			ep_err_set(err, EP_E_INPUT, "%s:%u: NUL byte in a text "
			    "file", name, l.no);
			goto done;
		}
		if (!cont) {
			ln = 0;
			first = l.no;
		}
		if (ln + n + 2 > EP_LOCK_LINE_MAX) {
			ep_err_set(err, EP_E_INPUT, "%s:%u: line longer than "
			    "%zu bytes", name, first, EP_LOCK_LINE_MAX);
			goto done;
		}
		if (ln + n + 2 > cap) {
			cap = (ln + n + 2) * 2;
			logical = xrealloc(logical, cap);
		}
		/* As pip does: a comment line ends a continuation, and gets
		 * a blank in front so that it still reads as a comment. */
		if (comment && cont)
			logical[ln++] = ' ';
		cont = !comment && n > 0 && s[n - 1] == '\\';
		memcpy(logical + ln, s, cont ? n - 1 : n);
		ln += cont ? n - 1 : n;
		logical[ln] = '\0';
		if (!cont && req_logical(&pins, logical, first, name, err) < 0)
			goto done;
	}
	if (cont && req_logical(&pins, logical, first, name, err) < 0)
		goto done;
	ep_pins_take(out, &pins);
	rc = 0;
done:
	free(logical);
	ep_pins_clear(&pins);
	return rc;
}
