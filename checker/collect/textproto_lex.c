/*
 * textproto_lex.c: the protobuf text format's tokens (textproto.c has
 * the grammar): white space and '#' comments between them, identifiers,
 * numbers held to the specification's literals (decimal, octal, hex,
 * floats with an exponent and an 'f' suffix; one that runs into a letter
 * refused), quoted strings with every escape of the specification, and
 * punctuation.  '-' is a token of its own, as the specification has it.
 */
#include "textproto_int.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "str.h"
#include "xalloc.h"

int
tp_fail(struct tp *s, unsigned line, const char *what)
{
	return ep_err_set(s->err, EP_E_INPUT, "%s:%u: %s", s->name, line,
	    what);
}

static int
is_ident0(int c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}

static int
is_digit(int c)
{
	return c >= '0' && c <= '9';
}

static int
is_ident(int c)
{
	return is_ident0(c) || is_digit(c);
}

/* Skip white space and comments. */
static void
skip_space(struct tp *s)
{
	while (s->p < s->end) {
		char c = *s->p;

		if (c == '\n') {
			s->line++;
			s->p++;
		} else if (c == ' ' || c == '\t' || c == '\v' || c == '\f' ||
		    c == '\r')
			s->p++;
		else if (c == '#') {
			while (s->p < s->end && *s->p != '\n')
				s->p++;
		} else
			break;
	}
}

