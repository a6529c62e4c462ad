// gemm_batched_bf16 fast golden: C[b] = A[b] * B[b] for b < batch; A[batch,M,K], B[batch,K,N],
// C[batch,M,N]; bf16 inputs, fp32 accumulation, bf16 output, row-major, densely packed.
// blockIdx.y is the batch index.
// The GEMM itself is reference_tests/_shared/gemm_wgmma.cuh (problem.json: golden_prelude).

extern "C" __global__ void __launch_bounds__(GW_THREADS, 1)
gemm_batched_bf16(const __nv_bfloat16 *__restrict__ A, const __nv_bfloat16 *__restrict__ B, __nv_bfloat16 *__restrict__ C,
		  int batch, int M, int N, int K)
{
	const int z = blockIdx.y; /* matrix index */
	if (z >= batch)
		return;
	gw_gemm(A, B, C, M, N, K, z, GwIdentity());
}
