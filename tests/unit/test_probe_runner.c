/*
 * test_probe_runner.c: the pure half of the probe runner (probe.c): what
 * a contract line is, and how N runs become results, facts and summary
 * lines.  Runs are made from canned output text, as the runner would
 * have read it from the probe's standard output.
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

#define H_A "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define H_B "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
#define H_C "cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc"
#define H_K "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

#define H100 "{\"name\": \"NVIDIA H100 80GB HBM3\", \"cc\": \"9.0\", " \
	"\"sm_count\": 132, \"driver\": \"580.159.04\", \"cuda_driver\": \"13.0\"}"

/* One contract line; sha NULL writes null, kat is "true", "false" or
 * "null", dev and libs are JSON text. */
static char *
line(const char *backend, const char *workload, const char *status,
    const char *reason, const char *sha, const char *kat, int canary,
    const char *dev, const char *libs)
{
	char *r = reason ? xasprintf("\"%s\"", reason) : xstrdup("null");
	char *s = sha ? xasprintf("\"%s\"", sha) : xstrdup("null");
	char *l = xasprintf("{\"schema\": \"envparity/probe@1\", "
	    "\"backend\": \"%s\", \"workload\": \"%s\", \"status\": \"%s\", "
	    "\"reason\": %s, \"sha256\": %s, \"known_answer\": %s, "
	    "\"canary\": %s, \"elapsed_ms\": 2.0, \"device\": %s, "
	    "\"libs\": %s, \"probe\": \"envparity-probe 1\"}\n", backend,
	    workload, status, r, s, kat, canary ? "true" : "false", dev, libs);

	free(r);
	free(s);
	return l;
}

static const char *const cpu_dev = "{\"arch\": \"x86_64\"}";

/* The output of one cpu run: gemm and atomic hashes and kat's verdict
 * given. */
static char *
cpu_output(const char *gemm, const char *atomic, const char *kat)
{
	char *a = line("cpu", "kat", "ok", NULL, H_K, kat, 0, cpu_dev, "{}");
	char *b = line("cpu", "gemm", "ok", NULL, gemm, "null", 0, cpu_dev,
	    "{}");
	char *c = line("cpu", "reduce", "ok", NULL, H_C, "null", 0, cpu_dev,
	    "{}");
	char *d = line("cpu", "atomic", "ok", NULL, atomic, "null", 1,
	    cpu_dev, "{}");
	char *all = xasprintf("%s%s%s%s", a, b, c, d);

	free(a);
	free(b);
	free(c);
	free(d);
	return all;
}

static void
add_output(struct ep_probe_set *s, char *text)
{
	struct ep_probe_run *r = ep_probe_set_add(s);

	ep_probe_output_parse(r, text, strlen(text), s->backend);
	assert_int_equal(r->outcome, EP_PROBE_OK);
	free(text);
}

static const struct ep_result *
find(const struct ep_results *rs, const char *key)
{
	for (size_t i = 0; i < rs->n; i++)
		if (strcmp(rs->v[i].key, key) == 0)
			return &rs->v[i];
	return NULL;
}

struct agg {
	struct ep_results rs;
	struct ep_manifest *facts;
	struct ep_strv summary;
};

static void
agg_run(struct agg *a, struct ep_probe_set *s, int require_gpu)
{
	memset(a, 0, sizeof *a);
	a->facts = ep_manifest_new();
	ep_probe_aggregate(&a->rs, a->facts, &a->summary, s, require_gpu);
}

static void
agg_clear(struct agg *a, struct ep_probe_set *s)
{
	ep_results_clear(&a->rs);
	ep_manifest_free(a->facts);
	ep_strv_clear(&a->summary);
	ep_probe_set_clear(s);
}

static void
test_identical_runs(void **state)
{
	struct ep_probe_set s = { .backend = "cpu" };
	const struct ep_result *r;
	struct agg a;

	(void)state;
	for (int i = 0; i < 5; i++)
		add_output(&s, cpu_output(H_A, H_B, "true"));
	agg_run(&a, &s, 0);

	r = find(&a.rs, "probe.cpu.gemm.runs");
	assert_non_null(r);
	assert_int_equal(r->status, EP_PASS);
	assert_string_equal(r->message, "identical in 5 runs");
	r = find(&a.rs, "probe.cpu.kat.known_answer");
	assert_non_null(r);
	assert_int_equal(r->status, EP_PASS);
	assert_string_equal(r->message, "known answer exact in 5 runs");
	/* No known answer for gemm: no result claims one. */
	assert_null(find(&a.rs, "probe.cpu.gemm.known_answer"));
	r = find(&a.rs, "probe.cpu.atomic.runs");
	assert_int_equal(r->status, EP_PASS);
	assert_string_equal(r->message, "canary: identical in 5 runs");

	assert_string_equal(ep_manifest_get(a.facts, "probe.cpu.gemm.sha256"),
	    H_A);
	assert_string_equal(ep_manifest_get(a.facts, "probe.cpu.kat.sha256"),
	    H_K);
	assert_null(ep_manifest_get(a.facts, "probe.cpu.atomic.sha256"));
	assert_string_equal(ep_manifest_get(a.facts, "probe.cpu.domain"),
	    "x86_64 envparity-probe 1");
	assert_int_equal(ep_results_exit(&a.rs), EP_EXIT_OK);
	assert_int_equal(a.summary.n, 4);
	assert_string_equal(a.summary.v[0], "cpu    kat             pass  "
	    "identical in 5 runs; known answer exact in 5 runs; 2.00 ms mean");
	agg_clear(&a, &s);
}

