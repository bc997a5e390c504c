/*
 * lockfile_tomlsyn.c: the TOML syntax poetry.lock and uv.lock use, read
 * well enough to skip what lockfile_toml.c does not keep and to say on
 * which line a file is broken: tables, arrays of tables, dotted and quoted
 * keys, the four string forms and their escapes (TOML 1.1's \xHH and \e
 * too), arrays and inline tables spread over lines, comments, numbers,
 * dates and times (with a blank or a T between date and time).  The text
 * must be TOML's: UTF-8, and no control character in a comment or a
 * string but tab.  The markers lockfile_toml.c reads out of inline
 * tables are lockfile_tomlmark.c's.
 */
#include "lockfile_toml.h"
#include "errors.h"
#include "str.h"
#include "strv.h"
#include "xalloc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TP_MAX_DEPTH	64	/* arrays in arrays: no stack overflow */

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

int
ep_toml_fail(struct ep_toml *t, unsigned line, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return ep_err_set(t->err, EP_E_INPUT, "%s:%u: %s", t->name, line,
	    msg);
}

int
ep_toml_at(const struct ep_toml *t, char c)
{
	return t->p < t->end && *t->p == c;
}

void
ep_toml_blank(struct ep_toml *t)
{
	while (ep_toml_at(t, ' ') || ep_toml_at(t, '\t'))
		t->p++;
}

/* A control character TOML allows in no comment and no string: all
 * but tab, and CR except before LF (line ends are read elsewhere). */
static int
tp_control(const struct ep_toml *t)
{
	unsigned char c = (unsigned char)*t->p;

	if (c == '\r')
		return t->p + 1 >= t->end || t->p[1] != '\n';
	return (c < 0x20 && c != '\t' && c != '\n') || c == 0x7f;
}

static int
tp_comment(struct ep_toml *t)
{
	if (ep_toml_at(t, '#'))
		for (; t->p < t->end && *t->p != '\n'; t->p++)
			if (tp_control(t))
				return ep_toml_fail(t, t->line, "control "
				    "character in a comment");
	return 0;
}

/* One line end ("\n" or "\r\n"); 1 if there was one. */
static int
tp_newline(struct ep_toml *t)
{
	if (ep_toml_at(t, '\r') && t->p + 1 < t->end && t->p[1] == '\n')
		t->p++;
	if (!ep_toml_at(t, '\n'))
		return 0;
	t->p++;
	t->line++;
	return 1;
}

/* Blanks, comments and line ends: between top-level lines and inside
 * arrays and inline tables. */
int
ep_toml_space(struct ep_toml *t)
{
	do {
		ep_toml_blank(t);
		if (tp_comment(t) < 0)
			return -1;
	} while (tp_newline(t));
	return 0;
}

/* What may follow a header or a key/value pair on its line. */
int
ep_toml_eol(struct ep_toml *t)
{
	ep_toml_blank(t);
	if (tp_comment(t) < 0)
		return -1;
	if (t->p >= t->end || tp_newline(t))
		return 0;
	return ep_toml_fail(t, t->line, "expected the end of the line after "
	    "the value");
}

static void
utf8_put(struct sbuf *b, unsigned long cp)
{
	char u[4];

	sb_add(b, u, ep_utf8_encode(u, (uint32_t)cp));
}

