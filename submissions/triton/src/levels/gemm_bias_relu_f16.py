"""gemm_bias_relu_f16: C = relu(A @ B^T + bias) with A [M, K], B [N, K] (an nn.Linear weight),
bias [N], float16, float32 accumulation on tensor cores (level 2: the bias and ReLU fused into the
GEMM's epilogue)."""
import torch
import triton
import triton.language as tl


@triton.autotune(
    configs=[
        triton.Config({"BM": 128, "BN": 128, "BK": 64, "GROUP": 8}, num_warps=8, num_stages=3),
        triton.Config({"BM": 128, "BN": 64, "BK": 64, "GROUP": 8}, num_warps=4, num_stages=4),
        triton.Config({"BM": 64, "BN": 64, "BK": 32, "GROUP": 8}, num_warps=4, num_stages=4),
    ],
    key=["M", "N", "K"],
)
@triton.jit
def _linear_relu_kernel(a_ptr, b_ptr, bias_ptr, c_ptr, M, N, K,
                        BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP: tl.constexpr):
    pid = tl.program_id(0)
    num_m = tl.cdiv(M, BM)
    num_n = tl.cdiv(N, BN)
    per_group = GROUP * num_n
    first_m = (pid // per_group) * GROUP
    group_rows = tl.minimum(num_m - first_m, GROUP)
    pid_m = first_m + (pid % per_group) % group_rows
    pid_n = (pid % per_group) // group_rows
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    mmask = rm < M
    nmask = rn < N
    a_ptrs = a_ptr + rm.to(tl.int64)[:, None] * K + rk[None, :]
    # B is [N, K]: the tile [BK, BN] of B^T reads B's rows rn at columns rk
    b_ptrs = b_ptr + rn.to(tl.int64)[None, :] * K + rk[:, None]
    acc = tl.zeros([BM, BN], dtype=tl.float32)
    for k0 in range(0, K, BK):
        kmask = (k0 + rk) < K
        a = tl.load(a_ptrs, mask=mmask[:, None] & kmask[None, :], other=0.0)
        b = tl.load(b_ptrs, mask=kmask[:, None] & nmask[None, :], other=0.0)
        acc += tl.dot(a, b)
        a_ptrs += BK
        b_ptrs += BK
    bias = tl.load(bias_ptr + rn, mask=nmask, other=0.0).to(tl.float32)
    out = tl.maximum(acc + bias[None, :], 0.0)
    tl.store(c_ptr + rm.to(tl.int64)[:, None] * N + rn[None, :], out.to(tl.float16),
             mask=mmask[:, None] & nmask[None, :])


def linear_relu(A, B, bias):
    assert A.dim() == 2 and B.dim() == 2 and A.shape[1] == B.shape[1] and bias.shape[0] == B.shape[0]
    A = A.contiguous()
    B = B.contiguous()
    M, K = A.shape
    N = B.shape[0]
    C = torch.empty((M, N), dtype=torch.float16, device=A.device)
    grid = lambda meta: (triton.cdiv(M, meta["BM"]) * triton.cdiv(N, meta["BN"]),)
    _linear_relu_kernel[grid](A, B, bias, C, M, N, K)
    return C
