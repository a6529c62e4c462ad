"""matrix_vector_multip: out = inp @ vec for a row-major float32 [N, M] matrix and a [M] vector."""
import torch
import triton
import triton.language as tl


@triton.autotune(
    configs=[
        triton.Config({"BLOCK_N": 4, "BLOCK_M": 512}, num_warps=4),
        triton.Config({"BLOCK_N": 8, "BLOCK_M": 256}, num_warps=4),
        triton.Config({"BLOCK_N": 16, "BLOCK_M": 256}, num_warps=8),
        triton.Config({"BLOCK_N": 32, "BLOCK_M": 128}, num_warps=8),
    ],
    key=["N", "M"],
)
@triton.jit
def _mv_kernel(a_ptr, b_ptr, c_ptr, N, M, BLOCK_N: tl.constexpr, BLOCK_M: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_N + tl.arange(0, BLOCK_N)
    rmask = rows < N
    a_rows = a_ptr + rows.to(tl.int64)[:, None] * M
    acc = tl.zeros([BLOCK_N, BLOCK_M], dtype=tl.float32)
    for k0 in range(0, M, BLOCK_M):
        k = k0 + tl.arange(0, BLOCK_M)
        kmask = k < M
        a = tl.load(a_rows + k[None, :], mask=rmask[:, None] & kmask[None, :], other=0.0)
        v = tl.load(b_ptr + k, mask=kmask, other=0.0)
        acc += a * v[None, :]
    tl.store(c_ptr + rows, tl.sum(acc, axis=1), mask=rmask)


def mv(inp, vec):
    assert inp.dim() == 2 and vec.dim() == 1 and inp.shape[1] == vec.shape[0]
    inp = inp.contiguous()
    vec = vec.contiguous()
    N, M = inp.shape
    out = torch.empty((N,), dtype=torch.float32, device=inp.device)
    grid = lambda meta: (triton.cdiv(N, meta["BLOCK_N"]),)
    _mv_kernel[grid](inp, vec, out, N, M)
    return out
