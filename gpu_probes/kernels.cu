/*
 * kernels.cu: the cuda backend's kernels, compiled by nvcc at build time
 * into a fatbin (SASS for sm_80 and sm_90, PTX for compute_80) that the
 * probe embeds and loads with cuModuleLoadData (cudak.c).
 *
 * Inputs come from rng.h and spec.h, the same text the CPU backend
 * compiles.  gemm and reduce follow spec.h's operation order exactly,
 * with __fmul_rn and __fadd_rn so that nvcc can neither fuse a product
 * into its sum nor reorder (the build also passes --fmad=false): their
 * results equal the CPU's bit for bit.  atomic is the canary: its order
 * is whatever order the hardware serves the atomics in.
 */
#include "rng.h"
#include "spec.h"

#define TILE	32

/* out[i] = unit(u32(key, i)) for i < n. */
extern "C" __global__ void
ep_gen_unit(float *out, unsigned n, unsigned key)
{
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		out[i] = ep_rng_unit(ep_rng_u32(key, i));
}

/* The kat operands: a is EP_KAT_M x EP_KAT_K, b is EP_KAT_K x EP_KAT_N. */
extern "C" __global__ void
ep_gen_kat(float *a, float *b)
{
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < EP_KAT_M * EP_KAT_K)
		a[i] = ep_kat_a(i / EP_KAT_K, i % EP_KAT_K);
	if (i < EP_KAT_K * EP_KAT_N)
		b[i] = ep_kat_b(i / EP_KAT_N, i % EP_KAT_N);
}

/* C = A.B, row-major, one element per thread, blocks of TILE x TILE.
 * Each element sums over k in ascending order; a partial last tile adds
 * only its real terms (a padded 0 * x could turn a -0 sum into +0). */
extern "C" __global__ void
ep_gemm(float *c, const float *a, const float *b, int m, int n, int k)
{
	__shared__ float as[TILE][TILE + 1], bs[TILE][TILE + 1];
	int tx = threadIdx.x, ty = threadIdx.y;
	int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
	int k0, kk, kend;
	float acc = 0.0f;

	for (k0 = 0; k0 < k; k0 += TILE) {
		as[ty][tx] = row < m && k0 + tx < k ?
		    a[(size_t)row * k + k0 + tx] : 0.0f;
		bs[ty][tx] = k0 + ty < k && col < n ?
		    b[(size_t)(k0 + ty) * n + col] : 0.0f;
		__syncthreads();
		kend = k - k0 < TILE ? k - k0 : TILE;
		for (kk = 0; kk < kend; kk++)
			acc = __fadd_rn(acc, __fmul_rn(as[ty][kk], bs[kk][tx]));
		__syncthreads();
	}
	if (row < m && col < n)
		c[(size_t)row * n + col] = acc;
}

/* The first two levels of the adjacent-pair tree over four elements. */
static __device__ float
leaf4(float x0, float x1, float x2, float x3)
{
	return __fadd_rn(__fadd_rn(x0, x1), __fadd_rn(x2, x3));
}

/* The rest of the tree over a block of 1024 threads' leaves (4096
 * elements in all), level by level: s'[t] = s[2t] + s[2t+1]. */
static __device__ float
block_tree(float v, float *s)
{
	unsigned t = threadIdx.x, len;
	float w = 0.0f;

	s[t] = v;
	__syncthreads();
	for (len = 1024; len > 1; len >>= 1) {
		if (t < len / 2)
			w = __fadd_rn(s[2 * t], s[2 * t + 1]);
		__syncthreads();
		if (t < len / 2)
			s[t] = w;
		__syncthreads();
	}
	return s[0];
}

static __device__ float
reduce_leaf(unsigned key, unsigned base)
{
	return leaf4(ep_rng_unit(ep_rng_u32(key, base)),
	    ep_rng_unit(ep_rng_u32(key, base + 1)),
	    ep_rng_unit(ep_rng_u32(key, base + 2)),
	    ep_rng_unit(ep_rng_u32(key, base + 3)));
}

/* One block of 1024 threads per chunk of EP_CHUNK (4096) elements,
 * generated in place from their index. */
extern "C" __global__ void
ep_reduce_chunks(float *sums, unsigned key)
{
	__shared__ float s[1024];
	unsigned base = blockIdx.x * EP_CHUNK + threadIdx.x * 4;
	float v;

	v = block_tree(reduce_leaf(key, base), s);
	if (threadIdx.x == 0)
		sums[blockIdx.x] = v;
}

/* One block: the tree over the EP_NCHUNK (4096) chunk sums. */
extern "C" __global__ void
ep_reduce_total(float *total, const float *sums)
{
	__shared__ float s[1024];
	unsigned b = threadIdx.x * 4;
	float v;

	v = block_tree(leaf4(sums[b], sums[b + 1], sums[b + 2], sums[b + 3]),
	    s);
	if (threadIdx.x == 0)
		*total = v;
}

/* The canary: each warp sums its 128 elements (a fixed tree), then adds
 * them to *total with atomicAdd, 131072 atomics in whatever order they
 * land. */
extern "C" __global__ void
ep_atomic(float *total, unsigned key)
{
	unsigned base = (blockIdx.x * blockDim.x + threadIdx.x) * 4;
	float v = reduce_leaf(key, base);
	int off;

	for (off = 1; off < 32; off <<= 1)
		v = __fadd_rn(v, __shfl_down_sync(0xffffffffu, v, off));
	if ((threadIdx.x & 31) == 0)
		atomicAdd(total, v);
}
