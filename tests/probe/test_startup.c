/*
 * test_startup.c: what a GPU process of the probe does before its
 * workloads, seen from outside through the test double of libcuda
 * ($(B)/probe/doubles/libcuda.so.1, tests/probe/fake_cuda.c) and of NVML
 * ($(B)/probe/doubles/libnvidia-ml.so.1, tests/doubles/fake_nvml.c):
 *
 *  - CUDA_MODULE_LOADING as the driver sees it at cuInit (the double
 *    writes it to FAKE_CUDA_LOG): LAZY unless the user set it;
 *  - the driver version in the lines: the kernel module's when the host
 *    has one, else NVML's, and NVML's when --lib nvml names it;
 *  - the libraries each backend loads, from the dynamic loader's own
 *    trace (LD_DEBUG=files): cuda no cuBLAS or cuDNN, cublas no cuDNN,
 *    cudnn no cuBLAS, cpu no NVIDIA library at all.
 *
 * The double's one_device mode has a device whose context opens and
 * nothing more, so every GPU backend gets past opening the GPU and
 * loading its libraries (the real cuBLAS and cuDNN of the build
 * machines) and then fails its first allocation or module load.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gpu.h"
#include "probeutil.h"
#include "xalloc.h"

#define FAKE_NVML_VERSION	"580.159.04"

static char probe[PATH_MAX], doubles[PATH_MAX], fake[PATH_MAX];
static char nvml[PATH_MAX], dir[256], logpath[PATH_MAX], errpath[PATH_MAX];

static int
setup(void **state)
{
	const char *t = getenv("TMPDIR");

	(void)state;
	if (pu_build_path(probe, "envparity-probe") == -1 ||
	    pu_build_path(doubles, "probe/doubles") == -1 ||
	    pu_build_path(fake, "probe/doubles/libcuda.so.1") == -1 ||
	    pu_build_path(nvml, "probe/doubles/libnvidia-ml.so.1") == -1)
		return -1;
	if (snprintf(dir, sizeof dir, "%s/test_startup.XXXXXX",
	    t != NULL && *t != '\0' ? t : "/tmp") >= (int)sizeof dir ||
	    mkdtemp(dir) == NULL)
		return -1;
	snprintf(logpath, sizeof logpath, "%s/cuinit.log", dir);
	snprintf(errpath, sizeof errpath, "%s/stderr", dir);
	return access(probe, X_OK) == 0 && access(fake, R_OK) == 0 &&
	    access(nvml, R_OK) == 0 ? 0 : -1;
}

static int
teardown(void **state)
{
	(void)state;
	unlink(logpath);
	unlink(errpath);
	return rmdir(dir);
}

/* A whole file as a string ("" when it does not exist). */
static char *
slurp(const char *path)
{
	char *s = xstrdup(""), buf[4096];
	size_t len = 0, n;
	FILE *fp;

	if ((fp = fopen(path, "r")) == NULL)
		return s;
	while ((n = fread(buf, 1, sizeof buf, fp)) > 0) {
		s = xrealloc(s, len + n + 1);
		memcpy(s + len, buf, n);
		len += n;
		s[len] = '\0';
	}
	fclose(fp);
	return s;
}

/*
 * Run the probe with args and, after the caller's environment less what
 * these tests set, env ("NAME=VALUE ..."); stdout is returned, stderr
 * left in errpath, and the cuInit log starts empty.  The process must
 * exit 0: every backend accounts for its workloads whatever failed.
 */
static char *
run(const char *env, const char *args)
{
	char *cmd, *out;
	FILE *fp;
	int st;

	unlink(logpath);
	cmd = xasprintf("env -u CUDA_MODULE_LOADING -u FAKE_CUDA_MODE "
	    "-u FAKE_NVML_MODE -u LD_DEBUG FAKE_CUDA_LOG='%s' %s '%s' %s "
	    "2>'%s'", logpath, env, probe, args, errpath);
	assert_non_null(fp = popen(cmd, "r"));
	out = xstrdup("");
	{
		char buf[4096];
		size_t len = 0, n;

		while ((n = fread(buf, 1, sizeof buf, fp)) > 0) {
			out = xrealloc(out, len + n + 1);
			memcpy(out + len, buf, n);
			len += n;
			out[len] = '\0';
		}
	}
	st = pclose(fp);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		fail_msg("%s: exit status %d", cmd, st);
	free(cmd);
	return out;
}

