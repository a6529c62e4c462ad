// kscore-launch: { "kernel": "mv_kernel", "grid": ["n"], "block": [128] }
// One 128-thread block per row: strided partial sums, then a warp butterfly and a fixed-order
// sum of the four warp results in shared memory.
extern "C" __global__ void mv_kernel(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
                                     int N, int M)
{
    __shared__ float red[4];
    const int row = blockIdx.x;
    const float* a = A + (size_t)row * M;
    float acc = 0.0f;
    for (int j = threadIdx.x; j < M; j += 128) acc = fmaf(a[j], B[j], acc);
    for (int o = 16; o > 0; o >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, o);
    if ((threadIdx.x & 31) == 0) red[threadIdx.x >> 5] = acc;
    __syncthreads();
    if (threadIdx.x == 0) C[row] = (red[0] + red[1]) + (red[2] + red[3]);
}
