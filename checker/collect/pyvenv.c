/*
 * pyvenv.c: a virtual environment's pyvenv.cfg, found beside an
 * interpreter or one level up as CPython looks for it, and read as
 * site.py reads it (python.h).  Shared by pyinterp.c, which reads a venv
 * instead of running it, and pyprobe.c, which lets a confined
 * interpreter read its base.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "python.h"

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
