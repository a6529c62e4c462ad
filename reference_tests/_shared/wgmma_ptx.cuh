// wgmma_ptx.cuh: the PTX primitives of the Hopper goldens (docs/problem-format.md, golden_prelude):
// the seven GEMM problems of gemm_wgmma.cuh (listed before it), gemm_gelu_bf16 and int4_matmul.
// cp.async, st.shared, mbarriers, proxy fences, the wgmma group fences and the shared-memory matrix
// descriptor; the grouped tile order and the walk over a warpgroup's accumulator fragment.
// gw_wgmma (the m64n256k16 wgmma from shared memory) exists when the problem defines
//   GW_AB         the operand type of the wgmma instruction: f16 or bf16
//   GW_B_KMAJOR   0: B is [K, N] row-major (N-major in shared memory); 1: B is [N, K] (K-major)

typedef unsigned long long gw_u64;

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

__device__ __forceinline__ void gw_cp_async_wait_all()
{
	asm volatile("cp.async.wait_all;\n" ::: "memory");
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

__device__ __forceinline__ void gw_mbar_init(unsigned bar, unsigned count)
{
	asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
}

__device__ __forceinline__ void gw_mbar_arrive(unsigned bar)
{
	asm volatile("{\n.reg .b64 st;\nmbarrier.arrive.shared::cta.b64 st, [%0];\n}\n" ::"r"(bar) : "memory");
}

// waits until the phase with the given parity has completed
__device__ __forceinline__ void gw_mbar_wait(unsigned bar, unsigned parity)
{
	unsigned done;
	do {
		asm volatile("{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\nselp.u32 %0, 1, 0, p;\n}\n"
			     : "=r"(done)
			     : "r"(bar), "r"(parity)
			     : "memory");
	} while (!done);
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

#ifdef GW_AB
#define GW_STR_(x) #x
#define GW_STR(x) GW_STR_(x)
#if GW_B_KMAJOR
#define GW_TRANS_B "0" /* imm-trans-b of wgmma: B is K-major */
#else
#define GW_TRANS_B "1" /* B is N-major: transposed */
#endif

// D[64 x 256] (f32, registers) += A[64 x 16] (K-major) * B[16 x 256] (imm-trans-b GW_TRANS_B), A and B read
// from shared memory through descriptors da, db; asynchronous until wgmma.wait_group
__device__ __forceinline__ void gw_wgmma(float (&d)[128], gw_u64 da, gw_u64 db)
{
	asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
		     "wgmma.mma_async.sync.aligned.m64n256k16.f32." GW_STR(GW_AB) "." GW_STR(GW_AB) " "
		     "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127}, %128, %129, p, 1, 1, 0, " GW_TRANS_B ";\n}\n"
		     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
		     : "l"(da), "l"(db), "r"(1));
}
#endif

// Shared-memory matrix descriptor: 128-byte swizzle, base offset 0 (every swizzle atom starts on a
// 1024-byte boundary). Address, leading and stride byte offsets are stored in 16-byte units.
__device__ __forceinline__ gw_u64 gw_desc(unsigned addr, unsigned lbo, unsigned sbo)
{
	return (gw_u64)((addr & 0x3FFFFu) >> 4) | ((gw_u64)(lbo >> 4) << 16) | ((gw_u64)(sbo >> 4) << 32) |
	       (1ull << 62);
}

// 8 consecutive 16-bit elements, element e read only when e < count (the rest are 0)
__device__ __forceinline__ uint4 gw_load8_guarded(const unsigned short *p, int count)
{
	unsigned short v[8];
#pragma unroll
	for (int e = 0; e < 8; e++)
		v[e] = e < count ? p[e] : (unsigned short)0;
	uint4 r;
	r.x = (unsigned)v[0] | ((unsigned)v[1] << 16);
	r.y = (unsigned)v[2] | ((unsigned)v[3] << 16);
	r.z = (unsigned)v[4] | ((unsigned)v[5] << 16);
	r.w = (unsigned)v[6] | ((unsigned)v[7] << 16);
	return r;
}

// The accumulator fragment of a warpgroup's m64n256 wgmma, by pairs of columns: BODY runs with row
// (< M), crow = C + row * N, col and the accumulators a0, a1 of columns col and col + 1 (both
// loops unrolled). In scope: tid (threadIdx.x) and lane (tid & 31).
#define GW_FOR_EACH_PAIR(T, C, M, N, m0, n0, acc, ...)                                            \
	const int row0 = (m0) + (tid >> 7) * 64 + ((tid >> 5) & 3) * 16 + (lane >> 2);            \
	_Pragma("unroll") for (int h = 0; h < 2; h++)                                              \
	{                                                                                          \
		const int row = row0 + 8 * h;                                                      \
		if (row >= (M))                                                                    \
			continue;                                                                  \
		T *crow = (C) + (size_t)row * (N);                                                 \
		_Pragma("unroll") for (int j = 0; j < 32; j++)                                     \
		{                                                                                  \
			const int col = (n0) + 8 * j + 2 * (lane & 3);                             \
			const float a0 = (acc)[4 * j + 2 * h], a1 = (acc)[4 * j + 2 * h + 1];      \
			__VA_ARGS__                                                                \
		}                                                                                  \
	}

// Tile pid of a tiles_m x tiles_n grid of BM x BN output tiles -> its origin (m0, n0): groups of
// GROUP_M tile-rows, column by column inside a group, so the CTAs running together share the
// operand panels in L2.
template <int GROUP_M, int BM, int BN>
__device__ __forceinline__ void gw_group_tile(int tiles_m, int tiles_n, int pid, int &m0, int &n0)
{
	const int group = GROUP_M * tiles_n;
	const int first_m = (pid / group) * GROUP_M;
	const int gm = min(tiles_m - first_m, GROUP_M);
	m0 = (first_m + (pid % group) % gm) * BM;
	n0 = ((pid % group) / gm) * BN;
}
