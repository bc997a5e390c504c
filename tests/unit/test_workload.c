/*
 * test_workload.c: a team's own reference run (workload.h): reading
 * --workload NAME=COMMAND, runs into results and facts (identical,
 * distinct, failed, none), the determinism domain from a capture's
 * facts, and real runs of /bin/sh commands: standard output, the output
 * file, a crash, an empty output, 64 MiB and more, an output that is a
 * link (never followed), and the environment a run sees.  The hang is
 * workload.bats's (it costs its deadline).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "policy.h"
#include "probeopt.h"
#include "workload.h"
#include "xalloc.h"
#include "resultsfixture.h"

static void
test_parse(void **state)
{
	struct ep_workload w;
	struct ep_err err = { 0 };
	char longname[EP_WORKLOAD_NAME_MAX + 8];

	(void)state;
	assert_int_equal(ep_workload_parse(&w, "model=python3 m.py --x=1",
	    &err), 0);
	assert_string_equal(w.name, "model");
	assert_string_equal(w.command, "python3 m.py --x=1");
	ep_workload_clear(&w);
	assert_int_equal(ep_workload_parse(&w, "a-b_9=:", &err), 0);
	ep_workload_clear(&w);

	assert_int_equal(ep_workload_parse(&w, "python3 m.py", &err), -1);
	assert_int_equal(err.kind, EP_E_INPUT);
	assert_non_null(strstr(err.msg, "expected NAME=COMMAND"));
	assert_int_equal(ep_workload_parse(&w, "=echo", &err), -1);
	assert_non_null(strstr(err.msg, "1 to 64 characters"));
	assert_int_equal(ep_workload_parse(&w, "a.b=echo", &err), -1);
	assert_non_null(strstr(err.msg, "only letters, digits"));
	assert_int_equal(ep_workload_parse(&w, "m=", &err), -1);
	assert_string_equal(err.msg, "--workload m: the command after '=' "
	    "is empty");
	memset(longname, 'n', sizeof longname);
	strcpy(longname + EP_WORKLOAD_NAME_MAX + 1, "=x");
	assert_int_equal(ep_workload_parse(&w, longname, &err), -1);
	longname[EP_WORKLOAD_NAME_MAX] = '=';
	longname[EP_WORKLOAD_NAME_MAX + 1] = 'x';
	longname[EP_WORKLOAD_NAME_MAX + 2] = '\0';
	assert_int_equal(ep_workload_parse(&w, longname, &err), 0);
	ep_workload_clear(&w);
}

/* A set of n runs whose hashes are h[i] ("" for a run that failed with
 * why "crashed (x)"). */
static void
set_of(struct ep_workload_set *s, const char *name, const char *const *h,
    size_t n)
{
	s->name = name;
	s->n = n;
	s->runs = xcalloc(n, sizeof *s->runs);
	for (size_t i = 0; i < n; i++) {
		s->runs[i].seconds = 0.25 * (double)(i + 1);
		if (*h[i] == '\0') {
			s->runs[i].outcome = EP_WORKLOAD_CRASHED;
			s->runs[i].why = xstrdup("crashed (x)");
		} else
			strcpy(s->runs[i].sha256, h[i]);
	}
}

