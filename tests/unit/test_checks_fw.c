/*
 * test_checks_fw.c: the stack.framework.* checks (core/checks_fw.c)
 * through ep_checks_run, on manifests whose framework.*, lib.* and gpu.*
 * facts are written here: the GPUs against what a build covers
 * (tensorflow.sm on the compute capabilities of real builds, and
 * torch.cudnn_sm), the ROCm and CPU builds that get no CUDA check, and
 * a policy turning the checks off.  The libraries a build needs
 * (cudart, cuDNN, and two frameworks' cuDNN needs that clash) are in
 * test_checks_fw_libs.c.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "checksfixture.h"
#include "checksfwfixture.h"
#include "results.h"
#include "checks.h"
#include "framework.h"
#include "manifest.h"
#include "policy.h"
#include "python.h"

static int
sm_check(const char *caps, const char *ccs)
{
	struct ep_manifest *m = tf_host(caps, ccs);
	struct ep_results rs = { 0 };
	int s;

	run(&rs, m, NULL);
	s = status(&rs, "stack.framework.tensorflow.sm");
	ep_results_clear(&rs);
	ep_manifest_free(m);
	return s;
}

static void
test_tf_sm(void **state)
{
	struct ep_manifest *m;
	struct ep_results rs = { 0 };
	const struct ep_result *r;

	(void)state;
	/* SASS of the same major, a minor at most the GPU's. */
	assert_int_equal(sm_check(TF214_CAPS, "7.5"), EP_PASS);
	assert_int_equal(sm_check(TF214_CAPS, "7.2"), EP_PASS);
	assert_int_equal(sm_check(TF214_CAPS, "6.1"), EP_PASS);
	assert_int_equal(sm_check(TF214_CAPS, "5.2"), EP_PASS);
	/* PTX at most the GPU's, which the driver compiles. */
	assert_int_equal(sm_check(TF214_CAPS, "8.0"), EP_PASS);
	assert_int_equal(sm_check(TF214_CAPS, "8.6"), EP_PASS);
	assert_int_equal(sm_check(TF214_CAPS, "9.0"), EP_PASS);
	assert_int_equal(sm_check(TF214_CAPS, "12.0"), EP_PASS);
	/* Older than every SASS, and no PTX that old. */
	assert_int_equal(sm_check(TF214_CAPS, "3.7"), EP_FAIL);
	/* SASS only: no newer major, no older minor. */
	assert_int_equal(sm_check("sm_80,sm_90", "8.9"), EP_PASS);
	assert_int_equal(sm_check("sm_80,sm_90", "8.0"), EP_PASS);
	assert_int_equal(sm_check("sm_80,sm_90", "9.0"), EP_PASS);
	assert_int_equal(sm_check("sm_80,sm_90", "10.0"), EP_FAIL);
	assert_int_equal(sm_check("sm_80,sm_90", "7.5"), EP_FAIL);
	assert_int_equal(sm_check("sm_86", "8.0"), EP_FAIL);
	assert_int_equal(sm_check("sm_80,sm_90,sm_100", "10.0"), EP_PASS);
	/* PTX newer than the GPU: the driver cannot use it. */
	assert_int_equal(sm_check("compute_90", "8.9"), EP_FAIL);

	/* The messages; every GPU counts, the first one not covered is
	 * named. */
	m = tf_host(TF214_CAPS, "8.6,3.7,9.0");
	run(&rs, m, NULL);
	r = get(&rs, "stack.framework.tensorflow.sm");
	assert_int_equal(r->status, EP_FAIL);
	assert_string_equal(r->rule, "check:framework-sm");
	assert_string_equal(r->expected, TF214_CAPS);
	assert_string_equal(r->actual, "3.7");
	assert_string_equal(r->message, "stack.framework.tensorflow.sm: GPU 1 "
	    "has compute capability 3.7, which TensorFlow 2.15.0's kernels "
	    "(sm_50,sm_60,sm_70,sm_75,compute_80) do not cover: \"no kernel "
	    "image is available for execution on the device\"");
	/* The other checks hold: cudart 12.2, cuDNN 8.9.7 for 2.15's 8.9. */
	assert_int_equal(status(&rs, "stack.framework.tensorflow.cuda_libs"),
	    EP_PASS);
	assert_int_equal(status(&rs, "stack.framework.tensorflow.cudart"),
	    EP_PASS);
	assert_int_equal(status(&rs, "stack.framework.tensorflow.cudnn"),
	    EP_PASS);
	assert_null(find(&rs, "stack.framework.tensorflow"));
	ep_manifest_free(m);

	m = tf_host(TF214_CAPS, "7.5,8.6");
	run(&rs, m, NULL);
	r = get(&rs, "stack.framework.tensorflow.sm");
	assert_int_equal(r->status, EP_PASS);
	assert_string_equal(r->message, "stack.framework.tensorflow.sm: "
	    "TensorFlow 2.15.0's kernels (sm_50,sm_60,sm_70,sm_75,compute_80) "
	    "cover every GPU here");
	ep_manifest_free(m);

	/* No GPU, or no capabilities recorded: nothing to judge. */
	m = tf_host(TF214_CAPS, NULL);
	run(&rs, m, NULL);
	assert_null(find(&rs, "stack.framework.tensorflow.sm"));
	assert_int_equal(status(&rs, "stack.framework.tensorflow.cudnn"),
	    EP_PASS);
	ep_manifest_free(m);
	m = tf_host("", "3.7");
	run(&rs, m, NULL);
	assert_null(find(&rs, "stack.framework.tensorflow.sm"));
	ep_results_clear(&rs);
	ep_manifest_free(m);
}

