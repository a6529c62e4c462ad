// attention.cuh: the tiles of the flash-attention goldens attention_fwd_f16 and attention_causal_f16
// (docs/problem-format.md, golden_prelude; after mma_sync.cuh). Head dim 64, CTA tiles of ATT_BM
// query rows and ATT_BN keys. Shared-memory rows are 64 halves = 128 bytes = 8 chunks of 16 bytes;
// chunk c of row r is stored at chunk c ^ (r & 7) so that ldmatrix phases are free of bank
// conflicts.

#define ATT_D 64
#define ATT_BM 128
#define ATT_BN 64
#define ATT_Q_BYTES (ATT_BM * ATT_D * 2)      // 16384
#define ATT_KV_BYTES (ATT_BN * ATT_D * 2)     // 8192 per tile
#define ATT_SMEM_BYTES (ATT_Q_BYTES + 4 * ATT_KV_BYTES)  // 49152
#define ATT_NEG_INF __int_as_float(0xff800000)

// byte offset of (row, 16-byte chunk) in a tile of 128-byte rows
__device__ __forceinline__ unsigned int att_off(int row, int chunk)
{
    return (unsigned int)(row * 128 + ((chunk ^ (row & 7)) << 4));
}

// Loads rows [r0, r0 + NROWS) of a [S, 64] matrix into a tile with NT threads; rows >= S become zeros.
template <int NROWS, int NT>
__device__ __forceinline__ void att_load_t(unsigned int tile, unsigned char* tile_ptr,
                                           const __half* __restrict__ g, int S, int r0, bool vec)
{
#pragma unroll
    for (int i = 0; i < NROWS * 8 / NT; i++) {
        const int id = threadIdx.x + i * NT;
        const int row = id >> 3, chunk = id & 7;
        const int gr = r0 + row;
        const unsigned int off = att_off(row, chunk);
        if (vec) {
            const bool ok = gr < S;
            cp_async16(tile + off, ok ? g + (size_t)gr * ATT_D + chunk * 8 : g, ok ? 16 : 0);
        } else {
            unsigned short v[8];
#pragma unroll
            for (int j = 0; j < 8; j++)
                v[j] = gr < S ? reinterpret_cast<const unsigned short*>(g)[(size_t)gr * ATT_D + chunk * 8 + j] : 0;
            *reinterpret_cast<uint4*>(tile_ptr + off) = pack8_u16(v);
        }
    }
}

// Copies a warp's output block, staged in its own rows of the Q tile (q_p, from row srow0), to rows
// wq0, wq0 + 1, ... of O with 16-byte stores (element by element when !vec); rows >= S are skipped.
// NI rounds of 32 lanes, 8 rows a round.
template <int NI>
__device__ __forceinline__ void att_store_rows(const unsigned char* q_p, __half* __restrict__ O, int S, int wq0,
                                               int srow0, int lane, bool vec)
{
#pragma unroll
    for (int i = 0; i < NI; i++) {
        const int id = lane + i * 32;
        const int row = id >> 3, chunk = id & 7;
        const int grow = wq0 + row;
        if (grow < S) {
            const uint4 w = *reinterpret_cast<const uint4*>(q_p + att_off(srow0 + row, chunk));
            __half* dst = O + (size_t)grow * ATT_D + chunk * 8;
            if (vec) {
                *reinterpret_cast<uint4*>(dst) = w;
            } else {
                const unsigned short* e = reinterpret_cast<const unsigned short*>(&w);
#pragma unroll
                for (int jj = 0; jj < 8; jj++) reinterpret_cast<unsigned short*>(dst)[jj] = e[jj];
            }
        }
    }
}

// Waits for K and V tile j (and everyone's reads of tile j - 1), then starts the copy of tile j + 1
// into the other buffer (double buffering: tile j lives at byte offset (j & 1) * ATT_KV_BYTES of
// the K and V areas after the Q tile).
template <int NT>
__device__ __forceinline__ void att_next_tile(int j, int ntiles, unsigned int sbase, unsigned char* smem,
                                              const __half* __restrict__ K, const __half* __restrict__ V, int S,
                                              bool vec)
{
    cp_async_wait_all();
    __syncthreads();  // tile j visible to all; everyone is done with tile j - 1's buffers
    if (j + 1 < ntiles) {
        const unsigned int nb = (unsigned int)((j + 1) & 1) * ATT_KV_BYTES;
        att_load_t<ATT_BN, NT>(sbase + ATT_Q_BYTES + nb, smem + ATT_Q_BYTES + nb, K, S, (j + 1) * ATT_BN, vec);
        att_load_t<ATT_BN, NT>(sbase + ATT_Q_BYTES + 2 * ATT_KV_BYTES + nb, smem + ATT_Q_BYTES + 2 * ATT_KV_BYTES + nb,
                               V, S, (j + 1) * ATT_BN, vec);
    }
    cp_async_commit();
}

// Starts the copies of the Q tile (query rows q0..) and of K and V tile 0, as one cp.async group.
template <int NT>
__device__ __forceinline__ void att_first_tiles(unsigned int sbase, unsigned char* smem, const __half* __restrict__ Q,
                                                const __half* __restrict__ K, const __half* __restrict__ V, int S,
                                                int q0, bool vec)
{
    att_load_t<ATT_BM, NT>(sbase, smem, Q, S, q0, vec);
    att_load_t<ATT_BN, NT>(sbase + ATT_Q_BYTES, smem + ATT_Q_BYTES, K, S, 0, vec);
    att_load_t<ATT_BN, NT>(sbase + ATT_Q_BYTES + 2 * ATT_KV_BYTES, smem + ATT_Q_BYTES + 2 * ATT_KV_BYTES, V, S, 0, vec);
    cp_async_commit();
}

// Zeroes the accumulators of one 16-row block: 8 column blocks of 8 x 4 per thread.
__device__ __forceinline__ void att_zero(float (&a)[8][4])
{
#pragma unroll
    for (int i = 0; i < 8; i++)
#pragma unroll
        for (int e = 0; e < 4; e++) a[i][e] = 0.0f;
}

// The K fragments (B operand of S = Q K^T) of keys nj * 16 .. nj * 16 + 15, k-chunk kc, of the K
// tile at kb.
__device__ __forceinline__ void att_ldsm_k(unsigned int kb, int nj, int kc, int lane, unsigned int& b0,
                                           unsigned int& b1, unsigned int& b2, unsigned int& b3)
{
    ldsm_x4(kb + att_off(nj * 16 + (lane & 7) + ((lane >> 4) << 3), kc * 2 + ((lane >> 3) & 1)), b0, b1, b2, b3);
}

// S = Q K^T for MI 16-row blocks x 64 keys of the K tile at kb, from zero; each K fragment feeds the
// MI row blocks.
template <int MI>
__device__ __forceinline__ void att_qk(float (&s)[MI][8][4], const unsigned int (&qf)[MI][4][4], unsigned int kb,
                                       int lane)
{
#pragma unroll
    for (int mi = 0; mi < MI; mi++) att_zero(s[mi]);
#pragma unroll
    for (int kc = 0; kc < 4; kc++) {
#pragma unroll
        for (int nj = 0; nj < 4; nj++) {
            unsigned int b0, b1, b2, b3;
            att_ldsm_k(kb, nj, kc, lane, b0, b1, b2, b3);
#pragma unroll
            for (int mi = 0; mi < MI; mi++) {
                mma_f16(s[mi][2 * nj], qf[mi][kc], b0, b1);
                mma_f16(s[mi][2 * nj + 1], qf[mi][kc], b2, b3);
            }
        }
    }
}
