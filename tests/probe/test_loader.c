/*
 * test_loader.c: the probe's run-time loading (gpu_probes/loader.c)
 * against the real CUDA 13 libraries of the build machines: cuBLAS,
 * cuBLASLt and cuDNN report their versions and real paths without a GPU.
 * The driver is absent here: its cases use the real stub libcuda that
 * CUDA ships, a missing file, and the test double
 * ($(B)/probe/doubles/libcuda.so.1, tests/probe/fake_cuda.c) standing in
 * for a driver with no GPU.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "loader.h"
#include "probeutil.h"

static int
have(const char *path)
{
	return access(path, R_OK) == 0;
}

static void
test_cublas_real(void **state)
{
	struct probe_blas blas;
	struct probe_err err = { 0 };
	char real[PATH_MAX];

	(void)state;
	if (!have(PU_CUDA_LIB "/libcublas.so.13"))
		skip();
	assert_int_equal(probe_blas_load(&blas, PU_CUDA_LIB "/libcublas.so.13",
	    NULL, &err), 0);
	assert_non_null(realpath(PU_CUDA_LIB "/libcublas.so.13", real));
	assert_string_equal(blas.path, real);
	assert_string_equal(blas.version, "13.1.0");
	/* cuBLASLt came in as cuBLAS's dependency; it is found and named. */
	assert_non_null(realpath(PU_CUDA_LIB "/libcublasLt.so.13", real));
	assert_string_equal(blas.ltpath, real);
	assert_string_equal(blas.ltversion, "13.1.0");
	assert_non_null(blas.Sgemm);
	assert_non_null(blas.SetMathMode);
	assert_string_equal(blas.GetStatusName(7),
	    "CUBLAS_STATUS_INVALID_VALUE");
}

static void
test_cudnn_real(void **state)
{
	struct probe_dnn dnn;
	struct probe_err err = { 0 };

	(void)state;
	if (!have(PU_CUDA_LIB "/libcudnn.so.9"))
		skip();
	assert_int_equal(probe_dnn_load(&dnn, PU_CUDA_LIB "/libcudnn.so.9",
	    &err), 0);
	assert_string_equal(dnn.version, "9.19.0");
	assert_non_null(strstr(dnn.path, "libcudnn.so.9"));
	assert_non_null(dnn.ConvolutionForward);
	assert_string_equal(dnn.GetErrorString(3000),
	    "CUDNN_STATUS_NOT_SUPPORTED");
}

/* A path the runner gave that does not load is an error, with dlerror's
 * words; it is not mistaken for "no cuBLAS here". */
static void
test_given_path_missing(void **state)
{
	struct probe_blas blas;
	struct probe_dnn dnn;
	struct probe_err err = { 0 };

	(void)state;
	assert_int_equal(probe_blas_load(&blas, "/nonexistent/libcublas.so.13",
	    NULL, &err), -1);
	assert_int_equal(err.status, PROBE_ERROR);
	assert_non_null(strstr(err.msg,
	    "cuBLAS: /nonexistent/libcublas.so.13"));
	assert_non_null(strstr(err.msg, "No such file"));
	memset(&err, 0, sizeof err);
	assert_int_equal(probe_dnn_load(&dnn, "/etc/hostname", &err), -1);
	assert_int_equal(err.status, PROBE_ERROR);
	assert_non_null(strstr(err.msg, "cuDNN: /etc/hostname"));
}

/* A library without the entry points we need is named with the one
 * missing. */
static void
test_wrong_library(void **state)
{
	struct probe_blas blas;
	struct probe_err err = { 0 };

	(void)state;
	if (!have(PU_CUDA_LIB "/libcudart.so.13"))
		skip();
	assert_int_equal(probe_blas_load(&blas, PU_CUDA_LIB "/libcudart.so.13",
	    NULL, &err), -1);
	assert_int_equal(err.status, PROBE_ERROR);
	assert_non_null(strstr(err.msg, "no cublasCreate_v2"));
}

static void
test_driver_missing(void **state)
{
	struct probe_cu cu;
	struct probe_err err = { 0 };

	(void)state;
	assert_int_equal(probe_cu_load(&cu, "/nonexistent/libcuda.so.1", &err),
	    -1);
	assert_int_equal(err.status, PROBE_SKIP);
	assert_string_equal(err.msg,
	    "no NVIDIA driver (/nonexistent/libcuda.so.1 not found)");
}

/* CUDA's own stub answers every call with CUDA_ERROR_STUB_LIBRARY: it
 * must never pass for a driver. */
static void
test_driver_stub(void **state)
{
	struct probe_cu cu;
	struct probe_err err = { 0 };

	(void)state;
	if (!have(PU_CUDA_LIB "/stubs/libcuda.so"))
		skip();
	assert_int_equal(probe_cu_load(&cu, PU_CUDA_LIB "/stubs/libcuda.so",
	    &err), -1);
	assert_int_equal(err.status, PROBE_SKIP);
	assert_string_equal(err.msg,
	    "stub libcuda (cuDriverGetVersion: CUDA_ERROR_STUB_LIBRARY)");
}

/* Through the test double: every entry point resolved through
 * cuGetProcAddress to the variant whose ABI loader.h declares. */
static void
test_driver_double(void **state)
{
	struct probe_cu cu;
	struct probe_err err = { 0 };
	char fake[PATH_MAX], buf[32];
	void *h;

	(void)state;
	assert_int_equal(pu_build_path(fake, "probe/doubles/libcuda.so.1"), 0);
	assert_int_equal(probe_cu_load(&cu, fake, &err), 0);
	assert_int_equal(cu.version, 13000);
	assert_non_null(cu.Init);
	assert_non_null(cu.LaunchKernel);
	assert_int_equal(cu.Init(0), PCU_ERROR_NO_DEVICE);
	assert_string_equal(probe_cu_errname(&cu, 100, buf, sizeof buf),
	    "CUDA_ERROR_NO_DEVICE");
	/* Not known to the double: our table, then a number. */
	assert_string_equal(probe_cu_errname(&cu, 222, buf, sizeof buf),
	    "CUDA_ERROR_UNSUPPORTED_PTX_VERSION");
	assert_string_equal(probe_cu_errname(&cu, 4242, buf, sizeof buf),
	    "CUDA error 4242");
	assert_non_null(h = dlopen(fake, RTLD_NOW | RTLD_NOLOAD));
	/* cuMemAlloc_v2, not the 32-bit ABI of the plain name ... */
	assert_ptr_equal((void *)cu.MemAlloc, dlsym(h, "cuMemAlloc_v2"));
	assert_ptr_equal((void *)cu.DevicePrimaryCtxRelease,
	    dlsym(h, "cuDevicePrimaryCtxRelease_v2"));
	/* ... but cuCtxSynchronize(void), not CUDA 13's _v2(CUcontext). */
	assert_ptr_equal((void *)cu.CtxSynchronize,
	    dlsym(h, "cuCtxSynchronize"));
	dlclose(h);
}

static void
test_nvml_absent(void **state)
{
	char v[96] = "x";

	(void)state;
	assert_int_equal(probe_nvml_driver(v, sizeof v,
	    "/nonexistent/libnvidia-ml.so.1"), -1);
	assert_string_equal(v, "");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cublas_real),
		cmocka_unit_test(test_cudnn_real),
		cmocka_unit_test(test_given_path_missing),
		cmocka_unit_test(test_wrong_library),
		cmocka_unit_test(test_driver_missing),
		cmocka_unit_test(test_driver_stub),
		cmocka_unit_test(test_driver_double),
		cmocka_unit_test(test_nvml_absent),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
