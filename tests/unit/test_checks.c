/*
 * test_checks.c: the checks that need no golden, on the real H100
 * capture (tests/fixtures/gpu/h100), on a capture of this machine (no
 * GPU: the driver checks are skips with the reason), and on manifests
 * whose driver facts are written by hand: a stand-in for the GPU hosts
 * this machine is not, at each boundary of NVIDIA's driver table.  The
 * stack.requires.* checks (core/checks_req.c) are in test_checks_req.c,
 * the stack.framework.* ones in test_checks_fw.c and
 * test_checks_fw_libs.c.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "checksfixture.h"
#include "results.h"
#include "dynload.h"
#include "testutil.h"
#include "errors.h"
#include "str.h"
#include "xalloc.h"

#define H100	"tests/fixtures/gpu/h100/capture.json"
#define EXAMPLE	"manifests/examples/default/policy.json"


static struct ep_manifest *
h100(void)
{
	struct ep_manifest *m;
	struct ep_err err = { 0 };

	if (ep_manifest_load(&m, H100, &err) < 0)
		fail_msg("%s", err.msg);
	return m;
}

static void
test_h100(void **state)
{
	struct ep_manifest *m = h100();
	struct ep_results rs = { 0 };
	const struct ep_result *r;

	(void)state;
	run(&rs, m, NULL);
	for (size_t i = 0; i < rs.n; i++) {
		assert_string_equal(rs.v[i].area, "stack");
		assert_true(ep_startswith(rs.v[i].key, "stack."));
	}
	r = get(&rs, "stack.driver_min");
	assert_int_equal(r->status, EP_PASS);
	assert_string_equal(r->expected, ">=580");
	assert_string_equal(r->actual, "580.159.04");
	assert_string_equal(r->rule, "check:driver-min");
	assert_string_equal(r->message, "stack.driver_min: driver 580.159.04 "
	    "meets CUDA 13.0.96's minimum 580");
	assert_int_equal(status(&rs, "stack.cuda_driver"), EP_PASS);
	assert_int_equal(status(&rs, "stack.cudart.cublas"), EP_PASS);
	assert_int_equal(status(&rs, "stack.cudart.cublaslt"), EP_PASS);
	/* cuDNN 9.19 (and its graph sub-library) were built for cudart
	 * 13.1; the runtime is 13.0.96: a mix NVIDIA supports, so a warning
	 * that never fails the run (and that a waiver can still accept). */
	r = get(&rs, "stack.cudart_minor.cudnn");
	assert_int_equal(r->status, EP_WARN);
	assert_string_equal(r->expected, "13.1");
	assert_string_equal(r->actual, "13.0.96");
	assert_string_equal(r->message, "stack.cudart_minor.cudnn: cudnn was "
	    "built for CUDA 13.1, a newer minor release than the runtime "
	    "13.0.96 it runs with: supported within CUDA 13.x (NVIDIA's "
	    "cuDNN support matrix lists such builds for every 13.x "
	    "toolkit), but not the pair NVIDIA tuned it for");
	assert_int_equal(status(&rs, "stack.cudart_minor.cudnn_graph"),
	    EP_WARN);
	assert_null(find(&rs, "stack.cudart.cudnn"));
	r = get(&rs, "stack.cudnn_sublibs");
	assert_int_equal(r->status, EP_PASS);
	assert_string_equal(r->message, "stack.cudnn_sublibs: cuDNN 9.19.0: 3 "
	    "sub-library versions the same, 4 version checks ok");
	assert_int_equal(status(&rs, "stack.determinism.tf_autotune"),
	    EP_SKIP);
	assert_int_equal(status(&rs, "stack.determinism.cublas_workspace"),
	    EP_SKIP);
	/* Captured before requirements were recorded. */
	r = get(&rs, "stack.requires");
	assert_int_equal(r->status, EP_SKIP);
	assert_non_null(strstr(r->message, "records no requirements"));
	/* Captured before GPU health was recorded (meta.gpu): its one GPU
	 * is not checked, saying why; XID errors never are. */
	r = get(&rs, "stack.gpu.0");
	assert_int_equal(r->status, EP_SKIP);
	assert_string_equal(r->message, "stack.gpu.0: GPU 0 (NVIDIA H100 "
	    "80GB HBM3): not checked: this capture has no health for it "
	    "(meta.gpu.0)");
	assert_int_equal(status(&rs, "stack.gpu.xid"), EP_SKIP);
	assert_int_equal(rs.n, 12);
	/* What NVIDIA supports warns; the H100 host has parity. */
	assert_int_equal(ep_results_exit(&rs), EP_EXIT_OK);
	ep_results_clear(&rs);
	ep_manifest_free(m);
}

