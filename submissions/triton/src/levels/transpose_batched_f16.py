"""transpose_batched_f16: y[b] = x[b]^T for float16 x [B, R, C], y [B, C, R]."""
import torch
import triton
import triton.language as tl


@triton.autotune(
    configs=[
        triton.Config({"BR": 64, "BC": 64}, num_warps=4),
        triton.Config({"BR": 32, "BC": 32}, num_warps=2),
        triton.Config({"BR": 128, "BC": 64}, num_warps=8),
    ],
    key=["R", "C"],
)
@triton.jit
def _transpose_batched_kernel(x_ptr, y_ptr, R, C, BR: tl.constexpr, BC: tl.constexpr):
    pr = tl.program_id(0)
    pc = tl.program_id(1)
    b = tl.program_id(2).to(tl.int64)
    rr = pr * BR + tl.arange(0, BR)
    cc = pc * BC + tl.arange(0, BC)
    mask = (rr[:, None] < R) & (cc[None, :] < C)
    plane = b * R * C
    tile = tl.load(x_ptr + plane + rr[:, None].to(tl.int64) * C + cc[None, :], mask=mask)
    tl.store(y_ptr + plane + cc[None, :].to(tl.int64) * R + rr[:, None], tile, mask=mask)


def transpose_batched(x):
    assert x.dim() == 3
    x = x.contiguous()
    B, R, C = x.shape
    y = torch.empty((B, C, R), dtype=x.dtype, device=x.device)
    grid = lambda meta: (triton.cdiv(R, meta["BR"]), triton.cdiv(C, meta["BC"]), B)
    _transpose_batched_kernel[grid](x, y, R, C)
    return y
