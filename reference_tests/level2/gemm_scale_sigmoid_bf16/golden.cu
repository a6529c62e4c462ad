// Golden kernel: C[m, n] = sigmoid(scale * sum_k A[m, k] * B[n, k]), bfloat16 in and out,
// float32 accumulation on tensor cores; the scale and the sigmoid are applied in float32 in the
// epilogue and the result is rounded to bfloat16 once.
//
#include <cuda_fp16.h>
#include <cuda_bf16.h>

// ---------------------------------------------------------------------------------------------
// Tensor-core GEMM mainloop: C[M, N] = A[M, K] * B[N, K]^T, 16-bit inputs, float32 accumulators.
//
// CTA tile 128 x 128 x 32, 4 warps in a 2 x 2 arrangement, each warp owns a 64 x 64 block of C
// (4 x 8 mma.sync.m16n8k16 tiles, 128 float accumulators per thread). Operand tiles go through a
// 4-stage cp.async pipeline in dynamic shared memory (64 KiB) and are read with ldmatrix.x4.
// Shared-memory rows are 32 elements = 64 bytes = four 16-byte chunks; chunk c of row r is stored
// at chunk c ^ ((r >> 1) & 3), which makes every 8-row ldmatrix phase hit 8 distinct bank groups.
//
// Bounds: rows of A / B past M / N and chunks past K are zero-filled (cp.async with src-size 0),
// so the tail tiles contribute nothing. The 16-byte path needs K % 8 == 0 and 16-byte aligned A
// and B; otherwise tiles are loaded element by element (guarded) into the same pipeline slots.
// CTAs are ordered in groups of 8 tile-rows so that concurrently running CTAs share A and B in L2.
// ---------------------------------------------------------------------------------------------

#define GEMM_BM 128
#define GEMM_BN 128
#define GEMM_BK 32
#define GEMM_STAGES 4
#define GEMM_THREADS 128
#define GEMM_GROUP_M 8
#define GEMM_TILE_BYTES (GEMM_BM * GEMM_BK * 2)  // one operand tile of one stage: 8 KiB
#define GEMM_SMEM_BYTES (GEMM_STAGES * 2 * GEMM_TILE_BYTES)  // 65536

__device__ __forceinline__ unsigned int smem_u32(const void* p)
{
    return (unsigned int)__cvta_generic_to_shared(p);
}

__device__ __forceinline__ void cp_async16(unsigned int dst, const void* src, int src_bytes)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n"
                 :: "r"(dst), "l"(src), "r"(src_bytes) : "memory");
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int N>
__device__ __forceinline__ void cp_async_wait() { asm volatile("cp.async.wait_group %0;\n" :: "n"(N) : "memory"); }

__device__ __forceinline__ void ldmatrix_x4(unsigned int addr, unsigned int& r0, unsigned int& r1,
                                            unsigned int& r2, unsigned int& r3)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(addr));
}

// byte offset of (row, 16-byte chunk) inside one operand tile
__device__ __forceinline__ unsigned int tile_off(int row, int chunk)
{
    return (unsigned int)(row * (GEMM_BK * 2) + ((chunk ^ ((row >> 1) & 3)) << 4));
}

// Loads rows [r0, r0 + 128) x columns [k0, k0 + 32) of a row-major [R, K] matrix into one tile.
template <typename T>
__device__ __forceinline__ void gemm_load_tile(unsigned int tile, unsigned char* tile_ptr,
                                               const T* __restrict__ g, int R, int K,
                                               int r0, int k0, bool vec)
{
#pragma unroll
    for (int i = 0; i < (GEMM_BM * GEMM_BK / 8) / GEMM_THREADS; i++) {
        const int id = threadIdx.x + i * GEMM_THREADS;
        const int row = id >> 2, chunk = id & 3;
        const int gr = r0 + row, gk = k0 + chunk * 8;
        const unsigned int off = tile_off(row, chunk);
        if (vec) {
            const bool ok = gr < R && gk < K;
            const T* src = ok ? g + (size_t)gr * K + gk : g;
            cp_async16(tile + off, src, ok ? 16 : 0);
        } else {
            unsigned short v[8];
#pragma unroll
            for (int j = 0; j < 8; j++) {
                unsigned short e = 0;
                if (gr < R && gk + j < K)
                    e = reinterpret_cast<const unsigned short*>(g)[(size_t)gr * K + gk + j];
                v[j] = e;
            }
            uint4 w;
            w.x = (unsigned int)v[0] | ((unsigned int)v[1] << 16);
            w.y = (unsigned int)v[2] | ((unsigned int)v[3] << 16);
            w.z = (unsigned int)v[4] | ((unsigned int)v[5] << 16);
            w.w = (unsigned int)v[6] | ((unsigned int)v[7] << 16);
            *reinterpret_cast<uint4*>(tile_ptr + off) = w;
        }
    }
}