static void
test_h100_waived_by_example_policy(void **state)
{
	struct ep_manifest *m = h100();
	struct ep_policy *p;
	struct ep_results rs = { 0 };
	struct ep_err err = { 0 };
	const struct ep_result *r;

	(void)state;
	if (ep_policy_load(&p, EXAMPLE, &err) < 0)
		fail_msg("%s", err.msg);
	run(&rs, m, p);
	r = get(&rs, "stack.cudart_minor.cudnn");
	assert_int_equal(r->status, EP_WAIVED);
	assert_string_equal(r->waiver_owner, "ml-platform@example.com");
	assert_string_equal(r->waiver_expires, "2027-03-31");
	assert_int_equal(status(&rs, "stack.cudart_minor.cudnn_graph"),
	    EP_WAIVED);
	assert_int_equal(ep_results_exit(&rs), EP_EXIT_OK);
	ep_results_clear(&rs);
	ep_policy_free(p);
	ep_manifest_free(m);
}

/* A manifest with a CUDA runtime and, unless NULL, a driver. */
static struct ep_manifest *
stack(const char *cudart, const char *driver, const char *cuda_driver)
{
	struct ep_manifest *m = ep_manifest_new();

	if (cudart != NULL)
		ep_manifest_set(m, "lib.cudart.version", cudart);
	if (driver != NULL)
		ep_manifest_set(m, "gpu.driver.version", driver);
	if (cuda_driver != NULL)
		ep_manifest_set(m, "gpu.cuda_driver.version", cuda_driver);
	return m;
}

static int
driver_check(const char *cudart, const char *driver)
{
	struct ep_manifest *m = stack(cudart, driver, NULL);
	struct ep_results rs = { 0 };
	int s;

	run(&rs, m, NULL);
	s = status(&rs, "stack.driver_min");
	ep_results_clear(&rs);
	ep_manifest_free(m);
	return s;
}

static void
test_driver_table(void **state)
{
	(void)state;
	assert_int_equal(driver_check("13.0.96", "580"), EP_PASS);
	assert_int_equal(driver_check("13.0.96", "580.65.06"), EP_PASS);
	assert_int_equal(driver_check("13.1.80", "590.44.01"), EP_PASS);
	assert_int_equal(driver_check("13.0.96", "579.99.99"), EP_FAIL);
	assert_int_equal(driver_check("13.0.96", "575.57.08"), EP_FAIL);
	assert_int_equal(driver_check("12.4.127", "525.60.13"), EP_PASS);
	assert_int_equal(driver_check("12.4.127", "525.60.12"), EP_FAIL);
	assert_int_equal(driver_check("12.0", "525.85.12"), EP_PASS);
	assert_int_equal(driver_check("11.8.89", "450.80.02"), EP_PASS);
	assert_int_equal(driver_check("11.8.89", "450.80.01"), EP_FAIL);
	assert_int_equal(driver_check("11.8.89", "418.67"), EP_FAIL);
	assert_int_equal(driver_check("10.2.89", "440.33"), EP_SKIP);
}

