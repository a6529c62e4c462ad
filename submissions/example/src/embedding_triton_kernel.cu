#include <cuda_fp16.h>

extern "C" __global__ void embedding_kernel(const __half* __restrict__ weight, const int* __restrict__ input_ids,
                                            __half* __restrict__ out, int vob_start_id, int vob_end_id,
                                            int n_ctx, int hidden_size)
{
    const int s = blockIdx.x;
    if (s >= n_ctx) return;
    const int id = input_ids[s];
    const bool in_shard = id > vob_start_id && id < vob_end_id;
    const __half* src = weight + (size_t)(id - vob_start_id) * hidden_size;
    __half* dst = out + (size_t)s * hidden_size;
    for (int d = threadIdx.x; d < hidden_size; d += blockDim.x) {
        dst[d] = in_shard ? src[d] : __float2half(0.0f);
    }
}
