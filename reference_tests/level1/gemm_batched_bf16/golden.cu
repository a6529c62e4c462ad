// gemm_batched_bf16 golden: C[b] = A[b] * B[b] for b < batch; A[batch,M,K], B[batch,K,N], C[batch,M,N];
// bf16 inputs, fp32 accumulation, bf16 output, row-major, densely packed. blockIdx.z is the batch index.
//
// Tensor-core GEMM with mma.sync.m16n8k16 (fp32 accumulators):
// - CTA tile 128 x 256 x 64, 256 threads = 8 warps in a 2 (M) x 4 (N) grid, 64 x 64 per warp
//   (4 x 8 mma tiles, 128 fp32 accumulators per thread).
// - 3-stage cp.async pipeline (16-byte copies, zero-filled past M/N/K), 144 KiB dynamic shared memory,
//   one __syncthreads per k-tile.
// - Shared memory is XOR-swizzled at 16-byte granularity so that the cp.async stores and the
//   ldmatrix loads (A: ldmatrix.x4; B, stored k-major: ldmatrix.x4.trans) are bank-conflict free:
//   A rows are 128 B, B rows 512 B; chunk ^= row & 7 in both.
// - Thread-block tiles are visited in groups of 8 tile-rows for L2 reuse.
// Fast path when K % 8 == 0, N % 8 == 0 and A, B, C are 16-byte aligned; otherwise the same pipeline
// is fed by guarded scalar loads, so any M, N, K >= 1 works. Each output element is accumulated in a
// fixed order (k-tiles in sequence, mma k-steps in sequence): deterministic.
#include <cuda_bf16.h>

#define TC_BM 128
#define TC_BN 256
#define TC_BK 64
#define TC_STAGES 3
#define TC_THREADS 256
#define TC_A_STAGE (TC_BM * TC_BK * 2) /* 16384 bytes */
#define TC_B_STAGE (TC_BK * TC_BN * 2) /* 32768 bytes */
#define TC_SMEM (TC_STAGES * (TC_A_STAGE + TC_B_STAGE)) /* 147456 bytes */

__device__ __forceinline__ void cp_async_16(void *smem_dst, const void *gmem_src, int src_bytes)
{
	const unsigned dst = (unsigned)__cvta_generic_to_shared(smem_dst);
	asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(gmem_src), "r"(src_bytes)
		     : "memory");
}

__device__ __forceinline__ void cp_async_commit()
{
	asm volatile("cp.async.commit_group;\n" ::: "memory");
}

template <int N>
__device__ __forceinline__ void cp_async_wait()
{
	asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

__device__ __forceinline__ void ldsm_x4(unsigned (&r)[4], const void *smem)
{
	const unsigned a = (unsigned)__cvta_generic_to_shared(smem);
	asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
		     : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
		     : "r"(a)
		     : "memory");
}

__device__ __forceinline__ void ldsm_x4_t(unsigned (&r)[4], const void *smem)
{
	const unsigned a = (unsigned)__cvta_generic_to_shared(smem);
	asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
		     : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
		     : "r"(a)
		     : "memory");
}

