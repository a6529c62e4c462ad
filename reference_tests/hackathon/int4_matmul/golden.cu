// Fast golden kernel for int4_matmul: out = x @ W with the 4-bit weight W dequantized on the fly.
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
// Hopper (sm_90a) wgmma kernel:
//  - CTA tile 128 x 256 x 64, 256 threads = 2 warpgroups; warpgroup w owns rows 64 w .. 64 w + 63
//    and issues one wgmma.mma_async.m64n256k16 (f16 x f16 -> f32, 128 accumulators per thread) per
//    k16 step: A (x) K-major and B (the dequantized W) N-major, both read from shared memory
//    through 128-byte-swizzle matrix descriptors.
//  - x tiles (128 x 64 halves) and packed weight tiles (8 x 256 words) travel global -> shared with
//    16-byte cp.async in a 6-stage ring (24 KiB per stage, loads issued 5 k-tiles ahead).
//  - Each thread dequantizes one packed row (8 k) x 8 columns per k-tile, exactly as the mma.sync
//    golden: 0x6400 | q is the half 1024 + q, minus 1024 + z gives q - z exactly, times the scale
//    with one half rounding (the reference kernel's fp16 product); it writes 8 16-byte chunks into a
//    double-buffered 64 x 256 half tile in the swizzled layout wgmma reads (2 x 32 KiB). Scales and
//    zero points for the next k-tile are fetched into registers a k-tile early. Out-of-range rows
//    and columns of W get scale 0 (exact zeros); rows of x past M and columns past K are zero.
//  - Per k-tile kt: wait for the copies of tile kt+1; fence.proxy.async (cp.async and st.shared
//    write through the generic proxy, wgmma reads through the async proxy); barrier; wgmma on x
//    tile kt and W tile kt; wait for the wgmma of tile kt-1; barrier; dequantize tile kt+1 into
//    the other W buffer and issue the loads of tile kt+5 while the tensor cores run tile kt.
//  - 209 KiB + 1 KiB alignment slack of dynamic shared memory, one CTA per SM. Each output is
//    accumulated in a fixed order and rounded once: deterministic.
//  - CTAs are ordered in groups of 8 tile-rows for L2 reuse. Shapes whose x / qweight / scales are
//    not 16-byte aligned take the same pipeline with element loads and st.shared.

#include <cuda_fp16.h>

#define Q4_BM 128
#define Q4_BN 256
#define Q4_BK 64
#define Q4_STAGES 6
#define Q4_THREADS 256
#define Q4_GROUP_M 8
#define Q4_W_BYTES (Q4_BK * Q4_BN * 2)                       /* 32768: one dequantized W tile */
#define Q4_A_BYTES (Q4_BM * Q4_BK * 2)                       /* 16384: one x tile */
#define Q4_P_BYTES ((Q4_BK / 8) * Q4_BN * 4)                 /* 8192: one packed weight tile */
#define Q4_STAGE_BYTES (Q4_A_BYTES + Q4_P_BYTES)             /* 24576 */
#define Q4_SMEM_BYTES (2 * Q4_W_BYTES + Q4_STAGES * Q4_STAGE_BYTES + 1024) /* 214016 */

typedef unsigned long long gw_u64;

// ==== PTX primitives (begin) ====
__device__ __forceinline__ unsigned gw_smem_u32(const void *p)
{
	return (unsigned)__cvta_generic_to_shared(p);
}

// 16-byte global -> shared copy; src_bytes 0 zero-fills the destination without reading src
__device__ __forceinline__ void gw_cp_async16(unsigned dst, const void *src, int src_bytes)
{
	asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(src_bytes)
		     : "memory");
}

__device__ __forceinline__ void gw_cp_async_commit()
{
	asm volatile("cp.async.commit_group;\n" ::: "memory");
}

template <int N>
__device__ __forceinline__ void gw_cp_async_wait()
{
	asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

__device__ __forceinline__ void gw_sts128(unsigned addr, uint4 v)
{
	asm volatile("st.shared.v4.b32 [%0], {%1, %2, %3, %4};\n" ::"r"(addr), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w)
		     : "memory");
}

