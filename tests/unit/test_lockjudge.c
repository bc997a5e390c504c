/*
 * test_lockjudge.c: the environment against its own poetry.lock
 * (collect/lockjudge.c, collect/lockreach.c): its categories and an
 * optional package, poetry 1.x's markers on dependency edges and poetry
 * 2's per group, judged against python.pkg facts written here under the
 * tool's default selection and --lock-group.  The other formats and the
 * results are test_lockjudge_formats.c's.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "checksfixture.h"
#include "lockjudgefixture.h"

/* poetry.lock 1.x: category, optional; what poetry install --sync would
 * change, by default and with --lock-group. */
static void
test_poetry(void **state)
{
	static const char lock[] =
	    "[[package]]\nname = \"alpha\"\nversion = \"1.0\"\n"
	    "category = \"main\"\noptional = false\n\n"
	    "[[package]]\nname = \"Beta\"\nversion = \"1.0\"\n"
	    "category = \"main\"\noptional = false\n\n"
	    "[[package]]\nname = \"gamma\"\nversion = \"1.0\"\n"
	    "category = \"dev\"\noptional = false\n\n"
	    "[[package]]\nname = \"extra-only\"\nversion = \"3.0\"\n"
	    "category = \"main\"\noptional = true\n\n"
	    "[metadata]\nlock-version = \"2.0\"\n";
	static const char *const main_only[] = { "main", NULL };
	static const char *const all[] = { "all", NULL };
	struct ep_manifest *m = python_env();
	json_t *j;

	(void)state;
	j = judge(m, EP_LOCK_POETRY, lock, NULL);
	/* 2.0 installed, 1.0 pinned; Beta's name PEP 503; gamma's 1.0.0
	 * is 1.0; the optional one left out; pip, setuptools and the
	 * editable project are no extras. */
	assert_string_equal(found(j, "alpha"), "version 1.0 2.0");
	assert_string_equal(found(j, "beta"), "missing 1.0 -");
	assert_string_equal(found(j, "delta"), "extra - 1.0");
	assert_int_equal(nfound(j), 3);
	assert_int_equal(json_integer_value(json_object_get(j, "pins")), 3);
	assert_true(json_is_true(json_object_get(j, "extras")));
	assert_string_equal(json_string_value(json_object_get(j, "format")),
	    "poetry");
	json_decref(j);
	/* Main only: gamma (dev) installed is now an extra. */
	j = judge(m, EP_LOCK_POETRY, lock, main_only);
	assert_string_equal(found(j, "gamma"), "extra - 1.0.0");
	assert_int_equal(nfound(j), 4);
	assert_non_null(strstr(json_string_value(json_object_get(j,
	    "selected")), "--lock-group: main"));
	json_decref(j);
	/* all: the optional package too. */
	j = judge(m, EP_LOCK_POETRY, lock, all);
	assert_string_equal(found(j, "extra-only"), "missing 3.0 -");
	json_decref(j);
	ep_manifest_free(m);
}

/* poetry.lock as poetry 1.x writes it (lock-version 2.0): no package has
 * a marker of its own, the markers sit on the dependents' edges (click's
 * and pytest's colorama, pytest's tomli and exceptiongroup, portalocker's
 * pywin32, as in their real locks).  What an edge false here reaches, and
 * what only it reaches, is not installed by poetry here: no finding, and
 * one installed is extra (poetry install --sync removes it); a marker not
 * decided here makes a missing one a warning; a cycle ends. */