static void
test_runs_2_and_4_differ(void **state)
{
	struct ep_probe_set s = { .backend = "cpu" };
	const char *gemm[] = { H_A, H_B, H_A, H_C, H_A };
	const struct ep_result *r;
	struct agg a;

	(void)state;
	for (int i = 0; i < 5; i++)
		add_output(&s, cpu_output(gemm[i], H_B, "true"));
	agg_run(&a, &s, 0);

	r = find(&a.rs, "probe.cpu.gemm.runs");
	assert_non_null(r);
	assert_int_equal(r->status, EP_FAIL);
	assert_string_equal(r->message,
	    "runs 2 and 4 differ from run 1 (3 distinct outputs)");
	assert_string_equal(r->expected, H_A);
	assert_string_equal(r->actual, H_B);
	assert_null(ep_manifest_get(a.facts, "probe.cpu.gemm.sha256"));
	assert_non_null(ep_manifest_get(a.facts, "probe.cpu.reduce.sha256"));
	assert_int_equal(ep_results_exit(&a.rs), EP_EXIT_DRIFT);
	agg_clear(&a, &s);
}

static void
test_one_run_differs(void **state)
{
	struct ep_probe_set s = { .backend = "cpu" };
	const struct ep_result *r;
	struct agg a;

	(void)state;
	add_output(&s, cpu_output(H_A, H_B, "true"));
	add_output(&s, cpu_output(H_A, H_B, "true"));
	add_output(&s, cpu_output(H_C, H_B, "true"));
	agg_run(&a, &s, 0);
	r = find(&a.rs, "probe.cpu.gemm.runs");
	assert_string_equal(r->message,
	    "run 3 differs from run 1 (2 distinct outputs)");
	agg_clear(&a, &s);
}

static void
test_canary_varies(void **state)
{
	struct ep_probe_set s = { .backend = "cpu" };
	const char *atomic[] = { H_A, H_B, H_C, H_K, H_A };
	const struct ep_result *r;
	struct agg a;

	(void)state;
	for (int i = 0; i < 5; i++)
		add_output(&s, cpu_output(H_A, atomic[i], "true"));
	agg_run(&a, &s, 0);
	r = find(&a.rs, "probe.cpu.atomic.runs");
	assert_non_null(r);
	assert_int_equal(r->status, EP_PASS);
	assert_string_equal(r->rule, "probe:canary");
	assert_string_equal(r->message, "canary: varied across runs (4 "
	    "distinct outputs): the check can see non-determinism");
	assert_null(ep_manifest_get(a.facts, "probe.cpu.atomic.sha256"));
	assert_int_equal(ep_results_exit(&a.rs), EP_EXIT_OK);
	agg_clear(&a, &s);
}

static void
test_known_answer_false(void **state)
{
	struct ep_probe_set s = { .backend = "cpu" };
	const struct ep_result *r;
	struct agg a;

	(void)state;
	add_output(&s, cpu_output(H_A, H_B, "true"));
	add_output(&s, cpu_output(H_A, H_B, "true"));
	add_output(&s, cpu_output(H_A, H_B, "false"));
	agg_run(&a, &s, 0);
	r = find(&a.rs, "probe.cpu.kat.known_answer");
	assert_non_null(r);
	assert_int_equal(r->status, EP_FAIL);
	assert_string_equal(r->message, "known answer wrong in run 3");
	assert_int_equal(ep_results_exit(&a.rs), EP_EXIT_DRIFT);
	agg_clear(&a, &s);
}

static char *
skipped(const char *backend, const char *reason)
{
	const char *const *w = ep_probe_workloads(backend);
	char *all = xstrdup(""), *l, *t;

	for (size_t i = 0; w[i] != NULL; i++) {
		l = line(backend, w[i], "skip", reason, NULL, "null", 0,
		    "null", "{}");
		t = xasprintf("%s%s", all, l);
		free(all);
		free(l);
		all = t;
	}
	return all;
}

