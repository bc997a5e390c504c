/*
 * cpu.c: the cpu backend: kat, gemm, reduce and atomic (spec.h) on the
 * host's cores, plus the inputs and the known answer that the GPU
 * backends share.  Built without -ffast-math and with -ffp-contract=off:
 * the results are the same bits on any x86-64 or arm64, whatever its
 * vector width or core count, and equal the cuda backend's for gemm and reduce.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "cpu.h"
#include "parallel.h"
#include "probe.h"
#include "spec.h"
#include "clock.h"

/* The generator and the tree vectorise with AVX2 (8 lanes of 32-bit
 * multiplies); integer arithmetic and the fixed tree give the same bits
 * on either path.  Each body is compiled twice, for AVX2 and for the
 * baseline, and chosen at run time as gemm.c does, not with
 * target_clones: clang before 16 names the ifunc it makes "NAME.ifunc",
 * which callers in other files cannot link against, and an ifunc
 * resolver runs before the sanitizers' runtime is ready. */
#define BODY	static inline __attribute__((always_inline))
#define AVX2	PROBE_TARGET_AVX2 static

/* out[i] = element base + i of stream key, for i < n. */
BODY void
fill_unit(float *out, uint32_t n, uint32_t key, uint32_t base)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		out[i] = ep_rng_unit(ep_rng_u32(key, base + i));
}

AVX2 void
fill_unit_avx2(float *out, uint32_t n, uint32_t key, uint32_t base)
{
	fill_unit(out, n, key, base);
}

static void
fill_unit_base(float *out, uint32_t n, uint32_t key, uint32_t base)
{
	fill_unit(out, n, key, base);
}

static void
fill_unit_any(float *out, uint32_t n, uint32_t key, uint32_t base)
{
	if (probe_cpu_has_avx2())
		fill_unit_avx2(out, n, key, base);
	else
		fill_unit_base(out, n, key, base);
}

void
probe_fill_unit(float *out, size_t n, uint32_t key)
{
	fill_unit_any(out, (uint32_t)n, key, 0);
}

void
probe_gemm_inputs(float *a, float *b, int m, int n, int k, uint64_t seed)
{
	probe_fill_unit(a, (size_t)m * k, ep_rng_key(seed, EP_RNG_GEMM_A));
	probe_fill_unit(b, (size_t)k * n, ep_rng_key(seed, EP_RNG_GEMM_B));
}

void
probe_kat_inputs(float *a, float *b)
{
	uint32_t i, j, k;

	for (i = 0; i < EP_KAT_M; i++)
		for (k = 0; k < EP_KAT_K; k++)
			a[i * EP_KAT_K + k] = ep_kat_a(i, k);
	for (k = 0; k < EP_KAT_K; k++)
		for (j = 0; j < EP_KAT_N; j++)
			b[k * EP_KAT_N + j] = ep_kat_b(k, j);
}

/*
 * sum_k (alpha_i + beta_k)(gamma_k + delta_j)
 *   = K alpha delta + alpha S_gamma + delta S_beta + S_beta_gamma.
 * beta has period 5 and gamma period 3, each summing to 0 over a period,
 * and beta*gamma has period 15 summing to 0 (every residue pair once), so
 * each sum is its remainder's: fewer than 15 terms, not the k loop.
 */
int64_t
probe_kat_expect(uint32_t i, uint32_t j)
{
	int64_t K = EP_KAT_K, alpha = ep_kat_alpha(i), delta = ep_kat_delta(j);
	int64_t r5 = K % 5, r3 = K % 3, sb, sg, sbg = 0, t;

	sb = r5 * (r5 - 1) / 2 - 2 * r5;
	sg = r3 * (r3 - 1) / 2 - r3;
	for (t = 0; t < K % 15; t++)
		sbg += (t % 5 - 2) * (t % 3 - 1);
	return K * alpha * delta + alpha * sg + delta * sb + sbg;
}

