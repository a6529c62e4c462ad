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
// Hopper (sm_90a) warp-specialized wgmma kernel computing the transposed product
// out^T [N, M] = W^T [N, K] x^T [K, M], so that the dequantized weight is the A operand of wgmma
// and goes straight from registers to the tensor cores (never back to shared memory):
//  - CTA tile 128 (n) x 256 (m) x 64 (k), 384 threads = 3 warpgroups, one CTA per SM. The CTA
//    walks tiles blockIdx.x, blockIdx.x + gridDim.x, ... (the launch plan gives one CTA per tile);
//    tiles are ordered in groups of 8 tile-rows (m) for L2 reuse.
//  - Warpgroup 0 is the producer (setmaxnreg 64): it copies each k-tile global -> shared with
//    cp.async (16-byte chunks, 4 bytes for zero-point words, zero-filled outside the matrices) into
//    a 5-stage ring and arrives on the stage's "full" mbarrier with cp.async.mbarrier.arrive.noinc
//    (the arrival fires once the thread's copies have landed); it waits on the stage's "empty"
//    mbarrier before reusing it. A stage (38.5 KiB) holds the x tile (256 rows x 64 k, 128-byte
//    swizzle: the K-major B operand of wgmma), the packed weights (8 x 128 words), and per packed
//    row the scales (128 halves) and zero-point words (16) of its group.
//  - Warpgroups 1 and 2 are consumers (setmaxnreg 216) owning weight columns n0 + 64 c .. + 63. Per
//    k-tile: issue four wgmma.mma_async.m64n256k16 (f16 x f16 -> f32, 128 accumulators per thread,
//    A = 16 registers of dequantized weights, B = the x tile through a 128-byte-swizzle descriptor)
//    as one group; meanwhile wait on the next stage's "full" barrier, fence.proxy.async and
//    dequantize the next k-tile into the other A register set; then wgmma.wait_group 0 and release
//    the stage (one arrival per consumer warp on "empty"). Waiting for the whole group before the
//    A registers are rewritten keeps ptxas from serializing the wgmma; the two consumer
//    warpgroups keep the tensor cores busy between each other's groups.
//  - Fragment rows are mapped to weight columns so that A rows g and g + 8 of a thread are the
//    adjacent columns n, n + 1: one 8-byte ld.shared gives both packed words of a k8 row, one
//    4-byte ld.shared both scales, and in the epilogue the two accumulators of one output row m
//    form a half2 store to out[m, n..n+1] straight from registers (whole 32-byte sectors per warp).
//  - Dequantization: the A register (column n, k = 2t, 2t + 1 of a k8 row) comes from byte t of
//    the packed word: prmt copies the byte into both halves, lop3 keeps the low nibble in the low
//    half and the high nibble (times 16) in the high half over 0x6400, giving the halves 1024 + lo
//    and 1024 + 16 hi. Minus (1024 + z, 1024 + 16 z) is exactly (lo - z, 16 (hi - z)); times
//    (s, s / 16) gives (q - z) * s with one half rounding (the reference kernel's fp16 product;
//    s / 16 is exact for normal halves). Columns of W past N get scale 0; rows of x past M and
//    columns past K are zero.
//  - G % 64 == 0 (every perf case): one scale / zero point per column and k-tile; otherwise each
//    packed row takes the scale and zero point of its own group.
//  - 5 x 38.5 KiB stages + 80 bytes of mbarriers + 1 KiB alignment slack of dynamic shared memory.
//    Each output is accumulated in a fixed order and rounded once: deterministic.
//  - Shapes whose x / qweight / scales are not 16-byte aligned take the same pipeline with element
//    loads, st.shared, fence.proxy.async and a plain mbarrier arrival in the producer.

#include <cuda_fp16.h>

#define Q4_BN 128                                    /* weight columns (wgmma M) per CTA */
#define Q4_BM 256                                    /* rows of x (wgmma N) per CTA */
#define Q4_BK 64
#define Q4_STAGES 5
#define Q4_THREADS 384
#define Q4_GROUP_M 8
#define Q4_X_BYTES (Q4_BM * Q4_BK * 2)               /* 32768: x tile */
#define Q4_P_BYTES ((Q4_BK / 8) * Q4_BN * 4)         /* 4096: packed weights, row k8 at k8 * 512 */
#define Q4_S_BYTES ((Q4_BK / 8) * Q4_BN * 2)         /* 2048: scales, row k8 at k8 * 256 */
#define Q4_Z_BYTES ((Q4_BK / 8) * (Q4_BN / 8) * 4)   /* 512: zero-point words, row k8 at k8 * 64 */
#define Q4_E_BYTES (Q4_P_BYTES + Q4_S_BYTES + Q4_Z_BYTES) /* 6656 */
#define Q4_BAR_OFF (Q4_STAGES * (Q4_X_BYTES + Q4_E_BYTES))
#define Q4_SMEM_BYTES (Q4_BAR_OFF + 2 * Q4_STAGES * 8 + 1024) /* 5 stages: 198224 */

