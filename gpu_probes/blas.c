/*
 * blas.c: the cublas backend: SGEMM on the gemm workload's inputs
 * (spec.h), once with CUBLAS_PEDANTIC_MATH (no TF32, no reduced-precision
 * shortcuts) and once with CUBLAS_DEFAULT_MATH, reported apart: the
 * default mode is what a framework gets, pedantic is what is comparable.
 * The inputs are made on the host and copied, so this backend needs no
 * kernels of ours (and no nvcc at build time).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu.h"
#include "gpu.h"
#include "probe.h"
#include "spec.h"
#include "clock.h"
#include "xalloc.h"

static const char *const blas_work[] = { "sgemm_pedantic", "sgemm_default" };
static const int blas_modes[] = { PBLAS_PEDANTIC_MATH, PBLAS_DEFAULT_MATH };

static int
blas_check(const struct probe_blas *blas, int rc, const char *call,
    struct probe_err *err)
{
	const char *name;

	if (rc == 0)
		return 0;
	name = blas->GetStatusName != NULL ? blas->GetStatusName(rc) : NULL;
	if (name != NULL)
		return probe_err_set(err, PROBE_ERROR, "%s: %s", call, name);
	return probe_err_set(err, PROBE_ERROR, "%s: cuBLAS status %d", call,
	    rc);
}

/* Row-major C = A.B is column-major C^T = B^T A^T: cuBLAS gets B first,
 * and every leading dimension is a row length. */
static int
sgemm(struct probe_gpu *g, struct probe_blas *blas, void *h, int mode,
    float *host, pcu_ptr c, pcu_ptr a, pcu_ptr b, struct probe_err *err)
{
	const float one = 1.0f, zero = 0.0f;
	const int m = EP_GEMM_M, n = EP_GEMM_N, k = EP_GEMM_K;

	if (blas_check(blas, blas->SetMathMode(h, mode), "cublasSetMathMode",
	    err) == -1 ||
	    blas_check(blas, blas->Sgemm(h, PBLAS_OP_N, PBLAS_OP_N, n, m, k,
	    &one, (const float *)(uintptr_t)b, n, (const float *)(uintptr_t)a,
	    k, &zero, (float *)(uintptr_t)c, n), "cublasSgemm_v2", err) == -1)
		return -1;
	return probe_gpu_download(g, host, c, (size_t)m * n * sizeof *host,
	    err);
}

void
probe_cublas_run(struct probe_run *run, const struct probe_opts *opts)
{
	size_t na = EP_GEMM_M * EP_GEMM_K, nb = EP_GEMM_K * EP_GEMM_N;
	size_t nc = EP_GEMM_M * EP_GEMM_N, i;
	struct probe_gpu g;
	struct probe_blas blas;
	struct probe_err err = { 0 };
	float *ha = NULL, *hb = NULL, *hc = NULL;
	pcu_ptr a = 0, b = 0, c = 0;
	void *h = NULL;
	uint64_t t0;

	probe_run_init(run, "cublas", blas_work, 2);
	if (probe_gpu_open(&g, &run->dev, opts, &err) == -1 ||
	    probe_blas_load(&blas, opts->lib_cublas, opts->lib_cublaslt,
	    &err) == -1) {
		probe_run_fail_rest(run, 0, err.status, err.msg);
		goto done;
	}
	if (blas.version[0] != '\0')
		probe_libs_set(&run->libs, "cublas", blas.version);
	probe_libs_set(&run->libs, "cublas_path", blas.path);
	if (blas.ltversion[0] != '\0')
		probe_libs_set(&run->libs, "cublaslt", blas.ltversion);
	if (blas.ltpath[0] != '\0')
		probe_libs_set(&run->libs, "cublaslt_path", blas.ltpath);

	ha = xmalloc(na * sizeof *ha);
	hb = xmalloc(nb * sizeof *hb);
	hc = xmalloc(nc * sizeof *hc);
	probe_gemm_inputs(ha, hb, EP_GEMM_M, EP_GEMM_N, EP_GEMM_K, opts->seed);
	if (probe_gpu_alloc(&g, &a, ha, na * 4, &err) == -1 ||
	    probe_gpu_alloc(&g, &b, hb, nb * 4, &err) == -1 ||
	    probe_gpu_alloc(&g, &c, NULL, nc * 4, &err) == -1 ||
	    blas_check(&blas, blas.Create(&h), "cublasCreate_v2", &err) == -1) {
		probe_run_fail_rest(run, 0, err.status, err.msg);
		goto done;
	}
	/* One untimed SGEMM first, so that cuBLAS's loading of its kernels
	 * is not charged to whichever mode is timed first. */
	if (sgemm(&g, &blas, h, PBLAS_PEDANTIC_MATH, hc, c, a, b, &err) == -1) {
		probe_run_fail_rest(run, 0, err.status, err.msg);
		goto done;
	}
	for (i = 0; i < run->n; i++) {
		memset(&err, 0, sizeof err);
		t0 = ep_now_ns();
		if (sgemm(&g, &blas, h, blas_modes[i], hc, c, a, b, &err) == -1)
			probe_result_fail(&run->res[i], PROBE_ERROR, err.msg);
		else
			probe_result_ok(&run->res[i], hc, nc * 4,
			    probe_ms_since(t0));
	}
done:
	if (h != NULL)
		blas.Destroy(h);
	probe_gpu_free(&g, c);
	probe_gpu_free(&g, b);
	probe_gpu_free(&g, a);
	probe_gpu_close(&g);
	free(hc);
	free(hb);
	free(ha);
}
