// row_vec.cuh: 16-byte vector loads and stores within one row, for the row-wise golden kernels
// (docs/problem-format.md, golden_prelude): softmax_f32 and layer_norm_f32 (float32, 4 elements a
// vector), log_softmax_f16 and rms_norm_bf16 (16-bit, 8 elements a vector, define ROW16 as the
// element type: __half or __nv_bfloat16).
//
// Vector j of a row is elements 4j..4j+3 (float32) or 8j..8j+7 (16-bit). With vec (cols a multiple
// of the vector width and every row pointer 16-byte aligned) a vector is one 16-byte load or store;
// otherwise the same call moves its elements one at a time with a bound check per element, and
// elements at or past cols read as pad.

#include <cuda_fp16.h>
#include <cuda_bf16.h>

__device__ __forceinline__ float4 load_vec(const float* __restrict__ xr, int j, int cols, bool vec, float pad)
{
    if (vec) return __ldg(reinterpret_cast<const float4*>(xr) + j);
    const int e = 4 * j;
    float4 v;
    v.x = __ldg(xr + e);
    v.y = e + 1 < cols ? __ldg(xr + e + 1) : pad;
    v.z = e + 2 < cols ? __ldg(xr + e + 2) : pad;
    v.w = e + 3 < cols ? __ldg(xr + e + 3) : pad;
    return v;
}

__device__ __forceinline__ void store_vec(float* __restrict__ yr, int j, int cols, bool vec, float4 v)
{
    if (vec) {
        reinterpret_cast<float4*>(yr)[j] = v;
        return;
    }
    const int e = 4 * j;
    yr[e] = v.x;
    if (e + 1 < cols) yr[e + 1] = v.y;
    if (e + 2 < cols) yr[e + 2] = v.z;
    if (e + 3 < cols) yr[e + 3] = v.w;
}

#ifdef ROW16
typedef ROW16 row16_t;

// Vector j of a row as raw 16-bit values; pad is the bit pattern of the padding.
__device__ __forceinline__ uint4 load_vec(const row16_t* __restrict__ r, int j, int cols, bool vec,
                                          unsigned pad)
{
    if (vec) return __ldg(reinterpret_cast<const uint4*>(r) + j);
    const unsigned short* p = reinterpret_cast<const unsigned short*>(r);
    const int e = 8 * j;
    unsigned w[8];
#pragma unroll
    for (int i = 0; i < 8; ++i) w[i] = e + i < cols ? (unsigned)p[e + i] : pad;
    uint4 u;
    u.x = w[0] | (w[1] << 16);
    u.y = w[2] | (w[3] << 16);
    u.z = w[4] | (w[5] << 16);
    u.w = w[6] | (w[7] << 16);
    return u;
}

__device__ __forceinline__ void store_vec(row16_t* __restrict__ r, int j, int cols, bool vec, uint4 u)
{
    if (vec) {
        reinterpret_cast<uint4*>(r)[j] = u;
        return;
    }
    unsigned short* p = reinterpret_cast<unsigned short*>(r);
    const int e = 8 * j;
    const unsigned w[4] = {u.x, u.y, u.z, u.w};
#pragma unroll
    for (int i = 0; i < 8; ++i)
        if (e + i < cols) p[e + i] = (unsigned short)(w[i >> 1] >> (16 * (i & 1)));
}

__device__ __forceinline__ float2 row16_widen2(__half2 v) { return __half22float2(v); }
__device__ __forceinline__ float2 row16_widen2(__nv_bfloat162 v) { return __bfloat1622float2(v); }
__device__ __forceinline__ void row16_narrow2(__half2* out, float a, float b) { *out = __floats2half2_rn(a, b); }
__device__ __forceinline__ void row16_narrow2(__nv_bfloat162* out, float a, float b)
{
    *out = __floats2bfloat162_rn(a, b);
}
template <typename T> struct Row16Pair;
template <> struct Row16Pair<__half> { typedef __half2 T2; };
template <> struct Row16Pair<__nv_bfloat16> { typedef __nv_bfloat162 T2; };
typedef Row16Pair<row16_t>::T2 row16x2_t;

// Widen 8 packed values to float32.
__device__ __forceinline__ void widen8(uint4 u, float f[8])
{
    const row16x2_t* h2 = reinterpret_cast<const row16x2_t*>(&u);
#pragma unroll
    for (int i = 0; i < 4; ++i) {
        const float2 t = row16_widen2(h2[i]);
        f[2 * i] = t.x;
        f[2 * i + 1] = t.y;
    }
}

// Round 8 float32 values to nearest even and pack them.
__device__ __forceinline__ uint4 narrow8(const float f[8])
{
    uint4 u;
    row16x2_t* h2 = reinterpret_cast<row16x2_t*>(&u);
#pragma unroll
    for (int i = 0; i < 4; ++i) row16_narrow2(&h2[i], f[2 * i], f[2 * i + 1]);
    return u;
}
#endif
