/*
 * loader.c: dlopen and symbol tables for libcuda, NVML, cuBLAS and cuDNN
 * (loader.h), the only probe file that includes <dlfcn.h>.  Modelled on
 * libgit2's streams/openssl_dynamic.c: a list of sonames tried in order,
 * a table of function pointers filled from each library, and one error
 * that keeps dlerror()'s text.
 *
 * The driver follows NVIDIA's advice: only cuDriverGetVersion and
 * cuGetProcAddress_v2 by dlsym, the rest through cuGetProcAddress with
 * the base name and min(driver, 13.0, the ABI version of our prototype),
 * which picks the versioned symbol (cuMemAlloc_v2,
 * cuDevicePrimaryCtxRelease_v2, but cuCtxSynchronize and not its _v2)
 * that matches the prototypes in loader.h; a plain dlsym of "cuMemAlloc"
 * would bind the old 32-bit ABI.
 */
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loader.h"

struct sym {
	const char *name;
	size_t off;		/* of the function pointer in its table */
};

/* The driver's entry points with the CUDA version of the ABI that
 * loader.h declares (cudaTypedefs.h: PFN_cuMemAlloc_v3020 and so on).
 * cuGetProcAddress hands out the newest variant not newer than the
 * version asked for, so asking for the driver's own version would get
 * cuCtxSynchronize_v2(CUcontext) from a CUDA 13 driver, not the
 * cuCtxSynchronize(void) declared here: seen on an H100 with driver 580
 * as CUDA_ERROR_CONTEXT_IS_DESTROYED. */
struct cusym {
	const char *name;
	size_t off;
	int abi;
};

#define CU(f, v)	{ "cu" #f, offsetof(struct probe_cu, f), v }
static const struct cusym cu_syms[] = {
	CU(Init, 2000), CU(GetErrorName, 6000), CU(DeviceGetCount, 2000),
	CU(DeviceGet, 2000), CU(DeviceGetName, 2000),
	CU(DeviceGetAttribute, 2000), CU(DevicePrimaryCtxRetain, 7000),
	CU(DevicePrimaryCtxRelease, 11000), CU(CtxSetCurrent, 4000),
	CU(CtxSynchronize, 2000), CU(ModuleLoadData, 2000),
	CU(ModuleUnload, 2000), CU(ModuleGetFunction, 2000),
	CU(LaunchKernel, 4000), CU(MemAlloc, 3020), CU(MemFree, 3020),
	CU(MemcpyHtoD, 3020), CU(MemcpyDtoH, 3020), CU(MemsetD32, 3020),
};

#define BLAS(f, n)	{ n, offsetof(struct probe_blas, f) }
static const struct sym blas_syms[] = {
	BLAS(Create, "cublasCreate_v2"), BLAS(Destroy, "cublasDestroy_v2"),
	BLAS(SetMathMode, "cublasSetMathMode"),
	BLAS(Sgemm, "cublasSgemm_v2"),
	BLAS(GetStatusName, "cublasGetStatusName"),
	BLAS(GetProperty, "cublasGetProperty"),
};

#define DNN(f)	{ "cudnn" #f, offsetof(struct probe_dnn, f) }
static const struct sym dnn_syms[] = {
	DNN(GetVersion), DNN(GetErrorString), DNN(Create), DNN(Destroy),
	DNN(CreateTensorDescriptor), DNN(SetTensor4dDescriptor),
	DNN(DestroyTensorDescriptor), DNN(CreateFilterDescriptor),
	DNN(SetFilter4dDescriptor), DNN(DestroyFilterDescriptor),
	DNN(CreateConvolutionDescriptor), DNN(SetConvolution2dDescriptor),
	DNN(DestroyConvolutionDescriptor), DNN(SetConvolutionMathType),
	DNN(GetConvolution2dForwardOutputDim),
	DNN(GetConvolutionForwardWorkspaceSize), DNN(ConvolutionForward),
};

/* CUDA status names for when the driver cannot give them (a stub, or
 * before cuGetErrorName is resolved). */
