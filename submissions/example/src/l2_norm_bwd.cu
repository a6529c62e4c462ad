// One block per row (default launch: grid rows, block 256). Pass 1 reduces sum(x^2) and
// sum(dy * x); pass 2 writes dx. Both sums use a fixed-order block reduction.
extern "C" __global__ void l2_norm_bwd(const float* __restrict__ x, const float* __restrict__ dy,
                                       float* __restrict__ dx, int rows, int cols, float eps)
{
    __shared__ float red_ss[32], red_sd[32];
    const int row = blockIdx.x;
    const float* xr = x + (size_t)row * cols;
    const float* gr = dy + (size_t)row * cols;
    float* outr = dx + (size_t)row * cols;

    float ss = 0.0f, sd = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
        const float a = xr[c], g = gr[c];
        ss = fmaf(a, a, ss);
        sd = fmaf(g, a, sd);
    }
    for (int o = 16; o > 0; o >>= 1) {
        ss += __shfl_xor_sync(0xffffffffu, ss, o);
        sd += __shfl_xor_sync(0xffffffffu, sd, o);
    }
    if ((threadIdx.x & 31) == 0) {
        red_ss[threadIdx.x >> 5] = ss;
        red_sd[threadIdx.x >> 5] = sd;
    }
    __syncthreads();
    ss = 0.0f;
    sd = 0.0f;
    for (int w = 0; w < (int)(blockDim.x >> 5); ++w) {
        ss += red_ss[w];
        sd += red_sd[w];
    }
    const float var = ss + eps;
    const float rstd = 1.0f / sqrtf(var);
    const float k = sd / var * rstd;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) outr[c] = gr[c] * rstd - k * xr[c];
}
