/*
 * framework.c: the readers of framework.h, pure functions on buffers:
 * build_info.py's literal, simple Python assignments, caffe2's build
 * strings, and Requires-Dist lines.  Nothing here executes or imports
 * what it reads; anything unexpected makes a reader give up (NULL or -1),
 * and the collector says so.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "framework.h"
#include "python.h"
#include "strv.h"
#include "xalloc.h"

struct lit {
	const char *p, *end;
};

static void
skip_ws(struct lit *l)
{
	while (l->p < l->end) {
		if (*l->p == '#') {	/* a comment to the end of the line */
			while (l->p < l->end && *l->p != '\n')
				l->p++;
		} else if (isspace((unsigned char)*l->p))
			l->p++;
		else
			break;
	}
}

static int
eat(struct lit *l, const char *s)
{
	size_t n = strlen(s);

	skip_ws(l);
	if ((size_t)(l->end - l->p) < n || memcmp(l->p, s, n) != 0)
		return 0;
	l->p += n;
	return 1;
}

/* A quoted string ('...' or "..."), its escapes undone for the common
 * cases; a new string, or NULL.  A string runs to the end of its line at
 * most (a backslash before the line break continues it, as in Python),
 * and one holding a NUL is none: no value is cut short at it. */
static char *
str_lit(struct lit *l)
{
	char q, *out, *o;

	skip_ws(l);
	if (l->p >= l->end || (*l->p != '\'' && *l->p != '"'))
		return NULL;
	q = *l->p++;
	out = o = xmalloc((size_t)(l->end - l->p) + 1);
	while (l->p < l->end && *l->p != q) {
		if (*l->p == '\n' || *l->p == '\0')
			break;
		if (*l->p == '\\' && l->p + 1 < l->end) {
			l->p++;
			if (*l->p == '\0')
				break;
			if (*l->p != '\n')
				*o++ = *l->p == 'n' ? '\n' : *l->p == 't' ?
				    '\t' : *l->p;
			l->p++;
			continue;
		}
		*o++ = *l->p++;
	}
	if (l->p >= l->end || *l->p != q) {
		free(out);
		return NULL;
	}
	l->p++;
	*o = '\0';
	return out;
}

/* A value: a string, True, False, None, a number, or a list of those
 * (joined by ","); a new string, or NULL. */
static char *
value_lit(struct lit *l, int depth)
{
	const char *s;
	char *v, *acc, *t;

	skip_ws(l);
	if (l->p >= l->end)
		return NULL;
	if (*l->p == '\'' || *l->p == '"')
		return str_lit(l);
	if (eat(l, "True"))
		return xstrdup("true");
	if (eat(l, "False"))
		return xstrdup("false");
	if (eat(l, "None"))
		return xstrdup("");
	if (*l->p == '[' || *l->p == '(') {
		char close = *l->p == '[' ? ']' : ')';

		if (depth > 0)
			return NULL;
		l->p++;
		acc = xstrdup("");
		for (;;) {
			skip_ws(l);
			if (l->p < l->end && *l->p == close) {
				l->p++;
				return acc;
			}
			if ((v = value_lit(l, depth + 1)) == NULL) {
				free(acc);
				return NULL;
			}
			t = xasprintf("%s%s%s", acc, *acc ? "," : "", v);
			free(acc);
			free(v);
			acc = t;
			if (!eat(l, ",") && !(skip_ws(l), l->p < l->end &&
			    *l->p == close)) {
				free(acc);
				return NULL;
			}
		}
	}
	s = l->p;
	while (l->p < l->end && (isdigit((unsigned char)*l->p) ||
	    *l->p == '.' || *l->p == '-'))
		l->p++;
	return l->p > s ? xstrndup(s, (size_t)(l->p - s)) : NULL;
}

/* Past the string literal at p (a quote): a triple-quoted one may span
 * lines, another ends at its line's end; a backslash escapes the next
 * byte.  end when it does not close. */
static const char *
skip_string(const char *p, const char *end)
{
	char q = *p;
	int triple = end - p >= 3 && p[1] == q && p[2] == q;

	for (p += triple ? 3 : 1; p < end; p++) {
		if (*p == '\\') {
			if (++p >= end)
				break;
		} else if (*p == q && (!triple || (end - p >= 3 &&
		    p[1] == q && p[2] == q)))
			return p + (triple ? 3 : 1);
		else if (*p == '\n' && !triple)
			return p;
	}
	return end;
}

/* The start of a top-level statement assigning name, just past '='
 * (and an annotation "NAME: TYPE ="), or NULL.  Top-level: at the start
 * of a line that is not inside a string (a docstring's line "build_info =
 * {...}" would give values the module does not hold, or hide the real
 * assignment behind one that is no literal), inside brackets, or the
 * continuation of another line. */
