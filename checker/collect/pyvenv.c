/*
 * pyvenv.c: a virtual environment's pyvenv.cfg, found beside an
 * interpreter or one level up as CPython looks for it, and read as
 * site.py reads it (python.h); and which interpreter a venv's python
 * really is, told from the files without running any.
 *
 * Everything in a venv may have been written by a package: a wheel's
 * data files install under the venv's root (a pyvenv.cfg of its own, a
 * lib/python3.10/site-packages of its own) and its scripts into bin/ (a
 * "python" of its own), all without running any code.  So pyvenv.cfg's
 * version is never taken for the interpreter's, and the venv's python is
 * an interpreter only when it is what venv made it: a link to a binary
 * outside the venv, or a copy of the one its home holds (venv --copies).
 * Shared by pyinterp.c, which then asks that binary (outside the venv,
 * so that no pyvenv.cfg of the venv's chooses its standard library), and
 * pyquery.c, which lets a confined interpreter read its base.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "python.h"
#include "errors.h"
#include "files.h"
#include "str.h"
#include "strv.h"
#include "xalloc.h"

void
ep_pyvenv_clear(struct ep_pyvenv *v)
{
	free(v->home);
	free(v->version);
	free(v->executable);
	memset(v, 0, sizeof *v);
}

char *
ep_python_version_norm(const char *s)
{
	static const struct {
		const char *level, *suffix;
	} levels[] = {
		{ "alpha", "a" }, { "beta", "b" }, { "candidate", "rc" },
		{ "final", "" },
	};
	unsigned a, b, c, serial;
	char level[16];
	size_t n;

	while (isspace((unsigned char)*s))
		s++;
	if (!isdigit((unsigned char)s[0]))
		return NULL;
	/* version_info: "3.11.7.final.0". */
	if (sscanf(s, "%u.%u.%u.%15[a-z].%u", &a, &b, &c, level,
	    &serial) == 5) {
		for (size_t i = 0; i < sizeof levels / sizeof levels[0]; i++) {
			if (strcmp(level, levels[i].level) != 0)
				continue;
			if (*levels[i].suffix == '\0')
				return xasprintf("%u.%u.%u", a, b, c);
			return xasprintf("%u.%u.%u%s%u", a, b, c,
			    levels[i].suffix, serial);
		}
		return xasprintf("%u.%u.%u", a, b, c);
	}
	if (sscanf(s, "%u.%u", &a, &b) != 2)
		return NULL;
	n = strcspn(s, " \t\r\n");
	return xstrndup(s, n);
}

void
ep_pyvenv_parse(struct ep_pyvenv *out, const char *text, size_t len)
{
	char *vinfo = NULL, *ver = NULL, *exe = NULL, *bexe = NULL;
	const char *p = text, *end = text + len;

	memset(out, 0, sizeof *out);
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl != NULL ? nl : end;
		const char *eq = memchr(p, '=', (size_t)(le - p));
		char *key, *val, **slot = NULL;

		if (eq != NULL) {
			key = ep_trim(xstrndup(p, (size_t)(eq - p)));
			val = ep_trim(xstrndup(eq + 1, (size_t)(le - eq - 1)));
			for (char *k = key; *k != '\0'; k++)
				*k = (char)tolower((unsigned char)*k);
			if (strcmp(key, "home") == 0)
				slot = &out->home;
			else if (strcmp(key, "version_info") == 0)
				slot = &vinfo;
			else if (strcmp(key, "version") == 0)
				slot = &ver;
			else if (strcmp(key, "executable") == 0)
				slot = &exe;
			else if (strcmp(key, "base-executable") == 0)
				slot = &bexe;
			else if (strcmp(key, "include-system-site-packages") == 0)
				out->system_site = strcasecmp(val, "true") == 0;
			if (slot != NULL && *slot == NULL && *val != '\0') {
				*slot = val;
				val = NULL;
			}
			free(key);
			free(val);
		}
		p = le + 1;
	}
	/* virtualenv writes version_info; venv writes version. */
	if (vinfo != NULL)
		out->version = ep_python_version_norm(vinfo);
	if (out->version == NULL && ver != NULL)
		out->version = ep_python_version_norm(ver);
	out->executable = exe != NULL ? exe : bexe;
	if (out->executable == bexe)
		free(exe);
	else
		free(bexe);
	free(vinfo);
	free(ver);
}

