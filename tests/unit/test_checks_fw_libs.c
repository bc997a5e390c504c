/*
 * test_checks_fw_libs.c: the stack.framework.* checks (core/checks_fw.c)
 * on the libraries a build needs, through ep_checks_run, on manifests
 * whose framework.* and lib.* facts are written here: the CUDA runtime
 * (cudart, cuda_libs), cuDNN's pins and ranges of real builds at each
 * boundary of the rules, and two frameworks in one environment whose
 * cuDNN needs clash.  The GPUs' checks, ROCm and CPU builds and the
 * policy are in test_checks_fw.c.
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
clash(const char *fw1, const char *need1, const char *fw2,
    const char *need2)
{
	struct ep_manifest *m = ep_manifest_new();
	struct ep_results rs = { 0 };
	const struct ep_result *r;
	int s;

	ep_manifest_set(m, "lib.cudart.version", "12.8.90");
	ep_manifest_set(m, "lib.cudnn.version", "9.8.0");
	add_fw(m, fw1, need1);
	add_fw(m, fw2, need2);
	run(&rs, m, NULL);
	r = get(&rs, "stack.framework.clash.cudnn");
	s = r->status;
	assert_string_equal(r->rule, "check:framework-clash");
	assert_int_equal(count_prefix(&rs, "stack.framework.clash."), 1);
	ep_results_clear(&rs);
	ep_manifest_free(m);
	return s;
}

static void
test_clash(void **state)
{
	struct ep_manifest *m;
	struct ep_results rs = { 0 };

	(void)state;
	/* A pin against a range: inside, at its ends, outside. */
	assert_int_equal(clash("torch", "==9.1.0.70", "jax", ">=9.8,<10.0"),
	    EP_FAIL);
	assert_int_equal(clash("torch", "==9.10.2.21", "jax", ">=9.8,<10.0"),
	    EP_PASS);
	assert_int_equal(clash("torch", "==9.8", "jax", ">=9.8,<10.0"),
	    EP_PASS);
	assert_int_equal(clash("torch", "==10.0", "jax", ">=9.8,<10.0"),
	    EP_FAIL);
	assert_int_equal(clash("torch", "==10.1", "jax", ">=9.8"), EP_PASS);
	assert_int_equal(clash("jax", ">=9.1,<10.0", "torch", "==9.1.0.70"),
	    EP_PASS);
	assert_int_equal(clash("tensorflow", "==9.3.0.75", "jax",
	    ">=9.8,<10.0"), EP_FAIL);
	/* Two pins: the same version or none. */
	assert_int_equal(clash("tensorflow", "==9.3.0.75", "torch",
	    "==9.3.0.75"), EP_PASS);
	assert_int_equal(clash("tensorflow", "==9.3.0.75", "torch",
	    "==9.1.0.70"), EP_FAIL);
	/* Two ranges: what each was built with up to its next major, or
	 * JAX's METADATA range. */
	assert_int_equal(clash("tensorflow", "2.15.0", "torch", "9.1.0"),
	    EP_FAIL);
	assert_int_equal(clash("tensorflow", "2.19.0", "torch", "9.1.0"),
	    EP_PASS);
	assert_int_equal(clash("tensorflow", "2.19.0", "jax", ">=9.8,<10.0"),
	    EP_PASS);
	assert_int_equal(clash("torch", "9.1.0", "jax", ">=9.8,<10.0"),
	    EP_PASS);
	assert_int_equal(clash("torch", "8.9.2", "jax", ">=9.8,<10.0"),
	    EP_FAIL);
	assert_int_equal(clash("jax", ">=9.1,<9.5", "torch", "9.8.0"),
	    EP_FAIL);

	/* The message names both needs. */
	m = ep_manifest_new();
	ep_manifest_set(m, "lib.cudart.version", "12.8.90");
	ep_manifest_set(m, "lib.cudnn.version", "9.8.0");
	add_fw(m, "torch", "==9.1.0.70");
	ep_manifest_set(m, "framework.torch.cudnn", "9.1.0");
	add_fw(m, "jax", ">=9.8,<10.0");
	run(&rs, m, NULL);
	assert_string_equal(get(&rs, "stack.framework.clash.cudnn")->message,
	    "stack.framework.clash.cudnn: PyTorch 2.6.0+cu124 was built with "
	    "cuDNN 9.1.0 and pins nvidia-cudnn-cu12==9.1.0.70, while JAX "
	    "0.6.2 needs nvidia-cudnn-cu12>=9.8,<10.0 (its CUDA plugin's "
	    "requirement): no cuDNN satisfies both");
	/* Each framework alone holds with the loaded 9.8.0 (a newer minor
	 * than torch's 9.1 build): the clash is in what pip installs. */
	assert_int_equal(status(&rs, "stack.framework.torch.cudnn"), EP_PASS);
	assert_int_equal(status(&rs, "stack.framework.jax.cudnn"), EP_PASS);
	ep_manifest_free(m);

	/* One framework alone, or one that needs no cuDNN: no clash. */
	m = ep_manifest_new();
	ep_manifest_set(m, "lib.cudart.version", "12.8.90");
	add_fw(m, "torch", "==9.1.0.70");
	ep_manifest_set(m, "framework.jax.version", "0.6.2");
	ep_manifest_set(m, "framework.jax.cuda", "12");
	run(&rs, m, NULL);
	assert_null(find(&rs, "stack.framework.clash.cudnn"));
	ep_results_clear(&rs);
	ep_manifest_free(m);
}

