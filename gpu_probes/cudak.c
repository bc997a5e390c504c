/*
 * cudak.c: the cuda backend: kat, gemm, reduce and atomic (spec.h) with
 * our own kernels (kernels.cu), embedded at build time as a fatbin and
 * loaded through the driver API.  Inputs are generated on the device from
 * rng.h; each workload's time runs from its first allocation to its
 * output on the host, hashed.  Built without nvcc, the backend skips.
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

static const char *const cuda_work[] = { "kat", "gemm", "reduce", "atomic" };

#ifndef PROBE_HAVE_FATBIN

void
probe_cuda_run(struct probe_run *run, const struct probe_opts *opts)
{
	(void)opts;
	probe_run_init(run, "cuda", cuda_work, 4);
	probe_run_fail_rest(run, 0, PROBE_SKIP,
	    "CUDA backend not built (no nvcc)");
}

#else

/* fatbin.S */
extern const unsigned char probe_fatbin[], probe_fatbin_end[];

enum { K_GEN_UNIT, K_GEN_KAT, K_GEMM, K_REDUCE_CHUNKS, K_REDUCE_TOTAL,
    K_ATOMIC, K_COUNT };
static const char *const kernel_names[K_COUNT] = {
	"ep_gen_unit", "ep_gen_kat", "ep_gemm", "ep_reduce_chunks",
	"ep_reduce_total", "ep_atomic",
};

struct cudak {
	struct probe_gpu g;
	pcu_module mod;
	pcu_function fn[K_COUNT];
};

/* Launch kernel k and wait for it, so that a fault is charged to the
 * kernel that made it. */
static int
launch(struct cudak *x, int k, unsigned gx, unsigned gy, unsigned bx,
    unsigned by, void **args, struct probe_err *err)
{
	char call[64];

	snprintf(call, sizeof call, "cuLaunchKernel(%s)", kernel_names[k]);
	if (probe_gpu_check(&x->g, x->g.cu.LaunchKernel(x->fn[k], gx, gy, 1,
	    bx, by, 1, 0, NULL, args, NULL), call, err) == -1)
		return -1;
	snprintf(call, sizeof call, "cuCtxSynchronize(%s)", kernel_names[k]);
	return probe_gpu_check(&x->g, x->g.cu.CtxSynchronize(), call, err);
}

static int
gen_unit(struct cudak *x, pcu_ptr out, unsigned n, unsigned key,
    struct probe_err *err)
{
	void *args[] = { &out, &n, &key };

	return launch(x, K_GEN_UNIT, (n + 255) / 256, 1, 256, 1, args, err);
}

static int
gemm(struct cudak *x, pcu_ptr c, pcu_ptr a, pcu_ptr b, int m, int n, int k,
    struct probe_err *err)
{
	void *args[] = { &c, &a, &b, &m, &n, &k };

	return launch(x, K_GEMM, (n + 31) / 32, (m + 31) / 32, 32, 32, args,
	    err);
}

static int
work_kat(struct cudak *x, struct probe_result *r, struct probe_err *err)
{
	size_t na = EP_KAT_M * EP_KAT_K, nb = EP_KAT_K * EP_KAT_N;
	size_t nc = EP_KAT_M * EP_KAT_N, bad;
	pcu_ptr a = 0, b = 0, c = 0;
	uint64_t t0 = ep_now_ns();
	float *host = xmalloc(nc * sizeof *host);
	void *args[] = { &a, &b };
	int rc = -1;

	if (probe_gpu_alloc(&x->g, &a, NULL, na * 4, err) == -1 ||
	    probe_gpu_alloc(&x->g, &b, NULL, nb * 4, err) == -1 ||
	    probe_gpu_alloc(&x->g, &c, NULL, nc * 4, err) == -1)
		goto done;
	if (launch(x, K_GEN_KAT, (unsigned)((nb > na ? nb : na) + 255) / 256,
	    1, 256, 1, args, err) == -1 ||
	    gemm(x, c, a, b, EP_KAT_M, EP_KAT_N, EP_KAT_K, err) == -1 ||
	    probe_gpu_download(&x->g, host, c, nc * 4, err) == -1)
		goto done;
	bad = probe_kat_check(host, r->reason, sizeof r->reason);
	r->known_answer = bad == 0;
	probe_result_ok(r, host, nc * 4, probe_ms_since(t0));
	rc = 0;
done:
	probe_gpu_free(&x->g, c);
	probe_gpu_free(&x->g, b);
	probe_gpu_free(&x->g, a);
	free(host);
	return rc;
}

static int
work_gemm(struct cudak *x, struct probe_result *r, uint64_t seed,
    struct probe_err *err)
{
	size_t na = EP_GEMM_M * EP_GEMM_K, nb = EP_GEMM_K * EP_GEMM_N;
	size_t nc = EP_GEMM_M * EP_GEMM_N;
	pcu_ptr a = 0, b = 0, c = 0;
	uint64_t t0 = ep_now_ns();
	float *host = xmalloc(nc * sizeof *host);
	int rc = -1;

