// Golden kernel for relu_f32: y[i] = max(x[i], 0) for i in [0, n).
//
// Memory-bound. Each thread handles UNROLL 16-byte vectors per loop iteration and issues all of
// its loads before any store, so every thread keeps UNROLL independent loads in flight. Block b
// starts at vector b * blockDim.x * UNROLL; consecutive threads touch consecutive vectors
// (coalesced). The loop strides by the whole grid, so any grid size is correct; the golden launch
// gives one iteration per thread (grid = cdiv(n, 4096) with 256 threads).
// The vector path needs 16-byte aligned x and y; otherwise (and for the n % 4 tail) a scalar
// grid-stride loop does the work. Exact: no rounding anywhere.

#define RELU_UNROLL 4

__device__ __forceinline__ float relu1(float v) { return v > 0.0f ? v : 0.0f; }

extern "C" __global__ void __launch_bounds__(256)
relu_f32(const float* __restrict__ x, float* __restrict__ y, int n)
{
    const long long nn = n;
    const bool vec = ((reinterpret_cast<unsigned long long>(x) |
                       reinterpret_cast<unsigned long long>(y)) & 15ull) == 0;
    const long long n4 = vec ? (nn >> 2) : 0;
    const float4* __restrict__ x4 = reinterpret_cast<const float4*>(x);
    float4* __restrict__ y4 = reinterpret_cast<float4*>(y);
    const long long bd = blockDim.x;
    const long long stride = (long long)gridDim.x * bd * RELU_UNROLL;

    for (long long base = (long long)blockIdx.x * bd * RELU_UNROLL + threadIdx.x; base < n4;
         base += stride) {
        float4 v[RELU_UNROLL];
#pragma unroll
        for (int u = 0; u < RELU_UNROLL; ++u) {
            const long long i = base + u * bd;
            if (i < n4) v[u] = __ldg(x4 + i);
        }
#pragma unroll
        for (int u = 0; u < RELU_UNROLL; ++u) {
            const long long i = base + u * bd;
            if (i < n4) {
                float4 r;
                r.x = relu1(v[u].x);
                r.y = relu1(v[u].y);
                r.z = relu1(v[u].z);
                r.w = relu1(v[u].w);
                y4[i] = r;
            }
        }
    }
    // Scalar tail: the last n % 4 elements, or everything when a pointer is misaligned.
    const long long tstride = (long long)gridDim.x * bd;
    for (long long i = n4 * 4 + (long long)blockIdx.x * bd + threadIdx.x; i < nn; i += tstride)
        y[i] = relu1(__ldg(x + i));
}
