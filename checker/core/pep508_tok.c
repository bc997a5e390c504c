/*
 * pep508_tok.c: the tokenizer of the PEP 508 reader, matching as
 * packaging's _tokenizer.py regular expressions match, and quoted marker
 * strings with their escapes.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "pep508_int.h"
#include "errors.h"
#include "str.h"
#include "xalloc.h"

/* --- tokens ----------------------------------------------------------- */

/* Python's \w, with every byte of a non-ASCII character taken as one:
 * after a name, a marker variable or a keyword, a non-ASCII character
 * makes the text invalid either way. */
static int
is_word(int c)
{
	return ep_ascii_alnum(c) || c == '_' || c >= 0x80;
}

/* \b at i. */
static int
boundary(const struct tok *t, size_t i)
{
	int a = i > 0 && is_word((unsigned char)t->s[i - 1]);
	int b = i < t->len && is_word((unsigned char)t->s[i]);

	return a != b;
}

int
pep508_syntax(struct tok *t, const char *expected)
{
	return ep_err_set(t->err, EP_E_INPUT, "%s at column %zu", expected,
	    t->pos + 1);
}

/* WS: [ \t]+ (packaging's blank between tokens: no newline). */
size_t
pep508_ws(struct tok *t)
{
	size_t from = t->pos;

	while (t->pos < t->len && (t->s[t->pos] == ' ' ||
	    t->s[t->pos] == '\t'))
		t->pos++;
	return t->pos - from;
}

int
pep508_at(const struct tok *t, char c)
{
	return t->pos < t->len && t->s[t->pos] == c;
}

/* \bword\b at the position: its length, or 0. */
size_t
pep508_keyword(const struct tok *t, const char *word)
{
	size_t n = strlen(word);

	if (t->len - t->pos < n || memcmp(t->s + t->pos, word, n) != 0 ||
	    !boundary(t, t->pos) || !boundary(t, t->pos + n))
		return 0;
	return n;
}

/* IDENTIFIER: \b[a-zA-Z0-9][a-zA-Z0-9._-]*\b, the longest that ends on
 * a boundary; its length, or 0. */
size_t
pep508_identifier(const struct tok *t)
{
	size_t i = t->pos, e;

	if (i >= t->len || !ep_ascii_alnum((unsigned char)t->s[i]) ||
	    !boundary(t, i))
		return 0;
	for (e = i + 1; e < t->len && (ep_ascii_alnum((unsigned char)
	    t->s[e]) || pep508_is_sep((unsigned char)t->s[e])); e++)
		;
	while (e > i && !boundary(t, e))
		e--;
	return e - i;
}

/* --- marker strings ----------------------------------------------------- */

/* cp in UTF-8 at *o, moved past it; a lone surrogate is no UTF-8 and
 * becomes U+FFFD. */
static void
put_utf8(char **o, unsigned long cp)
{
	if (cp >= 0xd800 && cp <= 0xdfff)
		cp = 0xfffd;
	*o += ep_utf8_encode(*o, (uint32_t)cp);
}

/*
 * The body of a quoted string, as ast.literal_eval reads a Python string
 * literal: the escapes \\ \' \" \a \b \f \n \r \t \v \ooo \xhh \uhhhh
 * \Uhhhhhhhh and a backslash before a line end (which drops both); any
 * other backslash stays as written.  A raw line end, a backslash that
 * would escape the closing quote, a short or out-of-range escape, \N{...}
 * and a NUL character are refused.  A new string, or NULL.
 */
char *
pep508_unquote(const char *b, size_t n)
{
	char *out = xmalloc(n * 2 + 1), *o = out;
	size_t i = 0;

	while (i < n) {
		unsigned long cp = 0;
		size_t k, want;
		int c = (unsigned char)b[i];

		if (c == '\n' || c == '\r')
			goto bad;
		if (c != '\\') {
			*o++ = (char)c;
			i++;
			continue;
		}
		if (++i == n)
			goto bad;	/* it escapes the closing quote */
		c = (unsigned char)b[i++];
		switch (c) {
		case '\n':
			continue;
		case '\r':
			if (i < n && b[i] == '\n')
				i++;
			continue;
		case '\\': case '\'': case '"':
			*o++ = (char)c;
			continue;
		case 'a': *o++ = '\a'; continue;
		case 'b': *o++ = '\b'; continue;
		case 'f': *o++ = '\f'; continue;
		case 'n': *o++ = '\n'; continue;
		case 'r': *o++ = '\r'; continue;
		case 't': *o++ = '\t'; continue;
		case 'v': *o++ = '\v'; continue;
		case 'x': want = 2; break;
		case 'u': want = 4; break;
		case 'U': want = 8; break;
		case 'N':
			goto bad;
		default:
			if (c >= '0' && c <= '7') {
				cp = (unsigned long)(c - '0');
				for (k = 0; k < 2 && i < n && b[i] >= '0' &&
				    b[i] <= '7'; k++)
					cp = cp * 8 + (unsigned long)(b[i++] -
					    '0');
				if (cp == 0)
					goto bad;
				put_utf8(&o, cp);
			} else {
				*o++ = '\\';
				*o++ = (char)c;
			}
			continue;
		}
		for (k = 0; k < want; k++) {
			int h = i < n ? ep_ascii_hexval((unsigned char)b[i]) : -1;

			if (h < 0)
				goto bad;
			cp = cp * 16 + (unsigned long)h;
			i++;
		}
		if (cp == 0 || cp > 0x10ffff)
			goto bad;
		put_utf8(&o, cp);
	}
	*o = '\0';
	return out;
bad:
	free(out);
	return NULL;
}
