// gemm_wgmma.cuh: the golden Hopper GEMM shared by the GEMM problems (gemm_f16, gemm_bf16,
// gemm_rect_f16, gemm_batched_bf16, triton_matmul, gemm_bias_relu_f16, gemm_scale_sigmoid_bf16).
// The loader puts it in front of a problem's golden.cu when problem.json names it in
// "golden_prelude" (docs/problem-format.md), after wgmma_ptx.cuh (its PTX primitives); golden.cu
// then holds only the entry kernel and its epilogue. Parameters, set by the problem's "defines":
//   GW_AB         the operand type of the wgmma instruction: f16 or bf16
//   GW_B_KMAJOR   0: B is [K, N] row-major (N-major in shared memory); 1: B is [N, K] (K-major)
//
// C[M,N] = op(A[M,K] * B); 16-bit inputs, fp32 accumulation, one rounding in the epilogue.
// Hopper (sm_90a) tensor-core GEMM with wgmma:
//  - CTA tile 128 x 256 x 64, 256 threads = 2 warpgroups; warpgroup w owns rows 64 w .. 64 w + 63 of
//    the tile and issues one wgmma.mma_async.m64n256k16 (fp32 accumulators, 128 per thread) per
//    k16 step, A and B read from shared memory through matrix descriptors (128-byte swizzle).
//  - Operands travel global -> shared with 16-byte cp.async.cg (zero-filled outside the matrices)
//    in a 4-stage pipeline (48 KiB per stage, 193 KiB + 1 KiB alignment slack of dynamic shared
//    memory, one CTA per SM), laid out in the swizzled core-matrix layout the descriptors describe.
//    After a stage lands every thread executes fence.proxy.async (cp.async writes through the
//    generic proxy, wgmma reads through the async proxy) before the barrier that publishes it.
//  - One wgmma group (the previous k-tile) stays in flight while the next loads are issued.
//  - Shapes the 16-byte path cannot take (see the entry kernel) run the same pipeline with guarded
//    element loads and st.shared instead of cp.async, so every M, N, K >= 1 works.
//  - Each output element is accumulated in a fixed order (k-tiles, then k16 steps, in sequence)
//    and rounded once: deterministic, no split-K.
//  - CTAs are ordered in groups of 8 tile-rows for L2 reuse.

#if !defined(GW_AB) || !defined(GW_B_KMAJOR)
#error "gemm_wgmma.cuh needs GW_AB and GW_B_KMAJOR (the problem's golden_prelude defines)"
#endif
#ifndef GW_TRANS_B
#error "gemm_wgmma.cuh comes after wgmma_ptx.cuh in the golden_prelude sources"
#endif

#include <cuda_fp16.h>
#include <cuda_bf16.h>

#define GW_BM 128
#define GW_BN 256
#define GW_BK 64
#define GW_STAGES 4
#define GW_THREADS 256
#define GW_GROUP_M 8
#define GW_A_BYTES (GW_BM * GW_BK * 2)                       /* 16384 */
#define GW_B_BYTES (GW_BK * GW_BN * 2)                       /* 32768 */
#define GW_STAGE_BYTES (GW_A_BYTES + GW_B_BYTES)             /* 49152 */
#define GW_SMEM_BYTES (GW_STAGES * GW_STAGE_BYTES + 1024)    /* 197632: stages + 1024-byte alignment slack */


// Byte offsets inside one pipeline stage (A tile, then B tile). Both use the 128-byte swizzle: the
// 16-byte chunk c of a 128-byte row r lands at chunk c ^ (r & 7), rows 128 bytes apart, so 8 rows
// form one 1024-byte swizzle atom.
//  A (128 x 64, K-major): row m at m * 128.
//  B, K-major ([N, K] input; 256 x 64): row n at A_BYTES + n * 128.
//  B, N-major ([K, N] input; 64 x 256): four 64-column panels of 64 k-rows, 8 KiB apart; k-row k of
//    panel j at A_BYTES + j * 8192 + k * 128 (descriptor: LBO = 8192 between panels, SBO = 1024
//    between groups of 8 k-rows).
__device__ __forceinline__ unsigned gw_off_a(int m, int c)
{
	return (unsigned)(m * 128 + ((c ^ (m & 7)) << 4));
}

__device__ __forceinline__ unsigned gw_off_b(int r, int c)
{
	if (GW_B_KMAJOR) /* r = n (0..255), c = k chunk (0..7) */
		return (unsigned)(GW_A_BYTES + r * 128 + ((c ^ (r & 7)) << 4));
	/* r = k (0..63), c = n chunk (0..31) */
	return (unsigned)(GW_A_BYTES + (c >> 3) * 8192 + r * 128 + (((c & 7) ^ (r & 7)) << 4));
}

