"""Attack (sin_kernel): a torch fallback. A Triton kernel is defined and launched for show, but the
result returned is torch.sin's. Expected: host_op (aten.sin), the answer refused at its trace."""
import torch
import triton
import triton.language as tl


@triton.jit
def _copy_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask), mask=mask)


def call_kernel(x):
    scratch = torch.empty_like(x)
    n = x.numel()
    _copy_kernel[(triton.cdiv(n, 1024),)](x, scratch, n, BLOCK=1024)
    return torch.sin(x)