__device__ __forceinline__ void gw_cp_async4(unsigned dst, const void *src, int src_bytes)
{
	asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(dst), "l"(src), "r"(src_bytes)
		     : "memory");
}

__device__ __forceinline__ void gw_sts32(unsigned addr, unsigned v)
{
	asm volatile("st.shared.b32 [%0], %1;\n" ::"r"(addr), "r"(v) : "memory");
}

__device__ __forceinline__ unsigned gw_lds32(unsigned addr)
{
	unsigned v;
	asm volatile("ld.shared.b32 %0, [%1];\n" : "=r"(v) : "r"(addr) : "memory");
	return v;
}

__device__ __forceinline__ uint2 gw_lds64(unsigned addr)
{
	uint2 v;
	asm volatile("ld.shared.v2.b32 {%0, %1}, [%2];\n" : "=r"(v.x), "=r"(v.y) : "r"(addr) : "memory");
	return v;
}

// one arrival on the mbarrier once all prior cp.async of this thread have landed
__device__ __forceinline__ void gw_mbar_arrive_cp_async(unsigned addr)
{
	asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];\n" ::"r"(addr) : "memory");
}

// D[64 x 256] (f32, registers) += A[64 x 16] (f16, registers a0..a3, the mma.m16n8k16 A fragment
// of each warp) * B[16 x 256] (K-major, shared memory through descriptor db); asynchronous until
// wgmma.wait_group
__device__ __forceinline__ void gw_wgmma_rs(float (&d)[128], const unsigned (&a)[4], gw_u64 db)
{
	asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %133, 0;\n"
		     "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 "
		     "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127}, "
		     "{%128, %129, %130, %131}, %132, p, 1, 1, 0;\n}\n"
		     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
		     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "r"(1));
}


// 128-byte swizzle of the x tile (256 x 64, K-major): 16-byte chunk c of row m lands at
// m * 128 + ((c ^ (m & 7)) << 4); descriptor SBO = 1024 between 8-row groups.
__device__ __forceinline__ unsigned q4_off_x(int m, int c)
{
	return (unsigned)(m * 128 + ((c ^ (m & 7)) << 4));
}

struct Q4Args {
	const unsigned short *x;
	const int *qw;
	const unsigned short *scales;
	const int *qz;
	int M, N, K, G, m0, n0;
};

