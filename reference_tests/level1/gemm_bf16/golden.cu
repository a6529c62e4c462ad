// gemm_bf16 fast golden: C[M,N] = A[M,K] * B[K,N]; bf16 inputs, fp32 accumulation, bf16 output, row-major.
// The GEMM itself is reference_tests/_shared/gemm_wgmma.cuh (problem.json: golden_prelude).

extern "C" __global__ void __launch_bounds__(GW_THREADS, 1)
gemm_bf16(const __nv_bfloat16 *__restrict__ A, const __nv_bfloat16 *__restrict__ B, __nv_bfloat16 *__restrict__ C, int M,
	  int N, int K)
{
	gw_gemm(A, B, C, M, N, K, 0, GwIdentity());
}