static const char *
assignment(const char *text, size_t len, const char *name)
{
	const char *p = text, *end = text + len, *q;
	size_t n = strlen(name);
	int depth = 0, bol = 1;

	while (p < end) {
		if (bol && depth == 0 && (size_t)(end - p) > n &&
		    memcmp(p, name, n) == 0 && (p[n] == ' ' || p[n] == '=' ||
		    p[n] == ':' || p[n] == '\t')) {
			q = p + n;
			while (q < end && (*q == ' ' || *q == '\t'))
				q++;
			if (q < end && *q == ':') {	/* an annotation */
				while (q < end && *q != '=' && *q != '\n')
					q++;
			}
			if (q < end && *q == '=' && (q + 1 >= end ||
			    q[1] != '='))
				return q + 1;
		}
		bol = 0;
		switch (*p) {
		case '\n':
			bol = 1;
			p++;
			break;
		case '#':
			while (p < end && *p != '\n')
				p++;
			break;
		case '\'':
		case '"':
			p = skip_string(p, end);
			break;
		case '(':
		case '[':
		case '{':
			depth++;
			p++;
			break;
		case ')':
		case ']':
		case '}':
			depth -= depth > 0;
			p++;
			break;
		case '\\':	/* a line continued: its next line too */
			if (end - p >= 3 && p[1] == '\r' && p[2] == '\n')
				p += 3;
			else
				p += end - p >= 2 ? 2 : 1;
			break;
		default:
			p++;
		}
	}
	return NULL;
}

/* Whether the statement ends at l: only blanks, then the line's or the
 * text's end, a comment or a ';'.  What else follows a literal makes the
 * value an expression ("'12' + x", "{...}.copy()"). */
static int
statement_end(const struct lit *l)
{
	const char *p = l->p;

	while (p < l->end && (*p == ' ' || *p == '\t' || *p == '\r'))
		p++;
	return p >= l->end || *p == '\n' || *p == '#' || *p == ';';
}

/* Past the blanks at the start of a value, which must begin on the line
 * of its '='; 0 when it does not. */
static int
value_start(struct lit *l)
{
	while (l->p < l->end && (*l->p == ' ' || *l->p == '\t'))
		l->p++;
	return l->p < l->end && *l->p != '\n' && *l->p != '\r' &&
	    *l->p != '#' && *l->p != '\\';
}

int
ep_fw_build_info_parse(struct ep_strv *keys, struct ep_strv *vals,
    const char *text, size_t len)
{
	const char *start = assignment(text, len, "build_info");
	struct ep_strv k = { 0 }, v = { 0 };
	struct lit l;
	char *key, *val;
	int dict;

	if (start == NULL)
		return -1;
	l.p = start;
	l.end = text + len;
	if (!value_start(&l))
		return -1;
	if (eat(&l, "collections.OrderedDict(") || eat(&l, "OrderedDict(")) {
		dict = 0;
		if (!eat(&l, "["))
			return -1;
	} else if (eat(&l, "{"))
		dict = 1;
	else
		return -1;
	for (;;) {
		if (eat(&l, dict ? "}" : "]"))
			break;
		if (!dict && !eat(&l, "("))
			goto fail;
		if ((key = str_lit(&l)) == NULL)
			goto fail;
		if (!eat(&l, dict ? ":" : ",") ||
		    (val = value_lit(&l, 0)) == NULL) {
			free(key);
			goto fail;
		}
		ep_strv_push_owned(&k, key);
		ep_strv_push_owned(&v, val);
		/* ('key', 'value') or ('key', 'value',) */
		if (!dict && !eat(&l, ")") && !(eat(&l, ",") &&
		    eat(&l, ")")))
			goto fail;
		if (!eat(&l, ",")) {
			if (!eat(&l, dict ? "}" : "]"))
				goto fail;
			break;
		}
	}
	if ((!dict && !eat(&l, ")")) || !statement_end(&l))
		goto fail;
	for (size_t i = 0; i < k.n; i++) {
		ep_strv_push(keys, k.v[i]);
		ep_strv_push(vals, v.v[i]);
	}
	ep_strv_clear(&k);
	ep_strv_clear(&v);
	return 0;
fail:
	ep_strv_clear(&k);
	ep_strv_clear(&v);
	return -1;
}

