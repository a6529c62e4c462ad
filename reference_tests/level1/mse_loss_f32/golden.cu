// Golden kernels for mse_loss_f32: out[r] = (1 / cols) * sum_j (a[r, j] - b[r, j])^2 over
// row-major [rows, cols] float32 tensors a and b: the per-row mean squared error.
//
// Two launches (see golden_launch in problem.json):
//  1. mse_partial: each row is cut into `split` chunks of clen = align(cdiv(cols, split), 8)
//     elements (the last chunk is shorter; a chunk past the end of the row is empty). A group
//     of G threads (G a power of two, G <= blockDim.x) sums one chunk's squared differences: G
//     is the smallest power of two with G * 32 >= clen, capped at blockDim.x, and the group
//     walks its chunk in rounds of 4 vectors of a and 4 of b per thread (8 independent 16-byte
//     loads in flight per thread, consecutive threads on consecutive vectors). Short rows get
//     many rows per block; long rows get `split` blocks each so that a few long rows fill the
//     GPU. With split == 1 the chunk sum divided by cols is written to out directly, otherwise
//     the sum goes to partial[row * split + chunk].
//  2. mse_finish: when split > 1, one warp per row adds its partials and divides by cols.
// Summation order is fixed (per thread in index order, each 4-vector pairwise; an xor butterfly
// in the warp, bitwise the same in every lane; the per-warp values in warp order; the partials
// in a fixed warp pattern). Deterministic; no atomics. Any grid size is correct. Vector loads
// need cols % 4 == 0 and 16-byte aligned a and b; otherwise the same walk runs element by
// element. Requires blockDim.x to be a power of two between 32 and 1024.

#define MS_NV 4                     // four-element vectors of each input per thread per round
#define MS_EPT 32                   // elements per thread that size a group (G * 32 >= clen)
#define MS_SR 8                     // elements per thread per round, scalar path

__device__ __forceinline__ float sqdiff4(float4 a, float4 b)
{
    const float dx = a.x - b.x, dy = a.y - b.y, dz = a.z - b.z, dw = a.w - b.w;
    return (dx * dx + dy * dy) + (dz * dz + dw * dw);
}

extern "C" __global__ void __launch_bounds__(256, 4)
mse_partial(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ out,
            float* __restrict__ partial, int rows, int cols, int split)
{
    __shared__ float red[32];
    const Chunks ch(rows, cols, split, MS_EPT);
    const int G = ch.g.G, lane = ch.g.lane;
    const bool vec = (cols & 3) == 0 &&
                     ((reinterpret_cast<unsigned long long>(a) | reinterpret_cast<unsigned long long>(b)) & 15ull) == 0;

    for (long long s0 = ch.first(); s0 < ch.nseg; s0 += ch.step()) {
        const Chunk c = ch.at(s0);
        const float* __restrict__ as = a + c.row * cols + c.start;
        const float* __restrict__ bs = b + c.row * cols + c.start;
        float acc = 0.0f;
        if (vec) {
            const float4* __restrict__ a4 = reinterpret_cast<const float4*>(as);
            const float4* __restrict__ b4 = reinterpret_cast<const float4*>(bs);
            const int nv = c.len >> 2;                   // c.len % 4 == 0 here
            int base = 0;
            for (; base + G * MS_NV <= nv; base += G * MS_NV) {   // full rounds: no bound checks
                CHUNK_ROUND(MS_NV, float4 va[MS_NV]; float4 vb[MS_NV],
                            va[k] = __ldg(a4 + base + k * G + lane); vb[k] = __ldg(b4 + base + k * G + lane),
                            acc += sqdiff4(va[k], vb[k]));
            }
            CHUNK_TAIL(MS_NV, acc += sqdiff4(__ldg(a4 + j), __ldg(b4 + j)));     // last, partial round
        } else {
            for (int base = 0; base < c.len; base += G * MS_SR) {
                CHUNK_ROUND_J(MS_SR, float d[MS_SR], d[k] = j < c.len ? __ldg(as + j) - __ldg(bs + j) : 0.0f,
                              acc += d[k] * d[k]);
            }
        }
        acc = group_sum(acc, G, red);
        if (c.active && lane == 0) {
            if (split == 1)
                out[c.row] = acc / (float)cols;
            else
                partial[c.seg] = acc;
        }
    }
}

extern "C" __global__ void __launch_bounds__(256)
mse_finish(const float* __restrict__ partial, float* __restrict__ out, int rows, int cols, int split)
{
    if (split <= 1) return;                           // partial kernel already wrote out
    const RowWarps w;
    const int lane = w.lane;
    for (long long row = w.first(); row < rows; row += w.step()) {
        const float acc = warp_reduce_partials<false>(partial + row * split, split, lane);
        if (lane == 0) out[row] = acc / (float)cols;
    }
}
