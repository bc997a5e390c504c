/*
 * fake_cuda.c: a TEST DOUBLE of the NVIDIA driver's libcuda.so.1,
 * standing in for the GPU driver that the build machines do not have.
 * It is not NVIDIA's code and talks to no hardware: it implements the
 * two entry points envparity-probe takes by dlsym (cuDriverGetVersion,
 * cuGetProcAddress_v2) and, through cuGetProcAddress, the ones it then
 * asks for, with cuda.h's prototypes, and answers as a driver with no
 * usable GPU would.
 *
 * The build makes it as $(B)/probe/doubles/libcuda.so.1; the tests pass
 * it with `envparity-probe --lib cuda=PATH`.
 *
 * FAKE_CUDA_MODE chooses how it behaves:
 *	no_device (default)	cuInit returns CUDA_ERROR_NO_DEVICE
 *	zero_devices		cuInit succeeds, cuDeviceGetCount says 0
 *	one_device		one device, "Fake GPU (test double)", whose
 *				primary context can be made current, and
 *				nothing more: loading a module or allocating
 *				memory fails (CUDA_ERROR_UNKNOWN), so that a
 *				backend gets past opening the GPU (the driver
 *				version, its libraries) and runs no workload
 *	init_fails		cuInit returns CUDA_ERROR_UNKNOWN
 *	missing_symbol		cuGetProcAddress has no cuModuleLoadData
 * FAKE_CUDA_VERSION is what cuDriverGetVersion reports (default 13000).
 * FAKE_CUDA_LOG names a file to which cuInit appends one line,
 * "cuInit CUDA_MODULE_LOADING=VALUE" ("(unset)" when it is not set): the
 * environment as the driver sees it when it initialises.
 * As the real driver does, cuGetProcAddress refuses (CUDA_ERROR_INVALID_
 * VALUE) a cudaVersion newer than the driver's, and hands out the newest
 * variant of a name not newer than the version asked for: a caller that
 * asks for too new a version gets cuCtxSynchronize_v2(CUcontext) and the
 * like, as the real CUDA 13 driver gave us on an H100.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CUDA_SUCCESS			0
#define CUDA_ERROR_INVALID_VALUE	1
#define CUDA_ERROR_NO_DEVICE		100
#define CUDA_ERROR_UNKNOWN		999

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef void *CUcontext, *CUmodule, *CUfunction, *CUstream;

/* Every entry point is exported: a real libcuda.so.1 exports them too. */
int cuDriverGetVersion(int *);
CUresult cuGetProcAddress_v2(const char *, void **, int, uint64_t, int *);
CUresult cuInit(unsigned);
CUresult cuGetErrorName(CUresult, const char **);
CUresult cuDeviceGetCount(int *);
CUresult cuDeviceGet(CUdevice *, int);
CUresult cuDeviceGetName(char *, int, CUdevice);
CUresult cuDeviceGetAttribute(int *, int, CUdevice);
CUresult cuDevicePrimaryCtxRetain(CUcontext *, CUdevice);
CUresult cuDevicePrimaryCtxRelease_v2(CUdevice);
CUresult cuCtxSetCurrent(CUcontext);
CUresult cuCtxSynchronize(void);
CUresult cuCtxSynchronize_v2(CUcontext);
CUresult cuDevicePrimaryCtxRelease(CUdevice);
CUresult cuMemAlloc(unsigned *, unsigned);
CUresult cuModuleLoadData(CUmodule *, const void *);
CUresult cuModuleUnload(CUmodule);
CUresult cuModuleGetFunction(CUfunction *, CUmodule, const char *);
CUresult cuLaunchKernel(CUfunction, unsigned, unsigned, unsigned, unsigned,
    unsigned, unsigned, unsigned, CUstream, void **, void **);
CUresult cuMemAlloc_v2(CUdeviceptr *, size_t);
CUresult cuMemFree_v2(CUdeviceptr);
CUresult cuMemcpyHtoD_v2(CUdeviceptr, const void *, size_t);
CUresult cuMemcpyDtoH_v2(void *, CUdeviceptr, size_t);
CUresult cuMemsetD32_v2(CUdeviceptr, unsigned, size_t);

static int
mode_is(const char *m)
{
	const char *e = getenv("FAKE_CUDA_MODE");

	if (e == NULL || *e == '\0')
		e = "no_device";
	return strcmp(e, m) == 0;
}

