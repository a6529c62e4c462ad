// Golden kernel: O = softmax(Q K^T * scale) V, non-causal, float16 in and out,
// float32 scores and softmax state, head dim 64.
//
// Layout: Q, K, V, O are [batch, heads, S, 64] float16, contiguous; one (batch, head) pair is a
// contiguous [S, 64] matrix at offset (b * heads + h) * S * 64.
//
// Flash-attention-2 style forward pass. A CTA owns 128 query rows of one (batch, head) and 8 warps,
// 16 query rows per warp. Q fragments stay in registers; K and V tiles of 64 keys are double-
// buffered in shared memory with cp.async (the next tile is fetched while the current one is used).
// Per tile: S = Q K^T with mma.sync m16n8k16 (f32 accumulators), scale folded into log2 units,
// masking (keys >= S, and keys > query in the causal variant), online softmax with the running row
// max m and the per-thread partial row sum l in float32, P rounded to half and reused straight from
// the accumulator registers as the A operand of O += P V (V read with ldmatrix.trans). At the end O
// is divided by the row sum and written through shared memory with 16-byte stores.
// Shared-memory rows are 64 halves = 128 bytes = 8 chunks of 16 bytes; chunk c of row r is stored
// at chunk c ^ (r & 7) so that ldmatrix phases are free of bank conflicts.

#include <cuda_fp16.h>

#define ATT_THREADS 256

template <bool CAUSAL>
__device__ __forceinline__ void attention_body(const __half* __restrict__ Q, const __half* __restrict__ K,
                                               const __half* __restrict__ V, __half* __restrict__ O,
                                               float scale, int S)
{
    extern __shared__ __align__(128) unsigned char att_smem[];
    const unsigned int sbase = smem_u32(att_smem);
    const unsigned int q_s = sbase;
    unsigned char* const q_p = att_smem;

    // causal: launch the longest query blocks first
    const int qb = CAUSAL ? (int)(gridDim.x - 1 - blockIdx.x) : (int)blockIdx.x;
    const int q0 = qb * ATT_BM;
    const size_t bh = (size_t)blockIdx.y * (size_t)S * ATT_D;
    Q += bh; K += bh; V += bh; O += bh;
    const bool vec = ((((unsigned long long)Q) | ((unsigned long long)K) | ((unsigned long long)V) |
                       ((unsigned long long)O)) & 15ull) == 0;

    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int g = lane >> 2, t = lane & 3;
    const int wq0 = q0 + warp * 16;           // first query row of this warp
    const int kv_end = CAUSAL ? min(S, q0 + ATT_BM) : S;
    const int ntiles = (kv_end + ATT_BN - 1) / ATT_BN;

    att_first_tiles<ATT_THREADS>(sbase, att_smem, Q, K, V, S, q0, vec);

    float o[8][4];
    att_zero(o);
    float m[2] = { ATT_NEG_INF, ATT_NEG_INF }, l[2] = { 0.0f, 0.0f };
    unsigned int qf1[1][4][4];   // one 16-row block (att_qk)
    unsigned int (&qf)[4][4] = qf1[0];
    const float sl2 = scale * 1.4426950408889634f;  // scores in log2 units

    for (int j = 0; j < ntiles; j++) {
        att_next_tile<ATT_THREADS>(j, ntiles, sbase, att_smem, K, V, S, vec);
        if (j == 0) {
#pragma unroll
            for (int kc = 0; kc < 4; kc++)
                ldsm_x4(q_s + att_off(warp * 16 + (lane & 15), kc * 2 + (lane >> 4)),
                        qf[kc][0], qf[kc][1], qf[kc][2], qf[kc][3]);
        }
        const unsigned int kb = sbase + ATT_Q_BYTES + (unsigned int)(j & 1) * ATT_KV_BYTES;
        const unsigned int vb = kb + 2 * ATT_KV_BYTES;

        // S = Q K^T for 16 rows x 64 keys per warp
        float s1[1][8][4];
        float (&s)[8][4] = s1[0];
        att_qk<1>(s1, qf1, kb, lane);

        // scale and mask
        const int k0 = j * ATT_BN;
        const bool need_mask = (k0 + ATT_BN > S) || (CAUSAL && k0 + ATT_BN - 1 > wq0);
#pragma unroll
        for (int ni = 0; ni < 8; ni++) {
#pragma unroll
            for (int e = 0; e < 4; e++) {
                float v = s[ni][e] * sl2;
                if (need_mask) {
                    const int key = k0 + ni * 8 + 2 * t + (e & 1);
                    const int qrow = wq0 + g + 8 * (e >> 1);
                    if (key >= S || (CAUSAL && key > qrow)) v = ATT_NEG_INF;
                }
                s[ni][e] = v;
            }
        }

        // online softmax; thread holds rows g (r = 0) and g + 8 (r = 1), a quad shares a row
#pragma unroll
        for (int r = 0; r < 2; r++) {
            float mx = ATT_NEG_INF;
#pragma unroll
            for (int ni = 0; ni < 8; ni++) mx = fmaxf(mx, fmaxf(s[ni][2 * r], s[ni][2 * r + 1]));
            mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
            mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 2));
            const float m_new = fmaxf(m[r], mx);
            const float m_use = m_new == ATT_NEG_INF ? 0.0f : m_new;
            const float alpha = ex2(m[r] - m_use);
            m[r] = m_new;
            float rs = 0.0f;
#pragma unroll
            for (int ni = 0; ni < 8; ni++) {
                const float p0 = ex2(s[ni][2 * r] - m_use), p1 = ex2(s[ni][2 * r + 1] - m_use);
                s[ni][2 * r] = p0;
                s[ni][2 * r + 1] = p1;
                rs += p0 + p1;
            }
            l[r] = l[r] * alpha + rs;
#pragma unroll
            for (int dn = 0; dn < 8; dn++) {
                o[dn][2 * r] *= alpha;
                o[dn][2 * r + 1] *= alpha;
            }
        }

        // O += P V: P (16 x 64, half) from the score registers, V via ldmatrix.trans