// One 16-byte chunk of a row-major [R, C] matrix into shared memory: elements (r, c .. c+7), zero
// outside the matrix. VEC (C % 8 == 0, 16-byte aligned base): one cp.async (zero-fill when out of
// range); otherwise guarded element loads and a shared store.
template <bool VEC>
__device__ __forceinline__ void gw_chunk(unsigned dst, const unsigned short *__restrict__ g, int R, int C, int r, int c)
{
	if (VEC) {
		const bool ok = r < R && c < C;
		gw_cp_async16(dst, ok ? (const void *)(g + (size_t)r * C + c) : (const void *)g, ok ? 16 : 0);
	} else {
		const int cnt = r < R ? min(8, C - c) : 0;
		gw_sts128(dst, cnt > 0 ? gw_load8_guarded(g + (size_t)r * C + c, cnt) : make_uint4(0u, 0u, 0u, 0u));
	}
}

// Element-wise fallback: issues the loads of k-tile kt (A rows m0.., B columns n0..) into the stage
// at shared address st with guarded loads and st.shared.
__device__ __forceinline__ void gw_load_stage_scalar(const unsigned short *__restrict__ A,
						     const unsigned short *__restrict__ B, int M, int N, int K, int m0,
						     int n0, int kt, unsigned st)
{
	const int tid = threadIdx.x;
	const int k0 = kt * GW_BK;
#pragma unroll
	for (int j = 0; j < (GW_BM * GW_BK / 8) / GW_THREADS; j++) { /* 4 chunks of A per thread */
		const int i = tid + j * GW_THREADS;
		const int r = i >> 3, c = i & 7;
		gw_chunk<false>(st + gw_off_a(r, c), A, M, K, m0 + r, k0 + c * 8);
	}
#pragma unroll
	for (int j = 0; j < (GW_BK * GW_BN / 8) / GW_THREADS; j++) { /* 8 chunks of B per thread */
		const int i = tid + j * GW_THREADS;
		if (GW_B_KMAJOR) {
			const int r = i >> 3, c = i & 7;
			gw_chunk<false>(st + gw_off_b(r, c), B, N, K, n0 + r, k0 + c * 8);
		} else {
			const int r = i >> 5, c = i & 31;
			gw_chunk<false>(st + gw_off_b(r, c), B, K, N, k0 + r, n0 + c * 8);
		}
	}
}

// 16-byte path (K % 8 == 0, N % 8 == 0 for N-major B, 16-byte aligned bases). Per-thread state
// computed once per tile; chunk j of a thread is j rows-apart copies of chunk 0:
//  A:            row tid / 8 + 32 j, k chunk tid % 8           (4 chunks)
//  B, N-major:   k row tid / 32 + 8 j, n chunk tid % 32        (8 chunks)
//  B, K-major:   row n = tid / 8 + 32 j, k chunk tid % 8       (8 chunks)
// Chunks outside the matrices are zero-filled (cp.async with src-size 0 from the matrix base).
struct GwLoader {
	const unsigned short *a0, *b0;  /* matrix bases */
	const unsigned short *a, *b;    /* chunk 0 at k-tile 0 */
	size_t a_step, b_step;          /* elements between chunk j and j + 1 */
	size_t b_kstep;                 /* elements per k-tile for B */
	unsigned a_rows, b_rows;        /* bit j: chunk j's row inside the matrix */
	int kc;                         /* k of this thread's A (and K-major B) chunk inside a k-tile */
	int bk;                         /* N-major B: k row of chunk 0 inside a k-tile */
	int K;
	unsigned a_soff, b_soff;        /* stage offsets of chunk 0 */
};

__device__ __forceinline__ GwLoader gw_loader(const unsigned short *__restrict__ A, const unsigned short *__restrict__ B,
					      int M, int N, int K, int m0, int n0)
{
	const int tid = threadIdx.x;
	GwLoader l;
	l.a0 = A;
	l.b0 = B;
	l.K = K;
	const int ra = tid >> 3, ca = tid & 7;
	l.kc = ca * 8;
	l.a = A + (size_t)(m0 + ra) * K + l.kc;
	l.a_step = (size_t)32 * K;
	l.a_rows = 0;
#pragma unroll
	for (int j = 0; j < 4; j++)
		l.a_rows |= (m0 + ra + 32 * j < M ? 1u : 0u) << j;
	l.a_soff = gw_off_a(ra, ca);
	if (GW_B_KMAJOR) {
		l.b = B + (size_t)(n0 + ra) * K + l.kc;
		l.b_step = (size_t)32 * K;
		l.b_kstep = GW_BK;
		l.b_rows = 0;
#pragma unroll
		for (int j = 0; j < 8; j++)
			l.b_rows |= (n0 + ra + 32 * j < N ? 1u : 0u) << j;
		l.bk = 0;
		l.b_soff = gw_off_b(ra, ca);
	} else {
		const int rb = tid >> 5, cb = tid & 31;
		l.b = B + (size_t)rb * N + n0 + cb * 8;
		l.b_step = (size_t)8 * N;
		l.b_kstep = (size_t)GW_BK * N;
		l.b_rows = n0 + cb * 8 < N ? 0xFFu : 0u;
		l.bk = rb;
		l.b_soff = gw_off_b(rb, cb);
	}
	return l;
}