static void
test_torch_cudnn_sm(void **state)
{
	static const char *key = "stack.framework.torch.cudnn_sm";
	struct ep_manifest *m;
	struct ep_results rs = { 0 };
	const struct ep_result *r;

	(void)state;
	m = torch_host("9.11.0", "8.0,7.0");
	run(&rs, m, NULL);
	r = get(&rs, key);
	assert_int_equal(r->status, EP_FAIL);
	assert_string_equal(r->expected, "7.5");
	assert_string_equal(r->actual, "7.0");
	assert_string_equal(r->message, "stack.framework.torch.cudnn_sm: cuDNN "
	    "9.11.0 needs every GPU at SM 7.5 or later; GPU 1 is 7.0: PyTorch "
	    "2.8.0+cu129 raises \"cuDNN version ... is not compatible with "
	    "devices with SM < 7.5\"");
	/* 9.11 is a newer minor than the build's 9.10: that holds. */
	assert_int_equal(status(&rs, "stack.framework.torch.cudnn"), EP_PASS);
	ep_manifest_free(m);

	/* 9.10.2 is older than the rule: no result. */
	m = torch_host("9.10.2", "7.0");
	run(&rs, m, NULL);
	assert_null(find(&rs, key));
	assert_int_equal(status(&rs, "stack.framework.torch.cudnn"), EP_PASS);
	ep_manifest_free(m);

	/* Every GPU at 7.5 or later. */
	m = torch_host("9.11.0", "7.5,9.0");
	run(&rs, m, NULL);
	r = get(&rs, key);
	assert_int_equal(r->status, EP_PASS);
	assert_string_equal(r->message, "stack.framework.torch.cudnn_sm: "
	    "cuDNN 9.11.0 and every GPU at SM 7.5 or later");
	ep_manifest_free(m);

	/* Later cuDNN releases too; no GPU or no cuDNN: nothing. */
	m = torch_host("9.13.0", "6.1");
	run(&rs, m, NULL);
	assert_int_equal(status(&rs, key), EP_FAIL);
	ep_manifest_free(m);
	m = torch_host("9.11.0", NULL);
	run(&rs, m, NULL);
	assert_null(find(&rs, key));
	ep_manifest_free(m);
	m = torch_host(NULL, "7.0");
	run(&rs, m, NULL);
	assert_null(find(&rs, key));
	assert_int_equal(status(&rs, "stack.framework.torch.cudnn"), EP_FAIL);
	ep_results_clear(&rs);
	ep_manifest_free(m);
}