size_t
probe_kat_check(const float *c, char *why, size_t n)
{
	size_t bad = 0;
	uint32_t i, j;
	int64_t want;
	float got;

	for (i = 0; i < EP_KAT_M; i++) {
		for (j = 0; j < EP_KAT_N; j++) {
			got = c[i * EP_KAT_N + j];
			want = probe_kat_expect(i, j);
			if (got == (float)want)
				continue;
			if (bad++ == 0 && n > 0)
				snprintf(why, n, "C[%u][%u] = %.9g, closed "
				    "form %lld", i, j, (double)got,
				    (long long)want);
		}
	}
	return bad;
}

typedef float v8sf __attribute__((vector_size(32)));
typedef int32_t v8si __attribute__((vector_size(32)));

#if defined(__clang__)
#define EVENS(lo, hi)	__builtin_shufflevector(lo, hi, \
	0, 2, 4, 6, 8, 10, 12, 14)
#define ODDS(lo, hi)	__builtin_shufflevector(lo, hi, \
	1, 3, 5, 7, 9, 11, 13, 15)
#else
#define EVENS(lo, hi)	__builtin_shuffle(lo, hi, \
	(v8si){ 0, 2, 4, 6, 8, 10, 12, 14 })
#define ODDS(lo, hi)	__builtin_shuffle(lo, hi, \
	(v8si){ 1, 3, 5, 7, 9, 11, 13, 15 })
#endif

/* Eight pairs at a time: the even and the odd elements of sixteen, each
 * pair added alone, so the sums are the scalar loop's. */
BODY float
tree_sum(float *x, float *tmp, size_t n)
{
	float *src = x, *dst = tmp, *swap;
	v8sf lo, hi, sum;
	size_t i;

	for (; n > 1; n /= 2) {
		for (i = 0; i + 8 <= n / 2; i += 8) {
			memcpy(&lo, src + 2 * i, sizeof lo);
			memcpy(&hi, src + 2 * i + 8, sizeof hi);
			sum = EVENS(lo, hi) + ODDS(lo, hi);
			memcpy(dst + i, &sum, sizeof sum);
		}
		for (; i < n / 2; i++)
			dst[i] = src[2 * i] + src[2 * i + 1];
		swap = src, src = dst, dst = swap;
	}
	return src[0];
}

AVX2 float
tree_sum_avx2(float *x, float *tmp, size_t n)
{
	return tree_sum(x, tmp, n);
}

static float
tree_sum_base(float *x, float *tmp, size_t n)
{
	return tree_sum(x, tmp, n);
}

float
probe_tree_sum(float *x, float *tmp, size_t n)
{
	return probe_cpu_has_avx2() ? tree_sum_avx2(x, tmp, n) :
	    tree_sum_base(x, tmp, n);
}

void
probe_reduce_chunk_inputs(float *x, uint32_t key, uint32_t c)
{
	fill_unit_any(x, EP_CHUNK, key, c * EP_CHUNK);
}

struct reduce_job {
	float *out;
	uint32_t key;
	atomic_uint next;		/* atomic: the next chunk to claim */
	pthread_mutex_t lock;		/* atomic: guards total */
	float total;
};

static float
chunk_sum(uint32_t key, uint32_t c)
{
	float x[EP_CHUNK], tmp[EP_CHUNK / 2];

	probe_reduce_chunk_inputs(x, key, c);
	return probe_tree_sum(x, tmp, EP_CHUNK);
}

/* Thread t takes chunks t, t + nt, ...: the owner of each chunk is fixed,
 * and so is every chunk's sum. */
static void
reduce_part(void *arg, int t, int nt)
{
	struct reduce_job *j = arg;
	uint32_t c;

	for (c = t; c < EP_NCHUNK; c += nt)
		j->out[c] = chunk_sum(j->key, c);
}

void
probe_cpu_reduce(float *out, uint64_t seed, int nthreads)
{
	struct reduce_job j = { .out = out };
	float tmp[EP_NCHUNK / 2], sums[EP_NCHUNK];

	j.key = ep_rng_key(seed, EP_RNG_REDUCE);
	probe_parallel(nthreads, reduce_part, &j);
	memcpy(sums, out, sizeof sums);
	out[EP_NCHUNK] = probe_tree_sum(sums, tmp, EP_NCHUNK);
}

/* Chunks are claimed from a shared counter and added to the total under
 * a lock as each finishes: both orders follow the scheduler. */
