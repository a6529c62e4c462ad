// Golden kernels for argmax_dim_f32: y[r] = the lowest j with x[r, j] == max_k x[r, k], over a
// row-major [rows, cols] float32 tensor; y is int32.
//
// Two launches (see golden_launch in problem.json):
//  1. argmax_dim_partial: each row is cut into `split` chunks of clen = align(cdiv(cols, split), 8)
//     elements (the last chunk is shorter; a chunk past the end of the row is empty and yields
//     (-inf, INT_MAX)). A group of G threads (G a power of two, G <= blockDim.x) reduces one
//     chunk: G is the smallest power of two with G * 32 >= clen, capped at blockDim.x, and the
//     group walks its chunk in rounds of 32 elements per thread (8 independent 16-byte loads in
//     flight per thread, consecutive threads on consecutive vectors). With split == 1 the
//     chunk result is written to y directly, otherwise (value, index) goes to
//     pval/pidx[row * split + chunk].
//  2. argmax_dim_finish: when split > 1, one warp per row combines its partials.
// Ties: each thread visits its elements in increasing index order and replaces its candidate
// only on a strictly larger value; candidates are combined by "larger value wins, equal values:
// lower index wins", a commutative rule, so the result is the first maximum whatever the order.
// Vector loads need cols % 4 == 0 and a 16-byte aligned x; otherwise the same walk runs element
// by element. Any grid size is correct (block-uniform loops). Requires blockDim.x to be a power
// of two between 32 and 1024. Inputs are finite (NaN handling is not specified).

#define AM_NV 8                     // four-element vectors per thread per round
#define AM_EPT (4 * AM_NV)          // elements per thread per round
#define AM_SR 8                     // elements per thread per round, scalar path
#define AM_NOIDX 0x7fffffff

// (v, i) := the better of (v, i) and (ov, oi): larger value, then lower index.
__device__ __forceinline__ void am_merge(float& v, int& i, float ov, int oi)
{
    if (ov > v || (ov == v && oi < i)) {
        v = ov;
        i = oi;
    }
}

struct AmMerge {
    __device__ __forceinline__ void operator()(float& v, int& i, float ov, int oi) const { am_merge(v, i, ov, oi); }
};

// Visit the four elements of a vector whose first element has row index e, in index order.
__device__ __forceinline__ void am_visit4(float& bv, int& bi, float4 a, int e)
{
    if (a.x > bv) { bv = a.x; bi = e; }
    if (a.y > bv) { bv = a.y; bi = e + 1; }
    if (a.z > bv) { bv = a.z; bi = e + 2; }
    if (a.w > bv) { bv = a.w; bi = e + 3; }
}

extern "C" __global__ void __launch_bounds__(256, 4)
argmax_dim_partial(const float* __restrict__ x, int* __restrict__ y, float* __restrict__ pval,
                   int* __restrict__ pidx, int rows, int cols, int split)
{
    __shared__ float redv[32];
    __shared__ int redi[32];
    const Chunks ch(rows, cols, split, AM_EPT);
    const int G = ch.g.G, lane = ch.g.lane;
    const bool vec = (cols & 3) == 0 && (reinterpret_cast<unsigned long long>(x) & 15ull) == 0;

    for (long long s0 = ch.first(); s0 < ch.nseg; s0 += ch.step()) {
        const Chunk c = ch.at(s0);
        const int st = (int)c.start;                        // < cols when c.len > 0
        const float* __restrict__ xs = x + c.row * cols + c.start;
        float bv = neg_inf();
        int bi = AM_NOIDX;
        if (vec) {
            const float4* __restrict__ x4 = reinterpret_cast<const float4*>(xs);
            const int nv = c.len >> 2;                   // c.len % 4 == 0 here
            int base = 0;
            for (; base + G * AM_NV <= nv; base += G * AM_NV) {   // full rounds: no bound checks
                CHUNK_ROUND(AM_NV, float4 v[AM_NV], v[k] = __ldg(x4 + base + k * G + lane),
                            am_visit4(bv, bi, v[k], st + 4 * (base + k * G + lane)));
            }
            CHUNK_TAIL(AM_NV, am_visit4(bv, bi, __ldg(x4 + j), st + 4 * j));     // last, partial round
        } else {
            for (int base = 0; base < c.len; base += G * AM_SR) {
                CHUNK_ROUND_J(AM_SR, float v[AM_SR], v[k] = j < c.len ? __ldg(xs + j) : neg_inf(),
                              if (v[k] > bv) { bv = v[k]; bi = st + base + k * G + lane; });
            }
        }
        group_reduce2(bv, bi, G, redv, redi, AmMerge());
        if (c.active && lane == 0) {
            if (split == 1) {
                y[c.row] = bi;
            } else {
                pval[c.seg] = bv;
                pidx[c.seg] = bi;
            }
        }
    }
}

extern "C" __global__ void __launch_bounds__(256)
argmax_dim_finish(const float* __restrict__ pval, const int* __restrict__ pidx, int* __restrict__ y,
                  int rows, int split)
{
    if (split <= 1) return;                           // partial kernel already wrote y
    const RowWarps w;
    const int lane = w.lane;
    for (long long row = w.first(); row < rows; row += w.step()) {
        float bv = neg_inf();
        int bi = AM_NOIDX;
        for (int j = lane; j < split; j += 32) am_merge(bv, bi, pval[row * split + j], pidx[row * split + j]);
        warp_reduce2(bv, bi, AmMerge());
        if (lane == 0) y[row] = bi;
    }
}
