// Golden kernel: O = softmax(Q K^T * scale + causal mask) V; query i attends to keys j <= i, float16 in and out,
// float32 scores and softmax state, head dim 64.
//
// Layout: Q, K, V, O are [batch, heads, S, 64] float16, contiguous; one (batch, head) pair is a
// contiguous [S, 64] matrix at offset (b * heads + h) * S * 64.
//
// Flash-attention-2 style forward pass. A CTA owns 128 query rows of one (batch, head) and 4 warps,
// 32 query rows per warp (two 16-row blocks, so every K and V fragment loaded with ldmatrix feeds
// two mma.sync); 253 registers per thread, 2 CTAs per SM. Q fragments stay in registers; K and V
// tiles of 64 keys are double-buffered in shared memory with cp.async (the next tile is fetched
// while the current one is used).
// Scheduling: the grid is (cdiv(S, 128), batch * heads), but a CTA's linear launch index is mapped
// to (query block, head) so that the longest query blocks of all heads start first (longest-
// processing-time order), which removes the causal tail.
// Per key tile: S = Q K^T with mma.sync m16n8k16 (f32 accumulators); masking (keys >= S, keys > query)
// only on tiles that cross the diagonal or the end of the sequence; tiles whose keys all lie after
// every row of a warp are skipped by that warp. Online softmax in float32 with the running row max
// m kept in raw score units and exp2(s * scale * log2 e - m * scale * log2 e) done as one FMA + ex2
// (a negative scale is folded into Q's sign once); the per-thread partial row sum l is reduced
// across the quad at the end. P is rounded to half and reused straight from the accumulator
// registers as the A operand of O += P V (V read with ldmatrix.trans). At the end O is divided by
// the row sum and written through shared memory with 16-byte stores.
// Shared-memory rows are 64 halves = 128 bytes = 8 chunks of 16 bytes; chunk c of row r is stored
// at chunk c ^ (r & 7) so that ldmatrix phases are free of bank conflicts.

#include <cuda_fp16.h>


#define ATT_MI 2            // 16-row blocks per warp
#define ATT_NW 4            // warps per CTA: ATT_NW * 16 * ATT_MI = ATT_BM rows
#define ATT_MINB 2          // CTAs per SM the register budget is sized for

template <int MI, int NW>
__device__ __forceinline__ void attention_causal_body(const __half* __restrict__ Q, const __half* __restrict__ K,
                                                      const __half* __restrict__ V, __half* __restrict__ O,
                                                      float scale, int S)
{
    constexpr int NT = 32 * NW;
    extern __shared__ __align__(128) unsigned char att_smem[];
    const unsigned int sbase = smem_u32(att_smem);
    const unsigned int q_s = sbase;
    unsigned char* const q_p = att_smem;

    // Longest query blocks first over all (batch, head) pairs: CTAs start in linear order
    // (blockIdx.x fastest), and the first gridDim.y of them take the last query block of every head.
    const int nqb = (int)gridDim.x, nbh = (int)gridDim.y;
    const int lin = (int)blockIdx.y * nqb + (int)blockIdx.x;
    const int qb = nqb - 1 - lin / nbh;
    const int q0 = qb * ATT_BM;
    const size_t bh = (size_t)(lin % nbh) * (size_t)S * ATT_D;
    Q += bh; K += bh; V += bh; O += bh;
    const bool vec = ((((unsigned long long)Q) | ((unsigned long long)K) | ((unsigned long long)V) |
                       ((unsigned long long)O)) & 15ull) == 0;

    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int g = lane >> 2, t = lane & 3;
    const int wq0 = q0 + warp * 16 * MI;      // first query row of this warp
    const int kv_end = min(S, q0 + ATT_BM);
    const int ntiles = (kv_end + ATT_BN - 1) / ATT_BN;

    att_first_tiles<NT>(sbase, att_smem, Q, K, V, S, q0, vec);

    float o[MI][8][4];
#pragma unroll
    for (int mi = 0; mi < MI; mi++) att_zero(o[mi]);
    float m[MI][2], l[MI][2];   // running max (raw score units) and partial row sums
#pragma unroll
    for (int mi = 0; mi < MI; mi++)
#pragma unroll
        for (int r = 0; r < 2; r++) { m[mi][r] = ATT_NEG_INF; l[mi][r] = 0.0f; }
    unsigned int qf[MI][4][4];
    // scores in log2 units are s * sl2 with sl2 >= 0: a negative scale is folded into Q's sign
    float sl2 = scale * 1.4426950408889634f;
    const unsigned int qflip = sl2 < 0.0f ? 0x80008000u : 0u;
    sl2 = fabsf(sl2);

    for (int j = 0; j < ntiles; j++) {
        att_next_tile<NT>(j, ntiles, sbase, att_smem, K, V, S, vec);
        if (j == 0) {
#pragma unroll
            for (int mi = 0; mi < MI; mi++)
#pragma unroll
                for (int kc = 0; kc < 4; kc++) {
                    ldsm_x4(q_s + att_off(warp * 16 * MI + mi * 16 + (lane & 15), kc * 2 + (lane >> 4)),
                            qf[mi][kc][0], qf[mi][kc][1], qf[mi][kc][2], qf[mi][kc][3]);
#pragma unroll
                    for (int x = 0; x < 4; x++) qf[mi][kc][x] ^= qflip;
                }
        }
        const int k0 = j * ATT_BN;
        // every key of this tile is after every query row of this warp: nothing to do (the tiles
        // after it are skipped too; the warp still joins the barriers)
        if (k0 > wq0 + 16 * MI - 1) continue;
        const unsigned int kb = sbase + ATT_Q_BYTES + (unsigned int)(j & 1) * ATT_KV_BYTES;
        const unsigned int vb = kb + 2 * ATT_KV_BYTES;

        // S = Q K^T for 16 MI rows x 64 keys per warp; each K fragment feeds MI row blocks
        float s[MI][8][4];
        att_qk<MI>(s, qf, kb, lane);

#pragma unroll
        for (int mi = 0; mi < MI; mi++) {
            const int r0 = wq0 + mi * 16;
            // mask (raw scores): keys >= S, keys after the query row; only on tiles that need it
            if ((k0 + ATT_BN > S) || (k0 + ATT_BN - 1 > r0)) {
#pragma unroll
                for (int ni = 0; ni < 8; ni++)
#pragma unroll
                    for (int e = 0; e < 4; e++) {
                        const int key = k0 + ni * 8 + 2 * t + (e & 1);
                        const int qrow = r0 + g + 8 * (e >> 1);
                        if (key >= S || key > qrow) s[mi][ni][e] = ATT_NEG_INF;
                    }
            }
            // online softmax; thread holds rows g (r = 0) and g + 8 (r = 1), a quad shares a row
#pragma unroll
            for (int r = 0; r < 2; r++) {
                float mx = ATT_NEG_INF;
#pragma unroll
                for (int ni = 0; ni < 8; ni++) mx = fmaxf(mx, fmaxf(s[mi][ni][2 * r], s[mi][ni][2 * r + 1]));
                mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
                mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 2));
                const float m_new = fmaxf(m[mi][r], mx);
                const float m_use = m_new == ATT_NEG_INF ? 0.0f : m_new * sl2;   // log2 units
                const float alpha = ex2(fmaf(m[mi][r], sl2, -m_use));
                m[mi][r] = m_new;
                float rs = 0.0f;
#pragma unroll
                for (int ni = 0; ni < 8; ni++) {
                    const float p0 = ex2(fmaf(s[mi][ni][2 * r], sl2, -m_use));
                    const float p1 = ex2(fmaf(s[mi][ni][2 * r + 1], sl2, -m_use));
                    s[mi][ni][2 * r] = p0;
                    s[mi][ni][2 * r + 1] = p1;
                    rs += p0 + p1;
                }
                l[mi][r] = l[mi][r] * alpha + rs;
#pragma unroll
                for (int dn = 0; dn < 8; dn++) {
                    o[mi][dn][2 * r] *= alpha;
                    o[mi][dn][2 * r + 1] *= alpha;
                }
            }
        }

        // O += P V: P (16 x 64 per row block, half) from the score registers, V via ldmatrix.trans,
        // each V fragment feeds MI row blocks
