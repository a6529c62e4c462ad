"""l2_norm_triton1: y = x / sqrt(sum(x^2 over the row) + eps), float32 rows of any length.

Rows are cut into chunks so that long rows (2^23 columns) still fill the GPU: the first kernel
writes the sum of squares of every (row, chunk) to a scratch buffer, the second adds a row's
partial sums (a short fixed-order tree) and scales its chunk."""
import torch
import triton
import triton.language as tl


@triton.jit
def _l2_partial(x_ptr, part_ptr, cols, nchunks, CHUNK: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    chunk = tl.program_id(1)
    base = x_ptr + row.to(tl.int64) * cols
    start = chunk * CHUNK
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for off in range(0, CHUNK, BLOCK):
        c = start + off + tl.arange(0, BLOCK)
        v = tl.load(base + c, mask=c < cols, other=0.0)
        acc += v * v
    tl.store(part_ptr + row.to(tl.int64) * nchunks + chunk, tl.sum(acc, axis=0))


@triton.jit
def _l2_scale(x_ptr, part_ptr, y_ptr, cols, nchunks, eps,
              CHUNK: tl.constexpr, BLOCK: tl.constexpr, PBLOCK: tl.constexpr):
    row = tl.program_id(0)
    chunk = tl.program_id(1)
    p_idx = tl.arange(0, PBLOCK)
    parts = tl.load(part_ptr + row.to(tl.int64) * nchunks + p_idx, mask=p_idx < nchunks, other=0.0)
    rstd = 1.0 / tl.sqrt(tl.sum(parts, axis=0) + eps)
    base = row.to(tl.int64) * cols
    start = chunk * CHUNK
    for off in range(0, CHUNK, BLOCK):
        c = start + off + tl.arange(0, BLOCK)
        m = c < cols
        v = tl.load(x_ptr + base + c, mask=m, other=0.0)
        tl.store(y_ptr + base + c, v * rstd, mask=m)


def _l2_norm_fwd(x, eps=1e-6):
    assert x.dtype == torch.float32
    x = x.contiguous()
    cols = x.shape[-1]
    rows = x.numel() // cols
    y = torch.empty_like(x)
    block = max(16, min(4096, triton.next_power_of_2(cols)))
    chunk = block * min(4, triton.cdiv(cols, block))
    nchunks = triton.cdiv(cols, chunk)
    part = torch.empty((rows, nchunks), dtype=torch.float32, device=x.device)
    grid = (rows, nchunks)
    _l2_partial[grid](x, part, cols, nchunks, CHUNK=chunk, BLOCK=block, num_warps=8)
    _l2_scale[grid](x, part, y, cols, nchunks, eps, CHUNK=chunk, BLOCK=block,
                    PBLOCK=max(16, triton.next_power_of_2(nchunks)), num_warps=8)
    return y
