#include <cuda_fp16.h>

// kscore-launch: { "kernel": "int4_matmul", "grid": ["cdiv(N, 64)", "cdiv(M, 64)"], "block": [256] }
// Shared-memory tiled float32 GEMM (no tensor cores): 64 x 64 output tiles, k-steps of 32.
// Each step stages x[m0:m0+64, k0:k0+32] as float and the dequantized W[k0:k0+32, n0:n0+64]
// (one packed word = 8 k values per thread) in shared memory; each thread accumulates a 4 x 4
// block of outputs.
extern "C" __global__ void __launch_bounds__(256)
int4_matmul(const __half* __restrict__ x, const int* __restrict__ qweight, const __half* __restrict__ scales,
            const int* __restrict__ qzeros, __half* __restrict__ out, int M, int N, int K, int group_size)
{
    __shared__ float xs[64][33];
    __shared__ float ws[32][65];
    const int m0 = blockIdx.y * 64, n0 = blockIdx.x * 64;
    const int tx = threadIdx.x & 15, ty = threadIdx.x >> 4;
    float acc[4][4] = {};
    for (int k0 = 0; k0 < K; k0 += 32) {
        for (int i = threadIdx.x; i < 64 * 32; i += 256) {
            const int r = i / 32, c = i % 32;
            const int gm = m0 + r, gk = k0 + c;
            xs[r][c] = (gm < M && gk < K) ? __half2float(x[(size_t)gm * K + gk]) : 0.0f;
        }
        {   // 4 packed rows (32 k) x 64 columns = 256 words, one per thread
            const int r8 = threadIdx.x >> 6, c = threadIdx.x & 63;
            const int gk8 = k0 / 8 + r8, gn = n0 + c;
            if (gk8 < K / 8 && gn < N) {
                const unsigned qw = (unsigned)qweight[(size_t)gk8 * N + gn];
                const int g = (gk8 * 8) / group_size;
                const unsigned zw = (unsigned)qzeros[(size_t)g * (N / 8) + gn / 8];
                const float z = (float)((zw >> (4 * (gn % 8))) & 15u);
                const float s = __half2float(scales[(size_t)g * N + gn]);
                for (int i = 0; i < 8; ++i) ws[r8 * 8 + i][c] = ((float)((qw >> (4 * i)) & 15u) - z) * s;
            } else {
                for (int i = 0; i < 8; ++i) ws[r8 * 8 + i][c] = 0.0f;
            }
        }
        __syncthreads();
        for (int kk = 0; kk < 32; ++kk) {
            float av[4], bv[4];
            for (int i = 0; i < 4; ++i) av[i] = xs[ty * 4 + i][kk];
            for (int j = 0; j < 4; ++j) bv[j] = ws[kk][tx * 4 + j];
            for (int i = 0; i < 4; ++i)
                for (int j = 0; j < 4; ++j) acc[i][j] = fmaf(av[i], bv[j], acc[i][j]);
        }
        __syncthreads();
    }
    for (int i = 0; i < 4; ++i) {
        const int m = m0 + ty * 4 + i;
        for (int j = 0; j < 4; ++j) {
            const int n = n0 + tx * 4 + j;
            if (m < M && n < N) out[(size_t)m * N + n] = __float2half_rn(acc[i][j]);
        }
    }
}