// Element path of producer thread pt (0..127) for k-tile kt into stage (xs: x tile, es: packed /
// scales / zero points): global loads and st.shared, zeros outside the matrices.
__device__ __forceinline__ void q4_load_stage_slow(const Q4Args &p, int pt, int kt, unsigned xs, unsigned es)
{
	const int k0 = kt * Q4_BK;
	const int K8 = p.K >> 3;
#pragma unroll 1
	for (int j = 0; j < (Q4_BM * Q4_BK / 8) / 128; j++) { /* x: 256 rows x 8 chunks */
		const int i = pt + j * 128;
		const int r = i >> 3, c = i & 7;
		const int gm = p.m0 + r, gk = k0 + c * 8;
		uint4 v = make_uint4(0u, 0u, 0u, 0u);
		if (gm < p.M && gk < p.K) { /* K % 8 == 0: whole chunk */
			const unsigned short *s = p.x + (size_t)gm * p.K + gk;
			v.x = (unsigned)s[0] | ((unsigned)s[1] << 16);
			v.y = (unsigned)s[2] | ((unsigned)s[3] << 16);
			v.z = (unsigned)s[4] | ((unsigned)s[5] << 16);
			v.w = (unsigned)s[6] | ((unsigned)s[7] << 16);
		}
		gw_sts128(xs + q4_off_x(r, c), v);
	}
#pragma unroll 1
	for (int j = 0; j < 2; j++) { /* packed weights: 8 rows x 32 chunks of 4 words */
		const int i = pt + j * 128;
		const int k8 = i >> 5, c = i & 31;
		const int gk8 = kt * (Q4_BK / 8) + k8, gn = p.n0 + 4 * c;
		uint4 v = make_uint4(0u, 0u, 0u, 0u);
		if (gk8 < K8 && gn < p.N) { /* N % 8 == 0: whole chunk */
			const int *s = p.qw + (size_t)gk8 * p.N + gn;
			v = make_uint4((unsigned)s[0], (unsigned)s[1], (unsigned)s[2], (unsigned)s[3]);
		}
		gw_sts128(es + k8 * 512 + c * 16, v);
	}
	{ /* scales: 8 rows x 16 chunks of 8 halves; zero-point words: 8 rows x 16 */
		const int k8 = pt >> 4, c = pt & 15;
		const int gk8 = kt * (Q4_BK / 8) + k8, gn = p.n0 + 8 * c;
		uint4 v = make_uint4(0u, 0u, 0u, 0u);
		unsigned z = 0u;
		if (gk8 < K8 && gn < p.N) {
			const int g = (gk8 << 3) / p.G; /* < K / G */
			const unsigned short *ss = p.scales + (size_t)g * p.N + gn;
			v.x = (unsigned)ss[0] | ((unsigned)ss[1] << 16);
			v.y = (unsigned)ss[2] | ((unsigned)ss[3] << 16);
			v.z = (unsigned)ss[4] | ((unsigned)ss[5] << 16);
			v.w = (unsigned)ss[6] | ((unsigned)ss[7] << 16);
			z = (unsigned)p.qz[(size_t)g * (p.N >> 3) + (gn >> 3)];
		}
		gw_sts128(es + Q4_P_BYTES + k8 * 256 + c * 16, v);
		gw_sts32(es + Q4_P_BYTES + Q4_S_BYTES + k8 * 64 + c * 4, z);
	}
}

// The producer warpgroup: every k-tile of every tile of this CTA, in order, through the ring
// (it counts k-tiles across tiles: stage it % Q4_STAGES, phase (it / Q4_STAGES) & 1).
__device__ __forceinline__ void q4_producer_wait(unsigned sbase, int it)
{
	if (it >= Q4_STAGES)
		gw_mbar_wait(sbase + Q4_BAR_OFF + 8 * (Q4_STAGES + it % Q4_STAGES),
			     (unsigned)((it / Q4_STAGES - 1) & 1)); /* empty */
}

