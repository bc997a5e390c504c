/*
 * test_rng.c: the probe's counter-based generator (gpu_probes/rng.h)
 * against values computed by an independent implementation (Python, in
 * the comments), its float map's range and granularity, and the
 * independence of seeds and streams.  The same header is compiled into
 * the CUDA kernels, so these values are the GPU's too.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rng.h"
#include "spec.h"

/*
 * M = 0xffffffff
 * def mix(x): x ^= x >> 16; x = x * 0x7feb352d & M; x ^= x >> 15;
 *             x = x * 0x846ca68b & M; x ^= x >> 16; return x
 * def key(seed, s): h = mix(s + 0x9e3779b9); h = mix(seed >> 32 ^ h)
 *                   return mix(seed & M ^ h)
 * def u32(k, i): return mix((mix(i ^ k) + k) & M)
 */
static void
test_known_values(void **state)
{
	uint32_t k;

	(void)state;
	assert_int_equal(ep_rng_mix32(0), 0);
	assert_int_equal(ep_rng_mix32(1), 0x688990c0u);
	assert_int_equal(ep_rng_mix32(0xdeadbeefu), 0xe628c683u);
	k = ep_rng_key(20260101, 1);
	assert_int_equal(k, 0x8f7edcddu);
	assert_int_equal(ep_rng_key(0xfedcba9876543210ULL, 3), 0xe8a694a7u);
	assert_int_equal(ep_rng_u32(k, 0), 0x7f968117u);
	assert_int_equal(ep_rng_u32(k, 1), 0x4d1030edu);
	assert_int_equal(ep_rng_u32(k, 2), 0x286576d1u);
	assert_int_equal(ep_rng_u32(k, 1000000), 0x6ca3ec29u);
}

static void
test_unit_map(void **state)
{
	(void)state;
	assert_true(ep_rng_unit(0) == -1.0f);
	assert_true(ep_rng_unit(0x80000000u) == 0.0f);
	assert_true(ep_rng_unit(0xffffffffu) == 1.0f - 0x1p-23f);
	/* Python: ((0x7f968117 >> 8) - 0x800000) / 2**23 */
	assert_true(ep_rng_unit(0x7f968117u) == -0.0032194852828979492f);
}

/* A million draws: all in [-1, 1), all multiples of 2^-23 (so exact in
 * fp32 and identical wherever computed), and spread evenly. */
static void
test_unit_distribution(void **state)
{
	uint32_t key = ep_rng_key(7, EP_RNG_REDUCE), i, neg = 0, n = 1u << 20;
	double sum = 0, sq = 0, x, scaled;

	(void)state;
	for (i = 0; i < n; i++) {
		x = ep_rng_unit(ep_rng_u32(key, i));
		assert_true(x >= -1.0 && x < 1.0);
		scaled = x * 8388608.0;
		assert_true(scaled == floor(scaled));
		neg += x < 0;
		sum += x;
		sq += x * x;
	}
	assert_true(fabs(sum / n) < 0.005);
	assert_true(fabs(sq / n - 1.0 / 3) < 0.005);	/* uniform's variance */
	assert_true(neg > n / 2 - n / 100 && neg < n / 2 + n / 100);
}

/* Different seeds, and different streams of one seed, share no run of
 * values: a mistaken key (a stream ignored) would make A equal B. */
static void
test_streams_independent(void **state)
{
	uint32_t ka = ep_rng_key(1, EP_RNG_GEMM_A);
	uint32_t kb = ep_rng_key(1, EP_RNG_GEMM_B);
	uint32_t ka2 = ep_rng_key(2, EP_RNG_GEMM_A);
	uint32_t khi = ep_rng_key(1ULL << 32 | 1, EP_RNG_GEMM_A);
	uint32_t i, same_b = 0, same_seed = 0, same_hi = 0;

	(void)state;
	assert_int_not_equal(ka, kb);
	for (i = 0; i < 4096; i++) {
		same_b += ep_rng_u32(ka, i) == ep_rng_u32(kb, i);
		same_seed += ep_rng_u32(ka, i) == ep_rng_u32(ka2, i);
		same_hi += ep_rng_u32(ka, i) == ep_rng_u32(khi, i);
	}
	assert_true(same_b < 2);
	assert_true(same_seed < 2);
	assert_true(same_hi < 2);	/* the seed's high word counts */
}

/* The kat operands are the small integers spec.h promises. */
static void
test_kat_operands(void **state)
{
	uint32_t i, k;
	float a;

	(void)state;
	assert_true(ep_kat_a(0, 0) == -5.0f);	/* -3 + -2 */
	assert_true(ep_kat_a(6, 4) == 5.0f);	/* 3 + 2 */
	assert_true(ep_kat_b(2, 10) == 6.0f);	/* 1 + 5 */
	assert_true(ep_kat_b(3, 11) == -6.0f);	/* -1 + -5 */
	for (i = 0; i < 64; i++) {
		for (k = 0; k < 64; k++) {
			a = ep_kat_a(i, k);
			assert_true(a == (float)((int)(i % 7) - 3 +
			    (int)(k % 5) - 2));
		}
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_known_values),
		cmocka_unit_test(test_unit_map),
		cmocka_unit_test(test_unit_distribution),
		cmocka_unit_test(test_streams_independent),
		cmocka_unit_test(test_kat_operands),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
