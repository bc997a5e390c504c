/*
 * test_cli.c: the built envparity-probe as the runner starts it: one
 * JSON line per expected workload, exit 0 even when nothing could run,
 * 2 on usage errors.  On the build machines, which have no GPU, every
 * GPU backend must skip with its reason: no driver (nothing to load, or
 * CUDA's real stub), no device (the test double of libcuda in
 * $(B)/probe/doubles, standing in for a driver without a GPU), and an
 * error when the driver fails.
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

#include "probe.h"
#include "probeutil.h"
#include "xalloc.h"

struct out {
	char *text;
	char *line[16];
	size_t n;
	int status;		/* exit status, or -1 if it did not exit */
};

static char probe[PATH_MAX], fake[PATH_MAX];

static int
setup(void **state)
{
	(void)state;
	if (pu_build_path(probe, "envparity-probe") == -1 ||
	    pu_build_path(fake, "probe/doubles/libcuda.so.1") == -1)
		return -1;
	return access(probe, X_OK) == 0 && access(fake, R_OK) == 0 ? 0 : -1;
}

/* Run "ENV probe ARGS", stdout split into lines, stderr discarded. */
static void
run(struct out *o, const char *env, const char *args)
{
	char *cmd, buf[4096];
	size_t len = 0, n;
	FILE *fp;
	int st;

	memset(o, 0, sizeof *o);
	cmd = xasprintf("%s '%s' %s 2>/dev/null", env, probe, args);
	assert_non_null(fp = popen(cmd, "r"));
	o->text = xstrdup("");
	while ((n = fread(buf, 1, sizeof buf, fp)) > 0) {
		o->text = xrealloc(o->text, len + n + 1);
		memcpy(o->text + len, buf, n);
		len += n;
		o->text[len] = '\0';
	}
	st = pclose(fp);
	o->status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	for (char *p = o->text, *nl; *p != '\0' && o->n < 16; p = nl + 1) {
		if ((nl = strchr(p, '\n')) == NULL)
			fail_msg("unterminated line: %s", p);
		*nl = '\0';
		o->line[o->n++] = p;
	}
	free(cmd);
}

static void
out_free(struct out *o)
{
	free(o->text);
}

static int
has(const char *line, const char *frag)
{
	if (strstr(line, frag) == NULL) {
		print_error("missing %s in %s\n", frag, line);
		return 0;
	}
	return 1;
}

/* Every line of o is backend's, for the workloads in order, all skipped
 * (or all errors) with exactly reason. */
static void
all_not_run(const struct out *o, const char *backend,
    const char *const *work, size_t n, const char *status,
    const char *reason)
{
	char frag[512];
	size_t i;

	assert_int_equal(o->status, 0);
	assert_int_equal(o->n, n);
	for (i = 0; i < n; i++) {
		snprintf(frag, sizeof frag, "{\"schema\":\"envparity/probe@1\","
		    "\"backend\":\"%s\",\"workload\":\"%s\",\"status\":\"%s\","
		    "\"reason\":\"%s\",\"sha256\":null,\"known_answer\":null,",
		    backend, work[i], status, reason);
		assert_true(has(o->line[i], frag));
		assert_true(has(o->line[i],
		    "\"probe\":\"envparity-probe 1\"}"));
	}
}

static const char *const cuda_work[] = { "kat", "gemm", "reduce", "atomic" };
static const char *const blas_work[] = { "sgemm_pedantic", "sgemm_default" };
static const char *const dnn_work[] = { "conv_fwd" };

/* As the runner runs it on this machine: whatever it finds, it accounts
 * for every workload, and without a GPU each line says why it skipped. */
static void
test_cuda_here(void **state)
{
	struct out o;
	size_t i;

	(void)state;
	run(&o, "", "--backend cuda");
	assert_int_equal(o.status, 0);
	assert_int_equal(o.n, 4);
	for (i = 0; i < 4; i++) {
		assert_true(has(o.line[i], cuda_work[i]));
		if (strstr(o.line[i], "\"status\":\"ok\"") != NULL)
			continue;	/* a GPU host running the suite */
		assert_true(has(o.line[i],
		    "\"status\":\"skip\",\"reason\":\""));
		assert_null(strstr(o.line[i], "\"reason\":null"));
	}
	out_free(&o);
}

static void
test_no_driver(void **state)
{
	struct out o;

	(void)state;
	run(&o, "", "--backend cuda --lib cuda=/nonexistent/libcuda.so.1");
	all_not_run(&o, "cuda", cuda_work, 4, "skip",
	    "no NVIDIA driver (/nonexistent/libcuda.so.1 not found)");
	assert_true(has(o.line[0], "\"device\":null,\"libs\":{}"));
	out_free(&o);
	run(&o, "", "--backend cublas --lib cuda=/nonexistent/libcuda.so.1 "
	    "--lib cublas=/usr/local/cuda/lib64/libcublas.so.13");
	all_not_run(&o, "cublas", blas_work, 2, "skip",
	    "no NVIDIA driver (/nonexistent/libcuda.so.1 not found)");
	out_free(&o);
}

static void
test_stub_driver(void **state)
{
	struct out o;

	(void)state;
	if (access(PU_CUDA_LIB "/stubs/libcuda.so", R_OK) != 0)
		skip();
	run(&o, "", "--backend cudnn --lib cuda=" PU_CUDA_LIB
	    "/stubs/libcuda.so");
	all_not_run(&o, "cudnn", dnn_work, 1, "skip",
	    "stub libcuda (cuDriverGetVersion: CUDA_ERROR_STUB_LIBRARY)");
	out_free(&o);
}

