extern "C" __global__ void l2_norm_fwd(const float* __restrict__ x, float* __restrict__ y,
                                       int rows, int cols, float eps)
{
    __shared__ float warp_sums[32];
    const int row = blockIdx.x;
    const float* xr = x + (size_t)row * cols;
    float* yr = y + (size_t)row * cols;

    // sum of squares of the row
    float acc = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
        float v = xr[c];
        acc += v * v;
    }
    for (int o = 16; o > 0; o >>= 1) acc += __shfl_xor_sync(0xffffffff, acc, o);
    if ((threadIdx.x & 31) == 0) warp_sums[threadIdx.x >> 5] = acc;
    __syncthreads();
    float total = 0.0f;
    for (int w = 0; w < (int)(blockDim.x >> 5); ++w) total += warp_sums[w];
    const float rstd = rsqrtf(total + eps);

    // scale, four columns per step
    for (int c = 4 * threadIdx.x; c + 3 < cols; c += 4 * blockDim.x) {
        yr[c + 0] = xr[c + 0] * rstd;
        yr[c + 1] = xr[c + 1] * rstd;
        yr[c + 2] = xr[c + 2] * rstd;
        yr[c + 3] = xr[c + 3] * rstd;
    }
}