#pragma unroll
        for (int kc = 0; kc < 4; kc++) {
            unsigned int pa[4];
            pa[0] = pack_half2(s[2 * kc][0], s[2 * kc][1]);
            pa[1] = pack_half2(s[2 * kc][2], s[2 * kc][3]);
            pa[2] = pack_half2(s[2 * kc + 1][0], s[2 * kc + 1][1]);
            pa[3] = pack_half2(s[2 * kc + 1][2], s[2 * kc + 1][3]);
#pragma unroll
            for (int dj = 0; dj < 4; dj++) {
                unsigned int b0, b1, b2, b3;
                ldsm_x4_t(vb + att_off(kc * 16 + (lane & 7) + (((lane >> 3) & 1) << 3), dj * 2 + (lane >> 4)),
                          b0, b1, b2, b3);
                mma_f16(o[2 * dj], pa, b0, b1);
                mma_f16(o[2 * dj + 1], pa, b2, b3);
            }
        }
    }
    cp_async_wait_all();

    // normalise, stage this warp's 16 x 64 block in its own Q rows, then 16-byte stores
#pragma unroll
    for (int r = 0; r < 2; r++) {
        l[r] += __shfl_xor_sync(0xffffffffu, l[r], 1);
        l[r] += __shfl_xor_sync(0xffffffffu, l[r], 2);
        l[r] = 1.0f / l[r];
    }
#pragma unroll
    for (int dn = 0; dn < 8; dn++) {
#pragma unroll
        for (int r = 0; r < 2; r++) {
            const int row = warp * 16 + g + 8 * r;
            *reinterpret_cast<unsigned int*>(q_p + att_off(row, dn) + t * 4) =
                pack_half2(o[dn][2 * r] * l[r], o[dn][2 * r + 1] * l[r]);
        }
    }
    __syncwarp();
    att_store_rows<4>(q_p, O, S, wq0, warp * 16, lane, vec);
}

extern "C" __global__ void __launch_bounds__(ATT_THREADS, 2)
attention_fwd_f16(const __half* __restrict__ Q, const __half* __restrict__ K, const __half* __restrict__ V,
   __half* __restrict__ O, float scale, int S)
{
    attention_body<false>(Q, K, V, O, scale, S);
}