// 16-byte path: thread pt copies x rows (pt >> 3) + 16 j (chunk pt & 7), packed rows (pt >> 5) + 4 j
// (chunk pt & 31), scale row / zero-point row pt >> 4 (chunk / word pt & 15), with per-tile pointers
// advanced by one k-tile at a time.
__device__ __forceinline__ void q4_producer_fast(Q4Args p, unsigned sbase, int num_m, int num_n, int KT)
{
	const int pt = threadIdx.x; /* warpgroup 0 */
	const int K8 = p.K >> 3;
	const int xr = pt >> 3, xc = pt & 7;
	const unsigned xoff = (unsigned)(xr * 128 + ((xc ^ (xr & 7)) << 4));
	const int pr = pt >> 5, pc = pt & 31;
	const unsigned poff = (unsigned)(pr * 512 + pc * 16);
	const int sr = pt >> 4, scn = pt & 15;
	const unsigned soff = (unsigned)(Q4_P_BYTES + sr * 256 + scn * 16);
	const unsigned zoff = (unsigned)(Q4_P_BYTES + Q4_S_BYTES + sr * 64 + scn * 4);
	int it = 0;
	for (int t = blockIdx.x; t < num_m * num_n; t += gridDim.x) {
		int m0, n0;
		gw_group_tile<Q4_GROUP_M, Q4_BM, Q4_BN>(num_m, num_n, t, m0, n0);
		const int xrows = min(max(p.M - m0 - xr + 15, 0) >> 4, Q4_BM / 16); /* x rows of this thread inside M */
		const unsigned short *xg = p.x + (size_t)min(m0 + xr, p.M - 1) * p.K + 8 * xc;
		const bool pn = n0 + 4 * pc < p.N;
		const int *qg = p.qw + (size_t)pr * p.N + (pn ? n0 + 4 * pc : 0);
		const bool sn = n0 + 8 * scn < p.N;
		for (int kt = 0; kt < KT; kt++, it++) {
			q4_producer_wait(sbase, it);
			const int s = it % Q4_STAGES;
			const unsigned xs = sbase + s * Q4_X_BYTES;
			const unsigned es = sbase + Q4_STAGES * Q4_X_BYTES + s * Q4_E_BYTES;
			const bool kok = kt * Q4_BK + 8 * xc < p.K; /* K % 8 == 0: whole chunk */
			const unsigned short *xp = xg + kt * Q4_BK;
#pragma unroll
			for (int j = 0; j < Q4_BM / 16; j++) {
				const bool ok = kok && j < xrows;
				gw_cp_async16(xs + xoff + j * 2048, ok ? (const void *)(xp + (size_t)j * 16 * p.K) : (const void *)p.x,
					      ok ? 16 : 0);
			}
#pragma unroll
			for (int j = 0; j < 2; j++) {
				const int gk8 = kt * (Q4_BK / 8) + pr + 4 * j;
				const bool ok = pn && gk8 < K8;
				gw_cp_async16(es + poff + j * 2048,
					      ok ? (const void *)(qg + (size_t)(kt * (Q4_BK / 8) + 4 * j) * p.N) : (const void *)p.qw,
					      ok ? 16 : 0);
			}
			{
				const int gk8 = kt * (Q4_BK / 8) + sr;
				const bool ok = sn && gk8 < K8;
				const int g = ok ? (gk8 << 3) / p.G : 0;
				gw_cp_async16(es + soff, ok ? (const void *)(p.scales + (size_t)g * p.N + n0 + 8 * scn) : (const void *)p.scales,
					      ok ? 16 : 0);
				gw_cp_async4(es + zoff, ok ? (const void *)(p.qz + (size_t)g * (p.N >> 3) + (n0 >> 3) + scn) : (const void *)p.qz,
					     ok ? 4 : 0);
			}
			gw_mbar_arrive_cp_async(sbase + Q4_BAR_OFF + 8 * s);
		}
	}
	asm volatile("cp.async.wait_all;\n" ::: "memory");
}

// element path (x, qweight or scales not 16-byte aligned): loads and st.shared, then a proxy fence
// and a plain arrival
__device__ __forceinline__ void q4_producer_slow(Q4Args p, unsigned sbase, int num_m, int num_n, int KT)
{
	int it = 0;
	for (int t = blockIdx.x; t < num_m * num_n; t += gridDim.x) {
		gw_group_tile<Q4_GROUP_M, Q4_BM, Q4_BN>(num_m, num_n, t, p.m0, p.n0);
		for (int kt = 0; kt < KT; kt++, it++) {
			q4_producer_wait(sbase, it);
			const int s = it % Q4_STAGES;
			q4_load_stage_slow(p, threadIdx.x, kt, sbase + s * Q4_X_BYTES,
					   sbase + Q4_STAGES * Q4_X_BYTES + s * Q4_E_BYTES);
			gw_fence_proxy_async();
			gw_mbar_arrive(sbase + Q4_BAR_OFF + 8 * s);
		}
	}
}

__device__ __forceinline__ __half2 q4_bits_h2(unsigned u)
{
	return *reinterpret_cast<__half2 *>(&u);
}

__device__ __forceinline__ unsigned q4_h2_bits(__half2 h)
{
	return *reinterpret_cast<unsigned *>(&h);
}

// (1024 + z, 1024 + 16 z) and (s, s / 16) for one weight column: sc = the scale's half bits in the
// low 16 bits, z the zero point
__device__ __forceinline__ void q4_col_params(unsigned sc, unsigned z, __half2 &zh, __half2 &sh)
{
	zh = q4_bits_h2((0x6400u | z) | ((0x6400u | (z << 4)) << 16));
	const unsigned s = sc & 0xFFFFu;
	sh = __hmul2(q4_bits_h2(s | (s << 16)), __floats2half2_rn(1.0f, 0.0625f));
}

// byte sel of the packed word w (k = 2t, 2t + 1 of its k8 row) as the half2 (q0 - z, q1 - z) * s
__device__ __forceinline__ unsigned q4_deq(unsigned w, unsigned sel, __half2 zh, __half2 sh)
{
	const unsigned v = (__byte_perm(w, 0u, sel) & 0x00F0000Fu) | 0x64006400u;
	return q4_h2_bits(__hmul2(__hsub2(q4_bits_h2(v), zh), sh));
}