/* One escape after the backslash at *pp; its bytes appended at o + *n. */
static int
lex_escape(struct tp *s, const char **pp, char *o, size_t *n)
{
	static const char simple[] = "a\ab\bf\fn\nr\rt\tv\v??\\\\''\"\"";
	const char *p = *pp;
	uint32_t v = 0;
	int digits, want;

	if (p >= s->end)
		return tp_fail(s, s->line, "a string is not closed");
	for (size_t i = 0; simple[i] != '\0'; i += 2)
		if (*p == simple[i]) {
			o[(*n)++] = simple[i + 1];
			*pp = p + 1;
			return 0;
		}
	if (*p >= '0' && *p <= '7') {
		for (digits = 0; digits < 3 && p < s->end && *p >= '0' &&
		    *p <= '7'; digits++)
			v = v * 8 + (uint32_t)(*p++ - '0');
		if (v > 0xff)
			return tp_fail(s, s->line, "an octal escape beyond \\377");
		o[(*n)++] = (char)v;
		*pp = p;
		return 0;
	}
	if (*p == 'x') {
		p++;
		for (digits = 0; digits < 2 && p < s->end && ep_ascii_hexval(*p) >= 0;
		    digits++)
			v = v * 16 + (uint32_t)ep_ascii_hexval(*p++);
		if (digits == 0)
			return tp_fail(s, s->line, "\\x without a hex digit");
		o[(*n)++] = (char)v;
		*pp = p;
		return 0;
	}
	if (*p == 'u' || *p == 'U') {
		want = *p == 'u' ? 4 : 8;
		p++;
		for (digits = 0; digits < want; digits++) {
			if (p >= s->end || ep_ascii_hexval(*p) < 0)
				return tp_fail(s, s->line, want == 4 ?
				    "\\u needs 4 hex digits" :
				    "\\U needs 8 hex digits");
			v = v * 16 + (uint32_t)ep_ascii_hexval(*p++);
		}
		if (v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
			return tp_fail(s, s->line, "a \\u or \\U escape that is "
			    "not a Unicode scalar value");
		*n += ep_utf8_encode(o + *n, v);
		*pp = p;
		return 0;
	}
	return tp_fail(s, s->line, "an unknown escape in a string");
}

/* A quoted string at s->p. */
static int
lex_string(struct tp *s)
{
	char q = *s->p;
	const char *p = s->p + 1;
	size_t n = 0;

	/* Unescaped, a string is never longer than its text. */
	s->text = xmalloc((size_t)(s->end - p) + 1);
	for (;;) {
		if (p >= s->end || *p == '\n')
			return tp_fail(s, s->line, "a string is not closed on "
			    "its line");
		if (*p == q)
			break;
		if (*p == '\\') {
			p++;
			if (lex_escape(s, &p, s->text, &n) < 0)
				return -1;
			continue;
		}
		s->text[n++] = *p++;
	}
	s->text[n] = '\0';
	s->len = n;
	s->p = p + 1;
	s->t = T_STR;
	return 0;
}

/* The value of digits [a, b) in base, into *v; -1 past 64 bits. */
static int
to_u64(uint64_t *v, const char *a, const char *b, unsigned base)
{
	*v = 0;
	for (; a < b; a++) {
		unsigned d = (unsigned)ep_ascii_hexval(*a);

		if (*v > (UINT64_MAX - d) / base)
			return -1;
		*v = *v * base + d;
	}
	return 0;
}

/* A number at s->p: the longest run of [0-9A-Za-z_.] (and a sign right
 * after an exponent's e), then held to the grammar, so that "10bar" and
 * "1.2.3" are refused rather than read as two tokens. */
static int
lex_number(struct tp *s)
{
	const char *a = s->p, *p = a, *d1, *d1e, *d2 = NULL, *d2e = NULL;
	int hex = 0, exp = 0, suffix = 0, dot = 0;
	uint64_t v;

	if (p + 1 < s->end && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		hex = 1;
	while (p < s->end && (is_ident(*p) || *p == '.' ||
	    (!hex && (*p == '+' || *p == '-') && p > a &&
	    (p[-1] == 'e' || p[-1] == 'E'))))
		p++;
	s->p = p;
	s->len = (size_t)(p - a);
	if (hex) {
		for (const char *q = a + 2; q < p; q++)
			if (ep_ascii_hexval(*q) < 0)
				goto bad;
		if (p - a == 2)
			goto bad;
		if (to_u64(&v, a + 2, p, 16) < 0)
			goto range;
		goto integer;
	}
	d1 = a;
	for (d1e = d1; d1e < p && is_digit(*d1e); d1e++)
		;
	p = d1e;
	if (p < s->end && p < s->p && *p == '.') {
		dot = 1;
		d2 = ++p;
		while (p < s->p && is_digit(*p))
			p++;
		d2e = p;
	}
	if (p < s->p && (*p == 'e' || *p == 'E')) {
		exp = 1;
		p++;
		if (p < s->p && (*p == '+' || *p == '-'))
			p++;
		if (p >= s->p || !is_digit(*p))
			goto bad;
		while (p < s->p && is_digit(*p))
			p++;
	}
	if (p < s->p && (*p == 'f' || *p == 'F')) {
		suffix = 1;
		p++;
	}
	if (p != s->p)
		goto bad;
	/* A float's integer part is a dec_lit: "0" or no leading zero. */
	if (dot || exp || suffix) {
		if (d1e - d1 > 1 && *d1 == '0')
			goto bad;
		if (d1 == d1e && (!dot || d2 == d2e))
			goto bad;
		s->text = xstrndup(a, s->len);
		s->t = T_FLOAT;
		return 0;
	}
	if (d1e - d1 > 1 && *d1 == '0') {
		for (const char *q = d1; q < d1e; q++)
			if (*q > '7')
				goto bad;
		if (to_u64(&v, d1 + 1, d1e, 8) < 0)
			goto range;
	} else if (to_u64(&v, d1, d1e, 10) < 0)
		goto range;
integer:
	s->text = xasprintf("%llu", (unsigned long long)v);
	s->t = T_INT;
	return 0;
bad:
	return tp_fail(s, s->line, "a malformed number (a number may not run "
	    "into a letter or another number)");
range:
	return tp_fail(s, s->line, "an integer beyond 64 bits");
}

/* The next token into s (or the one peeked at). */
int
tp_next(struct tp *s)
{
	const char *a;
	char c;

	if (s->peeked) {
		s->peeked = 0;
		return 0;
	}
	free(s->text);
	s->text = NULL;
	skip_space(s);
	s->tline = s->line;
	if (s->p >= s->end) {
		s->t = T_EOF;
		return 0;
	}
	c = *s->p;
	if (is_ident0(c)) {
		for (a = s->p; s->p < s->end && is_ident(*s->p); s->p++)
			;
		s->len = (size_t)(s->p - a);
		s->text = xstrndup(a, s->len);
		s->t = T_IDENT;
		return 0;
	}
	if (is_digit(c) || (c == '.' && s->p + 1 < s->end &&
	    is_digit(s->p[1])))
		return lex_number(s);
	if (c == '"' || c == '\'')
		return lex_string(s);
	if (strchr("{}<>[]:;,-", c) != NULL && c != '\0') {
		s->t = T_PUNCT;
		s->c = c;
		s->p++;
		return 0;
	}
	if (c == '\0')
		return tp_fail(s, s->line, "a NUL byte");
	return tp_fail(s, s->line, "an unexpected character");
}

int
tp_peek(struct tp *s)
{
	if (s->peeked)
		return 0;
	if (tp_next(s) < 0)
		return -1;
	s->peeked = 1;
	return 0;
}

int
tp_is_punct(const struct tp *s, char c)
{
	return s->t == T_PUNCT && s->c == c;
}

/* The text is UTF-8 with no NUL (escapes may still make either). */
int
tp_check_text(struct tp *s)
{
	const unsigned char *p = (const unsigned char *)s->p,
	    *e = (const unsigned char *)s->end;
	unsigned line = 1;
	uint32_t cp;
	size_t n;

	while (p < e) {
		if (*p == '\n')
			line++;
		if (*p == 0)
			return tp_fail(s, line, "a NUL byte");
		if (*p < 0x80) {
			p++;
			continue;
		}
		if ((n = ep_utf8_decode(p, (size_t)(e - p), &cp)) == 0)
			return tp_fail(s, line, "invalid UTF-8");
		p += n;
	}
	return 0;
}
