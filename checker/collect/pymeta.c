/*
 * pymeta.c: what Python packaging files say, read as text: core metadata
 * headers (METADATA, PKG-INFO), PEP 503 names and PEP 508 name syntax,
 * dist-info folder names.  collect_python.c reads site-packages with it,
 * libwheel.c the NVIDIA wheels.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "python.h"

void
ep_pymeta_clear(struct ep_pymeta *m)
{
	free(m->name);
	free(m->version);
	memset(m, 0, sizeof *m);
}

void
ep_pymeta_parse(struct ep_pymeta *out, const char *buf, size_t len,
    int complete)
{
	const char *p = buf, *end = buf + len;

	memset(out, 0, sizeof *out);
	if (len >= 3 && memcmp(p, "\xef\xbb\xbf", 3) == 0)
		p += 3;		/* a BOM some editors add */
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl != NULL ? nl : end, *colon, *v;
		char **slot = NULL;
		size_t klen;

		if (memchr(p, '\0', (size_t)(le - p)) != NULL) {
			out->binary = 1;
			break;
		}
		if (nl == NULL && !complete)
			break;	/* cut off mid-line */
		if (le > p && le[-1] == '\r')
			le--;
		if (le == p)
			break;	/* the blank line that ends the headers */
		/* Continuation lines (leading white space) belong to fields
		 * we do not read. */
		if (*p != ' ' && *p != '\t' &&
		    (colon = memchr(p, ':', (size_t)(le - p))) != NULL) {
			klen = (size_t)(colon - p);
			if (klen == 4 && strncasecmp(p, "Name", 4) == 0)
				slot = &out->name;
			else if (klen == 7 && strncasecmp(p, "Version", 7) == 0)
				slot = &out->version;
			if (slot != NULL && *slot == NULL) {
				v = colon + 1;
				*slot = ep_trim(xstrndup(v, (size_t)(le - v)));
				if (**slot == '\0') {
					free(*slot);
					*slot = NULL;
				}
			}
		}
		p = nl != NULL ? nl + 1 : end;
	}
}

char *
ep_pydist_entry_name(const char *entry)
{
	size_t n = strcspn(entry, "-");
	const char *dot = strrchr(entry, '.');

	/* "foo.dist-info" has no version part: stop at the suffix. */
	if (dot != NULL && (size_t)(dot - entry) < n)
		n = (size_t)(dot - entry);
	return n == 0 ? NULL : xstrndup(entry, n);
}
