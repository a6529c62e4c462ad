"""softmax_f32: y = softmax(x) over the last dimension of a float32 [rows, cols] matrix.

Short rows: a tile of whole rows per program, one read and one write. Long rows: one program per
row, an online pass for the maximum and the sum, then a pass that writes."""
import torch
import triton
import triton.language as tl


@triton.jit
def _softmax_rows_kernel(x_ptr, y_ptr, rows, cols, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    r = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    c = tl.arange(0, BLOCK_C)
    mask = (r < rows)[:, None] & (c < cols)[None, :]
    offs = r.to(tl.int64)[:, None] * cols + c[None, :]
    x = tl.load(x_ptr + offs, mask=mask, other=float("-inf"))
    mx = tl.max(x, axis=1)
    e = tl.exp(x - mx[:, None])
    e = tl.where(mask, e, 0.0)
    s = tl.sum(e, axis=1)
    tl.store(y_ptr + offs, e / s[:, None], mask=mask)


@triton.jit
def _softmax_long_kernel(x_ptr, y_ptr, cols, BLOCK: tl.constexpr):
    base = tl.program_id(0).to(tl.int64) * cols
    # the first block holds column 0, so the running maximum is finite from the start
    c = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + base + c, mask=c < cols, other=float("-inf"))
    mx = tl.max(x, axis=0)
    total = tl.sum(tl.exp(x - mx), axis=0)
    for off in range(BLOCK, cols, BLOCK):
        c = off + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + base + c, mask=c < cols, other=float("-inf"))
        new_mx = tl.maximum(mx, tl.max(x, axis=0))
        total = total * tl.exp(mx - new_mx) + tl.sum(tl.exp(x - new_mx), axis=0)
        mx = new_mx
    for off in range(0, cols, BLOCK):
        c = off + tl.arange(0, BLOCK)
        m = c < cols
        x = tl.load(x_ptr + base + c, mask=m, other=float("-inf"))
        tl.store(y_ptr + base + c, tl.exp(x - mx) / total, mask=m)


def softmax(x):
    assert x.dtype == torch.float32 and x.dim() == 2
    x = x.contiguous()
    rows, cols = x.shape
    y = torch.empty_like(x)
    if cols <= 1024:
        block_c = max(16, triton.next_power_of_2(cols))
        block_r = max(1, 4096 // block_c)
        _softmax_rows_kernel[(triton.cdiv(rows, block_r),)](x, y, rows, cols, BLOCK_R=block_r,
                                                             BLOCK_C=block_c, num_warps=4)
    else:
        _softmax_long_kernel[(rows,)](x, y, cols, BLOCK=4096, num_warps=8)
    return y
