// Golden kernel: y[i, :] = softmax(x[i, :] * scale + mask[i, :]) over the last dimension, float32.
//
// One CTA per row; blockDim.x (a multiple of 32, at most 512) threads walk the row in chunks of 4
// floats (16 bytes), thread i taking chunks i, i + blockDim.x, ... The first SM_CACHE chunks of each
// thread stay in registers (rows up to 512 * 4 * SM_CACHE = 16384 elements are read once); later
// chunks are recomputed from x and mask. Pass 1: logits and the row maximum; pass 2: e = exp(v - max)
// and the row sum; pass 3: y = e / sum. Fast path: float4 accesses when cols % 4 == 0 and every
// pointer is 16-byte aligned; otherwise element by element with guards (elements past cols count as
// -inf logits).

#define SM_CACHE 8
#define SM_MAX_THREADS 512

__device__ __forceinline__ void sm_logits(const float* __restrict__ xr, const float* __restrict__ mr,
                                          int col0, int cols, bool vec, float scale, float (&v)[4])
{
    if (vec) {
        const float4 a = __ldg(reinterpret_cast<const float4*>(xr + col0));
        const float4 b = __ldg(reinterpret_cast<const float4*>(mr + col0));
        v[0] = a.x * scale + b.x;
        v[1] = a.y * scale + b.y;
        v[2] = a.z * scale + b.z;
        v[3] = a.w * scale + b.w;
    } else {
#pragma unroll
        for (int j = 0; j < 4; j++)
            v[j] = col0 + j < cols ? __ldg(xr + col0 + j) * scale + __ldg(mr + col0 + j)
                                   : __int_as_float(0xff800000);
    }
}

__device__ __forceinline__ void sm_store(float* __restrict__ yr, int col0, int cols, bool vec,
                                         const float (&v)[4])
{
    if (vec) {
        *reinterpret_cast<float4*>(yr + col0) = make_float4(v[0], v[1], v[2], v[3]);
    } else {
#pragma unroll
        for (int j = 0; j < 4; j++)
            if (col0 + j < cols) yr[col0 + j] = v[j];
    }
}

extern "C" __global__ void __launch_bounds__(SM_MAX_THREADS)
softmax_scale_mask_f32(const float* __restrict__ x, const float* __restrict__ mask, float* __restrict__ y,
                       float scale, int rows, int cols)
{
    __shared__ float red[32];
    const int row = blockIdx.x;
    if (row >= rows) return;
    const size_t base = (size_t)row * (size_t)cols;
    const bool vec = (cols & 3) == 0 &&
                     ((((unsigned long long)x) | ((unsigned long long)mask) | ((unsigned long long)y)) &
                      15ull) == 0;
    const float* xr = x + base;
    const float* mr = mask + base;
    float* yr = y + base;
    const int nchunks = (cols + 3) / 4;
    const int step = blockDim.x;

    // pass 1: logits, row max
    float cache[SM_CACHE][4];
    float mx = __int_as_float(0xff800000);
#pragma unroll
    for (int i = 0; i < SM_CACHE; i++) {
        const int c = threadIdx.x + i * step;
        if (c < nchunks) {
            sm_logits(xr, mr, c * 4, cols, vec, scale, cache[i]);
#pragma unroll
            for (int j = 0; j < 4; j++) mx = fmaxf(mx, cache[i][j]);
        }
    }
    for (int c = threadIdx.x + SM_CACHE * step; c < nchunks; c += step) {
        float v[4];
        sm_logits(xr, mr, c * 4, cols, vec, scale, v);
#pragma unroll
        for (int j = 0; j < 4; j++) mx = fmaxf(mx, v[j]);
    }
    mx = block_reduce<true>(mx, red);

    // pass 2: e = exp(v - max), row sum
    float sum = 0.0f;
#pragma unroll
    for (int i = 0; i < SM_CACHE; i++) {
        const int c = threadIdx.x + i * step;
        if (c < nchunks) {
#pragma unroll
            for (int j = 0; j < 4; j++) {
                cache[i][j] = expf(cache[i][j] - mx);
                sum += cache[i][j];
            }
        }
    }
    for (int c = threadIdx.x + SM_CACHE * step; c < nchunks; c += step) {
        float v[4];
        sm_logits(xr, mr, c * 4, cols, vec, scale, v);
#pragma unroll
        for (int j = 0; j < 4; j++) sum += expf(v[j] - mx);
    }
    const float inv = 1.0f / block_reduce<false>(sum, red);

    // pass 3: y = e / sum
#pragma unroll
    for (int i = 0; i < SM_CACHE; i++) {
        const int c = threadIdx.x + i * step;
        if (c < nchunks) {
            float v[4];
#pragma unroll
            for (int j = 0; j < 4; j++) v[j] = cache[i][j] * inv;
            sm_store(yr, c * 4, cols, vec, v);
        }
    }
    for (int c = threadIdx.x + SM_CACHE * step; c < nchunks; c += step) {
        float v[4];
        sm_logits(xr, mr, c * 4, cols, vec, scale, v);
#pragma unroll
        for (int j = 0; j < 4; j++) v[j] = expf(v[j] - mx) * inv;
        sm_store(yr, c * 4, cols, vec, v);
    }
}
