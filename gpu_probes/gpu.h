/*
 * gpu.h: the GPU session that the cuda, cublas and cudnn backends share:
 * the driver loaded (loader.h), device 0's primary context current on the
 * calling thread, and the device's identity for the output lines.
 */
#ifndef EP_PROBE_GPU_H
#define EP_PROBE_GPU_H

#include "loader.h"
#include "probe.h"

struct probe_gpu {
	struct probe_cu cu;
	pcu_device dev;
	pcu_ctx ctx;
	int retained;
};

/* Load the driver (opts->lib_cuda, else libcuda.so.1), cuInit, take
 * device 0 and make its primary context current (the context that the
 * CUDA runtime inside cuBLAS and cuDNN also uses).  dev gets the
 * device's name, compute capability, SM count, the CUDA version of the
 * driver and, from NVML when present, the driver version.  No driver, a
 * stub or no device is a PROBE_SKIP; a failing call a PROBE_ERROR.
 * Call probe_gpu_close() whatever this returns. */
int probe_gpu_open(struct probe_gpu *g, struct probe_device *dev,
    const struct probe_opts *opts, struct probe_err *err);

/* Release the primary context; g may be half open. */
void probe_gpu_close(struct probe_gpu *g);

/* 0 when rc is CUDA_SUCCESS, else -1 with err = "call: CUDA_ERROR_..."
 * (PROBE_ERROR). */
int probe_gpu_check(const struct probe_gpu *g, pcu_result rc,
    const char *call, struct probe_err *err);

/* Device memory of len bytes, filled from host when host is not NULL;
 * *p stays 0 on failure.  Free with probe_gpu_free (0 is ignored). */
int probe_gpu_alloc(struct probe_gpu *g, pcu_ptr *p, const void *host,
    size_t len, struct probe_err *err);
void probe_gpu_free(struct probe_gpu *g, pcu_ptr p);

/* Copy len bytes of device memory to host after the work queued before
 * it is done (cuMemcpyDtoH on the legacy stream synchronises). */
int probe_gpu_download(struct probe_gpu *g, void *host, pcu_ptr p,
    size_t len, struct probe_err *err);

#endif
