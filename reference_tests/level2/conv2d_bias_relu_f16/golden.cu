// Golden kernels: out = relu(conv2d(x, w, padding 1) + bias), NCHW, 3x3, stride 1, float16 in and
// out, float32 accumulation on tensor cores (implicit GEMM). Three launches (see golden_launch):
//
//  1. conv_pack_input: x [N, C, H, W] -> xp [N, H + 2, W + 2, Cp] (NHWC with a zero border of one
//     pixel and channels zero-padded to Cp = align(C, 8)), through a 32 x 32 shared-memory transpose.
//  2. conv_pack_weight: w [K, C, 3, 3] -> wp [K, 9 * Cp], column (r * 3 + s) * Cp + c (zero for c >= C).
//  3. conv2d_bias_relu_f16_igemm: out^T as a GEMM, rows = output channels k (M = K), columns =
//     output pixels p = (n, oh, ow) (N = N * H * W), reduction kk = (r, s, c) (K = 9 * Cp):
//         acc[k, p] = sum_kk wp[k, kk] * xp[n, oh + r, ow + s, c]
//     wp tiles are plain row-major tiles; xp tiles are gathered row by row (each 16-byte chunk of 8
//     channels is contiguous in xp because Cp % 8 == 0, and the zero border removes every bounds
//     check on h and w). The epilogue adds bias[k], applies ReLU and writes out[n, k, oh, ow].
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
            *reinterpret_cast<uint4*>(tile_ptr + off) = pack8_u16(v);
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
                ldsm_x4(a_tile + tile_off(a_row + mi * 16, a_chunk + kk * 2),
                            af[mi][0], af[mi][1], af[mi][2], af[mi][3]);
