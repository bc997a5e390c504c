/*
 * lockfile_conda.c: conda explicit files, as conda-lock's "explicit"
 * render and `conda list --explicit` write them: one package URL or path
 * a line, name-version-build.
 */
#include "lockfile.h"
#include "errors.h"
#include "str.h"
#include "xalloc.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* "%2B" and friends in a package file name ("1.0%2Bcpu"), decoded in place. */
static void
pct_decode(char *s)
{
	char *o = s;

	for (; *s != '\0'; s++) {
		if (s[0] == '%' && isxdigit((unsigned char)s[1]) &&
		    isxdigit((unsigned char)s[2])) {
			char hex[3] = { s[1], s[2], '\0' };

			*o++ = (char)strtol(hex, NULL, 16);
			s += 2;
		} else
			*o++ = *s;
	}
	*o = '\0';
}

int
ep_lock_conda_filename(char **pkg, char **version, const char *url, size_t n)
{
	const char *frag = memchr(url, '#', n), *base;
	char *file, *ver, *build;
	size_t blen;

	*pkg = *version = NULL;
	if (frag != NULL)
		n = (size_t)(frag - url);
	while (n > 0 && isspace((unsigned char)url[n - 1]))
		n--;
	base = url + n;
	while (base > url && base[-1] != '/')
		base--;
	blen = (size_t)(url + n - base);
	file = xstrndup(base, blen);
	if (ep_endswith(file, ".conda"))
		file[blen - strlen(".conda")] = '\0';
	else if (ep_endswith(file, ".tar.bz2"))
		file[blen - strlen(".tar.bz2")] = '\0';
	else
		goto bad;
	pct_decode(file);
	if ((build = strrchr(file, '-')) == NULL || build == file ||
	    build[1] == '\0')
		goto bad;
	*build = '\0';
	if ((ver = strrchr(file, '-')) == NULL || ver == file ||
	    ver[1] == '\0')
		goto bad;
	*ver++ = '\0';
	*version = xstrdup(ver);
	*pkg = file;
	return 0;
bad:
	free(file);
	return -1;
}

/* One package line of an explicit file: a URL or path ending in
 * NAME-VERSION-BUILD.conda or .tar.bz2, with an optional #md5 or
 * #sha256 fragment.  Only name and version are kept: the channel part of
 * the URL can hold a token. */
static int
conda_line(struct ep_pins *pins, const char *s, size_t n, unsigned no,
    const char *name, struct ep_err *err)
{
	const char *frag = memchr(s, '#', n);
	char *pkg, *ver;
	size_t m = frag != NULL ? (size_t)(frag - s) : n;

	while (m > 0 && isspace((unsigned char)s[m - 1]))
		m--;
	if (!(m >= 6 && memcmp(s + m - 6, ".conda", 6) == 0) &&
	    !(m >= 8 && memcmp(s + m - 8, ".tar.bz2", 8) == 0))
		return ep_err_set(err, EP_E_INPUT, "%s:%u: not a conda package "
		    "URL (expected .../NAME-VERSION-BUILD.conda or .tar.bz2)",
		    name, no);
	if (ep_lock_conda_filename(&pkg, &ver, s, n) < 0)
		return ep_err_set(err, EP_E_INPUT, "%s:%u: package file name "
		    "is not NAME-VERSION-BUILD", name, no);
	ep_pins_add(pins, pkg, ver);
	free(pkg);
	free(ver);
	return 0;
}

int
ep_lock_parse_conda(struct ep_pins *out, const char *buf, size_t len,
    const char *name, struct ep_err *err)
{
	struct ep_pins pins = { 0 };
	struct ep_lock_lines l;
	const char *s;
	size_t n, b;
	int explicit = 0, rc = -1;

	ep_lock_lines_init(&l, buf, len);
	while (ep_lock_next_line(&l, &s, &n)) {
		if (memchr(s, '\0', n) != NULL) {
			ep_err_set(err, EP_E_INPUT, "%s:%u: NUL byte in a text "
			    "file", name, l.no);
			goto done;
		}
		b = 0;
		while (b < n && isspace((unsigned char)s[b]))
			b++;
		s += b;
		n -= b;
		while (n > 0 && isspace((unsigned char)s[n - 1]))
			n--;
		if (n == 0 || s[0] == '#')
			continue;
		if (n == strlen("@EXPLICIT") && memcmp(s, "@EXPLICIT", n) == 0) {
			explicit = 1;
			continue;
		}
		if (!explicit) {
			ep_err_set(err, EP_E_INPUT, "%s:%u: expected the "
			    "@EXPLICIT line before any package", name, l.no);
			goto done;
		}
		if (conda_line(&pins, s, n, l.no, name, err) < 0)
			goto done;
	}
	if (!explicit) {
		ep_err_set(err, EP_E_INPUT, "%s:%u: no @EXPLICIT line: not a "
		    "conda explicit lockfile", name, l.no > 0 ? l.no : 1);
		goto done;
	}
	ep_pins_take(out, &pins);
	rc = 0;
done:
	ep_pins_clear(&pins);
	return rc;
}