// A fragments of k-tile (stage es) for this thread's columns nl, nl + 1 (tile-local, nl even)
template <bool G64>
__device__ __forceinline__ void q4_dequant(unsigned es, int nl, unsigned sel, unsigned (&a)[4][4])
{
	const unsigned pp = es + nl * 4;
	const unsigned sp = es + Q4_P_BYTES + nl * 2;
	const unsigned zp = es + Q4_P_BYTES + Q4_S_BYTES + (nl >> 3) * 4;
	const unsigned zsh = 4u * (unsigned)(nl & 7);
	__half2 z0, s0, z1, s1;
	if (G64) {
		const unsigned sc = gw_lds32(sp), zw = gw_lds32(zp) >> zsh;
		q4_col_params(sc, zw & 15u, z0, s0);
		q4_col_params(sc >> 16, (zw >> 4) & 15u, z1, s1);
	}
#pragma unroll
	for (int k8 = 0; k8 < 8; k8++) {
		if (!G64) {
			const unsigned sc = gw_lds32(sp + k8 * 256), zw = gw_lds32(zp + k8 * 64) >> zsh;
			q4_col_params(sc, zw & 15u, z0, s0);
			q4_col_params(sc >> 16, (zw >> 4) & 15u, z1, s1);
		}
		const uint2 w = gw_lds64(pp + k8 * 512);
		a[k8 >> 1][(k8 & 1) * 2 + 0] = q4_deq(w.x, sel, z0, s0); /* A row g: column nl */
		a[k8 >> 1][(k8 & 1) * 2 + 1] = q4_deq(w.y, sel, z1, s1); /* A row g + 8: column nl + 1 */
	}
}

// Waits for k-tile it of the ring and dequantizes this thread's A fragments of it into a.
template <bool G64>
__device__ __forceinline__ void q4_fetch(unsigned sbase, int it, int nl, unsigned sel, unsigned (&a)[4][4])
{
	const int s = it % Q4_STAGES;
	gw_mbar_wait(sbase + Q4_BAR_OFF + 8 * s, (unsigned)((it / Q4_STAGES) & 1)); /* full */
	gw_fence_proxy_async();
	q4_dequant<G64>(sbase + Q4_STAGES * Q4_X_BYTES + s * Q4_E_BYTES, nl, sel, a);
#pragma unroll
	for (int i = 0; i < 4; i++)
		asm volatile("" : "+r"(a[i][0]), "+r"(a[i][1]), "+r"(a[i][2]), "+r"(a[i][3])::"memory");
}

// The four wgmma of k-tile it (one commit group).
__device__ __forceinline__ void q4_issue(unsigned sbase, int it, float (&acc)[128], unsigned (&a)[4][4])
{
	const gw_u64 db = gw_desc(sbase + (it % Q4_STAGES) * Q4_X_BYTES, 16, 1024);
	gw_wgmma_fence();
#pragma unroll
	for (int ks = 0; ks < Q4_BK / 16; ks++)
		gw_wgmma_rs(acc, a[ks], db + (gw_u64)(ks * 2)); /* + 32 bytes per k16 step */
	gw_wgmma_commit();
}

// Waits for the wgmma group of k-tile it and hands its stage back to the producer.
__device__ __forceinline__ void q4_retire(unsigned sbase, int it)
{
	gw_wgmma_wait<0>();
	if ((threadIdx.x & 31) == 0)
		gw_mbar_arrive(sbase + Q4_BAR_OFF + 8 * (Q4_STAGES + it % Q4_STAGES)); /* empty */
}

// Main loop of one tile: k-tiles it0 .. it0 + KT - 1 of the ring. The A fragments of k-tile
// kt + 1 are dequantized (into the other register set) while the wgmma of k-tile kt run.
template <bool G64>
__device__ __forceinline__ void q4_consumer(unsigned sbase, int it0, int KT, int nl, float (&acc)[128])
{
	const unsigned t = threadIdx.x & 3;
	const unsigned sel = 0x4040u | t | (t << 8); /* bytes: w.t, 0, w.t, 0 */
	unsigned a0[4][4], a1[4][4];
#pragma unroll
	for (int i = 0; i < 128; i++)
		acc[i] = 0.f;
	gw_fence_acc(acc);
	q4_fetch<G64>(sbase, it0, nl, sel, a0);
	for (int kt = 0; kt < KT; kt += 2) {
		q4_issue(sbase, it0 + kt, acc, a0);
		if (kt + 1 < KT)
			q4_fetch<G64>(sbase, it0 + kt + 1, nl, sel, a1);
		q4_retire(sbase, it0 + kt);
		if (kt + 1 < KT) {
			q4_issue(sbase, it0 + kt + 1, acc, a1);
			if (kt + 2 < KT)
				q4_fetch<G64>(sbase, it0 + kt + 2, nl, sel, a0);
			q4_retire(sbase, it0 + kt + 1);
		}
	}
	gw_fence_acc(acc);
}