/* The escape after a backslash in a basic string. */
static int
tp_escape(struct ep_toml *t, struct sbuf *b, int multi)
{
	static const char from[] = "btnfr\"\\e", to[] = "\b\t\n\f\r\"\\\x1b";
	const char *k;
	unsigned long cp = 0;
	size_t digits;
	char letter;

	if (t->p >= t->end)
		return -1;	/* the caller reports the unterminated string */
	if ((k = strchr(from, *t->p)) != NULL && *t->p != '\0') {
		sb_add(b, to + (k - from), 1);
		t->p++;
		return 0;
	}
	if (*t->p == 'u' || *t->p == 'U' || *t->p == 'x') {
		/* \xHH is TOML 1.1's, for the first 256 code points. */
		letter = *t->p++;
		digits = letter == 'u' ? 4 : letter == 'U' ? 8 : 2;
		for (size_t i = 0; i < digits; i++, t->p++) {
			if (t->p >= t->end || ep_ascii_hexval((unsigned char)*t->p)
			    < 0)
				return ep_toml_fail(t, t->line, "invalid \\%c "
				    "escape in a string", letter);
			cp = cp * 16 + (unsigned long)ep_ascii_hexval((unsigned char)
			    *t->p);
		}
		if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			return ep_toml_fail(t, t->line, "invalid \\%c escape "
			    "in a string", letter);
		if (cp == 0)
			t->nul = 1;
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
				if (!ep_toml_at(t, ' ') && !ep_toml_at(t, '\t'))
					break;
				t->p++;
			}
			return 0;
		}
	}
	return ep_toml_fail(t, t->line, "invalid escape in a string");
}

/* A string of any of the four kinds, t->p at its first quote; its value
 * goes to *out (a new string) when out is not NULL. */
static int
tp_string(struct ep_toml *t, char **out)
{
	struct sbuf b = { 0 };
	char q = *t->p;
	unsigned start = t->line;
	int multi = t->end - t->p >= 3 && t->p[1] == q && t->p[2] == q;
	size_t extra;

	sb_add(&b, "", 0);
	t->nul = 0;
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
		} else if (tp_control(t)) {
			free(b.s);
			return ep_toml_fail(t, t->line, "control character in "
			    "a string");
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
	return ep_toml_fail(t, start, "unterminated string");
}

/* A key, dotted or not; its segments go to *segs. */
int
ep_toml_key(struct ep_toml *t, struct ep_strv *segs)
{
	const char *start;
	char *s;

	for (;;) {
		ep_toml_blank(t);
		if (ep_toml_at(t, '"') || ep_toml_at(t, '\'')) {
			s = NULL;
			if (tp_string(t, &s) < 0)
				return -1;
			if (t->nul) {
				/* "name\u0000x" is not the key name: mark it so
				 * that it equals none of the keys kept. */
				char *m = xasprintf("\x7f%s", s);

				free(s);
				s = m;
			}
			ep_strv_push_owned(segs, s);
		} else {
			start = t->p;
			while (t->p < t->end && (ep_ascii_alnum((unsigned char)*t->p)
			    || *t->p == '_' || *t->p == '-'))
				t->p++;
			if (t->p == start)
				return ep_toml_fail(t, t->line,
				    "expected a key");
			ep_strv_push_owned(segs, xstrndup(start,
			    (size_t)(t->p - start)));
		}
		ep_toml_blank(t);
		if (!ep_toml_at(t, '.'))
			return 0;
		t->p++;
	}
}

/* 1 if the n bytes at s are a date, YYYY-MM-DD. */
static int
is_date(const char *s, size_t n)
{
	if (n != 10 || s[4] != '-' || s[7] != '-')
		return 0;
	for (size_t i = 0; i < n; i++)
		if (i != 4 && i != 7 && !ep_ascii_digit((unsigned char)s[i]))
			return 0;
	return 1;
}

/* A number, boolean, date or time: checked only so far as to catch a
 * string written without its quotes.  A date and a time may be apart by
 * one blank instead of T, as RFC 3339 and TOML allow
 * (1979-05-27 07:32:00Z). */