static void
test_aggregate(void **state)
{
	static const char *const same[] = { "aaaa", "aaaa", "", "aaaa" };
	static const char *const three[] = { "aaaa", "bbbb", "aaaa", "cccc",
	    "bbbb" };
	static const char *const none[] = { "", "" };
	struct ep_results rs = { 0 };
	struct ep_manifest *m = ep_manifest_new();
	struct ep_workload_set s;
	const struct ep_result *r;
	json_t *secs;

	(void)state;
	set_of(&s, "same", same, 4);
	ep_workload_aggregate(&rs, m, &s);
	ep_workload_set_clear(&s);
	r = get(&rs, "workload.same");
	assert_int_equal(r->status, EP_PASS);
	assert_string_equal(r->message, "workload same: identical output in "
	    "3 runs that gave one (sha256 aaaa)");
	r = get(&rs, "workload.same.run3");
	assert_int_equal(r->status, EP_FAIL);
	assert_string_equal(r->message, "workload same: run 3 of 4: "
	    "crashed (x)");
	assert_string_equal(ep_manifest_get(m, "workload.same.sha256"),
	    "aaaa");
	assert_string_equal(ep_manifest_get(m, "workload.same.runs"),
	    "identical");
	secs = json_object_get(json_object_get(json_object_get(m->meta,
	    "workload"), "same"), "seconds");
	assert_int_equal(json_array_size(secs), 4);
	assert_true(json_real_value(json_array_get(secs, 3)) == 1.0);

	set_of(&s, "three", three, 5);
	ep_workload_aggregate(&rs, m, &s);
	ep_workload_set_clear(&s);
	r = get(&rs, "workload.three");
	assert_int_equal(r->status, EP_FAIL);
	assert_string_equal(r->message, "workload three: 3 distinct outputs "
	    "in 5 runs: aaaa in runs 1,3; bbbb in runs 2,5; cccc in run 4");
	assert_null(ep_manifest_get(m, "workload.three.sha256"));
	assert_string_equal(ep_manifest_get(m, "workload.three.runs"),
	    "3 distinct");

	set_of(&s, "none", none, 2);
	ep_workload_aggregate(&rs, m, &s);
	ep_workload_set_clear(&s);
	r = get(&rs, "workload.none");
	assert_int_equal(r->status, EP_FAIL);
	assert_string_equal(r->message, "workload none: no run of 2 gave an "
	    "output");
	assert_string_equal(ep_manifest_get(m, "workload.none.runs"),
	    "no output");
	/* The times are meta, never a fact compared. */
	assert_null(ep_manifest_get(m, "workload.same.seconds"));
	ep_results_clear(&rs);
	ep_manifest_free(m);
}

static void
test_domain(void **state)
{
	struct ep_manifest *m = ep_manifest_new();
	struct ep_err err = { 0 };

	(void)state;
	ep_workload_domain(m);
	assert_string_equal(ep_manifest_get(m, "workload.domain"), "cpu");
	ep_manifest_set(m, "gpu.0.name", "NVIDIA H100 80GB HBM3");
	ep_manifest_set(m, "gpu.0.cc", "9.0");
	ep_manifest_set(m, "gpu.driver.version", "580.65.06");
	ep_manifest_set(m, "lib.cudnn.version", "9.19.0");
	ep_manifest_set(m, "framework.torch.version", "2.11.0+cu130");
	ep_manifest_set(m, "cpu.isa", "avx2 fma");
	/* Settings are drift of their own, not a domain. */
	ep_manifest_set(m, "env.OMP_NUM_THREADS", "4");
	ep_manifest_set(m, "gpu.1.name", "NVIDIA A100");
	ep_workload_domain(m);
	assert_string_equal(ep_manifest_get(m, "workload.domain"),
	    "NVIDIA H100 80GB HBM3 cc 9.0 driver 580.65.06 cudnn 9.19.0 "
	    "torch 2.11.0+cu130 cpu avx2 fma");
	ep_manifest_free(m);

	/* A real capture on an H100 (tests/fixtures/gpu/h100). */
	if (ep_manifest_load(&m, "tests/fixtures/gpu/h100/capture.json",
	    &err) < 0)
		fail_msg("%s", err.msg);
	ep_workload_domain(m);
	assert_string_equal(ep_manifest_get(m, "workload.domain"),
	    "NVIDIA H100 80GB HBM3 cc 9.0 mig disabled driver 580.159.04 "
	    "cuda 13.0 cudart 13.0.96 cublas 13.1.0 cublaslt 13.1.0 "
	    "cudnn 9.19.0 cpu amx_bf16 amx_int8 amx_tile avx avx2 "
	    "avx512_bf16 avx512_bitalg avx512_fp16 avx512_vbmi2 avx512_vnni "
	    "avx512_vpopcntdq avx512bw avx512cd avx512dq avx512f avx512ifma "
	    "avx512vbmi avx512vl avx_vnni f16c fma sse sse2 sse4_1 sse4_2 "
	    "ssse3");
	ep_manifest_free(m);
}

