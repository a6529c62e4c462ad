// Golden kernel: h = x + r (rounded to bfloat16 and stored), y = layernorm(h) * gamma + beta over
// the last dimension, bfloat16 in and out, statistics in float32.
//
// One CTA per row; blockDim.x (a multiple of 32, at most 256) threads walk the row in chunks of 8
// elements (16 bytes), thread i taking chunks i, i + blockDim.x, ... The first LN_CACHE chunks of each
// thread stay in registers (rows up to 256 * 8 * LN_CACHE = 8192 elements never touch memory twice);
// later chunks are read back from h, which this same thread has just written. The variance is the
// two-pass sum of squared deviations from the mean (no cancellation), over the rounded h values.
// Fast path: 16-byte accesses when cols % 8 == 0 and every pointer is 16-byte aligned; otherwise
// element by element with guards.

#include <cuda_bf16.h>

#define LN_CACHE 4
#define LN_MAX_THREADS 256

// (no __restrict__: also used to read back h, which this kernel writes)
__device__ __forceinline__ void ln_load8(const __nv_bfloat16* p, int col0, int cols,
                                         bool vec, float (&v)[8])
{
    if (vec) {
        const uint4 w = *reinterpret_cast<const uint4*>(p + col0);
        const unsigned int u[4] = { w.x, w.y, w.z, w.w };
#pragma unroll
        for (int j = 0; j < 4; j++) {
            v[2 * j] = __uint_as_float(u[j] << 16);
            v[2 * j + 1] = __uint_as_float(u[j] & 0xffff0000u);
        }
    } else {
#pragma unroll
        for (int j = 0; j < 8; j++) v[j] = col0 + j < cols ? __bfloat162float(p[col0 + j]) : 0.0f;
    }
}

__device__ __forceinline__ void ln_store8(__nv_bfloat16* __restrict__ p, int col0, int cols, bool vec,
                                          const float (&v)[8])
{
    if (vec) {
        uint4 w;
        unsigned int* u = reinterpret_cast<unsigned int*>(&w);
#pragma unroll
        for (int j = 0; j < 4; j++) {
            __nv_bfloat162 b = __floats2bfloat162_rn(v[2 * j], v[2 * j + 1]);
            u[j] = *reinterpret_cast<unsigned int*>(&b);
        }
        *reinterpret_cast<uint4*>(p + col0) = w;
    } else {
#pragma unroll
        for (int j = 0; j < 8; j++)
            if (col0 + j < cols) p[col0 + j] = __float2bfloat16_rn(v[j]);
    }
}

// h chunk: x + r rounded to bfloat16, as floats; invalid (past cols) elements are 0
__device__ __forceinline__ void ln_residual(const __nv_bfloat16* __restrict__ xr,
                                            const __nv_bfloat16* __restrict__ rr, __nv_bfloat16* __restrict__ hr,
                                            int col0, int cols, bool vec, float (&v)[8])
{
    float a[8], b[8];
    ln_load8(xr, col0, cols, vec, a);
    ln_load8(rr, col0, cols, vec, b);
#pragma unroll
    for (int j = 0; j < 8; j++) v[j] = __bfloat162float(__float2bfloat16_rn(a[j] + b[j]));
    ln_store8(hr, col0, cols, vec, v);
}

__device__ __forceinline__ void ln_output(const float (&hv)[8], const __nv_bfloat16* __restrict__ gamma,
                                          const __nv_bfloat16* __restrict__ beta, __nv_bfloat16* __restrict__ yr,
                                          int col0, int cols, bool vec, float mean, float rstd)
{
    float gm[8], bt[8], v[8];
    ln_load8(gamma, col0, cols, vec, gm);
    ln_load8(beta, col0, cols, vec, bt);
#pragma unroll
    for (int j = 0; j < 8; j++) v[j] = (hv[j] - mean) * rstd * gm[j] + bt[j];
    ln_store8(yr, col0, cols, vec, v);
}

extern "C" __global__ void __launch_bounds__(LN_MAX_THREADS)
layernorm_residual_bf16(const __nv_bfloat16* __restrict__ x, const __nv_bfloat16* __restrict__ r,
                        const __nv_bfloat16* __restrict__ gamma, const __nv_bfloat16* __restrict__ beta,
                        __nv_bfloat16* __restrict__ h, __nv_bfloat16* __restrict__ y,
                        float eps, int rows, int cols)
{
    __shared__ float red[32];
    const int row = blockIdx.x;
    if (row >= rows) return;
    const size_t base = (size_t)row * (size_t)cols;
    const bool vec = (cols & 7) == 0 &&
                     ((((unsigned long long)x) | ((unsigned long long)r) | ((unsigned long long)gamma) |
                       ((unsigned long long)beta) | ((unsigned long long)h) | ((unsigned long long)y)) &
                      15ull) == 0;
    const __nv_bfloat16* xr = x + base;
    const __nv_bfloat16* rr = r + base;
    __nv_bfloat16* hr = h + base;
    __nv_bfloat16* yr = y + base;
    const int nchunks = (cols + 7) / 8;
    const int step = blockDim.x;

    // pass 1: h = x + r, row sum
    float cache[LN_CACHE][8];
    float sum = 0.0f;
#pragma unroll
    for (int i = 0; i < LN_CACHE; i++) {
        const int c = threadIdx.x + i * step;
        if (c < nchunks) {
            ln_residual(xr, rr, hr, c * 8, cols, vec, cache[i]);
#pragma unroll
            for (int j = 0; j < 8; j++) sum += cache[i][j];
        }
    }
    for (int c = threadIdx.x + LN_CACHE * step; c < nchunks; c += step) {
        float v[8];
        ln_residual(xr, rr, hr, c * 8, cols, vec, v);
#pragma unroll
        for (int j = 0; j < 8; j++) sum += v[j];
    }
    const float mean = block_reduce<false>(sum, red) / (float)cols;

    // pass 2: sum of squared deviations
    float sq = 0.0f;
#pragma unroll
    for (int i = 0; i < LN_CACHE; i++) {
        const int c = threadIdx.x + i * step;
        if (c < nchunks) {
#pragma unroll
            for (int j = 0; j < 8; j++) {
                const float d = cache[i][j] - mean;
                if (c * 8 + j < cols) sq += d * d;
            }
        }
    }
    for (int c = threadIdx.x + LN_CACHE * step; c < nchunks; c += step) {
        float v[8];
        ln_load8(hr, c * 8, cols, vec, v);  // written by this thread in pass 1
#pragma unroll
        for (int j = 0; j < 8; j++) {
            const float d = v[j] - mean;
            if (c * 8 + j < cols) sq += d * d;
        }
    }
    const float rstd = rsqrtf(block_reduce<false>(sq, red) / (float)cols + eps);

    // pass 3: y = (h - mean) * rstd * gamma + beta
#pragma unroll
    for (int i = 0; i < LN_CACHE; i++) {
        const int c = threadIdx.x + i * step;
        if (c < nchunks) ln_output(cache[i], gamma, beta, yr, c * 8, cols, vec, mean, rstd);
    }
    for (int c = threadIdx.x + LN_CACHE * step; c < nchunks; c += step) {
        float v[8];
        ln_load8(hr, c * 8, cols, vec, v);
        ln_output(v, gamma, beta, yr, c * 8, cols, vec, mean, rstd);
    }
}
