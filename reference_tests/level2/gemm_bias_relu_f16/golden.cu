// Fast golden kernel: C[m, n] = relu(sum_k A[m, k] * B[n, k] + bias[n]), float16 in and out,
// float32 accumulation on tensor cores; bias add and ReLU are applied in float32 in the epilogue and
// the result is rounded to half once.
// The GEMM itself is reference_tests/_shared/gemm_wgmma.cuh (problem.json: golden_prelude).
struct BiasRelu {
	const __half *bias;
	__device__ __forceinline__ float operator()(float v, int col) const
	{
		return fmaxf(v + __half2float(bias[col]), 0.0f);
	}
};

extern "C" __global__ void __launch_bounds__(GW_THREADS, 1)
gemm_bias_relu_f16(const __half *__restrict__ A, const __half *__restrict__ B, const __half *__restrict__ bias,
		   __half *__restrict__ C, int M, int N, int K)
{
	gw_gemm(A, B, C, M, N, K, 0, BiasRelu{bias});
}
