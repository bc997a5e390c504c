/*
 * lockfile_toml.c: the name and version of each [[package]] table of
 * poetry.lock and uv.lock.
 *
 * Not a TOML library: it reads the whole syntax those files use (tables,
 * arrays of tables, dotted and quoted keys, the four string forms, arrays
 * and inline tables spread over lines, comments) only well enough to skip
 * what it does not keep and to say on which line a file is broken.  It
 * keeps three keys of each [[package]]: name, version, and whether source
 * is a local tree (uv's workspace members).  Subtables such as
 * [package.dependencies], [package.extras], [[package.wheels]] and
 * [metadata] end the package's own keys, as TOML says they must.
 */
#include "lockfile.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TP_MAX_DEPTH	64	/* arrays in arrays: no stack overflow */

struct tp {
	const char *p, *end;
	unsigned line;
	const char *name;
	struct ep_err *err;
};

/* A growable string for decoded values. */
struct sbuf {
	char *s;
	size_t n, cap;
};

static void
sb_add(struct sbuf *b, const char *s, size_t n)
{
	if (b->n + n + 1 > b->cap) {
		b->cap = (b->n + n + 1) * 2;
		b->s = xrealloc(b->s, b->cap);
	}
	memcpy(b->s + b->n, s, n);
	b->n += n;
	b->s[b->n] = '\0';
}

static int tp_fail(struct tp *, unsigned, const char *, ...)
    __attribute__((format(printf, 3, 4)));

static int
tp_fail(struct tp *t, unsigned line, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return ep_err_set(t->err, EP_E_INPUT, "%s:%u: %s", t->name, line,
	    msg);
}

static int
tp_at(const struct tp *t, char c)
{
	return t->p < t->end && *t->p == c;
}

static void
tp_blank(struct tp *t)
{
	while (tp_at(t, ' ') || tp_at(t, '\t'))
		t->p++;
}

static void
tp_comment(struct tp *t)
{
	if (tp_at(t, '#'))
		while (t->p < t->end && *t->p != '\n')
			t->p++;
}

/* One line end ("\n" or "\r\n"); 1 if there was one. */
static int
tp_newline(struct tp *t)
{
	if (tp_at(t, '\r') && t->p + 1 < t->end && t->p[1] == '\n')
		t->p++;
	if (!tp_at(t, '\n'))
		return 0;
	t->p++;
	t->line++;
	return 1;
}

/* Blanks, comments and line ends: between top-level lines and inside
 * arrays and inline tables. */
static void
tp_space(struct tp *t)
{
	do {
		tp_blank(t);
		tp_comment(t);
	} while (tp_newline(t));
}

/* What may follow a header or a key/value pair on its line. */
static int
tp_eol(struct tp *t)
{
	tp_blank(t);
	tp_comment(t);
	if (t->p >= t->end || tp_newline(t))
		return 0;
	return tp_fail(t, t->line, "expected the end of the line after the "
	    "value");
}

