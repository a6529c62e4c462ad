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
    for (int d = threadIdx.x; d < head_dim; d += blockDim.x) {
        float max_logic = -INFINITY, sum_exp = 0.0f, acc = 0.0f;
        for (int j = 0; j < nblocks; ++j) {
            const float l = lse[j];
            const float new_max = fmaxf(max_logic, l);
            const float scale = expf(max_logic - new_max);
            const float e = expf(l - new_max);
            acc = acc * scale + e * v[(size_t)j * head_dim + d];
            sum_exp = sum_exp * scale + e;
            max_logic = new_max;
        }
        out[((size_t)b * heads + h) * head_dim + d] = acc / sum_exp;
    }
}
