/*
 * test_checks_fw.c: the stack.framework.* checks (core/checks_fw.c)
 * through ep_checks_run, on manifests whose framework.*, lib.* and gpu.*
 * facts are written here: the compute capabilities, cuDNN pins and
 * ranges of real builds, at each boundary of the rules.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "checksfixture.h"
#include "compare.h"
#include "framework.h"
#include "manifest.h"
#include "policy.h"
#include "python.h"

static size_t
count_prefix(const struct ep_results *rs, const char *prefix)
{
	size_t n = 0;

	for (size_t i = 0; i < rs->n; i++)
		n += ep_startswith(rs->v[i].key, prefix);
	return n;
}

/* gpu.count and gpu.<i>.cc from a list "7.5,8.6". */
static void
set_gpus(struct ep_manifest *m, const char *ccs)
{
	char *s = xstrdup(ccs), *save = NULL, *c, key[32], n[16];
	int i = 0;

	for (c = strtok_r(s, ",", &save); c != NULL;
	    c = strtok_r(NULL, ",", &save)) {
		snprintf(key, sizeof key, "gpu.%d.cc", i++);
		ep_manifest_set(m, key, c);
	}
	snprintf(n, sizeof n, "%d", i);
	ep_manifest_set(m, "gpu.count", n);
	free(s);
}

/* TensorFlow 2.15.0 built for CUDA 12.2 and cuDNN 8 with caps, on
 * cudart 12.2 and cuDNN 8.9.7, with the GPUs ccs. */
static struct ep_manifest *
tf_host(const char *caps, const char *ccs)
{
	struct ep_manifest *m = ep_manifest_new();

	ep_manifest_set(m, "framework.tensorflow.version", "2.15.0");
	ep_manifest_set(m, "framework.tensorflow.cuda_version", "12.2");
	ep_manifest_set(m, "framework.tensorflow.cudnn_version", "8");
	ep_manifest_set(m, "framework.tensorflow.is_cuda_build", "true");
	ep_manifest_set(m, "framework.tensorflow.is_rocm_build", "false");
	ep_manifest_set(m, "framework.tensorflow.cuda_compute_capabilities",
	    caps);
	ep_manifest_set(m, "lib.cudart.version", "12.2.140");
	ep_manifest_set(m, "lib.cudnn.version", "8.9.7");
	if (ccs != NULL)
		set_gpus(m, ccs);
	return m;
}

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

#define TF214_CAPS	"sm_50,sm_60,sm_70,sm_75,compute_80"

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

/* PyTorch 2.8.0 built for CUDA 12.9 and cuDNN 9.10.2, on cudart 12.9
 * with cudnn loaded, and the GPUs ccs. */
static struct ep_manifest *
torch_host(const char *cudnn, const char *ccs)
{
	struct ep_manifest *m = ep_manifest_new();

	ep_manifest_set(m, "framework.torch.version", "2.8.0+cu129");
	ep_manifest_set(m, "framework.torch.cuda", "12.9");
	ep_manifest_set(m, "framework.torch.hip", "");
	ep_manifest_set(m, "framework.torch.cudnn", "9.10.2");
	ep_manifest_set(m, "lib.cudart.version", "12.9.79");
	if (cudnn != NULL)
		ep_manifest_set(m, "lib.cudnn.version", cudnn);
	if (ccs != NULL)
		set_gpus(m, ccs);
	return m;
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

/* The cuda build of one framework whose cuDNN need is a pin ("==v"), a
 * range (">=lo,<hi", JAX's METADATA) or what it was built with ("v"). */
static void
add_fw(struct ep_manifest *m, const char *fw, const char *need)
{
	if (strcmp(fw, "torch") == 0) {
		ep_manifest_set(m, "framework.torch.version", "2.6.0+cu124");
		ep_manifest_set(m, "framework.torch.cuda", "12.4");
		if (strncmp(need, "==", 2) == 0)
			ep_manifest_set(m, "framework.torch.requires."
			    "nvidia-cudnn-cu12", need);
		else
			ep_manifest_set(m, "framework.torch.cudnn", need);
	} else if (strcmp(fw, "jax") == 0) {
		ep_manifest_set(m, "framework.jax.version", "0.6.2");
		ep_manifest_set(m, "framework.jax.cuda", "12");
		ep_manifest_set(m, "framework.jax.requires.nvidia-cudnn-cu12",
		    need);
	} else {
		ep_manifest_set(m, "framework.tensorflow.is_cuda_build",
		    "true");
		ep_manifest_set(m, "framework.tensorflow.cuda_version", "12.5");
		if (strncmp(need, "==", 2) == 0) {
			ep_manifest_set(m, "framework.tensorflow.version",
			    "2.19.0");
			ep_manifest_set(m, "framework.tensorflow.cudnn_version",
			    "9");
			ep_manifest_set(m, "framework.tensorflow.requires."
			    "nvidia-cudnn-cu12", need);
		} else {
			ep_manifest_set(m, "framework.tensorflow.version",
			    need);
			ep_manifest_set(m, "framework.tensorflow.cudnn_version",
			    strcmp(need, "2.15.0") == 0 ? "8" : "9");
		}
	}
}

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
		cmocka_unit_test(test_clash),
		cmocka_unit_test(test_rocm_and_cpu),
		cmocka_unit_test(test_cudart_cudnn_rules),
		cmocka_unit_test(test_policy_ignore),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