static void
utf8_put(struct sbuf *b, unsigned long cp)
{
	char u[4];
	size_t n;

	if (cp < 0x80) {
		u[0] = (char)cp;
		n = 1;
	} else if (cp < 0x800) {
		u[0] = (char)(0xc0 | (cp >> 6));
		u[1] = (char)(0x80 | (cp & 0x3f));
		n = 2;
	} else if (cp < 0x10000) {
		u[0] = (char)(0xe0 | (cp >> 12));
		u[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		u[2] = (char)(0x80 | (cp & 0x3f));
		n = 3;
	} else {
		u[0] = (char)(0xf0 | (cp >> 18));
		u[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
		u[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
		u[3] = (char)(0x80 | (cp & 0x3f));
		n = 4;
	}
	sb_add(b, u, n);
}

/* The escape after a backslash in a basic string. */
static int
tp_escape(struct tp *t, struct sbuf *b, int multi)
{
	static const char from[] = "btnfr\"\\e", to[] = "\b\t\n\f\r\"\\\x1b";
	const char *k;
	unsigned long cp = 0;
	size_t digits;

	if (t->p >= t->end)
		return -1;	/* the caller reports the unterminated string */
	if ((k = strchr(from, *t->p)) != NULL && *t->p != '\0') {
		sb_add(b, to + (k - from), 1);
		t->p++;
		return 0;
	}
	if (*t->p == 'u' || *t->p == 'U') {
		digits = *t->p == 'u' ? 4 : 8;
		t->p++;
		for (size_t i = 0; i < digits; i++, t->p++) {
			if (t->p >= t->end || !isxdigit((unsigned char)*t->p))
				return tp_fail(t, t->line, "invalid \\u escape "
				    "in a string");
			cp = cp * 16 + (unsigned long)(isdigit((unsigned char)
			    *t->p) ? *t->p - '0' :
			    tolower((unsigned char)*t->p) - 'a' + 10);
		}
		if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			return tp_fail(t, t->line, "invalid \\u escape in a "
			    "string");
		utf8_put(b, cp);
		return 0;
	}
	if (multi) {
		/* A line-ending backslash swallows the white space after. */
		const char *q = t->p;

		while (q < t->end && (*q == ' ' || *q == '\t' || *q == '\r'))
			q++;
		if (q < t->end && *q == '\n') {
			t->p = q;
			for (;;) {
				if (tp_newline(t))
					continue;
				if (!tp_at(t, ' ') && !tp_at(t, '\t'))
					break;
				t->p++;
			}
			return 0;
		}
	}
	return tp_fail(t, t->line, "invalid escape in a string");
}

/* A string of any of the four kinds, t->p at its first quote; its value
 * goes to *out (a new string) when out is not NULL. */
static int
tp_string(struct tp *t, char **out)
{
	struct sbuf b = { 0 };
	char q = *t->p;
	unsigned start = t->line;
	int multi = t->end - t->p >= 3 && t->p[1] == q && t->p[2] == q;
	size_t extra;

	sb_add(&b, "", 0);
	t->p += multi ? 3 : 1;
	if (multi)
		tp_newline(t);	/* a line end right after """ is dropped */
	for (;;) {
		if (t->p >= t->end)
			goto unterminated;
		if (*t->p == q) {
			if (!multi) {
				t->p++;
				break;
			}
			if (t->end - t->p >= 3 && t->p[1] == q &&
			    t->p[2] == q) {
				/* """"" is two quotes of content, then """ */
				for (extra = 0; extra < 2 && t->p + 3 + extra <
				    t->end && t->p[3 + extra] == q; extra++)
					sb_add(&b, &q, 1);
				t->p += 3 + extra;
				break;
			}
		} else if (*t->p == '\n' || (*t->p == '\r' && !multi)) {
			if (!multi)
				goto unterminated;
			t->line++;
		} else if (*t->p == '\0') {
			free(b.s);
			return tp_fail(t, t->line, "NUL byte in a string");
		} else if (*t->p == '\\' && q == '"') {
			t->p++;
			if (tp_escape(t, &b, multi) < 0) {
				if (t->p >= t->end)
					goto unterminated;
				free(b.s);
				return -1;
			}
			continue;
		}
		sb_add(&b, t->p, 1);
		t->p++;
	}
	if (out != NULL)
		*out = b.s;
	else
		free(b.s);
	return 0;
unterminated:
	free(b.s);
	return tp_fail(t, start, "unterminated string");
}

/* A key, dotted or not; its segments go to *segs. */
static int
tp_key(struct tp *t, struct ep_strv *segs)
{
	const char *start;
	char *s;

	for (;;) {
		tp_blank(t);
		if (tp_at(t, '"') || tp_at(t, '\'')) {
			s = NULL;
			if (tp_string(t, &s) < 0)
				return -1;
			ep_strv_push_owned(segs, s);
		} else {
			start = t->p;
			while (t->p < t->end && (isalnum((unsigned char)*t->p)
			    || *t->p == '_' || *t->p == '-'))
				t->p++;
			if (t->p == start)
				return tp_fail(t, t->line, "expected a key");
			ep_strv_push_owned(segs, xstrndup(start,
			    (size_t)(t->p - start)));
		}
		tp_blank(t);
		if (!tp_at(t, '.'))
			return 0;
		t->p++;
	}
}

/* A number, boolean, date or time: checked only so far as to catch a
 * string written without its quotes. */
static int
tp_bare(struct tp *t)
{
	const char *start = t->p;
	size_t n;

	while (t->p < t->end && *t->p != '\0' &&
	    strchr(" \t\r\n,]}#", *t->p) == NULL)
		t->p++;
	n = (size_t)(t->p - start);
	if (n == 0)
		return tp_fail(t, t->line, "missing value");
	if (isdigit((unsigned char)start[0]) || start[0] == '+' ||
	    start[0] == '-' || (n == 4 && memcmp(start, "true", 4) == 0) ||
	    (n == 5 && memcmp(start, "false", 5) == 0) ||
	    (n == 3 && (memcmp(start, "inf", 3) == 0 ||
	    memcmp(start, "nan", 3) == 0)))
		return 0;
	return tp_fail(t, t->line, "invalid value (a string needs quotes)");
}

/* Any value.  A string's value goes to *str when str is not NULL; for an
 * inline table, local is set when it has a key that makes a uv source a
 * local tree. */
static int
tp_value(struct tp *t, char **str, int *local, int depth)
{
	static const char *const local_keys[] = { "editable", "virtual",
	    "directory", "path", NULL };
	struct ep_strv segs = { 0 };
	unsigned start = t->line;
	char open;
	int rc;

	if (depth > TP_MAX_DEPTH)
		return tp_fail(t, t->line, "values nested too deeply");
	if (tp_at(t, '"') || tp_at(t, '\''))
		return tp_string(t, str);
	if (!tp_at(t, '[') && !tp_at(t, '{'))
		return tp_bare(t);
	open = *t->p++;
	for (;;) {
		tp_space(t);
		if (t->p >= t->end)
			return tp_fail(t, start, "unterminated %s", open == '[' ?
			    "array" : "inline table");
		if (*t->p == (open == '[' ? ']' : '}')) {
			t->p++;
			return 0;
		}
		if (open == '{') {
			rc = tp_key(t, &segs);
			if (rc == 0 && local != NULL && segs.n == 1)
				for (size_t i = 0; local_keys[i] != NULL; i++)
					if (strcmp(segs.v[0], local_keys[i]) == 0)
						*local = 1;
			ep_strv_clear(&segs);
			if (rc < 0)
				return -1;
			if (!tp_at(t, '='))
				return tp_fail(t, t->line, "expected '=' after "
				    "a key");
			t->p++;
			tp_blank(t);
		}
		if (tp_value(t, NULL, NULL, depth + 1) < 0)
			return -1;
		tp_space(t);
		if (tp_at(t, ','))
			t->p++;
		else if (t->p < t->end &&
		    *t->p != (open == '[' ? ']' : '}'))
			return tp_fail(t, t->line, "expected ',' or '%c' in "
			    "an %s", open == '[' ? ']' : '}', open == '[' ?
			    "array" : "inline table");
	}
}

/* The [[package]] being read. */
struct tp_pkg {
	int active;
	unsigned line;		/* of its [[package]] header */
	char *name, *version;
	int local;		/* source is a local tree */
};

static void
pkg_reset(struct tp_pkg *k)
{
	free(k->name);
	free(k->version);
	memset(k, 0, sizeof *k);
}

static int
pkg_finish(struct tp *t, struct ep_pins *pins, struct tp_pkg *k, int uv)
{
	char *norm;

	if (!k->active)
		return 0;
	if (k->name == NULL)
		return tp_fail(t, k->line, "[[package]] without a name");
	if (!ep_lock_valid_name(k->name, strlen(k->name)))
		return tp_fail(t, k->line, "[[package]] name is not a valid "
		    "package name");
	if (k->version == NULL) {
		if (uv && k->local)
			goto skip;
		return tp_fail(t, k->line, "[[package]] \"%s\" has no version",
		    k->name);
	}
	if (k->version[0] == '\0')
		return tp_fail(t, k->line, "[[package]] \"%s\" has an empty "
		    "version", k->name);
	norm = ep_lock_pep503(k->name, strlen(k->name));
	ep_pins_add(pins, norm, k->version);
	free(norm);
skip:
	pkg_reset(k);
	return 0;
}

static int
tp_header(struct tp *t, struct ep_pins *pins, struct tp_pkg *k, int uv)
{
	struct ep_strv segs = { 0 };
	unsigned line = t->line;
	int array, rc = -1;

	t->p++;
	if ((array = tp_at(t, '[')))
		t->p++;
	if (tp_key(t, &segs) < 0)
		goto done;
	if (!tp_at(t, ']') || (array && (t->p + 1 >= t->end ||
	    t->p[1] != ']'))) {
		tp_fail(t, line, "unterminated table header");
		goto done;
	}
	t->p += array ? 2 : 1;
	if (tp_eol(t) < 0 || pkg_finish(t, pins, k, uv) < 0)
		goto done;
	pkg_reset(k);
	if (array && segs.n == 1 && strcmp(segs.v[0], "package") == 0) {
		k->active = 1;
		k->line = line;
	}
	rc = 0;
done:
	ep_strv_clear(&segs);
	return rc;
}

static int
tp_keyval(struct tp *t, struct tp_pkg *k)
{
	struct ep_strv segs = { 0 };
	unsigned line = t->line;
	char *str = NULL, **slot = NULL;
	int local = 0, rc = -1;

	if (tp_key(t, &segs) < 0)
		goto done;
	if (!tp_at(t, '=')) {
		tp_fail(t, line, "expected '=' after a key");
		goto done;
	}
	t->p++;
	tp_blank(t);
	if (tp_value(t, &str, &local, 0) < 0 || tp_eol(t) < 0)
		goto done;
	if (k->active && segs.n == 1) {
		if (strcmp(segs.v[0], "name") == 0)
			slot = &k->name;
		else if (strcmp(segs.v[0], "version") == 0)
			slot = &k->version;
		else if (strcmp(segs.v[0], "source") == 0)
			k->local = local;
	}
	if (slot != NULL) {
		if (*slot != NULL) {
			tp_fail(t, line, "duplicate key \"%s\"", segs.v[0]);
			goto done;
		}
		if (str == NULL) {
			tp_fail(t, line, "\"%s\" is not a string", segs.v[0]);
			goto done;
		}
		*slot = str;
		str = NULL;
	}
	rc = 0;
done:
	free(str);
	ep_strv_clear(&segs);
	return rc;
}

int
ep_lock_parse_toml(struct ep_pins *out, const char *buf, size_t len,
    const char *name, int uv, struct ep_err *err)
{
	struct ep_pins pins = { 0 };
	struct tp_pkg k = { 0 };
	struct tp t;
	int rc = -1;

	buf = ep_lock_skip_bom(buf, &len);
	t.p = buf;
	t.end = buf + len;
	t.line = 1;
	t.name = name;
	t.err = err;
	for (;;) {
		tp_space(&t);
		if (t.p >= t.end)
			break;
		if (*t.p == '[') {
			if (tp_header(&t, &pins, &k, uv) < 0)
				goto done;
		} else if (tp_keyval(&t, &k) < 0)
			goto done;
	}
	if (pkg_finish(&t, &pins, &k, uv) < 0)
		goto done;
	ep_pins_take(out, &pins);
	rc = 0;
done:
	pkg_reset(&k);
	ep_pins_clear(&pins);
	return rc;
}
