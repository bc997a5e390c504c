/* test_report.c: the JSON report and the human summary render results,
 * whatever bytes the facts held. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

static void
fill(struct ep_results *rs)
{
	struct ep_result r = { 0 };

	r.key = "python.pkg.numpy";
	r.status = EP_FAIL;
	r.expected = "1.26.4";
	r.actual = "2.0.0";
	r.rule = "exact";
	r.message = "python.pkg.numpy: expected 1.26.4, got 2.0.0";
	ep_results_add(rs, &r);
	memset(&r, 0, sizeof r);
	r.key = "lib.x.version";
	r.status = EP_WAIVED;
	r.expected = "]]><&\"\x1b[31m";
	r.actual = "bad \xff utf-8";
	r.rule = "exact";
	r.message = "waived";
	r.waiver_reason = "known";
	r.waiver_owner = "ml-platform";
	r.waiver_expires = "2026-12-31";
	ep_results_add(rs, &r);
	memset(&r, 0, sizeof r);
	for (int i = 0; i < 3; i++) {
		char key[32];

		snprintf(key, sizeof key, "gpu.%d.name", i);
		r.key = key;
		r.status = EP_SKIP;
		r.expected = "NVIDIA H100 80GB HBM3";
		r.message = "not checked here: libnvidia-ml.so.1 not found";
		ep_results_add(rs, &r);
	}
	ep_results_sort(rs);
}

static void
test_json(void **state)
{
	struct ep_results rs = { 0 };
	struct ep_report_ctx ctx = { 0 };
	json_error_t je;
	json_t *j, *res, *w;
	char *s;

	(void)state;
	fill(&rs);
	ctx.command = "check";
	ctx.golden_name = "store#main:default";
	ctx.golden_profile = "default";
	ctx.current_name = "this machine";
	ctx.generated = 1795000000;
	ctx.exit_status = ep_results_exit(&rs);
	assert_int_equal(ep_report_json(&s, &ctx, &rs, NULL), 0);
	assert_non_null(j = json_loads(s, 0, &je));
	assert_string_equal(json_string_value(json_object_get(j, "schema")),
	    "envparity/report@1");
	assert_int_equal(json_integer_value(json_object_get(j, "exit_status")),
	    1);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(j,
	    "counts"), "skip")), 3);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(j,
	    "counts"), "total")), 5);
	res = json_object_get(j, "results");
	assert_int_equal(json_array_size(res), 5);
	/* Sorted by area then key: gpu, lib, python. */
	assert_string_equal(json_string_value(json_object_get(
	    json_array_get(res, 0), "area")), "gpu");
	w = json_object_get(json_array_get(res, 3), "waiver");
	assert_string_equal(json_string_value(json_object_get(w, "owner")),
	    "ml-platform");
	/* Hostile bytes: escaped, and invalid UTF-8 replaced, never lost. */
	assert_string_equal(json_string_value(json_object_get(
	    json_array_get(res, 3), "expected")), "]]><&\"\x1b[31m");
	assert_string_equal(json_string_value(json_object_get(
	    json_array_get(res, 3), "actual")), "bad \xef\xbf\xbd utf-8");
	json_decref(j);
	free(s);
	ep_results_clear(&rs);
}

static void
test_summary(void **state)
{
	struct ep_results rs = { 0 };
	struct ep_report_ctx ctx = { 0 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	fill(&rs);
	ctx.command = "check";
	ctx.golden_name = "s#main:default";
	ctx.current_name = "this machine";
	ctx.exit_status = ep_results_exit(&rs);
	ep_report_summary(f, &ctx, &rs, 0);
	fclose(f);
	assert_non_null(strstr(buf, "DRIFT"));
	assert_non_null(strstr(buf, "FAIL    python.pkg.numpy: expected 1.26.4, "
	    "got 2.0.0"));
	/* Three skips of one reason are one line. */
	assert_non_null(strstr(buf, "skip    3 gpu facts: not checked here: "
	    "libnvidia-ml.so.1 not found"));
	assert_non_null(strstr(buf, "5 results: 0 pass, 1 fail, 0 warn, "
	    "1 waived, 3 skip, 0 error"));
	free(buf);
	ep_results_clear(&rs);
}

static void
test_write_unwritable(void **state)
{
	struct ep_results rs = { 0 };
	struct ep_report_ctx ctx = { .command = "diff" };
	struct ep_err err = { 0 };

	(void)state;
	assert_int_equal(ep_report_json_write("/nonexistent/dir/r.json", &ctx,
	    &rs, &err), -1);
	assert_int_equal(err.kind, EP_E_IO);
	assert_non_null(strstr(err.msg, "/nonexistent/dir/r.json"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_summary),
		cmocka_unit_test(test_write_unwritable),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
