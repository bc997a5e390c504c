/*
 * test_fixture.c: the probe's lines recorded on an H100 host
 * (tests/fixtures/gpu/h100/probe-*.jsonl, five runs of each backend,
 * gpu_probes/gpu-run.sh; probe-run.txt says how) held to what the probe
 * promises: the contract's fields on every line, run-to-run identity for
 * all but the canary, the known answer, and the cuda backend's kat, gemm
 * and reduce equal bit for bit to the CPU's, here and there.
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
#include "errors.h"
#include "files.h"
#include "xalloc.h"

#define FIXTURES	PU_SRCDIR "/tests/fixtures/gpu/h100"
#define RUNS		5

struct lines {
	char *text;
	char *v[64];
	size_t n;
};

static void
load(struct lines *l, const char *backend)
{
	struct ep_err err = { 0 };
	char *path = xasprintf(FIXTURES "/probe-%s.jsonl", backend), *p, *nl;
	size_t len;

	memset(l, 0, sizeof *l);
	if (ep_read_file(&l->text, &len, path, 1 << 20, &err) == -1)
		fail_msg("%s", err.msg);
	for (p = l->text; *p != '\0' && l->n < 64; p = nl + 1) {
		if ((nl = strchr(p, '\n')) == NULL)
			fail_msg("%s: last line unterminated", path);
		*nl = '\0';
		l->v[l->n++] = p;
	}
	free(path);
}

/* The value of "key": in line, as text up to the next , or } outside a
 * string, into out (n bytes); quotes dropped. */
static const char *
field(char *out, size_t n, const char *line, const char *key)
{
	char pat[64];
	const char *p;
	size_t i = 0;
	int quoted;

	snprintf(pat, sizeof pat, "\"%s\":", key);
	if ((p = strstr(line, pat)) == NULL)
		fail_msg("no %s in %s", key, line);
	p += strlen(pat);
	if ((quoted = *p == '"'))
		p++;
	while (*p != '\0' && i + 1 < n) {
		if (quoted ? *p == '"' : (*p == ',' || *p == '}'))
			break;
		out[i++] = *p++;
	}
	out[i] = '\0';
	return out;
}

/* Every line is the contract's, in order, for backend, with workloads
 * cycling through work[] once per run. */
static void
check_shape(const struct lines *l, const char *backend,
    const char *const *work, size_t nwork)
{
	static const char *const keys[] = {
		"schema", "backend", "workload", "status", "reason", "sha256",
		"known_answer", "canary", "elapsed_ms", "device", "libs",
		"probe",
	};
	char v[256], head[128];
	const char *prev, *at;
	size_t i, k;

	assert_int_equal(l->n, RUNS * nwork);
	snprintf(head, sizeof head, "{\"schema\":\"envparity/probe@1\","
	    "\"backend\":\"%s\",", backend);
	for (i = 0; i < l->n; i++) {
		assert_true(strncmp(l->v[i], head, strlen(head)) == 0);
		for (prev = l->v[i], k = 0; k < sizeof keys / sizeof keys[0];
		    k++, prev = at) {
			snprintf(v, sizeof v, "\"%s\":", keys[k]);
			if ((at = strstr(l->v[i], v)) == NULL || at < prev)
				fail_msg("%s missing or out of order: %s",
				    keys[k], l->v[i]);
		}
		assert_string_equal(field(v, sizeof v, l->v[i], "workload"),
		    work[i % nwork]);
		assert_string_equal(field(v, sizeof v, l->v[i], "status"),
		    "ok");
		assert_string_equal(field(v, sizeof v, l->v[i], "reason"),
		    "null");
		assert_int_equal(strlen(field(v, sizeof v, l->v[i], "sha256")),
		    64);
		assert_string_equal(field(v, sizeof v, l->v[i], "probe"),
		    PROBE_VERSION);
	}
}