static int
is_regular(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* The directory part of path, lexically; "." when there is none. */
static char *
dir_of(const char *path)
{
	size_t n = strlen(path);
	const char *base;

	while (n > 1 && path[n - 1] == '/')
		n--;
	if ((base = memrchr(path, '/', n)) == NULL)
		return xstrdup(".");
	if (base == path)
		return xstrdup("/");
	return xstrndup(path, (size_t)(base - path));
}

static char *
parent_of(const char *dir)
{
	size_t n = strlen(dir);

	/* "." and ".." have no lexical parent worth the name. */
	if (strcmp(dir, ".") == 0 || (n >= 2 && strcmp(dir + n - 2, "..") ==
	    0 && (n == 2 || dir[n - 3] == '/')))
		return xasprintf("%s/..", dir);
	return dir_of(dir);
}

char *
ep_pyvenv_root(const char *exe)
{
	char *dir = dir_of(exe), *up = NULL, *cfg;

	cfg = xasprintf("%s/pyvenv.cfg", dir);
	if (is_regular(cfg))
		goto found;
	free(cfg);
	up = parent_of(dir);
	cfg = xasprintf("%s/pyvenv.cfg", up);
	if (is_regular(cfg)) {
		free(dir);
		dir = up;
		up = NULL;
		goto found;
	}
	free(dir);
	dir = NULL;
found:
	free(cfg);
	free(up);
	return dir;
}

/* 1 when path (resolved) lies in dir (resolved) or is dir. */
static int
is_under(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (n == 1 && dir[0] == '/')
		return 1;
	return strncmp(path, dir, n) == 0 && (path[n] == '/' ||
	    path[n] == '\0');
}

/* Up to n bytes from fd, short only at the end of the file; -1 on an
 * error. */
static ssize_t
read_full(int fd, char *buf, size_t n)
{
	size_t got = 0;
	ssize_t r;

	while (got < n) {
		if ((r = read(fd, buf + got, n - got)) < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		if (r == 0)
			break;
		got += (size_t)r;
	}
	return (ssize_t)got;
}

/* 1 if the regular files a and b hold the same bytes (a venv --copies'
 * python and its base's: a few MB, read once, where such a venv is). */
static int
same_bytes(const char *a, const char *b)
{
	enum { CHUNK = 65536 };
	struct stat sa, sb;
	int fa, fb = -1, same = 0;
	char *ba = NULL, *bb;
	ssize_t n;

	if ((fa = ep_open_regular(a, &sa, NULL)) < 0)
		return 0;
	if ((fb = ep_open_regular(b, &sb, NULL)) < 0 ||
	    sa.st_size != sb.st_size)
		goto done;
	ba = xmalloc(2 * CHUNK);
	bb = ba + CHUNK;
	for (;;) {
		if ((n = read_full(fa, ba, CHUNK)) < 0 ||
		    read_full(fb, bb, CHUNK) != n ||
		    memcmp(ba, bb, (size_t)n) != 0)
			break;
		if (n < CHUNK) {
			same = 1;
			break;
		}
	}
done:
	free(ba);
	close(fa);
	if (fb >= 0)
		close(fb);
	return same;
}

/* 1 if the file starts with "#!". */
static int
starts_script(const char *path)
{
	char b[2];
	int fd, r;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK |
	    O_NOCTTY)) < 0)
		return 0;
	r = read(fd, b, 2) == 2 && b[0] == '#' && b[1] == '!';
	close(fd);
	return r;
}

/* The names a venv's base interpreter may have in its home, for the
 * interpreter at real reached through exe: the file's own name, then
 * exe's, python3 and python, as CPython's getpath falls back. */
