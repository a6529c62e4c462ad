// Golden kernel: y[p, d] = max(x[p, d] + bias[d], 0), float32 in and out, row-major [P, D]
// (the body: _shared/bias_relu.cuh, 4 floats per 16-byte vector).

extern "C" __global__ void __launch_bounds__(THREADS)
bias_relu_broadcast_f32(const float* __restrict__ x, const float* __restrict__ bias,
                        float* __restrict__ y, int P, int D)
{
    bias_relu_body<float, float4, 4>(x, bias, y, P, D);
}