static void
test_poetry_edges(void **state)
{
	static const char lock[] =
	    "[[package]]\nname = \"click\"\nversion = \"8.1.7\"\n"
	    "category = \"main\"\noptional = false\n\n"
	    "[package.dependencies]\n"
	    "colorama = {version = \"*\", markers = \"platform_system == "
	    "\\\"Windows\\\"\"}\nCyc_A = \"*\"\n\n"
	    "[[package]]\nname = \"colorama\"\nversion = \"0.4.6\"\n"
	    "category = \"main\"\noptional = false\n\n"
	    "[[package]]\nname = \"cyc-a\"\nversion = \"1.0\"\n"
	    "category = \"main\"\noptional = false\n\n"
	    "[package.dependencies]\ncyc-b = \"*\"\n\n"
	    "[[package]]\nname = \"cyc-b\"\nversion = \"1.0\"\n"
	    "category = \"main\"\noptional = false\n\n"
	    "[package.dependencies]\ncyc-a = \"*\"\n\n"
	    "[[package]]\nname = \"pytest\"\nversion = \"7.4.0\"\n"
	    "category = \"dev\"\noptional = false\n\n"
	    "[package.dependencies]\n"
	    "colorama = {version = \"*\", markers = \"sys_platform == "
	    "\\\"win32\\\"\"}\n"
	    "exceptiongroup = {version = \">=1.0.0rc8\", markers = "
	    "\"python_version < \\\"3.11\\\"\"}\niniconfig = \"*\"\n"
	    "tomli = {version = \">=1.0.0\", markers = \"python_version < "
	    "\\\"3.11\\\"\"}\n\n[package.extras]\ntesting = [\"hypothesis\"]\n\n"
	    "[[package]]\nname = \"exceptiongroup\"\nversion = \"1.2.0\"\n"
	    "category = \"dev\"\noptional = false\n\n"
	    "[[package]]\nname = \"tomli\"\nversion = \"2.0.1\"\n"
	    "category = \"dev\"\noptional = false\n\n"
	    "[[package]]\nname = \"iniconfig\"\nversion = \"2.0.0\"\n"
	    "category = \"dev\"\noptional = false\n\n"
	    "[[package]]\nname = \"portalocker\"\nversion = \"2.8.2\"\n"
	    "category = \"main\"\noptional = false\n\n"
	    "[package.dependencies]\n"
	    "kernelthing = {version = \"*\", markers = \"platform_release >= "
	    "\\\"6\\\"\"}\nnumpy = [\n"
	    "    {version = \"<1.25\", markers = \"python_version < \\\"3.9\\\"\"},\n"
	    "    {version = \">=1.26\", markers = \"python_version >= \\\"3.9\\\"\"},\n"
	    "]\npywin32 = {version = \">=226\", markers = \"platform_system == "
	    "\\\"Windows\\\"\"}\n\n"
	    "[[package]]\nname = \"pywin32\"\nversion = \"306\"\n"
	    "category = \"main\"\noptional = false\n\n"
	    "[package.dependencies]\npywin32-ctypes = \"*\"\n\n"
	    "[[package]]\nname = \"pywin32-ctypes\"\nversion = \"0.2.2\"\n"
	    "category = \"main\"\noptional = false\n\n"
	    "[[package]]\nname = \"kernelthing\"\nversion = \"1.0\"\n"
	    "category = \"main\"\noptional = false\n\n"
	    "[[package]]\nname = \"numpy\"\nversion = \"1.26.4\"\n"
	    "category = \"main\"\noptional = false\n\n"
	    "[metadata]\nlock-version = \"2.0\"\npython-versions = \"^3.8\"\n";
	static const char *const main_only[] = { "main", NULL };
	struct ep_manifest *m = ep_manifest_new();
	struct ep_pins pins = { 0 };
	struct ep_err err = { 0 };
	json_t *j, *f;

	(void)state;
	assert_int_equal(ep_lock_parse(&pins, EP_LOCK_POETRY, lock,
	    strlen(lock), "poetry.lock", &err), 0);
	assert_string_equal(pins.v[0].deps, "colorama\t0\tplatform_system "
	    "== \"Windows\"\ncyc-a\t0\t");
	assert_null(pins.v[1].deps);
	assert_string_equal(pins.v[8].deps, "kernelthing\t0\tplatform_release"
	    " >= \"6\"\nnumpy\t0\t(python_version < \"3.9\") or "
	    "(python_version >= \"3.9\")\npywin32\t0\tplatform_system == "
	    "\"Windows\"");
	ep_pins_clear(&pins);
	ep_manifest_set(m, "python.pkg.click", "8.1.7");
	ep_manifest_set(m, "python.pkg.pytest", "7.4.0");
	ep_manifest_set(m, "python.pkg.iniconfig", "2.0.0");
	ep_manifest_set(m, "python.pkg.portalocker", "2.8.2");
	ep_manifest_set(m, "python.pkg.numpy", "1.26.4");
	ep_manifest_set(m, "python.pkg.cyc-a", "1.0");
	ep_manifest_set(m, "python.pkg.tomli", "2.0.1");
	j = judge(m, EP_LOCK_POETRY, lock, NULL);
	assert_string_equal(found(j, "colorama"), "");
	assert_string_equal(found(j, "pywin32"), "");
	assert_string_equal(found(j, "pywin32-ctypes"), "");
	assert_string_equal(found(j, "exceptiongroup"), "");
	assert_string_equal(found(j, "tomli"), "extra - 2.0.1");
	assert_string_equal(found(j, "cyc-b"), "missing 1.0 -");
	assert_null(json_object_get(json_object_get(json_object_get(j,
	    "findings"), "cyc-b"), "maybe_optional"));
	f = json_object_get(json_object_get(j, "findings"), "kernelthing");
	assert_string_equal(found(j, "kernelthing"), "missing 1.0 -");
	assert_true(json_is_true(json_object_get(f, "maybe_optional")));
	assert_int_equal(nfound(j), 3);
	json_decref(j);
	/* Main alone: pytest is no root, what it installs is extra. */
	j = judge(m, EP_LOCK_POETRY, lock, main_only);
	assert_string_equal(found(j, "pytest"), "extra - 7.4.0");
	assert_string_equal(found(j, "iniconfig"), "extra - 2.0.0");
	assert_int_equal(nfound(j), 5);
	json_decref(j);
	ep_manifest_free(m);
}

