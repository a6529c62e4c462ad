// row_reduce.cuh: the reduction scaffolding of the row-wise golden kernels (docs/problem-format.md,
// golden_prelude). Used by softmax_f32, layer_norm_f32, log_softmax_f16, rms_norm_bf16 (one row per
// group of threads), by sum_dim_f32, max_dim_bf16, argmax_dim_f32, cross_entropy_f32,
// mse_loss_f32 (rows cut into `split` chunks, then a finishing kernel over the partials) and by
// layernorm_residual_bf16, softmax_scale_mask_f32 (one row per block: block_reduce).
//
// Groups. A group of G threads (G a power of two, G <= blockDim.x) owns one row or chunk; a block
// of blockDim.x threads holds blockDim.x / G of them at a time. Reductions over a group run per
// thread in a fixed order, then an xor butterfly within the warp (bitwise the same value in every
// lane, since the merges are commutative), then for groups wider than a warp a fixed-order pass
// over the per-warp values in shared memory. Deterministic; no atomics. For G > 32 every thread of
// the block must call a group reduction (it uses __syncthreads).

__device__ __forceinline__ float neg_inf() { return __int_as_float(0xff800000); }

__device__ __forceinline__ int pow2_at_least(int v)
{
    int p = 1;
    while (p < v) p <<= 1;
    return p;
}

// Max or sum of v over the G threads of this thread's group; every thread of the group gets the
// same bits.
template <bool IS_MAX>
__device__ __forceinline__ float group_reduce(float v, int G, float* red)
{
    const int w = G < 32 ? G : 32;
    for (int off = w >> 1; off > 0; off >>= 1) {
        const float o = __shfl_xor_sync(0xffffffffu, v, off);
        v = IS_MAX ? fmaxf(v, o) : v + o;
    }
    if (G > 32) {
        const int warp = threadIdx.x >> 5;
        const int wpg = G >> 5;
        const int g0 = warp & ~(wpg - 1);
        __syncthreads();                          // previous readers of red are done
        if ((threadIdx.x & 31) == 0) red[warp] = v;
        __syncthreads();
        v = red[g0];
        for (int i = 1; i < wpg; ++i) v = IS_MAX ? fmaxf(v, red[g0 + i]) : v + red[g0 + i];
    }
    return v;
}

__device__ __forceinline__ float group_sum(float v, int G, float* red) { return group_reduce<false>(v, G, red); }
__device__ __forceinline__ float group_max(float v, int G, float* red) { return group_reduce<true>(v, G, red); }

// A state of two values (a, b) merged over the group by merge(a, b, a2, b2): (value, index) for
// argmax, (max, sum of exp) for log-sum-exp. Every thread of the group gets the same pair.
template <typename A, typename B, typename Merge>
__device__ __forceinline__ void group_reduce2(A& a, B& b, int G, A* reda, B* redb, Merge merge)
{
    const int w = G < 32 ? G : 32;
    for (int off = w >> 1; off > 0; off >>= 1) {
        const A a2 = __shfl_xor_sync(0xffffffffu, a, off);
        const B b2 = __shfl_xor_sync(0xffffffffu, b, off);
        merge(a, b, a2, b2);
    }
    if (G > 32) {
        const int warp = threadIdx.x >> 5;
        const int wpg = G >> 5;
        const int g0 = warp & ~(wpg - 1);
        __syncthreads();
        if ((threadIdx.x & 31) == 0) {
            reda[warp] = a;
            redb[warp] = b;
        }
        __syncthreads();
        a = reda[g0];
        b = redb[g0];
        for (int i = 1; i < wpg; ++i) merge(a, b, reda[g0 + i], redb[g0 + i]);
    }
}

// The same over one full warp (the finishing kernels: one warp per row).
template <typename A, typename B, typename Merge>
__device__ __forceinline__ void warp_reduce2(A& a, B& b, Merge merge)
{
    for (int off = 16; off > 0; off >>= 1) {
        const A a2 = __shfl_xor_sync(0xffffffffu, a, off);
        const B b2 = __shfl_xor_sync(0xffffffffu, b, off);
        merge(a, b, a2, b2);
    }
}

