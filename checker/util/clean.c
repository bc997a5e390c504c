/*
 * clean.c: making untrusted text safe to show (clean.h).  One decoder
 * (ep_utf8_decode), one table of what must not be shown as it is, one
 * rule for the lines a CI runner reads commands from, and a stricter one
 * for the text a report's reader decodes, may cut up, and prints.
 */
#include "clean.h"

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "str.h"
#include "xalloc.h"

/* Characters a reader cannot see or that reorder what is shown around
 * them: bidirectional controls (Trojan Source), zero-width and other
 * default-ignorable characters, line and paragraph separators.  ICU,
 * which GitHub's runner uses to match "::" and "##[", ignores most of
 * them, so "#<U+200B>#[" would still be a command if they were kept. */
static int
hidden(uint32_t c)
{
	static const uint32_t ranges[][2] = {
		{ 0x00ad, 0x00ad }, { 0x034f, 0x034f }, { 0x061c, 0x061c },
		{ 0x0600, 0x0605 }, { 0x06dd, 0x06dd }, { 0x070f, 0x070f },
		{ 0x08e2, 0x08e2 }, { 0x115f, 0x1160 }, { 0x17b4, 0x17b5 },
		{ 0x180b, 0x180f }, { 0x200b, 0x200f }, { 0x2028, 0x202e },
		{ 0x2060, 0x206f }, { 0x3164, 0x3164 }, { 0xfe00, 0xfe0f },
		{ 0xfeff, 0xfeff }, { 0xffa0, 0xffa0 }, { 0xfff0, 0xfffb },
		{ 0x110bd, 0x110bd }, { 0x110cd, 0x110cd },
		{ 0x13430, 0x1343f }, { 0x1bca0, 0x1bca3 },
		{ 0x1d173, 0x1d17a }, { 0xe0000, 0xe0fff },
	};

	if (c < 0xad)
		return 0;
	for (size_t i = 0; i < sizeof ranges / sizeof ranges[0]; i++)
		if (c >= ranges[i][0] && c <= ranges[i][1])
			return 1;
	return 0;
}

static char *
put_cp(char *o, uint32_t c)
{
	if (c < 0x80)
		*o++ = (char)c;
	else if (c < 0x800) {
		*o++ = (char)(0xc0 | (c >> 6));
		*o++ = (char)(0x80 | (c & 0x3f));
	} else if (c < 0x10000) {
		*o++ = (char)(0xe0 | (c >> 12));
		*o++ = (char)(0x80 | ((c >> 6) & 0x3f));
		*o++ = (char)(0x80 | (c & 0x3f));
	} else {
		*o++ = (char)(0xf0 | (c >> 18));
		*o++ = (char)(0x80 | ((c >> 12) & 0x3f));
		*o++ = (char)(0x80 | ((c >> 6) & 0x3f));
		*o++ = (char)(0x80 | (c & 0x3f));
	}
	return o;
}

/* 1 for what ep_text_clean writes out as "<U+XXXX>": the hidden
 * characters, C1 controls and XML's non-characters (U+FFFE, U+FFFF), and,
 * so that no output stands for two inputs, the Control Pictures it puts
 * in place of controls (U+2400-U+241F, U+2421) when the input holds them
 * itself. */
static int
written_out(uint32_t c)
{
	return (c >= 0x80 && c <= 0x9f) || c == 0xfffe || c == 0xffff ||
	    (c >= 0x2400 && c <= 0x241f) || c == 0x2421 || hidden(c);
}

char *
ep_text_clean(const char *s, int keep_lines)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t len;
	char *out, *o;
	uint32_t c;

	if (s == NULL)
		return NULL;
	len = strlen(s);
	/* An input byte becomes at most four output bytes ("<U+0085>" from
	 * two, "<U+003C>U+" from three). */
	out = o = xmalloc(len * 4 + 1);
	for (size_t i = 0; i < len;) {
		size_t k = ep_utf8_decode(u + i, len - i, &c);

		if (k == 0) {
			c = 0xfffd;
			k = 1;
		} else if (keep_lines && (c == '\t' || c == '\n' ||
		    c == '\r'))
			;
		else if (c < 0x20)
			c = 0x2400 + c;	/* Control Pictures: ESC shows as ␛ */
		else if (c == 0x7f)
			c = 0x2421;
		else if (written_out(c) || (c == '<' &&
		    strncmp(s + i + 1, "U+", 2) == 0)) {
			/* A literal "<U+" is written out too: every "<U+" in
			 * the output starts one of ours. */
			o += sprintf(o, "<U+%04X>", (unsigned)c);
			i += k;
			continue;
		}
		o = put_cp(o, c);
		i += k;
	}
	*o = '\0';
	return out;
}

