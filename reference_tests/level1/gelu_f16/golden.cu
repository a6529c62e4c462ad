// Golden kernel for gelu_f16: y = 0.5 * x * (1 + erf(x / sqrt(2))) for i in [0, n), float16 in and out.
//
// Each element is widened to float32, computed in float32 and rounded once (to nearest even)
// back to float16. For very negative x, 1 + erf(x / sqrt(2)) cancels; the absolute error stays below 1e-7 * |x|, far inside the tolerance (erfcf would avoid it but costs about twice the arithmetic, and this kernel must stay memory-bound).
// The kernel body is reference_tests/_shared/elementwise.cuh (problem.json: golden_prelude).

struct Gelu {
    __device__ __forceinline__ float operator()(float v) const { return 0.5f * v * (1.0f + erff(0.70710678118654752f * v)); }
};

extern "C" __global__ void __launch_bounds__(256)
gelu_f16(const __half* __restrict__ x, __half* __restrict__ y, int n)
{
    ew_unary<__half, __half2>(x, y, n, Gelu());
}
