/*
 * test_line.c: envparity-probe's output line (gpu_probes/line.c), the
 * contract with the runner: every field present, in order, with nulls
 * where the contract says; strings escaped and made valid UTF-8; and the
 * result bookkeeping (skip, error, ok with a hash) behind it.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe.h"

static const char *const gpu_work[] = { "kat", "gemm", "reduce", "atomic" };

static void
test_skip_line(void **state)
{
	struct probe_run run;
	char *line;

	(void)state;
	probe_run_init(&run, "cuda", gpu_work, 4);
	probe_run_fail_rest(&run, 0, PROBE_SKIP,
	    "no NVIDIA driver (libcuda.so.1 not found)");
	line = probe_line(&run, 3);
	assert_string_equal(line, "{\"schema\":\"envparity/probe@1\","
	    "\"backend\":\"cuda\",\"workload\":\"atomic\",\"status\":\"skip\","
	    "\"reason\":\"no NVIDIA driver (libcuda.so.1 not found)\","
	    "\"sha256\":null,\"known_answer\":null,\"canary\":true,"
	    "\"elapsed_ms\":0.000,\"device\":null,\"libs\":{},"
	    "\"probe\":\"envparity-probe 1\"}");
	free(line);
}

static void
test_ok_line_gpu_device(void **state)
{
	struct probe_run run;
	char *line;

	(void)state;
	probe_run_init(&run, "cublas", gpu_work, 1);
	run.dev.kind = PROBE_DEV_GPU;
	strcpy(run.dev.name, "NVIDIA H100 80GB HBM3");
	run.dev.cc_major = 9, run.dev.cc_minor = 0, run.dev.sm_count = 132;
	strcpy(run.dev.cuda_driver, "13.0");
	probe_libs_set(&run.libs, "cublas", "13.0.9");
	probe_libs_set(&run.libs, "cublas_path", "/x/libcublas.so.13");
	probe_libs_set(&run.libs, "cublas", "13.1.0");	/* replaces */
	run.res[0].known_answer = 1;
	probe_result_ok(&run.res[0], "abc", 3, 1.23456);
	line = probe_line(&run, 0);
	assert_string_equal(line, "{\"schema\":\"envparity/probe@1\","
	    "\"backend\":\"cublas\",\"workload\":\"kat\",\"status\":\"ok\","
	    "\"reason\":null,\"sha256\":\"ba7816bf8f01cfea414140de5dae2223"
	    "b00361a396177a9cb410ff61f20015ad\",\"known_answer\":true,"
	    "\"canary\":false,\"elapsed_ms\":1.235,\"device\":{\"name\":"
	    "\"NVIDIA H100 80GB HBM3\",\"cc\":\"9.0\",\"sm_count\":132,"
	    "\"driver\":null,\"cuda_driver\":\"13.0\"},\"libs\":{\"cublas\":"
	    "\"13.1.0\",\"cublas_path\":\"/x/libcublas.so.13\"},"
	    "\"probe\":\"envparity-probe 1\"}");
	free(line);
}

static void
test_cpu_device_and_missed_answer(void **state)
{
	struct probe_run run;
	char *line;

	(void)state;
	probe_run_init(&run, "cpu", gpu_work, 4);
	run.dev.kind = PROBE_DEV_CPU;
	strcpy(run.dev.arch, "x86_64");
	strcpy(run.res[0].reason, "C[0][1] = 3, closed form 4");
	run.res[0].known_answer = 0;
	probe_result_ok(&run.res[0], "", 0, 0.5);
	line = probe_line(&run, 0);
	assert_non_null(strstr(line, "\"status\":\"ok\",\"reason\":\"C[0][1] "
	    "= 3, closed form 4\",\"sha256\":\"e3b0c44298fc1c149afbf4c8996fb924"
	    "27ae41e4649b934ca495991b7852b855\",\"known_answer\":false,"));
	assert_non_null(strstr(line, "\"device\":{\"arch\":\"x86_64\"}"));
	free(line);
}

/* Reasons quote library errors and paths: anything may be in them. */
static void
test_escaping(void **state)
{
	struct probe_run run;
	char *line;

	(void)state;
	probe_run_init(&run, "cudnn", gpu_work, 1);
	probe_result_fail(&run.res[0], PROBE_ERROR,
	    "say \"hi\"\\ \t\n\x01 \xff\xfe caf\xc3\xa9");
	line = probe_line(&run, 0);
	assert_non_null(strstr(line, "\"status\":\"error\",\"reason\":"
	    "\"say \\\"hi\\\"\\\\ \\u0009\\u000a\\u0001 "
	    "\xef\xbf\xbd\xef\xbf\xbd"
	    " caf\xc3\xa9\","));
	assert_null(strchr(line, '\n'));
	free(line);
}

/* A failed result drops what an earlier success left. */
static void
test_fail_after_ok(void **state)
{
	struct probe_run run;
	char *line;

	(void)state;
	probe_run_init(&run, "cuda", gpu_work, 4);
	run.res[0].known_answer = 1;
	probe_result_ok(&run.res[0], "x", 1, 2.0);
	assert_int_equal(strlen(run.res[0].sha256), 64);
	probe_result_fail(&run.res[0], PROBE_ERROR, "cuMemcpyDtoH: "
	    "CUDA_ERROR_ILLEGAL_ADDRESS");
	line = probe_line(&run, 0);
	assert_non_null(strstr(line, "\"sha256\":null,\"known_answer\":null"));
	free(line);
}

/* Until a backend fills a result, it says so rather than passing. */
static void
test_init_not_run(void **state)
{
	struct probe_run run;
	char *line;
	size_t i;

	(void)state;
	probe_run_init(&run, "cpu", gpu_work, 4);
	for (i = 0; i < 4; i++) {
		line = probe_line(&run, i);
		assert_non_null(strstr(line, "\"status\":\"error\",\"reason\":"
		    "\"not run\""));
		free(line);
	}
}

static void
test_libs_bounded(void **state)
{
	struct probe_libs libs = { 0 };
	char key[32];
	int i;

	(void)state;
	for (i = 0; i < PROBE_MAXLIBS + 3; i++) {
		snprintf(key, sizeof key, "k%d", i);
		probe_libs_set(&libs, key, "v");
	}
	assert_int_equal(libs.n, PROBE_MAXLIBS);
	assert_string_equal(libs.v[PROBE_MAXLIBS - 1].key, "k7");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_skip_line),
		cmocka_unit_test(test_ok_line_gpu_device),
		cmocka_unit_test(test_cpu_device_and_missed_answer),
		cmocka_unit_test(test_escaping),
		cmocka_unit_test(test_fail_after_ok),
		cmocka_unit_test(test_init_not_run),
		cmocka_unit_test(test_libs_bounded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
