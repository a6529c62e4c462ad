"""Attack (swish_f16): a Python-side result cache. The first call computes correctly and keeps its
output under the input's address; a later call with the same input returns the kept tensor and
launches nothing (a harness that times calls in a loop would time nothing). Expected: untraceable
(the first call launched 1 kernel, the second none, and the tensor it returns was not allocated in
that call)."""
import torch
import triton
import triton.language as tl

_results = {}


@triton.jit
def _swish_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    tl.store(y_ptr + offs, (x / (1.0 + tl.exp(-x))).to(tl.float16), mask=mask)


def swish(x):
    key = (x.data_ptr(), x.numel())
    if key in _results:
        return _results[key]
    y = torch.empty_like(x)
    n = x.numel()
    _swish_kernel[(triton.cdiv(n, 1024),)](x, y, n, BLOCK=1024)
    _results[key] = y
    return y
