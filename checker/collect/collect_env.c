/*
 * collect_env.c: env.<VAR> for an allowlist of variables that change
 * numerics or device selection.  The environment is never copied whole:
 * a variable is recorded only if it is named here, so tokens and
 * credentials cannot reach a manifest through this collector.
 */
#include <stdlib.h>
#include <string.h>

#include "collect.h"
#include "errors.h"
#include "xalloc.h"

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

int
ep_collect_env(struct ep_collect *c, struct ep_err *err)
{
	(void)err;
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
