"""int4_matmul: out = x @ W with W[k, n] = (q[k, n] - z[k // G, n]) * scales[k // G, n]; q packed
8 per int32 along K (qweight [K/8, N]), z packed 8 per int32 along N (qzeros [K/G, N/8]); float16
activations, scales and output, float32 accumulation on tensor cores."""
import torch
import triton
import triton.language as tl


@triton.autotune(
    configs=[
        triton.Config({"BM": 64, "BN": 64, "BK": 32}, num_warps=4, num_stages=3),
        triton.Config({"BM": 64, "BN": 128, "BK": 32}, num_warps=4, num_stages=3),
        triton.Config({"BM": 128, "BN": 128, "BK": 32}, num_warps=8, num_stages=3),
        triton.Config({"BM": 16, "BN": 64, "BK": 64}, num_warps=4, num_stages=2),
    ],
    key=["M", "N", "K"],
)
@triton.jit
def _int4_matmul_kernel(x_ptr, qw_ptr, sc_ptr, qz_ptr, out_ptr, M, N, K, G,
                        BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid_n = tl.program_id(0)
    pid_m = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    mmask = rm < M
    nmask = rn < N
    zshift = ((rn % 8) * 4)[None, :]
    acc = tl.zeros([BM, BN], dtype=tl.float32)
    for k0 in range(0, K, BK):
        rk = k0 + tl.arange(0, BK)
        kmask = rk < K
        wmask = kmask[:, None] & nmask[None, :]
        a = tl.load(x_ptr + rm.to(tl.int64)[:, None] * K + rk[None, :],
                    mask=mmask[:, None] & kmask[None, :], other=0.0).to(tl.float16)
        packed = tl.load(qw_ptr + (rk // 8).to(tl.int64)[:, None] * N + rn[None, :], mask=wmask, other=0)
        q = (packed >> ((rk % 8) * 4)[:, None]) & 0xF
        g = (rk // G).to(tl.int64)
        zpacked = tl.load(qz_ptr + g[:, None] * (N // 8) + (rn // 8)[None, :], mask=wmask, other=0)
        z = (zpacked >> zshift) & 0xF
        sc = tl.load(sc_ptr + g[:, None] * N + rn[None, :], mask=wmask, other=0.0)
        # (q - z) is exact in float16; one rounding in the scale multiply
        w = (q - z).to(tl.float16) * sc
        acc += tl.dot(a, w)
    tl.store(out_ptr + rm.to(tl.int64)[:, None] * N + rn[None, :], acc.to(tl.float16),
             mask=mmask[:, None] & nmask[None, :])


def matmul_dequantize_int4_s2(x, qweight, scales, qzeros, group_size=128):
    assert x.dim() == 2 and x.is_contiguous() and qweight.is_contiguous()
    M, K = x.shape
    N = qweight.shape[1]
    assert qweight.shape[0] * 8 == K and K % group_size == 0 and N % 8 == 0
    out = torch.empty((M, N), dtype=torch.float16, device=x.device)
    grid = lambda meta: (triton.cdiv(N, meta["BN"]), triton.cdiv(M, meta["BM"]))
    _int4_matmul_kernel[grid](x, qweight, scales, qzeros, out, M, N, K, group_size)
    return out