/* The distinct hashes of workload w (index in a run) over the runs. */
static size_t
distinct(const struct lines *l, size_t nwork, size_t w)
{
	char seen[RUNS][65];
	size_t n = 0, r, j;

	for (r = 0; r < RUNS; r++) {
		field(seen[n], sizeof seen[n], l->v[r * nwork + w], "sha256");
		for (j = 0; j < n; j++)
			if (strcmp(seen[j], seen[n]) == 0)
				break;
		if (j == n)
			n++;
	}
	return n;
}

static const char *const cpu_work[] = { "kat", "gemm", "reduce", "atomic" };

static void
test_cpu_and_cuda(void **state)
{
	struct probe_opts opts = { .seed = PROBE_DEFAULT_SEED };
	struct probe_run *here = xcalloc(1, sizeof *here);
	struct lines cpu, cuda;
	char v[256];
	size_t w, r;

	(void)state;
	load(&cpu, "cpu");
	load(&cuda, "cuda");
	check_shape(&cpu, "cpu", cpu_work, 4);
	check_shape(&cuda, "cuda", cpu_work, 4);
	probe_cpu_run(here, &opts);
	for (w = 0; w < 3; w++) {
		/* Run to run, and against this machine's CPU and the H100. */
		assert_int_equal(distinct(&cpu, 4, w), 1);
		assert_int_equal(distinct(&cuda, 4, w), 1);
		for (r = 0; r < RUNS; r++) {
			assert_string_equal(field(v, sizeof v, cpu.v[r * 4 + w],
			    "sha256"), here->res[w].sha256);
			assert_string_equal(field(v, sizeof v,
			    cuda.v[r * 4 + w], "sha256"), here->res[w].sha256);
		}
	}
	for (r = 0; r < RUNS; r++) {
		assert_string_equal(field(v, sizeof v, cuda.v[r * 4],
		    "known_answer"), "true");
		assert_string_equal(field(v, sizeof v, cuda.v[r * 4 + 3],
		    "canary"), "true");
		assert_true(strstr(cuda.v[r * 4], "\"device\":{\"name\":"
		    "\"NVIDIA H100 80GB HBM3\",\"cc\":\"9.0\",\"sm_count\":132,"
		    "\"driver\":\"580.159.04\",\"cuda_driver\":\"13.0\"}") !=
		    NULL);
	}
	/* The canary did its job on the H100: float atomics landed in a
	 * different order in different runs. */
	assert_true(distinct(&cuda, 4, 3) > 1);
	free(cuda.text);
	free(cpu.text);
	free(here);
}

static void
test_cublas_cudnn(void **state)
{
	static const char *const blas_work[] = {
		"sgemm_pedantic", "sgemm_default",
	};
	static const char *const dnn_work[] = { "conv_fwd" };
	struct lines blas, dnn;
	size_t r;

	(void)state;
	load(&blas, "cublas");
	load(&dnn, "cudnn");
	check_shape(&blas, "cublas", blas_work, 2);
	check_shape(&dnn, "cudnn", dnn_work, 1);
	assert_int_equal(distinct(&blas, 2, 0), 1);
	assert_int_equal(distinct(&blas, 2, 1), 1);
	assert_int_equal(distinct(&dnn, 1, 0), 1);
	for (r = 0; r < RUNS; r++) {
		assert_non_null(strstr(blas.v[r * 2], "\"libs\":{\"cublas\":"
		    "\"13.1.0\",\"cublas_path\":\"/opt/torch/.venv/"));
		assert_non_null(strstr(blas.v[r * 2],
		    "\"cublaslt\":\"13.1.0\""));
		assert_non_null(strstr(dnn.v[r], "\"libs\":{\"cudnn\":"
		    "\"9.19.0\",\"cudnn_path\":\"/opt/torch/.venv/"));
	}
	free(dnn.text);
	free(blas.text);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cpu_and_cuda),
		cmocka_unit_test(test_cublas_cudnn),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
