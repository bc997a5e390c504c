/*
 * test_contract_line.c: what a contract line of the probe's output is
 * (probe_line.c): garbage before, after and among good lines, an unknown
 * schema, contract violations, a workload twice, and how a bad line is
 * shown.  Aggregating runs: test_probe_runner.c.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe.h"
#include "probefixture.h"
#include "errors.h"
#include "xalloc.h"

static void
test_garbage_line(void **state)
{
	const char *text = "Segmentation fault? \001not json\n";
	struct ep_probe_run r = { 0 };

	(void)state;
	ep_probe_output_parse(&r, text, strlen(text), "cpu");
	assert_int_equal(r.outcome, EP_PROBE_GARBAGE);
	assert_null(r.lines);
	assert_non_null(strstr(r.why, "garbage output: Segmentation fault? "
	    "\\x01not json (not JSON ("));
	ep_probe_run_clear(&r);
}

static void
test_garbage_after_good_lines(void **state)
{
	char *good = cpu_output(H_A, H_B, "true");
	char *text = xasprintf("%s[1, 2]\n", good);
	struct ep_probe_run r = { 0 };

	(void)state;
	ep_probe_output_parse(&r, text, strlen(text), "cpu");
	assert_int_equal(r.outcome, EP_PROBE_GARBAGE);
	assert_string_equal(r.why,
	    "garbage output: [1, 2] (not a JSON object)");
	ep_probe_run_clear(&r);
	free(text);
	free(good);
}

static void
test_long_garbage_truncated(void **state)
{
	char text[400];
	struct ep_probe_run r = { 0 };

	(void)state;
	memset(text, 'x', sizeof text);
	text[sizeof text - 1] = '\n';
	ep_probe_output_parse(&r, text, sizeof text, "cpu");
	assert_int_equal(r.outcome, EP_PROBE_GARBAGE);
	assert_true(strlen(r.why) < 200);
	assert_non_null(strstr(r.why, "xxx... (not JSON"));
	ep_probe_run_clear(&r);
}

static void
test_unknown_schema(void **state)
{
	char *l = line("cpu", "kat", "ok", NULL, H_K, "true", 0, cpu_dev, "{}");
	char *p = strstr(l, "probe@1");
	struct ep_err err = { 0 };
	struct ep_probe_run r = { 0 };
	json_t *out;

	(void)state;
	p[6] = '2';
	assert_int_equal(ep_probe_line_parse(&out, l, strlen(l) - 1, "cpu",
	    &err), -1);
	assert_null(out);
	assert_string_equal(err.msg, "unknown schema \"envparity/probe@2\" "
	    "(this envparity reads envparity/probe@1)");
	ep_probe_output_parse(&r, l, strlen(l), "cpu");
	assert_int_equal(r.outcome, EP_PROBE_GARBAGE);
	assert_non_null(strstr(r.why, "(unknown schema"));
	ep_probe_run_clear(&r);
	free(l);
}

/* Lines that parse as JSON but break the contract. */
static void
test_contract_violations(void **state)
{
	static const struct {
		const char *from, *to, *msg;
	} cases[] = {
		{ "\"backend\": \"cpu\"", "\"backend\": \"cuda\"",
		    "field \"backend\" is not \"cpu\"" },
		{ "\"workload\": \"kat\"", "\"workload\": \"conv_fwd\"",
		    "workload \"conv_fwd\" is not one of the cpu backend's" },
		{ "\"status\": \"ok\"", "\"status\": \"fine\"",
		    "field \"status\" is not \"ok\", \"skip\" or \"error\"" },
		{ "\"sha256\": \"0123", "\"sha256\": \"X123",
		    "field \"sha256\" is not 64 lowercase hex digits in an "
		    "\"ok\" line" },
		{ "\"known_answer\": true", "\"known_answer\": 1",
		    "field \"known_answer\" is not true, false or null" },
		{ "\"canary\": false", "\"canary\": null",
		    "field \"canary\" is not true or false" },
		{ "\"elapsed_ms\": 2.0", "\"elapsed_ms\": -1",
		    "field \"elapsed_ms\" is not a number >= 0" },
		{ "\"libs\": {}", "\"libs\": []",
		    "field \"libs\" is not an object" },
		{ "\"probe\": \"envparity-probe 1\"", "\"probe\": \"\"",
		    "field \"probe\" is not a non-empty string" },
		{ "\"reason\": null, ", "",
		    "field \"reason\" is not a string or null" },
	};
	char *l = line("cpu", "kat", "ok", NULL, H_K, "true", 0, cpu_dev, "{}");
	struct ep_err err;
	json_t *out;

	(void)state;
	assert_int_equal(ep_probe_line_parse(&out, l, strlen(l), "cpu", &err),
	    0);
	json_decref(out);
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *p = strstr(l, cases[i].from), *bad;

		assert_non_null(p);
		bad = xasprintf("%.*s%s%s", (int)(p - l), l, cases[i].to,
		    p + strlen(cases[i].from));
		memset(&err, 0, sizeof err);
		assert_int_equal(ep_probe_line_parse(&out, bad, strlen(bad),
		    "cpu", &err), -1);
		assert_string_equal(err.msg, cases[i].msg);
		free(bad);
	}
	free(l);
}

static void
test_workload_twice(void **state)
{
	char *l = line("cpu", "kat", "ok", NULL, H_K, "true", 0, cpu_dev, "{}");
	char *text = xasprintf("%s%s", l, l);
	struct ep_probe_run r = { 0 };

	(void)state;
	ep_probe_output_parse(&r, text, strlen(text), "cpu");
	assert_int_equal(r.outcome, EP_PROBE_GARBAGE);
	assert_non_null(strstr(r.why, "(workload \"kat\" reported twice)"));
	ep_probe_run_clear(&r);
	free(text);
	free(l);
}

static void
test_printable(void **state)
{
	char *p;

	(void)state;
	p = ep_probe_printable("a\tb\xff", 4, 80);
	assert_string_equal(p, "a\\x09b\\xff");
	free(p);
	p = ep_probe_printable("abcdefghij", 10, 5);
	assert_string_equal(p, "abcde...");
	free(p);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_garbage_line),
		cmocka_unit_test(test_garbage_after_good_lines),
		cmocka_unit_test(test_long_garbage_truncated),
		cmocka_unit_test(test_unknown_schema),
		cmocka_unit_test(test_contract_violations),
		cmocka_unit_test(test_workload_twice),
		cmocka_unit_test(test_printable),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