static void
test_skip(void **state)
{
	struct ep_probe_set s = { .backend = "cuda" };
	const struct ep_result *r;
	struct agg a;

	(void)state;
	add_output(&s, skipped("cuda", "no CUDA device"));
	assert_true(ep_probe_set_skipped(&s));
	agg_run(&a, &s, 0);
	assert_int_equal(a.rs.n, 1);
	r = find(&a.rs, "probe.cuda");
	assert_non_null(r);
	assert_int_equal(r->status, EP_SKIP);
	assert_string_equal(r->message, "no CUDA device");
	assert_int_equal(ep_results_exit(&a.rs), EP_EXIT_OK);
	assert_string_equal(a.summary.v[0],
	    "cuda   -               skip  no CUDA device");
	agg_clear(&a, &s);
}

static void
test_skip_require_gpu(void **state)
{
	struct ep_probe_set s = { .backend = "cudnn" };
	const struct ep_result *r;
	struct agg a;

	(void)state;
	add_output(&s, skipped("cudnn",
	    "no NVIDIA driver (libcuda.so.1 not found)"));
	agg_run(&a, &s, 1);
	r = find(&a.rs, "probe.cudnn");
	assert_non_null(r);
	assert_int_equal(r->status, EP_FAIL);
	assert_string_equal(r->message,
	    "--require-gpu: no NVIDIA driver (libcuda.so.1 not found)");
	assert_int_equal(ep_results_exit(&a.rs), EP_EXIT_DRIFT);
	agg_clear(&a, &s);
}

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
test_missing_workload(void **state)
{
	struct ep_probe_set s = { .backend = "cpu" };
	const struct ep_result *r;
	char *full = cpu_output(H_A, H_B, "true"), *cut;
	struct agg a;

	(void)state;
	/* Every run without its reduce line. */
	for (int i = 0; i < 2; i++) {
		char *p = strstr(full, "{\"schema\": \"envparity/probe@1\", "
		    "\"backend\": \"cpu\", \"workload\": \"reduce\"");
		char *e = strchr(p, '\n') + 1;

		cut = xasprintf("%.*s%s", (int)(p - full), full, e);
		add_output(&s, cut);
	}
	agg_run(&a, &s, 0);
	r = find(&a.rs, "probe.cpu.reduce.runs");
	assert_non_null(r);
	assert_int_equal(r->status, EP_ERROR);
	assert_string_equal(r->message,
	    "missing from the output of runs 1 and 2");
	assert_int_equal(find(&a.rs, "probe.cpu.gemm.runs")->status, EP_PASS);
	assert_int_equal(ep_results_exit(&a.rs), EP_EXIT_DRIFT);
	free(full);
	agg_clear(&a, &s);
}

static void
test_run_failures(void **state)
{
	struct ep_probe_set s = { .backend = "cpu" };
	struct ep_probe_run *run;
	const struct ep_result *r;
	struct agg a;

	(void)state;
	add_output(&s, cpu_output(H_A, H_B, "true"));
	run = ep_probe_set_add(&s);
	run->outcome = EP_PROBE_CRASHED;
	run->why = xstrdup("crashed (SIGSEGV)");
	run = ep_probe_set_add(&s);
	run->outcome = EP_PROBE_HUNG;
	run->why = xstrdup("hung, killed after 60 s");
	run = ep_probe_set_add(&s);
	run->outcome = EP_PROBE_GARBAGE;
	run->why = xstrdup("garbage output: x (not JSON)");
	add_output(&s, cpu_output(H_A, H_B, "true"));
	agg_run(&a, &s, 0);

	r = find(&a.rs, "probe.cpu.run2");
	assert_non_null(r);
	assert_int_equal(r->status, EP_FAIL);
	assert_string_equal(r->message, "run 2 of cpu: crashed (SIGSEGV)");
	r = find(&a.rs, "probe.cpu.run3");
	assert_int_equal(r->status, EP_FAIL);
	assert_string_equal(r->message,
	    "run 3 of cpu: hung, killed after 60 s");
	r = find(&a.rs, "probe.cpu.run4");
	assert_int_equal(r->status, EP_ERROR);
	assert_null(find(&a.rs, "probe.cpu.run1"));
	/* The runs that completed still say what they computed. */
	r = find(&a.rs, "probe.cpu.gemm.runs");
	assert_int_equal(r->status, EP_PASS);
	assert_string_equal(r->message, "identical in 2 runs (of 5)");
	assert_string_equal(ep_manifest_get(a.facts, "probe.cpu.gemm.sha256"),
	    H_A);
	assert_int_equal(ep_results_exit(&a.rs), EP_EXIT_DRIFT);
	agg_clear(&a, &s);
}

