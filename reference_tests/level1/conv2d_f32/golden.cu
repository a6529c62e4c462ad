// conv2d_f32 golden: y = conv2d(x, w, bias), NCHW, 3x3 kernel, stride 1, padding 1, float32.
//   x[Nb, Cin, H, W], w[Cout, Cin, 3, 3], bias[Cout], y[Nb, Cout, H, W]
//   y[n][co][h][w] = bias[co] + sum_{ci, r, s} w[co][ci][r][s] * x[n][ci][h + r - 1][w + s - 1]
//   (taps outside the image contribute 0).
//
// Implicit GEMM on the FP32 pipes: GEMM rows are output channels (M = Cout), columns are output
// pixels (N = Nb*H*W, in (n, h, w) order), and the reduction runs over k = ci*9 + r*3 + s
// (K = Cin*9), which is exactly the row-major layout of w. The im2col matrix is never built: each
// thread gathers four taps of one pixel straight from x with zero padding (a warp reads 32
// consecutive pixels per tap, which is coalesced).
// Tiling as a register-blocked SGEMM: 256 threads, 128x128 CTA tile, 8x8 outputs per thread,
// k-steps of 8 through double-buffered shared memory (next step fetched into registers while the
// current one is consumed). Each output is one thread's sequential fp32 FMA chain over k, then
// + bias: deterministic. Requires Nb*Cin*H*W and Nb*Cout*H*W < 2^31.

#define CBM 128
#define CBN 128
#define CBK 8
#define CAPAD 4

struct ConvGather {
	int base; // offset of x[n][0][h][w] for the thread's pixel
	int hw;   // (h << 16) | w, or -1 for a pixel past the end
};

template <bool VEC>
__device__ __forceinline__ void conv_fetch(const float *__restrict__ x, const float *__restrict__ wt, int Cout,
					   int Kg, int H, int W, int m0, int k0, int tid, const ConvGather &gp,
					   float (&ra)[4], float (&rb)[4])
{
	// weights (A tile, 128 x 8): row tid/2, four consecutive k at (tid%2)*4
	const int am = m0 + (tid >> 1), ak = k0 + ((tid & 1) << 2);
	if (VEC) { // Kg % 4 == 0: a float4 is wholly inside or outside
		if (am < Cout && ak < Kg) {
			const float4 v = __ldg(reinterpret_cast<const float4 *>(wt + (size_t)am * Kg + ak));
			ra[0] = v.x; ra[1] = v.y; ra[2] = v.z; ra[3] = v.w;
		} else {
			ra[0] = ra[1] = ra[2] = ra[3] = 0.f;
		}
	} else {
#pragma unroll
		for (int i = 0; i < 4; i++)
			ra[i] = (am < Cout && ak + i < Kg) ? __ldg(wt + (size_t)am * Kg + ak + i) : 0.f;
	}
	// im2col (B tile, 8 x 128): pixel tid%128, four consecutive k at (tid/128)*4
	const int kb = k0 + ((tid >> 7) << 2);
	const int h = gp.hw >> 16, w = gp.hw & 0xffff;
#pragma unroll
	for (int j = 0; j < 4; j++) {
		const int k = kb + j;
		const int ci = k / 9, rs = k - ci * 9;
		const int r = rs / 3, s = rs - r * 3;
		const int ih = h + r - 1, iw = w + s - 1;
		const bool ok = k < Kg && gp.hw >= 0 && (unsigned)ih < (unsigned)H && (unsigned)iw < (unsigned)W;
		rb[j] = ok ? __ldg(x + gp.base + (ci * H + ih) * W + iw) : 0.f;
	}
}

