/* test_report.c: the JSON report and the human summary render results,
 * whatever bytes the facts held; every writer of the table renders what
 * its context gives it, and reads nothing else. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "xalloc.h"

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

/* Every format is in the table, named as its option is. */
static void
test_writer_table(void **state)
{
	(void)state;
	for (int i = 0; i < EP_REPORT_NFORMATS; i++) {
		const struct ep_report_writer *w = &ep_report_writers[i];
		char *opt;

		assert_non_null(w->name);
		assert_non_null(w->render);
		opt = xasprintf("--%s", w->name);
		assert_string_equal(w->option, opt);
		free(opt);
	}
	assert_string_equal(ep_report_writers[EP_REPORT_JSON].name, "json");
	assert_string_equal(ep_report_writers[EP_REPORT_PROM].name, "prom");
}

/* The host's name, what could not be looked at and when the run ended
 * are what the context says: never the manifest's meta, the machine's
 * name or the clock. */
static void
test_writers_render_given(void **state)
{
	static const struct ep_report_unavailable given[] = {
		{ "gpu", "given: no GPU" },
	};
	struct ep_results rs = { 0 };
	struct ep_report_ctx ctx = { 0 };
	struct ep_manifest *m = ep_manifest_new();
	char *out[EP_REPORT_NFORMATS];

	(void)state;
	fill(&rs);
	ep_manifest_unavailable(m, "gpu", "from the manifest");
	ep_manifest_unavailable(m, "python", "from the manifest");
	ctx.command = "check";
	ctx.current_name = "this machine";
	ctx.current = m;
	ctx.generated = 1795000000;
	ctx.ended = 1234567890;
	strcpy(ctx.host, "given-host");
	ctx.unavailable = given;
	ctx.nunavailable = 1;
	ctx.exit_status = ep_results_exit(&rs);
	for (int i = 0; i < EP_REPORT_NFORMATS; i++) {
		assert_int_equal(ep_report_writers[i].render(&out[i], &ctx, &rs,
		    NULL), 0);
		assert_non_null(out[i]);
		assert_null(strstr(out[i], "from the manifest"));
	}
	assert_non_null(strstr(out[EP_REPORT_JSON],
	    "\"host\": \"given-host\""));
	assert_non_null(strstr(out[EP_REPORT_JSON], "\"unavailable\": {\n"
	    "    \"gpu\": \"given: no GPU\"\n  }"));
	assert_non_null(strstr(out[EP_REPORT_JUNIT],
	    "hostname=\"given-host\""));
	assert_non_null(strstr(out[EP_REPORT_JUNIT], "<property "
	    "name=\"unavailable\" value=\"given: no GPU\"/>"));
	assert_non_null(strstr(out[EP_REPORT_PROM],
	    "envparity_last_run_timestamp_seconds{command=\"check\","
	    "profile=\"none\"} 1234567890\n"));
	assert_non_null(strstr(out[EP_REPORT_MARKDOWN],
	    "## envparity check: DRIFT"));
	for (int i = 0; i < EP_REPORT_NFORMATS; i++)
		free(out[i]);
	ep_manifest_free(m);
	ep_results_clear(&rs);
}

/* A failing key's label holds what a lockfile's name held: ESC, CR, a
 * bidirectional override reach the CI log through --prom - shown, never
 * as themselves. */
static void
test_prom_label_clean(void **state)
{
	struct ep_results rs = { 0 };
	struct ep_report_ctx ctx = { 0 };
	struct ep_result r = { 0 };
	char *s;

	(void)state;
	r.key = "stack.lock.req\x1b[2J\rx\xe2\x80\xae.txt.numpy\\\"";
	r.status = EP_FAIL;
	r.rule = "check:lock";
	r.message = "pinned";
	ep_results_add(&rs, &r);
	ctx.command = "check";
	ctx.golden_profile = "default";
	ctx.generated = 1795000000;
	ctx.exit_status = ep_results_exit(&rs);
	assert_int_equal(ep_report_prom(&s, &ctx, &rs, NULL), 0);
	assert_null(strchr(s, '\x1b'));
	assert_null(strchr(s, '\r'));
	assert_null(strstr(s, "\xe2\x80\xae"));
	assert_non_null(strstr(s, "key=\"stack.lock.req\xe2\x90\x9b[2J\xe2\x90\x8dx<U+202E>.txt.numpy\\\\\\\"\""));
	free(s);
	ep_results_clear(&rs);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_prom_label_clean),
		cmocka_unit_test(test_summary),
		cmocka_unit_test(test_write_unwritable),
		cmocka_unit_test(test_writer_table),
		cmocka_unit_test(test_writers_render_given),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
