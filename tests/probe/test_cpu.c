/*
 * test_cpu.c: the CPU workloads of envparity-probe (gpu_probes/cpu.c,
 * gemm.c): the blocked gemm against a plain triple loop, bit for bit, at
 * awkward sizes, thread counts and both vector paths; the kat's closed
 * form against brute force; the reduction against a naive tree; and the
 * whole backend run twice in one process, with its hashes pinned (a
 * change of any workload's definition must bump PROBE_VERSION).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu.h"
#include "probe.h"
#include "spec.h"
#include "xalloc.h"

/* envparity-probe 1, default seed: the hashes any x86-64 must give. */
#define PIN_KAT \
	"3bda3adb577e2e646438e168b6d480b524b1991c6e948984e0b4f56ad7944fee"
#define PIN_GEMM \
	"a1cf5b0916a2f0d6c45e040d540545665d9b5ab76f0ad2cb7e06b5ceec08407f"
#define PIN_REDUCE \
	"537fa4b11e85528bbf7384e470d64e5688f2ff91ab939d1baff317b0c4d5df8a"

/* spec.h's order, written the obvious way: k ascending, from +0. */
static void
ref_gemm(float *c, const float *a, const float *b, int m, int n, int k,
    int descending)
{
	int i, j, p, q;
	float acc;

	for (i = 0; i < m; i++) {
		for (j = 0; j < n; j++) {
			acc = 0.0f;
			for (q = 0; q < k; q++) {
				p = descending ? k - 1 - q : q;
				acc = acc + a[(size_t)i * k + p] *
				    b[(size_t)p * n + j];
			}
			c[(size_t)i * n + j] = acc;
		}
	}
}

static void
test_gemm_matches_reference(void **state)
{
	/* Edges of every block: MR 4, NR 16, KC 256, NC 512. */
	static const int sizes[][3] = {
		{ 1, 1, 1 }, { 5, 7, 3 }, { 4, 16, 256 }, { 37, 53, 71 },
		{ 9, 530, 300 }, { 64, 48, 513 }, { 3, 1040, 20 },
		{ 301, 24, 37 },
	};
	static const int threads[] = { 1, 2, 3, 7 };
	float *a, *b, *c, *want;
	size_t s, t;
	int m, n, k, isa;

	(void)state;
	for (s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
		m = sizes[s][0], n = sizes[s][1], k = sizes[s][2];
		a = xmalloc(sizeof *a * m * k);
		b = xmalloc(sizeof *b * k * n);
		c = xmalloc(sizeof *c * m * n);
		want = xmalloc(sizeof *want * m * n);
		probe_gemm_inputs(a, b, m, n, k, 42 + s);
		ref_gemm(want, a, b, m, n, k, 0);
		for (t = 0; t < sizeof threads / sizeof threads[0]; t++) {
			for (isa = 0; isa < 2; isa++) {
				memset(c, 0xff, sizeof *c * m * n);
				probe_cpu_gemm_isa(c, a, b, m, n, k,
				    threads[t], isa);
				if (memcmp(c, want, sizeof *c * m * n) != 0)
					fail_msg("gemm %dx%dx%d, %d threads, "
					    "isa %d differs from the reference",
					    m, n, k, threads[t], isa);
			}
		}
		free(want);
		free(c);
		free(b);
		free(a);
	}
}

/* The check above can fail: on these inputs the order of the sum shows
 * in the bits, so a blocking that reordered k would be caught. */
static void
test_gemm_order_shows(void **state)
{
	enum { M = 16, N = 16, K = 300 };
	float a[M * K], b[K * N], up[M * N], down[M * N];

	(void)state;
	probe_gemm_inputs(a, b, M, N, K, 1);
	ref_gemm(up, a, b, M, N, K, 0);
	ref_gemm(down, a, b, M, N, K, 1);
	assert_memory_not_equal(up, down, sizeof up);
}

static void
test_kat_closed_form(void **state)
{
	uint32_t i, j, k;
	int64_t sum;

	(void)state;
	for (i = 0; i < EP_KAT_M; i++) {
		for (j = 0; j < EP_KAT_N; j++) {
			sum = 0;
			for (k = 0; k < EP_KAT_K; k++)
				sum += (int64_t)ep_kat_a(i, k) *
				    (int64_t)ep_kat_b(k, j);
			if (sum != probe_kat_expect(i, j))
				fail_msg("closed form wrong at [%u][%u]", i, j);
		}
	}
	/* Partial sums stay exact: |a| <= 5, |b| <= 6, 512 terms < 2^24. */
	assert_true(5 * 6 * EP_KAT_K < (1 << 24));
}

static void
test_kat_on_cpu(void **state)
{
	float *a = xmalloc(sizeof *a * EP_KAT_M * EP_KAT_K);
	float *b = xmalloc(sizeof *b * EP_KAT_K * EP_KAT_N);
	float *c = xmalloc(sizeof *c * EP_KAT_M * EP_KAT_N);
	char why[256] = "";

	(void)state;
	probe_kat_inputs(a, b);
	probe_cpu_gemm(c, a, b, EP_KAT_M, EP_KAT_N, EP_KAT_K, 2);
	assert_int_equal(probe_kat_check(c, why, sizeof why), 0);
	assert_string_equal(why, "");
	/* A single wrong element is found and named. */
	c[3 * EP_KAT_N + 5] += 1.0f;
	c[9 * EP_KAT_N + 1] = NAN;
	assert_int_equal(probe_kat_check(c, why, sizeof why), 2);
	assert_non_null(strstr(why, "C[3][5]"));
	free(c);
	free(b);
	free(a);
}

