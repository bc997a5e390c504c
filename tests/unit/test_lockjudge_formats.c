/*
 * test_lockjudge_formats.c: the environment against its own lockfile,
 * formats other than poetry.lock (Pipfile.lock with markers and
 * categories, a requirements file with markers and a loose pin, pdm.lock
 * with groups, conda-lock.yml and pixi.lock with platforms, categories
 * and environments, a conda explicit file; a conda and a PyPI package of
 * one name kept apart), then the results stack.lock.* gives
 * (core/checks_lock.c), turned by the policy, a requirements file's many
 * extras as one.
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

/* Pipfile.lock: default only (pipenv sync), markers; requirements: ==
 * pins with markers, and a loose pin that turns the extras off. */
static void
test_pipfile_requirements(void **state)
{
	static const char pipfile[] = "{\"_meta\": {}, \"default\": {"
	    "\"alpha\": {\"version\": \"==2.0\"}, "
	    "\"winonly\": {\"version\": \"==1.0\", \"markers\": "
	    "\"sys_platform == 'win32'\"}, "
	    "\"old\": {\"version\": \"==1.0\", \"markers\": "
	    "\"python_version < '3.8'\"}}, "
	    "\"develop\": {\"gamma\": {\"version\": \"==9.9\"}}}";
	static const char *const dev[] = { "develop", NULL };
	static const char req[] = "alpha==1.0 ; python_version >= \"3\" "
	    "--hash=sha256:aa\nwinonly==1.0; sys_platform == \"win32\"\n"
	    "gamma==1.0\n";
	static const char loose[] = "alpha==2.0\ngamma>=1\n";
	struct ep_manifest *m = python_env();
	json_t *j;

	(void)state;
	j = judge(m, EP_LOCK_PIPFILE, pipfile, NULL);
	assert_string_equal(found(j, "alpha"), "");
	assert_string_equal(found(j, "winonly"), "");
	assert_string_equal(found(j, "old"), "");
	/* develop is not installed by pipenv sync: gamma is extra. */
	assert_string_equal(found(j, "gamma"), "extra - 1.0.0");
	assert_string_equal(found(j, "delta"), "extra - 1.0");
	assert_int_equal(nfound(j), 2);
	json_decref(j);
	j = judge(m, EP_LOCK_PIPFILE, pipfile, dev);
	assert_string_equal(found(j, "gamma"), "version 9.9 1.0.0");
	assert_string_equal(found(j, "alpha"), "extra - 2.0");
	json_decref(j);
	j = judge(m, EP_LOCK_REQUIREMENTS, req, NULL);
	assert_string_equal(found(j, "alpha"), "version 1.0 2.0");
	assert_string_equal(found(j, "winonly"), "");
	assert_string_equal(found(j, "gamma"), "");
	assert_string_equal(found(j, "delta"), "extra - 1.0");
	assert_int_equal(nfound(j), 2);
	json_decref(j);
	/* A direct reference whose URL is not UTF-8: the finding keeps
	 * its pin, the bad byte made U+FFFD (JSON holds UTF-8 alone). */
	j = judge(m, EP_LOCK_REQUIREMENTS, "url @ https://h/\xff.whl\n", NULL);
	assert_string_equal(found(j, "url"), "missing @ https://h/\xef\xbf\xbd.whl -");
	json_decref(j);
	/* -r names pins not read here, and ./pkg installs what no pin
	 * names: nothing is extra. */
	j = judge(m, EP_LOCK_REQUIREMENTS, "-r base.txt\nalpha==2.0\n", NULL);
	assert_int_equal(nfound(j), 0);
	assert_false(json_is_true(json_object_get(j, "extras")));
	json_decref(j);
	j = judge(m, EP_LOCK_REQUIREMENTS, "./pkg\nalpha==2.0\n", NULL);
	assert_int_equal(nfound(j), 0);
	json_decref(j);
	/* uv.lock: one not installed may be an extra's; no extras. */
	j = judge(m, EP_LOCK_UV, "version = 1\n[[package]]\nname = \"beta\"\n"
	    "version = \"1.0\"\n[[package]]\nname = \"alpha\"\n"
	    "version = \"1.0\"\n", NULL);
	assert_string_equal(found(j, "beta"), "missing 1.0 -");
	assert_true(json_is_true(json_object_get(json_object_get(
	    json_object_get(j, "findings"), "beta"), "maybe_optional")));
	assert_string_equal(found(j, "alpha"), "version 1.0 2.0");
	assert_null(json_object_get(json_object_get(json_object_get(j,
	    "findings"), "alpha"), "maybe_optional"));
	assert_int_equal(nfound(j), 2);
	json_decref(j);
	/* Not a freeze: gamma>=1 is not judged, nothing is extra. */
	j = judge(m, EP_LOCK_REQUIREMENTS, loose, NULL);
	assert_int_equal(nfound(j), 0);
	assert_int_equal(json_integer_value(json_object_get(j, "pins")), 1);
	assert_int_equal(json_integer_value(json_object_get(j, "unjudged")),
	    1);
	assert_false(json_is_true(json_object_get(j, "extras")));
	json_decref(j);
	ep_manifest_free(m);
}