static const struct {
	int rc;
	const char *name;
} cu_names[] = {
	{ 0, "CUDA_SUCCESS" }, { 1, "CUDA_ERROR_INVALID_VALUE" },
	{ 2, "CUDA_ERROR_OUT_OF_MEMORY" }, { 3, "CUDA_ERROR_NOT_INITIALIZED" },
	{ 34, "CUDA_ERROR_STUB_LIBRARY" }, { 100, "CUDA_ERROR_NO_DEVICE" },
	{ 200, "CUDA_ERROR_INVALID_IMAGE" },
	{ 209, "CUDA_ERROR_NO_BINARY_FOR_GPU" },
	{ 214, "CUDA_ERROR_ECC_UNCORRECTABLE" },
	{ 218, "CUDA_ERROR_INVALID_PTX" },
	{ 222, "CUDA_ERROR_UNSUPPORTED_PTX_VERSION" },
	{ 700, "CUDA_ERROR_ILLEGAL_ADDRESS" },
	{ 719, "CUDA_ERROR_LAUNCH_FAILED" },
	{ 803, "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH" },
	{ 999, "CUDA_ERROR_UNKNOWN" },
};

/* Store a looked-up address into a table slot.  POSIX guarantees that a
 * data pointer from dlsym can hold a function's address. */
static void
set_slot(void *table, size_t off, void *p)
{
	memcpy((char *)table + off, &p, sizeof p);
}

/* A symbol into a function pointer, through the same door. */
static void
get_sym(void *slot, void *handle, const char *name)
{
	void *p = dlsym(handle, name);

	memcpy(slot, &p, sizeof p);
}

/* The file behind a handle, symlinks resolved, into out (PATH_MAX). */
static void
real_path(char *out, void *handle, const char *fallback)
{
	struct link_map *lm = NULL;
	char *r = NULL;

	if (dlinfo(handle, RTLD_DI_LINKMAP, &lm) == 0 && lm != NULL &&
	    lm->l_name != NULL && *lm->l_name != '\0')
		r = realpath(lm->l_name, NULL);
	snprintf(out, PATH_MAX, "%s", r != NULL ? r : fallback);
	free(r);
}

/* dlerror() says "cannot open shared object file" when the search came
 * up empty; anything else (wrong ELF class, a missing dependency, an
 * undefined symbol) is worth quoting. */
static int
not_found(const char *e)
{
	return e != NULL && strstr(e, "No such file or directory") != NULL;
}

/* dlopen the first of names[] that loads; on failure msg gets each
 * name's dlerror() text, separated by "; ".
 *
 * RTLD_NOW, not RTLD_LAZY: laziness defers only the binding of a
 * library's calls out (its PLT: about 300 in cuBLAS, 240 in cuBLASLt,
 * 14 in cuDNN 9's front library), not its relocations or our lookups
 * into it, and timed apart on a build machine (cuBLAS 13.1 with
 * cuBLASLt, cuDNN 9.19, warm page cache, 15 fresh processes each) the
 * two differ by less than the noise: about 55 ms and 0.8 ms either way,
 * the time of cuBLASLt's 350,000 relative relocations.  What NOW buys is
 * that a library whose dependency lacks a symbol (a cuBLAS beside an
 * older cuBLASLt) fails here with dlerror()'s words in the line, rather
 * than killing the process at its first call with no line at all. */
static void *
open_first(const char *const *names, size_t n, char *msg, size_t len,
    int *allmissing)
{
	const char *e;
	size_t i, used = 0;
	void *h;

	*allmissing = 1;
	msg[0] = '\0';
	for (i = 0; i < n; i++) {
		if ((h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL)) != NULL)
			return h;
		e = dlerror();
		if (!not_found(e))
			*allmissing = 0;
		if (used < len)
			used += snprintf(msg + used, len - used, "%s%s",
			    i > 0 ? "; " : "", e != NULL ? e : names[i]);
	}
	return NULL;
}

/* Fill table from handle by dlsym; the first missing name fails. */
static int
resolve(void *table, void *handle, const struct sym *syms, size_t n,
    const char *lib, struct probe_err *err)
{
	const char *e;
	size_t i;
	void *p;

	for (i = 0; i < n; i++) {
		dlerror();
		if ((p = dlsym(handle, syms[i].name)) == NULL) {
			e = dlerror();
			return probe_err_set(err, PROBE_ERROR, "%s: no %s (%s)",
			    lib, syms[i].name, e != NULL ? e : "NULL");
		}
		set_slot(table, syms[i].off, p);
	}
	return 0;
}

