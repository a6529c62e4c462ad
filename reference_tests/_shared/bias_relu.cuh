// bias_relu.cuh: y[p, d] = max(x[p, d] + bias[d], 0) over a row-major [P, D] tensor, the golden body
// of bias_relu_broadcast_f16 and bias_relu_broadcast_f32 (docs/problem-format.md, golden_prelude).
// The sum is formed in float32 and rounded once at the store.
//
// Each thread owns one 16-byte vector of EPV consecutive columns (8 halves or 4 floats) and ROWS
// consecutive rows; its bias values are loaded once. Fast path: 16-byte loads/stores when D is a
// multiple of EPV and the pointers are 16-byte aligned; otherwise every element is loaded and
// stored on its own, guarded. Loads for all rows are issued before any store so that each thread
// has ROWS requests in flight.

#include <cuda_fp16.h>

#define ROWS 8
#define THREADS 256

__device__ __forceinline__ unsigned int bias_relu2(unsigned int xv, unsigned int bv)
{
    __half2 xh = *reinterpret_cast<__half2*>(&xv);
    __half2 bh = *reinterpret_cast<__half2*>(&bv);
    float2 xf = __half22float2(xh);
    float2 bf = __half22float2(bh);
    __half2 o = __floats2half2_rn(fmaxf(xf.x + bf.x, 0.0f), fmaxf(xf.y + bf.y, 0.0f));
    return *reinterpret_cast<unsigned int*>(&o);
}

// One vector: 8 halves as 4 pairs, or 4 floats.
__device__ __forceinline__ uint4 br_vec(uint4 v, uint4 b)
{
    uint4 o;
    o.x = bias_relu2(v.x, b.x);
    o.y = bias_relu2(v.y, b.y);
    o.z = bias_relu2(v.z, b.z);
    o.w = bias_relu2(v.w, b.w);
    return o;
}
__device__ __forceinline__ float4 br_vec(float4 v, float4 b)
{
    float4 o;
    o.x = fmaxf(v.x + b.x, 0.0f);
    o.y = fmaxf(v.y + b.y, 0.0f);
    o.z = fmaxf(v.z + b.z, 0.0f);
    o.w = fmaxf(v.w + b.w, 0.0f);
    return o;
}

// Element loads of the guarded path, widened to float32, and the rounding of its results.
__device__ __forceinline__ float br_ld(const __half* p) { return __half2float(*p); }
__device__ __forceinline__ float br_ld(const float* p) { return __ldg(p); }
template <typename T> __device__ __forceinline__ T br_out(float v);
template <> __device__ __forceinline__ __half br_out<__half>(float v) { return __float2half_rn(v); }
template <> __device__ __forceinline__ float br_out<float>(float v) { return v; }

// T: element type; V: its 16-byte vector type (uint4 for halves, float4); EPV elements per vector.
template <typename T, typename V, int EPV>
__device__ __forceinline__ void bias_relu_body(const T* __restrict__ x, const T* __restrict__ bias,
                                               T* __restrict__ y, int P, int D)
{
    const int c0 = (blockIdx.x * THREADS + threadIdx.x) * EPV;
    const int r0 = blockIdx.y * ROWS;
    if (c0 >= D || r0 >= P) return;
    const bool vec = ((D & (EPV - 1)) == 0) &&
                     ((((unsigned long long)x) | ((unsigned long long)bias) |
                       ((unsigned long long)y)) & 15ull) == 0;
    if (vec) {
        const V b = __ldg(reinterpret_cast<const V*>(bias + c0));
        V v[ROWS];
#pragma unroll
        for (int i = 0; i < ROWS; i++)
            if (r0 + i < P)
                v[i] = __ldg(reinterpret_cast<const V*>(x + (size_t)(r0 + i) * D + c0));
#pragma unroll
        for (int i = 0; i < ROWS; i++) {
            if (r0 + i < P)
                *reinterpret_cast<V*>(y + (size_t)(r0 + i) * D + c0) = br_vec(v[i], b);
        }
    } else {
        float b[EPV];
#pragma unroll
        for (int j = 0; j < EPV; j++) b[j] = (c0 + j < D) ? br_ld(bias + c0 + j) : 0.0f;
        for (int i = 0; i < ROWS && r0 + i < P; i++) {
            const size_t base = (size_t)(r0 + i) * D + c0;
#pragma unroll
            for (int j = 0; j < EPV; j++)
                if (c0 + j < D) y[base + j] = br_out<T>(fmaxf(br_ld(x + base + j) + b[j], 0.0f));
        }
    }
}
