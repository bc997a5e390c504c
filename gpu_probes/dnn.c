/*
 * dnn.c: the cudnn backend: one NCHW fp32 forward convolution (spec.h)
 * through the legacy API with the algorithm fixed to IMPLICIT_GEMM and
 * FMA math (no TF32), so that cuDNN's heuristics and autotuning never
 * choose for us.  Inputs are made on the host and copied.
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

static const char *const dnn_work[] = { "conv_fwd" };

struct conv {
	void *h, *xd, *wd, *yd, *cd;
	pcu_ptr x, w, y, ws;
	size_t wslen, ylen;
};

static int
dnn_check(const struct probe_dnn *dnn, int rc, const char *call,
    struct probe_err *err)
{
	const char *name;

	if (rc == 0)
		return 0;
	name = dnn->GetErrorString != NULL ? dnn->GetErrorString(rc) : NULL;
	return probe_err_set(err, PROBE_ERROR, "%s: %s (%d)", call,
	    name != NULL ? name : "cuDNN status", rc);
}

#define DNN_CALL(call, args) \
	dnn_check(dnn, dnn->call args, "cudnn" #call, err)

/* Handle, descriptors and buffers; the output's shape is cuDNN's. */
static int
conv_setup(struct conv *cv, struct probe_gpu *g, struct probe_dnn *dnn,
    uint64_t seed, struct probe_err *err)
{
	size_t nx = (size_t)EP_CONV_N * EP_CONV_C * EP_CONV_H * EP_CONV_W;
	size_t nw = (size_t)EP_CONV_K * EP_CONV_C * EP_CONV_R * EP_CONV_S;
	float *hx = xmalloc(nx * sizeof *hx), *hw = xmalloc(nw * sizeof *hw);
	int n, c, h, w, rc = -1;

	probe_fill_unit(hx, nx, ep_rng_key(seed, EP_RNG_CONV_X));
	probe_fill_unit(hw, nw, ep_rng_key(seed, EP_RNG_CONV_W));
	if (probe_gpu_alloc(g, &cv->x, hx, nx * 4, err) == -1 ||
	    probe_gpu_alloc(g, &cv->w, hw, nw * 4, err) == -1)
		goto done;
	if (DNN_CALL(Create, (&cv->h)) == -1 ||
	    DNN_CALL(CreateTensorDescriptor, (&cv->xd)) == -1 ||
	    DNN_CALL(CreateTensorDescriptor, (&cv->yd)) == -1 ||
	    DNN_CALL(CreateFilterDescriptor, (&cv->wd)) == -1 ||
	    DNN_CALL(CreateConvolutionDescriptor, (&cv->cd)) == -1)
		goto done;
	if (DNN_CALL(SetTensor4dDescriptor, (cv->xd, PDNN_TENSOR_NCHW,
	    PDNN_DATA_FLOAT, EP_CONV_N, EP_CONV_C, EP_CONV_H,
	    EP_CONV_W)) == -1 ||
	    DNN_CALL(SetFilter4dDescriptor, (cv->wd, PDNN_DATA_FLOAT,
	    PDNN_TENSOR_NCHW, EP_CONV_K, EP_CONV_C, EP_CONV_R,
	    EP_CONV_S)) == -1 ||
	    DNN_CALL(SetConvolution2dDescriptor, (cv->cd, EP_CONV_PAD,
	    EP_CONV_PAD, 1, 1, 1, 1, PDNN_CROSS_CORRELATION,
	    PDNN_DATA_FLOAT)) == -1 ||
	    DNN_CALL(SetConvolutionMathType, (cv->cd, PDNN_FMA_MATH)) == -1 ||
	    DNN_CALL(GetConvolution2dForwardOutputDim, (cv->cd, cv->xd, cv->wd,
	    &n, &c, &h, &w)) == -1 ||
	    DNN_CALL(SetTensor4dDescriptor, (cv->yd, PDNN_TENSOR_NCHW,
	    PDNN_DATA_FLOAT, n, c, h, w)) == -1 ||
	    DNN_CALL(GetConvolutionForwardWorkspaceSize, (cv->h, cv->xd,
	    cv->wd, cv->cd, cv->yd, PDNN_FWD_IMPLICIT_GEMM,
	    &cv->wslen)) == -1)
		goto done;
	cv->ylen = (size_t)n * c * h * w * sizeof(float);
	if (probe_gpu_alloc(g, &cv->y, NULL, cv->ylen, err) == -1 ||
	    (cv->wslen > 0 && probe_gpu_alloc(g, &cv->ws, NULL, cv->wslen,
	    err) == -1))
		goto done;
	rc = 0;
done:
	free(hw);
	free(hx);
	return rc;
}

