/*
 * text.c: making untrusted text safe for each report.  Fact keys and
 * values come from the machine or from a manifest someone else wrote: they
 * may hold invalid UTF-8, control characters that XML 1.0 forbids, ANSI
 * escape sequences a terminal would act on, or Markdown and workflow
 * command syntax.  Every writer passes them through here first.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

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
	/* Each input byte becomes at most three output bytes. */
	out = o = xmalloc(len * 3 + 1);
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
		else if ((c >= 0x80 && c <= 0x9f) || c == 0xfffe ||
		    c == 0xffff)
			c = 0xfffd;	/* C1 (a CSI terminals act on) and
					   XML's non-characters */
		o = put_cp(o, c);
		i += k;
	}
	*o = '\0';
	return out;
}

/* Cut *s (clean UTF-8) to at most max bytes (0: no limit) on a character
 * boundary, marking the cut with an ellipsis. */
static void
cut(char **s, size_t max)
{
	size_t n = strlen(*s);

	if (max == 0 || n <= max)
		return;
	while (max > 0 && ((unsigned char)(*s)[max] & 0xc0) == 0x80)
		max--;
	*s = xrealloc(*s, max + 4);
	memcpy(*s + max, "\xe2\x80\xa6", 4);	/* U+2026 */
}

char *
ep_md_escape(const char *s, size_t max)
{
	char *c = ep_text_clean(s != NULL ? s : "", 1), *out, *o;

	cut(&c, max);
	/* The longest replacement, "&#124;"-like entities, is 6 bytes. */
	out = o = xmalloc(strlen(c) * 6 + 1);
	for (const char *p = c; *p != '\0'; p++) {
		const char *r = NULL;

		switch (*p) {
		case '&': r = "&amp;"; break;
		case '<': r = "&lt;"; break;
		case '>': r = "&gt;"; break;
		case '"': r = "&quot;"; break;
		/* A pipe splits table cells before anything else is
		 * parsed: GFM's own escape keeps it one cell.  The value's
		 * backslashes become entities, so that every backslash in
		 * the output is one of our escapes. */
		case '|': r = "\\|"; break;
		case '\\': r = "&#92;"; break;
		case '`': r = "\\`"; break;
		case '*': r = "\\*"; break;
		case '_': r = "\\_"; break;
		case '[': r = "\\["; break;
		case ']': r = "\\]"; break;
		case '~': r = "\\~"; break;
		case '\n': r = "<br>"; break;	/* a row is one line */
		case '\r': r = ""; break;
		case '\t': r = " "; break;
		}
		if (r != NULL) {
			size_t n = strlen(r);

			memcpy(o, r, n);
			o += n;
		} else
			*o++ = *p;
	}
	*o = '\0';
	free(c);
	return out;
}

char *
ep_gh_escape(const char *s, int property)
{
	char *c = ep_text_clean(s != NULL ? s : "", 1), *out, *o;

	out = o = xmalloc(strlen(c) * 3 + 1);
	for (const char *p = c; *p != '\0'; p++) {
		const char *r = NULL;

		switch (*p) {
		case '%': r = "%25"; break;
		case '\r': r = "%0D"; break;
		case '\n': r = "%0A"; break;
		case ':': r = property ? "%3A" : NULL; break;
		case ',': r = property ? "%2C" : NULL; break;
		}
		if (r != NULL) {
			memcpy(o, r, 3);
			o += 3;
		} else
			*o++ = *p;
	}
	*o = '\0';
	free(c);
	return out;
}

const char *
ep_result_reason(const struct ep_result *r)
{
	const char *m = r->message;
	size_t k = strlen(r->key);

	if (m == NULL)
		return "";
	/* Producers write "KEY: why"; the key is shown beside it. */
	if (k > 0 && strncmp(m, r->key, k) == 0 && m[k] == ':' &&
	    m[k + 1] == ' ')
		return m + k + 2;
	return m;
}
