// Golden kernel for sigmoid_bf16: y = 1 / (1 + exp(-x)) for i in [0, n), bfloat16 in and out.
//
// Each element is widened to float32, computed in float32 and rounded once (to nearest even)
// back to bfloat16. For x < -88 exp(-x) overflows to inf and the result is 0, the correctly rounded bfloat16 value.
// The kernel body is reference_tests/_shared/elementwise.cuh (problem.json: golden_prelude).

struct Sigmoid {
    __device__ __forceinline__ float operator()(float v) const { return 1.0f / (1.0f + expf(-v)); }
};

extern "C" __global__ void __launch_bounds__(256)
sigmoid_bf16(const __nv_bfloat16* __restrict__ x, __nv_bfloat16* __restrict__ y, int n)
{
    ew_unary<__nv_bfloat16, __nv_bfloat162>(x, y, n, Sigmoid());
}
