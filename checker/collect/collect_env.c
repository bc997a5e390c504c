/*
 * collect_env.c: env.<VAR> for an allowlist of variables that change
 * numerics or device selection, and for the variables a profile's policy
 * or --env adds by name or prefix (extrafacts.h).  The environment is
 * never copied whole: a variable is recorded only if it is named here or
 * there, and one whose name looks like a credential's is left out (said,
 * by name, never its value) unless named exactly as not a secret, so
 * tokens and credentials cannot reach a manifest through this collector.
 */
#include <stdlib.h>
#include <string.h>

#include "clean.h"
#include "collect.h"
#include "errors.h"
#include "xalloc.h"

extern char **environ;

/* Sorted.  Each entry changes what a framework computes or on which device:
 * determinism switches, math modes, thread counts (reduction order),
 * allocator and collective settings. */
const char *const ep_env_allowlist[] = {
	"CUBLASLT_WORKSPACE_SIZE",	/* cuBLASLt algorithm choice */
	"CUBLAS_WORKSPACE_CONFIG",	/* cuBLAS determinism (:4096:8, :16:8) */
	"CUDA_DEVICE_MAX_CONNECTIONS",	/* stream/queue mapping */
	"CUDA_DEVICE_ORDER",		/* which GPU index is which */
	"CUDA_LAUNCH_BLOCKING",
	"CUDA_MODULE_LOADING",		/* lazy loading */
	"CUDA_VISIBLE_DEVICES",
	"CUDNN_CONV_WSCAP_DBG",		/* cuDNN workspace cap: algo choice */
	"DNNL_DEFAULT_FPMATH_MODE",	/* oneDNN implicit down-conversion */
	"JAX_DEFAULT_MATMUL_PRECISION",
	"JAX_ENABLE_X64",
	"KMP_DETERMINISTIC_REDUCTION",
	"MKL_CBWR",			/* MKL conditional reproducibility */
	"MKL_ENABLE_INSTRUCTIONS",
	"MKL_NUM_THREADS",
	"NCCL_ALGO",
	"NCCL_PROTO",
	"NVIDIA_TF32_OVERRIDE",		/* 0 disables TF32 everywhere */
	"NVIDIA_VISIBLE_DEVICES",
	"OMP_NUM_THREADS",
	"ONEDNN_DEFAULT_FPMATH_MODE",
	"OPENBLAS_CORETYPE",		/* OpenBLAS kernel choice */
	"OPENBLAS_NUM_THREADS",
	"PYTHONHASHSEED",
	"PYTORCH_CUDA_ALLOC_CONF",
	"TF_CUDNN_DETERMINISTIC",
	"TF_DETERMINISTIC_OPS",
	"TF_ENABLE_ONEDNN_OPTS",
	"TF_FORCE_GPU_ALLOW_GROWTH",
	"TF_GPU_ALLOCATOR",
	"TF_USE_CUDNN_AUTOTUNE",
	"TORCH_ALLOW_TF32_CUBLAS_OVERRIDE",
	"TORCH_CUDNN_V8_API_DISABLED",
	"XLA_FLAGS",
	"XLA_PYTHON_CLIENT_MEM_FRACTION",
	"XLA_PYTHON_CLIENT_PREALLOCATE",
	NULL,
};

/* 1 if name is on the allowlist. */
static int
allowlisted(const char *name)
{
	for (size_t i = 0; ep_env_allowlist[i] != NULL; i++)
		if (strcmp(ep_env_allowlist[i], name) == 0)
			return 1;
	return 0;
}

/* The variables the policy and --env add: each of the environment's
 * names tried against their patterns. */
static void
extra_env(struct ep_collect *c)
{
	for (char **e = environ; e != NULL && *e != NULL; e++) {
		const char *eq = strchr(*e, '=');
		char *name, *key, *val;

		if (eq == NULL || eq == *e)
			continue;
		name = xstrndup(*e, (size_t)(eq - *e));
		switch (allowlisted(name) ? EP_EXTRA_NO :
		    ep_extra_env_pick(&c->extra, name)) {
		case EP_EXTRA_YES:
			/* user:password@ in a URL never reaches a manifest. */
			key = xasprintf("env.%s", name);
			val = ep_scrub_userinfo(eq + 1);
			ep_manifest_set(c->m, key, val);
			free(val);
			free(key);
			break;
		case EP_EXTRA_SECRET:
			if (ep_extra_never(name)) {
				ep_manifest_warn(c->m, "environment variable "
				    "%s not recorded: %s, never recorded", name,
				    strncmp(name, "ENVPARITY_", 10) == 0 ?
				    "one of envparity's own settings" :
				    "a credential CI systems and clouds hand "
				    "every job");
				break;
			}
			ep_manifest_warn(c->m, "environment variable %s not "
			    "recorded: its name looks like a credential's (%s);"
			    " if it is none, name it as not secret "
			    "(--env-not-secret %s, or the policy's "
			    "capture.env_not_secret)", name,
			    ep_extra_secret_word(name), name);
			break;
		}
		free(name);
	}
}

int
ep_collect_env(struct ep_collect *c, struct ep_err *err)
{
	(void)err;
	extra_env(c);
	for (size_t i = 0; ep_env_allowlist[i] != NULL; i++) {
		const char *v = getenv(ep_env_allowlist[i]);
		char *key;

		if (v == NULL)
			continue;
		key = xasprintf("env.%s", ep_env_allowlist[i]);
		ep_manifest_set(c->m, key, v);
		free(key);
	}
	return 0;
}
