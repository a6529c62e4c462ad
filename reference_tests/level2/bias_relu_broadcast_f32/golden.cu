// Golden kernel: y[p, d] = max(x[p, d] + bias[d], 0), float32, row-major [P, D].
//
// Each thread owns 4 consecutive columns and ROWS consecutive rows; its bias values are loaded once
// and reused for every row. Fast path: 16-byte float4 loads/stores when D % 4 == 0 and all three
// pointers are 16-byte aligned; otherwise every element is loaded and stored on its own, guarded.
// Loads for all rows are issued before any store so that each thread has ROWS requests in flight.

#define ROWS 8
#define THREADS 256

extern "C" __global__ void __launch_bounds__(THREADS)
bias_relu_broadcast_f32(const float* __restrict__ x, const float* __restrict__ bias,
                        float* __restrict__ y, int P, int D)
{
    const int c0 = (blockIdx.x * THREADS + threadIdx.x) * 4;
    const int r0 = blockIdx.y * ROWS;
    if (c0 >= D || r0 >= P) return;
    const bool vec = ((D & 3) == 0) &&
                     ((((unsigned long long)x) | ((unsigned long long)bias) |
                       ((unsigned long long)y)) & 15ull) == 0;
    if (vec) {
        const float4 b = __ldg(reinterpret_cast<const float4*>(bias + c0));
        float4 v[ROWS];
#pragma unroll
        for (int i = 0; i < ROWS; i++)
            if (r0 + i < P)
                v[i] = __ldg(reinterpret_cast<const float4*>(x + (size_t)(r0 + i) * D + c0));
#pragma unroll
        for (int i = 0; i < ROWS; i++) {
            if (r0 + i < P) {
                float4 o;
                o.x = fmaxf(v[i].x + b.x, 0.0f);
                o.y = fmaxf(v[i].y + b.y, 0.0f);
                o.z = fmaxf(v[i].z + b.z, 0.0f);
                o.w = fmaxf(v[i].w + b.w, 0.0f);
                *reinterpret_cast<float4*>(y + (size_t)(r0 + i) * D + c0) = o;
            }
        }
    } else {
        float b[4];
#pragma unroll
        for (int j = 0; j < 4; j++) b[j] = (c0 + j < D) ? __ldg(bias + c0 + j) : 0.0f;
        for (int i = 0; i < ROWS && r0 + i < P; i++) {
            const size_t base = (size_t)(r0 + i) * D + c0;
#pragma unroll
            for (int j = 0; j < 4; j++)
                if (c0 + j < D) y[base + j] = fmaxf(__ldg(x + base + j) + b[j], 0.0f);
        }
    }
}
