/*
 * test_pyinterp.c: the Python collector's interpreters: which python3 a
 * PATH names, the query run against real scripts and the real python3 and
 * how it fails, and a venv's base interpreter resolved from where it
 * lies.  The pure parts: test_python.c; the collector: test_pycollect.c.
 */
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

#include "collect.h"
#include "pyfixture.h"
#include "python.h"
#include "errors.h"
#include "str.h"
#include "strv.h"
#include "xalloc.h"

/* --- interpreters --------------------------------------------------- */

static void
test_which(void **state)
{
	struct ep_err err = { 0 };
	char *exe, *path, *dir = xasprintf("%s/bin", tmp);
	const char *old = getenv("PATH");
	char *saved = old != NULL ? xstrdup(old) : NULL;

	(void)state;
	assert_int_equal(mkdir(dir, 0755), 0);
	path = xasprintf("%s/mypython", dir);
	write_file(path, "#!/bin/sh\n", 0755);
	assert_int_equal(ep_pyinterp_which(&exe, path, &err), 0);
	assert_string_equal(exe, path);
	free(exe);

	setenv("PATH", dir, 1);
	assert_int_equal(ep_pyinterp_which(&exe, "mypython", &err), 0);
	assert_string_equal(exe, path);
	free(exe);
	assert_int_equal(ep_pyinterp_which(&exe, "nosuchpython", &err), -1);
	assert_int_equal(err.kind, EP_E_INPUT);
	assert_string_equal(err.msg, "python: nosuchpython: not found on "
	    "PATH");
	if (saved != NULL)
		setenv("PATH", saved, 1);
	free(saved);

	assert_int_equal(ep_pyinterp_which(&exe, "/no/such/python", &err),
	    -1);
	assert_string_equal(err.msg, "python: /no/such/python: not found");
	assert_int_equal(ep_pyinterp_which(&exe, dir, &err), -1);
	assert_non_null(strstr(err.msg, "is a directory"));
	assert_int_equal(chmod(path, 0644), 0);
	/* Root may execute nothing without an x bit either. */
	assert_int_equal(ep_pyinterp_which(&exe, path, &err), -1);
	assert_non_null(strstr(err.msg, "not executable"));
	free(path);
	free(dir);
}

static void
test_query_real(void **state)
{
	struct ep_err err = { 0 };
	struct ep_pyquery p;
	char *exe, *cmd, *want = NULL;
	size_t n = 0;
	FILE *f;

	(void)state;
	if (ep_pyinterp_which(&exe, "python3", &err) < 0)
		skip();
	assert_int_equal(ep_pyquery_run(&p, exe, NULL, EP_PYTHON_TIMEOUT_MS,
	    &err), 0);
	cmd = xasprintf("'%s' -c 'import sys; print(sys.version.split()[0])'",
	    exe);
	assert_non_null(f = popen(cmd, "r"));
	assert_true(getline(&want, &n, f) > 0);
	pclose(f);
	ep_trim(want);
	assert_string_equal(p.version, want);
	assert_true(p.sites.n > 0);
	free(want);
	free(cmd);
	/* The marker environment as packaging's default_environment()
	 * builds it, less uname's part (the caller reads that). */
	cmd = xasprintf("'%s' -c 'import sys, platform; print(\"%%s %%s %%s\" "
	    "%% (platform.python_version(), sys.platform, "
	    "platform.python_implementation()))'", exe);
	assert_non_null(f = popen(cmd, "r"));
	want = NULL;
	assert_true(getline(&want, &n, f) > 0);
	pclose(f);
	ep_trim(want);
	free(cmd);
	cmd = xasprintf("%s %s %s", p.markers[EP_MV_PYTHON_FULL_VERSION],
	    p.markers[EP_MV_SYS_PLATFORM],
	    p.markers[EP_MV_PLATFORM_PYTHON_IMPLEMENTATION]);
	assert_string_equal(cmd, want);
	assert_string_equal(p.markers[EP_MV_OS_NAME], "posix");
	assert_non_null(p.markers[EP_MV_PYTHON_VERSION]);
	assert_non_null(p.markers[EP_MV_IMPLEMENTATION_VERSION]);
	assert_null(p.markers[EP_MV_PLATFORM_RELEASE]);
	ep_pyquery_clear(&p);
	free(want);
	free(cmd);
	free(exe);
}