static int
version(void)
{
	const char *e = getenv("FAKE_CUDA_VERSION");

	return e != NULL ? atoi(e) : 13000;
}

int
cuDriverGetVersion(int *v)
{
	*v = version();
	return CUDA_SUCCESS;
}

/* FAKE_CUDA_LOG: what the driver saw in its environment at cuInit. */
static void
log_init(void)
{
	const char *path = getenv("FAKE_CUDA_LOG"), *v;
	FILE *fp;

	if (path == NULL || *path == '\0' || (fp = fopen(path, "a")) == NULL)
		return;
	v = getenv("CUDA_MODULE_LOADING");
	fprintf(fp, "cuInit CUDA_MODULE_LOADING=%s\n", v != NULL ? v :
	    "(unset)");
	fclose(fp);
}

CUresult
cuInit(unsigned flags)
{
	(void)flags;
	log_init();
	if (mode_is("zero_devices") || mode_is("one_device"))
		return CUDA_SUCCESS;
	if (mode_is("init_fails"))
		return CUDA_ERROR_UNKNOWN;
	return CUDA_ERROR_NO_DEVICE;
}

CUresult
cuGetErrorName(CUresult rc, const char **s)
{
	switch (rc) {
	case CUDA_SUCCESS:
		*s = "CUDA_SUCCESS";
		return CUDA_SUCCESS;
	case CUDA_ERROR_NO_DEVICE:
		*s = "CUDA_ERROR_NO_DEVICE";
		return CUDA_SUCCESS;
	case CUDA_ERROR_UNKNOWN:
		*s = "CUDA_ERROR_UNKNOWN";
		return CUDA_SUCCESS;
	}
	*s = NULL;
	return CUDA_ERROR_INVALID_VALUE;
}

CUresult
cuDeviceGetCount(int *n)
{
	*n = mode_is("one_device") ? 1 : 0;
	return CUDA_SUCCESS;
}

/* one_device: device 0 and its primary context, nothing else. */
static char fake_ctx;

CUresult
cuDeviceGet(CUdevice *d, int i)
{
	if (!mode_is("one_device") || i != 0)
		return CUDA_ERROR_INVALID_VALUE;
	*d = 0;
	return CUDA_SUCCESS;
}

CUresult
cuDeviceGetName(char *s, int n, CUdevice d)
{
	if (!mode_is("one_device") || d != 0 || n < 1)
		return CUDA_ERROR_INVALID_VALUE;
	snprintf(s, (size_t)n, "Fake GPU (test double)");
	return CUDA_SUCCESS;
}

CUresult
cuDeviceGetAttribute(int *v, int a, CUdevice d)
{
	if (!mode_is("one_device") || d != 0)
		return CUDA_ERROR_INVALID_VALUE;
	switch (a) {
	case 16:	/* CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT */
		*v = 2;
		return CUDA_SUCCESS;
	case 75:	/* COMPUTE_CAPABILITY_MAJOR */
		*v = 9;
		return CUDA_SUCCESS;
	case 76:	/* COMPUTE_CAPABILITY_MINOR */
		*v = 0;
		return CUDA_SUCCESS;
	}
	return CUDA_ERROR_INVALID_VALUE;
}

CUresult
cuDevicePrimaryCtxRetain(CUcontext *c, CUdevice d)
{
	if (!mode_is("one_device") || d != 0)
		return CUDA_ERROR_INVALID_VALUE;
	*c = &fake_ctx;
	return CUDA_SUCCESS;
}

CUresult
cuDevicePrimaryCtxRelease_v2(CUdevice d)
{
	return mode_is("one_device") && d == 0 ? CUDA_SUCCESS :
	    CUDA_ERROR_INVALID_VALUE;
}

CUresult
cuCtxSetCurrent(CUcontext c)
{
	return mode_is("one_device") && (c == NULL || c == &fake_ctx) ?
	    CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

/* The double runs nothing: each of these answers CUDA_ERROR_UNKNOWN,
 * in every mode. */
#define UNREACHED(decl)	CUresult decl { return CUDA_ERROR_UNKNOWN; }
UNREACHED(cuCtxSynchronize(void))
UNREACHED(cuCtxSynchronize_v2(CUcontext c))
UNREACHED(cuDevicePrimaryCtxRelease(CUdevice d))
UNREACHED(cuMemAlloc(unsigned *p, unsigned n))
UNREACHED(cuModuleLoadData(CUmodule *m, const void *p))
UNREACHED(cuModuleUnload(CUmodule m))
UNREACHED(cuModuleGetFunction(CUfunction *f, CUmodule m, const char *n))
UNREACHED(cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz,
    unsigned bx, unsigned by, unsigned bz, unsigned sh, CUstream s, void **p,
    void **e))
