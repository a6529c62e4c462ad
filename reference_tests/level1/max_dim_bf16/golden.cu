// Golden kernels for max_dim_bf16: y[r] = max_j x[r, j] over a row-major [rows, cols] bfloat16
// tensor. The maximum of bfloat16 values is one of them, so the result is exact (widening to
// float32 and narrowing back are both exact here).
//
// Two launches (see golden_launch in problem.json):
//  1. max_dim_partial: each row is cut into `split` chunks of clen = align(cdiv(cols, split), 8)
//     elements (the last chunk is shorter; a chunk past the end of the row is empty and yields
//     -inf). A group of G threads (G a power of two, G <= blockDim.x) reduces one chunk: G is
//     the smallest power of two with G * 32 >= clen, capped at blockDim.x, and the group walks
//     its chunk in rounds of 32 elements per thread (4 independent 16-byte loads of 8 values
//     in flight per thread, consecutive threads on consecutive vectors). Short rows get many
//     rows per block; long rows get `split` blocks each so that a few long rows fill the GPU.
//     With split == 1 the chunk maximum is written to y directly, otherwise to
//     partial[row * split + chunk] (float32).
//  2. max_dim_finish: when split > 1, one warp per row takes the maximum of its partials.
// Vector loads need cols % 8 == 0 and a 16-byte aligned x (chunks start at multiples of 8
// elements, so every chunk is then aligned); otherwise the same walk runs element by element.
// Max is exact and order-independent; the reduction order is fixed anyway. Any grid size is
// correct (block-uniform loops). Requires blockDim.x to be a power of two between 32 and 1024.
// Inputs are finite (NaN handling is not specified).

#include <cuda_bf16.h>

#define MD_NV 4                     // 16-byte vectors (8 values) per thread per round
#define MD_EPT (8 * MD_NV)          // elements per thread per round
#define MD_SR 8                     // elements per thread per round, scalar path

__device__ __forceinline__ float neg_inf() { return __int_as_float(0xff800000); }

__device__ __forceinline__ int pow2_at_least(int v)
{
    int p = 1;
    while (p < v) p <<= 1;
    return p;
}

// Max of v over this thread's group of G threads. For G > 32 every thread of the block must call it.
__device__ __forceinline__ float group_max(float v, int G, float* red)
{
    const int w = G < 32 ? G : 32;
    for (int off = w >> 1; off > 0; off >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, off));
    if (G > 32) {
        const int warp = threadIdx.x >> 5;
        const int wpg = G >> 5;
        const int g0 = warp & ~(wpg - 1);
        __syncthreads();
        if ((threadIdx.x & 31) == 0) red[warp] = v;
        __syncthreads();
        v = red[g0];
        for (int i = 1; i < wpg; ++i) v = fmaxf(v, red[g0 + i]);
    }
    return v;
}

__device__ __forceinline__ int chunk_len(int cols, int split)
{
    const long long c = ((long long)cols + split - 1) / split;
    return (int)((c + 7) & ~7ll);
}

__device__ __forceinline__ float max8(uint4 a)
{
    const __nv_bfloat162* h = reinterpret_cast<const __nv_bfloat162*>(&a);
    const float2 f0 = __bfloat1622float2(h[0]);
    const float2 f1 = __bfloat1622float2(h[1]);
    const float2 f2 = __bfloat1622float2(h[2]);
    const float2 f3 = __bfloat1622float2(h[3]);
    return fmaxf(fmaxf(fmaxf(f0.x, f0.y), fmaxf(f1.x, f1.y)), fmaxf(fmaxf(f2.x, f2.y), fmaxf(f3.x, f3.y)));
}

extern "C" __global__ void __launch_bounds__(256, 4)
max_dim_partial(const __nv_bfloat16* __restrict__ x, __nv_bfloat16* __restrict__ y, float* __restrict__ partial,
                int rows, int cols, int split)
{
    __shared__ float red[32];
    const int bd = blockDim.x;
    const int clen = chunk_len(cols, split);
    int G = pow2_at_least((clen + MD_EPT - 1) / MD_EPT);
    if (G > bd) G = bd;
    const int R = bd / G;
    const int lane = threadIdx.x & (G - 1);
    const int gi = threadIdx.x / G;
    const long long nseg = (long long)rows * split;
    const bool vec = (cols & 7) == 0 && (reinterpret_cast<unsigned long long>(x) & 15ull) == 0;

    for (long long s0 = (long long)blockIdx.x * R; s0 < nseg; s0 += (long long)gridDim.x * R) {
        const long long seg = s0 + gi;
        const bool active = seg < nseg;
        const long long row = active ? seg / split : 0;
        const long long start = active ? (seg - row * split) * (long long)clen : 0;
        const long long end = start + clen < cols ? start + clen : cols;
        const int len = active && end > start ? (int)(end - start) : 0;
        const __nv_bfloat16* __restrict__ xs = x + row * cols + start;
        float m = neg_inf();
        if (vec) {
            const uint4* __restrict__ x8 = reinterpret_cast<const uint4*>(xs);
            const int nv = len >> 3;                   // len % 8 == 0 here
            int base = 0;
            for (; base + G * MD_NV <= nv; base += G * MD_NV) {   // full rounds: no bound checks
                uint4 v[MD_NV];
#pragma unroll
                for (int k = 0; k < MD_NV; ++k) v[k] = __ldg(x8 + base + k * G + lane);
#pragma unroll
                for (int k = 0; k < MD_NV; ++k) m = fmaxf(m, max8(v[k]));
            }
#pragma unroll
            for (int k = 0; k < MD_NV; ++k) {                     // last, partial round
                const int j = base + k * G + lane;
                if (j < nv) m = fmaxf(m, max8(__ldg(x8 + j)));
            }
        } else {
            for (int base = 0; base < len; base += G * MD_SR) {
                float v[MD_SR];
#pragma unroll
                for (int k = 0; k < MD_SR; ++k) {
                    const int j = base + k * G + lane;
                    v[k] = j < len ? __bfloat162float(xs[j]) : neg_inf();
                }
#pragma unroll
                for (int k = 0; k < MD_SR; ++k) m = fmaxf(m, v[k]);
            }
        }
        m = group_max(m, G, red);
        if (active && lane == 0) {
            if (split == 1)
                y[row] = __float2bfloat16_rn(m);
            else
                partial[seg] = m;
        }
    }
}

extern "C" __global__ void __launch_bounds__(256)
max_dim_finish(const float* __restrict__ partial, __nv_bfloat16* __restrict__ y, int rows, int split)
{
    if (split <= 1) return;                           // partial kernel already wrote y
    const int lane = threadIdx.x & 31;
    const int wpb = blockDim.x >> 5;
    for (long long row = (long long)blockIdx.x * wpb + (threadIdx.x >> 5); row < rows;
         row += (long long)gridDim.x * wpb) {
        const float* __restrict__ p = partial + row * split;
        float m = neg_inf();
        for (int j = lane; j < split; j += 32) m = fmaxf(m, p[j]);
        for (int off = 16; off > 0; off >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, off));
        if (lane == 0) y[row] = __float2bfloat16_rn(m);
    }
}
