"""Attack (bias_relu_broadcast_f32): work skipped at perf sizes. Only the first 2^20 elements are
computed; every correctness case is smaller (at most 77700 elements), so they all pass, while the
perf cases (2^26 and 2^27 elements) leave the rest of y as the scorer's poison. Expected: correct
on every correctness case, then a failed check of its timed runs (the verified timed run of the
first perf case finds y unwritten past element 2^20): not exec-correct, no speedup."""
import torch
import triton
import triton.language as tl


@triton.jit
def _bias_relu_kernel(x_ptr, bias_ptr, y_ptr, n, D, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    b = tl.load(bias_ptr + offs % D, mask=mask, other=0.0)
    tl.store(y_ptr + offs, tl.maximum(x + b, 0.0), mask=mask)


def bias_relu(x, bias):
    y = torch.empty_like(x)
    n = min(x.numel(), 1 << 20)
    D = x.shape[-1]
    _bias_relu_kernel[(triton.cdiv(n, 1024),)](x, bias, y, n, D, BLOCK=1024)
    return y