static void
test_driver_messages(void **state)
{
	struct ep_manifest *m = stack("13.0.96", "575.57.08", NULL);
	struct ep_results rs = { 0 };

	(void)state;
	run(&rs, m, NULL);
	assert_string_equal(get(&rs, "stack.driver_min")->message,
	    "stack.driver_min: driver 575.57.08 is older than 580, the "
	    "minimum for CUDA 13.x (runtime 13.0.96)");
	assert_string_equal(get(&rs, "stack.cuda_driver")->message,
	    "stack.cuda_driver: no gpu.cuda_driver.version in this capture");
	ep_manifest_free(m);

	/* No driver: a skip that gives the capture's reason. */
	m = stack("13.0.96", NULL, NULL);
	ep_manifest_unavailable(m, "gpu", "libnvidia-ml.so.1 not found");
	run(&rs, m, NULL);
	assert_int_equal(status(&rs, "stack.driver_min"), EP_SKIP);
	assert_string_equal(get(&rs, "stack.driver_min")->message,
	    "stack.driver_min: not checked here: libnvidia-ml.so.1 not found");
	assert_string_equal(get(&rs, "stack.driver_min")->expected, ">=580");
	assert_int_equal(status(&rs, "stack.cuda_driver"), EP_SKIP);
	ep_manifest_free(m);

	/* No CUDA runtime at all. */
	m = stack(NULL, "580.159.04", "13.0");
	run(&rs, m, NULL);
	assert_int_equal(status(&rs, "stack.driver_min"), EP_SKIP);
	assert_string_equal(get(&rs, "stack.driver_min")->message,
	    "stack.driver_min: no lib.cudart.version in this capture");
	assert_int_equal(status(&rs, "stack.cuda_driver"), EP_SKIP);
	assert_int_equal(status(&rs, "stack.cudnn_sublibs"), EP_SKIP);
	ep_manifest_free(m);

	/* A runtime or a driver that reports garbage: the check could
	 * not run. */
	m = stack("thirteen", "580.159.04", "13.0");
	ep_manifest_set(m, "lib.cudnn.cudart", "13.1");
	run(&rs, m, NULL);
	assert_int_equal(status(&rs, "stack.driver_min"), EP_ERROR);
	assert_string_equal(get(&rs, "stack.driver_min")->message,
	    "stack.driver_min: lib.cudart.version \"thirteen\" is not a "
	    "version");
	assert_int_equal(status(&rs, "stack.cudart.cudnn"), EP_SKIP);
	ep_manifest_free(m);
	m = stack("13.0.96", "N/A", "13.0");
	run(&rs, m, NULL);
	assert_int_equal(status(&rs, "stack.driver_min"), EP_ERROR);
	assert_int_equal(status(&rs, "stack.cuda_driver"), EP_PASS);
	ep_results_clear(&rs);
	ep_manifest_free(m);
}

static int
cuda_driver_check(const char *cudart, const char *cuda_driver)
{
	struct ep_manifest *m = stack(cudart, "580.159.04", cuda_driver);
	struct ep_results rs = { 0 };
	int s;

	run(&rs, m, NULL);
	s = status(&rs, "stack.cuda_driver");
	ep_results_clear(&rs);
	ep_manifest_free(m);
	return s;
}

static void
test_cuda_driver(void **state)
{
	struct ep_manifest *m;
	struct ep_results rs = { 0 };

	(void)state;
	assert_int_equal(cuda_driver_check("13.0.96", "13.0"), EP_PASS);
	assert_int_equal(cuda_driver_check("13.0.96", "13.1"), EP_PASS);
	assert_int_equal(cuda_driver_check("12.8.90", "13.0"), EP_PASS);
	assert_int_equal(cuda_driver_check("13.0.96", "12.8"), EP_FAIL);
	/* A newer minor runtime than the driver: minor-version
	 * compatibility, a warning; a newer major: a failure. */
	assert_int_equal(cuda_driver_check("13.1.80", "13.0"), EP_WARN);
	assert_int_equal(cuda_driver_check("13.0.96", "n/a"), EP_ERROR);
	m = stack("13.1.80", "580.159.04", "13.0");
	run(&rs, m, NULL);
	assert_string_equal(get(&rs, "stack.cuda_driver")->message,
	    "stack.cuda_driver: CUDA runtime 13.1.80 is a newer minor release "
	    "than the driver's CUDA 13.0: it runs under CUDA's minor-version "
	    "compatibility, but cannot JIT-compile PTX newer than the "
	    "driver");
	ep_results_clear(&rs);
	ep_manifest_free(m);
}

