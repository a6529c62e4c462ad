// sgemm_f32.cuh: the register-blocked FP32 GEMM step shared by gemm_f32 and conv2d_f32 (an implicit
// GEMM) (docs/problem-format.md, golden_prelude). A 256-thread CTA computes a 128x128 tile, each
// thread an 8x8 block: two 4-row groups 64 apart (ty) times two 4-column groups 64 apart (tx), so
// the shared-memory reads are float4 and free of bank conflicts. A is stored transposed
// (As[k][m]).

// The tile row (or column) of the thread's i-th row (column) of its 8x8 block.
__device__ __forceinline__ int sg_row(int t, int i) { return i < 4 ? t * 4 + i : 64 + t * 4 + (i - 4); }

// acc += As[0 .. NK) x Bs[0 .. NK): one k-step of the thread's 8x8 block, each output one
// sequential fp32 FMA chain over k.
template <int NK, int LDA, int LDB>
__device__ __forceinline__ void sg_step(float (&acc)[8][8], const float (&As)[NK][LDA], const float (&Bs)[NK][LDB],
					int ty, int tx)
{
#pragma unroll
	for (int k = 0; k < NK; k++) {
		float a[8], b[8];
		const float4 a0 = *reinterpret_cast<const float4 *>(&As[k][ty * 4]);
		const float4 a1 = *reinterpret_cast<const float4 *>(&As[k][64 + ty * 4]);
		const float4 b0 = *reinterpret_cast<const float4 *>(&Bs[k][tx * 4]);
		const float4 b1 = *reinterpret_cast<const float4 *>(&Bs[k][64 + tx * 4]);
		a[0] = a0.x; a[1] = a0.y; a[2] = a0.z; a[3] = a0.w;
		a[4] = a1.x; a[5] = a1.y; a[6] = a1.z; a[7] = a1.w;
		b[0] = b0.x; b[1] = b0.y; b[2] = b0.z; b[3] = b0.w;
		b[4] = b1.x; b[5] = b1.y; b[6] = b1.z; b[7] = b1.w;
#pragma unroll
		for (int i = 0; i < 8; i++)
#pragma unroll
			for (int j = 0; j < 8; j++)
				acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
	}
}

__device__ __forceinline__ void sg_zero(float (&acc)[8][8])
{
#pragma unroll
	for (int i = 0; i < 8; i++)
#pragma unroll
		for (int j = 0; j < 8; j++)
			acc[i][j] = 0.f;
}

// Stores the thread's four A values of a k-step (k rows sk .. sk + 3 of tile row sm), transposed.
template <int NK, int LDA>
__device__ __forceinline__ void sg_put_a(float (&As)[NK][LDA], const float (&ra)[4], int sk, int sm)
{
#pragma unroll
	for (int i = 0; i < 4; i++)
		As[sk + i][sm] = ra[i];
}
