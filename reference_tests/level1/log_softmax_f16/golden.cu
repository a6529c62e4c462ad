// Golden kernel for log_softmax_f16: y[r, j] = x[r, j] - m_r - log(sum_k exp(x[r, k] - m_r)),
// m_r = max_k x[r, k], over the last dimension of a row-major [rows, cols] float16 tensor.
// Inputs are widened to float32, max, sum (float32 accumulation) and outputs are computed in
// float32 and rounded once to float16.
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
// Any grid size is correct (block-uniform loop over row blocks), and each block loads its next row
// block while it finishes the current one, so a block that waits at a reduction still has loads
// in flight. The golden launch gives rows of 1024-thread groups (cols > 16384: one block per SM
// fits) at most 2 * sm_count persistent blocks (264 on an H100), and shorter rows one block per
// row block: measured on an H100, that takes the long-row perf case from 54% to 92% of the copy
// bandwidth, while capping the grid for shorter rows too made them slower (89% instead of 98%).
// Requires blockDim.x to be a power of two between 32 and 1024.

#include <cuda_fp16.h>

#define RW_NV 4                     // 16-byte vectors (8 values) cached per thread: 32 elements

// Loads one row (nothing when !active) into registers: nv = cdiv(cols, 8) <= G * RW_NV.
__device__ __forceinline__ void row_load(uint4 v[RW_NV], const __half* __restrict__ xr, int cols, bool vec, int G,
                                         int lane, bool active)
{
    const int nv = (cols + 7) >> 3;
    ROW_HELD(RW_NV,
             v[k] = load_vec(xr, j, cols, vec, 0xFC00u);)     // padding: -inf
}

// For each vector j this thread holds of its row (v[k], k < RW_NV), widened to f[8]: the loop over
// i < 8 in BODY is unrolled.
#define LS_HELD(...) ROW_HELD(RW_NV, float f[8]; widen8(v[k], f); _Pragma("unroll") __VA_ARGS__)

// Finishes a row held in registers by row_load: max, sum, outputs.
__device__ __forceinline__ void row_finish(const uint4 v[RW_NV], __half* __restrict__ yr, int cols, bool vec, int G,
                                           int lane, bool active, float* red)
{
    const int nv = (cols + 7) >> 3;
    float m = neg_inf();
    LS_HELD(for (int i = 0; i < 8; ++i) m = fmaxf(m, f[i]);)
    m = group_reduce<true>(m, G, red);
    float s = 0.0f;
    LS_HELD(for (int i = 0; i < 8; ++i) s += expf(f[i] - m);)     // exp(-inf) = 0 for padding
    s = group_reduce<false>(s, G, red);
    const float ls = logf(s);
    LS_HELD(for (int i = 0; i < 8; ++i) f[i] = (f[i] - m) - ls;
            store_vec(yr, j, cols, vec, narrow8(f));)
}

// A row too long for registers (only in correctness cases): G == blockDim.x, one row per block.
// Pass 1 keeps a running max m and a sum s of exp(x - m), rescaling s when m grows; pass 2
// re-reads the row and writes it.
__device__ __forceinline__ void row_stream(const __half* __restrict__ xr, __half* __restrict__ yr, int cols,
                                          int G, int lane, float* red)
{
    float m = neg_inf(), s = 0.0f;
    for (int j = lane; j < cols; j += G) {
        const float a = __half2float(xr[j]);
        if (a > m) {
            s = (m == neg_inf()) ? 1.0f : s * expf(m - a) + 1.0f;
            m = a;
        } else {
            s += expf(a - m);
        }
    }
    const float M = group_reduce<true>(m, G, red);
    s = (m == M) ? s : s * expf(m - M);           // a thread with no element has s == 0
    const float ls = logf(group_reduce<false>(s, G, red));
    for (int j = lane; j < cols; j += G) yr[j] = __float2half_rn((__half2float(xr[j]) - M) - ls);
}

extern "C" __global__ void __launch_bounds__(1024)
log_softmax_f16(const __half* __restrict__ x, __half* __restrict__ y, int rows, int cols)
{
    __shared__ float red[32];
    const bool vec = (cols & 7) == 0 &&
                     ((reinterpret_cast<unsigned long long>(x) | reinterpret_cast<unsigned long long>(y)) & 15ull) == 0;
    const RowGroups g(cols, 8 * RW_NV);
    const int G = g.G, R = g.R, lane = g.lane, gi = g.gi;
    const bool fits = g.fits;

    // Row blocks blockIdx.x, blockIdx.x + gridDim.x, ... (unsigned: no overflow for rows < 2^31
    // and gridDim.x * R < 2^31). The loop condition is block-uniform.
    const unsigned stride = gridDim.x * (unsigned)R;
    unsigned r0 = blockIdx.x * (unsigned)R;
    if (!fits) {
        for (; r0 < (unsigned)rows; r0 += stride)           // R == 1 here, always active
            row_stream(x + (long long)r0 * cols, y + (long long)r0 * cols, cols, G, lane, red);
        return;
    }
    // Cached rows, software-pipelined: the next row block is loaded into registers before this
    // one is reduced and written, so its loads are in flight while this block computes.
    if (r0 >= (unsigned)rows) return;
    uint4 cur[RW_NV];
    row_load(cur, x + (long long)(r0 + gi < (unsigned)rows ? r0 + gi : 0) * cols, cols, vec, G, lane,
             r0 + gi < (unsigned)rows);
    for (;;) {
        const unsigned rn = r0 + stride;
        const bool more = rn < (unsigned)rows && rn > r0;
        uint4 nxt[RW_NV];
        if (more)
            row_load(nxt, x + (long long)(rn + gi < (unsigned)rows ? rn + gi : 0) * cols, cols, vec, G, lane,
                     rn + gi < (unsigned)rows);
        const bool active = r0 + gi < (unsigned)rows;
        row_finish(cur, y + (long long)(active ? r0 + gi : 0) * cols, cols, vec, G, lane, active, red);
        if (!more) break;
        r0 = rn;
#pragma unroll
        for (int k = 0; k < RW_NV; ++k) cur[k] = nxt[k];
    }
}