// orders this thread's generic-proxy shared-memory writes (cp.async, st.shared) before later
// async-proxy reads (wgmma operands)
__device__ __forceinline__ void gw_fence_proxy_async()
{
	asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}

__device__ __forceinline__ void gw_bar_sync()
{
	__syncthreads();
}

__device__ __forceinline__ void gw_wgmma_fence()
{
	asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
}

__device__ __forceinline__ void gw_wgmma_commit()
{
	asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}

template <int N>
__device__ __forceinline__ void gw_wgmma_wait()
{
	asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}

// keeps the compiler from moving accumulator accesses across the asynchronous wgmma window
__device__ __forceinline__ void gw_fence_acc(float (&d)[128])
{
#pragma unroll
	for (int i = 0; i < 128; i++)
		asm volatile("" : "+f"(d[i])::"memory");
}

// D[64 x 256] (f32, registers) += A[64 x 16] (K-major) * B[16 x 256] (N-major: imm-trans-b 1), A and B read from
// shared memory through descriptors da, db; asynchronous until wgmma.wait_group
__device__ __forceinline__ void gw_wgmma(float (&d)[128], gw_u64 da, gw_u64 db)
{
	asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
		     "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 "
		     "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127}, %128, %129, p, 1, 1, 0, 1;\n}\n"
		     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
		     : "l"(da), "l"(db), "r"(1));
}

__device__ __forceinline__ uint4 gw_lds128(unsigned addr)
{
	uint4 v;
	asm volatile("ld.shared.v4.b32 {%0, %1, %2, %3}, [%4];\n" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "r"(addr)
		     : "memory");
	return v;
}
// ==== PTX primitives (end) ====

__device__ __forceinline__ gw_u64 gw_desc(unsigned addr, unsigned lbo, unsigned sbo)
{
	return (gw_u64)((addr & 0x3FFFFu) >> 4) | ((gw_u64)(lbo >> 4) << 16) | ((gw_u64)(sbo >> 4) << 32) |
	       (1ull << 62);
}

// 128-byte swizzle: 16-byte chunk c of a 128-byte row r lands at chunk c ^ (r & 7).
//  x tile (128 x 64, K-major): row m at m * 128.
//  W tile (64 x 256, N-major): four 64-column panels of 64 k-rows, 8 KiB apart; k-row k of panel j
//    at j * 8192 + k * 128 (descriptor: LBO = 8192 between panels, SBO = 1024 between 8-row groups).
//  packed tile (8 x 256 words): row k8 at k8 * 1024, plain.
__device__ __forceinline__ unsigned q4_off_a(int m, int c)
{
	return (unsigned)(m * 128 + ((c ^ (m & 7)) << 4));
}

__device__ __forceinline__ unsigned q4_off_w(int k, int c)
{
	return (unsigned)((c >> 3) * 8192 + k * 128 + (((c & 7) ^ (k & 7)) << 4));
}

__device__ __forceinline__ unsigned q4_h2_bits(__half2 h)
{
	return *reinterpret_cast<unsigned *>(&h);
}

__device__ __forceinline__ __half2 q4_bits_h2(unsigned u)
{
	return *reinterpret_cast<__half2 *>(&u);
}

struct Q4Args {
	const unsigned short *x;
	const int *qw;
	const unsigned short *scales;
	const int *qz;
	int M, N, K, G, m0, n0;
};

