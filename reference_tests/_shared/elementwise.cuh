// elementwise.cuh: the golden body of the unary element-wise problems (gelu_f16, sigmoid_bf16,
// swish_f16: 16-bit; relu_f32, tanh_f32: float32). golden.cu gives the operation, as a functor
// on float, and an entry kernel that calls ew_unary (docs/problem-format.md, golden_prelude).
//
// Memory-bound. Each thread handles EW_UNROLL 16-byte vectors (8 16-bit or 4 float elements) per
// loop iteration and issues all of its loads before any store, so every thread keeps EW_UNROLL
// independent loads in flight; consecutive threads touch consecutive vectors (coalesced). The loop
// strides by the whole grid, so any grid size is correct; the golden launch gives one iteration
// per thread (grid = cdiv(n, 256 * EW_UNROLL * elements per vector) with 256 threads). The vector
// path needs 16-byte aligned x and y; otherwise (and for the tail) a scalar grid-stride loop does
// the work. 16-bit elements are widened to float32, computed in float32 and rounded once (to
// nearest even) back.

#include <cuda_fp16.h>
#include <cuda_bf16.h>

#define EW_UNROLL 4

__device__ __forceinline__ float2 ew_widen2(__half2 v) { return __half22float2(v); }
__device__ __forceinline__ float2 ew_widen2(__nv_bfloat162 v) { return __bfloat1622float2(v); }
__device__ __forceinline__ void ew_narrow2(__half2 *out, float a, float b) { *out = __floats2half2_rn(a, b); }
__device__ __forceinline__ void ew_narrow2(__nv_bfloat162 *out, float a, float b)
{
    *out = __floats2bfloat162_rn(a, b);
}
__device__ __forceinline__ float ew_widen(__half v) { return __half2float(v); }
__device__ __forceinline__ float ew_widen(__nv_bfloat16 v) { return __bfloat162float(v); }
__device__ __forceinline__ void ew_narrow(__half *out, float v) { *out = __float2half_rn(v); }
__device__ __forceinline__ void ew_narrow(__nv_bfloat16 *out, float v) { *out = __float2bfloat16_rn(v); }

// op on the 8 16-bit elements of a 16-byte vector (4 pairs T2)
template <typename T2, typename Op>
__device__ __forceinline__ uint4 ew_op8(uint4 a, const Op &op1)
{
    uint4 r;
    const T2* in = reinterpret_cast<const T2*>(&a);
    T2* out = reinterpret_cast<T2*>(&r);
#pragma unroll
    for (int i = 0; i < 4; ++i) {
        const float2 f = ew_widen2(in[i]);
        ew_narrow2(&out[i], op1(f.x), op1(f.y));
    }
    return r;
}

// A 16-byte vector of T: 8 16-bit elements (as 4 pairs T2) or 4 floats.
template <typename T> struct EwVec {
    typedef uint4 V;
    enum { SHIFT = 3 };
};
template <> struct EwVec<float> {
    typedef float4 V;
    enum { SHIFT = 2 };
};

template <typename T2, typename Op>
__device__ __forceinline__ uint4 ew_op_vec(uint4 a, const Op &op1) { return ew_op8<T2>(a, op1); }

template <typename T2, typename Op>
__device__ __forceinline__ float4 ew_op_vec(float4 a, const Op &op1)
{
    float4 r;
    r.x = op1(a.x);
    r.y = op1(a.y);
    r.z = op1(a.z);
    r.w = op1(a.w);
    return r;
}

// One element of the scalar tail.
template <typename T, typename Op>
__device__ __forceinline__ void ew_op1(const T* __restrict__ x, T* __restrict__ y, long long i, const Op &op1)
{
    ew_narrow(&y[i], op1(ew_widen(x[i])));
}

template <typename Op>
__device__ __forceinline__ void ew_op1(const float* __restrict__ x, float* __restrict__ y, long long i, const Op &op1)
{
    y[i] = op1(__ldg(x + i));
}

// y[i] = op1(x[i]) for i in [0, n); T is __half or __nv_bfloat16 (T2 its pair type) or float (T2
// unused: float2)
template <typename T, typename T2, typename Op>
__device__ __forceinline__ void ew_unary(const T* __restrict__ x, T* __restrict__ y, int n, const Op &op1)
{
    typedef typename EwVec<T>::V V;
    const int shift = EwVec<T>::SHIFT;
    const long long nn = n;
    const bool vec = ((reinterpret_cast<unsigned long long>(x) |
                       reinterpret_cast<unsigned long long>(y)) & 15ull) == 0;
    const long long nv = vec ? (nn >> shift) : 0;
    const V* __restrict__ xv = reinterpret_cast<const V*>(x);
    V* __restrict__ yv = reinterpret_cast<V*>(y);
    const long long bd = blockDim.x;
    const long long stride = (long long)gridDim.x * bd * EW_UNROLL;

    for (long long base = (long long)blockIdx.x * bd * EW_UNROLL + threadIdx.x; base < nv;
         base += stride) {
        V v[EW_UNROLL];
#pragma unroll
        for (int u = 0; u < EW_UNROLL; ++u) {
            const long long i = base + u * bd;
            if (i < nv) v[u] = __ldg(xv + i);
        }
#pragma unroll
        for (int u = 0; u < EW_UNROLL; ++u) {
            const long long i = base + u * bd;
            if (i < nv) yv[i] = ew_op_vec<T2>(v[u], op1);
        }
    }
    // Scalar tail: the elements after the last whole vector, or everything when a pointer is
    // misaligned.
    const long long tstride = (long long)gridDim.x * bd;
    for (long long i = (nv << shift) + (long long)blockIdx.x * bd + threadIdx.x; i < nn; i += tstride)
        ew_op1(x, y, i, op1);
}
