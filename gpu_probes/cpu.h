/*
 * cpu.h: the CPU twins of the workloads (spec.h).  The gemm and the
 * reduction give the same bits whatever the thread count or the vector
 * width, because each output element's operations happen in the order
 * spec.h fixes; only probe_cpu_atomic depends on scheduling, on purpose.
 */
#ifndef EP_PROBE_CPU_H
#define EP_PROBE_CPU_H

#include <stddef.h>
#include <stdint.h>

/* C = A.B for row-major A (m x k), B (k x n), C (m x n), summing over k
 * in ascending order with separately rounded products and sums from +0,
 * on nthreads threads (1 runs in the caller; a thread that cannot be
 * created leaves its rows to the caller).  C is overwritten. */
void probe_cpu_gemm(float *c, const float *a, const float *b, int m, int n,
    int k, int nthreads);

/* The same, with the AVX2 path allowed (avx2 = 1, used when the CPU has
 * it) or not (0: baseline x86-64 vectors); both give the same bits.  On
 * other architectures (arm64, whose baseline has 128-bit NEON vectors)
 * there is one path and avx2 is ignored: the same bits again. */
void probe_cpu_gemm_isa(float *c, const float *a, const float *b, int m,
    int n, int k, int nthreads, int avx2);

/* The attribute that compiles a body for AVX2 on x86-64 (and nothing
 * elsewhere, where the AVX2 copy is the baseline again and never
 * chosen), and whether this CPU has AVX2 (0 off x86-64). */
#if defined(__x86_64__) || defined(__i386__)
#define PROBE_TARGET_AVX2	__attribute__((target("avx2")))
#else
#define PROBE_TARGET_AVX2
#endif
int probe_cpu_has_avx2(void);

/* out[i] = ep_rng_unit(ep_rng_u32(key, i)) for i < n (n < 2^32). */
void probe_fill_unit(float *out, size_t n, uint32_t key);

/* Fill A (m x k) from stream GEMM_A and B (k x n) from GEMM_B. */
void probe_gemm_inputs(float *a, float *b, int m, int n, int k,
    uint64_t seed);

/* Fill the kat operands (EP_KAT_M x EP_KAT_K and EP_KAT_K x EP_KAT_N). */
void probe_kat_inputs(float *a, float *b);

/* The kat answer for element (i, j), from its closed form. */
int64_t probe_kat_expect(uint32_t i, uint32_t j);

/* Count the elements of c (EP_KAT_M x EP_KAT_N) that differ from the
 * closed form; when any do, describe the first in why (size n). */
size_t probe_kat_check(const float *c, char *why, size_t n);

/* The adjacent-pair tree sum of x[0..n), n a power of two; x and tmp
 * (n / 2 floats) are overwritten. */
float probe_tree_sum(float *x, float *tmp, size_t n);

/* Element i of chunk c of the reduce input, for c in [0, EP_NCHUNK),
 * written to x (EP_CHUNK floats). */
void probe_reduce_chunk_inputs(float *x, uint32_t key, uint32_t c);

/* The reduce workload: out gets EP_NCHUNK chunk sums then the total
 * (EP_NCHUNK + 1 floats). */
void probe_cpu_reduce(float *out, uint64_t seed, int nthreads);

/* The atomic canary: the first EP_ATOMIC_CPU_NCHUNK chunk sums added to
 * one total in the order threads finish them. */
float probe_cpu_atomic(uint64_t seed, int nthreads);

#endif
