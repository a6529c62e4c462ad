// Golden kernels for l2_norm_triton1: y[r, :] = x[r, :] / sqrt(sum_c x[r, c]^2 + eps).
//
// Two-kernel plan (problem.json golden_launch) so that long rows are spread over many blocks:
//   1. l2norm_partial, grid (rows, nchunks), block 256: block (r, k) writes the sum of squares of
//      columns [16384 k, 16384 (k+1)) of row r to partial[r * nchunks + k].
//   2. l2norm_finish, grid (rows, nchunks), block 256: every block of row r adds that row's
//      partials in one fixed order (so all blocks of the row get the same bits), then scales its
//      own 16384-column chunk. It walks the blocks in the reverse order of kernel 1, so the chunks
//      that kernel 1 read last are the first re-read, while they may still be in L2.
// Sums are fp32: each thread accumulates its elements sequentially with fmaf, then a warp
// butterfly and a fixed-order sum of the 8 warp results; no atomics, so the result is
// deterministic. Rows with cols % 4 == 0 and a 16-byte aligned x/y use float4 accesses; all
// other shapes use scalar accesses (row starts are then not 16-byte aligned).
// nchunks = cdiv(cols, 16384) must equal the gridDim.y the plan gives.

#define L2N_THREADS 256
#define L2N_CHUNK 16384

__device__ __forceinline__ float l2n_block_sum(float v, float* red)
{
#pragma unroll
	for (int o = 16; o > 0; o >>= 1)
		v += __shfl_xor_sync(0xffffffffu, v, o);
	if ((threadIdx.x & 31) == 0)
		red[threadIdx.x >> 5] = v;
	__syncthreads();
	float s = red[0];
#pragma unroll
	for (int w = 1; w < L2N_THREADS / 32; ++w)
		s += red[w];
	return s;
}

__device__ __forceinline__ bool l2n_aligned16(const void* p)
{
	return (reinterpret_cast<unsigned long long>(p) & 15ull) == 0;
}

extern "C" __global__ void __launch_bounds__(L2N_THREADS)
l2norm_partial(const float* __restrict__ x, float* __restrict__ partial, int rows, int cols)
{
	__shared__ float red[L2N_THREADS / 32];
	const int row = blockIdx.x, chunk = blockIdx.y;
	const int nchunks = (cols + L2N_CHUNK - 1) / L2N_CHUNK;
	const float* __restrict__ xr = x + (size_t)row * cols;
	const int c0 = chunk * L2N_CHUNK;
	const int c1 = min(cols, c0 + L2N_CHUNK);
	float acc = 0.f;
	if ((cols & 3) == 0 && l2n_aligned16(x)) {
		const float4* __restrict__ xv = reinterpret_cast<const float4*>(xr + c0);
		const int nv = (c1 - c0) >> 2;
#pragma unroll 4
		for (int i = threadIdx.x; i < nv; i += L2N_THREADS) {
			const float4 v = __ldg(xv + i);
			acc = fma4(v, v, acc);
		}
	} else {
#pragma unroll 4
		for (int c = c0 + threadIdx.x; c < c1; c += L2N_THREADS) {
			const float v = __ldg(xr + c);
			acc = fmaf(v, v, acc);
		}
	}
	const float s = l2n_block_sum(acc, red);
	if (threadIdx.x == 0)
		partial[(size_t)row * nchunks + chunk] = s;
}

extern "C" __global__ void __launch_bounds__(L2N_THREADS)
l2norm_finish(const float* __restrict__ x, const float* __restrict__ partial, float* __restrict__ y,
	      int rows, int cols, float eps)
{
	__shared__ float red[L2N_THREADS / 32];
	const int nchunks = (cols + L2N_CHUNK - 1) / L2N_CHUNK;
	const int row = rows - 1 - (int)blockIdx.x;
	const int chunk = nchunks - 1 - (int)blockIdx.y;

	float p = 0.f;
	for (int i = threadIdx.x; i < nchunks; i += L2N_THREADS)
		p += __ldg(partial + (size_t)row * nchunks + i);
	const float ss = l2n_block_sum(p, red);
	const float r = 1.0f / sqrtf(ss + eps);

	const size_t base = (size_t)row * cols;
	const int c0 = chunk * L2N_CHUNK;
	const int c1 = min(cols, c0 + L2N_CHUNK);
	if ((cols & 3) == 0 && l2n_aligned16(x) && l2n_aligned16(y)) {
		const float4* __restrict__ xv = reinterpret_cast<const float4*>(x + base + c0);
		float4* __restrict__ yv = reinterpret_cast<float4*>(y + base + c0);
		const int nv = (c1 - c0) >> 2;
#pragma unroll 4
		for (int i = threadIdx.x; i < nv; i += L2N_THREADS) {
			float4 v = __ldg(xv + i);
			v.x *= r;
			v.y *= r;
			v.z *= r;
			v.w *= r;
			yv[i] = v;
		}
	} else {
#pragma unroll 4
		for (int c = c0 + threadIdx.x; c < c1; c += L2N_THREADS)
			y[base + c] = __ldg(x + base + c) * r;
	}
}