static void
test_lib_cudart(void **state)
{
	struct ep_manifest *m = stack("13.0.96", "580.159.04", "13.0");
	struct ep_results rs = { 0 };

	(void)state;
	ep_manifest_set(m, "lib.cublas.cudart", "13.0");
	ep_manifest_set(m, "lib.cublaslt.cudart", "12.8");
	ep_manifest_set(m, "lib.cudnn.cudart", "14.0");
	ep_manifest_set(m, "lib.nccl.cudart", "13.2");
	ep_manifest_set(m, "lib.nvrtc.cudart", "new");
	run(&rs, m, NULL);
	assert_int_equal(status(&rs, "stack.cudart.cublas"), EP_PASS);
	assert_int_equal(status(&rs, "stack.cudart.cublaslt"), EP_FAIL);
	assert_string_equal(get(&rs, "stack.cudart.cublaslt")->message,
	    "stack.cudart.cublaslt: cublaslt was built for CUDA 12.8, a "
	    "different major release than the runtime 13.0.96");
	assert_int_equal(status(&rs, "stack.cudart.cudnn"), EP_FAIL);
	assert_int_equal(status(&rs, "stack.cudart_minor.nccl"), EP_WARN);
	assert_null(find(&rs, "stack.cudart.nccl"));
	assert_int_equal(status(&rs, "stack.cudart.nvrtc"), EP_FAIL);
	ep_manifest_free(m);

	/* No runtime to hold them against. */
	m = stack(NULL, NULL, NULL);
	ep_manifest_set(m, "lib.cudnn.cudart", "13.1");
	ep_manifest_unavailable(m, "lib", "no CUDA libraries found");
	run(&rs, m, NULL);
	assert_int_equal(status(&rs, "stack.cudart.cudnn"), EP_SKIP);
	assert_string_equal(get(&rs, "stack.cudart.cudnn")->message,
	    "stack.cudart.cudnn: not checked here: no CUDA libraries found");
	ep_results_clear(&rs);
	ep_manifest_free(m);
}

static void
test_cudnn_sublibs(void **state)
{
	static const char waive_all[] = "{\"schema\": \"envparity/policy@1\", "
	    "\"waivers\": [{\"key\": \"stack.cud*\", \"reason\": \"r\", "
	    "\"owner\": \"o\", \"expires\": \"2099-01-01\"}]}";
	struct ep_manifest *m = h100();
	struct ep_policy *p;
	struct ep_results rs = { 0 };
	struct ep_err err = { 0 };
	const struct ep_result *r;

	(void)state;
	ep_manifest_set(m, "lib.cudnn_ops.version", "9.18.0");
	run(&rs, m, NULL);
	r = get(&rs, "stack.cudnn_sublibs");
	assert_int_equal(r->status, EP_FAIL);
	assert_string_equal(r->expected, "9.19.0");
	assert_string_equal(r->actual, "cudnn_ops 9.18.0");
	assert_string_equal(r->message, "stack.cudnn_sublibs: cuDNN "
	    "sub-libraries disagree with cuDNN 9.19.0: cudnn_ops 9.18.0");
	ep_manifest_free(m);

	m = h100();
	ep_manifest_set(m, "lib.cudnn_cnn.version_check", "mismatch");
	run(&rs, m, NULL);
	r = get(&rs, "stack.cudnn_sublibs");
	assert_int_equal(r->status, EP_FAIL);
	assert_string_equal(r->actual, "cudnn_cnn's version check says "
	    "mismatch");

	/* A version check that gave no answer is an error, and a waiver
	 * does not hide it. */
	ep_manifest_set(m, "lib.cudnn_cnn.version_check", "status 4");
	if (ep_policy_parse(&p, waive_all, strlen(waive_all), "p", &err) < 0)
		fail_msg("%s", err.msg);
	run(&rs, m, p);
	assert_int_equal(status(&rs, "stack.cudnn_sublibs"), EP_ERROR);
	assert_int_equal(status(&rs, "stack.cudart_minor.cudnn"), EP_WAIVED);
	ep_results_clear(&rs);
	ep_policy_free(p);
	ep_manifest_free(m);
}