// The groups of a block: G threads per row (or chunk) of len elements, so that each thread holds
// at most `per` of them (fits: len <= G * per; G is capped at blockDim.x), R rows per block, this
// thread's lane in its group and its group's index in the block.
struct RowGroups {
    int G, R, lane, gi;
    bool fits;
    __device__ __forceinline__ RowGroups(int len, int per)
    {
        const int bd = blockDim.x;
        G = pow2_at_least((len + per - 1) / per);
        if (G > bd) G = bd;
        fits = len <= G * per;
        R = bd / G;
        lane = threadIdx.x & (G - 1);
        gi = threadIdx.x / G;
    }
    // Row blocks blockIdx.x, blockIdx.x + gridDim.x, ... (unsigned: no overflow for rows < 2^31
    // and gridDim.x * R < 2^31): for (unsigned r0 = g.first(); r0 < (unsigned)rows; r0 += g.step())
    __device__ __forceinline__ unsigned first() const { return blockIdx.x * (unsigned)R; }
    __device__ __forceinline__ unsigned step() const { return gridDim.x * (unsigned)R; }
    // Whether this group has a row in row block r0, and that row's offset (row 0's when not).
    __device__ __forceinline__ bool active(unsigned r0, int rows) const { return r0 + gi < (unsigned)rows; }
    __device__ __forceinline__ long long offset(unsigned r0, int rows, int cols) const
    {
        return (long long)(active(r0, rows) ? (int)(r0 + gi) : 0) * cols;
    }
};

// For each vector j = k * G + lane (k < NV) this thread holds of its row (active && j < nv): the
// statements given (the loop over k is unrolled; G, lane, active and nv must be in scope).
#define ROW_HELD(NV, ...)                                                                         \
    _Pragma("unroll") for (int k = 0; k < (NV); ++k)                                            \
    {                                                                                             \
        const int j = k * G + lane;                                                               \
        if (active && j < nv) {                                                                   \
            __VA_ARGS__                                                                           \
        }                                                                                         \
    }

// ---- Rows cut into chunks: a partial kernel reduces chunks, a finishing kernel the partials ----
//
// Each row is cut into `split` chunks of clen = align(cdiv(cols, split), 8) elements (the last
// chunk is shorter; a chunk past the end of the row is empty). Chunks start at multiples of 8
// elements, so with an aligned row every chunk is aligned for 16-byte loads.

__device__ __forceinline__ int chunk_len(int cols, int split)
{
    const long long c = ((long long)cols + split - 1) / split;
    return (int)((c + 7) & ~7ll);
}

// One group's chunk: segment seg = row * split + chunk, its first element start within the row
// and its length (0 when the group has no chunk, !active).
struct Chunk {
    long long seg, row, start;
    int len;
    bool active;
};

// The chunks of a launch and this thread's group: use as
//     const Chunks ch(rows, cols, split, elements per thread);
//     for (long long s0 = ch.first(); s0 < ch.nseg; s0 += ch.step()) {
//         const Chunk c = ch.at(s0);
// The loop is block-uniform (every thread of the block runs the same number of iterations, so
// its body may use group reductions); any grid size is correct.
struct Chunks {
    int cols, split, clen;
    RowGroups g;
    long long nseg;
    __device__ __forceinline__ Chunks(int rows, int cols_, int split_, int per)
        : cols(cols_), split(split_), clen(chunk_len(cols_, split_)), g(clen, per), nseg((long long)rows * split_)
    {
    }
    __device__ __forceinline__ long long first() const { return (long long)blockIdx.x * g.R; }
    __device__ __forceinline__ long long step() const { return (long long)gridDim.x * g.R; }
    __device__ __forceinline__ Chunk at(long long s0) const
    {
        Chunk c;
        c.seg = s0 + g.gi;
        c.active = c.seg < nseg;
        c.row = c.active ? c.seg / split : 0;
        c.start = c.active ? (c.seg - c.row * split) * (long long)clen : 0;
        const long long end = c.start + clen < cols ? c.start + clen : cols;
        c.len = c.active && end > c.start ? (int)(end - c.start) : 0;
        return c;
    }
};

