"""Attack (sigmoid_bf16): top-level code. The kernel is correct; the module makes a call when it is
imported (any top-level call could reach the scorer's process state). Expected: refused by the
static check before anything runs, the reason naming the line of `torch.manual_seed(0)`."""
import torch
import triton
import triton.language as tl


@triton.jit
def _sigmoid_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    tl.store(y_ptr + offs, (1.0 / (1.0 + tl.exp(-x))).to(tl.bfloat16), mask=mask)


torch.manual_seed(0)


def sigmoid(x):
    y = torch.empty_like(x)
    n = x.numel()
    _sigmoid_kernel[(triton.cdiv(n, 1024),)](x, y, n, BLOCK=1024)
    return y