/* The status of check key with the env.* facts given (NAME=VALUE...). */
static int
env_check(const char *key, const char *a, const char *b)
{
	struct ep_manifest *m = ep_manifest_new();
	struct ep_results rs = { 0 };
	const char *kv[] = { a, b };
	int s;

	for (size_t i = 0; i < 2; i++) {
		const char *eq;
		char *k;

		if (kv[i] == NULL || (eq = strchr(kv[i], '=')) == NULL)
			continue;
		k = xasprintf("env.%.*s", (int)(eq - kv[i]), kv[i]);
		ep_manifest_set(m, k, eq + 1);
		free(k);
	}
	run(&rs, m, NULL);
	s = status(&rs, key);
	ep_results_clear(&rs);
	ep_manifest_free(m);
	return s;
}

static void
test_determinism(void **state)
{
	static const char *tf = "stack.determinism.tf_autotune",
	    *cb = "stack.determinism.cublas_workspace";
	struct ep_manifest *m;
	struct ep_policy *p;
	struct ep_results rs = { 0 };
	struct ep_err err = { 0 };
	static const char ignore[] = "{\"schema\": \"envparity/policy@1\", "
	    "\"rules\": [{\"key\": \"stack.determinism.*\", \"rule\": "
	    "\"ignore\"}]}";

	(void)state;
	assert_int_equal(env_check(tf, "TF_DETERMINISTIC_OPS=1",
	    "TF_USE_CUDNN_AUTOTUNE=1"), EP_FAIL);
	assert_int_equal(env_check(tf, "TF_CUDNN_DETERMINISTIC=true",
	    "TF_USE_CUDNN_AUTOTUNE=yes"), EP_FAIL);
	assert_int_equal(env_check(tf, "TF_DETERMINISTIC_OPS=1",
	    "TF_USE_CUDNN_AUTOTUNE=0"), EP_PASS);
	assert_int_equal(env_check(tf, "TF_DETERMINISTIC_OPS=1",
	    "TF_USE_CUDNN_AUTOTUNE=false"), EP_PASS);
	assert_int_equal(env_check(tf, "TF_DETERMINISTIC_OPS=1", NULL),
	    EP_PASS);
	assert_int_equal(env_check(tf, "TF_DETERMINISTIC_OPS=0",
	    "TF_USE_CUDNN_AUTOTUNE=1"), EP_SKIP);
	assert_int_equal(env_check(tf, NULL, NULL), EP_SKIP);
	assert_int_equal(env_check(cb, "CUBLAS_WORKSPACE_CONFIG=:4096:8",
	    NULL), EP_PASS);
	assert_int_equal(env_check(cb, "CUBLAS_WORKSPACE_CONFIG=:16:8",
	    NULL), EP_PASS);
	assert_int_equal(env_check(cb, "CUBLAS_WORKSPACE_CONFIG=:4096:2",
	    NULL), EP_FAIL);
	assert_int_equal(env_check(cb, "CUBLAS_WORKSPACE_CONFIG=", NULL),
	    EP_FAIL);
	assert_int_equal(env_check(cb, NULL, NULL), EP_SKIP);

	m = ep_manifest_new();
	ep_manifest_set(m, "env.TF_DETERMINISTIC_OPS", "1");
	ep_manifest_set(m, "env.TF_USE_CUDNN_AUTOTUNE", "1");
	ep_manifest_set(m, "env.CUBLAS_WORKSPACE_CONFIG", ":4096:2");
	run(&rs, m, NULL);
	assert_string_equal(get(&rs, tf)->message, "stack.determinism."
	    "tf_autotune: TF_DETERMINISTIC_OPS=1 with TF_USE_CUDNN_AUTOTUNE=1:"
	    " autotuning picks cuDNN algorithms per run and defeats "
	    "determinism; unset it");
	assert_string_equal(get(&rs, cb)->message, "stack.determinism."
	    "cublas_workspace: CUBLAS_WORKSPACE_CONFIG=:4096:2 is not one of "
	    "the values cuBLAS documents as deterministic (:4096:8, :16:8)");
	/* An ignore rule turns the checks off. */
	if (ep_policy_parse(&p, ignore, strlen(ignore), "p", &err) < 0)
		fail_msg("%s", err.msg);
	run(&rs, m, p);
	assert_null(find(&rs, tf));
	assert_null(find(&rs, cb));
	assert_non_null(find(&rs, "stack.driver_min"));
	ep_results_clear(&rs);
	ep_policy_free(p);
	ep_manifest_free(m);
}

