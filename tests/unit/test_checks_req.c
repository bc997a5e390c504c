/*
 * test_checks_req.c: the stack.requires.* checks (core/checks_req.c)
 * through ep_checks_run: pip check's findings, in its words, one result
 * per distribution, on manifests whose python.pkg facts and
 * meta.python.requires are written here and judged by requires.c under
 * the markers given; turned off by a policy rule, waived, and skipped
 * with the reason when the capture could not judge them.  And
 * stack.duplicate.*, from meta.python.duplicates.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "checksfixture.h"
#include "results.h"
#include "checks.h"
#include "manifest.h"
#include "requires.h"
#include "errors.h"
#include "str.h"

/* A manifest with python.pkg facts and meta.python as capture writes
 * it: the requirement lines (name -> list) judged under the markers of a
 * CPython 3.11 on Linux, or those given. */
static struct ep_manifest *
py_manifest(const char *requires, const char *markers)
{
	struct ep_manifest *m = ep_manifest_new();
	struct ep_markerenv env = { { 0 } };
	json_error_t je;
	json_t *py, *lines, *mk;

	ep_manifest_set(m, "python.pkg.app", "1.0");
	ep_manifest_set(m, "python.pkg.lib-b", "1.5");
	ep_manifest_set(m, "python.pkg.lib-c", "2.0rc1");
	ep_manifest_set(m, "python.pkg.tool", "01.0-1");
	assert_non_null(lines = json_loads(requires, 0, &je));
	assert_non_null(mk = json_loads(markers != NULL ? markers :
	    "{\"python_version\": \"3.11\", \"python_full_version\": "
	    "\"3.11.7\", \"os_name\": \"posix\", \"sys_platform\": "
	    "\"linux\"}", 0, &je));
	for (size_t i = 0; i < EP_MV_N; i++)
		env.v[i] = json_string_value(json_object_get(mk,
		    ep_marker_vars[i]));
	py = json_object();
	json_object_set_new(py, "markers_from", json_string("interpreter"));
	json_object_set_new(py, "requires", ep_requires_judge(m, lines, &env));
	json_object_set_new(py, "markers", mk);
	json_object_set_new(m->meta, "python", py);
	json_decref(lines);
	return m;
}

