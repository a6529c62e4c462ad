// pool2d.cuh: the thread-to-output mapping of the 2-D pooling goldens avgpool2d_f16 and
// maxpool2d_f32 (docs/problem-format.md, golden_prelude). One thread per group of G horizontally
// adjacent outputs: output row `row` (= plane * Ho + i) of the [Nb, C, Ho, Wo] output, group q.

struct PoolPos {
	int row, q, plane, i;
};

// This thread's position for G groups per output row; false for a thread past the end.
// Requires Nb * C * Ho * G < 2^32.
__device__ __forceinline__ bool pool_pos(PoolPos &p, int Nb, int C, int Ho, int G)
{
	const unsigned total = (unsigned)Nb * C * Ho * G;
	const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
	if (t >= total)
		return false;
	p.row = (int)(t / (unsigned)G); // plane * Ho + i
	p.q = (int)(t - (unsigned)p.row * G);
	p.plane = p.row / Ho;
	p.i = p.row - p.plane * Ho;
	return true;
}