/* A real capture of this machine: CUDA 13.0 with cuDNN 9.19 in
 * /usr/local/cuda, no NVIDIA driver. */
static void
test_this_machine(void **state)
{
	struct ep_capture_opts o = { 0 };
	struct ep_manifest *m = NULL;
	struct ep_results rs = { 0 };
	struct ep_err err = { 0 };
	const char *why;
	char dir[256], *want;

	(void)state;
	assert_int_equal(tu_scratch_make(dir, sizeof dir, "checks"), 0);
	setenv("XDG_CACHE_HOME", dir, 1);
	o.no_discover = 1;
	if (ep_capture(&m, &o, &err) < 0)
		fail_msg("%s", err.msg);
	why = json_string_value(json_object_get(json_object_get(m->meta,
	    "unavailable"), "gpu"));
	if (why == NULL || ep_manifest_get(m, "lib.cudart.version") == NULL)
		skip();		/* not a build machine as issue 2 says */
	run(&rs, m, NULL);
	want = xasprintf("stack.driver_min: not checked here: %s", why);
	assert_int_equal(status(&rs, "stack.driver_min"), EP_SKIP);
	assert_string_equal(get(&rs, "stack.driver_min")->message, want);
	free(want);
	assert_int_equal(status(&rs, "stack.cuda_driver"), EP_SKIP);
	/* The library facts need no GPU: cuDNN's 13.1 on runtime 13.0. */
	if (ep_manifest_get(m, "lib.cudnn.cudart") != NULL &&
	    strcmp(ep_manifest_get(m, "lib.cudnn.cudart"), "13.1") == 0)
		assert_int_equal(status(&rs, "stack.cudart_minor.cudnn"),
		    EP_WARN);
	assert_int_equal(status(&rs, "stack.cudnn_sublibs"), EP_PASS);
	ep_results_clear(&rs);
	ep_manifest_free(m);
	assert_int_equal(tu_scratch_remove(dir), 0);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_h100),
		cmocka_unit_test(test_h100_waived_by_example_policy),
		cmocka_unit_test(test_driver_table),
		cmocka_unit_test(test_driver_messages),
		cmocka_unit_test(test_cuda_driver),
		cmocka_unit_test(test_lib_cudart),
		cmocka_unit_test(test_cudnn_sublibs),
		cmocka_unit_test(test_determinism),
		cmocka_unit_test(test_this_machine),
	};

	/* The capture loads each CUDA library in a fresh execution of this
	 * binary (dynload.h), as envparity's main() does. */
	if (argc > 1 && strcmp(argv[1], EP_DYNLOAD_HELPER) == 0)
		return ep_dynload_main(argc, argv);

	return cmocka_run_group_tests(tests, NULL, NULL);
}