static int
has(const char *text, const char *frag)
{
	if (strstr(text, frag) == NULL) {
		print_error("missing %s in %s\n", frag, text);
		return 0;
	}
	return 1;
}

/* --backend B --lib cuda=the double (and cuBLAS and cuDNN of the build
 * machines, which each backend takes only if it is its own). */
static char *
gpu_args(const char *backend)
{
	return xasprintf("--backend %s --lib cuda='%s' --lib cublas="
	    PU_CUDA_LIB "/libcublas.so.13 --lib cublaslt=" PU_CUDA_LIB
	    "/libcublasLt.so.13 --lib cudnn=" PU_CUDA_LIB "/libcudnn.so.9",
	    backend, fake);
}

static const char *const gpu_backends[] = { "cuda", "cublas", "cudnn" };

/* Unset, every GPU backend's driver initialises with lazy loading. */
static void
test_module_loading_lazy(void **state)
{
	char *args, *out, *log;
	size_t i;

	(void)state;
	for (i = 0; i < 3; i++) {
		args = gpu_args(gpu_backends[i]);
		out = run("", args);
		log = slurp(logpath);
		if (strcmp(log, "cuInit CUDA_MODULE_LOADING=LAZY\n") != 0)
			fail_msg("%s: cuInit saw: %s", gpu_backends[i], log);
		free(log);
		free(out);
		/* The same with a device behind the driver. */
		out = run("FAKE_CUDA_MODE=one_device", args);
		log = slurp(logpath);
		assert_string_equal(log, "cuInit CUDA_MODULE_LOADING=LAZY\n");
		assert_true(has(out, "\"name\":\"Fake GPU (test double)\""));
		free(log);
		free(out);
		free(args);
	}
}

/* What the user set is what the driver sees, an empty value included. */
static void
test_module_loading_user(void **state)
{
	char *args, *out, *log;

	(void)state;
	args = gpu_args("cuda");
	out = run("CUDA_MODULE_LOADING=EAGER", args);
	log = slurp(logpath);
	assert_string_equal(log, "cuInit CUDA_MODULE_LOADING=EAGER\n");
	free(log);
	free(out);
	out = run("CUDA_MODULE_LOADING=", args);
	log = slurp(logpath);
	assert_string_equal(log, "cuInit CUDA_MODULE_LOADING=\n");
	free(log);
	free(out);
	free(args);
	args = gpu_args("cublas");
	out = run("CUDA_MODULE_LOADING=EAGER FAKE_CUDA_MODE=one_device", args);
	log = slurp(logpath);
	assert_string_equal(log, "cuInit CUDA_MODULE_LOADING=EAGER\n");
	free(log);
	free(out);
	free(args);
}

/* The cpu backend never loads the driver: no cuInit at all. */
static void
test_cpu_no_driver(void **state)
{
	char *out, *log, *env;

	(void)state;
	env = xasprintf("LD_LIBRARY_PATH='%s' FAKE_CUDA_MODE=one_device",
	    doubles);
	out = run(env, "--backend cpu --threads 1");
	log = slurp(logpath);
	assert_string_equal(log, "");
	assert_true(has(out, "\"backend\":\"cpu\""));
	free(log);
	free(out);
	free(env);
}

/* The version the lines carry: the kernel module's file where this host
 * has one we read, else NVML's, found by soname (the double, on
 * LD_LIBRARY_PATH); NVML's when named, and none when the NVML named
 * does not load. */
static void
test_driver_version(void **state)
{
	char *env, *args, *out, v[96], want[128];

	(void)state;
	env = xasprintf("LD_LIBRARY_PATH='%s' FAKE_CUDA_MODE=one_device",
	    doubles);
	args = gpu_args("cuda");
	out = run(env, args);
	if (probe_driver_read(v, sizeof v, PROBE_DRIVER_PROC) == -1)
		snprintf(v, sizeof v, "%s", FAKE_NVML_VERSION);
	snprintf(want, sizeof want, "\"driver\":\"%s\",", v);
	assert_true(has(out, want));
	free(out);
	free(args);

	args = xasprintf("--backend cuda --lib cuda='%s' --lib nvml='%s'",
	    fake, nvml);
	out = run("FAKE_CUDA_MODE=one_device", args);
	assert_true(has(out, "\"driver\":\"" FAKE_NVML_VERSION "\","));
	free(out);
	free(args);

	args = xasprintf("--backend cuda --lib cuda='%s' "
	    "--lib nvml=/nonexistent/libnvidia-ml.so.1", fake);
	out = run(env, args);
	assert_true(has(out, "\"driver\":null,"));
	free(out);
	free(args);
	free(env);
}

