/*
 * loader.h: the NVIDIA libraries the probe uses, loaded at run time and
 * never linked, so that one binary runs on any GPU host (and on hosts
 * without one).  Each library is a table of function pointers filled by
 * loader.c, the only probe file that includes <dlfcn.h>.
 *
 * The prototypes are declared here from the public headers of CUDA 13.0
 * (cuda.h, cublas_api.h, cudnn_*_v9.h), with our own type names so that
 * building needs no CUDA header.  Handles are opaque pointers, status
 * codes plain ints, as in those headers.
 */
#ifndef EP_PROBE_LOADER_H
#define EP_PROBE_LOADER_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "probe.h"

/* CUDA driver API (cuda.h). */
typedef int pcu_result;			/* CUresult */
typedef int pcu_device;			/* CUdevice */
typedef unsigned long long pcu_ptr;	/* CUdeviceptr (_v2: 64-bit) */
typedef struct pcu_ctx_st *pcu_ctx;
typedef struct pcu_mod_st *pcu_module;
typedef struct pcu_func_st *pcu_function;
typedef struct pcu_stream_st *pcu_stream;

#define PCU_SUCCESS			0
#define PCU_ERROR_STUB_LIBRARY		34
#define PCU_ERROR_NO_DEVICE		100
#define PCU_ATTR_MULTIPROCESSOR_COUNT	16
#define PCU_ATTR_CC_MAJOR		75
#define PCU_ATTR_CC_MINOR		76
/* The newest ABI we were written against: cuGetProcAddress gets at
 * most min(driver, this), and each entry point the version of the
 * prototype below (loader.c). */
#define PCU_API_VERSION			13000

struct probe_cu {
	void *handle;
	char path[PATH_MAX];	/* the file loaded, symlinks resolved */
	int version;		/* cuDriverGetVersion: 1000 major + 10 minor */

	/* By dlsym: the only two NVIDIA says to look up that way. */
	pcu_result (*DriverGetVersion)(int *);
	pcu_result (*GetProcAddress)(const char *, void **, int, uint64_t,
	    int *);
	/* The rest by cuGetProcAddress, by base name, each at the ABI
	 * version of its prototype here (cudaTypedefs.h's PFN_*_vNNNN). */
	pcu_result (*Init)(unsigned);
	pcu_result (*GetErrorName)(pcu_result, const char **);
	pcu_result (*DeviceGetCount)(int *);
	pcu_result (*DeviceGet)(pcu_device *, int);
	pcu_result (*DeviceGetName)(char *, int, pcu_device);
	pcu_result (*DeviceGetAttribute)(int *, int, pcu_device);
	pcu_result (*DevicePrimaryCtxRetain)(pcu_ctx *, pcu_device);
	pcu_result (*DevicePrimaryCtxRelease)(pcu_device);
	pcu_result (*CtxSetCurrent)(pcu_ctx);
	pcu_result (*CtxSynchronize)(void);
	pcu_result (*ModuleLoadData)(pcu_module *, const void *);
	pcu_result (*ModuleUnload)(pcu_module);
	pcu_result (*ModuleGetFunction)(pcu_function *, pcu_module,
	    const char *);
	pcu_result (*LaunchKernel)(pcu_function, unsigned, unsigned, unsigned,
	    unsigned, unsigned, unsigned, unsigned, pcu_stream, void **,
	    void **);
	pcu_result (*MemAlloc)(pcu_ptr *, size_t);
	pcu_result (*MemFree)(pcu_ptr);
	pcu_result (*MemcpyHtoD)(pcu_ptr, const void *, size_t);
	pcu_result (*MemcpyDtoH)(void *, pcu_ptr, size_t);
	pcu_result (*MemsetD32)(pcu_ptr, unsigned, size_t);
};

/* Load the driver from path (NULL: "libcuda.so.1" by the loader's
 * search), take cuDriverGetVersion and cuGetProcAddress_v2 by dlsym and
 * every other entry point through cuGetProcAddress, at the ABI version
 * its prototype has.  A missing library or
 * a stub (its cuDriverGetVersion answers CUDA_ERROR_STUB_LIBRARY) is a
 * PROBE_SKIP; a driver without an entry point we need is a PROBE_ERROR.
 * The library stays loaded for the life of the process. */