__device__ __forceinline__ void mma_bf16_16816(float (&d)[4], const unsigned (&a)[4], const unsigned (&b)[2])
{
	asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
	    "{%0,%1,%2,%3};\n"
	    : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
	    : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

// Guarded scalar fetch of 8 consecutive 16-bit elements (positions past `count` read as 0).
__device__ __forceinline__ uint4 load8_guarded(const unsigned short *p, int count)
{
	unsigned short v[8];
#pragma unroll
	for (int e = 0; e < 8; e++)
		v[e] = e < count ? p[e] : (unsigned short)0;
	uint4 r;
	r.x = v[0] | ((unsigned)v[1] << 16);
	r.y = v[2] | ((unsigned)v[3] << 16);
	r.z = v[4] | ((unsigned)v[5] << 16);
	r.w = v[6] | ((unsigned)v[7] << 16);
	return r;
}

// Fill pipeline stage `stage` with k-tile `kt` of A (128 x 64) and B (64 x 256).
template <bool ALIGNED>
__device__ __forceinline__ void tc_load_stage(unsigned char *sA, unsigned char *sB, const unsigned short *A,
					      const unsigned short *B, int M, int N, int K, int m0, int n0, int kt,
					      int stage, int tid)
{
	const int k0 = kt * TC_BK;
	unsigned char *a_st = sA + stage * TC_A_STAGE;
	unsigned char *b_st = sB + stage * TC_B_STAGE;
#pragma unroll
	for (int j = 0; j < 4; j++) {
		const int i = tid + j * TC_THREADS;
		const int row = i >> 3, c = i & 7;
		const int gm = m0 + row, gk = k0 + c * 8;
		unsigned char *dst = a_st + row * 128 + ((c ^ (row & 7)) << 4);
		if (ALIGNED) {
			const bool ok = gm < M && gk < K;
			cp_async_16(dst, ok ? (const void *)(A + (size_t)gm * K + gk) : (const void *)A, ok ? 16 : 0);
		} else {
			const int cnt = gm < M ? min(8, K - gk) : 0;
			*reinterpret_cast<uint4 *>(dst) =
				cnt > 0 ? load8_guarded(A + (size_t)gm * K + gk, cnt) : make_uint4(0, 0, 0, 0);
		}
	}
#pragma unroll
	for (int j = 0; j < 8; j++) {
		const int i = tid + j * TC_THREADS;
		const int row = i >> 5, c = i & 31;
		const int gk = k0 + row, gn = n0 + c * 8;
		unsigned char *dst = b_st + row * 512 + ((c ^ (row & 7)) << 4);
		if (ALIGNED) {
			const bool ok = gk < K && gn < N;
			cp_async_16(dst, ok ? (const void *)(B + (size_t)gk * N + gn) : (const void *)B, ok ? 16 : 0);
		} else {
			const int cnt = gk < K ? min(8, N - gn) : 0;
			*reinterpret_cast<uint4 *>(dst) =
				cnt > 0 ? load8_guarded(B + (size_t)gk * N + gn, cnt) : make_uint4(0, 0, 0, 0);
		}
	}
}

template <bool ALIGNED>
__device__ __forceinline__ void tc_gemm_tile(const unsigned short *A, const unsigned short *B, __nv_bfloat16 *C, int M,
					     int N, int K, int m0, int n0, unsigned char *smem)
{
	unsigned char *sA = smem;
	unsigned char *sB = smem + TC_STAGES * TC_A_STAGE;
	const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
	const int wm0 = (warp >> 2) * 64, wn = (warp & 3);
	const int q = lane >> 3, r = lane & 7;
	const int KT = (K + TC_BK - 1) / TC_BK;

	float acc[4][8][4];
#pragma unroll
	for (int mi = 0; mi < 4; mi++)
#pragma unroll
		for (int ni = 0; ni < 8; ni++)
#pragma unroll
			for (int e = 0; e < 4; e++)
				acc[mi][ni][e] = 0.f;

#pragma unroll
	for (int s = 0; s < TC_STAGES - 1; s++) {
		if (s < KT)
			tc_load_stage<ALIGNED>(sA, sB, A, B, M, N, K, m0, n0, s, s, tid);
		cp_async_commit();
	}

	// Per-lane ldmatrix offsets inside a stage. A: lane supplies row (q&1)*8 + r of a 16-row block and
	// 16-byte chunk (q>>1) of the k16 step; the swizzle key row & 7 reduces to r.
	// B: lane supplies k row (q&1)*8 + r of the k16 step and n chunk 2*p + (q>>1) of the warp's 64 columns.
	const int a_row = wm0 + (q & 1) * 8 + r;
	const int b_krow = (q & 1) * 8 + r;

	for (int kt = 0; kt < KT; kt++) {
		cp_async_wait<TC_STAGES - 2>();
		__syncthreads();
		{
			// refill the stage that was consumed in iteration kt-1 (all warps are past it)
			const int nk = kt + TC_STAGES - 1;
			if (nk < KT)
				tc_load_stage<ALIGNED>(sA, sB, A, B, M, N, K, m0, n0, nk, nk % TC_STAGES, tid);
			cp_async_commit();
		}
		const unsigned char *a_st = sA + (kt % TC_STAGES) * TC_A_STAGE;
		const unsigned char *b_st = sB + (kt % TC_STAGES) * TC_B_STAGE;
#pragma unroll
		for (int ks = 0; ks < TC_BK / 16; ks++) {
			unsigned af[4][4], bf[8][2];
#pragma unroll
			for (int mi = 0; mi < 4; mi++) {
				const int row = a_row + mi * 16;
				const int ch = (ks * 2 + (q >> 1)) ^ r;
				ldsm_x4(af[mi], a_st + row * 128 + (ch << 4));
			}
#pragma unroll
			for (int p = 0; p < 4; p++) {
				const int krow = ks * 16 + b_krow;
				const int ch = (wn * 8 + p * 2 + (q >> 1)) ^ r;
				unsigned t[4];
				ldsm_x4_t(t, b_st + krow * 512 + (ch << 4));
				bf[2 * p][0] = t[0];
				bf[2 * p][1] = t[1];
				bf[2 * p + 1][0] = t[2];
				bf[2 * p + 1][1] = t[3];
			}
#pragma unroll
			for (int mi = 0; mi < 4; mi++)
#pragma unroll
				for (int ni = 0; ni < 8; ni++)
					mma_bf16_16816(acc[mi][ni], af[mi], bf[ni]);
		}
	}
	cp_async_wait<0>();

	// Epilogue: accumulator (mi, ni) holds rows g and g+8, columns 2t and 2t+1 of its 16x8 tile.
	const int g = lane >> 2, t4 = lane & 3;
#pragma unroll
	for (int mi = 0; mi < 4; mi++) {
#pragma unroll
		for (int h = 0; h < 2; h++) {
			const int row = m0 + wm0 + mi * 16 + g + h * 8;
			if (row >= M)
				continue;
			__nv_bfloat16 *crow = C + (size_t)row * N;
#pragma unroll
			for (int ni = 0; ni < 8; ni++) {
				const int col = n0 + wn * 64 + ni * 8 + t4 * 2;
				const float v0 = acc[mi][ni][2 * h], v1 = acc[mi][ni][2 * h + 1];
				if (ALIGNED) {
					if (col < N) // N % 8 == 0: col + 1 < N too
						*reinterpret_cast<__nv_bfloat162 *>(crow + col) = __floats2bfloat162_rn(v0, v1);
				} else {
					if (col < N)
						crow[col] = __float2bfloat16_rn(v0);
					if (col + 1 < N)
						crow[col + 1] = __float2bfloat16_rn(v1);
				}
			}
		}
	}
}

// Grouped tile order: consecutive CTAs cover 8 tile-rows x a few tile-columns, so the A and B panels
// they share stay in L2.
__device__ __forceinline__ void tc_tile_coords(int &m0, int &n0)
{
	const int gx = gridDim.x, gy = gridDim.y;
	const int bid = blockIdx.y * gx + blockIdx.x;
	const int per_group = 8 * gx;
	const int first_m = (bid / per_group) * 8;
	const int gsize = min(gy - first_m, 8);
	const int in_group = bid % per_group;
	m0 = (first_m + in_group % gsize) * TC_BM;
	n0 = (in_group / gsize) * TC_BN;
}

extern "C" __global__ void __launch_bounds__(TC_THREADS, 1)
gemm_batched_bf16(const __nv_bfloat16 *__restrict__ A, const __nv_bfloat16 *__restrict__ B,
		  __nv_bfloat16 *__restrict__ C, int batch, int M, int N, int K)
{
	extern __shared__ __align__(128) unsigned char tc_smem[];
	const int z = blockIdx.z;
	if (z >= batch)
		return;
	int m0, n0;
	tc_tile_coords(m0, n0);
	// K % 8 == 0 and N % 8 == 0 keep every matrix of the batch 16-byte aligned too
	const bool aligned = ((K & 7) == 0) && ((N & 7) == 0) &&
			     ((((unsigned long long)A | (unsigned long long)B | (unsigned long long)C) & 15ull) == 0);
	const unsigned short *a = reinterpret_cast<const unsigned short *>(A) + (size_t)z * M * K;
	const unsigned short *b = reinterpret_cast<const unsigned short *>(B) + (size_t)z * K * N;
	__nv_bfloat16 *c = C + (size_t)z * M * N;
	if (aligned)
		tc_gemm_tile<true>(a, b, c, M, N, K, m0, n0, tc_smem);
	else
		tc_gemm_tile<false>(a, b, c, M, N, K, m0, n0, tc_smem);
}