/* pdm.lock: every group by default (pdm sync), groups chosen, markers;
 * a marker that cannot be decided is not judged. */
static void
test_pdm(void **state)
{
	static const char lock[] =
	    "[metadata]\ngroups = [\"default\", \"test\"]\n"
	    "lock_version = \"4.4\"\n\n"
	    "[[package]]\nname = \"alpha\"\nversion = \"2.0\"\n"
	    "groups = [\"default\"]\n\n"
	    "[[package]]\nname = \"gamma\"\nversion = \"1.0\"\n"
	    "groups = [\"test\", \"default\"]\n\n"
	    "[[package]]\nname = \"delta\"\nversion = \"1.1\"\n"
	    "groups = [\"test\"]\n\n"
	    "[[package]]\nname = \"winonly\"\nversion = \"1.0\"\n"
	    "marker = \"sys_platform == 'win32'\"\ngroups = [\"default\"]\n\n"
	    "[[package]]\nname = \"kernel\"\nversion = \"1.0\"\n"
	    "marker = \"platform_release >= '6'\"\ngroups = [\"default\"]\n\n"
	    "[[package]]\nname = \"zeta\"\nversion = \"1\"\n"
	    "groups = [\"test\"]\n\n"
	    "[[package]]\nname = \"eta\"\nversion = \"1\"\n"
	    "groups = [\"default\"]\n";
	static const char *const def[] = { "default", NULL };
	static const char *const test_grp[] = { "test", NULL };
	struct ep_pins pins = { 0 };
	struct ep_err err = { 0 };
	struct ep_manifest *m = python_env();
	json_t *j;

	(void)state;
	assert_int_equal(ep_lock_parse(&pins, EP_LOCK_PDM, lock, strlen(lock),
	    "pdm.lock", &err), 0);
	assert_string_equal(pins.v[1].group, "test,default");
	assert_string_equal(pins.v[3].where, "sys_platform == 'win32'");
	ep_pins_clear(&pins);
	j = judge(m, EP_LOCK_PDM, lock, NULL);
	assert_string_equal(found(j, "delta"), "version 1.1 1.0");
	/* Only in test, which may be an optional group: maybe; in
	 * default: surely. */
	assert_string_equal(found(j, "zeta"), "missing 1 -");
	assert_true(json_is_true(json_object_get(json_object_get(
	    json_object_get(j, "findings"), "zeta"), "maybe_optional")));
	assert_string_equal(found(j, "eta"), "missing 1 -");
	assert_null(json_object_get(json_object_get(json_object_get(j,
	    "findings"), "eta"), "maybe_optional"));
	/* platform_release is not known here: not judged, not missing. */
	assert_string_equal(found(j, "kernel"), "");
	assert_int_equal(json_integer_value(json_object_get(j, "unjudged")),
	    1);
	assert_int_equal(nfound(j), 3);
	json_decref(j);
	j = judge(m, EP_LOCK_PDM, lock, def);
	assert_string_equal(found(j, "delta"), "extra - 1.0");
	assert_string_equal(found(j, "zeta"), "");
	assert_int_equal(nfound(j), 2);
	json_decref(j);
	/* Named: test is installed, its packages surely. */
	j = judge(m, EP_LOCK_PDM, lock, test_grp);
	assert_string_equal(found(j, "zeta"), "missing 1 -");
	assert_null(json_object_get(json_object_get(json_object_get(j,
	    "findings"), "zeta"), "maybe_optional"));
	json_decref(j);
	ep_manifest_free(m);
}

/* conda-lock.yml: main on this platform; pixi.lock: the default
 * environment on this platform; a conda explicit file: every package;
 * conda packages against conda.pkg, PyPI ones against python.pkg. */