/* pip check's findings, in its words, one result per distribution. */
static void
test_requires(void **state)
{
	static const char ignore[] = "{\"schema\": \"envparity/policy@1\", "
	    "\"rules\": [{\"key\": \"stack.requires.*\", \"rule\": "
	    "\"ignore\"}]}";
	static const char waive[] = "{\"schema\": \"envparity/policy@1\", "
	    "\"waivers\": [{\"key\": \"stack.requires.app\", \"reason\": "
	    "\"r\", \"owner\": \"o\", \"expires\": \"2099-01-01\"}]}";
	struct ep_results rs = { 0 };
	struct ep_policy *p = NULL;
	struct ep_err err = { 0 };
	struct ep_manifest *m;
	const struct ep_result *r;
	json_t *j;

	(void)state;
	m = py_manifest("{\"app\": [\"Lib_B>=2\", \"missing-x\", "
	    "\"lib.c (>=1)\", \"old ; python_version < '3'\", "
	    "\"new ; python_version >= '3'\", \"bad>>1\", "
	    "\"odd ; os_name ~= 'posix'\", \"lib-b\", \"missing-x>=1\"], "
	    "\"tool\": [\"app==1.0\"]}", NULL);
	run(&rs, m, NULL);
	r = get(&rs, "stack.requires.app");
	assert_int_equal(r->status, EP_FAIL);
	assert_string_equal(r->area, "stack");
	assert_string_equal(r->rule, "check:requires");
	assert_string_equal(r->message, "stack.requires.app: "
	    "app 1.0 requires missing-x, which is not installed. "
	    "app 1.0 requires new, which is not installed. "
	    "app 1.0 has requirement Lib_B>=2, but you have lib-b 1.5. "
	    "app 1.0 has an invalid requirement \"bad>>1\": Expected "
	    "semicolon (after name with no version specifier) or end at "
	    "column 4. "
	    "app 1.0 has requirement odd; os_name ~= \"posix\", whose marker "
	    "cannot be evaluated: '~=' is undefined on os_name.");
	assert_string_equal(r->expected, "Lib_B>=2; missing-x; missing-x>=1; "
	    "new");
	assert_string_equal(r->actual, "lib-b 1.5; missing-x not installed; "
	    "new not installed");
	/* Met: "tool" asks app==1.0, and its own odd version is shown as
	 * pip shows it. */
	assert_null(find(&rs, "stack.requires.tool"));
	assert_null(find(&rs, "stack.requires"));
	assert_int_equal(ep_results_exit(&rs), EP_EXIT_DRIFT);

	/* A waiver waives it; an ignore rule drops it, and no pass
	 * claims that everything was met. */
	if (ep_policy_parse(&p, waive, strlen(waive), "p", &err) < 0)
		fail_msg("%s", err.msg);
	run(&rs, m, p);
	assert_int_equal(status(&rs, "stack.requires.app"), EP_WAIVED);
	ep_policy_free(p);
	if (ep_policy_parse(&p, ignore, strlen(ignore), "p", &err) < 0)
		fail_msg("%s", err.msg);
	run(&rs, m, p);
	assert_null(find(&rs, "stack.requires.app"));
	assert_null(find(&rs, "stack.requires"));
	ep_policy_free(p);
	ep_manifest_free(m);

	/* Everything met: one pass for them all. */
	m = py_manifest("{\"tool\": [\"app==1.0\", \"lib-c>=2.0a1\", "
	    "\"lib-b @ https://example.org/b.whl\"]}", NULL);
	run(&rs, m, NULL);
	r = get(&rs, "stack.requires");
	assert_int_equal(r->status, EP_PASS);
	assert_string_equal(r->message, "stack.requires: 4 distributions, 3 "
	    "requirements that apply here: every one met (pip check's "
	    "rules; markers from the interpreter)");
	ep_manifest_free(m);

	/* A version pip prints in its normal form. */
	m = py_manifest("{\"app\": [\"tool>=2\"]}", NULL);
	run(&rs, m, NULL);
	assert_string_equal(get(&rs, "stack.requires.app")->message,
	    "stack.requires.app: app 1.0 has requirement tool>=2, but you "
	    "have tool 1.0.post1.");
	ep_manifest_free(m);

	/* A marker the capture could not evaluate, unmet: a warning that
	 * says why; met, nothing. */
	m = py_manifest("{\"app\": [\"gone ; python_version < '3.10'\", "
	    "\"lib-b ; python_version < '3.10'\"]}", "{\"sys_platform\": "
	    "\"linux\"}");
	json_object_set_new(json_object_get(m->meta, "python"),
	    "markers_from", json_string("uname"));
	run(&rs, m, NULL);
	r = get(&rs, "stack.requires.app");
	assert_int_equal(r->status, EP_WARN);
	assert_string_equal(r->message, "stack.requires.app: app 1.0 requires "
	    "gone, which is not installed, if its marker holds "
	    "(python_version is not known here: the capture took the marker "
	    "environment from uname).");
	assert_int_equal(ep_results_exit(&rs), EP_EXIT_OK);
	ep_manifest_free(m);

	/* Only the findings are kept, for the names that have some. */
	m = py_manifest("{\"app\": [\"missing-x\", \"lib-b\", "
	    "\"old ; python_version < '3'\"], \"tool\": [\"app\", 7]}", NULL);
	j = json_object_get(json_object_get(m->meta, "python"), "requires");
	assert_int_equal(json_integer_value(json_object_get(j,
	    "distributions")), 4);
	assert_int_equal(json_integer_value(json_object_get(j,
	    "requirements")), 3);
	assert_int_equal(json_object_size(json_object_get(j, "unmet")), 1);
	j = json_array_get(json_object_get(json_object_get(j, "unmet"),
	    "app"), 0);
	assert_string_equal(json_string_value(json_object_get(j, "kind")),
	    "missing");
	assert_string_equal(json_string_value(json_object_get(j, "name")),
	    "missing-x");
	ep_manifest_free(m);

	/* meta.python.requires that is not what capture writes: an error
	 * for that distribution, which no waiver hides. */
	m = py_manifest("{}", NULL);
	j = json_object_get(json_object_get(json_object_get(m->meta,
	    "python"), "requires"), "unmet");
	json_object_set_new(j, "app", json_string("lib-b"));
	json_object_set_new(j, "tool", json_pack("[{s:s, s:s}]", "kind",
	    "missing", "requirement", "x"));
	run(&rs, m, NULL);
	assert_int_equal(status(&rs, "stack.requires.app"), EP_ERROR);
	assert_int_equal(status(&rs, "stack.requires.tool"), EP_ERROR);
	ep_manifest_free(m);

	/* No meta.python: a skip, with the reason where there is one. */
	m = ep_manifest_new();
	ep_manifest_unavailable(m, "python", "python3 not found on PATH");
	run(&rs, m, NULL);
	r = get(&rs, "stack.requires");
	assert_int_equal(r->status, EP_SKIP);
	assert_string_equal(r->message, "stack.requires: not checked here: "
	    "python3 not found on PATH");
	ep_results_clear(&rs);
	ep_manifest_free(m);
}