static void
conv_free(struct conv *cv, struct probe_gpu *g, struct probe_dnn *dnn)
{
	if (cv->cd != NULL)
		dnn->DestroyConvolutionDescriptor(cv->cd);
	if (cv->wd != NULL)
		dnn->DestroyFilterDescriptor(cv->wd);
	if (cv->yd != NULL)
		dnn->DestroyTensorDescriptor(cv->yd);
	if (cv->xd != NULL)
		dnn->DestroyTensorDescriptor(cv->xd);
	if (cv->h != NULL)
		dnn->Destroy(cv->h);
	probe_gpu_free(g, cv->ws);
	probe_gpu_free(g, cv->y);
	probe_gpu_free(g, cv->w);
	probe_gpu_free(g, cv->x);
}

static int
conv_run(struct conv *cv, struct probe_gpu *g, struct probe_dnn *dnn,
    float *host, struct probe_err *err)
{
	const float one = 1.0f, zero = 0.0f;

	if (DNN_CALL(ConvolutionForward, (cv->h, &one, cv->xd,
	    (void *)(uintptr_t)cv->x, cv->wd, (void *)(uintptr_t)cv->w, cv->cd,
	    PDNN_FWD_IMPLICIT_GEMM, (void *)(uintptr_t)cv->ws, cv->wslen,
	    &zero, cv->yd, (void *)(uintptr_t)cv->y)) == -1)
		return -1;
	return probe_gpu_download(g, host, cv->y, cv->ylen, err);
}

void
probe_cudnn_run(struct probe_run *run, const struct probe_opts *opts)
{
	struct probe_gpu g;
	struct probe_dnn dnn;
	struct probe_err err = { 0 };
	struct conv cv = { 0 };
	float *host = NULL;
	uint64_t t0;

	probe_run_init(run, "cudnn", dnn_work, 1);
	if (probe_gpu_open(&g, &run->dev, opts, &err) == -1 ||
	    probe_dnn_load(&dnn, opts->lib_cudnn, &err) == -1) {
		probe_run_fail_rest(run, 0, err.status, err.msg);
		probe_gpu_close(&g);
		return;
	}
	probe_libs_set(&run->libs, "cudnn", dnn.version);
	probe_libs_set(&run->libs, "cudnn_path", dnn.path);
	if (conv_setup(&cv, &g, &dnn, opts->seed, &err) == -1) {
		probe_run_fail_rest(run, 0, err.status, err.msg);
		goto done;
	}
	host = xmalloc(cv.ylen);
	/* Untimed once, so that cuDNN's loading of its engines is not
	 * charged to the convolution; then timed. */
	if (conv_run(&cv, &g, &dnn, host, &err) == -1) {
		probe_result_fail(&run->res[0], PROBE_ERROR, err.msg);
		goto done;
	}
	t0 = ep_now_ns();
	if (conv_run(&cv, &g, &dnn, host, &err) == -1)
		probe_result_fail(&run->res[0], PROBE_ERROR, err.msg);
	else
		probe_result_ok(&run->res[0], host, cv.ylen,
		    probe_ms_since(t0));
done:
	free(host);
	conv_free(&cv, &g, &dnn);
	probe_gpu_close(&g);
}
