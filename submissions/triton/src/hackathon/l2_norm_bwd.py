"""l2_norm_bwd: dx = dy * rstd - (sum(dy * x) / var) * rstd * x, var = sum(x^2) + eps, rstd =
1 / sqrt(var), per float32 row. One program per row: a pass for the two sums, a pass for dx."""
import torch
import triton
import triton.language as tl


@triton.jit
def _l2_norm_bwd_kernel(x_ptr, dy_ptr, dx_ptr, cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    base = row.to(tl.int64) * cols
    sxx = tl.zeros([BLOCK], dtype=tl.float32)
    sxd = tl.zeros([BLOCK], dtype=tl.float32)
    for off in range(0, cols, BLOCK):
        c = off + tl.arange(0, BLOCK)
        m = c < cols
        x = tl.load(x_ptr + base + c, mask=m, other=0.0)
        d = tl.load(dy_ptr + base + c, mask=m, other=0.0)
        sxx += x * x
        sxd += x * d
    var = tl.sum(sxx, axis=0) + eps
    rstd = 1.0 / tl.sqrt(var)
    coef = tl.sum(sxd, axis=0) / var * rstd
    for off in range(0, cols, BLOCK):
        c = off + tl.arange(0, BLOCK)
        m = c < cols
        x = tl.load(x_ptr + base + c, mask=m, other=0.0)
        d = tl.load(dy_ptr + base + c, mask=m, other=0.0)
        tl.store(dx_ptr + base + c, d * rstd - coef * x, mask=m)


def _l2_norm_bwd(x, dy, eps=1e-5):
    assert x.dtype == torch.float32 and dy.dtype == torch.float32 and x.shape == dy.shape
    x = x.contiguous()
    dy = dy.contiguous()
    cols = x.shape[-1]
    rows = x.numel() // cols
    dx = torch.empty_like(x)
    block = max(16, min(4096, triton.next_power_of_2(cols)))
    warps = 8 if block >= 2048 else 4
    _l2_norm_bwd_kernel[(rows,)](x, dy, dx, cols, eps, BLOCK=block, num_warps=warps)
    return dx
