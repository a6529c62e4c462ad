// dot4.cuh: a float4 dot product as one chain of fused multiply-adds, shared by the goldens of
// l2_norm_triton1, l2_norm_bwd and matrix_vector_multip (docs/problem-format.md, golden_prelude).

// acc + a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w, each step one fmaf, in that order.
__device__ __forceinline__ float fma4(float4 a, float4 b, float acc)
{
	acc = fmaf(a.x, b.x, acc);
	acc = fmaf(a.y, b.y, acc);
	acc = fmaf(a.z, b.z, acc);
	acc = fmaf(a.w, b.w, acc);
	return acc;
}
