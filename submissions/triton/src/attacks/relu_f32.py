"""Attack (relu_f32): a forbidden import. The kernel is correct; the module imports os (to reach
the filesystem). Expected: refused by the static check before anything runs, the reason naming
the line of `import os` (line 6)."""
import torch
import triton
import os
import triton.language as tl


@triton.jit
def _relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    tl.store(y_ptr + offs, tl.where(x > 0.0, x, 0.0), mask=mask)


def relu(x):
    y = torch.empty_like(x)
    n = x.numel()
    _relu_kernel[(triton.cdiv(n, 1024),)](x, y, n, BLOCK=1024)
    os.environ.get("HOME")
    return y