int probe_cu_load(struct probe_cu *cu, const char *path,
    struct probe_err *err);

/* The name of a CUDA status ("CUDA_ERROR_NO_DEVICE"), from the driver
 * when it can say, else from our table, else "CUDA error N" in buf. */
const char *probe_cu_errname(const struct probe_cu *cu, pcu_result rc,
    char *buf, size_t n);

/* The driver's version string from NVML (path, or "libnvidia-ml.so.1")
 * into out; -1 (out empty) when NVML is missing or fails: the version is
 * then unknown, which is not an error. */
int probe_nvml_driver(char *out, size_t n, const char *path);

/* cuBLAS (cublas_api.h). */
#define PBLAS_OP_N		0
#define PBLAS_DEFAULT_MATH	0
#define PBLAS_PEDANTIC_MATH	2

struct probe_blas {
	void *handle, *lt;
	char path[PATH_MAX], ltpath[PATH_MAX];
	char version[32], ltversion[32];	/* "13.1.0"; "" if unknown */

	int (*Create)(void **);
	int (*Destroy)(void *);
	int (*SetMathMode)(void *, int);
	int (*Sgemm)(void *, int, int, int, int, int, const float *,
	    const float *, int, const float *, int, const float *, float *,
	    int);
	const char *(*GetStatusName)(int);
	int (*GetProperty)(int, int *);
};

/* Load cuBLAS from path (NULL: libcublas.so.13, then .12), after
 * cuBLASLt from ltpath when given, so that cuBLAS binds to that one.  Not
 * found is a PROBE_SKIP when searched by soname and a PROBE_ERROR when
 * path was given; a missing entry point is a PROBE_ERROR. */
int probe_blas_load(struct probe_blas *blas, const char *path,
    const char *ltpath, struct probe_err *err);

/* cuDNN (cudnn_graph_v9.h, cudnn_ops_v9.h, cudnn_cnn_v9.h).  The legacy
 * convolution API is deprecated in cuDNN 9 but still exported. */
#define PDNN_TENSOR_NCHW	0
#define PDNN_DATA_FLOAT		0
#define PDNN_CROSS_CORRELATION	1
#define PDNN_FMA_MATH		3
#define PDNN_FWD_IMPLICIT_GEMM	0

struct probe_dnn {
	void *handle;
	char path[PATH_MAX];
	char version[32];

	size_t (*GetVersion)(void);
	const char *(*GetErrorString)(int);
	int (*Create)(void **);
	int (*Destroy)(void *);
	int (*CreateTensorDescriptor)(void **);
	int (*SetTensor4dDescriptor)(void *, int, int, int, int, int, int);
	int (*DestroyTensorDescriptor)(void *);
	int (*CreateFilterDescriptor)(void **);
	int (*SetFilter4dDescriptor)(void *, int, int, int, int, int, int);
	int (*DestroyFilterDescriptor)(void *);
	int (*CreateConvolutionDescriptor)(void **);
	int (*SetConvolution2dDescriptor)(void *, int, int, int, int, int,
	    int, int, int);
	int (*DestroyConvolutionDescriptor)(void *);
	int (*SetConvolutionMathType)(void *, int);
	int (*GetConvolution2dForwardOutputDim)(void *, void *, void *,
	    int *, int *, int *, int *);
	int (*GetConvolutionForwardWorkspaceSize)(void *, void *, void *,
	    void *, void *, int, size_t *);
	int (*ConvolutionForward)(void *, const void *, void *, const void *,
	    void *, const void *, void *, int, void *, size_t, const void *,
	    void *, void *);
};

/* Load cuDNN from path (NULL: libcudnn.so.9), with the same rules as
 * probe_blas_load. */
int probe_dnn_load(struct probe_dnn *dnn, const char *path,
    struct probe_err *err);

#endif