static void
test_workload_error(void **state)
{
	struct ep_probe_set s = { .backend = "cublas" };
	const char *libs = "{\"cublas\": \"13.1.0\"}";
	const struct ep_result *r;
	struct agg a;
	char *l1, *l2;

	(void)state;
	for (int i = 0; i < 2; i++) {
		l1 = line("cublas", "sgemm_pedantic", "ok", NULL, H_A, "null",
		    0, H100, libs);
		l2 = i == 0 ? line("cublas", "sgemm_default", "ok", NULL, H_B,
		    "null", 0, H100, libs) : line("cublas", "sgemm_default",
		    "error", "CUBLAS_STATUS_EXECUTION_FAILED (cublasSgemm)",
		    NULL, "null", 0, H100, libs);
		add_output(&s, xasprintf("%s%s", l1, l2));
		free(l1);
		free(l2);
	}
	agg_run(&a, &s, 0);
	r = find(&a.rs, "probe.cublas.sgemm_default.runs");
	assert_int_equal(r->status, EP_FAIL);
	assert_string_equal(r->message, "run 2 reported error: "
	    "CUBLAS_STATUS_EXECUTION_FAILED (cublasSgemm)");
	assert_int_equal(find(&a.rs, "probe.cublas.sgemm_pedantic.runs")->status,
	    EP_PASS);
	agg_clear(&a, &s);
}

static void
test_domain(void **state)
{
	struct ep_probe_set sets[3] = {
		{ .backend = "cpu" }, { .backend = "cublas" },
		{ .backend = "cudnn" },
	};
	struct ep_manifest *facts = ep_manifest_new();
	char *l1, *l2;

	(void)state;
	add_output(&sets[0], cpu_output(H_A, H_B, "true"));
	l1 = line("cublas", "sgemm_pedantic", "ok", NULL, H_A, "null", 0, H100,
	    "{\"cublas\": \"13.1.0\", \"cublas_path\": \"/x\"}");
	l2 = line("cublas", "sgemm_default", "ok", NULL, H_B, "null", 0, H100,
	    "{\"cublas\": \"13.1.0\"}");
	add_output(&sets[1], xasprintf("%s%s", l1, l2));
	free(l1);
	free(l2);
	add_output(&sets[2], line("cudnn", "conv_fwd", "ok", NULL, H_C, "null",
	    0, H100, "{\"cudnn\": \"9.19.0\"}"));

	ep_probe_domain(facts, sets, 3);
	assert_string_equal(ep_manifest_get(facts, "probe.domain"),
	    "NVIDIA H100 80GB HBM3 cc 9.0 132 SMs driver 580.159.04 cuda 13.0 "
	    "cublas 13.1.0 cudnn 9.19.0 envparity-probe 1");
	ep_manifest_free(facts);

	/* Without the cudnn backend, its part is left out. */
	facts = ep_manifest_new();
	ep_probe_domain(facts, sets, 2);
	assert_string_equal(ep_manifest_get(facts, "probe.domain"),
	    "NVIDIA H100 80GB HBM3 cc 9.0 132 SMs driver 580.159.04 cuda 13.0 "
	    "cublas 13.1.0 envparity-probe 1");
	ep_manifest_free(facts);

	/* No GPU backend found a device: no domain at all. */
	facts = ep_manifest_new();
	ep_probe_domain(facts, sets, 1);
	assert_null(ep_manifest_get(facts, "probe.domain"));
	ep_manifest_free(facts);
	for (int i = 0; i < 3; i++)
		ep_probe_set_clear(&sets[i]);
}

static void
test_domain_skipped(void **state)
{
	struct ep_probe_set s = { .backend = "cuda" };
	struct ep_manifest *facts = ep_manifest_new();

	(void)state;
	add_output(&s, skipped("cuda", "stub libcuda (cuInit: "
	    "CUDA_ERROR_STUB_LIBRARY)"));
	ep_probe_domain(facts, &s, 1);
	assert_null(ep_manifest_get(facts, "probe.domain"));
	ep_manifest_free(facts);
	ep_probe_set_clear(&s);
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
		cmocka_unit_test(test_identical_runs),
		cmocka_unit_test(test_runs_2_and_4_differ),
		cmocka_unit_test(test_one_run_differs),
		cmocka_unit_test(test_canary_varies),
		cmocka_unit_test(test_known_answer_false),
		cmocka_unit_test(test_skip),
		cmocka_unit_test(test_skip_require_gpu),
		cmocka_unit_test(test_garbage_line),
		cmocka_unit_test(test_garbage_after_good_lines),
		cmocka_unit_test(test_long_garbage_truncated),
		cmocka_unit_test(test_unknown_schema),
		cmocka_unit_test(test_contract_violations),
		cmocka_unit_test(test_workload_twice),
		cmocka_unit_test(test_missing_workload),
		cmocka_unit_test(test_run_failures),
		cmocka_unit_test(test_workload_error),
		cmocka_unit_test(test_domain),
		cmocka_unit_test(test_domain_skipped),
		cmocka_unit_test(test_printable),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