// The walks over a chunk, in rounds (in scope: base, the round's first index, G and lane). One round
// of N elements or vectors per thread, all loads issued before any is used: DECL declares the
// round's registers, then LOAD runs for k < N, then VISIT for k < N (both loops unrolled; LOAD and
// VISIT are expressions or statements). In CHUNK_ROUND_J, LOAD sees j = base + k * G + lane (the
// full rounds spell the index out in their loads: the same pointer arithmetic as before).
#define CHUNK_ROUND_(N, DECL, JDECL, LOAD, VISIT)                                                 \
    DECL;                                                                                         \
    _Pragma("unroll") for (int k = 0; k < (N); ++k)                                             \
    {                                                                                             \
        JDECL                                                                                     \
        LOAD;                                                                                     \
    }                                                                                             \
    _Pragma("unroll") for (int k = 0; k < (N); ++k) { VISIT; }
#define CHUNK_ROUND(N, DECL, LOAD, VISIT) CHUNK_ROUND_(N, DECL, , LOAD, VISIT)
#define CHUNK_ROUND_J(N, DECL, LOAD, VISIT) CHUNK_ROUND_(N, DECL, const int j = base + k * G + lane;, LOAD, VISIT)

// The last, partial round of a vector walk: STMT for each j = base + k * G + lane < nv, k < N.
#define CHUNK_TAIL(N, STMT)                                                                       \
    _Pragma("unroll") for (int k = 0; k < (N); ++k)                                             \
    {                                                                                             \
        const int j = base + k * G + lane;                                                        \
        if (j < nv) STMT;                                                                         \
    }

// Sum (IS_MAX false) or maximum of the split partials p[0, split) of one row over one warp (the
// finishing kernels); every lane gets the same bits.
template <bool IS_MAX>
__device__ __forceinline__ float warp_reduce_partials(const float* __restrict__ p, int split, int lane)
{
    float a = IS_MAX ? neg_inf() : 0.0f;
    for (int j = lane; j < split; j += 32) a = IS_MAX ? fmaxf(a, p[j]) : a + p[j];
    for (int off = 16; off > 0; off >>= 1) {
        const float o = __shfl_xor_sync(0xffffffffu, a, off);
        a = IS_MAX ? fmaxf(a, o) : a + o;
    }
    return a;
}

// The finishing kernels: one warp per row, in a grid-stride loop over rows. Use as
//     const RowWarps w;
//     for (long long row = w.first(); row < rows; row += w.step()) { ... w.lane ... }
struct RowWarps {
    int lane, wpb;
    __device__ __forceinline__ RowWarps() : lane(threadIdx.x & 31), wpb(blockDim.x >> 5) {}
    __device__ __forceinline__ long long first() const { return (long long)blockIdx.x * wpb + (threadIdx.x >> 5); }
    __device__ __forceinline__ long long step() const { return (long long)gridDim.x * wpb; }
};

// Max or sum of v over the whole block (blockDim.x a multiple of 32); every thread gets the same
// bits: an xor butterfly in each warp, then the per-warp values, butterflied again by every warp.
template <bool IS_MAX>
__device__ __forceinline__ float block_reduce(float v, float* red)
{
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) {
        const float w = __shfl_xor_sync(0xffffffffu, v, o);
        v = IS_MAX ? fmaxf(v, w) : v + w;
    }
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) red[warp] = v;
    __syncthreads();
    float t = lane < (int)(blockDim.x >> 5) ? red[lane] : (IS_MAX ? __int_as_float(0xff800000) : 0.0f);
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) {
        const float w = __shfl_xor_sync(0xffffffffu, t, o);
        t = IS_MAX ? fmaxf(t, w) : t + w;
    }
    __syncthreads();  // red may be reused by the next call
    return t;
}