#pragma unroll
        for (int kc = 0; kc < 4; kc++) {
            unsigned int pa[MI][4];
#pragma unroll
            for (int mi = 0; mi < MI; mi++) {
                pa[mi][0] = pack_half2(s[mi][2 * kc][0], s[mi][2 * kc][1]);
                pa[mi][1] = pack_half2(s[mi][2 * kc][2], s[mi][2 * kc][3]);
                pa[mi][2] = pack_half2(s[mi][2 * kc + 1][0], s[mi][2 * kc + 1][1]);
                pa[mi][3] = pack_half2(s[mi][2 * kc + 1][2], s[mi][2 * kc + 1][3]);
            }
#pragma unroll
            for (int dj = 0; dj < 4; dj++) {
                unsigned int b0, b1, b2, b3;
                ldsm_x4_t(vb + att_off(kc * 16 + (lane & 7) + (((lane >> 3) & 1) << 3), dj * 2 + (lane >> 4)),
                          b0, b1, b2, b3);
#pragma unroll
                for (int mi = 0; mi < MI; mi++) {
                    mma_f16(o[mi][2 * dj], pa[mi], b0, b1);
                    mma_f16(o[mi][2 * dj + 1], pa[mi], b2, b3);
                }
            }
        }
    }
    cp_async_wait_all();

    // normalise, stage this warp's 16 MI x 64 block in its own Q rows, then 16-byte stores
#pragma unroll
    for (int mi = 0; mi < MI; mi++)
#pragma unroll
        for (int r = 0; r < 2; r++) {
            l[mi][r] += __shfl_xor_sync(0xffffffffu, l[mi][r], 1);
            l[mi][r] += __shfl_xor_sync(0xffffffffu, l[mi][r], 2);
            l[mi][r] = 1.0f / l[mi][r];
        }
#pragma unroll
    for (int mi = 0; mi < MI; mi++)
#pragma unroll
        for (int dn = 0; dn < 8; dn++)
#pragma unroll
            for (int r = 0; r < 2; r++) {
                const int row = warp * 16 * MI + mi * 16 + g + 8 * r;
                *reinterpret_cast<unsigned int*>(q_p + att_off(row, dn) + t * 4) =
                    pack_half2(o[mi][dn][2 * r] * l[mi][r], o[mi][dn][2 * r + 1] * l[mi][r]);
            }
    __syncwarp();
    att_store_rows<4 * MI>(q_p, O, S, wq0, warp * 16 * MI, lane, vec);
}

extern "C" __global__ void __launch_bounds__(32 * ATT_NW, ATT_MINB)
attention_causal_f16(const __half* __restrict__ Q, const __half* __restrict__ K, const __half* __restrict__ V,
   __half* __restrict__ O, float scale, int S)
{
    attention_causal_body<ATT_MI, ATT_NW>(Q, K, V, O, scale, S);
}