static void
test_conda(void **state)
{
	static const char *const main_only[] = { "main", NULL };
	static const char condalock[] = "version: 1\nmetadata: {}\npackage:\n"
	    "- {name: python, version: 3.11.7, manager: conda, platform: "
	    "linux-64, category: main, url: 'https://c/linux-64/"
	    "python-3.11.7-h1.conda', hash: {md5: aa}}\n"
	    "- {name: python, version: 3.11.8, manager: conda, platform: "
	    "osx-arm64, category: main, url: 'https://c/osx-arm64/"
	    "python-3.11.8-h1.conda', hash: {md5: aa}}\n"
	    "- {name: numpy, version: 1.26.4, manager: conda, platform: "
	    "linux-64, category: main, url: 'https://c/linux-64/"
	    "numpy-1.26.4-h1.conda', hash: {md5: aa}}\n"
	    "- {name: pytest, version: '8.0', manager: conda, platform: "
	    "linux-64, category: dev, url: 'https://c/linux-64/"
	    "pytest-8.0-h1.conda', hash: {md5: aa}}\n"
	    "- {name: alpha, version: '1.0', manager: pip, platform: "
	    "linux-64, category: main, url: 'https://p/alpha-1.0-py3-none-"
	    "any.whl', hash: {sha256: bb}}\n";
	static const char twice[] = "version: 1\nmetadata: {}\npackage:\n"
	    "- {name: numpy, version: 1.26.4, manager: conda, platform: "
	    "linux-64, category: main, url: 'https://c/linux-64/"
	    "numpy-1.26.4-h1.conda', hash: {md5: aa}}\n"
	    "- {name: numpy, version: 1.26.3, manager: pip, platform: "
	    "linux-64, category: main, url: 'https://p/numpy-1.26.3-cp311-"
	    "cp311-linux_x86_64.whl', hash: {sha256: bb}}\n";
	static const char pixi[] = "version: 6\nenvironments:\n  default:\n"
	    "    channels: [{url: 'https://c/'}]\n    packages:\n"
	    "      linux-64:\n      - conda: https://c/linux-64/"
	    "python-3.11.7-h1.conda\n  cuda:\n    channels: [{url: "
	    "'https://c/'}]\n    packages:\n      linux-64:\n"
	    "      - conda: https://c/linux-64/cudnn-9.1-h1.conda\n"
	    "packages:\n- conda: https://c/linux-64/python-3.11.7-h1.conda\n"
	    "- conda: https://c/linux-64/cudnn-9.1-h1.conda\n";
	static const char *const cuda[] = { "cuda", NULL };
	static const char explicit[] = "@EXPLICIT\n"
	    "https://c/linux-64/python-3.11.6-h1.conda\n";
	struct ep_manifest *m = ep_manifest_new();
	json_t *j;

	(void)state;
	ep_manifest_set(m, "conda.pkg.python", "3.11.7");
	ep_manifest_set(m, "conda.pkg.zlib", "1.3");
	ep_manifest_set(m, "python.pkg.alpha", "1.1");
	j = judge(m, EP_LOCK_CONDA_LOCK, condalock, NULL);
	assert_string_equal(found(j, "python"), "");
	assert_string_equal(found(j, "numpy"), "missing 1.26.4 -");
	/* dev is installed by default (conda-lock install --dev). */
	assert_string_equal(found(j, "pytest"), "missing 8.0 -");
	assert_string_equal(found(j, "alpha"), "version 1.0 1.1");
	assert_string_equal(found(j, "zlib"), "extra - 1.3");
	assert_int_equal(nfound(j), 4);
	assert_string_equal(json_string_value(json_object_get(j, "against")),
	    "python and conda");
	json_decref(j);
	j = judge(m, EP_LOCK_CONDA_LOCK, condalock, main_only);
	assert_string_equal(found(j, "pytest"), "");
	json_decref(j);
	/* numpy from conda and from PyPI, both with a finding: neither
	 * overwrites the other, the PyPI one keyed pypi:numpy. */
	ep_manifest_set(m, "python.pkg.numpy", "1.26.0");
	j = judge(m, EP_LOCK_CONDA_LOCK, twice, NULL);
	assert_string_equal(found(j, "numpy"), "missing 1.26.4 -");
	assert_string_equal(found(j, "pypi:numpy"), "version 1.26.3 1.26.0");
	/* and python, zlib: conda extras */
	assert_int_equal(nfound(j), 4);
	json_decref(j);
	json_object_del(m->facts, "python.pkg.numpy");
	j = judge(m, EP_LOCK_PIXI, pixi, NULL);
	assert_string_equal(found(j, "cudnn"), "");
	assert_string_equal(found(j, "zlib"), "extra - 1.3");
	assert_int_equal(nfound(j), 1);
	json_decref(j);
	j = judge(m, EP_LOCK_PIXI, pixi, cuda);
	assert_string_equal(found(j, "cudnn"), "missing 9.1 -");
	assert_string_equal(found(j, "python"), "extra - 3.11.7");
	json_decref(j);
	j = judge(m, EP_LOCK_CONDA, explicit, NULL);
	assert_string_equal(found(j, "python"), "version 3.11.6 3.11.7");
	assert_int_equal(nfound(j), 2);
	json_decref(j);
	assert_string_equal(ep_lock_conda_platform("Linux", "aarch64"),
	    "linux-aarch64");
	assert_null(ep_lock_conda_platform("Linux", NULL));
	assert_null(ep_lock_conda_platform("Plan9", "x86_64"));
	ep_manifest_free(m);
}

