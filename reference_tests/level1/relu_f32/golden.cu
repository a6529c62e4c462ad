// Golden kernel for relu_f32: y[i] = max(x[i], 0) for i in [0, n).
// Exact: no rounding anywhere.
// The kernel body is reference_tests/_shared/elementwise.cuh (problem.json: golden_prelude).

struct Relu {
    __device__ __forceinline__ float operator()(float v) const { return v > 0.0f ? v : 0.0f; }
};

extern "C" __global__ void __launch_bounds__(256)
relu_f32(const float* __restrict__ x, float* __restrict__ y, int n)
{
    ew_unary<float, float2>(x, y, n, Relu());
}