UNREACHED(cuMemAlloc_v2(CUdeviceptr *p, size_t n))
UNREACHED(cuMemFree_v2(CUdeviceptr p))
UNREACHED(cuMemcpyHtoD_v2(CUdeviceptr d, const void *h, size_t n))
UNREACHED(cuMemcpyDtoH_v2(void *h, CUdeviceptr d, size_t n))
UNREACHED(cuMemsetD32_v2(CUdeviceptr d, unsigned v, size_t n))

/* Base names, as callers pass them, with the CUDA version each variant
 * appeared in: cuGetProcAddress gives the newest not newer than asked,
 * as the real driver does (cudaTypedefs.h's PFN_*_vNNNN). */
static const struct {
	const char *name;
	int since;
	void *fn;
} table[] = {
	{ "cuInit", 2000, (void *)cuInit },
	{ "cuGetErrorName", 6000, (void *)cuGetErrorName },
	{ "cuDeviceGetCount", 2000, (void *)cuDeviceGetCount },
	{ "cuDeviceGet", 2000, (void *)cuDeviceGet },
	{ "cuDeviceGetName", 2000, (void *)cuDeviceGetName },
	{ "cuDeviceGetAttribute", 2000, (void *)cuDeviceGetAttribute },
	{ "cuDevicePrimaryCtxRetain", 7000, (void *)cuDevicePrimaryCtxRetain },
	{ "cuDevicePrimaryCtxRelease", 7000,
	    (void *)cuDevicePrimaryCtxRelease },
	{ "cuDevicePrimaryCtxRelease", 11000,
	    (void *)cuDevicePrimaryCtxRelease_v2 },
	{ "cuCtxSetCurrent", 4000, (void *)cuCtxSetCurrent },
	{ "cuCtxSynchronize", 2000, (void *)cuCtxSynchronize },
	{ "cuCtxSynchronize", 13000, (void *)cuCtxSynchronize_v2 },
	{ "cuModuleLoadData", 2000, (void *)cuModuleLoadData },
	{ "cuModuleUnload", 2000, (void *)cuModuleUnload },
	{ "cuModuleGetFunction", 2000, (void *)cuModuleGetFunction },
	{ "cuLaunchKernel", 4000, (void *)cuLaunchKernel },
	{ "cuMemAlloc", 2000, (void *)cuMemAlloc },
	{ "cuMemAlloc", 3020, (void *)cuMemAlloc_v2 },
	{ "cuMemFree", 3020, (void *)cuMemFree_v2 },
	{ "cuMemcpyHtoD", 3020, (void *)cuMemcpyHtoD_v2 },
	{ "cuMemcpyDtoH", 3020, (void *)cuMemcpyDtoH_v2 },
	{ "cuMemsetD32", 3020, (void *)cuMemsetD32_v2 },
};

CUresult
cuGetProcAddress_v2(const char *symbol, void **pfn, int cudaVersion,
    uint64_t flags, int *status)
{
	int best = -1, found = 0;
	size_t i;

	(void)flags;
	*pfn = NULL;
	if (cudaVersion > version())
		return CUDA_ERROR_INVALID_VALUE;
	for (i = 0; i < sizeof table / sizeof table[0]; i++) {
		if (strcmp(table[i].name, symbol) != 0)
			continue;
		if (mode_is("missing_symbol") &&
		    strcmp(symbol, "cuModuleLoadData") == 0)
			continue;
		found = 1;
		if (table[i].since <= cudaVersion &&
		    (best == -1 || table[i].since > table[best].since))
			best = (int)i;
	}
	if (best >= 0)
		*pfn = table[best].fn;
	if (status != NULL)	/* CU_GET_PROC_ADDRESS_* */
		*status = best >= 0 ? 0 : found ? 2 : 1;
	return CUDA_SUCCESS;
}
