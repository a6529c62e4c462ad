// Default launch: grid (cdiv(seqlen, 4), batch, nheads), block 128. A block handles 4 positions
// of one (batch, head); its threads walk the 4 * headdim outputs.
extern "C" __global__ void rotary_kernel(float* __restrict__ out, const float* __restrict__ x,
                                         const float* __restrict__ cos, const float* __restrict__ sin,
                                         int seqlen_offset, int batch, int seqlen, int nheads,
                                         int headdim, int rotary_dim, int seqlen_ro)
{
    const int b = blockIdx.y, h = blockIdx.z;
    const int h2 = rotary_dim / 2;
    for (int t = threadIdx.x; t < 4 * headdim; t += blockDim.x) {
        const int s = blockIdx.x * 4 + t / headdim;
        const int d = t % headdim;
        if (s >= seqlen) continue;
        const size_t base = (((size_t)b * seqlen + s) * nheads + h) * headdim;
        float v;
        if (d < rotary_dim) {
            const int k = d < h2 ? d : d - h2;
            const int pos = s + seqlen_offset + seqlen;
            float c = 1.0f, sn = 0.0f;
            if (pos < seqlen_ro) {
                c = cos[(size_t)pos * h2 + k];
                sn = sin[(size_t)pos * h2 + k];
            }
            const float x0 = x[base + k], x1 = x[base + k + h2];
            v = d < h2 ? x0 * c - x1 * sn : x0 * sn + x1 * c;
        } else {
            v = x[base + d];
        }
        out[base + d] = v;
    }
}
