// Golden kernel for embedding_triton_kernel:
//   out[s, :] = weight[ids[s] - vob_start_id, :]   if vob_start_id <= ids[s] < vob_end_id
//   out[s, :] = 0                                   otherwise
// weight is [vob_end_id - vob_start_id, hidden] float16, out is [n_ctx, hidden] float16.
//
// Launch (problem.json golden_launch): grid cdiv(n_ctx, 8), block 256. A block copies the rows
// of 8 consecutive tokens. The (token, chunk) work items of the block are spread over its
// threads in one flat loop (unrolled 4x, so each thread has up to four independent 16-byte loads
// in flight). 16-byte chunks of 8 halves are used when hidden % 8 == 0 and both weight and out are
// 16-byte aligned (every row start is then aligned); otherwise each half is copied on its own.

#include <cuda_fp16.h>

#define EMB_TOK 8
#define EMB_THREADS 256

extern "C" __global__ void __launch_bounds__(EMB_THREADS)
embedding_golden(const __half* __restrict__ weight, const int* __restrict__ ids, __half* __restrict__ out,
		 int vob_start_id, int vob_end_id, int n_ctx, int hidden)
{
	const int t0 = blockIdx.x * EMB_TOK;
	const int ntok = min(EMB_TOK, n_ctx - t0);
	const bool vec = (hidden & 7) == 0 &&
			 ((reinterpret_cast<unsigned long long>(weight) |
			   reinterpret_cast<unsigned long long>(out)) & 15ull) == 0;
	if (vec) {
		const int nch = hidden >> 3;
		const int items = ntok * nch;
		const uint4* __restrict__ w4 = reinterpret_cast<const uint4*>(weight);
		uint4* __restrict__ o4 = reinterpret_cast<uint4*>(out);
#pragma unroll 4
		for (int w = threadIdx.x; w < items; w += EMB_THREADS) {
			const int t = w / nch;
			const int c = w - t * nch;
			const int id = __ldg(ids + t0 + t);
			uint4 v = make_uint4(0u, 0u, 0u, 0u);
			if (id >= vob_start_id && id < vob_end_id)
				v = __ldg(w4 + (size_t)(id - vob_start_id) * nch + c);
			o4[(size_t)(t0 + t) * nch + c] = v;
		}
	} else {
		const unsigned short* __restrict__ ws = reinterpret_cast<const unsigned short*>(weight);
		unsigned short* __restrict__ os = reinterpret_cast<unsigned short*>(out);
		const int items = ntok * hidden;
#pragma unroll 4
		for (int w = threadIdx.x; w < items; w += EMB_THREADS) {
			const int t = w / hidden;
			const int c = w - t * hidden;
			const int id = __ldg(ids + t0 + t);
			unsigned short v = 0;
			if (id >= vob_start_id && id < vob_end_id)
				v = __ldg(ws + (size_t)(id - vob_start_id) * hidden + c);
			os[(size_t)(t0 + t) * hidden + c] = v;
		}
	}
}
