/*
 * str.h: the string helpers every module shares: ASCII classes whatever
 * the locale, UTF-8 repaired and decoded, Python's notion of white space,
 * trimming, prefixes and suffixes.  util.c implements it.
 */
#ifndef EP_STR_H
#define EP_STR_H

#include <stddef.h>
#include <stdint.h>

/* ASCII character classes, whatever the locale: formats that other
 * projects own (PEP 440, TOML, image references) define theirs in ASCII,
 * and <ctype.h> answers by the locale. */
static inline int
ep_ascii_digit(int c)
{
	return c >= '0' && c <= '9';
}

/* The value of the hexadecimal digit c, -1 if c is none. */
static inline int
ep_ascii_hexval(int c)
{
	if (ep_ascii_digit(c))
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static inline int
ep_ascii_alnum(int c)
{
	return ep_ascii_digit(c) || (c >= 'a' && c <= 'z') ||
	    (c >= 'A' && c <= 'Z');
}

/* Copy of s with invalid UTF-8 replaced by U+FFFD, so that any byte
 * string read from the machine can become a JSON string. */
char *ep_utf8_sanitize(const char *s, size_t len);

/* The code point of the well-formed UTF-8 sequence at s (at most n > 0
 * bytes) in *cp, and its length; 0 if it is not well formed (overlong,
 * surrogate, beyond U+10FFFF, cut short). */
size_t ep_utf8_decode(const unsigned char *s, size_t n, uint32_t *cp);

/* Code point cp (at most U+10FFFF; the caller maps surrogates as its
 * format says) in UTF-8 into out; returns its length, 1 to 4. */
size_t ep_utf8_encode(char out[4], uint32_t cp);

/* The length of the white space character at p (before e) as Python's
 * str.isspace() and a regular expression's \s see it: ASCII, or U+0085,
 * U+00A0, U+1680, U+2000..U+200A, U+2028, U+2029, U+202F, U+205F, U+3000
 * in UTF-8; 0 if there is none.  PEP 440 versions are read with such
 * blanks around them stripped ("  v1.0\n" is 1.0), and PEP 508's
 * specifiers allow them after the operator, as packaging reads both. */
size_t ep_pyspace_len(const unsigned char *p, const unsigned char *e);

/* Those blanks off both ends of s, in place (Python's str.strip());
 * returns s. */
char *ep_pystrip(char *s);

/* Trim ASCII white space at both ends, in place; returns s. */
char *ep_trim(char *s);

/* 1 if s starts with prefix / ends with suffix. */
int ep_startswith(const char *s, const char *prefix);
int ep_endswith(const char *s, const char *suffix);

#endif