#pragma unroll
            for (int nj = 0; nj < 4; nj++)
                ldsm_x4(b_tile + tile_off(b_row + nj * 16, b_chunk + kk * 2),
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

// Gathers im2col tiles of the padded NHWC input: row p of the virtual [N*H*W, 9*Cp] matrix.
struct ConvTiles {
    const __half* xp;
    int P, HW, W, Wp, Hp, Cp, Kg;
    long long pix[4];  // element offset of xp[n, oh, ow, 0] for this thread's 4 rows
    bool ok[4];

    __device__ __forceinline__ void init(int n0)
    {
#pragma unroll
        for (int i = 0; i < 4; i++) {
            const int row = (threadIdx.x + i * GEMM_THREADS) >> 2;
            const int p = n0 + row;
            ok[i] = p < P;
            pix[i] = 0;
            if (ok[i]) {
                const int n = p / HW, rem = p - n * HW;
                const int oh = rem / W, ow = rem - oh * W;
                pix[i] = (((long long)n * Hp + oh) * Wp + ow) * Cp;
            }
        }
    }

    __device__ __forceinline__ void operator()(unsigned int tile, unsigned char* tile_ptr, int n0, int k0,
                                               bool vec) const
    {
        const int chunk = threadIdx.x & 3;  // the same 16-byte column for all 4 rows of this thread
        const int kk = k0 + chunk * 8;
        const bool kok = kk < Kg;
        const int rs = kk / Cp, c = kk - rs * Cp;
        const int r = rs / 3, s = rs - r * 3;
        const long long koff = ((long long)r * Wp + s) * Cp + c;
#pragma unroll
        for (int i = 0; i < 4; i++) {
            const int row = (threadIdx.x + i * GEMM_THREADS) >> 2;
            const unsigned int off = tile_off(row, chunk);
            const bool good = ok[i] && kok;
            const __half* src = good ? xp + pix[i] + koff : xp;
            if (vec) {
                cp_async16(tile + off, src, good ? 16 : 0);
            } else {
                uint4 w = make_uint4(0u, 0u, 0u, 0u);
                if (good) {
                    const unsigned short* e = reinterpret_cast<const unsigned short*>(src);
                    w.x = (unsigned int)e[0] | ((unsigned int)e[1] << 16);
                    w.y = (unsigned int)e[2] | ((unsigned int)e[3] << 16);
                    w.z = (unsigned int)e[4] | ((unsigned int)e[5] << 16);
                    w.w = (unsigned int)e[6] | ((unsigned int)e[7] << 16);
                }
                *reinterpret_cast<uint4*>(tile_ptr + off) = w;
            }
        }
    }
};

extern "C" __global__ void __launch_bounds__(256)
conv_pack_input(const __half* __restrict__ x, __half* __restrict__ xp, int N, int C, int H, int W, int Cp)
{
    __shared__ unsigned short tile[32][33];
    const int ph = blockIdx.x, n = blockIdx.y;  // padded row ph = h + 1
    const int Hp = H + 2, Wp = W + 2;
    const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * 32 + tx;
    unsigned short* dst = reinterpret_cast<unsigned short*>(xp) + ((size_t)n * Hp + ph) * Wp * Cp;
    if (ph == 0 || ph == Hp - 1) {  // top and bottom border rows
        for (int i = tid; i < Wp * Cp; i += 256) dst[i] = 0;
        return;
    }
    const int h = ph - 1;
    for (int i = tid; i < 2 * Cp; i += 256)  // left and right border pixels
        dst[(size_t)(i < Cp ? 0 : Wp - 1) * Cp + (i < Cp ? i : i - Cp)] = 0;
    const unsigned short* src = reinterpret_cast<const unsigned short*>(x) + ((size_t)n * C * H + h) * W;
    const size_t cstride = (size_t)H * W;
    for (int cb = 0; cb < Cp; cb += 32) {
        for (int wb = 0; wb < W; wb += 32) {
#pragma unroll
            for (int i = 0; i < 4; i++) {
                const int c = cb + ty + 8 * i, w = wb + tx;
                tile[ty + 8 * i][tx] = (c < C && w < W) ? src[(size_t)c * cstride + w] : (unsigned short)0;
            }
            __syncthreads();
#pragma unroll
            for (int i = 0; i < 4; i++) {
                const int w = wb + ty + 8 * i, c = cb + tx;
                if (w < W && c < Cp) dst[(size_t)(w + 1) * Cp + c] = tile[tx][ty + 8 * i];
            }
            __syncthreads();
        }
    }
}

extern "C" __global__ void __launch_bounds__(256)
conv_pack_weight(const __half* __restrict__ w, __half* __restrict__ wp, int C, int K, int Cp)
{
    const size_t i = (size_t)blockIdx.x * 256 + threadIdx.x;
    const size_t total = (size_t)K * 9 * Cp;
    if (i >= total) return;
    const int c = (int)(i % Cp);
    const int rs = (int)((i / Cp) % 9);
    const int k = (int)(i / ((size_t)9 * Cp));
    reinterpret_cast<unsigned short*>(wp)[i] =
        c < C ? reinterpret_cast<const unsigned short*>(w)[((size_t)k * C + c) * 9 + rs] : (unsigned short)0;
}

extern "C" __global__ void __launch_bounds__(GEMM_THREADS, 2)
conv2d_bias_relu_f16_igemm(const __half* __restrict__ wp, const __half* __restrict__ xp,
                           const __half* __restrict__ bias, __half* __restrict__ out,
                           int N, int K, int H, int W, int Cp)
{
    const int HW = H * W, P = N * HW, Kg = 9 * Cp;
    int tm, tn;
    gemm_tile_coords(K, P, tm, tn);
    const int m0 = tm * GEMM_BM, n0 = tn * GEMM_BN;
    ConvTiles loadB;
    loadB.xp = xp;
    loadB.P = P;
    loadB.HW = HW;
    loadB.W = W;
    loadB.Wp = W + 2;
    loadB.Hp = H + 2;
    loadB.Cp = Cp;
    loadB.Kg = Kg;
    loadB.init(n0);
    const bool vec = ((((unsigned long long)wp) | ((unsigned long long)xp)) & 15ull) == 0;
    float acc[4][8][4];
    gemm_mainloop<__half, false>(wp, loadB, K, Kg, m0, n0, vec, acc);

    // epilogue: rows are output channels, columns are pixels; a pair (p, p + 1) with p even stays in
    // one image and is 4-byte aligned in out when H * W is even
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int wm = warp >> 1, wn = warp & 1;
    const bool pair_ok = (HW & 1) == 0 && (((unsigned long long)out) & 3ull) == 0;
#pragma unroll
    for (int mi = 0; mi < 4; mi++) {
#pragma unroll
        for (int h = 0; h < 2; h++) {
            const int k = m0 + wm * 64 + mi * 16 + (lane >> 2) + h * 8;
            if (k >= K) continue;
            const float bk = __half2float(bias[k]);
#pragma unroll
            for (int ni = 0; ni < 8; ni++) {
                const int p = n0 + wn * 64 + ni * 8 + 2 * (lane & 3);
                const float v0 = fmaxf(acc[mi][ni][2 * h] + bk, 0.0f);
                const float v1 = fmaxf(acc[mi][ni][2 * h + 1] + bk, 0.0f);
                if (pair_ok && p + 1 < P) {
                    const int n = p / HW, rem = p - n * HW;
                    store2(out + ((size_t)n * K + k) * HW + rem, v0, v1);
                } else {
#pragma unroll
                    for (int e = 0; e < 2; e++) {
                        const int pe = p + e;
                        if (pe < P) {
                            const int n = pe / HW, rem = pe - n * HW;
                            store1(out + ((size_t)n * K + k) * HW + rem, e ? v1 : v0);
                        }
                    }
                }
            }
        }
    }
}
