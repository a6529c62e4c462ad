#include <cuda_fp16.h>

// Each block covers a 32 x 32 tile: threadIdx.x walks the columns of the input (coalesced reads),
// threadIdx.y walks 4 groups of 8 rows.
extern "C" __global__ void matrix_transpose(const __half* __restrict__ matrix, __half* __restrict__ out,
                                            int m, int n)
{
    int col = blockIdx.y * 32 + threadIdx.x;
    for (int r = threadIdx.y; r < 32; r += 8) {
        int row = blockIdx.x * 32 + r;
        if (row < m && col < n) {
            out[(size_t)col * m + row] = matrix[(size_t)row * n + col];
        }
    }
}