static int
tp_bare(struct ep_toml *t)
{
	const char *start = t->p;
	size_t n;

	for (;;) {
		while (t->p < t->end && (ep_ascii_alnum((unsigned char)*t->p) ||
		    strchr("+-_.:", *t->p) != NULL) && *t->p != '\0')
			t->p++;
		if (is_date(start, (size_t)(t->p - start)) &&
		    t->end - t->p >= 4 && t->p[0] == ' ' &&
		    ep_ascii_digit((unsigned char)t->p[1]) &&
		    ep_ascii_digit((unsigned char)t->p[2]) && t->p[3] == ':') {
			t->p++;
			continue;
		}
		break;
	}
	n = (size_t)(t->p - start);
	if (t->p < t->end && strchr(" \t\r\n,]}#", *t->p) == NULL)
		return ep_toml_fail(t, t->line, "invalid value (a string needs "
		    "quotes)");
	if (n == 0)
		return ep_toml_fail(t, t->line, "missing value");
	if (ep_ascii_digit((unsigned char)start[0]) || start[0] == '+' ||
	    start[0] == '-' || (n == 4 && memcmp(start, "true", 4) == 0) ||
	    (n == 5 && memcmp(start, "false", 5) == 0) ||
	    (n == 3 && (memcmp(start, "inf", 3) == 0 ||
	    memcmp(start, "nan", 3) == 0)))
		return 0;
	return ep_toml_fail(t, t->line, "invalid value (a string needs "
	    "quotes)");
}

int
ep_toml_value(struct ep_toml *t, char **str, const char *const *keys,
    int *flag, int depth)
{
	struct ep_strv segs = { 0 };
	unsigned start = t->line;
	char open;
	int rc;

	if (depth > TP_MAX_DEPTH)
		return ep_toml_fail(t, t->line, "values nested too deeply");
	if (ep_toml_at(t, '"') || ep_toml_at(t, '\''))
		return tp_string(t, str);
	if (!ep_toml_at(t, '[') && !ep_toml_at(t, '{'))
		return tp_bare(t);
	open = *t->p++;
	for (;;) {
		if (ep_toml_space(t) < 0)
			return -1;
		if (t->p >= t->end)
			return ep_toml_fail(t, start, "unterminated %s",
			    open == '[' ? "array" : "inline table");
		if (*t->p == (open == '[' ? ']' : '}')) {
			t->p++;
			return 0;
		}
		if (open == '{') {
			rc = ep_toml_key(t, &segs);
			for (size_t i = 0; rc == 0 && flag != NULL &&
			    segs.n == 1 && keys[i] != NULL; i++)
				if (strcmp(segs.v[0], keys[i]) == 0)
					*flag = 1;
			ep_strv_clear(&segs);
			if (rc < 0)
				return -1;
			if (!ep_toml_at(t, '='))
				return ep_toml_fail(t, t->line, "expected '=' "
				    "after a key");
			t->p++;
			ep_toml_blank(t);
		}
		if (ep_toml_value(t, NULL, NULL, NULL, depth + 1) < 0 ||
		    ep_toml_space(t) < 0)
			return -1;
		if (ep_toml_at(t, ','))
			t->p++;
		else if (t->p < t->end &&
		    *t->p != (open == '[' ? ']' : '}'))
			return ep_toml_fail(t, t->line, "expected ',' or '%c' "
			    "in an %s", open == '[' ? ']' : '}', open == '[' ?
			    "array" : "inline table");
	}
}

int
ep_toml_pair(struct ep_toml *t, struct ep_strv *segs, char **str,
    const char *const *keys, int *flag)
{
	if (ep_toml_key(t, segs) < 0)
		return -1;
	if (!ep_toml_at(t, '='))
		return ep_toml_fail(t, t->line, "expected '=' after a key");
	t->p++;
	ep_toml_blank(t);
	return ep_toml_value(t, str, keys, flag, 1);
}

int
ep_toml_utf8(struct ep_toml *t)
{
	unsigned line = 1;
	size_t n;

	for (const char *p = t->p; p < t->end; p += n) {
		if ((n = ep_lock_utf8_len(p, (size_t)(t->end - p))) == 0)
			return ep_toml_fail(t, line, "not UTF-8 text");
		if (*p == '\n')
			line++;
	}
	return 0;
}