// Loads of k-tile kt into the stage at st: x rows m0.. (4 chunks per thread) and packed rows
// 8 kt .. 8 kt + 7, columns n0 .. n0 + 255 (2 chunks per thread: exactly the 8 words this thread
// dequantizes, so no other thread reads them).
template <bool FAST>
__device__ __forceinline__ void q4_load_stage(const Q4Args &p, int kt, unsigned st)
{
	const int tid = threadIdx.x;
	const int k0 = kt * Q4_BK;
#pragma unroll
	for (int j = 0; j < (Q4_BM * Q4_BK / 8) / Q4_THREADS; j++) {
		const int i = tid + j * Q4_THREADS;
		const int r = i >> 3, c = i & 7;
		const int gm = p.m0 + r, gk = k0 + c * 8;
		const unsigned dst = st + q4_off_a(r, c);
		if (FAST) {
			const bool ok = gm < p.M && gk < p.K; /* K % 8 == 0: whole chunk */
			gw_cp_async16(dst, ok ? (const void *)(p.x + (size_t)gm * p.K + gk) : (const void *)p.x, ok ? 16 : 0);
		} else {
			uint4 v = make_uint4(0u, 0u, 0u, 0u);
			if (gm < p.M && gk < p.K) {
				const unsigned short *s = p.x + (size_t)gm * p.K + gk;
				v.x = (unsigned)s[0] | ((unsigned)s[1] << 16);
				v.y = (unsigned)s[2] | ((unsigned)s[3] << 16);
				v.z = (unsigned)s[4] | ((unsigned)s[5] << 16);
				v.w = (unsigned)s[6] | ((unsigned)s[7] << 16);
			}
			gw_sts128(dst, v);
		}
	}
	{
		const int k8 = tid >> 5, c = tid & 31;
		const int gk8 = kt * (Q4_BK / 8) + k8;
#pragma unroll
		for (int h = 0; h < 2; h++) {
			const int gn = p.n0 + 8 * c + 4 * h;
			const unsigned dst = st + Q4_A_BYTES + k8 * 1024 + c * 32 + h * 16;
			const bool ok = gk8 < (p.K >> 3) && gn < p.N; /* N % 8 == 0: whole chunk */
			if (FAST) {
				gw_cp_async16(dst, ok ? (const void *)(p.qw + (size_t)gk8 * p.N + gn) : (const void *)p.qw, ok ? 16 : 0);
			} else {
				uint4 v = make_uint4(0u, 0u, 0u, 0u);
				if (ok) {
					const int *s = p.qw + (size_t)gk8 * p.N + gn;
					v = make_uint4((unsigned)s[0], (unsigned)s[1], (unsigned)s[2], (unsigned)s[3]);
				}
				gw_sts128(dst, v);
			}
		}
	}
}

// Scales (as half2 bits, column pairs) and 1024 + zero points (half2 bits) for this thread's
// packed row of k-tile kt and columns n0 + 8 c .. + 7; scale 0 outside the matrix.
template <bool FAST>
__device__ __forceinline__ void q4_fetch_sz(const Q4Args &p, int kt, unsigned (&s2)[4], unsigned (&zz)[4])
{
	const int tid = threadIdx.x;
	const int k8 = tid >> 5, c = tid & 31;
	const int gk8 = kt * (Q4_BK / 8) + k8, n = p.n0 + 8 * c;
	unsigned sw[4] = {0u, 0u, 0u, 0u}, zw = 0u;
	if (gk8 < (p.K >> 3) && n < p.N) {
		const int g = (gk8 << 3) / p.G;
		const unsigned short *sp = p.scales + (size_t)g * p.N + n;
		if (FAST) {
			const uint4 v = __ldg(reinterpret_cast<const uint4 *>(sp));
			sw[0] = v.x;
			sw[1] = v.y;
			sw[2] = v.z;
			sw[3] = v.w;
		} else {
#pragma unroll
			for (int e = 0; e < 4; e++)
				sw[e] = (unsigned)__ldg(sp + 2 * e) | ((unsigned)__ldg(sp + 2 * e + 1) << 16);
		}
		zw = (unsigned)__ldg(p.qz + (size_t)g * (p.N >> 3) + (n >> 3)); /* n % 8 == 0: nibbles 0..7 */
	}
#pragma unroll
	for (int e = 0; e < 4; e++) {
		s2[e] = sw[e];
		zz[e] = (0x6400u | ((zw >> (8 * e)) & 15u)) | ((0x6400u | ((zw >> (8 * e + 4)) & 15u)) << 16);
	}
}

