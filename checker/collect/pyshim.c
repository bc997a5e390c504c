/*
 * pyshim.c: see through a pyenv shim without running it.
 *
 * A shim is a bash script that runs `pyenv exec`, which picks the real
 * interpreter on every call; starting it costs ~260 ms here, five times a
 * whole warm capture.  pyenv documents how it chooses ("Choosing the
 * Python version" in its README), and the choice depends only on an
 * environment variable and a few small files, so it can be made here and
 * the real interpreter cached like any other.  Anything less than a plain
 * answer (no version named, "system", a version that is not installed)
 * returns NULL, and the caller runs the shim as before: never a guess.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "python.h"
#include "errors.h"
#include "files.h"
#include "str.h"
#include "xalloc.h"

/* A shim is small; more than this is not one. */
#define SHIM_MAX	8192
#define VERSION_FILE_MAX 4096

/* PYENV_ROOT as the shim exports it, or NULL if exe is not a pyenv shim. */
static char *
shim_root(const char *exe)
{
	static const char mark[] = "export PYENV_ROOT=\"";
	struct ep_err err = { 0 };
	char *text = NULL, *root = NULL, *p, *q;

	if (ep_read_regular(&text, NULL, exe, SHIM_MAX, &err) < 0)
		return NULL;
	if (!ep_startswith(text, "#!") ||
	    strstr(text, "/libexec/pyenv\" exec ") == NULL ||
	    (p = strstr(text, mark)) == NULL)
		goto done;
	p += sizeof mark - 1;
	if ((q = strchr(p, '"')) != NULL && q > p && *p == '/' &&
	    memchr(p, '$', (size_t)(q - p)) == NULL)
		root = xstrndup(p, (size_t)(q - p));
done:
	free(text);
	return root;
}

/* The installed interpreter for the first usable name in list (names
 * separated by white space or ':', '#' starting a comment to the end of
 * the line, as pyenv reads version files); NULL if the first name is not
 * installed or is "system". */
static char *
pick(const char *root, const char *program, const char *list)
{
	char *copy = xstrdup(list), *save = NULL, *tok, *out = NULL;
	struct stat st;

	for (char *h = copy; (h = strchr(h, '#')) != NULL; ) {
		char *e = strchr(h, '\n');

		memset(h, ' ', e ? (size_t)(e - h) : strlen(h));
		h = e ? e : h + strlen(h);
	}
	/*
	 * Only the first name: pyenv falls through to later ones only when
	 * the program is missing from earlier versions, a subtlety not worth
	 * imitating when running the shim gives the exact answer.
	 */
	tok = strtok_r(copy, " \t\r\n:", &save);
	if (tok != NULL && strcmp(tok, "system") != 0 &&
	    strchr(tok, '/') == NULL && strcmp(tok, "..") != 0) {
		if (ep_startswith(tok, "python-"))
			tok += strlen("python-");
		out = xasprintf("%s/versions/%s/bin/%s", root, tok, program);
		if (stat(out, &st) < 0 || !S_ISREG(st.st_mode) ||
		    access(out, X_OK) < 0) {
			free(out);
			out = NULL;
		}
	}
	free(copy);
	return out;
}

/* Text of the nearest .python-version from dir upwards, or NULL. */
static char *
version_file(const char *dir)
{
	struct ep_err err = { 0 };
	char *d = xstrdup(dir), *path, *text = NULL, *slash;

	for (;;) {
		path = xasprintf("%s/.python-version", *d ? d : "");
		if (access(path, F_OK) == 0) {
			ep_read_regular(&text, NULL, path, VERSION_FILE_MAX, &err);
			free(path);
			/* Found but unreadable: pyenv would fail; so do we. */
			if (text == NULL)
				text = xstrdup("");
			break;
		}
		free(path);
		if ((slash = strrchr(d, '/')) == NULL || *d == '\0')
			break;
		*slash = '\0';
	}
	free(d);
	return text;
}

char *
ep_pyshim_resolve(const char *exe, const char *dir)
{
	const char *program = strrchr(exe, '/'), *env;
	char *root, *text = NULL, *out = NULL;

	program = program ? program + 1 : exe;
	if ((root = shim_root(exe)) == NULL)
		return NULL;
	if ((env = getenv("PYENV_VERSION")) != NULL && *env != '\0')
		out = pick(root, program, env);
	else if (dir != NULL && *dir == '/' &&
	    (text = version_file(dir)) != NULL)
		out = pick(root, program, text);
	else {
		char *global = xasprintf("%s/version", root);
		struct ep_err err = { 0 };

		if (ep_read_regular(&text, NULL, global, VERSION_FILE_MAX,
		    &err) == 0)
			out = pick(root, program, text);
		free(global);
	}
	free(text);
	free(root);
	return out;
}
