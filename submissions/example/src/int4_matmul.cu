#include <cuda_fp16.h>

// Default launch: grid (cdiv(N, 128), cdiv(M, 128)), block 256. Thread t of a block owns column
// n0 + (t % 128) and the 64 rows m0 + t / 128 + 2 i; for every k it dequantizes its weight once
// and updates its 64 accumulators (plain float32 FMAs, no tensor cores).
extern "C" __global__ void __launch_bounds__(256)
int4_matmul(const __half* __restrict__ x, const int* __restrict__ qweight, const __half* __restrict__ scales,
            const int* __restrict__ qzeros, __half* __restrict__ out, int M, int N, int K, int group_size)
{
    const int n = blockIdx.x * 128 + (threadIdx.x & 127);
    const int mbase = blockIdx.y * 128 + (threadIdx.x >> 7);
    if (n >= N) return;
    float acc[64];
#pragma unroll
    for (int i = 0; i < 64; ++i) acc[i] = 0.0f;
    for (int k = 0; k < K; ++k) {
        const int g = k / group_size;
        const unsigned qw = (unsigned)qweight[(size_t)(k >> 3) * N + n];
        const unsigned zw = (unsigned)qzeros[(size_t)g * (N >> 3) + (n >> 3)];
        const int q = (int)((qw >> (4 * (k & 7))) & 15u);
        const int z = (int)((zw >> (4 * (n & 7))) & 15u);
        const float w = (float)(q - z) * __half2float(scales[(size_t)g * N + n]);
#pragma unroll
        for (int i = 0; i < 64; ++i) {
            const int m = mbase + 2 * i;
            if (m < M) acc[i] = fmaf(__half2float(x[(size_t)m * K + k]), w, acc[i]);
        }
    }
#pragma unroll
    for (int i = 0; i < 64; ++i) {
        const int m = mbase + 2 * i;
        if (m < M) out[(size_t)m * N + n] = __float2half_rn(acc[i]);
    }
}
