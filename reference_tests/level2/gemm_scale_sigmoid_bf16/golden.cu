// Fast golden kernel: C[m, n] = sigmoid(scale * sum_k A[m, k] * B[n, k]), bfloat16 in and out,
// float32 accumulation on tensor cores; the scale and the sigmoid are applied in float32 in the
// epilogue and the result is rounded to bfloat16 once.
// The GEMM itself is reference_tests/_shared/gemm_wgmma.cuh (problem.json: golden_prelude).
struct ScaleSigmoid {
	float scale;
	__device__ __forceinline__ float operator()(float v, int) const
	{
		return 1.0f / (1.0f + __expf(-scale * v));
	}
};

extern "C" __global__ void __launch_bounds__(GW_THREADS, 1)
gemm_scale_sigmoid_bf16(const __nv_bfloat16 *__restrict__ A, const __nv_bfloat16 *__restrict__ B, __nv_bfloat16 *__restrict__ C,
			float scale, int M, int N, int K)
{
	gw_gemm(A, B, C, M, N, K, 0, ScaleSigmoid{scale});
}