static void
test_query_failures(void **state)
{
	struct ep_err err = { 0 };
	struct ep_pyquery p;
	char *exe;

	(void)state;
	exe = script("hang", "sleep 30");
	assert_int_equal(ep_pyquery_run(&p, exe, NULL, 300, &err), -1);
	assert_int_equal(err.kind, EP_E_IO);
	assert_non_null(strstr(err.msg, "no answer after 300 ms"));
	free(exe);

	/* A shim that leaves a child holding the pipe: killed too. */
	exe = script("forks", "sleep 30 & wait");
	assert_int_equal(ep_pyquery_run(&p, exe, NULL, 300, &err), -1);
	assert_non_null(strstr(err.msg, "no answer after"));
	free(exe);

	exe = script("crash", "kill -SEGV $$");
	assert_int_equal(ep_pyquery_run(&p, exe, NULL, 5000, &err), -1);
	assert_non_null(strstr(err.msg, "killed by signal 11"));
	assert_non_null(strstr(err.msg, exe));
	free(exe);

	exe = script("fails", "echo 'Traceback:' >&2; "
	    "echo 'ImportError: no site' >&2; exit 3");
	assert_int_equal(ep_pyquery_run(&p, exe, NULL, 5000, &err), -1);
	assert_non_null(strstr(err.msg, "exited with status 3: "
	    "ImportError: no site"));
	free(exe);

	exe = script("garbage", "echo 'Python 3.11.7'");
	assert_int_equal(ep_pyquery_run(&p, exe, NULL, 5000, &err), -1);
	assert_non_null(strstr(err.msg, "no answer in its output"));
	free(exe);

	exe = script("chatty", "head -c 1000000 /dev/zero");
	assert_int_equal(ep_pyquery_run(&p, exe, NULL, 5000, &err), -1);
	assert_non_null(strstr(err.msg, "bytes of output; killed"));
	free(exe);

	exe = xasprintf("%s/nothing", tmp);
	assert_int_equal(ep_pyquery_run(&p, exe, NULL, 5000, &err), -1);
	assert_non_null(strstr(err.msg, "cannot run"));
	free(exe);
}

static void
test_resolve_venv(void **state)
{
	struct ep_err err = { 0 };
	struct ep_pyenv e;
	char *root, *exe, *site, *base, *cmd;

	(void)state;
	root = fake_venv("venv", "");
	exe = xasprintf("%s/bin/python", root);
	/* pyvenv.cfg one level up from bin/python, or beside it. */
	assert_non_null(site = ep_pyvenv_root(exe));
	assert_string_equal(site, root);
	free(site);
	base = xasprintf("%s/pyvenv.cfg", tmp);
	write_file(base, "version = 3.1.2\n", 0644);
	free(base);
	base = xasprintf("%s/python", tmp);
	assert_non_null(site = ep_pyvenv_root(base));
	assert_string_equal(site, tmp);
	free(site);
	free(base);
	assert_null(ep_pyvenv_root("/no/such/dir/bin/python"));

	/* Its python is a script: no interpreter, not run, and pyvenv.cfg's
	 * version is not taken; its one site-packages is still read. */
	site = xasprintf("%s/lib/python3.99/site-packages", root);
	assert_int_equal(ep_pyinterp_resolve(&e, exe, NULL, 5000, &err), 0);
	assert_null(e.version);
	assert_non_null(e.unavailable);
	assert_non_null(strstr(e.unavailable, "a script (#!), not an "
	    "interpreter"));
	assert_string_equal(e.venv, root);
	assert_int_equal(e.sites.n, 1);
	assert_string_equal(e.sites.v[0], site);
	assert_non_null(strstr(e.warning, "read without an interpreter"));
	assert_null(e.markers_from);
	ep_pyenv_clear(&e);
	free(site);

	/* A second lib/python*\/site-packages (a wheel's data files can
	 * make one): nothing says which, none is read. */
	cmd = xasprintf("mkdir -p '%s/lib/python3.10/site-packages'", root);
	run(cmd);
	free(cmd);
	assert_int_equal(ep_pyinterp_resolve(&e, exe, NULL, 5000, &err), 0);
	assert_int_equal(e.sites.n, 0);
	assert_non_null(strstr(e.warning, "none read"));
	ep_pyenv_clear(&e);

	/* Not executable, or not there: no interpreter either. */
	assert_int_equal(chmod(exe, 0644), 0);
	assert_int_equal(ep_pyinterp_resolve(&e, exe, NULL, 5000, &err), 0);
	assert_non_null(strstr(e.unavailable, "not executable"));
	ep_pyenv_clear(&e);
	assert_int_equal(unlink(exe), 0);
	assert_int_equal(ep_pyinterp_resolve(&e, exe, NULL, 5000, &err), 0);
	assert_non_null(strstr(e.unavailable, "No such file"));
	ep_pyenv_clear(&e);
	free(exe);
	free(root);
}