/* The results: one per finding, the lockfile and the pin in the
 * message; one pass when there is none; a skip saying why; an extra
 * that a policy rule makes fail, or drops. */
static void
test_results(void **state)
{
	static const char strict[] = "{\"schema\": \"envparity/policy@1\", "
	    "\"rules\": [{\"key\": \"stack.lock.*.delta\", \"rule\": "
	    "\"exact\"}]}";
	static const char quiet[] = "{\"schema\": \"envparity/policy@1\", "
	    "\"rules\": [{\"key\": \"stack.lock.*.delta\", \"rule\": "
	    "\"ignore\"}]}";
	static const char req[] = "alpha==1.0\nbeta==1.0\ngamma==1.0\n";
	struct ep_manifest *m = python_env();
	struct ep_results rs = { 0 };
	struct ep_policy *p = NULL;
	struct ep_err err = { 0 };
	json_t *lock = json_object(), *ok;

	(void)state;
	json_object_set_new(lock, "reqs/prod.txt", judge(m,
	    EP_LOCK_REQUIREMENTS, req, NULL));
	ok = json_pack("{s:s,s:s,s:i,s:i,s:b,s:{}}", "format", "poetry",
	    "selected", "main", "pins", 7, "unjudged", 0, "extras", 1,
	    "findings");
	json_object_set_new(lock, "poetry.lock", ok);
	json_object_set_new(lock, "uv.lock", json_pack("{s:s,s:s,s:i,s:i,"
	    "s:b,s:{s:{s:s,s:s,s:b}}}", "format", "uv", "selected", "all",
	    "pins", 1, "unjudged", 0, "extras", 0, "findings", "x", "kind",
	    "missing", "pin", "1.0", "maybe_optional", 1));
	json_object_set_new(lock, "pixi.lock", json_pack("{s:s,s:s}",
	    "format", "pixi", "unavailable", "no conda environment"));
	json_object_set_new(lock, "bad.lock", json_pack("{s:s,s:s,s:{s:{s:s}}}",
	    "format", "poetry", "selected", "main", "findings", "x", "kind",
	    "odd"));
	json_object_set_new(lock, "worse.lock", json_pack("{s:s}", "format",
	    "uv"));
	json_object_set_new(m->meta, "lock", lock);
	run(&rs, m, NULL);
	assert_int_equal(status(&rs, "stack.lock.reqs/prod.txt.alpha"),
	    EP_FAIL);
	assert_string_equal(get(&rs, "stack.lock.reqs/prod.txt.alpha")->message,
	    "stack.lock.reqs/prod.txt.alpha: alpha is pinned to 1.0 by "
	    "reqs/prod.txt (requirements), but 2.0 is installed");
	assert_string_equal(get(&rs, "stack.lock.reqs/prod.txt.alpha")->expected,
	    "1.0");
	assert_string_equal(get(&rs, "stack.lock.reqs/prod.txt.beta")->message,
	    "stack.lock.reqs/prod.txt.beta: beta is pinned to 1.0 by "
	    "reqs/prod.txt (requirements) and is not installed");
	assert_null(find(&rs, "stack.lock.reqs/prod.txt.gamma"));
	assert_int_equal(status(&rs, "stack.lock.reqs/prod.txt.delta"),
	    EP_WARN);
	assert_int_equal(status(&rs, "stack.lock.poetry.lock"), EP_PASS);
	assert_non_null(strstr(get(&rs, "stack.lock.poetry.lock")->message,
	    "7 pins of poetry.lock (poetry) that apply here, every one "
	    "installed at its version, nothing installed beside them"));
	assert_int_equal(status(&rs, "stack.lock.uv.lock.x"), EP_WARN);
	assert_non_null(strstr(get(&rs, "stack.lock.uv.lock.x")->message,
	    "does not say whether it is an extra's"));
	assert_int_equal(status(&rs, "stack.lock.pixi.lock"), EP_SKIP);
	assert_non_null(strstr(get(&rs, "stack.lock.pixi.lock")->message,
	    "no conda environment"));
	assert_int_equal(status(&rs, "stack.lock.bad.lock.x"), EP_ERROR);
	assert_int_equal(status(&rs, "stack.lock.worse.lock"), EP_ERROR);
	if (ep_policy_parse(&p, strict, strlen(strict), "p", &err) < 0)
		fail_msg("%s", err.msg);
	run(&rs, m, p);
	assert_int_equal(status(&rs, "stack.lock.reqs/prod.txt.delta"),
	    EP_FAIL);
	ep_policy_free(p);
	if (ep_policy_parse(&p, quiet, strlen(quiet), "p", &err) < 0)
		fail_msg("%s", err.msg);
	run(&rs, m, p);
	assert_null(find(&rs, "stack.lock.reqs/prod.txt.delta"));
	assert_int_equal(status(&rs, "stack.lock.reqs/prod.txt.beta"),
	    EP_FAIL);
	ep_policy_free(p);
	ep_results_clear(&rs);
	ep_manifest_free(m);
}

