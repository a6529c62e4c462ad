// Golden kernel for matrix_vector_multip: C[i] = sum_j A[i, j] * B[j], A row-major [N, M], fp32.
//
// Launch (problem.json golden_launch): grid cdiv(N, 8), block 256: one warp per row. Each lane
// walks its share of the row with 16-byte loads of A and B (when M % 4 == 0 and both are 16-byte
// aligned; scalar loads otherwise), accumulating with fmaf in a fixed order; the loop is unrolled
// 4x so that several A loads are in flight per lane (B is small and stays in L1/L2). The 32 lane
// sums are combined with an xor butterfly and lane 0 stores C[i]. Deterministic: no atomics.

#define MV_THREADS 256
#define MV_ROWS (MV_THREADS / 32)

extern "C" __global__ void __launch_bounds__(MV_THREADS)
mv_golden(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int N, int M)
{
	const int row = blockIdx.x * MV_ROWS + (threadIdx.x >> 5);
	const int lane = threadIdx.x & 31;
	if (row >= N)
		return; /* the whole warp leaves together */
	const float* __restrict__ a = A + (size_t)row * M;
	float acc = 0.f;
	if ((M & 3) == 0 && ((reinterpret_cast<unsigned long long>(A) |
			      reinterpret_cast<unsigned long long>(B)) & 15ull) == 0) {
		const float4* __restrict__ a4 = reinterpret_cast<const float4*>(a);
		const float4* __restrict__ b4 = reinterpret_cast<const float4*>(B);
		const int nv = M >> 2;
#pragma unroll 4
		for (int j = lane; j < nv; j += 32) {
			const float4 av = __ldg(a4 + j);
			const float4 bv = __ldg(b4 + j);
			acc = fma4(av, bv, acc);
		}
	} else {
#pragma unroll 4
		for (int j = lane; j < M; j += 32)
			acc = fmaf(__ldg(a + j), __ldg(B + j), acc);
	}
#pragma unroll
	for (int o = 16; o > 0; o >>= 1)
		acc += __shfl_xor_sync(0xffffffffu, acc, o);
	if (lane == 0)
		C[row] = acc;
}