// Dequantizes this thread's packed row k8 (k = 8 k8 .. 8 k8 + 7) x columns 8 c .. 8 c + 7 from the
// stage at st into the W tile at w.
__device__ __forceinline__ void q4_dequant(unsigned st, unsigned w, const unsigned (&s2)[4], const unsigned (&zz)[4])
{
	const int tid = threadIdx.x;
	const int k8 = tid >> 5, c = tid & 31;
	const uint4 a = gw_lds128(st + Q4_A_BYTES + k8 * 1024 + c * 32);
	const uint4 b = gw_lds128(st + Q4_A_BYTES + k8 * 1024 + c * 32 + 16);
	const unsigned q[8] = {a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w};
#pragma unroll
	for (int i = 0; i < 8; i++) {
		unsigned v[4];
#pragma unroll
		for (int e = 0; e < 4; e++) {
			const unsigned q0 = (q[2 * e] >> (4 * i)) & 15u, q1 = (q[2 * e + 1] >> (4 * i)) & 15u;
			const __half2 h = __hmul2(__hsub2(q4_bits_h2(q0 | (q1 << 16) | 0x64006400u), q4_bits_h2(zz[e])),
						  q4_bits_h2(s2[e]));
			v[e] = q4_h2_bits(h);
		}
		gw_sts128(w + q4_off_w(8 * k8 + i, c), make_uint4(v[0], v[1], v[2], v[3]));
	}
}

template <bool FAST>
__device__ __forceinline__ void q4_mainloop(const Q4Args &p, unsigned sbase, float (&acc)[128])
{
	const int wg = threadIdx.x >> 7;
	const int KT = (p.K + Q4_BK - 1) / Q4_BK;
	const unsigned sw = sbase;                     /* W tiles: sw + (kt & 1) * Q4_W_BYTES */
	const unsigned ss = sbase + 2 * Q4_W_BYTES;    /* stages: ss + (kt % Q4_STAGES) * Q4_STAGE_BYTES */
#pragma unroll
	for (int i = 0; i < 128; i++)
		acc[i] = 0.f;
	gw_fence_acc(acc);

#pragma unroll
	for (int s = 0; s < Q4_STAGES - 1; s++) {
		if (s < KT)
			q4_load_stage<FAST>(p, s, ss + s * Q4_STAGE_BYTES);
		gw_cp_async_commit();
	}
	unsigned s2[4], zz[4];
	q4_fetch_sz<FAST>(p, 0, s2, zz);
	gw_cp_async_wait<Q4_STAGES - 2>(); /* my copies of tile 0 */
	q4_dequant(ss, sw, s2, zz);
	q4_fetch_sz<FAST>(p, 1, s2, zz);

	const gw_u64 da0 = gw_desc(ss + wg * (64 * 128), 16, 1024);
	const gw_u64 db0 = gw_desc(sw, 8192, 1024);

	for (int kt = 0; kt < KT; kt++) {
		gw_cp_async_wait<Q4_STAGES - 3>(); /* my copies of tile kt+1 (and kt) */
		gw_fence_proxy_async();
		gw_bar_sync(); /* x tile kt and W tile kt visible to both warpgroups */
		const unsigned ao = (unsigned)(kt % Q4_STAGES) * Q4_STAGE_BYTES;
		const unsigned wo = (unsigned)(kt & 1) * Q4_W_BYTES;
		gw_wgmma_fence();
#pragma unroll
		for (int ks = 0; ks < Q4_BK / 16; ks++)
			gw_wgmma(acc, da0 + ((ao + ks * 32u) >> 4), db0 + ((wo + ks * 2048u) >> 4));
		gw_wgmma_commit();
		gw_wgmma_wait<1>(); /* my wgmma on tile kt-1 are done */
		gw_bar_sync();      /* everyone's: stage (kt-1) % S and W buffer (kt+1) & 1 are free */
		if (kt + 1 < KT)
			q4_dequant(ss + ((kt + 1) % Q4_STAGES) * Q4_STAGE_BYTES, sw + ((kt + 1) & 1) * Q4_W_BYTES, s2, zz);
		if (kt + 2 < KT)
			q4_fetch_sz<FAST>(p, kt + 2, s2, zz);
		if (kt + Q4_STAGES - 1 < KT)
			q4_load_stage<FAST>(p, kt + Q4_STAGES - 1, ss + ((kt + Q4_STAGES - 1) % Q4_STAGES) * Q4_STAGE_BYTES);
		gw_cp_async_commit();
	}
	gw_wgmma_wait<0>();
	gw_fence_acc(acc);
}


