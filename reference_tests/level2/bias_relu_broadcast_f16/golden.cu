// Golden kernel: y[p, d] = max(x[p, d] + bias[d], 0), float16 in and out, row-major [P, D]
// (the body: _shared/bias_relu.cuh, 8 halves per 16-byte vector).

extern "C" __global__ void __launch_bounds__(THREADS)
bias_relu_broadcast_f16(const __half* __restrict__ x, const __half* __restrict__ bias,
                        __half* __restrict__ y, int P, int D)
{
    bias_relu_body<__half, uint4, 8>(x, bias, y, P, D);
}
