// Golden kernel for int4_matmul: out = x @ W with the 4-bit weight W dequantized on the fly.
//
// Layout (as TritonBench's matmul_dequantize_int4_s2 / quantize_int4):
//   x       [M, K]        float16, row-major
//   qweight [K / 8, N]    int32: nibble i (bits 4i..4i+3) of qweight[k8, n] is q[8 k8 + i, n]
//   scales  [K / G, N]    float16
//   qzeros  [K / G, N / 8] int32: nibble i of qzeros[g, n8] is z[g, 8 n8 + i]
//   W[k, n] = (q[k, n] - z[k / G, n]) * scales[k / G, n]      (G = group_size)
//   out     [M, N]        float16 = float32 accumulation of x @ W, rounded once
// Requires K % G == 0, G % 8 == 0, N % 8 == 0 (the packing), any M.
//
// Launch (problem.json golden_launch): grid cdiv(M, 128) * cdiv(N, 128), block 256, 98304 bytes
// of dynamic shared memory: 4 stages of (x tile 128x64 halves + packed tile 8x128 words) and one
// dequantized 64x128 half tile.
// Per k-tile of 64: cp.async brings x and the packed weights (4-stage pipeline); after a barrier
// every thread dequantizes 2 x 2 packed words (two adjacent columns, 8 k each) with the exact
// half2 trick (0x6400 | q is 1024 + q; subtracting 1024 + z gives q - z exactly; one rounding in
// the multiply by the scale, as the reference kernel's fp16 product) into the swizzled half tile;
// after a second barrier the 8 warps (2 x 4, warp tile 64 x 32) run ldmatrix + mma.sync
// m16n8k16 with float32 accumulators. Scales and zero points for the next k-tile are fetched
// into registers while the current one is multiplied. Out-of-range rows/columns are zero-filled.

#include <cuda_fp16.h>

#define Q4_BM 128
#define Q4_BN 128
#define Q4_BK 64
#define Q4_STAGES 4
#define Q4_THREADS 256
#define Q4_GROUP_M 8
#define Q4_A_STAGE (Q4_BM * Q4_BK)        /* halves */
#define Q4_P_STAGE ((Q4_BK / 8) * Q4_BN)  /* 32-bit words */

__device__ __forceinline__ unsigned q4_smem_addr(const void* p)
{
	return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ void q4_cp_async16(unsigned dst, const void* src, bool pred)
{
	const int n = pred ? 16 : 0;
	asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(n) : "memory");
}

__device__ __forceinline__ void q4_cp_async_commit()
{
	asm volatile("cp.async.commit_group;\n" ::: "memory");
}

template <int N>
__device__ __forceinline__ void q4_cp_async_wait()
{
	asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

__device__ __forceinline__ void q4_ldsm_x4(unsigned* r, unsigned addr)
{
	asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
		     : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
		     : "r"(addr));
}

__device__ __forceinline__ void q4_ldsm_x4_trans(unsigned* r, unsigned addr)
{
	asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
		     : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
		     : "r"(addr));
}

