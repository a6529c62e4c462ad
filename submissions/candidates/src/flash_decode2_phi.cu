// Default launch: grid (batch, heads), block 128. Each thread owns head_dim columns
// d = tid, tid + 128, ... and runs the online softmax over the valid splits (running max,
// rescaled sum and accumulator), as the TritonBench kernel does.
extern "C" __global__ void flash_decode_stage2(const int* __restrict__ b_seqlen, const float* __restrict__ mid_o,
                                               const float* __restrict__ mid_o_logexpsum, float* __restrict__ out,
                                               int batch, int heads, int seq_block_num, int head_dim,
                                               int block_seq)
{
    const int b = blockIdx.x, h = blockIdx.y;
    const int seqlen = b_seqlen[b];
    int nblocks = seqlen <= 0 ? 0 : (seqlen + block_seq - 1) / block_seq;
    nblocks = min(nblocks, seq_block_num);
    const size_t bh = (size_t)b * heads + h;
    const float* lse = mid_o_logexpsum + bh * seq_block_num;
    const float* v = mid_o + bh * seq_block_num * head_dim;
    for (int d = threadIdx.x; d < head_dim; d += blockDim.x) {
        float max_logic = __int_as_float(0xff800000), sum_exp = 0.0f, acc = 0.0f;
        for (int j = 0; j < nblocks; ++j) {
            const float l = __ldg(lse + j);
            const float new_max = fmaxf(max_logic, l);
            const float scale = expf(max_logic - new_max); /* 0 on the first split */
            const float e = expf(l - new_max);
            acc = acc * scale + e * __ldg(v + (size_t)j * head_dim + d);
            sum_exp = sum_exp * scale + e;
            max_logic = new_max;
        }
        out[bh * head_dim + d] = acc / sum_exp;
    }
}