/* The files the dynamic loader initialised, by base name, one per line
 * ("calling init: PATH" in LD_DEBUG=files's trace). */
static char *
loaded(void)
{
	char *err = slurp(errpath), *out = xstrdup(""), *p, *nl, *base, *o;
	const char *key = "calling init: ";

	for (p = err; (p = strstr(p, key)) != NULL; p = nl) {
		p += strlen(key);
		if ((nl = strchr(p, '\n')) == NULL)
			nl = p + strlen(p);
		base = p;
		for (char *q = p; q < nl; q++)
			if (*q == '/')
				base = q + 1;
		o = xasprintf("%s%.*s\n", out, (int)(nl - base), base);
		free(out);
		out = o;
	}
	free(err);
	return out;
}

/* Whether a library whose base name starts with name was loaded. */
static int
was_loaded(const char *libs, const char *name)
{
	const char *p;
	size_t n = strlen(name);

	for (p = libs; *p != '\0'; p = strchr(p, '\n') + 1)
		if (strncmp(p, name, n) == 0)
			return 1;
	return 0;
}

static void
expect(const char *backend, const char *libs, const char *name, int want)
{
	if (was_loaded(libs, name) != want)
		fail_msg("--backend %s: %s %s; loaded:\n%s", backend, name,
		    want ? "not loaded" : "loaded", libs);
}

/* Each backend loads its own libraries and no other's.  NVML is loaded
 * only when the kernel module's file says nothing (this host has no
 * NVIDIA driver: NVML, the double, is loaded; on a GPU host it is not). */
static void
test_backend_loads(void **state)
{
	char *env, *args, *out, *libs, v[96];
	int need_nvml;
	size_t i;

	(void)state;
	if (access(PU_CUDA_LIB "/libcublas.so.13", R_OK) != 0 ||
	    access(PU_CUDA_LIB "/libcudnn.so.9", R_OK) != 0)
		skip();
	need_nvml = probe_driver_read(v, sizeof v, PROBE_DRIVER_PROC) == -1;
	env = xasprintf("LD_DEBUG=files LD_LIBRARY_PATH='%s' "
	    "FAKE_CUDA_MODE=one_device", doubles);

	out = run(env, "--backend cpu --threads 1");
	libs = loaded();
	assert_true(was_loaded(libs, "libcrypto.so"));	/* sanity */
	expect("cpu", libs, "libcuda.so", 0);
	expect("cpu", libs, "libnvidia-ml.so", 0);
	expect("cpu", libs, "libcublas", 0);
	expect("cpu", libs, "libcudnn", 0);
	free(libs);
	free(out);

	for (i = 0; i < 3; i++) {
		args = gpu_args(gpu_backends[i]);
		out = run(env, args);
		/* Past opening the GPU: the device is in the lines. */
		assert_true(has(out, "\"name\":\"Fake GPU (test double)\""));
		libs = loaded();
		expect(gpu_backends[i], libs, "libcuda.so", 1);
		expect(gpu_backends[i], libs, "libnvidia-ml.so", need_nvml);
		expect(gpu_backends[i], libs, "libcublas.so",
		    strcmp(gpu_backends[i], "cublas") == 0);
		expect(gpu_backends[i], libs, "libcublasLt.so",
		    strcmp(gpu_backends[i], "cublas") == 0);
		/* libcudnn.so.9 and what it loads itself (its graph
		 * library already, with cuDNN 9.19). */
		expect(gpu_backends[i], libs, "libcudnn",
		    strcmp(gpu_backends[i], "cudnn") == 0);
		free(libs);
		free(out);
		free(args);
	}
	free(env);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_module_loading_lazy),
		cmocka_unit_test(test_module_loading_user),
		cmocka_unit_test(test_cpu_no_driver),
		cmocka_unit_test(test_driver_version),
		cmocka_unit_test(test_backend_loads),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