static void
test_rocm_and_cpu(void **state)
{
	struct ep_manifest *m;
	struct ep_results rs = { 0 };
	const struct ep_result *r;

	(void)state;
	/* A ROCm torch (hip set, cuda None) beside JAX: skipped, and out
	 * of the clash, whatever its METADATA pins. */
	m = ep_manifest_new();
	ep_manifest_set(m, "framework.torch.version", "2.5.1+rocm6.2");
	ep_manifest_set(m, "framework.torch.cuda", "");
	ep_manifest_set(m, "framework.torch.hip", "6.2.41133-dd7f95766");
	ep_manifest_set(m, "framework.torch.requires.nvidia-cudnn-cu12",
	    "==9.1.0.70");
	add_fw(m, "jax", ">=9.8,<10.0");
	ep_manifest_set(m, "lib.cudart.version", "12.8.90");
	ep_manifest_set(m, "lib.cudnn.version", "9.8.0");
	set_gpus(m, "7.0");
	run(&rs, m, NULL);
	r = get(&rs, "stack.framework.torch");
	assert_int_equal(r->status, EP_SKIP);
	assert_string_equal(r->rule, "check:framework");
	assert_string_equal(r->message, "stack.framework.torch: PyTorch "
	    "2.5.1+rocm6.2 is a ROCm build: the CUDA checks do not apply");
	assert_int_equal(count_prefix(&rs, "stack.framework.torch."), 0);
	assert_null(find(&rs, "stack.framework.clash.cudnn"));
	assert_int_equal(status(&rs, "stack.framework.jax.cudnn"), EP_PASS);
	ep_manifest_free(m);

	/* A ROCm TensorFlow. */
	m = ep_manifest_new();
	ep_manifest_set(m, "framework.tensorflow.version", "2.16.1");
	ep_manifest_set(m, "framework.tensorflow.is_cuda_build", "false");
	ep_manifest_set(m, "framework.tensorflow.is_rocm_build", "true");
	set_gpus(m, "3.7");
	run(&rs, m, NULL);
	assert_int_equal(status(&rs, "stack.framework.tensorflow"), EP_SKIP);
	assert_int_equal(count_prefix(&rs, "stack.framework.tensorflow."), 0);
	ep_manifest_free(m);

	/* CPU builds, with no CUDA runtime here: skipped, not failed. */
	m = ep_manifest_new();
	ep_manifest_set(m, "framework.torch.version", "2.5.1+cpu");
	ep_manifest_set(m, "framework.torch.cuda", "");
	ep_manifest_set(m, "framework.tensorflow.version", "2.18.0");
	ep_manifest_set(m, "framework.tensorflow.is_cuda_build", "false");
	ep_manifest_set(m, "framework.jax.version", "0.6.2");
	ep_manifest_set(m, "framework.jax.jaxlib", "0.6.2");
	run(&rs, m, NULL);
	assert_string_equal(get(&rs, "stack.framework.torch")->message,
	    "stack.framework.torch: PyTorch 2.5.1+cpu is a CPU build: the "
	    "CUDA checks do not apply");
	assert_int_equal(status(&rs, "stack.framework.tensorflow"), EP_SKIP);
	assert_int_equal(status(&rs, "stack.framework.jax"), EP_SKIP);
	assert_int_equal(count_prefix(&rs, "stack.framework."), 3);
	ep_results_clear(&rs);
	ep_manifest_free(m);

	/* No framework: no stack.framework result at all. */
	m = ep_manifest_new();
	ep_manifest_set(m, "lib.cudart.version", "12.8.90");
	run(&rs, m, NULL);
	assert_int_equal(count_prefix(&rs, "stack.framework"), 0);
	ep_results_clear(&rs);
	ep_manifest_free(m);
}

static void
test_policy_ignore(void **state)
{
	static const char ignore[] = "{\"schema\": \"envparity/policy@1\", "
	    "\"rules\": [{\"key\": \"stack.framework.*\", \"rule\": "
	    "\"ignore\"}]}";
	static const char ignore_sm[] = "{\"schema\": \"envparity/policy@1\", "
	    "\"rules\": [{\"key\": \"stack.framework.tensorflow.sm\", "
	    "\"rule\": \"ignore\"}]}";
	struct ep_manifest *m = tf_host(TF214_CAPS, "3.7");
	struct ep_policy *p;
	struct ep_results rs = { 0 };
	struct ep_err err = { 0 };

	(void)state;
	add_fw(m, "torch", "==9.1.0.70");
	run(&rs, m, NULL);
	assert_int_equal(status(&rs, "stack.framework.tensorflow.sm"),
	    EP_FAIL);
	assert_int_equal(status(&rs, "stack.framework.clash.cudnn"), EP_FAIL);
	assert_true(count_prefix(&rs, "stack.framework.") >= 6);

	if (ep_policy_parse(&p, ignore, strlen(ignore), "p", &err) < 0)
		fail_msg("%s", err.msg);
	run(&rs, m, p);
	assert_int_equal(count_prefix(&rs, "stack.framework"), 0);
	assert_non_null(find(&rs, "stack.driver_min"));
	assert_int_equal(ep_results_exit(&rs), EP_EXIT_OK);
	ep_policy_free(p);

	/* One check only. */
	if (ep_policy_parse(&p, ignore_sm, strlen(ignore_sm), "p", &err) < 0)
		fail_msg("%s", err.msg);
	run(&rs, m, p);
	assert_null(find(&rs, "stack.framework.tensorflow.sm"));
	assert_int_equal(status(&rs, "stack.framework.clash.cudnn"), EP_FAIL);
	assert_int_equal(status(&rs, "stack.framework.tensorflow.cudnn"),
	    EP_PASS);
	ep_results_clear(&rs);
	ep_policy_free(p);
	ep_manifest_free(m);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tf_sm),
		cmocka_unit_test(test_torch_cudnn_sm),
		cmocka_unit_test(test_rocm_and_cpu),
		cmocka_unit_test(test_policy_ignore),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