static float
ref_tree(const float *x, size_t n)
{
	if (n == 1)
		return x[0];
	return ref_tree(x, n / 2) + ref_tree(x + n / 2, n / 2);
}

static void
test_tree_sum(void **state)
{
	float x[4096], copy[4096], tmp[2048];
	size_t n;
	uint32_t key = ep_rng_key(3, EP_RNG_REDUCE), i;

	(void)state;
	for (n = 1; n <= 4096; n *= 2) {
		for (i = 0; i < n; i++)
			x[i] = copy[i] = ep_rng_unit(ep_rng_u32(key, i)) *
			    (float)(1 + i % 1000);
		assert_true(probe_tree_sum(x, tmp, n) == ref_tree(copy, n));
	}
	for (i = 0; i < 4096; i++)
		x[i] = (float)(i + 1);
	assert_true(probe_tree_sum(x, tmp, 4096) == 4096.0f * 4097 / 2);
}

/* The whole reduce against chunk-by-chunk generation and the recursive
 * tree, on 1 and 3 threads. */
static void
test_reduce_reference(void **state)
{
	static float out1[EP_NCHUNK + 1], out3[EP_NCHUNK + 1];
	static float want[EP_NCHUNK + 1], x[EP_CHUNK];
	uint32_t key = ep_rng_key(PROBE_DEFAULT_SEED, EP_RNG_REDUCE), c, i;

	(void)state;
	for (c = 0; c < EP_NCHUNK; c++) {
		for (i = 0; i < EP_CHUNK; i++)
			x[i] = ep_rng_unit(ep_rng_u32(key, c * EP_CHUNK + i));
		want[c] = ref_tree(x, EP_CHUNK);
	}
	want[EP_NCHUNK] = ref_tree(want, EP_NCHUNK);
	probe_cpu_reduce(out1, PROBE_DEFAULT_SEED, 1);
	probe_cpu_reduce(out3, PROBE_DEFAULT_SEED, 3);
	assert_memory_equal(out1, want, sizeof want);
	assert_memory_equal(out3, want, sizeof want);
}

/* The canary adds the same chunk sums in some order: near their exact
 * total, whatever the order. */
static void
test_atomic_near_total(void **state)
{
	static float out[EP_NCHUNK + 1];
	double exact = 0;
	float got;
	uint32_t c;

	(void)state;
	probe_cpu_reduce(out, PROBE_DEFAULT_SEED, 2);
	for (c = 0; c < EP_ATOMIC_CPU_NCHUNK; c++)
		exact += out[c];
	got = probe_cpu_atomic(PROBE_DEFAULT_SEED, 4);
	assert_true(fabs(got - exact) <= 1e-4 * (1 + fabs(exact)));
}

static void
run_cpu(struct probe_run *run, uint64_t seed)
{
	struct probe_opts o = { .seed = seed, .nthreads = 2 };

	probe_cpu_run(run, &o);
}

/* Two runs in one process: same bits, the known answer holds, and the
 * hashes are the pinned ones. */
static void
test_run_twice(void **state)
{
	struct probe_run *r1 = xcalloc(1, sizeof *r1);
	struct probe_run *r2 = xcalloc(1, sizeof *r2);
	size_t i;

	(void)state;
	run_cpu(r1, PROBE_DEFAULT_SEED);
	run_cpu(r2, PROBE_DEFAULT_SEED);
	assert_int_equal(r1->n, 4);
	assert_int_equal(r1->dev.kind, PROBE_DEV_CPU);
	for (i = 0; i < 4; i++) {
		assert_int_equal(r1->res[i].status, PROBE_OK);
		assert_int_equal(strlen(r1->res[i].sha256), 64);
		assert_string_equal(r1->res[i].reason, "");
	}
	assert_string_equal(r1->res[0].workload, "kat");
	assert_int_equal(r1->res[0].known_answer, 1);
	assert_int_equal(r1->res[1].known_answer, -1);
	assert_false(r1->res[2].canary);
	assert_true(r1->res[3].canary);
	for (i = 0; i < 3; i++)
		assert_string_equal(r1->res[i].sha256, r2->res[i].sha256);
	assert_string_equal(r1->res[0].sha256, PIN_KAT);
	assert_string_equal(r1->res[1].sha256, PIN_GEMM);
	assert_string_equal(r1->res[2].sha256, PIN_REDUCE);
	free(r2);
	free(r1);
}

static void
test_seed_changes_random_workloads(void **state)
{
	struct probe_run *r = xcalloc(1, sizeof *r);

	(void)state;
	run_cpu(r, 99);
	assert_string_equal(r->res[0].sha256, PIN_KAT);	/* no seed in kat */
	assert_string_not_equal(r->res[1].sha256, PIN_GEMM);
	assert_string_not_equal(r->res[2].sha256, PIN_REDUCE);
	free(r);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gemm_matches_reference),
		cmocka_unit_test(test_gemm_order_shows),
		cmocka_unit_test(test_kat_closed_form),
		cmocka_unit_test(test_kat_on_cpu),
		cmocka_unit_test(test_tree_sum),
		cmocka_unit_test(test_reduce_reference),
		cmocka_unit_test(test_atomic_near_total),
		cmocka_unit_test(test_run_twice),
		cmocka_unit_test(test_seed_changes_random_workloads),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