const char *
probe_cu_errname(const struct probe_cu *cu, pcu_result rc, char *buf,
    size_t n)
{
	const char *s = NULL;
	size_t i;

	if (cu != NULL && cu->GetErrorName != NULL &&
	    cu->GetErrorName(rc, &s) == PCU_SUCCESS && s != NULL)
		return s;
	for (i = 0; i < sizeof cu_names / sizeof cu_names[0]; i++)
		if (cu_names[i].rc == rc)
			return cu_names[i].name;
	snprintf(buf, n, "CUDA error %d", rc);
	return buf;
}

int
probe_cu_load(struct probe_cu *cu, const char *path, struct probe_err *err)
{
	const char *name = path != NULL ? path : "libcuda.so.1", *e;
	char buf[32], msg[400];
	int allmissing, ver, st;
	pcu_result rc;
	size_t i;
	void *p;

	memset(cu, 0, sizeof *cu);
	if ((cu->handle = open_first(&name, 1, msg, sizeof msg,
	    &allmissing)) == NULL) {
		if (allmissing)
			return probe_err_set(err, PROBE_SKIP,
			    "no NVIDIA driver (%s not found)", name);
		return probe_err_set(err, PROBE_SKIP, "no NVIDIA driver (%s)",
		    msg);
	}
	real_path(cu->path, cu->handle, name);
	dlerror();
	get_sym(&cu->DriverGetVersion, cu->handle, "cuDriverGetVersion");
	get_sym(&cu->GetProcAddress, cu->handle, "cuGetProcAddress_v2");
	if (cu->DriverGetVersion == NULL || cu->GetProcAddress == NULL) {
		e = dlerror();
		return probe_err_set(err, PROBE_ERROR, "NVIDIA driver %s too "
		    "old for the probe (%s)", cu->path, e != NULL ? e :
		    "no cuGetProcAddress_v2");
	}
	if ((rc = cu->DriverGetVersion(&cu->version)) != PCU_SUCCESS) {
		if (rc == PCU_ERROR_STUB_LIBRARY)
			return probe_err_set(err, PROBE_SKIP, "stub libcuda "
			    "(cuDriverGetVersion: CUDA_ERROR_STUB_LIBRARY)");
		return probe_err_set(err, PROBE_ERROR, "cuDriverGetVersion: "
		    "%s", probe_cu_errname(NULL, rc, buf, sizeof buf));
	}
	for (i = 0; i < sizeof cu_syms / sizeof cu_syms[0]; i++) {
		ver = cu->version < PCU_API_VERSION ? cu->version :
		    PCU_API_VERSION;
		if (ver > cu_syms[i].abi)
			ver = cu_syms[i].abi;
		p = NULL;
		st = -1;
		rc = cu->GetProcAddress(cu_syms[i].name, &p, ver, 0, &st);
		if (rc == PCU_ERROR_STUB_LIBRARY)
			return probe_err_set(err, PROBE_SKIP, "stub libcuda "
			    "(cuGetProcAddress: CUDA_ERROR_STUB_LIBRARY)");
		if (rc != PCU_SUCCESS || p == NULL)
			return probe_err_set(err, PROBE_ERROR,
			    "cuGetProcAddress(%s, %d): %s (status %d)",
			    cu_syms[i].name, ver, rc != PCU_SUCCESS ?
			    probe_cu_errname(cu, rc, buf, sizeof buf) :
			    "not found", st);
		set_slot(cu, cu_syms[i].off, p);
	}
	return 0;
}

int
probe_nvml_driver(char *out, size_t n, const char *path)
{
	int (*init)(void), (*version)(char *, unsigned), (*shutdown)(void);
	char v[96];
	void *h;
	int rc = -1;

	out[0] = '\0';
	if ((h = dlopen(path != NULL ? path : "libnvidia-ml.so.1",
	    RTLD_NOW | RTLD_LOCAL)) == NULL) {
		dlerror();
		return -1;
	}
	get_sym(&init, h, "nvmlInit_v2");
	get_sym(&version, h, "nvmlSystemGetDriverVersion");
	get_sym(&shutdown, h, "nvmlShutdown");
	if (init == NULL || version == NULL || shutdown == NULL ||
	    init() != 0)
		goto done;
	if (version(v, sizeof v) == 0) {
		v[sizeof v - 1] = '\0';
		snprintf(out, n, "%s", v);
		rc = 0;
	}
	shutdown();
done:
	/* Left loaded: unloading NVML buys nothing in a short process. */
	return rc;
}

