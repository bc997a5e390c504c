/*
 * gemm.c: the CPU's fp32 matrix product, blocked for the cache and
 * vectorised across output columns, with every element still summed over
 * k in ascending order (spec.h).  Vectors only ever hold independent
 * output elements, so SSE2, AVX2 and arm64's NEON give the same bits; the file is built
 * with -ffp-contract=off and without -ffast-math so that no product is
 * fused into its sum and nothing is reassociated.
 */
#include <string.h>

#include "cpu.h"
#include "parallel.h"
#include "probe.h"

#define MR	4		/* rows of C per micro-kernel */
#define NR	16		/* columns of C per micro-kernel */
#define KC	256		/* depth of a B panel */
#define NC	512		/* width of a B panel */

typedef float v8sf __attribute__((vector_size(32)));
typedef float v4sf __attribute__((vector_size(16)));

struct gemm_job {
	float *c;
	const float *a, *b;
	int m, n, k;
	int avx2;
};

/* Whether this CPU has AVX2 (cpu.h); here, below cpu.c, which asks it
 * too. */
int
probe_cpu_has_avx2(void)
{
#if defined(__x86_64__) || defined(__i386__)
	static int have = -1;	/* racy but idempotent: every thread
				   computes the same answer */

	if (have < 0) {
		__builtin_cpu_init();
		have = __builtin_cpu_supports("avx2") != 0;
	}
	return have;
#else
	return 0;
#endif
}

/* Unaligned vector access; macros, since passing a 32-byte vector by
 * value to a function compiled without AVX changes the ABI. */
#define LOAD(v, p)	memcpy(&(v), (p), sizeof(v))
#define STORE(p, v)	memcpy((p), &(v), sizeof(v))

/* C[0..MR)[0..NR) += A[0..MR)[0..kc) . B[0..kc)[0..NR), k ascending;
 * B is a packed strip, row p at b + p * NR. */
static inline __attribute__((always_inline)) void
micro(float *c, int ldc, const float *a, int lda, const float *b, int kc)
{
	v8sf c00, c01, c10, c11, c20, c21, c30, c31, b0, b1;
	int p;

	LOAD(c00, c), LOAD(c01, c + 8);
	LOAD(c10, c + ldc), LOAD(c11, c + ldc + 8);
	LOAD(c20, c + 2 * ldc), LOAD(c21, c + 2 * ldc + 8);
	LOAD(c30, c + 3 * ldc), LOAD(c31, c + 3 * ldc + 8);
	for (p = 0; p < kc; p++) {
		LOAD(b0, b + (size_t)p * NR);
		LOAD(b1, b + (size_t)p * NR + 8);
		c00 = c00 + b0 * a[p], c01 = c01 + b1 * a[p];
		c10 = c10 + b0 * a[lda + p], c11 = c11 + b1 * a[lda + p];
		c20 = c20 + b0 * a[2 * lda + p];
		c21 = c21 + b1 * a[2 * lda + p];
		c30 = c30 + b0 * a[3 * lda + p];
		c31 = c31 + b1 * a[3 * lda + p];
	}
	STORE(c, c00), STORE(c + 8, c01);
	STORE(c + ldc, c10), STORE(c + ldc + 8, c11);
	STORE(c + 2 * ldc, c20), STORE(c + 2 * ldc + 8, c21);
	STORE(c + 3 * ldc, c30), STORE(c + 3 * ldc + 8, c31);
}

/* The same for 8 columns with 16-byte vectors, twice per strip, for
 * CPUs without AVX2: GCC splits 32-byte vectors there through memory. */
static inline __attribute__((always_inline)) void
micro8(float *c, int ldc, const float *a, int lda, const float *b, int kc)
{
	v4sf c00, c01, c10, c11, c20, c21, c30, c31, b0, b1;
	int p;

	LOAD(c00, c), LOAD(c01, c + 4);
	LOAD(c10, c + ldc), LOAD(c11, c + ldc + 4);
	LOAD(c20, c + 2 * ldc), LOAD(c21, c + 2 * ldc + 4);
	LOAD(c30, c + 3 * ldc), LOAD(c31, c + 3 * ldc + 4);
	for (p = 0; p < kc; p++) {
		LOAD(b0, b + (size_t)p * NR);
		LOAD(b1, b + (size_t)p * NR + 4);
		c00 = c00 + b0 * a[p], c01 = c01 + b1 * a[p];
		c10 = c10 + b0 * a[lda + p], c11 = c11 + b1 * a[lda + p];
		c20 = c20 + b0 * a[2 * lda + p];
		c21 = c21 + b1 * a[2 * lda + p];
		c30 = c30 + b0 * a[3 * lda + p];
		c31 = c31 + b1 * a[3 * lda + p];
	}
	STORE(c, c00), STORE(c + 4, c01);
	STORE(c + ldc, c10), STORE(c + ldc + 4, c11);
	STORE(c + 2 * ldc, c20), STORE(c + 2 * ldc + 4, c21);
	STORE(c + 3 * ldc, c30), STORE(c + 3 * ldc + 4, c31);
}