/* A real venv: its base binary is asked, from where it lies, whatever
 * pyvenv.cfg says. */
static void
test_resolve_real_venv(void **state)
{
	struct ep_err err = { 0 };
	struct ep_pyenv e;
	char *root, *exe, *site, *want, *cmd;

	(void)state;
	if ((root = real_venv("real", "", "version = 3.99.1\n")) == NULL)
		skip();
	want = python3_version();
	exe = xasprintf("%s/bin/python", root);
	site = venv_site(root);
	assert_int_equal(ep_pyinterp_resolve(&e, exe, NULL, 5000, &err), 0);
	assert_string_equal(e.version, want);
	assert_null(e.unavailable);
	assert_null(e.warning);
	assert_string_equal(e.venv, root);
	assert_true(e.sites.n >= 1);
	assert_string_equal(e.sites.v[0], site);
	assert_string_equal(e.markers_from, EP_MARKERS_RUN);
	assert_string_equal(e.markers[EP_MV_PYTHON_FULL_VERSION], want);
	assert_string_equal(e.markers[EP_MV_PLATFORM_SYSTEM], "Linux");
	ep_pyenv_clear(&e);
	free(exe);
	free(site);
	free(root);

	/* include-system-site-packages: the venv's own first, then the
	 * base's (as its own python lists them). */
	root = real_venv("real-sys", "--system-site-packages", "");
	exe = xasprintf("%s/bin/python", root);
	site = venv_site(root);
	assert_int_equal(ep_pyinterp_resolve(&e, exe, NULL, 5000, &err), 0);
	assert_true(e.sites.n >= 2);
	assert_string_equal(e.sites.v[0], site);
	assert_null(strstr(e.sites.v[e.sites.n - 1], root));
	ep_pyenv_clear(&e);
	free(exe);
	free(site);
	free(root);

	/* A home that does not hold that binary: said (its python would
	 * take its standard library from there), the binary still asked. */
	root = real_venv("real-home", "", "home = /usr/share\n");
	exe = xasprintf("%s/bin/python", root);
	assert_int_equal(ep_pyinterp_resolve(&e, exe, NULL, 5000, &err), 0);
	assert_string_equal(e.version, want);
	assert_non_null(e.warning);
	assert_non_null(strstr(e.warning, "home = /usr/share does not hold "
	    "the interpreter"));
	ep_pyenv_clear(&e);
	free(exe);
	free(root);

	/* --copies: a copy of its home's binary is one; a file of the venv
	 * with other bytes is not. */
	root = real_venv("real-copies", "--copies", "");
	exe = xasprintf("%s/bin/python", root);
	assert_int_equal(ep_pyinterp_resolve(&e, exe, NULL, 5000, &err), 0);
	assert_string_equal(e.version, want);
	assert_null(e.unavailable);
	ep_pyenv_clear(&e);
	cmd = xasprintf("printf x >>'%s'", exe);
	run(cmd);
	free(cmd);
	assert_int_equal(ep_pyinterp_resolve(&e, exe, NULL, 5000, &err), 0);
	assert_null(e.version);
	assert_non_null(strstr(e.unavailable, "no copy of the interpreter"));
	ep_pyenv_clear(&e);
	free(exe);
	free(root);
	free(want);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_which, setup_tmp,
		    teardown_tmp),
		cmocka_unit_test(test_query_real),
		cmocka_unit_test_setup_teardown(test_query_failures, setup_tmp,
		    teardown_tmp),
		cmocka_unit_test_setup_teardown(test_resolve_venv, setup_tmp,
		    teardown_tmp),
		cmocka_unit_test_setup_teardown(test_resolve_real_venv,
		    setup_tmp, teardown_tmp),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
