// avgpool2d_f16 golden: y = avg_pool2d(x, kernel 2, stride 2), NCHW, float16 in/out.
//   x[Nb, C, H, W], y[Nb, C, Ho, Wo], Ho = H / 2, Wo = W / 2 (no padding; an odd last row/column is
//   dropped).
//   y[n][c][i][j] = ((x[2i][2j] + x[2i][2j+1]) + (x[2i+1][2j] + x[2i+1][2j+1])) * 0.25, summed in
//   fp32 and rounded once to fp16.
//
// Memory-bound. Each thread produces four adjacent outputs (j = 4q .. 4q+3) from input columns
// 8q .. 8q+7 of two rows. Fast path (W % 8 == 0, 16-byte aligned x, 8-byte aligned y): one 16-byte
// load per input row, one 8-byte store; every input byte is read exactly once. Otherwise a guarded
// scalar path. Requires Nb*C*Ho*cdiv(Wo,4) < 2^31.
#include <cuda_fp16.h>

extern "C" __global__ void __launch_bounds__(256)
avgpool2d_f16(const __half *__restrict__ x, __half *__restrict__ y, int Nb, int C, int H, int W, int Ho, int Wo)
{
	const int G = (Wo + 3) >> 2; // groups of 4 outputs per output row
	PoolPos pp;
	if (!pool_pos(pp, Nb, C, Ho, G))
		return;
	const int row = pp.row, q = pp.q, plane = pp.plane, i = pp.i;
	const __half *r0 = x + ((size_t)plane * H + 2 * i) * W;
	const __half *r1 = r0 + W;
	__half *yp = y + (size_t)row * Wo;

	const bool fast = ((W & 7) == 0) && ((((unsigned long long)x) & 15ull) == 0) &&
			  ((((unsigned long long)y) & 7ull) == 0);
	if (fast) {
		// W % 8 == 0 => Wo % 4 == 0: the group is complete
		const uint4 u0 = __ldcs(reinterpret_cast<const uint4 *>(r0 + 8 * q));
		const uint4 u1 = __ldcs(reinterpret_cast<const uint4 *>(r1 + 8 * q));
		const __half2 *h0 = reinterpret_cast<const __half2 *>(&u0);
		const __half2 *h1 = reinterpret_cast<const __half2 *>(&u1);
		float o[4];
#pragma unroll
		for (int k = 0; k < 4; k++) {
			const float2 a = __half22float2(h0[k]);
			const float2 b = __half22float2(h1[k]);
			o[k] = ((a.x + a.y) + (b.x + b.y)) * 0.25f;
		}
		__half2 out[2];
		out[0] = __floats2half2_rn(o[0], o[1]);
		out[1] = __floats2half2_rn(o[2], o[3]);
		*reinterpret_cast<uint2 *>(yp + 4 * q) = *reinterpret_cast<const uint2 *>(out);
	} else {
#pragma unroll
		for (int k = 0; k < 4; k++) {
			const int j = 4 * q + k;
			if (j >= Wo)
				break;
			const float a0 = __half2float(r0[2 * j]), a1 = __half2float(r0[2 * j + 1]);
			const float b0 = __half2float(r1[2 * j]), b1 = __half2float(r1[2 * j + 1]);
			yp[j] = __float2half_rn(((a0 + a1) + (b0 + b1)) * 0.25f);
		}
	}
}
