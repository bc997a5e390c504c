/*
 * test_probe_runner.c: the pure half of the probe runner (probe.c): how N
 * runs become results, facts and summary lines.  Runs are made from
 * canned output text (probefixture.h), as the runner would have read it
 * from the probe's standard output.  What a contract line is:
 * test_contract_line.c.
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
		cmocka_unit_test(test_missing_workload),
		cmocka_unit_test(test_run_failures),
		cmocka_unit_test(test_workload_error),
		cmocka_unit_test(test_domain),
		cmocka_unit_test(test_domain_skipped),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
