// Golden kernel for rms_norm_bf16: y[r, j] = x[r, j] / sqrt(mean_k x[r, k]^2 + eps) * w[j] over
// the last dimension of a row-major [rows, cols] bfloat16 tensor, with a bfloat16 weight w[cols].
// Inputs are widened to float32; the sum of squares (float32 accumulation), the scale and the
// products are computed in float32 and each output is rounded once to bfloat16.
//
// Layout of the work. A group of G threads (G a power of two, G <= blockDim.x) owns one row;
// a block of blockDim.x threads holds blockDim.x / G rows at a time. G is the smallest power of
// two with G * 32 >= cols, so each thread caches at most 32 elements (4 packed 16-byte vectors)
// of its row in registers: the row is read from global memory once and written once. The golden
// launch sizes the block to max(256, G) with G <= 1024, so rows of up to 32768 elements stay on
// chip. Longer rows (only in correctness cases) take a streaming path, element by element.
//
// Vector j of a row is elements 8j..8j+7. When cols % 8 == 0 and all row pointers are 16-byte
// aligned (then every row is), a vector is one 16-byte load/store; otherwise the same code moves
// its elements one at a time with a bound check per element.
// Reductions: per-thread sequential in a fixed order, an xor-butterfly within the warp (bitwise
// the same value in every lane, since + and max are commutative), then for groups wider than a
// warp a fixed-order pass over the per-warp values in shared memory. Deterministic; no atomics.
// Any grid size is correct (block-uniform loop over row blocks). Requires blockDim.x to be a
// power of two between 32 and 1024.

#include <cuda_bf16.h>

#define RW_NV 4                     // 16-byte vectors (8 values) cached per thread: 32 elements

// One row (or none, when !active) cached in registers: nv = cdiv(cols, 8) <= G * RW_NV.
__device__ __forceinline__ void row_cached(const __nv_bfloat16* __restrict__ xr, const __nv_bfloat16* __restrict__ w,
                                           __nv_bfloat16* __restrict__ yr, int cols, float eps, bool vec, int G,
                                           int lane, bool active, float* red)
{
    const int nv = (cols + 7) >> 3;
    uint4 v[RW_NV];
    float ss = 0.0f;
    ROW_HELD(RW_NV,
             v[k] = load_vec(xr, j, cols, vec, 0u);        // padding: 0
             float f[8];
             widen8(v[k], f);
             _Pragma("unroll")
             for (int i = 0; i < 8; ++i) ss += f[i] * f[i];)
    ss = group_reduce<false>(ss, G, red);
    const float r = 1.0f / sqrtf(ss / (float)cols + eps);
    ROW_HELD(RW_NV,
             float f[8], g[8];
             widen8(v[k], f);
             widen8(load_vec(w, j, cols, vec, 0u), g);
             _Pragma("unroll")
             for (int i = 0; i < 8; ++i) f[i] = f[i] * r * g[i];
             store_vec(yr, j, cols, vec, narrow8(f));)
}

// A row too long for registers (only in correctness cases): G == blockDim.x, one row per block,
// two passes over the row, element by element.
__device__ __forceinline__ void row_stream(const __nv_bfloat16* __restrict__ xr, const __nv_bfloat16* __restrict__ w,
                                          __nv_bfloat16* __restrict__ yr, int cols, float eps, int G, int lane,
                                          float* red)
{
    float ss = 0.0f;
    for (int j = lane; j < cols; j += G) {
        const float a = __bfloat162float(xr[j]);
        ss += a * a;
    }
    ss = group_reduce<false>(ss, G, red);
    const float r = 1.0f / sqrtf(ss / (float)cols + eps);
    for (int j = lane; j < cols; j += G)
        yr[j] = __float2bfloat16_rn(__bfloat162float(xr[j]) * r * __bfloat162float(w[j]));
}

extern "C" __global__ void __launch_bounds__(1024)
rms_norm_bf16(const __nv_bfloat16* __restrict__ x, const __nv_bfloat16* __restrict__ w,
              __nv_bfloat16* __restrict__ y, int rows, int cols, float eps)
{
    __shared__ float red[32];
    const bool vec = (cols & 7) == 0 &&
                     ((reinterpret_cast<unsigned long long>(x) | reinterpret_cast<unsigned long long>(y) |
                       reinterpret_cast<unsigned long long>(w)) & 15ull) == 0;

    const RowGroups g(cols, 8 * RW_NV);
    for (unsigned r0 = g.first(); r0 < (unsigned)rows; r0 += g.step()) {
        const bool active = g.active(r0, rows);
        const long long off = g.offset(r0, rows, cols);
        g.fits ? row_cached(x + off, w, y + off, cols, eps, vec, g.G, g.lane, active, red)
               : row_stream(x + off, w, y + off, cols, eps, g.G, g.lane, red);   // R == 1 here, always active
    }
}