/* stack.duplicate.<dist>: a name twice in one directory fails, naming
 * both; none is no result; what a capture does not write is an error;
 * a rule turns it off. */
static void
test_duplicates(void **state)
{
	static const char ignore[] = "{\"schema\": \"envparity/policy@1\", "
	    "\"rules\": [{\"key\": \"stack.duplicate.*\", \"rule\": "
	    "\"ignore\"}]}";
	struct ep_results rs = { 0 };
	struct ep_policy *p = NULL;
	struct ep_err err = { 0 };
	struct ep_manifest *m;
	const struct ep_result *r;
	json_error_t je;
	json_t *d;

	(void)state;
	m = py_manifest("{}", NULL);
	run(&rs, m, NULL);
	assert_null(find(&rs, "stack.duplicate"));
	for (size_t i = 0; i < rs.n; i++)
		assert_false(ep_startswith(rs.v[i].key, "stack.duplicate"));
	assert_non_null(d = json_loads("{\"torch\": ["
	    "{\"metadata\": \"/s/Torch-2.4.0.dist-info/METADATA\", "
	    "\"version\": \"2.4.0\"}, {\"metadata\": "
	    "\"/s/torch-2.3.0.dist-info/METADATA\", \"version\": \"2.3.0\"}], "
	    "\"zz\": [{\"metadata\": \"/s/zz.egg-info\"}, {}]}", 0, &je));
	json_object_set_new(json_object_get(m->meta, "python"), "duplicates",
	    d);
	run(&rs, m, NULL);
	r = get(&rs, "stack.duplicate.torch");
	assert_int_equal(r->status, EP_FAIL);
	assert_string_equal(r->actual, "2.4.0, 2.3.0");
	assert_string_equal(r->message, "stack.duplicate.torch: torch is "
	    "installed 2 times in one site-packages: "
	    "/s/Torch-2.4.0.dist-info/METADATA (2.4.0), "
	    "/s/torch-2.3.0.dist-info/METADATA (2.3.0); python.pkg.torch "
	    "records the first by name, but Python's importlib.metadata and "
	    "pip take whichever the directory lists first (remove the one "
	    "that is not what was installed)");
	r = get(&rs, "stack.duplicate.zz");
	assert_int_equal(r->status, EP_ERROR);
	assert_non_null(strstr(r->message, "is not what a capture writes"));
	assert_int_equal(ep_results_exit(&rs), EP_EXIT_DRIFT);

	assert_int_equal(ep_policy_parse(&p, ignore, sizeof ignore - 1, "p",
	    &err), 0);
	run(&rs, m, p);
	assert_null(find(&rs, "stack.duplicate.torch"));
	ep_policy_free(p);
	ep_results_clear(&rs);
	ep_manifest_free(m);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_requires),
		cmocka_unit_test(test_duplicates),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
