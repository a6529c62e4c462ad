#include <cuda_fp16.h>
#include <mma.h>

using namespace nvcuda;

// Default launch: grid (cdiv(N, 128), cdiv(M, 128)), block 256 (8 warps as 4 x 2, each 32 x 64).
// Tiles of A (128 x 32) and B (32 x 128) are staged in shared memory with bounds checks, then
// multiplied with 16x16x16 WMMA fragments accumulating in float32.
#define TM 128
#define TN 128
#define TK 32
#define LDA (TK + 8)
#define LDB (TN + 8)

extern "C" __global__ void __launch_bounds__(256)
matmul_kernel(const __half* __restrict__ a, const __half* __restrict__ b, __half* __restrict__ c, int M, int N, int K)
{
    __shared__ __align__(32) __half sa[TM * LDA];
    __shared__ __align__(32) __half sb[TK * LDB];
    __shared__ __align__(32) float stage[8][16 * 16];

    const int m0 = blockIdx.y * TM, n0 = blockIdx.x * TN;
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int wm = (warp >> 1) * 32, wn = (warp & 1) * 64;

    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[2][4];
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 4; ++j) wmma::fill_fragment(acc[i][j], 0.0f);

    const __half zero = __float2half(0.0f);
    for (int k0 = 0; k0 < K; k0 += TK) {
        {   // A tile: thread -> row t / 2, 16 columns
            const int r = threadIdx.x >> 1, cb = (threadIdx.x & 1) * 16;
            const int gm = m0 + r;
            for (int e = 0; e < 16; ++e) {
                const int gk = k0 + cb + e;
                sa[r * LDA + cb + e] = (gm < M && gk < K) ? a[(size_t)gm * K + gk] : zero;
            }
        }
        {   // B tile: thread -> row t / 8, 16 columns
            const int r = threadIdx.x >> 3, cb = (threadIdx.x & 7) * 16;
            const int gk = k0 + r;
            for (int e = 0; e < 16; ++e) {
                const int gn = n0 + cb + e;
                sb[r * LDB + cb + e] = (gk < K && gn < N) ? b[(size_t)gk * N + gn] : zero;
            }
        }
        __syncthreads();
        for (int kk = 0; kk < TK; kk += 16) {
            wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> fa[2];
            wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> fb[4];
            for (int i = 0; i < 2; ++i) wmma::load_matrix_sync(fa[i], sa + (wm + 16 * i) * LDA + kk, LDA);
            for (int j = 0; j < 4; ++j) wmma::load_matrix_sync(fb[j], sb + kk * LDB + wn + 16 * j, LDB);
            for (int i = 0; i < 2; ++i)
                for (int j = 0; j < 4; ++j) wmma::mma_sync(acc[i][j], fa[i], fb[j], acc[i][j]);
        }
        __syncthreads();
    }

    // epilogue: each fragment goes through a per-warp 16 x 16 float buffer
    for (int i = 0; i < 2; ++i) {
        for (int j = 0; j < 4; ++j) {
            wmma::store_matrix_sync(stage[warp], acc[i][j], 16, wmma::mem_row_major);
            __syncwarp();
            for (int e = lane; e < 256; e += 32) {
                const int r = m0 + wm + 16 * i + e / 16, col = n0 + wn + 16 * j + e % 16;
                if (r < M && col < N) c[(size_t)r * N + col] = __float2half_rn(stage[warp][e]);
            }
            __syncwarp();
        }
    }
}
