// Fast golden kernel for triton_matmul: C = A @ B with A [M, K], B [K, N], C [M, N], all row-major
// float16, accumulated in float32 on the tensor cores and rounded once to float16.
// The GEMM itself is reference_tests/_shared/gemm_wgmma.cuh (problem.json: golden_prelude).

extern "C" __global__ void __launch_bounds__(GW_THREADS, 1)
matmul_golden(const __half *__restrict__ A, const __half *__restrict__ B, __half *__restrict__ C, int M, int N, int K)
{
	gw_gemm(A, B, C, M, N, K, 0, GwIdentity());
}
