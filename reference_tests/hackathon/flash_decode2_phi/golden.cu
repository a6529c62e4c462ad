// Golden kernel for flash_decode2_phi (second stage of flash decoding).
//
// For batch b and head h, the first stage produced, per split j of block_seq keys, a normalised
// partial output mid_o[b, h, j, :] and the log-sum-exp of its scores lse[b, h, j]. Only the
// first n = cdiv(b_seqlen[b], block_seq) splits hold data (n <= seq_block_num). This kernel
// combines them:
//     M = max_{j<n} lse_j,   w_j = exp(lse_j - M),   out[b, h, :] = sum_j w_j mid_o[b, h, j, :] / sum_j w_j
//
// Launch (problem.json golden_launch): grid cdiv(batch * heads, 8), block 256: one warp per
// (batch, head). The warp finds M and sum_j w_j with lane-strided loops and xor butterflies
// (fmaxf and + are commutative, so every lane ends with the same bits), then each lane
// accumulates two columns (d and d + 32 of a 64-wide slab, coalesced 128-byte rows) over the
// splits with fmaf in increasing j, unrolled 4x so several row loads are in flight.
// Deterministic: fixed order everywhere, no atomics.

#define FD_THREADS 256

extern "C" __global__ void __launch_bounds__(FD_THREADS)
flash_decode_stage2_golden(const int* __restrict__ b_seqlen, const float* __restrict__ mid_o,
			   const float* __restrict__ lse, float* __restrict__ out, int batch, int heads,
			   int nblk, int head_dim, int block_seq)
{
	const long long warp = ((long long)blockIdx.x * FD_THREADS + threadIdx.x) >> 5;
	const int lane = threadIdx.x & 31;
	if (warp >= (long long)batch * heads)
		return; /* the whole warp leaves together */
	const int b = (int)(warp / heads);
	const int seqlen = __ldg(b_seqlen + b);
	int n = seqlen <= 0 ? 0 : (int)(((long long)seqlen + block_seq - 1) / block_seq);
	n = min(n, nblk);

	const float* __restrict__ L = lse + warp * nblk;
	const float* __restrict__ V = mid_o + warp * nblk * (long long)head_dim;
	float* __restrict__ O = out + warp * head_dim;

	float m = __int_as_float(0xff800000); /* -inf (NVRTC has no INFINITY macro) */
	for (int j = lane; j < n; j += 32)
		m = fmaxf(m, __ldg(L + j));
#pragma unroll
	for (int o = 16; o > 0; o >>= 1)
		m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));

	float s = 0.f;
	for (int j = lane; j < n; j += 32)
		s += expf(__ldg(L + j) - m);
#pragma unroll
	for (int o = 16; o > 0; o >>= 1)
		s += __shfl_xor_sync(0xffffffffu, s, o);

	for (int d0 = 0; d0 < head_dim; d0 += 64) {
		const int da = d0 + lane, db = d0 + 32 + lane;
		const bool ha = da < head_dim, hb = db < head_dim;
		float acc_a = 0.f, acc_b = 0.f;
#pragma unroll 4
		for (int j = 0; j < n; ++j) {
			const float w = expf(__ldg(L + j) - m);
			const float* __restrict__ row = V + (long long)j * head_dim;
			if (ha)
				acc_a = fmaf(w, __ldg(row + da), acc_a);
			if (hb)
				acc_b = fmaf(w, __ldg(row + db), acc_b);
		}
		if (ha)
			O[da] = acc_a / s;
		if (hb)
			O[db] = acc_b / s;
	}
}
