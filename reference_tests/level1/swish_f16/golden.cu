// Golden kernel for swish_f16: y = x / (1 + exp(-x)) for i in [0, n), float16 in and out.
//
// Each element is widened to float32, computed in float32 and rounded once (to nearest even)
// back to float16. For x < -88 exp(-x) overflows to inf and the result is -0.
// The kernel body is reference_tests/_shared/elementwise.cuh (problem.json: golden_prelude).

struct Swish {
    __device__ __forceinline__ float operator()(float v) const { return v / (1.0f + expf(-v)); }
};

extern "C" __global__ void __launch_bounds__(256)
swish_f16(const __half* __restrict__ x, __half* __restrict__ y, int n)
{
    ew_unary<__half, __half2>(x, y, n, Swish());
}
