/*
 * pyfixture.h: what the Python unit tests (test_python.c, test_pycollect.c)
 * share: a scratch directory, files and scripts written into it, a venv
 * whose python is a script, a real venv, and questions about a
 * manifest's meta.
 */
#ifndef EP_PYFIXTURE_H
#define EP_PYFIXTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "manifest.h"
#include "testutil.h"

/* The generator, relative to the repository root the tests run from. */
#define GEN	"tests/fixtures/gen-site-packages.sh"

#define PYFX_UNUSED __attribute__((unused))

static char tmp[64];

static PYFX_UNUSED int
setup_tmp(void **state)
{
	(void)state;
	return tu_scratch_make(tmp, sizeof tmp, "python");
}

static PYFX_UNUSED int
teardown_tmp(void **state)
{
	(void)state;
	return tu_scratch_remove(tmp);
}

static PYFX_UNUSED void
write_file(const char *path, const char *text, mode_t mode)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(chmod(path, mode), 0);
}

static PYFX_UNUSED void
run(const char *cmd)
{
	assert_int_equal(system(cmd), 0);
}

/* 1 if some meta.warnings entry contains every one of the strings. */
static PYFX_UNUSED int
warned(const struct ep_manifest *m, const char *a, const char *b)
{
	json_t *w = json_object_get(m->meta, "warnings"), *v;
	size_t i;

	json_array_foreach(w, i, v) {
		const char *s = json_string_value(v);

		if (strstr(s, a) != NULL && (b == NULL || strstr(s, b) != NULL))
			return 1;
	}
	return 0;
}

static PYFX_UNUSED size_t
nwarnings(const struct ep_manifest *m)
{
	return json_array_size(json_object_get(m->meta, "warnings"));
}

static PYFX_UNUSED const char *
unavailable(const struct ep_manifest *m, const char *area)
{
	return json_string_value(json_object_get(json_object_get(m->meta,
	    "unavailable"), area));
}

static PYFX_UNUSED char *
script(const char *name, const char *body)
{
	char *path = xasprintf("%s/%s", tmp, name);
	char *text = xasprintf("#!/bin/sh\n%s\n", body);

	write_file(path, text, 0755);
	free(text);
	return path;
}

/* A venv layout whose bin/python is a script that fails if run, as a
 * wheel's "python" script would stand there: no interpreter, never run
 * (its pyvenv.cfg's version is never taken either). */
static PYFX_UNUSED char *
fake_venv(const char *name, const char *cfg_extra)
{
	char *root = xasprintf("%s/%s", tmp, name), *p, *cfg;

	p = xasprintf("mkdir -p '%s/bin' '%s/lib/python3.99/site-packages'",
	    root, root);
	run(p);
	free(p);
	p = xasprintf("%s/bin/python", root);
	write_file(p, "#!/bin/sh\necho ran >&2; exit 1\n", 0755);
	free(p);
	p = xasprintf("%s/pyvenv.cfg", root);
	cfg = xasprintf("home = /nowhere\nversion = 3.99.1\n%s", cfg_extra);
	write_file(p, cfg, 0644);
	free(cfg);
	free(p);
	return root;
}

/* A real venv made by the python3 on PATH (--without-pip, and cfg_extra
 * appended to its pyvenv.cfg: a later key does not override venv's own,
 * so a version there is put first), or NULL when there is none. */
static PYFX_UNUSED char *
real_venv(const char *name, const char *args, const char *cfg_first)
{
	char *root = xasprintf("%s/%s", tmp, name), *cmd;

	cmd = xasprintf("python3 -m venv --without-pip %s '%s' "
	    ">/dev/null 2>&1", args, root);
	if (system(cmd) != 0) {
		free(cmd);
		free(root);
		return NULL;
	}
	free(cmd);
	cmd = xasprintf("cd '%s' && { printf '%%s' '%s'; cat pyvenv.cfg; } "
	    ">cfg.new && mv cfg.new pyvenv.cfg", root, cfg_first);
	run(cmd);
	free(cmd);
	return root;
}

/* The one lib/python*\/site-packages of the venv at root (a new
 * string). */
static PYFX_UNUSED char *
venv_site(const char *root)
{
	char *cmd = xasprintf("echo '%s'/lib/python*/site-packages", root);
	char *line = NULL;
	size_t n = 0;
	FILE *f = popen(cmd, "r");

	assert_non_null(f);
	assert_true(getline(&line, &n, f) > 0);
	pclose(f);
	free(cmd);
	line[strcspn(line, "\n")] = '\0';
	assert_null(strchr(line, ' '));
	return line;
}

/* The version the python3 on PATH says it is (a new string). */
static PYFX_UNUSED char *
python3_version(void)
{
	char *line = NULL;
	size_t n = 0;
	FILE *f = popen("python3 -c 'import sys; "
	    "print(sys.version.split()[0])'", "r");

	assert_non_null(f);
	assert_true(getline(&line, &n, f) > 0);
	pclose(f);
	line[strcspn(line, "\n")] = '\0';
	return line;
}

#endif