/* "13.1.0" from 130100-style numbers (major * 10000 + minor * 100 +
 * patch), as cuBLASLt and cuDNN 9 report them. */
static void
version_6(char *out, size_t n, size_t v)
{
	snprintf(out, n, "%zu.%zu.%zu", v / 10000, v / 100 % 100, v % 100);
}

/* Open path, or else the first soname that loads.  A given path that
 * fails is an error; sonames that all fail are a skip. */
static void *
open_lib(const char *path, const char *const *sonames, size_t n,
    const char *what, struct probe_err *err)
{
	char msg[400];
	int allmissing;
	void *h;

	if (path != NULL) {
		if ((h = open_first(&path, 1, msg, sizeof msg,
		    &allmissing)) == NULL)
			probe_err_set(err, PROBE_ERROR, "%s: %s", what, msg);
		return h;
	}
	if ((h = open_first(sonames, n, msg, sizeof msg, &allmissing)) ==
	    NULL) {
		if (allmissing)
			probe_err_set(err, PROBE_SKIP, "no %s (%s%s not "
			    "found)", what, sonames[0], n > 1 ? " and others" :
			    "");
		else
			probe_err_set(err, PROBE_SKIP, "no %s (%s)", what,
			    msg);
	}
	return h;
}

int
probe_blas_load(struct probe_blas *blas, const char *path,
    const char *ltpath, struct probe_err *err)
{
	static const char *const sonames[] = {
		"libcublas.so.13", "libcublas.so.12",
	};
	static const char *const ltnames[] = {
		"libcublasLt.so.13", "libcublasLt.so.12",
	};
	size_t (*ltversion)(void);
	int maj = 0, min = 0, pat = 0;
	size_t i;

	memset(blas, 0, sizeof *blas);
	/* cuBLAS names cuBLASLt by soname: one already loaded is the one it
	 * gets, so the path capture found wins over the search. */
	if (ltpath != NULL && (blas->lt = open_lib(ltpath, NULL, 0,
	    "cuBLASLt", err)) == NULL)
		return -1;
	if ((blas->handle = open_lib(path, sonames, 2, "cuBLAS", err)) ==
	    NULL)
		return -1;
	real_path(blas->path, blas->handle, path != NULL ? path :
	    "libcublas");
	if (resolve(blas, blas->handle, blas_syms, sizeof blas_syms /
	    sizeof blas_syms[0], blas->path, err) == -1)
		return -1;
	if (blas->GetProperty(0, &maj) == 0 && blas->GetProperty(1, &min) ==
	    0 && blas->GetProperty(2, &pat) == 0)
		snprintf(blas->version, sizeof blas->version, "%d.%d.%d", maj,
		    min, pat);
	for (i = 0; blas->lt == NULL && i < 2; i++)
		blas->lt = dlopen(ltnames[i], RTLD_NOW | RTLD_NOLOAD);
	if (blas->lt != NULL) {
		real_path(blas->ltpath, blas->lt, "libcublasLt");
		get_sym(&ltversion, blas->lt, "cublasLtGetVersion");
		if (ltversion != NULL)
			version_6(blas->ltversion, sizeof blas->ltversion,
			    ltversion());
	}
	dlerror();
	return 0;
}

int
probe_dnn_load(struct probe_dnn *dnn, const char *path,
    struct probe_err *err)
{
	static const char *const sonames[] = { "libcudnn.so.9" };
	size_t v;

	memset(dnn, 0, sizeof *dnn);
	if ((dnn->handle = open_lib(path, sonames, 1, "cuDNN", err)) == NULL)
		return -1;
	real_path(dnn->path, dnn->handle, path != NULL ? path : sonames[0]);
	if (resolve(dnn, dnn->handle, dnn_syms, sizeof dnn_syms /
	    sizeof dnn_syms[0], dnn->path, err) == -1)
		return -1;
	v = dnn->GetVersion();
	if (v >= 90000)
		version_6(dnn->version, sizeof dnn->version, v);
	else	/* cuDNN 8: major * 1000 + minor * 100 + patch */
		snprintf(dnn->version, sizeof dnn->version, "%zu.%zu.%zu",
		    v / 1000, v / 100 % 10, v % 100);
	return 0;
}
