/*
 * spec.h: what each workload computes, shared by the C backends and the
 * CUDA kernels so that both sides build the same inputs and the same
 * reduction tree.  A workload's definition is its sizes, its inputs and
 * the order of its floating-point operations; changing any of them
 * changes its hashes: bump PROBE_VERSION in probe.h.
 *
 * kat	C = A.B, M x N x K = 256 x 384 x 512, row-major, with
 *	A[i][k] = alpha(i) + beta(k), B[k][j] = gamma(k) + delta(j),
 *	small integers, so every partial sum is an integer below 2^24 and
 *	exact in fp32 in any order; the answer has a closed form
 *	(ep_kat_expect in cpu.c).
 * gemm	C = A.B, 1024 x 1024 x 1024, row-major, A and B from ep_rng_unit
 *	(streams GEMM_A, GEMM_B).  Each element is summed over k in
 *	ascending order, acc = acc + a*b with the product and the sum each
 *	rounded (no fused multiply-add), starting from +0.  The CPU and the
 *	cuda backend follow this order exactly, so their hashes agree.
 * reduce	2^24 floats from stream REDUCE, element i = unit(u32(key, i)),
 *	summed as 4096 chunks of 4096: each chunk by the adjacent-pair tree
 *	(level by level, x'[i] = x[2i] + x[2i+1]), then the 4096 chunk sums
 *	by the same tree.  Output: the 4096 chunk sums, then the total.
 * atomic	the same floats, partial sums added to one accumulator in
 *	whatever order threads arrive: the canary, expected to vary on a
 *	GPU.  The GPU adds all 2^24 as 131072 warp sums of 128; the CPU,
 *	to stay cheap, the first EP_ATOMIC_CPU_NCHUNK chunk sums (2^21
 *	elements) in the order its threads finish them.
 * sgemm_*	cuBLAS SGEMM on the gemm inputs (same sizes and layout).
 * conv_fwd	cuDNN forward convolution, NCHW fp32, x 8x16x64x64 (stream
 *	CONV_X), w 32x16x3x3 (stream CONV_W), padding 1, stride 1,
 *	cross-correlation, IMPLICIT_GEMM, FMA math (no TF32).
 */
#ifndef EP_PROBE_SPEC_H
#define EP_PROBE_SPEC_H

#include "rng.h"

#define EP_KAT_M	256
#define EP_KAT_N	384
#define EP_KAT_K	512

#define EP_GEMM_M	1024
#define EP_GEMM_N	1024
#define EP_GEMM_K	1024

#define EP_CHUNK	4096		/* elements per reduction chunk */
#define EP_NCHUNK	4096		/* chunks: 2^24 elements in all */
#define EP_REDUCE_N	((uint32_t)EP_CHUNK * EP_NCHUNK)
#define EP_ATOMIC_CPU_NCHUNK	512

#define EP_CONV_N	8
#define EP_CONV_C	16
#define EP_CONV_H	64
#define EP_CONV_W	64
#define EP_CONV_K	32
#define EP_CONV_R	3
#define EP_CONV_S	3
#define EP_CONV_PAD	1

/* The kat operands' four integer sequences. */
EP_HD int ep_kat_alpha(uint32_t i) { return (int)(i % 7) - 3; }
EP_HD int ep_kat_beta(uint32_t k) { return (int)(k % 5) - 2; }
EP_HD int ep_kat_gamma(uint32_t k) { return (int)(k % 3) - 1; }
EP_HD int ep_kat_delta(uint32_t j) { return (int)(j % 11) - 5; }

EP_HD float
ep_kat_a(uint32_t i, uint32_t k)
{
	return (float)(ep_kat_alpha(i) + ep_kat_beta(k));
}

EP_HD float
ep_kat_b(uint32_t k, uint32_t j)
{
	return (float)(ep_kat_gamma(k) + ep_kat_delta(j));
}

#endif