char *
ep_fw_py_assign(const char *text, size_t len, const char *name)
{
	static const char *const words[][2] = { { "None", "" },
	    { "True", "true" }, { "False", "false" } };
	const char *start = assignment(text, len, name);
	struct lit l;
	char *v = NULL;

	if (start == NULL)
		return NULL;
	l.p = start;
	l.end = text + len;
	if (!value_start(&l))
		return NULL;
	for (size_t i = 0; v == NULL && i < 3; i++) {
		size_t n = strlen(words[i][0]);

		if ((size_t)(l.end - l.p) >= n && memcmp(l.p, words[i][0],
		    n) == 0) {
			l.p += n;
			v = xstrdup(words[i][1]);
		}
	}
	if (v == NULL)
		v = str_lit(&l);
	if (v != NULL && !statement_end(&l)) {
		free(v);	/* "'12' + x", "Nonesuch" */
		v = NULL;
	}
	return v;
}

char *
ep_fw_build_string(const char *text, size_t len, const char *name)
{
	char *pat = xasprintf("{\"%s\", \"", name);
	const char *p = text, *end = text + len, *hit = NULL, *q;
	size_t n = strlen(pat);

	while (p + n <= end) {
		if ((q = memchr(p, '{', (size_t)(end - p))) == NULL)
			break;
		if ((size_t)(end - q) >= n && memcmp(q, pat, n) == 0) {
			hit = q + n;
			break;
		}
		p = q + 1;
	}
	free(pat);
	if (hit == NULL)
		return NULL;
	for (q = hit; q < end && *q != '"' && *q != '\n' && *q != '\0'; q++)
		;
	if (q >= end || *q != '"')
		return NULL;
	return xstrndup(hit, (size_t)(q - hit));
}

void
ep_fw_requires(struct ep_strv *out, const char *text, size_t len)
{
	const char *p = text, *end = text + len, *nl, *v;
	static const char field[] = "Requires-Dist:";
	size_t n = sizeof field - 1;

	while (p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (nl == NULL)
			nl = end;
		if (nl == p || (nl == p + 1 && *p == '\r'))
			break;		/* the end of the header block */
		if (memchr(p, '\0', (size_t)(nl - p)) != NULL)
			break;		/* binary, as ep_pymeta_parse sees it */
		if ((size_t)(nl - p) > n && strncasecmp(p, field, n) == 0) {
			v = p + n;
			while (v < nl && (*v == ' ' || *v == '\t'))
				v++;
			ep_strv_push_owned(out, xstrndup(v, (size_t)(nl - v -
			    (nl > v && nl[-1] == '\r'))));
		}
		p = nl + 1;
	}
}

int
ep_fw_requirement(char **name, char **spec, char **extra, const char *value)
{
	const char *p = value, *s, *m;
	char *raw, *o, *nm;
	size_t n;

	*name = *spec = *extra = NULL;
	while (*p == ' ' || *p == '\t')
		p++;
	s = p;
	while (isalnum((unsigned char)*p) || *p == '-' || *p == '_' ||
	    *p == '.')
		p++;
	if (p == s)
		return -1;
	nm = xstrndup(s, (size_t)(p - s));
	if (!ep_pep508_name_valid(nm)) {
		free(nm);
		return -1;
	}
	*name = ep_pep503_normalize(nm);
	free(nm);
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p == '[') {		/* extras of the requirement itself */
		while (*p != '\0' && *p != ']')
			p++;
		if (*p == ']')
			p++;
		while (*p == ' ' || *p == '\t')
			p++;
	}
	if (*p == '@') {
		/* A URL: an artifact, no version (and no URL, which may
		 * hold credentials, goes into a fact).  Its marker comes
		 * after white space; a ';' inside it is the URL's. */
		for (p++; *p == ' ' || *p == '\t'; p++)
			;
		while (*p != '\0' && !isspace((unsigned char)*p))
			p++;
		m = strchr(p, ';');
		*spec = xstrdup("");
	} else {
		m = strchr(p, ';');
		n = m != NULL ? (size_t)(m - p) : strlen(p);
		raw = xstrndup(p, n);
		o = *spec = xmalloc(n + 1);
		for (const char *q = raw; *q != '\0'; q++)
			if (!isspace((unsigned char)*q) && *q != '(' &&
			    *q != ')')
				*o++ = *q;
		*o = '\0';
		free(raw);
	}
	if (m != NULL && (s = strstr(m, "extra")) != NULL) {
		s += 5;
		while (*s == ' ')
			s++;
		if (s[0] == '=' && s[1] == '=') {
			s += 2;
			while (*s == ' ')
				s++;
			if (*s == '\'' || *s == '"') {
				char q = *s++;
				const char *e = strchr(s, q);

				if (e != NULL)
					*extra = xstrndup(s, (size_t)(e - s));
			}
		}
	}
	return 0;
}