	if (probe_gpu_alloc(&x->g, &a, NULL, na * 4, err) == -1 ||
	    probe_gpu_alloc(&x->g, &b, NULL, nb * 4, err) == -1 ||
	    probe_gpu_alloc(&x->g, &c, NULL, nc * 4, err) == -1)
		goto done;
	if (gen_unit(x, a, na, ep_rng_key(seed, EP_RNG_GEMM_A), err) == -1 ||
	    gen_unit(x, b, nb, ep_rng_key(seed, EP_RNG_GEMM_B), err) == -1 ||
	    gemm(x, c, a, b, EP_GEMM_M, EP_GEMM_N, EP_GEMM_K, err) == -1 ||
	    probe_gpu_download(&x->g, host, c, nc * 4, err) == -1)
		goto done;
	probe_result_ok(r, host, nc * 4, probe_ms_since(t0));
	rc = 0;
done:
	probe_gpu_free(&x->g, c);
	probe_gpu_free(&x->g, b);
	probe_gpu_free(&x->g, a);
	free(host);
	return rc;
}

static int
work_reduce(struct cudak *x, struct probe_result *r, uint64_t seed,
    struct probe_err *err)
{
	float host[EP_NCHUNK + 1];
	pcu_ptr sums = 0, total;
	uint64_t t0 = ep_now_ns();
	unsigned key = ep_rng_key(seed, EP_RNG_REDUCE);
	void *a1[] = { &sums, &key }, *a2[] = { &total, &sums };
	int rc = -1;

	if (probe_gpu_alloc(&x->g, &sums, NULL, sizeof host, err) == -1)
		goto done;
	total = sums + EP_NCHUNK * sizeof(float);
	if (launch(x, K_REDUCE_CHUNKS, EP_NCHUNK, 1, 1024, 1, a1, err) == -1 ||
	    launch(x, K_REDUCE_TOTAL, 1, 1, 1024, 1, a2, err) == -1 ||
	    probe_gpu_download(&x->g, host, sums, sizeof host, err) == -1)
		goto done;
	probe_result_ok(r, host, sizeof host, probe_ms_since(t0));
	rc = 0;
done:
	probe_gpu_free(&x->g, sums);
	return rc;
}

static int
work_atomic(struct cudak *x, struct probe_result *r, uint64_t seed,
    struct probe_err *err)
{
	float host;
	pcu_ptr total = 0;
	uint64_t t0 = ep_now_ns();
	unsigned key = ep_rng_key(seed, EP_RNG_REDUCE);
	void *args[] = { &total, &key };
	int rc = -1;

	if (probe_gpu_alloc(&x->g, &total, NULL, sizeof host, err) == -1 ||
	    probe_gpu_check(&x->g, x->g.cu.MemsetD32(total, 0, 1),
	    "cuMemsetD32", err) == -1)
		goto done;
	if (launch(x, K_ATOMIC, EP_REDUCE_N / 4 / 256, 1, 256, 1, args,
	    err) == -1 ||
	    probe_gpu_download(&x->g, &host, total, sizeof host, err) == -1)
		goto done;
	probe_result_ok(r, &host, sizeof host, probe_ms_since(t0));
	rc = 0;
done:
	probe_gpu_free(&x->g, total);
	return rc;
}

/* Load the embedded module and find its kernels.  A GPU older than
 * sm_80 gets the compute_80 PTX, which its driver may refuse. */
static int
load_module(struct cudak *x, struct probe_err *err)
{
	char call[80];
	int k;

	if (probe_gpu_check(&x->g, x->g.cu.ModuleLoadData(&x->mod,
	    probe_fatbin), "cuModuleLoadData", err) == -1)
		return -1;
	for (k = 0; k < K_COUNT; k++) {
		snprintf(call, sizeof call, "cuModuleGetFunction(%s)",
		    kernel_names[k]);
		if (probe_gpu_check(&x->g, x->g.cu.ModuleGetFunction(&x->fn[k],
		    x->mod, kernel_names[k]), call, err) == -1)
			return -1;
	}
	return 0;
}

void
probe_cuda_run(struct probe_run *run, const struct probe_opts *opts)
{
	struct cudak *x = xcalloc(1, sizeof *x);
	struct probe_err err = { 0 };
	struct probe_result *r;
	size_t i;
	int rc;

	probe_run_init(run, "cuda", cuda_work, 4);
	if (probe_gpu_open(&x->g, &run->dev, opts, &err) == -1 ||
	    load_module(x, &err) == -1) {
		probe_run_fail_rest(run, 0, err.status, err.msg);
		goto done;
	}
	for (i = 0; i < run->n; i++) {
		r = &run->res[i];
		memset(&err, 0, sizeof err);
		switch (i) {
		case 0:
			rc = work_kat(x, r, &err);
			break;
		case 1:
			rc = work_gemm(x, r, opts->seed, &err);
			break;
		case 2:
			rc = work_reduce(x, r, opts->seed, &err);
			break;
		default:
			rc = work_atomic(x, r, opts->seed, &err);
			break;
		}
		/* A broken context fails what follows too, each with its
		 * own call named. */
		if (rc == -1)
			probe_result_fail(r, PROBE_ERROR, err.msg);
	}
done:
	if (x->mod != NULL)
		x->g.cu.ModuleUnload(x->mod);
	probe_gpu_close(&x->g);
	free(x);
}

#endif
