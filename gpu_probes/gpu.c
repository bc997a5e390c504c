/*
 * gpu.c: opening the GPU for a backend (gpu.h): the driver, device 0,
 * its primary context, and the identity of what the workloads ran on.
 * The primary context rather than cuCtxCreate, because it needs no
 * versioned create call (cuCtxCreate_v4 is 12.5 and later) and because
 * cuBLAS and cuDNN, through their CUDA runtime, use the same one.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu.h"

int
probe_gpu_check(const struct probe_gpu *g, pcu_result rc, const char *call,
    struct probe_err *err)
{
	char buf[32];

	if (rc == PCU_SUCCESS)
		return 0;
	return probe_err_set(err, PROBE_ERROR, "%s: %s", call,
	    probe_cu_errname(&g->cu, rc, buf, sizeof buf));
}

int
probe_gpu_open(struct probe_gpu *g, struct probe_device *dev,
    const struct probe_opts *opts, struct probe_err *err)
{
	struct probe_cu *cu = &g->cu;
	int count = 0, v;
	pcu_result rc;

	memset(g, 0, sizeof *g);
	/*
	 * Lazy module loading: the driver loads a kernel of a module when
	 * it is first asked for rather than all of them at cuModuleLoad,
	 * and the CUDA runtime inside cuBLAS and cuDNN loads their modules
	 * on first use; the probe uses few of their kernels.  The default
	 * on Linux since CUDA 12.2; drivers from R515 (CUDA 11.7) to CUDA
	 * 12.1 do it only when asked.  Set before libcuda is loaded, and
	 * before any thread of ours exists (setenv is not thread-safe); a
	 * value the user set, EAGER included, is left as it is.
	 */
	setenv("CUDA_MODULE_LOADING", "LAZY", 0);
	if (probe_cu_load(cu, opts->lib_cuda, err) == -1)
		return -1;
	rc = cu->Init(0);
	if (rc == PCU_ERROR_STUB_LIBRARY)
		return probe_err_set(err, PROBE_SKIP,
		    "stub libcuda (cuInit: CUDA_ERROR_STUB_LIBRARY)");
	if (rc == PCU_ERROR_NO_DEVICE)
		return probe_err_set(err, PROBE_SKIP, "no CUDA device");
	if (probe_gpu_check(g, rc, "cuInit", err) == -1)
		return -1;
	if (probe_gpu_check(g, cu->DeviceGetCount(&count),
	    "cuDeviceGetCount", err) == -1)
		return -1;
	if (count < 1)
		return probe_err_set(err, PROBE_SKIP, "no CUDA device");
	if (probe_gpu_check(g, cu->DeviceGet(&g->dev, 0), "cuDeviceGet",
	    err) == -1)
		return -1;

	dev->kind = PROBE_DEV_GPU;
	if (cu->DeviceGetName(dev->name, sizeof dev->name, g->dev) !=
	    PCU_SUCCESS)
		snprintf(dev->name, sizeof dev->name, "unknown");
	dev->name[sizeof dev->name - 1] = '\0';
	if (cu->DeviceGetAttribute(&v, PCU_ATTR_CC_MAJOR, g->dev) ==
	    PCU_SUCCESS)
		dev->cc_major = v;
	if (cu->DeviceGetAttribute(&v, PCU_ATTR_CC_MINOR, g->dev) ==
	    PCU_SUCCESS)
		dev->cc_minor = v;
	if (cu->DeviceGetAttribute(&v, PCU_ATTR_MULTIPROCESSOR_COUNT,
	    g->dev) == PCU_SUCCESS)
		dev->sm_count = v;
	snprintf(dev->cuda_driver, sizeof dev->cuda_driver, "%d.%d",
	    cu->version / 1000, cu->version % 1000 / 10);
	probe_driver_version(dev->driver, sizeof dev->driver,
	    PROBE_DRIVER_PROC, opts->lib_nvml);

	if (probe_gpu_check(g, cu->DevicePrimaryCtxRetain(&g->ctx, g->dev),
	    "cuDevicePrimaryCtxRetain", err) == -1)
		return -1;
	g->retained = 1;
	return probe_gpu_check(g, cu->CtxSetCurrent(g->ctx), "cuCtxSetCurrent",
	    err);
}

void
probe_gpu_close(struct probe_gpu *g)
{
	if (g->retained) {
		g->cu.CtxSetCurrent(NULL);
		g->cu.DevicePrimaryCtxRelease(g->dev);
		g->retained = 0;
	}
}

int
probe_gpu_alloc(struct probe_gpu *g, pcu_ptr *p, const void *host,
    size_t len, struct probe_err *err)
{
	pcu_ptr d = 0;

	*p = 0;
	if (probe_gpu_check(g, g->cu.MemAlloc(&d, len), "cuMemAlloc",
	    err) == -1)
		return -1;
	if (host != NULL && probe_gpu_check(g, g->cu.MemcpyHtoD(d, host, len),
	    "cuMemcpyHtoD", err) == -1) {
		g->cu.MemFree(d);
		return -1;
	}
	*p = d;
	return 0;
}

void
probe_gpu_free(struct probe_gpu *g, pcu_ptr p)
{
	if (p != 0)
		g->cu.MemFree(p);
}

int
probe_gpu_download(struct probe_gpu *g, void *host, pcu_ptr p, size_t len,
    struct probe_err *err)
{
	return probe_gpu_check(g, g->cu.MemcpyDtoH(host, p, len),
	    "cuMemcpyDtoH", err);
}
