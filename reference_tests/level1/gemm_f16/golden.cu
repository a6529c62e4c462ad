// gemm_f16 fast golden: C[M,N] = A[M,K] * B[K,N]; fp16 inputs, fp32 accumulation, fp16 output, row-major.
// The GEMM itself is reference_tests/_shared/gemm_wgmma.cuh (problem.json: golden_prelude).

extern "C" __global__ void __launch_bounds__(GW_THREADS, 1)
gemm_f16(const __half *__restrict__ A, const __half *__restrict__ B, __half *__restrict__ C, int M, int N, int K)
{
	gw_gemm(A, B, C, M, N, K, 0, GwIdentity());
}
