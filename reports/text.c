/*
 * text.c: making untrusted text safe for each report.  Fact keys and
 * values come from the machine or from a manifest someone else wrote: they
 * may hold invalid UTF-8, control characters that XML 1.0 forbids, ANSI
 * escape sequences a terminal would act on, or Markdown and workflow
 * command syntax.  Every writer passes them through here first.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "report.h"
#include "str.h"
#include "xalloc.h"

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

/* "www" (in any case) just before p: GFM's autolink extension would make
 * "www.example.com" a link. */
static int
after_www(const char *start, const char *p)
{
	return p - start >= 3 && strncasecmp(p - 3, "www", 3) == 0;
}

char *
ep_md_escape(const char *s, size_t max)
{
	char *c = ep_text_clean(s != NULL ? s : "", 0), *out, *o;
	size_t run = 0;

	cut(&c, max);
	/* A byte becomes at most an entity (6 bytes) and two <wbr> (5
	 * each). */
	out = o = xmalloc(strlen(c) * 16 + 1);
	for (const char *p = c; *p != '\0'; p++) {
		const char *r = NULL;
		int brk = 0;

		/* Where a line may break.  GitHub's renderer autolinks a URL,
		 * a www. name or an e-mail address in text (even in <code>):
		 * a <wbr> after "://" and "@" and before the dot of "www."
		 * splits the text node its autolinker reads, so no value
		 * becomes a link; and one in every EP_MD_WRAP characters of an
		 * unbroken run keeps a long value from widening the table. */
		if (*p == ' ')
			run = 0;
		else if ((*p == '.' && after_www(c, p)) ||
		    (run >= EP_MD_WRAP && ((unsigned char)*p & 0xc0) != 0x80))
			brk = 1;
		if (brk) {
			memcpy(o, "<wbr>", 5);
			o += 5;
			run = 0;
		}
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
		}
		if (r != NULL) {
			size_t n = strlen(r);

			memcpy(o, r, n);
			o += n;
		} else
			*o++ = *p;
		if (((unsigned char)*p & 0xc0) != 0x80 && *p != ' ')
			run++;
		if (*p == '@' || (*p == ':' && strncmp(p + 1, "//", 2) == 0)) {
			memcpy(o, "<wbr>", 5);
			o += 5;
			run = 0;
		}
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

json_t *
ep_report_str(const char *s)
{
	char *clean;
	json_t *j;

	if (s == NULL)
		return json_null();
	clean = ep_utf8_sanitize(s, strlen(s));
	j = json_string(clean);
	free(clean);
	return j;
}