/* Run one workload of command n times; results and facts out. */
static void
run(struct ep_results *rs, struct ep_manifest **m, const char *name,
    const char *command, unsigned n)
{
	struct ep_workload w = { xstrdup(name), xstrdup(command) };
	struct ep_err err = { 0 };

	*m = ep_manifest_new();
	if (ep_workload_run_all(rs, *m, &w, 1, n, 30, &err) < 0)
		fail_msg("%s", err.msg);
	ep_workload_clear(&w);
}

static void
test_run_outputs(void **state)
{
	struct ep_results rs = { 0 };
	struct ep_manifest *m;
	const struct ep_result *r;

	(void)state;
	/* Standard output, hashed: sha256("hello\n"). */
	run(&rs, &m, "out", "echo hello", 2);
	assert_string_equal(ep_manifest_get(m, "workload.out.sha256"),
	    "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03");
	assert_non_null(ep_manifest_get(m, "workload.domain"));
	ep_manifest_free(m);
	/* The file named by the variable wins over standard output:
	 * sha256("abc"). */
	run(&rs, &m, "file", "echo noise; printf abc > \"$"
	    EP_WORKLOAD_OUTPUT_VAR "\"", 1);
	assert_string_equal(ep_manifest_get(m, "workload.file.sha256"),
	    "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	ep_manifest_free(m);
	/* Each run knows its number, and differs by it. */
	run(&rs, &m, "num", "echo \"$" EP_WORKLOAD_RUN_VAR "\"", 3);
	r = get(&rs, "workload.num");
	assert_int_equal(r->status, EP_FAIL);
	assert_non_null(strstr(r->message, "3 distinct outputs in 3 runs"));
	ep_manifest_free(m);
	ep_results_clear(&rs);
}

static void
test_run_failures(void **state)
{
	struct ep_results rs = { 0 };
	struct ep_manifest *m;
	const struct ep_result *r;

	(void)state;
	run(&rs, &m, "crash", "echo partial; echo dying >&2; kill -SEGV $$",
	    1);
	r = get(&rs, "workload.crash.run1");
	assert_int_equal(r->status, EP_FAIL);
	assert_string_equal(r->message, "workload crash: run 1 of 1: crashed "
	    "(signal 11, Segmentation fault); stderr: dying");
	ep_manifest_free(m);
	run(&rs, &m, "exit", "exit 3", 1);
	assert_non_null(strstr(get(&rs, "workload.exit.run1")->message,
	    "exited with status 3"));
	ep_manifest_free(m);
	run(&rs, &m, "empty", "true", 1);
	assert_string_equal(get(&rs, "workload.empty.run1")->message,
	    "workload empty: run 1 of 1: printed nothing (no "
	    "$ENVPARITY_WORKLOAD_OUTPUT file, nothing on standard output)");
	ep_manifest_free(m);
	run(&rs, &m, "emptyfile", ": > \"$" EP_WORKLOAD_OUTPUT_VAR "\"; "
	    "echo stdout-ignored", 1);
	assert_string_equal(get(&rs, "workload.emptyfile.run1")->message,
	    "workload emptyfile: run 1 of 1: printed nothing "
	    "($ENVPARITY_WORKLOAD_OUTPUT is empty)");
	ep_manifest_free(m);
	/* 1 GB asked for: stopped at the limit by the kernel. */
	run(&rs, &m, "big", "head -c 1000000000 /dev/zero", 1);
	r = get(&rs, "workload.big.run1");
	assert_int_equal(r->status, EP_FAIL);
	assert_string_equal(r->message, "workload big: run 1 of 1: wrote "
	    "more than 64 MiB (the limit of an output; stopped there)");
	ep_manifest_free(m);
	/* A link is never followed: an error, not the hash of what it
	 * names. */
	run(&rs, &m, "link", "ln -s /etc/hostname \"$"
	    EP_WORKLOAD_OUTPUT_VAR "\"", 1);
	r = get(&rs, "workload.link.run1");
	assert_int_equal(r->status, EP_ERROR);
	assert_non_null(strstr(r->message, "is not a regular file"));
	assert_null(ep_manifest_get(m, "workload.link.sha256"));
	ep_manifest_free(m);
	ep_results_clear(&rs);
}

/* A run gets no credential of ours. */
static void
test_run_environment(void **state)
{
	struct ep_results rs = { 0 };
	struct ep_manifest *m;

	(void)state;
	setenv("ENVPARITY_GIT_TOKEN", "s3cret", 1);
	setenv("OMP_NUM_THREADS", "3", 1);
	run(&rs, &m, "env", "printf '%s/%s' \"${ENVPARITY_GIT_TOKEN:-none}\" "
	    "\"$OMP_NUM_THREADS\" > \"$" EP_WORKLOAD_OUTPUT_VAR "\"", 1);
	/* sha256("none/3") */
	assert_int_equal(get(&rs, "workload.env")->status, EP_PASS);
	assert_string_equal(get(&rs, "workload.env")->actual,
	    "0e60f325e2d369a4f68942bfd84b906b17acabf86b1cb369e27566c383b0e859");
	unsetenv("ENVPARITY_GIT_TOKEN");
	unsetenv("OMP_NUM_THREADS");
	ep_manifest_free(m);
	ep_results_clear(&rs);
}

/* A profile's workloads: the nearest policy file's NAME wins; check adds
 * them to --workload's (which win), and runs none from the implicit
 * store. */
static void
test_policy(void **state)
{
	static const char near[] = "{\"schema\": \"envparity/policy@1\", "
	    "\"workloads\": {\"model\": \"python3 near.py\"}}";
	static const char far[] = "{\"schema\": \"envparity/policy@1\", "
	    "\"workloads\": {\"model\": \"python3 far.py\", "
	    "\"smoke\": \"echo ok\"}}";
	const struct ep_policy_layer l[] = {
		{ near, sizeof near - 1, "train/h100/policy.json", NULL,
		    EP_SCOPE_PROFILE },
		{ far, sizeof far - 1, "policy.json", NULL, EP_SCOPE_SHARED },
	};
	struct ep_policy *p;
	struct ep_err err = { 0 };
	struct ep_probeopt o;
	struct ep_results rs = { 0 };
	const struct ep_strv *w;
	char *text;

	(void)state;
	if (ep_policy_parse_layers(&p, l, 2, &err) < 0)
		fail_msg("%s", err.msg);
	w = ep_policy_workloads(p);
	assert_int_equal(w->n, 2);
	assert_string_equal(w->v[0], "model=python3 near.py");
	assert_string_equal(w->v[1], "smoke=echo ok");
	/* `envparity policy --json` shows them. */
	if (ep_policy_json(&text, p, 0, NULL, &err) < 0)
		fail_msg("%s", err.msg);
	assert_non_null(strstr(text, "\"workloads\": {\n    \"model\": "
	    "\"python3 near.py\",\n    \"smoke\": \"echo ok\"\n  }"));
	free(text);

	ep_probeopt_init(&o, 0);
	ep_strv_push(&o.workloads, "smoke=echo given");
	ep_probeopt_policy(&o, &rs, p, 1);
	assert_int_equal(o.workloads.n, 2);
	assert_string_equal(o.workloads.v[0], "smoke=echo given");
	assert_string_equal(o.workloads.v[1], "model=python3 near.py");
	assert_int_equal(rs.n, 0);
	ep_probeopt_clear(&o);

	ep_probeopt_init(&o, 0);
	ep_probeopt_policy(&o, &rs, p, 0);
	assert_int_equal(o.workloads.n, 0);
	assert_int_equal(rs.n, 2);
	assert_string_equal(rs.v[0].key, "workload.model");
	assert_int_equal(rs.v[0].status, EP_SKIP);
	assert_non_null(strstr(rs.v[0].message, "workload model (the "
	    "policy's): not run: the implicit store"));
	ep_probeopt_clear(&o);
	ep_results_clear(&rs);
	ep_policy_free(p);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_aggregate),
		cmocka_unit_test(test_domain),
		cmocka_unit_test(test_run_outputs),
		cmocka_unit_test(test_run_failures),
		cmocka_unit_test(test_run_environment),
		cmocka_unit_test(test_policy),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
