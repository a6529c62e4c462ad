/* kscore-launch
{ "kernel": "mv_kernel",
  "grid": ["cdiv(n, 8 * (32 / min(32, 1 << log2(2 * cdiv(m, 16) - 1))))"],
  "block": [256],
  "args": ["A", "B", "C", "N", "M", { "i32": "min(32, 1 << log2(2 * cdiv(m, 16) - 1))" }] }
*/
// L lanes per row (a power of two, 1..32, about M / 16 so that each lane has up to 16 columns):
// short rows pack 32 / L rows into each warp instead of leaving most lanes idle.
extern "C" __global__ void __launch_bounds__(256)
mv_kernel(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int N, int M, int L)
{
    const int lane = threadIdx.x & 31;
    const int rows_per_warp = 32 / L;
    const int row = (blockIdx.x * 8 + (threadIdx.x >> 5)) * rows_per_warp + lane / L;
    const int sl = lane % L;
    float acc = 0.0f;
    if (row < N) {
        const float* a = A + (size_t)row * M;
        const bool vec = (M & 3) == 0 &&
                         ((reinterpret_cast<unsigned long long>(A) | reinterpret_cast<unsigned long long>(B)) & 15) == 0;
        if (vec) {
            const float4* a4 = reinterpret_cast<const float4*>(a);
            const float4* b4 = reinterpret_cast<const float4*>(B);
#pragma unroll 4
            for (int j = sl; j < (M >> 2); j += L) {
                const float4 av = __ldg(a4 + j), bv = __ldg(b4 + j);
                acc = fmaf(av.x, bv.x, acc);
                acc = fmaf(av.y, bv.y, acc);
                acc = fmaf(av.z, bv.z, acc);
                acc = fmaf(av.w, bv.w, acc);
            }
        } else {
            for (int j = sl; j < M; j += L) acc = fmaf(__ldg(a + j), __ldg(B + j), acc);
        }
    }
    // every lane takes part in the shuffles, also those without a row
    for (int o = L >> 1; o > 0; o >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, o);
    if (row < N && sl == 0) C[row] = acc;
}