/* Length of the white space GitHub's runner trims (.NET's
 * char.IsWhiteSpace) at s, 0 if none.  Controls are pictures by now. */
static size_t
runner_space(const unsigned char *s, size_t n)
{
	uint32_t c;
	size_t k;

	if (*s == ' ')
		return 1;
	if ((k = ep_utf8_decode(s, n, &c)) == 0)
		return 0;
	if (c == 0xa0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200a) ||
	    c == 0x202f || c == 0x205f || c == 0x3000)
		return k;
	return 0;
}

char *
ep_line_clean(const char *s)
{
	char *c = ep_text_clean(s != NULL ? s : "", 0), *out, *o;
	const unsigned char *u = (const unsigned char *)c;
	size_t n = strlen(c), lead = 0, k;

	while (lead < n && (k = runner_space(u + lead, n - lead)) > 0)
		lead += k;
	/* At most one backslash per three bytes of "##[", plus one. */
	out = o = xmalloc(n + n / 3 + 2);
	memcpy(o, c, lead);
	o += lead;
	if (strncmp(c + lead, "::", 2) == 0)
		*o++ = '\\';
	for (size_t i = lead; i < n; i++) {
		if (c[i] == '[' && i >= 2 && c[i - 1] == '#' && c[i - 2] == '#')
			*o++ = '\\';
		*o++ = c[i];
	}
	*o = '\0';
	free(c);
	return out;
}

/* A byte a reader may drop before it prints, so that what stood on
 * either side of it meets: any byte of a character past ASCII
 * (mikepenz/action-junit-report's escapeEmoji drops emoji) and a CR
 * (dorny/test-reporter's fixEol). */
static int
vanishes(unsigned char b)
{
	return b >= 0x80 || b == '\r';
}

/* 1 if the bytes before s + i, past those that vanish, end with what. */
static int
follows(const char *s, size_t i, const char *what)
{
	for (size_t k = strlen(what); k > 0; k--) {
		while (i > 0 && vanishes((unsigned char)s[i - 1]))
			i--;
		if (i == 0 || s[i - 1] != what[k - 1])
			return 0;
		i--;
	}
	return 1;
}

char *
ep_text_nocmd(const char *s)
{
	char *c = ep_text_clean(s != NULL ? s : "", 1), *out, *o;
	size_t n = strlen(c);

	/* A byte becomes at most the 8 of "<U+003A>". */
	out = o = xmalloc(8 * n + 1);
	for (size_t i = 0; i < n; i++) {
		if (c[i] == ':' && follows(c, i, ":"))
			o += sprintf(o, "<U+003A>");
		else if (c[i] == '[' && follows(c, i, "##"))
			o += sprintf(o, "<U+005B>");
		else
			*o++ = c[i];
	}
	*o = '\0';
	free(c);
	return out;
}

int
ep_vsay(FILE *f, const char *fmt, va_list ap)
{
	char *s = xvasprintf(fmt, ap), *u = ep_scrub_userinfo(s);
	char *c = ep_line_clean(u);
	int rc = fputs(c, f);

	if (rc != EOF)
		rc = fputc('\n', f);
	free(c);
	free(u);
	free(s);
	return rc;
}

int
ep_say(FILE *f, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = ep_vsay(f, fmt, ap);
	va_end(ap);
	return rc;
}

