/*
 * lockfile_text.c: the text under the lockfile formats: UTF-8 checked and
 * written, and requirements files in UTF-16 or UTF-32 (with a byte order
 * mark, which is how pip recognises them: req_file.py's _decode_req_file)
 * decoded to UTF-8.
 */
#include "lockfile.h"
#include "str.h"
#include "xalloc.h"

#include <stdlib.h>
#include <string.h>

size_t
ep_lock_utf8_len(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	unsigned long cp;
	size_t len, i;

	if (n == 0)
		return 0;
	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		len = 2, cp = p[0] & 0x1f;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		len = 3, cp = p[0] & 0x0f;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		len = 4, cp = p[0] & 0x07;
	else
		return 0;
	if (n < len)
		return 0;
	for (i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	/* Overlong forms, surrogates and what lies past U+10FFFF. */
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return len;
}

/* The code unit of width w (2 or 4) at p, in the byte order given. */
static unsigned long
unit(const unsigned char *p, size_t w, int big)
{
	unsigned long u = 0;

	for (size_t i = 0; i < w; i++)
		u |= (unsigned long)p[i] << (8 * (big ? w - 1 - i : i));
	return u;
}

int
ep_lock_decode_bom(char **out, size_t *outlen, const char *buf, size_t len)
{
	static const struct {
		const char *bom;
		size_t n, width;
		int big;
	} boms[] = {
		/* UTF-32 first: its little-endian mark starts as UTF-16's. */
		{ "\x00\x00\xfe\xff", 4, 4, 1 },
		{ "\xff\xfe\x00\x00", 4, 4, 0 },
		{ "\xfe\xff", 2, 2, 1 },
		{ "\xff\xfe", 2, 2, 0 },
	};
	const unsigned char *p = (const unsigned char *)buf, *end;
	size_t w = 0, n;
	unsigned long cp, lo;
	int big = 0;
	char *o;

	for (size_t i = 0; i < sizeof boms / sizeof boms[0]; i++)
		if (len >= boms[i].n && memcmp(buf, boms[i].bom,
		    boms[i].n) == 0) {
			w = boms[i].width;
			big = boms[i].big;
			p += boms[i].n;
			break;
		}
	if (w == 0)
		return 0;
	end = (const unsigned char *)buf + len;
	if ((size_t)(end - p) % w != 0)
		return -1;
	/* At most 3 bytes of UTF-8 for each 2 of UTF-16, 4 for 4 of UTF-32. */
	o = *out = xmalloc((size_t)(end - p) / w * (w == 2 ? 3 : 4) + 1);
	while (p < end) {
		cp = unit(p, w, big);
		p += w;
		if (w == 2 && cp >= 0xd800 && cp <= 0xdbff) {
			if (p == end || (lo = unit(p, 2, big)) < 0xdc00 ||
			    lo > 0xdfff)
				goto bad;
			cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
			p += 2;
		} else if ((cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
			goto bad;
		n = ep_utf8_encode(o, (uint32_t)cp);
		o += n;
	}
	*o = '\0';
	*outlen = (size_t)(o - *out);
	return 1;
bad:
	free(*out);
	*out = NULL;
	return -1;
}

const char *
ep_lock_skip_bom(const char *buf, size_t *len)
{
	if (*len >= 3 && memcmp(buf, "\xef\xbb\xbf", 3) == 0) {
		*len -= 3;
		return buf + 3;
	}
	return buf;
}

void
ep_lock_lines_init(struct ep_lock_lines *l, const char *buf, size_t len)
{
	buf = ep_lock_skip_bom(buf, &len);
	l->p = buf;
	l->end = buf + len;
	l->no = 0;
}

int
ep_lock_next_line(struct ep_lock_lines *l, const char **s, size_t *n)
{
	const char *nl;

	if (l->p >= l->end)
		return 0;
	nl = memchr(l->p, '\n', (size_t)(l->end - l->p));
	*s = l->p;
	*n = (size_t)((nl != NULL ? nl : l->end) - l->p);
	l->p = nl != NULL ? nl + 1 : l->end;
	if (*n > 0 && (*s)[*n - 1] == '\r')
		(*n)--;
	l->no++;
	return 1;
}