__device__ __forceinline__ void gw_load_stage_vec(const GwLoader &l, int kt, unsigned st)
{
	const int k0 = kt * GW_BK;
	const bool ka = k0 + l.kc < l.K;
	const unsigned short *pa = l.a + k0;
#pragma unroll
	for (int j = 0; j < 4; j++) {
		const bool ok = ka && ((l.a_rows >> j) & 1u);
		gw_cp_async16(st + l.a_soff + j * 4096, ok ? (const void *)(pa + j * l.a_step) : (const void *)l.a0, ok ? 16 : 0);
	}
	const unsigned short *pb = l.b + (size_t)kt * l.b_kstep;
#pragma unroll
	for (int j = 0; j < 8; j++) {
		const bool ok = ((l.b_rows >> j) & 1u) && (GW_B_KMAJOR ? ka : k0 + l.bk + 8 * j < l.K);
		gw_cp_async16(st + l.b_soff + j * (GW_B_KMAJOR ? 4096 : 1024),
			      ok ? (const void *)(pb + j * l.b_step) : (const void *)l.b0, ok ? 16 : 0);
	}
}

template <bool VEC>
__device__ __forceinline__ void gw_load_stage(const GwLoader &l, const unsigned short *__restrict__ A,
					      const unsigned short *__restrict__ B, int M, int N, int K, int m0, int n0,
					      int kt, unsigned st)
{
	if (VEC)
		gw_load_stage_vec(l, kt, st);
	else
		gw_load_stage_scalar(A, B, M, N, K, m0, n0, kt, st);
}

// Mainloop of one 128 x 256 output tile. Warpgroup wg (threads 128 wg .. 128 wg + 127) accumulates
// rows m0 + 64 wg .. + 63 in acc (wgmma m64n256k16 fragment: acc[4 j + 2 h + e] is row
// 16 warp + lane / 4 + 8 h, column 8 j + 2 (lane % 4) + e).
// Pipeline, 4 stages, k-tile kt in stage kt % 4, loads issued 3 k-tiles ahead:
//   wait for my copies of tile kt; proxy fence; barrier    -> tile kt visible to both warpgroups
//   issue 4 wgmma (k16 steps) on tile kt; commit
//   wait until at most 1 wgmma group is pending            -> my wgmma on tile kt-1 are done
//   barrier                                                -> everyone's are: stage (kt-1) % 4 is free
//   issue the loads of tile kt+3 into stage (kt+3) % 4 = (kt-1) % 4; commit (possibly empty)
// so the tensor cores always have the current tile queued while the next barrier and loads run.
template <bool VEC>
__device__ __forceinline__ void gw_mainloop(const unsigned short *__restrict__ A, const unsigned short *__restrict__ B,
					    int M, int N, int K, int m0, int n0, unsigned sbase, float (&acc)[128])
{
	const int wg = threadIdx.x >> 7;
	const int KT = (K + GW_BK - 1) / GW_BK;
#pragma unroll
	for (int i = 0; i < 128; i++)
		acc[i] = 0.f;
	gw_fence_acc(acc);
	const GwLoader ld = gw_loader(A, B, M, N, K, m0, n0);

#pragma unroll
	for (int s = 0; s < GW_STAGES - 1; s++) {
		if (s < KT)
			gw_load_stage<VEC>(ld, A, B, M, N, K, m0, n0, s, sbase + s * GW_STAGE_BYTES);
		gw_cp_async_commit();
	}

	const gw_u64 da0 = gw_desc(sbase + wg * (64 * 128), 16, 1024);
	const gw_u64 db0 = GW_B_KMAJOR ? gw_desc(sbase + GW_A_BYTES, 16, 1024) : gw_desc(sbase + GW_A_BYTES, 8192, 1024);
	const unsigned db_step = GW_B_KMAJOR ? 32u : 2048u; /* bytes per k16 step */

	for (int kt = 0; kt < KT; kt++) {
		gw_cp_async_wait<GW_STAGES - 2>();
		gw_fence_proxy_async();
		gw_bar_sync();
		const unsigned so = (unsigned)(kt % GW_STAGES) * GW_STAGE_BYTES;
		gw_wgmma_fence();
#pragma unroll
		for (int ks = 0; ks < GW_BK / 16; ks++)
			gw_wgmma(acc, da0 + ((so + ks * 32u) >> 4), db0 + ((so + ks * db_step) >> 4));
		gw_wgmma_commit();
		gw_wgmma_wait<1>();
		gw_bar_sync();
		if (kt + GW_STAGES - 1 < KT)
			gw_load_stage<VEC>(ld, A, B, M, N, K, m0, n0, kt + GW_STAGES - 1,
					   sbase + ((kt + GW_STAGES - 1) % GW_STAGES) * GW_STAGE_BYTES);
		gw_cp_async_commit();
	}
	gw_wgmma_wait<0>();
	gw_fence_acc(acc);
}

