// Golden kernel for layer_norm_f32: layer normalisation over the last dimension of a row-major
// [rows, cols] float32 tensor, with a per-column scale gamma and shift beta:
//     mean_r = (1/cols) sum_j x[r, j]
//     var_r  = (1/cols) sum_j (x[r, j] - mean_r)^2          (biased variance)
//     y[r, j] = (x[r, j] - mean_r) / sqrt(var_r + eps) * gamma[j] + beta[j]
//
// Layout of the work (as in softmax_f32). A group of G threads (G a power of two,
// G <= blockDim.x) owns one row; a block of blockDim.x threads holds blockDim.x / G rows at a
// time. G is the smallest power of two with G * 32 >= cols, so each thread caches at most 32
// elements (8 four-element vectors) of its row in registers: the row is read once and written
// once, and the variance is the exact two-pass form (mean first, then squared deviations from
// the registers). The golden launch sizes the block to max(256, G) with G <= 1024, so rows of up
// to 32768 floats stay on chip. Longer rows (only in correctness cases) take a streaming path
// that reads the row three times (sum, squared deviations, output), element by element.
//
// Vector j of a row is elements 4j..4j+3. When cols % 4 == 0 and x, y, gamma and beta are all
// 16-byte aligned (then every row is), a vector is one 16-byte load/store; otherwise the same
// code moves its elements one at a time with a bound check per element.
// Reductions: per-thread sequential in a fixed order, an xor-butterfly within the warp (bitwise
// the same value in every lane), then for groups wider than a warp a fixed-order pass over the
// per-warp values in shared memory. Deterministic; no atomics. Any grid size is correct.
// Requires blockDim.x to be a power of two between 32 and 1024.

#define LN_NV 8                     // four-element vectors cached per thread (32 floats)

__device__ __forceinline__ float sum4(float4 v) { return (v.x + v.y) + (v.z + v.w); }

__device__ __forceinline__ float sqdev4(float4 v, float mean, int e, int cols, bool vec)
{
    // Squared deviations of the valid elements of the vector starting at element e.
    const float dx = v.x - mean, dy = v.y - mean, dz = v.z - mean, dw = v.w - mean;
    if (vec) return (dx * dx + dy * dy) + (dz * dz + dw * dw);
    float s = dx * dx;
    if (e + 1 < cols) s += dy * dy;
    if (e + 2 < cols) s += dz * dz;
    if (e + 3 < cols) s += dw * dw;
    return s;
}

__device__ __forceinline__ float4 normalize4(float4 v, float mean, float rstd, float4 g, float4 b)
{
    float4 o;
    o.x = (v.x - mean) * rstd * g.x + b.x;
    o.y = (v.y - mean) * rstd * g.y + b.y;
    o.z = (v.z - mean) * rstd * g.z + b.z;
    o.w = (v.w - mean) * rstd * g.w + b.w;
    return o;
}

// One row (or none, when !active) cached in registers: nv = cdiv(cols, 4) <= G * LN_NV.
__device__ __forceinline__ void row_cached(const float* __restrict__ xr, float* __restrict__ yr,
                                           const float* __restrict__ gamma, const float* __restrict__ beta,
                                           int cols, float eps, bool vec, int G, int lane, bool active, float* red)
{
    const int nv = (cols + 3) >> 2;
    float4 v[LN_NV];
    float s = 0.0f;
    ROW_HELD(LN_NV,
             v[k] = load_vec(xr, j, cols, vec, 0.0f);     // padding reads as 0
             s += sum4(v[k]);)
    const float mean = group_sum(s, G, red) / (float)cols;
    float q = 0.0f;
    ROW_HELD(LN_NV,
             q += sqdev4(v[k], mean, 4 * j, cols, vec);)
    const float var = group_sum(q, G, red) / (float)cols;
    const float rstd = 1.0f / sqrtf(var + eps);
    ROW_HELD(LN_NV,
             store_vec(yr, j, cols, vec,
                       normalize4(v[k], mean, rstd, load_vec(gamma, j, cols, vec, 0.0f),
                                  load_vec(beta, j, cols, vec, 0.0f)));)
}

// A row too long for registers (only in correctness cases): G == blockDim.x, one row per block,
// three passes over the row (sum, squared deviations, output), element by element.
__device__ __forceinline__ void row_stream(const float* __restrict__ xr, float* __restrict__ yr,
                                          const float* __restrict__ gamma, const float* __restrict__ beta,
                                          int cols, float eps, int G, int lane, float* red)
{
    float s = 0.0f;
    for (int j = lane; j < cols; j += G) s += __ldg(xr + j);
    const float mean = group_sum(s, G, red) / (float)cols;
    float q = 0.0f;
    for (int j = lane; j < cols; j += G) {
        const float d = __ldg(xr + j) - mean;
        q += d * d;
    }
    const float var = group_sum(q, G, red) / (float)cols;
    const float rstd = 1.0f / sqrtf(var + eps);
    for (int j = lane; j < cols; j += G) yr[j] = (__ldg(xr + j) - mean) * rstd * __ldg(gamma + j) + __ldg(beta + j);
}

extern "C" __global__ void __launch_bounds__(1024)
layer_norm_f32(const float* __restrict__ x, const float* __restrict__ gamma, const float* __restrict__ beta,
               float* __restrict__ y, int rows, int cols, float eps)
{
    __shared__ float red[32];
    const bool vec = (cols & 3) == 0 &&
                     ((reinterpret_cast<unsigned long long>(x) | reinterpret_cast<unsigned long long>(y) |
                       reinterpret_cast<unsigned long long>(gamma) | reinterpret_cast<unsigned long long>(beta)) & 15ull) == 0;

    const RowGroups g(cols, 4 * LN_NV);
    for (unsigned r0 = g.first(); r0 < (unsigned)rows; r0 += g.step()) {
        const bool active = g.active(r0, rows);
        const long long off = g.offset(r0, rows, cols);
        g.fits ? row_cached(x + off, y + off, gamma, beta, cols, eps, vec, g.G, g.lane, active, red)
               : row_stream(x + off, y + off, gamma, beta, cols, eps, g.G, g.lane, red);   // R == 1 here
    }
}
