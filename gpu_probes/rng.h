/*
 * rng.h: the probe's input generator, one counter-based hash that the C
 * code and the CUDA kernels compile from this same text, so that every
 * backend starts from bit-identical inputs without copying them around.
 *
 * Element idx of stream s under seed is ep_rng_u32(ep_rng_key(seed, s),
 * idx): no state, no order, any thread can compute any element.  Only
 * 32-bit integer multiplies, shifts and xors are used (exact everywhere,
 * and they vectorise on the CPU); the float maps are exact conversions of
 * integers of at most 24 bits, scaled by a power of two.
 *
 * Changing anything here changes every workload's output: bump
 * PROBE_VERSION in probe.h.
 */
#ifndef EP_PROBE_RNG_H
#define EP_PROBE_RNG_H

#include <stdint.h>

#ifdef __CUDACC__
#define EP_HD	static inline __host__ __device__
#else
#define EP_HD	static inline
#endif

/* Input streams: one per operand, so that no two operands are equal. */
enum ep_rng_stream {
	EP_RNG_GEMM_A = 1,
	EP_RNG_GEMM_B = 2,
	EP_RNG_REDUCE = 3,
	EP_RNG_CONV_X = 4,
	EP_RNG_CONV_W = 5,
};

/* Chris Wellons' "lowbias32" finaliser: a bijection on 32 bits with low
 * avalanche bias. */
EP_HD uint32_t
ep_rng_mix32(uint32_t x)
{
	x ^= x >> 16;
	x *= 0x7feb352dU;
	x ^= x >> 15;
	x *= 0x846ca68bU;
	x ^= x >> 16;
	return x;
}

/* The per-stream key, computed once on the host and passed to kernels. */
EP_HD uint32_t
ep_rng_key(uint64_t seed, uint32_t stream)
{
	uint32_t h;

	h = ep_rng_mix32(stream + 0x9e3779b9U);
	h = ep_rng_mix32((uint32_t)(seed >> 32) ^ h);
	return ep_rng_mix32((uint32_t)seed ^ h);
}

/* Two rounds, keyed twice, so that neighbouring indices and neighbouring
 * keys both give unrelated words. */
EP_HD uint32_t
ep_rng_u32(uint32_t key, uint32_t idx)
{
	return ep_rng_mix32(ep_rng_mix32(idx ^ key) + key);
}

/* A float in [-1, 1) with 24 significant bits: k * 2^-23 for an integer
 * k in [-2^23, 2^23).  Sums of these round, so their order shows. */
EP_HD float
ep_rng_unit(uint32_t u)
{
	return (float)((int32_t)(u >> 8) - 0x800000) * 0x1p-23f;
}

#endif
