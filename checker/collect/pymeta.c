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
#include "str.h"
#include "strv.h"
#include "xalloc.h"

void
ep_pymeta_clear(struct ep_pymeta *m)
{
	free(m->name);
	free(m->version);
	ep_strv_clear(&m->requires);
	memset(m, 0, sizeof *m);
}

/* A Requires-Dist value as pip holds it: stripped, valid UTF-8. */
static char *
requirement_value(const char *p, size_t n)
{
	char *v = ep_utf8_sanitize(p, n);

	return ep_pystrip(v);
}

void
ep_pymeta_parse(struct ep_pymeta *out, const char *buf, size_t len,
    int complete)
{
	const char *p = buf, *end = buf + len, *req = NULL;
	char *joined;
	size_t reqn = 0;

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
		if (*p == ' ' || *p == '\t') {
			/* A continuation line: part of a Requires-Dist value
			 * (after a newline, as email's parser keeps it); the
			 * other fields we read are never folded. */
			if (req != NULL)
				reqn = (size_t)(le - req);
			p = nl != NULL ? nl + 1 : end;
			continue;
		}
		if (req != NULL) {
			joined = xstrndup(req, reqn);
			for (char *c = joined; *c != '\0'; c++)
				if (*c == '\r' && c[1] == '\n')
					memmove(c, c + 1, strlen(c));
			ep_strv_push_owned(&out->requires,
			    requirement_value(joined, strlen(joined)));
			free(joined);
			req = NULL;
		}
		if ((colon = memchr(p, ':', (size_t)(le - p))) != NULL) {
			klen = (size_t)(colon - p);
			v = colon + 1;
			if (klen == 4 && strncasecmp(p, "Name", 4) == 0)
				slot = &out->name;
			else if (klen == 7 && strncasecmp(p, "Version", 7) == 0)
				slot = &out->version;
			else if (klen == 13 &&
			    strncasecmp(p, "Requires-Dist", 13) == 0) {
				req = v;
				reqn = (size_t)(le - v);
			}
			if (slot != NULL && *slot == NULL) {
				*slot = ep_trim(xstrndup(v, (size_t)(le - v)));
				if (**slot == '\0') {
					free(*slot);
					*slot = NULL;
				}
			}
		}
		p = nl != NULL ? nl + 1 : end;
	}
	if (req != NULL && !out->binary) {
		joined = xstrndup(req, reqn);
		for (char *c = joined; *c != '\0'; c++)
			if (*c == '\r' && c[1] == '\n')
				memmove(c, c + 1, strlen(c));
		ep_strv_push_owned(&out->requires,
		    requirement_value(joined, strlen(joined)));
		free(joined);
	}
}

void
ep_requires_txt_parse(struct ep_strv *out, const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len;
	char *extra = xstrdup(""), *marker = xstrdup("");

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl != NULL ? nl : end;
		char *line = ep_pystrip(ep_utf8_sanitize(p, (size_t)(le - p)));
		size_t n = strlen(line);

		p = nl != NULL ? nl + 1 : end;
		if (n == 0 || line[0] == '#') {
			free(line);
			continue;
		}
		if (line[0] == '[' && line[n - 1] == ']') {
			/* line.strip("[]").partition(":") */
			char *b = line, *e = line + n, *c;

			while (b < e && (*b == '[' || *b == ']'))
				b++;
			while (e > b && (e[-1] == '[' || e[-1] == ']'))
				e--;
			*e = '\0';
			free(extra);
			free(marker);
			if ((c = strchr(b, ':')) != NULL) {
				*c = '\0';
				marker = xstrdup(c + 1);
			} else
				marker = xstrdup("");
			extra = ep_pep503_normalize(b);
			free(line);
			continue;
		}
		if (*extra != '\0' && *marker != '\0')
			ep_strv_push_owned(out, xasprintf("%s ; (%s) and extra "
			    "== \"%s\"", line, marker, extra));
		else if (*extra != '\0')
			ep_strv_push_owned(out, xasprintf("%s ; extra == "
			    "\"%s\"", line, extra));
		else if (*marker != '\0')
			ep_strv_push_owned(out, xasprintf("%s ; %s", line,
			    marker));
		else
			ep_strv_push(out, line);
		free(line);
	}
	free(extra);
	free(marker);
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

char *
ep_pydist_entry_version(const char *entry)
{
	const char *dash, *end;

	/* pip's parse_name_and_version_from_info_directory: the stem's
	 * partition("-"), for a dist-info only (an egg-info's name may
	 * carry "-pyX.Y" after its version). */
	if (!ep_endswith(entry, ".dist-info"))
		return NULL;
	end = entry + strlen(entry) - strlen(".dist-info");
	if ((dash = memchr(entry, '-', (size_t)(end - entry))) == NULL ||
	    dash + 1 == end)
		return NULL;
	return xstrndup(dash + 1, (size_t)(end - dash - 1));
}
