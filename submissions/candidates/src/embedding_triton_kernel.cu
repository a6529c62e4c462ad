#include <cuda_fp16.h>

// One block per token (default launch). 16-byte copies when hidden_size % 8 == 0 and the
// buffers are aligned, 2-byte copies otherwise.
extern "C" __global__ void embedding_kernel(const __half* __restrict__ weight, const int* __restrict__ input_ids,
                                            __half* __restrict__ out, int vob_start_id, int vob_end_id,
                                            int n_ctx, int hidden_size)
{
    const int s = blockIdx.x;
    if (s >= n_ctx) return;
    const int id = input_ids[s];
    const bool in_shard = id >= vob_start_id && id < vob_end_id;
    const bool vec = (hidden_size % 8) == 0 &&
                     ((reinterpret_cast<unsigned long long>(weight) | reinterpret_cast<unsigned long long>(out)) & 15) == 0;
    if (vec) {
        const int nch = hidden_size / 8;
        uint4* dst = reinterpret_cast<uint4*>(out + (size_t)s * hidden_size);
        const uint4* src = reinterpret_cast<const uint4*>(weight + (size_t)(in_shard ? id - vob_start_id : 0) * hidden_size);
        for (int c = threadIdx.x; c < nch; c += blockDim.x) dst[c] = in_shard ? src[c] : make_uint4(0, 0, 0, 0);
    } else {
        const unsigned short* src = reinterpret_cast<const unsigned short*>(weight) +
                                    (size_t)(in_shard ? id - vob_start_id : 0) * hidden_size;
        unsigned short* dst = reinterpret_cast<unsigned short*>(out) + (size_t)s * hidden_size;
        for (int d = threadIdx.x; d < hidden_size; d += blockDim.x) dst[d] = in_shard ? src[d] : (unsigned short)0;
    }
}
