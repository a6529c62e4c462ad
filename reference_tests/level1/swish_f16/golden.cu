// Golden kernel for swish_f16: y = x / (1 + exp(-x)) for i in [0, n), float16 in and out.
//
// Each element is widened to float32, computed in float32 and rounded once (to nearest even)
// back to float16. For x < -88 exp(-x) overflows to inf and the result is -0.
// Memory-bound. Each thread handles UNROLL 16-byte vectors (8 elements, as 4 pairs) per loop
// iteration and issues all of its loads before any store; consecutive threads touch consecutive
// vectors (coalesced). The loop strides by the whole grid, so any grid size is correct; the
// golden launch gives one iteration per thread (grid = cdiv(n, 8192) with 256 threads). The
// vector path needs 16-byte aligned x and y; otherwise (and for the n % 8 tail) a scalar
// grid-stride loop does the work.

#include <cuda_fp16.h>

#define EW_UNROLL 4

__device__ __forceinline__ float op1(float v) { return v / (1.0f + expf(-v)); }

__device__ __forceinline__ uint4 op8(uint4 a)
{
    uint4 r;
    const __half2* in = reinterpret_cast<const __half2*>(&a);
    __half2* out = reinterpret_cast<__half2*>(&r);
#pragma unroll
    for (int i = 0; i < 4; ++i) {
        const float2 f = __half22float2(in[i]);
        out[i] = __floats2half2_rn(op1(f.x), op1(f.y));
    }
    return r;
}

extern "C" __global__ void __launch_bounds__(256)
swish_f16(const __half* __restrict__ x, __half* __restrict__ y, int n)
{
    const long long nn = n;
    const bool vec = ((reinterpret_cast<unsigned long long>(x) |
                       reinterpret_cast<unsigned long long>(y)) & 15ull) == 0;
    const long long n8 = vec ? (nn >> 3) : 0;
    const uint4* __restrict__ x8 = reinterpret_cast<const uint4*>(x);
    uint4* __restrict__ y8 = reinterpret_cast<uint4*>(y);
    const long long bd = blockDim.x;
    const long long stride = (long long)gridDim.x * bd * EW_UNROLL;

    for (long long base = (long long)blockIdx.x * bd * EW_UNROLL + threadIdx.x; base < n8;
         base += stride) {
        uint4 v[EW_UNROLL];
#pragma unroll
        for (int u = 0; u < EW_UNROLL; ++u) {
            const long long i = base + u * bd;
            if (i < n8) v[u] = __ldg(x8 + i);
        }
#pragma unroll
        for (int u = 0; u < EW_UNROLL; ++u) {
            const long long i = base + u * bd;
            if (i < n8) y8[i] = op8(v[u]);
        }
    }
    // Scalar tail: the last n % 8 elements, or everything when a pointer is misaligned.
    const long long tstride = (long long)gridDim.x * bd;
    for (long long i = n8 * 8 + (long long)blockIdx.x * bd + threadIdx.x; i < nn; i += tstride)
        y[i] = __float2half_rn(op1(__half2float(x[i])));
}