/* poetry 2's markers, one string or one per group (lock-version 2.1);
 * pdm.lock without any marker (before pdm 2.11): a missing pin of
 * default may be a platform's only, a warning. */
static void
test_markers_per_group(void **state)
{
	static const char lock[] =
	    "[[package]]\nname = \"winonly\"\nversion = \"1.0\"\n"
	    "groups = [\"main\", \"dev\"]\n"
	    "markers = {main = \"sys_platform == \\\"win32\\\"\", dev = "
	    "\"python_version < \\\"3.9\\\"\"}\n\n"
	    "[[package]]\nname = \"linuxonly\"\nversion = \"1.0\"\n"
	    "groups = [\"main\", \"dev\"]\n"
	    "markers = {main = \"sys_platform == \\\"linux\\\"\", dev = "
	    "\"python_version < \\\"3.9\\\"\"}\n\n"
	    "[[package]]\nname = \"somewhere\"\nversion = \"1.0\"\n"
	    "groups = [\"main\", \"dev\"]\n"
	    "markers = {main = \"sys_platform == \\\"win32\\\"\"}\n\n"
	    "[metadata]\nlock-version = \"2.1\"\n";
	static const char pdm[] =
	    "[metadata]\ngroups = [\"default\"]\nlock_version = \"4.4\"\n\n"
	    "[[package]]\nname = \"eta\"\nversion = \"1\"\n"
	    "groups = [\"default\"]\n";
	struct ep_manifest *m = python_env();
	struct ep_pins pins = { 0 };
	struct ep_err err = { 0 };
	json_t *j;

	(void)state;
	assert_int_equal(ep_lock_parse(&pins, EP_LOCK_POETRY, lock,
	    strlen(lock), "poetry.lock", &err), 0);
	assert_string_equal(pins.v[0].where, "(sys_platform == \"win32\") or "
	    "(python_version < \"3.9\")");
	ep_pins_clear(&pins);
	j = judge(m, EP_LOCK_POETRY, lock, NULL);
	assert_string_equal(found(j, "winonly"), "");
	assert_string_equal(found(j, "linuxonly"), "missing 1.0 -");
	assert_null(json_object_get(json_object_get(json_object_get(j,
	    "findings"), "linuxonly"), "maybe_optional"));
	assert_string_equal(found(j, "somewhere"), "");
	json_decref(j);
	j = judge(m, EP_LOCK_PDM, pdm, NULL);
	assert_string_equal(found(j, "eta"), "missing 1 -");
	assert_true(json_is_true(json_object_get(json_object_get(
	    json_object_get(j, "findings"), "eta"), "maybe_optional")));
	json_decref(j);
	ep_manifest_free(m);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_poetry),
		cmocka_unit_test(test_poetry_edges),
		cmocka_unit_test(test_markers_per_group),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
