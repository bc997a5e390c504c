/* test_pyshim.c: choosing the interpreter behind a pyenv shim by pyenv's
 * rules, and declining whenever the answer is not plain. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "python.h"
#include "files.h"
#include "xalloc.h"

static char root[64];

static void
put(const char *rel, const char *text, int mode)
{
	char *path = xasprintf("%s/%s", root, rel), *dir = xstrdup(path);
	FILE *f;

	*strrchr(dir, '/') = '\0';
	assert_int_equal(ep_mkdirs(dir, NULL), 0);
	assert_non_null(f = fopen(path, "w"));
	fputs(text, f);
	fclose(f);
	chmod(path, (mode_t)mode);
	free(path);
	free(dir);
}

static void
rm_rel(const char *rel)
{
	char *path = xasprintf("%s/%s", root, rel);

	unlink(path);
	free(path);
}

static int
setup(void **state)
{
	char *shim;

	(void)state;
	if (tu_scratch_make(root, sizeof root, "pyshim") < 0)
		return -1;
	/* The shim exactly as `pyenv rehash` writes it. */
	shim = xasprintf("#!/usr/bin/env bash\nset -e\n"
	    "[ -n \"$PYENV_DEBUG\" ] && set -x\n\nprogram=\"${0##*/}\"\n\n"
	    "export PYENV_ROOT=\"%s/pyenv\"\n"
	    "exec \"%s/pyenv/libexec/pyenv\" exec \"$program\" \"$@\"\n",
	    root, root);
	put("pyenv/shims/python3", shim, 0755);
	free(shim);
	put("pyenv/versions/3.11.7/bin/python3", "\x7f" "ELF", 0755);
	put("pyenv/versions/3.12.1/bin/python3", "\x7f" "ELF", 0755);
	put("pyenv/versions/3.10.0/bin/python", "\x7f" "ELF", 0755);
	put("pyenv/version", "3.11.7\n", 0644);
	put("proj/sub/keep", "", 0644);
	put("other/script", "#!/bin/sh\nexec python3 \"$@\"\n", 0755);
	unsetenv("PYENV_VERSION");
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	return tu_scratch_remove(root);
}

static void
expect(const char *dir, const char *want_version)
{
	char *shim = xasprintf("%s/pyenv/shims/python3", root);
	char *d = xasprintf("%s/%s", root, dir);
	char *got = ep_pyshim_resolve(shim, d);

	if (want_version == NULL) {
		if (got != NULL)
			fail_msg("expected no answer, got %s", got);
	} else {
		char *want = xasprintf("%s/pyenv/versions/%s/bin/python3",
		    root, want_version);

		assert_non_null(got);
		assert_string_equal(got, want);
		free(want);
	}
	free(got);
	free(shim);
	free(d);
}

static void
test_global_version(void **state)
{
	(void)state;
	expect("proj/sub", "3.11.7");
}

static void
test_nearest_version_file_wins(void **state)
{
	(void)state;
	put("proj/.python-version", "3.12.1\n", 0644);
	expect("proj/sub", "3.12.1");
	/* A nearer one, with a comment and a second version, wins again. */
	put("proj/sub/.python-version", "# pinned\n3.11.7 3.12.1\n", 0644);
	expect("proj/sub", "3.11.7");
	rm_rel("proj/sub/.python-version");
	rm_rel("proj/.python-version");
}

static void
test_env_beats_files(void **state)
{
	(void)state;
	put("proj/.python-version", "3.11.7\n", 0644);
	setenv("PYENV_VERSION", "3.12.1:3.11.7", 1);
	expect("proj", "3.12.1");
	setenv("PYENV_VERSION", "python-3.12.1", 1);
	expect("proj", "3.12.1");
	unsetenv("PYENV_VERSION");
	rm_rel("proj/.python-version");
}

static void
test_declines(void **state)
{
	char *script = xasprintf("%s/other/script", root);

	(void)state;
	/* Not installed, "system", a prefix pyenv would have to expand, a
	 * version without this program, a path: run the shim instead. */
	setenv("PYENV_VERSION", "3.9.1", 1);
	expect("proj", NULL);
	setenv("PYENV_VERSION", "system", 1);
	expect("proj", NULL);
	setenv("PYENV_VERSION", "3.11", 1);
	expect("proj", NULL);
	setenv("PYENV_VERSION", "3.10.0", 1);
	expect("proj", NULL);
	setenv("PYENV_VERSION", "../../usr", 1);
	expect("proj", NULL);
	unsetenv("PYENV_VERSION");
	/* An empty version file names nothing. */
	put("proj/.python-version", "\n", 0644);
	expect("proj", NULL);
	rm_rel("proj/.python-version");
	/* A script that is not a pyenv shim is never seen through. */
	assert_null(ep_pyshim_resolve(script, root));
	free(script);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_global_version),
		cmocka_unit_test(test_nearest_version_file_wins),
		cmocka_unit_test(test_env_beats_files),
		cmocka_unit_test(test_declines),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
