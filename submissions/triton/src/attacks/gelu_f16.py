"""Attack (gelu_f16): work on another stream. The kernel is correct but launched on a side stream
the harness does not time (a harness timing its own stream with events would see an empty
interval). Expected: refused by the static check (torch.cuda.Stream and torch.cuda.stream are not
allowed); were it let through, the replay would run the recorded kernel on kscore's own stream and
time it honestly."""
import torch
import triton
import triton.language as tl
from triton.language.extra import libdevice


@triton.jit
def _gelu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    y = 0.5 * x * (1.0 + libdevice.erf(x * 0.7071067811865476))
    tl.store(y_ptr + offs, y.to(tl.float16), mask=mask)


def gelu(x):
    y = torch.empty_like(x)
    n = x.numel()
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        _gelu_kernel[(triton.cdiv(n, 4096),)](x, y, n, BLOCK=4096)
    return y
