// gemm_f32 golden: C[M,N] = A[M,K] * B[K,N], fp32, row-major.
//
// Classic register-blocked SGEMM: a 256-thread CTA computes a 128x128 tile of C, each thread an 8x8
// block (two 4-row groups 64 apart times two 4-column groups 64 apart, so shared-memory reads are
// float4 and bank-conflict free). K advances in steps of 8 through double-buffered shared memory;
// the next tile is fetched into registers while the current one is consumed, one barrier per step.
// A is stored transposed in shared memory (As[k][m], rows padded to 132 floats).
//
// Fast path (float4 global loads/stores) when K % 4 == 0, N % 4 == 0 and all pointers are 16-byte
// aligned; otherwise a guarded scalar path with the same structure. Tiles past M, N or K are
// zero-filled, so any M, N, K >= 1 is handled. Each output element is one thread's sequential fp32
// FMA chain over k: deterministic.

#define BM 128
#define BN 128
#define BK 8
#define APAD 4

template <bool VEC>
__device__ __forceinline__ void sgemm_fetch(const float *__restrict__ A, const float *__restrict__ B, int M, int N,
                                            int K, int m0, int n0, int k0, int tid, float (&ra)[4], float (&rb)[4])
{
	// A tile (128 x 8): thread -> row tid/2, four consecutive k at (tid%2)*4
	const int am = m0 + (tid >> 1), ak = k0 + ((tid & 1) << 2);
	// B tile (8 x 128): thread -> k row tid/32, four consecutive n at (tid%32)*4
	const int bk = k0 + (tid >> 5), bn = n0 + ((tid & 31) << 2);
	if (VEC) {
		// K % 4 == 0 and N % 4 == 0: a float4 is either wholly inside or wholly outside.
		if (am < M && ak < K) {
			const float4 v = __ldg(reinterpret_cast<const float4 *>(A + (size_t)am * K + ak));
			ra[0] = v.x; ra[1] = v.y; ra[2] = v.z; ra[3] = v.w;
		} else {
			ra[0] = ra[1] = ra[2] = ra[3] = 0.f;
		}
		if (bk < K && bn < N) {
			const float4 v = __ldg(reinterpret_cast<const float4 *>(B + (size_t)bk * N + bn));
			rb[0] = v.x; rb[1] = v.y; rb[2] = v.z; rb[3] = v.w;
		} else {
			rb[0] = rb[1] = rb[2] = rb[3] = 0.f;
		}
	} else {
#pragma unroll
		for (int i = 0; i < 4; i++) {
			ra[i] = (am < M && ak + i < K) ? __ldg(A + (size_t)am * K + ak + i) : 0.f;
			rb[i] = (bk < K && bn + i < N) ? __ldg(B + (size_t)bk * N + bn + i) : 0.f;
		}
	}
}

template <bool VEC>
__device__ __forceinline__ void sgemm_body(const float *__restrict__ A, const float *__restrict__ B,
                                           float *__restrict__ C, int M, int N, int K,
                                           float (&As)[2][BK][BM + APAD], float (&Bs)[2][BK][BN])
{
	const int tid = threadIdx.x;
	const int tx = tid & 15, ty = tid >> 4;
	const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
	const int KT = (K + BK - 1) / BK;

	float acc[8][8];
	sg_zero(acc);

	float ra[4], rb[4];
	const int sm = tid >> 1, sk = (tid & 1) << 2; // where this thread's A values go
	const int tk = tid >> 5, tn = (tid & 31) << 2; // where this thread's B values go

	sgemm_fetch<VEC>(A, B, M, N, K, m0, n0, 0, tid, ra, rb);
	sg_put_a(As[0], ra, sk, sm);
	*reinterpret_cast<float4 *>(&Bs[0][tk][tn]) = make_float4(rb[0], rb[1], rb[2], rb[3]);
	__syncthreads();

	for (int kt = 0; kt < KT; kt++) {
		const int cur = kt & 1;
		const bool more = kt + 1 < KT;
		if (more)
			sgemm_fetch<VEC>(A, B, M, N, K, m0, n0, (kt + 1) * BK, tid, ra, rb);
		sg_step(acc, As[cur], Bs[cur], ty, tx);
		if (more) {
			// buffer cur^1 was last read in iteration kt-1, before the barrier that ended it
			sg_put_a(As[cur ^ 1], ra, sk, sm);
			*reinterpret_cast<float4 *>(&Bs[cur ^ 1][tk][tn]) = make_float4(rb[0], rb[1], rb[2], rb[3]);
		}
		__syncthreads();
	}

#pragma unroll
	for (int i = 0; i < 8; i++) {
		const int row = m0 + sg_row(ty, i);
		if (row >= M)
			continue;
#pragma unroll
		for (int h = 0; h < 2; h++) {
			const int col = n0 + h * 64 + tx * 4;
			float *dst = C + (size_t)row * N + col;
			if (VEC && col + 3 < N) {
				*reinterpret_cast<float4 *>(dst) =
					make_float4(acc[i][h * 4 + 0], acc[i][h * 4 + 1], acc[i][h * 4 + 2], acc[i][h * 4 + 3]);
			} else {
#pragma unroll
				for (int j = 0; j < 4; j++)
					if (col + j < N)
						dst[j] = acc[i][h * 4 + j];
			}
		}
	}
}

extern "C" __global__ void __launch_bounds__(256, 2)
gemm_f32(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C, int M, int N, int K)
{
	__shared__ __align__(16) float As[2][BK][BM + APAD];
	__shared__ __align__(16) float Bs[2][BK][BN];
	const bool vec = ((K & 3) == 0) && ((N & 3) == 0) &&
			 ((((unsigned long long)A | (unsigned long long)B | (unsigned long long)C) & 15ull) == 0);
	if (vec)
		sgemm_body<true>(A, B, C, M, N, K, As, Bs);
	else
		sgemm_body<false>(A, B, C, M, N, K, As, Bs);
}
