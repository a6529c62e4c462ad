// Golden kernel for softmax_f32: y[r, :] = exp(x[r, :] - max_r) / sum(exp(x[r, :] - max_r)) over
// the last dimension of a row-major [rows, cols] float32 tensor.
//
// Layout of the work. A group of G threads (G a power of two, G <= blockDim.x) owns one row;
// a block of blockDim.x threads holds blockDim.x / G rows at a time. G is the smallest power of
// two with G * 32 >= cols, so each thread caches at most 32 elements (8 four-element vectors) of
// its row in registers: the row is read from global memory once and written once (max, sum and
// the output pass all use the registers). The golden launch sizes the block to max(256, G) with
// G <= 1024, so rows of up to 32768 floats stay on chip. Longer rows (only in correctness cases)
// take a streaming path: one pass computes the running max and rescaled sum together (online
// softmax), a second pass re-reads the row and writes it.
//
// Vector j of a row is elements 4j..4j+3. When cols % 4 == 0 and both pointers are 16-byte
// aligned (then every row is), a vector is one 16-byte load/store; otherwise the same code moves
// its elements one at a time with a bound check per element.
// Reductions: per-thread sequential in a fixed order, then an xor-butterfly within the warp
// (every lane ends with bitwise the same value because + and max are commutative), then, for
// groups wider than a warp, a fixed-order pass over the per-warp values in shared memory.
// Deterministic; no atomics. Any grid size is correct (block-uniform loop over row blocks).
// Requires blockDim.x to be a power of two between 32 and 1024 (the golden launch guarantees it).

#define SM_NV 8                     // four-element vectors cached per thread (32 floats)

__device__ __forceinline__ float max4(float4 v) { return fmaxf(fmaxf(v.x, v.y), fmaxf(v.z, v.w)); }

// exp(v - m) per element; -inf padding gives 0. Adds the four results to s in a fixed order.
__device__ __forceinline__ float4 exp_sub(float4 v, float m, float& s)
{
    v.x = expf(v.x - m);
    v.y = expf(v.y - m);
    v.z = expf(v.z - m);
    v.w = expf(v.w - m);
    s += v.x;
    s += v.y;
    s += v.z;
    s += v.w;
    return v;
}

// One row (or none, when !active) cached in registers: nv = cdiv(cols, 4) <= G * SM_NV.
__device__ __forceinline__ void row_cached(const float* __restrict__ xr, float* __restrict__ yr, int cols,
                                           bool vec, int G, int lane, bool active, float* red)
{
    const int nv = (cols + 3) >> 2;
    float4 v[SM_NV];
    float m = neg_inf();
    ROW_HELD(SM_NV,
             v[k] = load_vec(xr, j, cols, vec, neg_inf());
             m = fmaxf(m, max4(v[k]));)
    m = group_reduce<true>(m, G, red);
    float s = 0.0f;
    ROW_HELD(SM_NV,
             v[k] = exp_sub(v[k], m, s);)
    s = group_reduce<false>(s, G, red);
    const float inv = 1.0f / s;
    ROW_HELD(SM_NV,
             v[k].x *= inv;
             v[k].y *= inv;
             v[k].z *= inv;
             v[k].w *= inv;
             store_vec(yr, j, cols, vec, v[k]);)
}

// A row too long for registers: G == blockDim.x, one row per block. Pass 1 keeps a running max m
// and a sum s of exp(x - m), rescaling s when m grows; pass 2 re-reads the row and writes it.
__device__ __forceinline__ void row_stream(const float* __restrict__ xr, float* __restrict__ yr, int cols,
                                          bool vec, int G, int lane, float* red)
{
    const int nv = (cols + 3) >> 2;
    float m = neg_inf(), s = 0.0f;
    for (int j = lane; j < nv; j += G) {
        const float4 v = load_vec(xr, j, cols, vec, neg_inf());
        const float cm = max4(v);
        if (cm > m) {
            s *= expf(m - cm);      // first time: 0 * 0
            m = cm;
        }
        exp_sub(v, m, s);
    }
    const float M = group_reduce<true>(m, G, red);
    s = (m == M) ? s : s * expf(m - M);
    const float S = group_reduce<false>(s, G, red);
    const float inv = 1.0f / S;
    for (int j = lane; j < nv; j += G) {
        float t = 0.0f;
        float4 v = exp_sub(load_vec(xr, j, cols, vec, neg_inf()), M, t);
        v.x *= inv;
        v.y *= inv;
        v.z *= inv;
        v.w *= inv;
        store_vec(yr, j, cols, vec, v);
    }
}

extern "C" __global__ void __launch_bounds__(1024)
softmax_f32(const float* __restrict__ x, float* __restrict__ y, int rows, int cols)
{
    __shared__ float red[32];
    const bool vec = (cols & 3) == 0 &&
                     ((reinterpret_cast<unsigned long long>(x) | reinterpret_cast<unsigned long long>(y)) & 15ull) == 0;

    const RowGroups g(cols, 4 * SM_NV);
    for (unsigned r0 = g.first(); r0 < (unsigned)rows; r0 += g.step()) {
        const bool active = g.active(r0, rows);
        const long long off = g.offset(r0, rows, cols);
        g.fits ? row_cached(x + off, y + off, cols, vec, g.G, g.lane, active, red)
               : row_stream(x + off, y + off, cols, vec, g.G, g.lane, red);   // R == 1 here, always active
    }
}
