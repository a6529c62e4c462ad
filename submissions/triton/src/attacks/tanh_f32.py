"""Attack (tanh_f32): an out-of-bounds write. The kernel has no mask: the last block of a size that
is not a multiple of 1024 reads and writes past the ends of x and y (n = 1 writes 1023 floats past
y). Expected: oob_write on the first correctness case (the guard band after y is changed)."""
import torch
import triton
import triton.language as tl
from triton.language.extra import libdevice


@triton.jit
def _tanh_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(y_ptr + offs, libdevice.tanh(x))


def tanh(x):
    y = torch.empty_like(x)
    n = x.numel()
    _tanh_kernel[(triton.cdiv(n, 1024),)](x, y, n, BLOCK=1024)
    return y