// Tile order: groups of GW_GROUP_M tile-rows, column by column inside a group, so the CTAs running
// together share A and B panels in L2.
__device__ __forceinline__ void gw_tile_coords(int M, int N, int pid, int &m0, int &n0)
{
	const int tiles_m = (M + GW_BM - 1) / GW_BM, tiles_n = (N + GW_BN - 1) / GW_BN;
	gw_group_tile<GW_GROUP_M, GW_BM, GW_BN>(tiles_m, tiles_n, pid, m0, n0);
}

__device__ __forceinline__ void gw_st1(__half *p, float v) { *p = __float2half_rn(v); }
__device__ __forceinline__ void gw_st2(__half *p, float a, float b)
{
	*reinterpret_cast<__half2 *>(p) = __floats2half2_rn(a, b);
}
__device__ __forceinline__ void gw_st1(__nv_bfloat16 *p, float v) { *p = __float2bfloat16_rn(v); }
__device__ __forceinline__ void gw_st2(__nv_bfloat16 *p, float a, float b)
{
	*reinterpret_cast<__nv_bfloat162 *>(p) = __floats2bfloat162_rn(a, b);
}

// Epilogue straight from the accumulators: op(value, column) in float, rounded once to T. Column
// pairs go out as one 32-bit store when pair_ok (N even, C 4-byte aligned), else element by element.
template <typename T, typename Op>
__device__ __forceinline__ void gw_store(T *__restrict__ C, int M, int N, int m0, int n0, const float (&acc)[128],
					 bool pair_ok, const Op &op)
{
	const int tid = threadIdx.x, lane = tid & 31;
	GW_FOR_EACH_PAIR(T, C, M, N, m0, n0, acc,
		const float v0 = a0, v1 = a1;
		if (pair_ok && col + 1 < N) {
			gw_st2(crow + col, op(v0, col), op(v1, col + 1));
		} else {
			if (col < N)
				gw_st1(crow + col, op(v0, col));
			if (col + 1 < N)
				gw_st1(crow + col + 1, op(v1, col + 1));
		})
}

struct GwIdentity {
	__device__ __forceinline__ float operator()(float v, int) const { return v; }
};

// The body of an entry kernel: C = op(A * B) on the output tile of blockIdx.x, for matrix z of a
// densely packed batch (z = 0 without one). The bases' alignment decides the 16-byte path and the
// paired stores; K % 8 == 0 and N % 8 == 0 (the 16-byte path) keep every matrix of a batch aligned
// like the first.
template <typename T, typename Op>
__device__ __forceinline__ void gw_gemm(const T *__restrict__ A, const T *__restrict__ B, T *__restrict__ C, int M,
					int N, int K, int z, const Op &op)
{
	extern __shared__ __align__(1024) unsigned char gw_smem[];
	const unsigned sbase = (gw_smem_u32(gw_smem) + 1023u) & ~1023u;
	int m0, n0;
	gw_tile_coords(M, N, blockIdx.x, m0, n0);
#if GW_B_KMAJOR
	// 16-byte path: rows of A and B (both K long) are whole 16-byte chunks, bases 16-byte aligned
	const bool vec = (K & 7) == 0 && ((((unsigned long long)A) | ((unsigned long long)B)) & 15ull) == 0;
#else
	// 16-byte path: rows of A and B are whole 16-byte chunks and the bases are 16-byte aligned
	const bool vec = (K & 7) == 0 && (N & 7) == 0 &&
			 ((((unsigned long long)A) | ((unsigned long long)B)) & 15ull) == 0;
#endif
	const bool pair_ok = (N & 1) == 0 && (((unsigned long long)C) & 3ull) == 0;
	const unsigned short *a = reinterpret_cast<const unsigned short *>(A) + (size_t)z * M * K;
	const unsigned short *b = reinterpret_cast<const unsigned short *>(B) + (size_t)z * K * N;
	T *c = C + (size_t)z * M * N;
	float acc[128];
	if (vec)
		gw_mainloop<true>(a, b, M, N, K, m0, n0, sbase, acc);
	else
		gw_mainloop<false>(a, b, M, N, K, m0, n0, sbase, acc);
	gw_store(c, M, N, m0, n0, acc, pair_ok, op);
}
