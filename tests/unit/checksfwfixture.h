/*
 * checksfwfixture.h: what the unit tests of the stack.framework.* checks
 * share (test_checks_fw.c, test_checks_fw_libs.c), beside checksfixture.h:
 * counting results by key prefix, GPUs by compute capability, and the
 * framework builds their manifests hold (TensorFlow 2.15.0, PyTorch
 * 2.8.0, one framework with a given cuDNN need).  Header-only: each test
 * binary is its own program.
 */
#ifndef EP_CHECKSFWFIXTURE_H
#define EP_CHECKSFWFIXTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checksfixture.h"
#include "manifest.h"
#include "str.h"
#include "xalloc.h"

#define CFFX_UNUSED __attribute__((unused))

static CFFX_UNUSED size_t
count_prefix(const struct ep_results *rs, const char *prefix)
{
	size_t n = 0;

	for (size_t i = 0; i < rs->n; i++)
		n += ep_startswith(rs->v[i].key, prefix);
	return n;
}

/* gpu.count and gpu.<i>.cc from a list "7.5,8.6". */
static CFFX_UNUSED void
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
static CFFX_UNUSED struct ep_manifest *
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

#define TF214_CAPS	"sm_50,sm_60,sm_70,sm_75,compute_80"

/* PyTorch 2.8.0 built for CUDA 12.9 and cuDNN 9.10.2, on cudart 12.9
 * with cudnn loaded, and the GPUs ccs. */
static CFFX_UNUSED struct ep_manifest *
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

/* The cuda build of one framework whose cuDNN need is a pin ("==v"), a
 * range (">=lo,<hi", JAX's METADATA) or what it was built with ("v"). */
static CFFX_UNUSED void
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

#endif