static void
home_names(struct ep_strv *v, const char *exe, const char *real)
{
	const char *n[] = { strrchr(real, '/'), strrchr(exe, '/') };

	for (size_t i = 0; i < 2; i++)
		if (n[i] != NULL && n[i][1] != '\0' &&
		    !ep_strv_contains(v, n[i] + 1))
			ep_strv_push(v, n[i] + 1);
	if (!ep_strv_contains(v, "python3"))
		ep_strv_push(v, "python3");
	if (!ep_strv_contains(v, "python"))
		ep_strv_push(v, "python");
}

/*
 * The interpreter pyvenv.cfg's home holds among names, resolved, that
 * lies outside the venv (rroot) and is real itself (want_same) or holds
 * real's bytes (a copy), as a new string; NULL when there is none.
 */
static char *
home_match(const struct ep_strv *names, const char *home, const char *rroot,
    const char *real, int want_same)
{
	struct stat a, b;
	char *p, *r, *found = NULL;

	if (home == NULL || *home != '/' || stat(real, &a) < 0)
		return NULL;
	for (size_t i = 0; found == NULL && i < names->n; i++) {
		p = xasprintf("%s/%s", home, names->v[i]);
		r = realpath(p, NULL);
		free(p);
		if (r == NULL || is_under(r, rroot) || stat(r, &b) < 0 ||
		    !S_ISREG(b.st_mode)) {
			free(r);
			continue;
		}
		if (want_same ? a.st_dev == b.st_dev && a.st_ino == b.st_ino :
		    same_bytes(real, r))
			found = r;
		else
			free(r);
	}
	return found;
}

int
ep_pyvenv_interp(char **base, char **warn, const char *exe,
    const char *root, const struct ep_pyvenv *cfg, struct ep_err *err)
{
	struct ep_strv names = { 0 };
	char *real = NULL, *rroot = NULL, *same;
	struct stat st;
	int rc = -1;

	*base = *warn = NULL;
	if ((real = realpath(exe, NULL)) == NULL || stat(real, &st) < 0) {
		ep_err_set(err, EP_E_IO, "%s: %s: not an interpreter", exe,
		    strerror(errno));
		goto done;
	}
	if (!S_ISREG(st.st_mode) || access(real, X_OK) < 0) {
		ep_err_set(err, EP_E_IO, "%s: %s, not an interpreter", exe,
		    S_ISREG(st.st_mode) ? "not executable" :
		    ep_mode_kind(st.st_mode));
		goto done;
	}
	/* A script picks whatever it runs, and says what it likes. */
	if (starts_script(real)) {
		ep_err_set(err, EP_E_IO, "%s: a script (#!), not an "
		    "interpreter: not run", exe);
		goto done;
	}
	if ((rroot = realpath(root, NULL)) == NULL)
		rroot = xstrdup(root);
	home_names(&names, exe, real);
	if (is_under(real, rroot)) {
		/* venv --copies: only a copy of its base's binary, which
		 * lies outside the venv, is one; that binary is run. */
		if ((*base = home_match(&names, cfg->home, rroot, real,
		    0)) == NULL) {
			ep_err_set(err, EP_E_IO, "%s: a file of the virtual "
			    "environment that is no copy of the interpreter in "
			    "its pyvenv.cfg's home (%s), not an interpreter: "
			    "not run", exe, cfg->home != NULL ? cfg->home :
			    "unset");
			goto done;
		}
		rc = 0;
		goto done;
	}
	*base = real;
	real = NULL;
	/* CPython takes its standard library from home: another home than
	 * the interpreter's own is a venv not made by it (or a pyvenv.cfg
	 * written over), whose python runs what that home holds. */
	if ((same = home_match(&names, cfg->home, rroot, *base, 1)) == NULL)
		*warn = xasprintf("%s/pyvenv.cfg: home = %s does not hold "
		    "the interpreter %s runs (%s): its python takes its "
		    "standard library from there", root, cfg->home != NULL ?
		    cfg->home : "(unset)", exe, *base);
	free(same);
	rc = 0;
done:
	ep_strv_clear(&names);
	free(real);
	free(rroot);
	return rc;
}
