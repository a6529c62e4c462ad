"""rms_norm_bf16: y = x / sqrt(mean(x^2) + eps) * w over the last dimension of a bfloat16
[rows, cols] matrix, float32 inside, one rounding to bfloat16."""
import torch
import triton
import triton.language as tl


@triton.jit
def _rms_norm_kernel(x_ptr, w_ptr, y_ptr, cols, eps, BLOCK: tl.constexpr):
    base = tl.program_id(0).to(tl.int64) * cols
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for off in range(0, cols, BLOCK):
        c = off + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + base + c, mask=c < cols, other=0.0).to(tl.float32)
        acc += x * x
    rstd = 1.0 / tl.sqrt(tl.sum(acc, axis=0) / cols + eps)
    for off in range(0, cols, BLOCK):
        c = off + tl.arange(0, BLOCK)
        m = c < cols
        x = tl.load(x_ptr + base + c, mask=m, other=0.0).to(tl.float32)
        w = tl.load(w_ptr + c, mask=m, other=0.0).to(tl.float32)
        tl.store(y_ptr + base + c, (x * rstd * w).to(tl.bfloat16), mask=m)


def rms_norm(x, w, eps=1e-6):
    assert x.dtype == torch.bfloat16 and x.dim() == 2
    x = x.contiguous()
    rows, cols = x.shape
    y = torch.empty_like(x)
    block = max(16, min(4096, triton.next_power_of_2(cols)))
    _rms_norm_kernel[(rows,)](x, w, y, cols, eps, BLOCK=block, num_warps=8 if block >= 2048 else 4)
    return y
