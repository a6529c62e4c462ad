// Golden kernel for transpose_batched_f16: out[b, c, r] = in[b, r, c] for a batch of B row-major
// [R, C] float16 matrices (the result is [B, C, R], row-major). Pure data movement: exact.
//
// Each block moves one 64 x 64 tile (grid = (cdiv(C, 64), cdiv(R, 64), B)) through shared memory
// so that both the global reads (along c) and the global writes (along r) are contiguous:
//  - fast path (R % 8 == 0, C % 8 == 0, both pointers 16-byte aligned): every global access is
//    a 16-byte vector of 8 halves; a thread reads a row segment of 8 halves and stores it as 4
//    words, then gathers 8 halves of one output row (a column of the tile) and writes them as
//    one vector. The tile rows are padded to 66 halves (33 words) so the column gather has at
//    most a 2-way bank conflict;
//  - general path: the same tile element by element (16 per thread), bank-conflict free.
// Partial tiles at the right and bottom edges are bounds-checked. Every index is 64-bit.
// Works for any blockDim.x (the golden launch uses 256 threads).

#include <cuda_fp16.h>

#define TP_TILE 64
#define TP_LDW 33                   // words per padded tile row (66 halves)

extern "C" __global__ void __launch_bounds__(256)
transpose_batched_f16(const __half* __restrict__ x, __half* __restrict__ y, int B, int R, int C)
{
    const unsigned short* __restrict__ in = reinterpret_cast<const unsigned short*>(x);   // raw bits
    unsigned short* __restrict__ out = reinterpret_cast<unsigned short*>(y);
    __shared__ unsigned tile[TP_TILE * TP_LDW];
    unsigned short* th = reinterpret_cast<unsigned short*>(tile);   // half (lr, lc) at lr * 66 + lc

    const int tid = threadIdx.x, nt = blockDim.x;
    const int c0 = blockIdx.x * TP_TILE;
    const int r0 = blockIdx.y * TP_TILE;
    const long long b = blockIdx.z;
    const unsigned short* __restrict__ src = in + b * R * (long long)C;
    unsigned short* __restrict__ dst = out + b * R * (long long)C;
    const bool vec = (R & 7) == 0 && (C & 7) == 0 &&
                     ((reinterpret_cast<unsigned long long>(in) | reinterpret_cast<unsigned long long>(out)) & 15ull) == 0;

    if (vec) {
        // 64 tile rows x 8 vectors: thread -> (lr, lv).
        for (int idx = tid; idx < TP_TILE * 8; idx += nt) {
            const int lr = idx >> 3, lv = idx & 7;
            const int r = r0 + lr, c = c0 + lv * 8;
            if (r < R && c < C) {                             // C % 8 == 0: the whole vector is inside
                const uint4 u = __ldg(reinterpret_cast<const uint4*>(src + (long long)r * C + c));
                unsigned* w = tile + lr * TP_LDW + lv * 4;
                w[0] = u.x;
                w[1] = u.y;
                w[2] = u.z;
                w[3] = u.w;
            }
        }
        __syncthreads();
        // 64 output rows (tile columns) x 8 vectors: thread -> (lc, rv).
        for (int idx = tid; idx < TP_TILE * 8; idx += nt) {
            const int lc = idx >> 3, rv = idx & 7;
            const int c = c0 + lc, r = r0 + rv * 8;
            if (c < C && r < R) {                             // R % 8 == 0: the whole vector is inside
                unsigned h[8];
#pragma unroll
                for (int e = 0; e < 8; ++e) h[e] = th[(rv * 8 + e) * (2 * TP_LDW) + lc];
                uint4 u;
                u.x = h[0] | (h[1] << 16);
                u.y = h[2] | (h[3] << 16);
                u.z = h[4] | (h[5] << 16);
                u.w = h[6] | (h[7] << 16);
                *reinterpret_cast<uint4*>(dst + (long long)c * R + r) = u;
            }
        }
    } else {
        for (int idx = tid; idx < TP_TILE * TP_TILE; idx += nt) {
            const int lr = idx >> 6, lc = idx & 63;
            const int r = r0 + lr, c = c0 + lc;
            if (r < R && c < C) th[lr * (2 * TP_LDW) + lc] = __ldg(src + (long long)r * C + c);
        }
        __syncthreads();
        for (int idx = tid; idx < TP_TILE * TP_TILE; idx += nt) {
            const int lc = idx >> 6, lr = idx & 63;
            const int r = r0 + lr, c = c0 + lc;
            if (r < R && c < C) dst[(long long)c * R + r] = th[lr * (2 * TP_LDW) + lc];
        }
    }
}