extern "C" __global__ void __launch_bounds__(Q4_THREADS, 1)
int4_matmul_golden(const __half *__restrict__ X, const int *__restrict__ qweight, const __half *__restrict__ scales,
		   const int *__restrict__ qzeros, __half *__restrict__ C, int M, int N, int K, int G)
{
	extern __shared__ __align__(1024) unsigned char gw_smem[];
	const unsigned sbase = (gw_smem_u32(gw_smem) + 1023u) & ~1023u;
	const unsigned bar = sbase + Q4_BAR_OFF;

	const int num_m = (M + Q4_BM - 1) / Q4_BM, num_n = (N + Q4_BN - 1) / Q4_BN;
	const int KT = (K + Q4_BK - 1) / Q4_BK;

	if (threadIdx.x == 0) {
		for (int s = 0; s < Q4_STAGES; s++) {
			gw_mbar_init(bar + 8 * s, 128);             /* full: one arrival per producer thread */
			gw_mbar_init(bar + 8 * (Q4_STAGES + s), 8); /* empty: one per consumer warp */
		}
	}
	__syncthreads();

	const int wg = threadIdx.x >> 7;
	if (wg == 0) {
		asm volatile("setmaxnreg.dec.sync.aligned.u32 64;\n" ::: "memory");
		Q4Args p;
		p.x = reinterpret_cast<const unsigned short *>(X);
		p.qw = qweight;
		p.scales = reinterpret_cast<const unsigned short *>(scales);
		p.qz = qzeros;
		p.M = M;
		p.N = N;
		p.K = K;
		p.G = G;
		const bool fast = ((reinterpret_cast<unsigned long long>(X) | reinterpret_cast<unsigned long long>(qweight) |
				    reinterpret_cast<unsigned long long>(scales)) & 15ull) == 0;
		if (fast)
			q4_producer_fast(p, sbase, num_m, num_n, KT);
		else
			q4_producer_slow(p, sbase, num_m, num_n, KT);
		return;
	}
	asm volatile("setmaxnreg.inc.sync.aligned.u32 216;\n" ::: "memory");

	const int tid = threadIdx.x - 128, lane = tid & 31;
	const int nl = (wg - 1) * 64 + ((tid >> 5) & 3) * 16 + 2 * (lane >> 2); /* columns nl, nl + 1 of the tile */
	const bool pair_ok = (reinterpret_cast<unsigned long long>(C) & 3ull) == 0;
	int it0 = 0;
	for (int tile = blockIdx.x; tile < num_m * num_n; tile += gridDim.x, it0 += KT) {
		int m0, n0;
		gw_group_tile<Q4_GROUP_M, Q4_BM, Q4_BN>(num_m, num_n, tile, m0, n0);
		float acc[128];
		if (G % Q4_BK == 0)
			q4_consumer<true>(sbase, it0, KT, nl, acc);
		else
			q4_consumer<false>(sbase, it0, KT, nl, acc);

		// epilogue: acc[4 j + h] (h = 0, 1: column nl, row m0 + 8 j + 2 t + h; h + 2: column nl + 1)
		const int n = n0 + nl;
		if (n >= N) /* N even: n + 1 < N otherwise */
			continue;
		const int mb = m0 + 2 * (lane & 3);
#pragma unroll
		for (int j = 0; j < 32; j++) {
#pragma unroll
			for (int h = 0; h < 2; h++) {
				const int m = mb + 8 * j + h;
				if (m < M) {
					__half *cp = C + (size_t)m * N + n;
					if (pair_ok) {
						*reinterpret_cast<__half2 *>(cp) = __floats2half2_rn(acc[4 * j + h], acc[4 * j + 2 + h]);
					} else {
						cp[0] = __float2half_rn(acc[4 * j + h]);
						cp[1] = __float2half_rn(acc[4 * j + 2 + h]);
					}
				}
			}
		}
	}
}