static int
cudart_check(const char *build, const char *runtime)
{
	struct ep_manifest *m = torch_host("9.10.2", NULL);
	struct ep_results rs = { 0 };
	int s;

	ep_manifest_set(m, "framework.torch.cuda", build);
	ep_manifest_set(m, "lib.cudart.version", runtime);
	run(&rs, m, NULL);
	s = status(&rs, "stack.framework.torch.cudart");
	ep_results_clear(&rs);
	ep_manifest_free(m);
	return s;
}

static int
cudnn_check(const char *fw, const char *need, const char *have)
{
	struct ep_manifest *m = ep_manifest_new();
	struct ep_results rs = { 0 };
	char *key = xasprintf("stack.framework.%s.cudnn", fw);
	int s;

	ep_manifest_set(m, "lib.cudart.version", "12.5.82");
	ep_manifest_set(m, "lib.cudnn.version", have);
	add_fw(m, fw, need);
	run(&rs, m, NULL);
	s = status(&rs, key);
	free(key);
	ep_results_clear(&rs);
	ep_manifest_free(m);
	return s;
}

static void
test_cudart_cudnn_rules(void **state)
{
	struct ep_manifest *m;
	struct ep_results rs = { 0 };
	const struct ep_result *r;

	(void)state;
	/* cudart: the same major; an older minor warns. */
	assert_int_equal(cudart_check("12.9", "12.9.79"), EP_PASS);
	assert_int_equal(cudart_check("12.4", "12.9.79"), EP_PASS);
	assert_int_equal(cudart_check("12.9", "12.8.90"), EP_WARN);
	assert_int_equal(cudart_check("12.5.1", "12.4.127"), EP_WARN);
	assert_int_equal(cudart_check("12.9", "13.0.96"), EP_FAIL);
	assert_int_equal(cudart_check("11.8", "12.9.79"), EP_FAIL);
	assert_int_equal(cudart_check("12", "12.0.1"), EP_PASS);
	assert_int_equal(cudart_check("twelve", "12.9.79"), EP_ERROR);
	m = torch_host("9.10.2", NULL);
	ep_manifest_set(m, "lib.cudart.version", "12.8.90");
	run(&rs, m, NULL);
	r = get(&rs, "stack.framework.torch.cudart");
	assert_int_equal(r->status, EP_WARN);
	assert_string_equal(r->expected, "12.9");
	assert_string_equal(r->actual, "12.8.90");
	assert_string_equal(r->message, "stack.framework.torch.cudart: "
	    "PyTorch 2.8.0+cu129 was built for CUDA 12.9; the runtime here, "
	    "12.8.90, is an older minor release: CUDA's minor-version "
	    "compatibility covers the driver, not an older runtime, which may "
	    "lack what the build calls");
	ep_manifest_free(m);
	m = torch_host("9.10.2", NULL);
	ep_manifest_set(m, "lib.cudart.version", "13.0.96");
	run(&rs, m, NULL);
	assert_string_equal(get(&rs, "stack.framework.torch.cudart")->message,
	    "stack.framework.torch.cudart: PyTorch 2.8.0+cu129 was built for "
	    "CUDA 12.9; the runtime here is 13.0.96, another major release "
	    "(it loads libcudart.so.12, which is not here)");
	ep_manifest_free(m);

	/* No runtime at all. */
	m = torch_host("9.10.2", NULL);
	json_object_del(m->facts, "lib.cudart.version");
	run(&rs, m, NULL);
	r = get(&rs, "stack.framework.torch.cuda_libs");
	assert_int_equal(r->status, EP_FAIL);
	assert_string_equal(r->message, "stack.framework.torch.cuda_libs: "
	    "PyTorch 2.8.0+cu129 is a CUDA build (CUDA 12.9) but no CUDA "
	    "runtime library was found: it could not use the GPU");
	assert_null(find(&rs, "stack.framework.torch.cudart"));
	ep_results_clear(&rs);
	ep_manifest_free(m);

	/* cuDNN: the same major, a minor at least the build's. */
	assert_int_equal(cudnn_check("torch", "9.1.0", "9.1.0"), EP_PASS);
	assert_int_equal(cudnn_check("torch", "9.1.0", "9.8.0"), EP_PASS);
	assert_int_equal(cudnn_check("torch", "9.5.1", "9.1.0"), EP_FAIL);
	assert_int_equal(cudnn_check("torch", "9.1.0", "8.9.7"), EP_FAIL);
	assert_int_equal(cudnn_check("torch", "==9.1.0.70", "9.1.0"), EP_PASS);
	/* TensorFlow's build_info says the major only: its tested minor
	 * (2.15: 8.9) or its and-cuda pin says the rest. */
	assert_int_equal(cudnn_check("tensorflow", "2.15.0", "8.9.4"),
	    EP_PASS);
	assert_int_equal(cudnn_check("tensorflow", "2.15.0", "8.6.0"),
	    EP_FAIL);
	assert_int_equal(cudnn_check("tensorflow", "2.15.0", "9.3.0"),
	    EP_FAIL);
	assert_int_equal(cudnn_check("tensorflow", "==9.3.0.75", "9.1.0"),
	    EP_FAIL);
	assert_int_equal(cudnn_check("tensorflow", "==9.3.0.75", "9.3.0"),
	    EP_PASS);
	/* JAX: inside its plugin's range. */
	assert_int_equal(cudnn_check("jax", ">=9.8,<10.0", "9.8.0"), EP_PASS);
	assert_int_equal(cudnn_check("jax", ">=9.8,<10.0", "9.1.0"), EP_FAIL);
	assert_int_equal(cudnn_check("jax", ">=9.8,<10.0", "10.0.0"),
	    EP_FAIL);

	m = ep_manifest_new();
	ep_manifest_set(m, "lib.cudart.version", "12.5.82");
	ep_manifest_set(m, "lib.cudnn.version", "8.6.0");
	add_fw(m, "tensorflow", "2.15.0");
	run(&rs, m, NULL);
	r = get(&rs, "stack.framework.tensorflow.cudnn");
	assert_string_equal(r->expected, ">=8.9,<9");
	assert_string_equal(r->message, "stack.framework.tensorflow.cudnn: "
	    "TensorFlow 2.15.0 was built with cuDNN 8.9; the cuDNN here is "
	    "8.6.0, older (\"Loaded runtime CuDNN library: 8.6.0 but source "
	    "was compiled with: 8.9\"): TensorFlow would skip the GPU and run "
	    "on the CPU");
	ep_results_clear(&rs);
	ep_manifest_free(m);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_clash),
		cmocka_unit_test(test_cudart_cudnn_rules),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
