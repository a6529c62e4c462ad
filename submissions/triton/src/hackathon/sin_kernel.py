"""sin_kernel: y = sin(x) over a float32 vector (TritonBench-G's call_kernel(x))."""
import torch
import triton
import triton.language as tl
from triton.language.extra import libdevice


@triton.autotune(
    configs=[
        triton.Config({"BLOCK": 1024}, num_warps=4),
        triton.Config({"BLOCK": 2048}, num_warps=8),
        triton.Config({"BLOCK": 4096}, num_warps=8),
    ],
    key=["n"],
)
@triton.jit
def sin_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    # libdevice's sinf keeps full range reduction: the approximate sine loses accuracy for |x| >> pi
    tl.store(y_ptr + offs, libdevice.sin(x), mask=mask)


def call_kernel(x):
    assert x.dtype == torch.float32 and x.is_contiguous()
    y = torch.empty_like(x)
    n = x.numel()
    if n == 0:
        return y
    grid = lambda meta: (triton.cdiv(n, meta["BLOCK"]),)
    sin_kernel[grid](x, y, n)
    return y