char *
ep_json_clean(const char *json)
{
	const unsigned char *u = (const unsigned char *)json;
	size_t n = strlen(json), k;
	char *out = xmalloc(n * 6 + 1), *o = out;
	uint32_t c;

	for (size_t i = 0; i < n; i += k) {
		k = ep_utf8_decode(u + i, n - i, &c);
		if (k == 0)
			k = 1;	/* jansson writes valid UTF-8; keep a byte */
		else if (c == '[' && i >= 2 && json[i - 1] == '#' &&
		    json[i - 2] == '#') {
			o += sprintf(o, "\\u005b");
			continue;
		} else if (hidden(c)) {
			if (c < 0x10000)
				o += sprintf(o, "\\u%04x", (unsigned)c);
			else
				o += sprintf(o, "\\u%04x\\u%04x",
				    (unsigned)(0xd800 + ((c - 0x10000) >> 10)),
				    (unsigned)(0xdc00 + ((c - 0x10000) &
				    0x3ff)));
			continue;
		}
		memcpy(o, json + i, k);
		o += k;
	}
	*o = '\0';
	return out;
}

char *
ep_xml_clean(const char *x, size_t n)
{
	const unsigned char *u = (const unsigned char *)x;
	/* "##[" (3 bytes) becomes 7, "::" 6. */
	char *out = xmalloc(n * 3 + 1), *o = out;
	size_t i = 0, k;

	while (i < n) {
		/* At the start of a line. */
		while (i < n && (k = runner_space(u + i, n - i)) > 0) {
			memcpy(o, x + i, k);
			o += k;
			i += k;
		}
		if (n - i >= 2 && x[i] == ':' && x[i + 1] == ':') {
			memcpy(o, "&#58;", 5);
			o += 5;
			i++;
		}
		for (; i < n && x[i] != '\n'; i++) {
			if (x[i] == '[' && i >= 2 && x[i - 1] == '#' &&
			    x[i - 2] == '#') {
				memcpy(o, "&#91;", 5);
				o += 5;
			} else
				*o++ = x[i];
		}
		if (i < n)
			*o++ = x[i++];
	}
	*o = '\0';
	return out;
}

/* Where a URL-ish token that starts at s ends: white space, a quote or an
 * angle bracket. */
static size_t
token_len(const char *s)
{
	return strcspn(s, " \t\r\n\"'`<>");
}

/* 1 when the userinfo auth..at (of a URL whose scheme ends at sep, in
 * text starting at start) is an account name and no secret: ssh's
 * "git@host".  A password (after ':') always is a secret, and so is the
 * whole userinfo of http(s), where a token is often written as the user
 * ("https://TOKEN@github.com/..."). */
static int
account_only(const char *start, const char *sep, const char *auth,
    const char *at)
{
	const char *scheme = sep;

	if (memchr(auth, ':', (size_t)(at - auth)) != NULL)
		return 0;
	while (scheme > start && (isalnum((unsigned char)scheme[-1]) ||
	    scheme[-1] == '+' || scheme[-1] == '-' || scheme[-1] == '.'))
		scheme--;
	return (size_t)(sep - scheme) >= 3 &&
	    strncasecmp(sep - 3, "ssh", 3) == 0;
}

char *
ep_scrub_userinfo(const char *s)
{
	size_t n = strlen(s);
	/* "***" can be longer than the userinfo it stands for. */
	char *out = xmalloc(2 * n + 4), *o = out;
	const char *p = s, *sep;

	while ((sep = strstr(p, "://")) != NULL) {
		const char *auth = sep + 3, *at = NULL;
		size_t t = token_len(auth);

		/* The last '@' of the token ends the userinfo: a password
		 * may hold '/', '?', '#' and '@' unencoded. */
		for (size_t i = 0; i < t; i++)
			if (auth[i] == '@')
				at = auth + i;
		memcpy(o, p, (size_t)(auth - p));
		o += auth - p;
		if (at != NULL && !account_only(p, sep, auth, at)) {
			memcpy(o, "***", 3);
			o += 3;
			p = at;
		} else
			p = auth;
		/* The rest of the token as it is. */
		t = token_len(p);
		memcpy(o, p, t);
		o += t;
		p += t;
	}
	memcpy(o, p, strlen(p) + 1);
	return out;
}