static void
atomic_part(void *arg, int t, int nt)
{
	struct reduce_job *j = arg;
	uint32_t c;
	float s;

	(void)t, (void)nt;
	while ((c = atomic_fetch_add(&j->next, 1)) < EP_ATOMIC_CPU_NCHUNK) {
		s = chunk_sum(j->key, c);
		pthread_mutex_lock(&j->lock);
		j->total += s;
		pthread_mutex_unlock(&j->lock);
	}
}

float
probe_cpu_atomic(uint64_t seed, int nthreads)
{
	struct reduce_job j = { .total = 0.0f };

	j.key = ep_rng_key(seed, EP_RNG_REDUCE);
	atomic_init(&j.next, 0);
	pthread_mutex_init(&j.lock, NULL);
	probe_parallel(nthreads < 2 ? 2 : nthreads, atomic_part, &j);
	pthread_mutex_destroy(&j.lock);
	return j.total;
}

/* Buffer sizes in bytes. */
#define KAT_A	(sizeof(float) * EP_KAT_M * EP_KAT_K)
#define KAT_B	(sizeof(float) * EP_KAT_K * EP_KAT_N)
#define KAT_C	(sizeof(float) * EP_KAT_M * EP_KAT_N)
#define GEMM_A	(sizeof(float) * EP_GEMM_M * EP_GEMM_K)
#define GEMM_B	(sizeof(float) * EP_GEMM_K * EP_GEMM_N)
#define GEMM_C	(sizeof(float) * EP_GEMM_M * EP_GEMM_N)

static void
run_kat(struct probe_result *r, int nt)
{
	float *a, *b, *c;
	uint64_t t0 = ep_now_ns();
	size_t bad;

	a = probe_buf_alloc(KAT_A);
	b = probe_buf_alloc(KAT_B);
	c = probe_buf_alloc(KAT_C);
	probe_kat_inputs(a, b);
	probe_cpu_gemm(c, a, b, EP_KAT_M, EP_KAT_N, EP_KAT_K, nt);
	bad = probe_kat_check(c, r->reason, sizeof r->reason);
	r->known_answer = bad == 0;
	probe_result_ok(r, c, KAT_C, probe_ms_since(t0));
	probe_buf_free(c, KAT_C);
	probe_buf_free(b, KAT_B);
	probe_buf_free(a, KAT_A);
}

static void
run_gemm(struct probe_result *r, uint64_t seed, int nt)
{
	float *a, *b, *c;
	uint64_t t0 = ep_now_ns();

	a = probe_buf_alloc(GEMM_A);
	b = probe_buf_alloc(GEMM_B);
	c = probe_buf_alloc(GEMM_C);
	probe_gemm_inputs(a, b, EP_GEMM_M, EP_GEMM_N, EP_GEMM_K, seed);
	probe_cpu_gemm(c, a, b, EP_GEMM_M, EP_GEMM_N, EP_GEMM_K, nt);
	probe_result_ok(r, c, GEMM_C, probe_ms_since(t0));
	probe_buf_free(c, GEMM_C);
	probe_buf_free(b, GEMM_B);
	probe_buf_free(a, GEMM_A);
}

static const char *const cpu_work[] = { "kat", "gemm", "reduce", "atomic" };

void
probe_cpu_run(struct probe_run *run, const struct probe_opts *opts)
{
	float out[EP_NCHUNK + 1], total;
	struct utsname u;
	uint64_t t0;
	int nt = probe_threads(opts);

	probe_run_init(run, "cpu", cpu_work, 4);
	run->dev.kind = PROBE_DEV_CPU;
	snprintf(run->dev.arch, sizeof run->dev.arch, "%s",
	    uname(&u) == 0 ? u.machine : "unknown");

	run_kat(&run->res[0], nt);
	run_gemm(&run->res[1], opts->seed, nt);

	t0 = ep_now_ns();
	probe_cpu_reduce(out, opts->seed, nt);
	probe_result_ok(&run->res[2], out, sizeof out, probe_ms_since(t0));

	t0 = ep_now_ns();
	total = probe_cpu_atomic(opts->seed, nt);
	probe_result_ok(&run->res[3], &total, sizeof total,
	    probe_ms_since(t0));
}