/* A requirements file of == pins written by hand: past 20 packages
 * installed that it does not pin, one summary warning on the lockfile's
 * key (its count and first 5 names), not one each; 20 are still one
 * each. */
static void
test_extras_summary(void **state)
{
	struct ep_manifest *m = ep_manifest_new();
	struct ep_results rs = { 0 };
	json_t *j, *sum, *lock = json_object();
	char key[64];

	(void)state;
	ep_manifest_set(m, "python.pkg.alpha", "2.0");
	for (int i = 0; i < 20; i++) {
		snprintf(key, sizeof key, "python.pkg.dep-%02d", i);
		ep_manifest_set(m, key, "1.0");
	}
	j = judge(m, EP_LOCK_REQUIREMENTS, "alpha==2.0\n", NULL);
	assert_int_equal(nfound(j), 20);
	assert_null(json_object_get(j, "extras_summary"));
	json_decref(j);
	for (int i = 20; i < 25; i++) {
		snprintf(key, sizeof key, "python.pkg.dep-%02d", i);
		ep_manifest_set(m, key, "1.0");
	}
	j = judge(m, EP_LOCK_REQUIREMENTS, "alpha==1.0\n", NULL);
	sum = json_object_get(j, "extras_summary");
	assert_int_equal(json_integer_value(json_object_get(sum, "count")), 25);
	assert_int_equal(json_array_size(json_object_get(sum, "names")), 5);
	assert_string_equal(json_string_value(json_array_get(
	    json_object_get(sum, "names"), 4)), "dep-04");
	/* The version finding stays. */
	assert_string_equal(found(j, "alpha"), "version 1.0 2.0");
	assert_int_equal(nfound(j), 1);
	json_object_set_new(lock, "requirements.txt", j);
	json_object_set_new(m->meta, "lock", lock);
	run(&rs, m, NULL);
	assert_int_equal(status(&rs, "stack.lock.requirements.txt"), EP_WARN);
	assert_string_equal(get(&rs, "stack.lock.requirements.txt")->message,
	    "stack.lock.requirements.txt: 25 packages are installed that "
	    "requirements.txt (requirements) pins nowhere where it applies "
	    "here (dep-00, dep-01, dep-02, dep-03, dep-04, ...): a file of "
	    "== pins that lists what was asked for, not each dependency "
	    "(pip freeze does)?");
	assert_null(find(&rs, "stack.lock.requirements.txt.dep-00"));
	assert_int_equal(status(&rs, "stack.lock.requirements.txt.alpha"),
	    EP_FAIL);
	ep_results_clear(&rs);
	ep_manifest_free(m);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pipfile_requirements),
		cmocka_unit_test(test_pdm),
		cmocka_unit_test(test_conda),
		cmocka_unit_test(test_results),
		cmocka_unit_test(test_extras_summary),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
