// Golden kernels for sum_dim_f32: y[r] = sum_j x[r, j] over a row-major [rows, cols] float32 tensor.
//
// Two launches (see golden_launch in problem.json):
//  1. sum_dim_partial: each row is cut into `split` chunks of clen = align(cdiv(cols, split), 8)
//     elements (the last chunk is shorter, a chunk past the end of the row is empty). A group of
//     G threads (G a power of two, G <= blockDim.x) sums one chunk: G is the smallest power of
//     two with G * 32 >= clen, capped at blockDim.x, and the group walks its chunk in rounds of
//     32 elements per thread (8 independent 16-byte loads in flight per thread, consecutive
//     threads on consecutive vectors). Short rows get many rows per block (G = 2 for 64
//     columns); long rows get `split` blocks each, so that a few very long rows still fill the
//     GPU. With split == 1 the chunk sum is the row sum and is written to y directly; otherwise
//     it goes to partial[row * split + chunk].
//  2. sum_dim_finish: when split > 1, one warp per row adds its `split` partials.
// Summation order is fixed: per thread in index order (each 4-vector summed pairwise first),
// then an xor butterfly within the warp (bitwise the same result in every lane, since + is
// commutative), then the per-warp values in warp order, then the partials in a fixed warp
// pattern. Deterministic; no atomics. Any grid size is correct (block-uniform loops).
// Vector loads need cols % 4 == 0 and a 16-byte aligned x (chunks start at multiples of 8
// elements, so every chunk is then aligned); otherwise the same walk runs element by element.
// Requires blockDim.x to be a power of two between 32 and 1024.

#define SD_NV 8                     // four-element vectors per thread per round
#define SD_EPT (4 * SD_NV)          // elements per thread per round
#define SD_SR 8                     // elements per thread per round, scalar path

extern "C" __global__ void __launch_bounds__(256, 4)
sum_dim_partial(const float* __restrict__ x, float* __restrict__ y, float* __restrict__ partial,
                int rows, int cols, int split)
{
    __shared__ float red[32];
    const Chunks ch(rows, cols, split, SD_EPT);
    const int G = ch.g.G, lane = ch.g.lane;
    const bool vec = (cols & 3) == 0 && (reinterpret_cast<unsigned long long>(x) & 15ull) == 0;

    for (long long s0 = ch.first(); s0 < ch.nseg; s0 += ch.step()) {
        const Chunk c = ch.at(s0);
        const float* __restrict__ xs = x + c.row * cols + c.start;
        float acc = 0.0f;
        if (vec) {
            const float4* __restrict__ x4 = reinterpret_cast<const float4*>(xs);
            const int nv = c.len >> 2;                   // c.len % 4 == 0 here
            int base = 0;
            for (; base + G * SD_NV <= nv; base += G * SD_NV) {   // full rounds: no bound checks
                CHUNK_ROUND(SD_NV, float4 v[SD_NV], v[k] = __ldg(x4 + base + k * G + lane),
                            acc += (v[k].x + v[k].y) + (v[k].z + v[k].w));
            }
            if (base < nv) {                                      // last, partial round
                CHUNK_ROUND_J(SD_NV, float4 v[SD_NV], v[k] = j < nv ? __ldg(x4 + j) : make_float4(0.0f, 0.0f, 0.0f, 0.0f),
                              acc += (v[k].x + v[k].y) + (v[k].z + v[k].w));
            }
        } else {
            for (int base = 0; base < c.len; base += G * SD_SR) {
                CHUNK_ROUND_J(SD_SR, float v[SD_SR], v[k] = j < c.len ? __ldg(xs + j) : 0.0f, acc += v[k]);
            }
        }
        acc = group_sum(acc, G, red);
        if (c.active && lane == 0) {
            if (split == 1)
                y[c.row] = acc;
            else
                partial[c.seg] = acc;
        }
    }
}

extern "C" __global__ void __launch_bounds__(256)
sum_dim_finish(const float* __restrict__ partial, float* __restrict__ y, int rows, int split)
{
    if (split <= 1) return;                           // partial kernel already wrote y
    const RowWarps w;
    const int lane = w.lane;
    for (long long row = w.first(); row < rows; row += w.step()) {
        const float acc = warp_reduce_partials<false>(partial + row * split, split, lane);
        if (lane == 0) y[row] = acc;
    }
}