template <bool BF16>
__device__ __forceinline__ void mma16816(float* c, const unsigned int* a, unsigned int b0, unsigned int b1)
{
    if (BF16)
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
                     "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
                     : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
    else
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
                     "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
                     : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// Maps the 1-D grid to a (tile_m, tile_n) pair, GEMM_GROUP_M tile-rows at a time.
__device__ __forceinline__ void gemm_tile_coords(int M, int N, int& tm, int& tn)
{
    const int tiles_m = (M + GEMM_BM - 1) / GEMM_BM;
    const int tiles_n = (N + GEMM_BN - 1) / GEMM_BN;
    const int pid = blockIdx.x;
    const int group = GEMM_GROUP_M * tiles_n;
    const int first_m = (pid / group) * GEMM_GROUP_M;
    const int gm = min(tiles_m - first_m, GEMM_GROUP_M);
    tm = first_m + (pid % group) % gm;
    tn = (pid % group) / gm;
}

// acc[mi][ni][e]: rows m0 + wm*64 + mi*16 + (lane>>2) + 8*(e>>1), cols n0 + wn*64 + ni*8 + 2*(lane&3) + (e&1)
// The B operand comes from a loader, loadB(tile_addr, tile_ptr, n0, k0, vec), which fills one tile
// (128 rows from n0, 32 columns from k0) in the same swizzled layout.
template <typename T>
struct RowMajorTiles {
    const T* g;
    int R, K;
    __device__ __forceinline__ void operator()(unsigned int tile, unsigned char* tile_ptr, int r0, int k0,
                                               bool vec) const
    {
        gemm_load_tile<T>(tile, tile_ptr, g, R, K, r0, k0, vec);
    }
};

// vec: K % 8 == 0 and every operand 16-byte aligned (selects cp.async over element-wise loads)
template <typename T, bool BF16, typename LoadB>
__device__ __forceinline__ void gemm_mainloop(const T* __restrict__ A, const LoadB& loadB,
                                              int M, int K, int m0, int n0, bool vec,
                                              float (&acc)[4][8][4])
{
    extern __shared__ __align__(128) unsigned char gemm_smem[];
    const unsigned int sbase = smem_u32(gemm_smem);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int wm = warp >> 1, wn = warp & 1;
#pragma unroll
    for (int mi = 0; mi < 4; mi++)
#pragma unroll
        for (int ni = 0; ni < 8; ni++)
#pragma unroll
            for (int e = 0; e < 4; e++) acc[mi][ni][e] = 0.0f;

    const int ktiles = (K + GEMM_BK - 1) / GEMM_BK;
    // stage s: A tile at s * 2 * TILE, B tile right after it
#pragma unroll
    for (int s = 0; s < GEMM_STAGES - 1; s++) {
        if (s < ktiles) {
            const unsigned int a_off = s * 2 * GEMM_TILE_BYTES, b_off = a_off + GEMM_TILE_BYTES;
            gemm_load_tile<T>(sbase + a_off, gemm_smem + a_off, A, M, K, m0, s * GEMM_BK, vec);
            loadB(sbase + b_off, gemm_smem + b_off, n0, s * GEMM_BK, vec);
        }
        cp_async_commit();
    }

    // per-lane ldmatrix coordinates
    const int a_row = wm * 64 + (lane & 15);            // + mi * 16
    const int a_chunk = lane >> 4;                      // + kk * 2
    const int b_row = wn * 64 + (lane & 7) + ((lane >> 4) << 3);  // + nj * 16
    const int b_chunk = (lane >> 3) & 1;                // + kk * 2

    for (int kt = 0; kt < ktiles; kt++) {
        cp_async_wait<GEMM_STAGES - 2>();
        __syncthreads();
        {
            const int nt = kt + GEMM_STAGES - 1;
            if (nt < ktiles) {
                const int s = nt % GEMM_STAGES;
                const unsigned int a_off = s * 2 * GEMM_TILE_BYTES, b_off = a_off + GEMM_TILE_BYTES;
                gemm_load_tile<T>(sbase + a_off, gemm_smem + a_off, A, M, K, m0, nt * GEMM_BK, vec);
                loadB(sbase + b_off, gemm_smem + b_off, n0, nt * GEMM_BK, vec);
            }
            cp_async_commit();
        }
        const int s = kt % GEMM_STAGES;
        const unsigned int a_tile = sbase + s * 2 * GEMM_TILE_BYTES;
        const unsigned int b_tile = a_tile + GEMM_TILE_BYTES;
#pragma unroll
        for (int kk = 0; kk < GEMM_BK / 16; kk++) {
            unsigned int af[4][4], bf[8][2];
#pragma unroll
            for (int mi = 0; mi < 4; mi++)
                ldmatrix_x4(a_tile + tile_off(a_row + mi * 16, a_chunk + kk * 2),
                            af[mi][0], af[mi][1], af[mi][2], af[mi][3]);
#pragma unroll
            for (int nj = 0; nj < 4; nj++)
                ldmatrix_x4(b_tile + tile_off(b_row + nj * 16, b_chunk + kk * 2),
                            bf[2 * nj][0], bf[2 * nj][1], bf[2 * nj + 1][0], bf[2 * nj + 1][1]);
#pragma unroll
            for (int mi = 0; mi < 4; mi++)
#pragma unroll
                for (int ni = 0; ni < 8; ni++)
                    mma16816<BF16>(acc[mi][ni], af[mi], bf[ni][0], bf[ni][1]);
        }
    }
    cp_async_wait<0>();
}

__device__ __forceinline__ void store1(__half* p, float v) { *p = __float2half_rn(v); }
__device__ __forceinline__ void store2(__half* p, float a, float b)
{
    *reinterpret_cast<__half2*>(p) = __floats2half2_rn(a, b);
}
__device__ __forceinline__ void store1(__nv_bfloat16* p, float v) { *p = __float2bfloat16_rn(v); }
__device__ __forceinline__ void store2(__nv_bfloat16* p, float a, float b)
{
    *reinterpret_cast<__nv_bfloat162*>(p) = __floats2bfloat162_rn(a, b);
}

// Applies op(value, col) to every accumulator and stores 16-bit results; pairs of columns are
// stored as one 32-bit word when N is even and C is 4-byte aligned, otherwise element by element.
template <typename T, typename Op>
__device__ __forceinline__ void gemm_store(T* __restrict__ C, int M, int N, int m0, int n0,
                                           float (&acc)[4][8][4], Op op)
{
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int wm = warp >> 1, wn = warp & 1;
    const bool pair_ok = (N & 1) == 0 && (((unsigned long long)C) & 3ull) == 0;
#pragma unroll
    for (int mi = 0; mi < 4; mi++) {
#pragma unroll
        for (int h = 0; h < 2; h++) {
            const int row = m0 + wm * 64 + mi * 16 + (lane >> 2) + h * 8;
            if (row >= M) continue;
            T* crow = C + (size_t)row * N;
#pragma unroll
            for (int ni = 0; ni < 8; ni++) {
                const int col = n0 + wn * 64 + ni * 8 + 2 * (lane & 3);
                const float v0 = acc[mi][ni][2 * h], v1 = acc[mi][ni][2 * h + 1];
                if (pair_ok && col + 1 < N) {
                    store2(crow + col, op(v0, col), op(v1, col + 1));
                } else {
                    if (col < N) store1(crow + col, op(v0, col));
                    if (col + 1 < N) store1(crow + col + 1, op(v1, col + 1));
                }
            }
        }
    }
}

struct ScaleSigmoid {
    float scale;
    __device__ __forceinline__ float operator()(float v, int) const
    {
        return 1.0f / (1.0f + __expf(-scale * v));
    }
};

extern "C" __global__ void __launch_bounds__(GEMM_THREADS, 2)
gemm_scale_sigmoid_bf16(const __nv_bfloat16* __restrict__ A, const __nv_bfloat16* __restrict__ B,
                        __nv_bfloat16* __restrict__ C, float scale, int M, int N, int K)
{
    int tm, tn;
    gemm_tile_coords(M, N, tm, tn);
    const int m0 = tm * GEMM_BM, n0 = tn * GEMM_BN;
    float acc[4][8][4];
    const bool vec = (K & 7) == 0 && ((((unsigned long long)A) | ((unsigned long long)B)) & 15ull) == 0;
    const RowMajorTiles<__nv_bfloat16> loadB{B, N, K};
    gemm_mainloop<__nv_bfloat16, true>(A, loadB, M, K, m0, n0, vec, acc);
    ScaleSigmoid op{scale};
    gemm_store<__nv_bfloat16>(C, M, N, m0, n0, acc, op);
}
