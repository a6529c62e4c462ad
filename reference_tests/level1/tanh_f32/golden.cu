// Golden kernel for tanh_f32: y = tanh(x) for i in [0, n), float32.
// tanhf (a few ulps); the hardware tanh.approx (about 2^-11 relative error) would not meet the tolerance.
// The kernel body is reference_tests/_shared/elementwise.cuh (problem.json: golden_prelude).

struct Tanh {
    __device__ __forceinline__ float operator()(float v) const { return tanhf(v); }
};

extern "C" __global__ void __launch_bounds__(256)
tanh_f32(const float* __restrict__ x, float* __restrict__ y, int n)
{
    ew_unary<float, float2>(x, y, n, Tanh());
}
