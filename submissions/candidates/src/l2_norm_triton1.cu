/* kscore-launch
{ "kernels": [
    { "name": "row_chunk_ss", "grid": ["rows", "cdiv(cols, 4096)"], "block": [128],
      "args": ["x", "part", "rows", "cols"] },
    { "name": "row_chunk_scale", "grid": ["rows", "cdiv(cols, 4096)"], "block": [128],
      "args": ["x", "part", "y", "rows", "cols", "eps"] } ],
  "scratch": [ { "name": "part", "dtype": "f32", "count": "rows * cdiv(cols, 4096)" } ] }
*/
// Two passes over column chunks of 4096: the first kernel writes one partial sum of squares per
// (row, chunk); the second adds the row's partials (same order in every block) and scales its
// chunk.
__device__ float block_sum_128(float v, float* red)
{
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    if ((threadIdx.x & 31) == 0) red[threadIdx.x >> 5] = v;
    __syncthreads();
    return (red[0] + red[1]) + (red[2] + red[3]);
}

extern "C" __global__ void row_chunk_ss(const float* __restrict__ x, float* __restrict__ part, int rows, int cols)
{
    __shared__ float red[4];
    const int row = blockIdx.x, chunk = blockIdx.y, nchunks = (cols + 4095) / 4096;
    const float* xr = x + (size_t)row * cols;
    const int c1 = min(cols, (chunk + 1) * 4096);
    float acc = 0.0f;
    for (int c = chunk * 4096 + threadIdx.x; c < c1; c += 128) {
        const float v = xr[c];
        acc = fmaf(v, v, acc);
    }
    const float s = block_sum_128(acc, red);
    if (threadIdx.x == 0) part[(size_t)row * nchunks + chunk] = s;
}

extern "C" __global__ void row_chunk_scale(const float* __restrict__ x, const float* __restrict__ part,
                                           float* __restrict__ y, int rows, int cols, float eps)
{
    __shared__ float red[4];
    const int row = blockIdx.x, chunk = blockIdx.y, nchunks = (cols + 4095) / 4096;
    float p = 0.0f;
    for (int i = threadIdx.x; i < nchunks; i += 128) p += part[(size_t)row * nchunks + i];
    const float rstd = rsqrtf(block_sum_128(p, red) + eps);
    const float* xr = x + (size_t)row * cols;
    float* yr = y + (size_t)row * cols;
    const int c1 = min(cols, (chunk + 1) * 4096);
    for (int c = chunk * 4096 + threadIdx.x; c < c1; c += 128) yr[c] = xr[c] * rstd;
}