__device__ __forceinline__ void gw_st1(__half *p, float v) { *p = __float2half_rn(v); }
__device__ __forceinline__ void gw_st2(__half *p, float a, float b)
{
	*reinterpret_cast<__half2 *>(p) = __floats2half2_rn(a, b);
}

// Epilogue straight from the accumulators: op(value, column) in float, rounded once to T. Column
// pairs go out as one 32-bit store when pair_ok (N even, C 4-byte aligned), else element by element.
template <typename T, typename Op>
__device__ __forceinline__ void gw_store(T *__restrict__ C, int M, int N, int m0, int n0, const float (&acc)[128],
					 bool pair_ok, const Op &op)
{
	const int tid = threadIdx.x, lane = tid & 31;
	const int row0 = m0 + (tid >> 7) * 64 + ((tid >> 5) & 3) * 16 + (lane >> 2);
#pragma unroll
	for (int h = 0; h < 2; h++) {
		const int row = row0 + 8 * h;
		if (row >= M)
			continue;
		T *crow = C + (size_t)row * N;
#pragma unroll
		for (int j = 0; j < 32; j++) {
			const int col = n0 + 8 * j + 2 * (lane & 3);
			const float v0 = acc[4 * j + 2 * h], v1 = acc[4 * j + 2 * h + 1];
			if (pair_ok && col + 1 < N) {
				gw_st2(crow + col, op(v0, col), op(v1, col + 1));
			} else {
				if (col < N)
					gw_st1(crow + col, op(v0, col));
				if (col + 1 < N)
					gw_st1(crow + col + 1, op(v1, col + 1));
			}
		}
	}
}
struct GwIdentity {
	__device__ __forceinline__ float operator()(float v, int) const { return v; }
};

extern "C" __global__ void __launch_bounds__(Q4_THREADS, 1)
int4_matmul_golden(const __half *__restrict__ X, const int *__restrict__ qweight, const __half *__restrict__ scales,
		   const int *__restrict__ qzeros, __half *__restrict__ C, int M, int N, int K, int G)
{
	extern __shared__ __align__(1024) unsigned char gw_smem[];
	const unsigned sbase = (gw_smem_u32(gw_smem) + 1023u) & ~1023u;

	const int num_m = (M + Q4_BM - 1) / Q4_BM, num_n = (N + Q4_BN - 1) / Q4_BN;
	const int pid = blockIdx.x;
	const int in_group = Q4_GROUP_M * num_n;
	const int first_m = (pid / in_group) * Q4_GROUP_M;
	const int gsize = min(num_m - first_m, Q4_GROUP_M);
	Q4Args p;
	p.x = reinterpret_cast<const unsigned short *>(X);
	p.qw = qweight;
	p.scales = reinterpret_cast<const unsigned short *>(scales);
	p.qz = qzeros;
	p.M = M;
	p.N = N;
	p.K = K;
	p.G = G;
	p.m0 = (first_m + (pid % in_group) % gsize) * Q4_BM;
	p.n0 = ((pid % in_group) / gsize) * Q4_BN;

	const bool fast = ((reinterpret_cast<unsigned long long>(X) | reinterpret_cast<unsigned long long>(qweight) |
			    reinterpret_cast<unsigned long long>(scales)) & 15ull) == 0;
	const bool pair_ok = (reinterpret_cast<unsigned long long>(C) & 3ull) == 0; /* N % 8 == 0 */
	float acc[128];
	if (fast)
		q4_mainloop<true>(p, sbase, acc);
	else
		q4_mainloop<false>(p, sbase, acc);
	gw_store(C, M, N, p.m0, p.n0, acc, pair_ok, GwIdentity());
}
