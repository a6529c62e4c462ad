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
    const Chunks ch(rows, cols, split, MD_EPT);
    const int G = ch.g.G, lane = ch.g.lane;
    const bool vec = (cols & 7) == 0 && (reinterpret_cast<unsigned long long>(x) & 15ull) == 0;

    for (long long s0 = ch.first(); s0 < ch.nseg; s0 += ch.step()) {
        const Chunk c = ch.at(s0);
        const __nv_bfloat16* __restrict__ xs = x + c.row * cols + c.start;
        float m = neg_inf();
        if (vec) {
            const uint4* __restrict__ x8 = reinterpret_cast<const uint4*>(xs);
            const int nv = c.len >> 3;                   // c.len % 8 == 0 here
            int base = 0;
            for (; base + G * MD_NV <= nv; base += G * MD_NV) {   // full rounds: no bound checks
                CHUNK_ROUND(MD_NV, uint4 v[MD_NV], v[k] = __ldg(x8 + base + k * G + lane), m = fmaxf(m, max8(v[k])));
            }
            CHUNK_TAIL(MD_NV, m = fmaxf(m, max8(__ldg(x8 + j))));     // last, partial round
        } else {
            for (int base = 0; base < c.len; base += G * MD_SR) {
                CHUNK_ROUND_J(MD_SR, float v[MD_SR], v[k] = j < c.len ? __bfloat162float(xs[j]) : neg_inf(),
                              m = fmaxf(m, v[k]));
            }
        }
        m = group_max(m, G, red);
        if (c.active && lane == 0) {
            if (split == 1)
                y[c.row] = __float2bfloat16_rn(m);
            else
                partial[c.seg] = m;
        }
    }
}

extern "C" __global__ void __launch_bounds__(256)
max_dim_finish(const float* __restrict__ partial, __nv_bfloat16* __restrict__ y, int rows, int split)
{
    if (split <= 1) return;                           // partial kernel already wrote y
    const RowWarps w;
    const int lane = w.lane;
    for (long long row = w.first(); row < rows; row += w.step()) {
        const float m = warp_reduce_partials<true>(partial + row * split, split, lane);
        if (lane == 0) y[row] = __float2bfloat16_rn(m);
    }
}