__device__ __forceinline__ void q4_mma16816(float* c, const unsigned* a, const unsigned* b)
{
	asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
	    "{%8, %9}, {%0, %1, %2, %3};\n"
	    : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
	    : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

/* Scale pair (as half2 bits) and 1024 + zero pair (as half2 bits) for packed row gk8, columns
 * n, n + 1; zeros when the row or the columns are outside the matrix. */
__device__ __forceinline__ void q4_fetch_sz(const __half* __restrict__ scales, const int* __restrict__ qzeros,
					    int N, int K, int G, int gk8, int n, unsigned& s2, unsigned& zz)
{
	s2 = 0u;
	zz = 0x64006400u;
	if (gk8 < (K >> 3) && n < N) {
		const int g = (gk8 << 3) / G;
		const unsigned short* sp = reinterpret_cast<const unsigned short*>(scales) + (size_t)g * N + n;
		s2 = (unsigned)__ldg(sp) | ((unsigned)__ldg(sp + 1) << 16);
		const unsigned zw = (unsigned)__ldg(qzeros + (size_t)g * (N >> 3) + (n >> 3));
		const unsigned z0 = (zw >> (4 * (n & 7))) & 15u, z1 = (zw >> (4 * ((n + 1) & 7))) & 15u;
		zz = (0x6400u | z0) | ((0x6400u | z1) << 16);
	}
}

__device__ __forceinline__ unsigned q4_h2_bits(__half2 h)
{
	return *reinterpret_cast<unsigned*>(&h);
}

__device__ __forceinline__ __half2 q4_bits_h2(unsigned u)
{
	return *reinterpret_cast<__half2*>(&u);
}

__device__ __forceinline__ void q4_store2(__half* __restrict__ C, int M, int N, int r, int c, float v0, float v1,
					  bool pair_ok)
{
	if (r >= M || c >= N) /* N % 8 == 0 and c is even, so c + 1 < N too */
		return;
	__half* p = C + (size_t)r * N + c;
	if (pair_ok) {
		*reinterpret_cast<__half2*>(p) = __floats2half2_rn(v0, v1);
	} else {
		p[0] = __float2half_rn(v0);
		p[1] = __float2half_rn(v1);
	}
}

extern "C" __global__ void __launch_bounds__(Q4_THREADS, 2)
int4_matmul_golden(const __half* __restrict__ X, const int* __restrict__ qweight, const __half* __restrict__ scales,
		   const int* __restrict__ qzeros, __half* __restrict__ C, int M, int N, int K, int G)
{
	extern __shared__ __align__(128) unsigned char q4_smem[];
	__half* sA = reinterpret_cast<__half*>(q4_smem);
	unsigned* sP = reinterpret_cast<unsigned*>(sA + Q4_STAGES * Q4_A_STAGE);
	__half* sW = reinterpret_cast<__half*>(sP + Q4_STAGES * Q4_P_STAGE); /* 64 x 128, swizzled */

	const int num_m = (M + Q4_BM - 1) / Q4_BM, num_n = (N + Q4_BN - 1) / Q4_BN;
	const int pid = blockIdx.x;
	const int in_group = Q4_GROUP_M * num_n;
	const int first_m = (pid / in_group) * Q4_GROUP_M;
	const int gsize = min(num_m - first_m, Q4_GROUP_M);
	const int pid_m = first_m + (pid % in_group) % gsize;
	const int pid_n = (pid % in_group) / gsize;
	const int m0 = pid_m * Q4_BM, n0 = pid_n * Q4_BN;

	const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
	const int wm = (warp >> 2) * 64, wn = (warp & 3) * 32;
	const bool fast = ((reinterpret_cast<unsigned long long>(X) | reinterpret_cast<unsigned long long>(qweight)) &
			   15ull) == 0;
	const int K8 = K >> 3;
	const bool pair_ok = (reinterpret_cast<unsigned long long>(C) & 3ull) == 0;

	/* dequantization assignment: column pair p (columns 2p, 2p+1 of the tile), packed rows kq, kq+4 */
	const int p = tid & 63, kq = tid >> 6;
	const int ncol = n0 + 2 * p;

	auto load_tile = [&](int stage, int kt) {
		const int k0 = kt * Q4_BK;
		__half* a_s = sA + stage * Q4_A_STAGE;
#pragma unroll
		for (int i = 0; i < (Q4_BM * Q4_BK / 8) / Q4_THREADS; ++i) {
			const int id = tid + i * Q4_THREADS;
			const int r = id >> 3, c = id & 7;
			const int gm = m0 + r, gk = k0 + 8 * c;
			__half* dst = a_s + r * Q4_BK + ((c ^ (r & 7)) << 3);
			const bool ok = gm < M && gk < K;
			if (fast) {
				q4_cp_async16(q4_smem_addr(dst), ok ? (const void*)(X + (size_t)gm * K + gk) : (const void*)X, ok);
			} else {
				uint4 v = make_uint4(0u, 0u, 0u, 0u);
				if (ok) {
					const unsigned short* s = reinterpret_cast<const unsigned short*>(X) + (size_t)gm * K + gk;
					v.x = (unsigned)s[0] | ((unsigned)s[1] << 16);
					v.y = (unsigned)s[2] | ((unsigned)s[3] << 16);
					v.z = (unsigned)s[4] | ((unsigned)s[5] << 16);
					v.w = (unsigned)s[6] | ((unsigned)s[7] << 16);
				}
				*reinterpret_cast<uint4*>(dst) = v;
			}
		}
		{ /* packed weights: 8 rows x 32 chunks of 4 words, one chunk per thread */
			const int r = tid >> 5, c = tid & 31;
			const int gk8 = kt * (Q4_BK / 8) + r, gn = n0 + 4 * c;
			unsigned* dst = sP + stage * Q4_P_STAGE + r * Q4_BN + 4 * c;
			const bool ok = gk8 < K8 && gn < N;
			if (fast) {
				q4_cp_async16(q4_smem_addr(dst), ok ? (const void*)(qweight + (size_t)gk8 * N + gn) : (const void*)qweight,
					      ok);
			} else {
				uint4 v = make_uint4(0u, 0u, 0u, 0u);
				if (ok) {
					const int* s = qweight + (size_t)gk8 * N + gn;
					v = make_uint4((unsigned)s[0], (unsigned)s[1], (unsigned)s[2], (unsigned)s[3]);
				}
				*reinterpret_cast<uint4*>(dst) = v;
			}
		}
	};

	float acc[4][4][4];
#pragma unroll
	for (int mi = 0; mi < 4; ++mi)
#pragma unroll
		for (int ni = 0; ni < 4; ++ni)
#pragma unroll
			for (int e = 0; e < 4; ++e)
				acc[mi][ni][e] = 0.f;

	const int KT = (K + Q4_BK - 1) / Q4_BK;
#pragma unroll
	for (int s = 0; s < Q4_STAGES - 1; ++s) {
		if (s < KT)
			load_tile(s, s);
		q4_cp_async_commit();
	}
	unsigned s_cur[2], z_cur[2];
	q4_fetch_sz(scales, qzeros, N, K, G, kq, ncol, s_cur[0], z_cur[0]);
	q4_fetch_sz(scales, qzeros, N, K, G, kq + 4, ncol, s_cur[1], z_cur[1]);

	for (int kt = 0; kt < KT; ++kt) {
		q4_cp_async_wait<Q4_STAGES - 2>();
		__syncthreads(); /* tile kt landed; every warp is done with sW and with stage (kt-1) */
		{
			const int nk = kt + Q4_STAGES - 1;
			if (nk < KT)
				load_tile(nk % Q4_STAGES, nk);
			q4_cp_async_commit();
		}
		const int st = kt % Q4_STAGES;
		/* dequantize packed rows kq and kq + 4 of this tile, columns 2p and 2p + 1 */
#pragma unroll
		for (int h = 0; h < 2; ++h) {
			const int r8 = kq + 4 * h;
			const uint2 w = *reinterpret_cast<const uint2*>(sP + st * Q4_P_STAGE + r8 * Q4_BN + 2 * p);
			const __half2 zz = q4_bits_h2(z_cur[h]);
			const __half2 s2 = q4_bits_h2(s_cur[h]);
#pragma unroll
			for (int i = 0; i < 8; ++i) {
				const int kl = 8 * r8 + i;
				const unsigned q0 = (w.x >> (4 * i)) & 15u, q1 = (w.y >> (4 * i)) & 15u;
				const __half2 v = __hmul2(__hsub2(q4_bits_h2(q0 | (q1 << 16) | 0x64006400u), zz), s2);
				*reinterpret_cast<__half2*>(sW + kl * Q4_BN + ((((2 * p) >> 3) ^ (kl & 7)) << 3) + ((2 * p) & 7)) = v;
			}
		}
		/* scales / zeros of the next tile, in flight while this one is multiplied */
		if (kt + 1 < KT) {
			const int nk8 = (kt + 1) * (Q4_BK / 8);
			q4_fetch_sz(scales, qzeros, N, K, G, nk8 + kq, ncol, s_cur[0], z_cur[0]);
			q4_fetch_sz(scales, qzeros, N, K, G, nk8 + kq + 4, ncol, s_cur[1], z_cur[1]);
		}
		__syncthreads(); /* dequantized tile visible */

		const __half* a_s = sA + st * Q4_A_STAGE;
#pragma unroll
		for (int kk = 0; kk < Q4_BK / 16; ++kk) {
			unsigned af[4][4], bf[4][2];
#pragma unroll
			for (int mi = 0; mi < 4; ++mi) {
				const int row = wm + mi * 16 + (lane & 15);
				const int kc = kk * 2 + (lane >> 4);
				q4_ldsm_x4(af[mi], q4_smem_addr(a_s + row * Q4_BK + ((kc ^ (row & 7)) << 3)));
			}
#pragma unroll
			for (int nj = 0; nj < 2; ++nj) {
				const int krow = kk * 16 + (lane & 15);
				const int nc = ((wn + nj * 16) >> 3) + (lane >> 4);
				unsigned r[4];
				q4_ldsm_x4_trans(r, q4_smem_addr(sW + krow * Q4_BN + ((nc ^ (krow & 7)) << 3)));
				bf[2 * nj][0] = r[0];
				bf[2 * nj][1] = r[1];
				bf[2 * nj + 1][0] = r[2];
				bf[2 * nj + 1][1] = r[3];
			}
#pragma unroll
			for (int mi = 0; mi < 4; ++mi)
#pragma unroll
				for (int ni = 0; ni < 4; ++ni)
					q4_mma16816(acc[mi][ni], af[mi], bf[ni]);
		}
	}
	q4_cp_async_wait<0>();

#pragma unroll
	for (int mi = 0; mi < 4; ++mi) {
		const int r = m0 + wm + mi * 16 + (lane >> 2);
#pragma unroll
		for (int ni = 0; ni < 4; ++ni) {
			const int c = n0 + wn + ni * 8 + 2 * (lane & 3);
			q4_store2(C, M, N, r, c, acc[mi][ni][0], acc[mi][ni][1], pair_ok);
			q4_store2(C, M, N, r + 8, c, acc[mi][ni][2], acc[mi][ni][3], pair_ok);
		}
	}
}