/* The edges the micro-kernel does not cover, one element at a time in
 * the same order. */
static inline __attribute__((always_inline)) void
edge(float *c, int ldc, const float *a, int lda, const float *b, int ldb,
    int rows, int cols, int kc)
{
	float acc;
	int i, j, p;

	for (i = 0; i < rows; i++) {
		for (j = 0; j < cols; j++) {
			acc = c[(size_t)i * ldc + j];
			for (p = 0; p < kc; p++)
				acc = acc + a[(size_t)i * lda + p] *
				    b[(size_t)p * ldb + j];
			c[(size_t)i * ldc + j] = acc;
		}
	}
}

/* One MR x NR block of C against one packed strip. */
static inline __attribute__((always_inline)) void
strip(float *c, int ldc, const float *a, int lda, const float *b, int kc,
    int wide)
{
	if (wide)
		micro(c, ldc, a, lda, b, kc);
	else {
		micro8(c, ldc, a, lda, b, kc);
		micro8(c + 8, ldc, a, lda, b + 8, kc);
	}
}

/* Copy the full NR-wide strips of B's panel [pc, pc + kc) x [jc, jc +
 * nc) into bp, strip by strip, each row of a strip contiguous: B's rows
 * are a page apart, and reading 16 floats from each of 256 of them in
 * turn would fight over the same few L1 sets. */
static inline __attribute__((always_inline)) void
pack(float *bp, const float *b, int ldb, int kc, int strips)
{
	int s, p;

	for (s = 0; s < strips; s++)
		for (p = 0; p < kc; p++)
			memcpy(bp + ((size_t)s * kc + p) * NR,
			    b + (size_t)p * ldb + s * NR, NR * sizeof *bp);
}

/* Rows [r0, r1) of C, panel by panel; k panels in ascending order keep
 * each element's sum in ascending k.  bp holds KC x NC floats. */
static inline __attribute__((always_inline)) void
rows(const struct gemm_job *g, int r0, int r1, float *bp, int wide)
{
	const float *a = g->a, *b = g->b;
	float *c = g->c;
	int n = g->n, k = g->k, jc, pc, nc, kc, i, j, strips;

	for (jc = 0; jc < n; jc += NC) {
		nc = n - jc < NC ? n - jc : NC;
		strips = nc / NR;
		for (pc = 0; pc < k; pc += KC) {
			kc = k - pc < KC ? k - pc : KC;
			pack(bp, b + (size_t)pc * n + jc, n, kc, strips);
			for (i = r0; i + MR <= r1; i += MR) {
				for (j = 0; j < strips; j++)
					strip(c + (size_t)i * n + jc + j * NR,
					    n, a + (size_t)i * k + pc, k,
					    bp + (size_t)j * kc * NR, kc, wide);
				j = jc + strips * NR;
				edge(c + (size_t)i * n + j, n,
				    a + (size_t)i * k + pc, k,
				    b + (size_t)pc * n + j, n,
				    MR, jc + nc - j, kc);
			}
			edge(c + (size_t)i * n + jc, n, a + (size_t)i * k + pc,
			    k, b + (size_t)pc * n + jc, n, r1 - i, nc, kc);
		}
	}
}

PROBE_TARGET_AVX2 static void
rows_avx2(const struct gemm_job *g, int r0, int r1, float *bp)
{
	rows(g, r0, r1, bp, 1);
}

static void
rows_base(const struct gemm_job *g, int r0, int r1, float *bp)
{
	rows(g, r0, r1, bp, 0);
}

/* Thread t of nt takes a contiguous band of rows, a multiple of MR. */
static void
gemm_part(void *arg, int t, int nt)
{
	const struct gemm_job *g = arg;
	int per, r0, r1;
	float *bp;

	per = (g->m + nt - 1) / nt;
	per = (per + MR - 1) / MR * MR;
	r0 = t * per;
	r1 = r0 + per < g->m ? r0 + per : g->m;
	if (r0 >= r1)
		return;
	bp = probe_buf_alloc((size_t)KC * NC * sizeof *bp);
	if (g->avx2)
		rows_avx2(g, r0, r1, bp);
	else
		rows_base(g, r0, r1, bp);
	probe_buf_free(bp, (size_t)KC * NC * sizeof *bp);
}

void
probe_cpu_gemm_isa(float *c, const float *a, const float *b, int m, int n,
    int k, int nthreads, int avx2)
{
	struct gemm_job g = { c, a, b, m, n, k, 0 };

	g.avx2 = avx2 && probe_cpu_has_avx2();
	memset(c, 0, (size_t)m * n * sizeof *c);
	/* A thread's start and its panel cost more than a few rows. */
	if (nthreads > (m + 31) / 32)
		nthreads = (m + 31) / 32;
	probe_parallel(nthreads < 1 ? 1 : nthreads, gemm_part, &g);
}

void
probe_cpu_gemm(float *c, const float *a, const float *b, int m, int n,
    int k, int nthreads)
{
	probe_cpu_gemm_isa(c, a, b, m, n, k, nthreads, 1);
}