/* The double: a driver that answers but has no GPU, in each backend. */
static void
test_no_device(void **state)
{
	char args[PATH_MAX + 64];
	struct out o;

	(void)state;
	snprintf(args, sizeof args, "--backend cuda --lib cuda=%s", fake);
	run(&o, "FAKE_CUDA_MODE=no_device", args);
	all_not_run(&o, "cuda", cuda_work, 4, "skip", "no CUDA device");
	out_free(&o);
	run(&o, "FAKE_CUDA_MODE=zero_devices", args);
	all_not_run(&o, "cuda", cuda_work, 4, "skip", "no CUDA device");
	out_free(&o);
	/* An old driver: entry points asked for at no newer a version than
	 * its own (the double refuses a newer one, as the driver does). */
	run(&o, "FAKE_CUDA_VERSION=10020", args);
	all_not_run(&o, "cuda", cuda_work, 4, "skip", "no CUDA device");
	out_free(&o);
	snprintf(args, sizeof args, "--backend cublas --lib cuda=%s", fake);
	run(&o, "", args);
	all_not_run(&o, "cublas", blas_work, 2, "skip", "no CUDA device");
	out_free(&o);
	snprintf(args, sizeof args, "--backend cudnn --lib cuda=%s", fake);
	run(&o, "", args);
	all_not_run(&o, "cudnn", dnn_work, 1, "skip", "no CUDA device");
	out_free(&o);
}

/* A driver that fails is an error, not a skip: a gate must see it. */
static void
test_driver_errors(void **state)
{
	char args[PATH_MAX + 64];
	struct out o;

	(void)state;
	snprintf(args, sizeof args, "--backend cuda --lib cuda=%s", fake);
	run(&o, "FAKE_CUDA_MODE=init_fails", args);
	all_not_run(&o, "cuda", cuda_work, 4, "error",
	    "cuInit: CUDA_ERROR_UNKNOWN");
	out_free(&o);
	run(&o, "FAKE_CUDA_MODE=missing_symbol", args);
	all_not_run(&o, "cuda", cuda_work, 4, "error",
	    "cuGetProcAddress(cuModuleLoadData, 2000): not found (status 1)");
	out_free(&o);
}

/* The binary's CPU lines carry the hashes the backend computes
 * in-process, whatever the thread count. */
static void
test_cpu_lines(void **state)
{
	struct probe_opts opts = { .seed = PROBE_DEFAULT_SEED };
	struct probe_run *run_in = xcalloc(1, sizeof *run_in);
	char frag[128];
	struct out o;
	size_t i;

	(void)state;
	probe_cpu_run(run_in, &opts);
	run(&o, "", "--backend cpu --threads 3");
	assert_int_equal(o.status, 0);
	assert_int_equal(o.n, 4);
	for (i = 0; i < 4; i++) {
		assert_true(has(o.line[i],
		    "\"status\":\"ok\",\"reason\":null"));
		assert_true(has(o.line[i], "\"device\":{\"arch\":"));
		if (i == 3)
			break;	/* the canary may differ */
		snprintf(frag, sizeof frag, "\"sha256\":\"%s\"",
		    run_in->res[i].sha256);
		assert_true(has(o.line[i], frag));
	}
	assert_true(has(o.line[0], "\"known_answer\":true,\"canary\":false"));
	assert_true(has(o.line[3], "\"known_answer\":null,\"canary\":true"));
	out_free(&o);
	free(run_in);
}

/* Libraries the runner passes that this backend does not use are
 * accepted, so it can pass all that capture found. */
static void
test_unknown_lib_ignored(void **state)
{
	struct out o;

	(void)state;
	run(&o, "", "--backend cuda --lib nccl=/x/libnccl.so.2 "
	    "--lib cuda=/nonexistent/libcuda.so.1 --seed 7");
	all_not_run(&o, "cuda", cuda_work, 4, "skip",
	    "no NVIDIA driver (/nonexistent/libcuda.so.1 not found)");
	out_free(&o);
}

static void
test_usage(void **state)
{
	static const char *const bad[] = {
		"", "--backend", "--backend gpu", "--backend cpu extra",
		"--backend cpu --lib cublas", "--backend cpu --lib =/x",
		"--backend cpu --lib cublas=", "--backend cpu --seed -1",
		"--backend cpu --seed 12x", "--backend cpu --threads 0",
		"--backend cpu --frobnicate",
	};
	struct out o;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		run(&o, "", bad[i]);
		if (o.status != 2 || o.n != 0)
			fail_msg("'%s': exit %d, %zu lines", bad[i], o.status,
			    o.n);
		out_free(&o);
	}
	run(&o, "", "--version");
	assert_int_equal(o.status, 0);
	assert_int_equal(o.n, 1);
	assert_string_equal(o.line[0], PROBE_VERSION);
	out_free(&o);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cuda_here),
		cmocka_unit_test(test_no_driver),
		cmocka_unit_test(test_stub_driver),
		cmocka_unit_test(test_no_device),
		cmocka_unit_test(test_driver_errors),
		cmocka_unit_test(test_cpu_lines),
		cmocka_unit_test(test_unknown_lib_ignored),
		cmocka_unit_test(test_usage),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
