/*
 * pyfixture.h: what the Python unit tests (test_python.c, test_pycollect.c)
 * share: a scratch directory, files and scripts written into it, a venv
 * that fails if run, and questions about a manifest's meta.
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

/* A venv whose bin/python fails if run: resolve must only read it. */
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

#endif
