// maxpool2d_f32 golden: y = max_pool2d(x, kernel 3, stride 2, padding 1), NCHW, float32.
//   x[Nb, C, H, W], y[Nb, C, Ho, Wo], Ho = (H - 1) / 2 + 1, Wo = (W - 1) / 2 + 1
//   y[n][c][i][j] = max over r, s in {0,1,2} of x[n][c][2i + r - 1][2j + s - 1], taps outside the
//   image ignored (every window holds at least one in-image tap).
//
// Memory-bound. Each thread produces two horizontally adjacent outputs (j = 2q, 2q + 1), which read
// input columns 4q - 1 .. 4q + 3 of three rows. Fast path (W % 4 == 0, 16-byte aligned x, 8-byte
// aligned y): columns 4q .. 4q+3 come as one float4, column 4q - 1 as a scalar (an L1 hit: the
// neighbouring thread's float4), and the pair is stored as a float2. Otherwise a guarded scalar
// path. Rows shared by vertically adjacent windows are re-read from L1/L2, so DRAM traffic stays
// close to one read of x and one write of y. Requires Nb*C*Ho*cdiv(Wo,2) < 2^31.

#define NEG_INF __int_as_float(0xff800000u)
// In the loop over the window's rows r: rp = input row ih0 + r of the plane; rows outside the
// image are skipped (continue).
#define MP_WINDOW_ROW(rp, r)                    \
	const int ih = ih0 + (r);               \
	if ((unsigned)ih >= (unsigned)H)        \
		continue;                       \
	const float *rp = xp + (size_t)ih * W

extern "C" __global__ void __launch_bounds__(256)
maxpool2d_f32(const float *__restrict__ x, float *__restrict__ y, int Nb, int C, int H, int W, int Ho, int Wo)
{
	const int Wp = (Wo + 1) >> 1; // output pairs per row
	PoolPos pp;
	if (!pool_pos(pp, Nb, C, Ho, Wp))
		return;
	const int row = pp.row, q = pp.q, plane = pp.plane, i = pp.i;
	const float *xp = x + (size_t)plane * H * W;
	float *yp = y + (size_t)row * Wo;
	const int ih0 = 2 * i - 1;

	const bool fast = ((W & 3) == 0) && ((((unsigned long long)x) & 15ull) == 0) &&
			  ((((unsigned long long)y) & 7ull) == 0);
	if (fast) {
		// W % 4 == 0 => Wo = W / 2 is even, so both outputs exist and 4q + 3 < W.
		float m0 = NEG_INF, m1 = NEG_INF;
#pragma unroll
		for (int r = 0; r < 3; r++) {
			MP_WINDOW_ROW(rp, r);
			const float4 v = __ldg(reinterpret_cast<const float4 *>(rp + 4 * q));
			const float left = q > 0 ? __ldg(rp + 4 * q - 1) : NEG_INF;
			m0 = fmaxf(m0, fmaxf(left, fmaxf(v.x, v.y)));
			m1 = fmaxf(m1, fmaxf(v.y, fmaxf(v.z, v.w)));
		}
		*reinterpret_cast<float2 *>(yp + 2 * q) = make_float2(m0, m1);
	} else {
#pragma unroll
		for (int o = 0; o < 2; o++) {
			const int j = 2 * q + o;
			if (j >= Wo)
				break;
			const int iw0 = 2 * j - 1;
			float m = NEG_INF;
#pragma unroll
			for (int r = 0; r < 3; r++) {
				MP_WINDOW_ROW(rp, r);
#pragma unroll
				for (int s = 0; s < 3; s++) {
					const int iw = iw0 + s;
					if ((unsigned)iw < (unsigned)W)
						m = fmaxf(m, __ldg(rp + iw));
				}
			}
			yp[j] = m;
		}
	}
}
