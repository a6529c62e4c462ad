"""sum_dim_f32: y[r] = sum of row r of a float32 [rows, cols] matrix.

A row is cut into chunks of up to 32768 columns; each program sums one (row, chunk) (per-lane
partial sums, then a tree). A row of one chunk is written straight to y; longer rows go through a
scratch buffer of partial sums that a second kernel adds in a fixed order (deterministic)."""
import torch
import triton
import triton.language as tl


@triton.jit
def _sum_chunks_kernel(x_ptr, out_ptr, cols, nchunks, CHUNK: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    chunk = tl.program_id(1)
    base = x_ptr + row.to(tl.int64) * cols
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for off in range(0, CHUNK, BLOCK):
        c = chunk * CHUNK + off + tl.arange(0, BLOCK)
        acc += tl.load(base + c, mask=c < cols, other=0.0)
    tl.store(out_ptr + row.to(tl.int64) * nchunks + chunk, tl.sum(acc, axis=0))


@triton.jit
def _sum_partials_kernel(part_ptr, y_ptr, nchunks, PBLOCK: tl.constexpr):
    row = tl.program_id(0)
    i = tl.arange(0, PBLOCK)
    p = tl.load(part_ptr + row.to(tl.int64) * nchunks + i, mask=i < nchunks, other=0.0)
    tl.store(y_ptr + row, tl.sum(p, axis=0))


def sum_dim(x):
    assert x.dtype == torch.float32 and x.dim() == 2
    x = x.contiguous()
    rows, cols = x.shape
    y = torch.empty((rows,), dtype=torch.float32, device=x.device)
    block = max(16, min(4096, triton.next_power_of_2(cols)))
    chunk = block * min(8, triton.cdiv(cols, block))
    nchunks = triton.cdiv(cols, chunk)
    warps = 8 if block >= 2048 else 4
    if nchunks == 1:
        _sum_chunks_kernel[(rows, 1)](x, y, cols, 1, CHUNK=chunk, BLOCK=block, num_warps=warps)
        return y
    part = torch.empty((rows, nchunks), dtype=torch.float32, device=x.device)
    _sum_chunks_kernel[(rows, nchunks)](x, part, cols, nchunks, CHUNK=chunk, BLOCK=block,
                                        num_warps=warps)
    _sum_partials_kernel[(rows,)](part, y, nchunks, PBLOCK=max(16, triton.next_power_of_2(nchunks)),
                                  num_warps=4)
    return y
