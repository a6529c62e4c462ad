#include <vector>

extern "C" __global__ void flash_decode_stage2(const int* __restrict__ b_seqlen, const float* __restrict__ mid_o,
                                               const float* __restrict__ mid_o_logexpsum, float* __restrict__ out,
                                               int batch, int heads, int seq_block_num, int head_dim,
                                               int block_seq)
{
    const int b = blockIdx.x, h = blockIdx.y;
    const int seqlen = b_seqlen[b];
    const int nblocks = (seqlen + block_seq - 1) / block_seq;
    const float* lse = mid_o_logexpsum + ((size_t)b * heads + h) * seq_block_num;
    const float* v = mid_o + ((size_t)b * heads + h) * seq_block_num * head_dim;
    // The softmax weights of the splits, computed once and reused for every element.
    float max_logic = -INFINITY;
    for (int j = 0; j < nblocks; ++j)
        max_logic = fmaxf(max_logic, lse[j]);
    std::vector<float> weight(nblocks);
    float sum_exp = 0.0f;
    for (int j = 0; j < nblocks; ++j) {
        weight[j] = expf(lse[j] - max_logic);
        sum_exp += weight[j];
    }
    for (int d = threadIdx.x; d < head_dim; d += blockDim.x) {
        float acc = 0.0f;
        for (int j = 0; j < nblocks; ++j)
            acc += weight[j] * v[(size_t)j * head_dim + d];
        out[((size_t)b * heads + h) * head_dim + d] = acc / sum_exp;
    }
}
