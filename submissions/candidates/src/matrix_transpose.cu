#include <cuda_fp16.h>

// Classic shared-memory transpose on the default launch: grid (cdiv(m, 32), cdiv(n, 32)),
// block (32, 8). The 32 x 33 tile padding keeps the column reads free of bank conflicts;
// both the global reads and the global writes are coalesced.
extern "C" __global__ void matrix_transpose(const __half* __restrict__ matrix, __half* __restrict__ out,
                                            int m, int n)
{
    __shared__ __half tile[32][33];
    const int r0 = blockIdx.x * 32, c0 = blockIdx.y * 32;
    for (int r = threadIdx.y; r < 32; r += 8) {
        const int row = r0 + r, col = c0 + threadIdx.x;
        if (row < m && col < n) tile[r][threadIdx.x] = matrix[(size_t)row * n + col];
    }
    __syncthreads();
    for (int c = threadIdx.y; c < 32; c += 8) {
        const int orow = c0 + c, ocol = r0 + threadIdx.x;
        if (orow < n && ocol < m) out[(size_t)orow * m + ocol] = tile[threadIdx.x][c];
    }
}