template <bool VEC>
__device__ __forceinline__ void conv_body(const float *__restrict__ x, const float *__restrict__ wt,
					  const float *__restrict__ bias, float *__restrict__ y, int Nb, int Cin,
					  int Cout, int H, int W, float (&As)[2][CBK][CBM + CAPAD],
					  float (&Bs)[2][CBK][CBN])
{
	const int tid = threadIdx.x;
	const int tx = tid & 15, ty = tid >> 4;
	const int m0 = blockIdx.y * CBM, p0 = blockIdx.x * CBN;
	const int HW = H * W, P = Nb * HW, Kg = Cin * 9;
	const int KT = (Kg + CBK - 1) / CBK;

	ConvGather gp;
	{
		const int p = p0 + (tid & 127);
		if (p < P) {
			const int n = p / HW, hw = p - n * HW;
			const int h = hw / W;
			gp.base = n * Cin * HW;
			gp.hw = (h << 16) | (hw - h * W);
		} else {
			gp.base = 0;
			gp.hw = -1;
		}
	}

	float acc[8][8];
	sg_zero(acc);

	float ra[4], rb[4];
	const int sm = tid >> 1, sk = (tid & 1) << 2;
	const int tp = tid & 127, tk = (tid >> 7) << 2; // where this thread's B values go

	conv_fetch<VEC>(x, wt, Cout, Kg, H, W, m0, 0, tid, gp, ra, rb);
	sg_put_a(As[0], ra, sk, sm);
#pragma unroll
	for (int i = 0; i < 4; i++)
		Bs[0][tk + i][tp] = rb[i];
	__syncthreads();

	for (int kt = 0; kt < KT; kt++) {
		const int cur = kt & 1;
		const bool more = kt + 1 < KT;
		if (more)
			conv_fetch<VEC>(x, wt, Cout, Kg, H, W, m0, (kt + 1) * CBK, tid, gp, ra, rb);
		sg_step(acc, As[cur], Bs[cur], ty, tx);
		if (more) {
			sg_put_a(As[cur ^ 1], ra, sk, sm);
#pragma unroll
			for (int i = 0; i < 4; i++)
				Bs[cur ^ 1][tk + i][tp] = rb[i];
		}
		__syncthreads();
	}

	// Epilogue: + bias, scatter to NCHW. Four consecutive pixels starting at a multiple of 4 lie in
	// one image when H*W % 4 == 0, so they are contiguous in y and a float4 store is used.
	const bool vec_store = ((HW & 3) == 0) && (((unsigned long long)y & 15ull) == 0);
#pragma unroll
	for (int i = 0; i < 8; i++) {
		const int co = m0 + sg_row(ty, i);
		if (co >= Cout)
			continue;
		const float bv = __ldg(bias + co);
#pragma unroll
		for (int hf = 0; hf < 2; hf++) {
			const int p = p0 + hf * 64 + tx * 4;
			if (vec_store && p + 3 < P) {
				const int n = p / HW, hw = p - n * HW;
				*reinterpret_cast<float4 *>(y + ((size_t)n * Cout + co) * HW + hw) =
					make_float4(acc[i][hf * 4 + 0] + bv, acc[i][hf * 4 + 1] + bv, acc[i][hf * 4 + 2] + bv,
						    acc[i][hf * 4 + 3] + bv);
			} else {
#pragma unroll
				for (int j = 0; j < 4; j++) {
					const int pj = p + j;
					if (pj < P) {
						const int n = pj / HW, hw = pj - n * HW;
						y[((size_t)n * Cout + co) * HW + hw] = acc[i][hf * 4 + j] + bv;
					}
				}
			}
		}
	}
}

extern "C" __global__ void __launch_bounds__(256, 2)
conv2d_f32(const float *__restrict__ x, const float *__restrict__ w, const float *__restrict__ bias,
	   float *__restrict__ y, int Nb, int Cin, int Cout, int H, int W)
{
	__shared__ __align__(16) float As[2][CBK][CBM + CAPAD];
	__shared__ __align__(16) float Bs[2][CBK][CBN];
	const bool vec = ((Cin & 3) == 0) && (((unsigned long long)w & 15ull) == 0);
	if (vec)
		conv_body<true>(x, w, bias, y, Nb, Cin, Cout, H, W, As, Bs);
	else
		conv_body<false>(x, w, bias, y, Nb, Cin, Cout, H, W, As, Bs);
}
