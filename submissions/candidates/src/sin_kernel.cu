// kscore-launch: { "kernel": "sin_kernel", "grid": ["max(1, min(cdiv(n, 1024), 1056))"], "block": [256] }
// Grid-stride loop over float4s (a fixed grid of at most 1056 blocks = 8 per SM on an H100),
// scalar tail and scalar fallback for misaligned buffers.
extern "C" __global__ void __launch_bounds__(256)
sin_kernel(const float* __restrict__ x, float* __restrict__ y, int n)
{
    const long long stride = (long long)gridDim.x * blockDim.x;
    const long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (((reinterpret_cast<unsigned long long>(x) | reinterpret_cast<unsigned long long>(y)) & 15ull) == 0) {
        const long long nv = n / 4;
        const float4* xv = reinterpret_cast<const float4*>(x);
        float4* yv = reinterpret_cast<float4*>(y);
        for (long long i = tid; i < nv; i += stride) {
            float4 v = xv[i];
            v.x = sinf(v.x);
            v.y = sinf(v.y);
            v.z = sinf(v.z);
            v.w = sinf(v.w);
            yv[i] = v;
        }
        const long long t = 4 * nv + tid;
        if (t < n) y[t] = sinf(x[t]);
    } else {
        for (long long i = tid; i < n; i += stride) y[i] = sinf(x[i]);
    }
}
