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
 * driver and the driver version (probe_driver_version).  No driver, a
 * stub or no device is a PROBE_SKIP; a failing call a PROBE_ERROR.
 * CUDA_MODULE_LOADING is set to LAZY first unless already set (gpu.c).
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

/* Where the kernel module says its version (driver.c). */
#define PROBE_DRIVER_PROC	"/proc/driver/nvidia/version"

/* The driver's version ("580.95.05") from the first line of that file's
 * text (len bytes, not NUL-terminated): the first token after "Module"
 * made of digits and at least one dot, at most 32 bytes, followed by a
 * blank.  -1 (out empty) when the line is cut short, holds a byte that
 * is not printable ASCII, does not start "NVRM version:", or has no such
 * token. */
int probe_driver_parse(char *out, size_t n, const char *text, size_t len);

/* probe_driver_parse on the start of the regular file path; -1 (out
 * empty) when it cannot be opened or read or is not a regular file. */
int probe_driver_read(char *out, size_t n, const char *path);

/* The driver's version into out: from procpath (PROBE_DRIVER_PROC; NULL:
 * not read) unless nvml is given, else from NVML (nvml, else
 * libnvidia-ml.so.1; loader.h).  -1 (out empty) when neither can say:
 * the version is unknown, which is not an error.  A path to NVML named
 * with --lib nvml=PATH is asked, whatever the kernel module says. */
int probe_driver_version(char *out, size_t n, const char *procpath,
    const char *nvml);

#endif
