"""argmax_dim_f32: y[r] = the lowest column index of the maximum of row r, float32 in, int32 out.

Rows are cut into chunks; each program finds its chunk's maximum and the lowest index holding it.
For rows of several chunks a second kernel picks the largest chunk maximum, the earliest chunk on
ties, so the lowest index overall wins."""
import torch
import triton
import triton.language as tl


@triton.jit
def _block_argmax(x, c):
    m = tl.max(x, axis=0)
    i = tl.min(tl.where(x == m, c, 2147483647), axis=0)
    return m, i


@triton.jit
def _argmax_chunks_kernel(x_ptr, val_ptr, idx_ptr, cols, nchunks,
                          CHUNK: tl.constexpr, BLOCK: tl.constexpr, WRITE_VAL: tl.constexpr):
    row = tl.program_id(0)
    chunk = tl.program_id(1)
    base = x_ptr + row.to(tl.int64) * cols
    # the chunk's first block starts before cols: its maximum is a real element
    c = chunk * CHUNK + tl.arange(0, BLOCK)
    best, best_i = _block_argmax(tl.load(base + c, mask=c < cols, other=float("-inf")), c)
    for off in range(BLOCK, CHUNK, BLOCK):
        c = chunk * CHUNK + off + tl.arange(0, BLOCK)
        m, i = _block_argmax(tl.load(base + c, mask=c < cols, other=float("-inf")), c)
        take = m > best  # strictly greater: an earlier block keeps a tie
        best_i = tl.where(take, i, best_i)
        best = tl.where(take, m, best)
    out = row.to(tl.int64) * nchunks + chunk
    tl.store(idx_ptr + out, best_i)
    if WRITE_VAL:
        tl.store(val_ptr + out, best)


@triton.jit
def _argmax_finish_kernel(val_ptr, idx_ptr, y_ptr, nchunks, PBLOCK: tl.constexpr):
    row = tl.program_id(0)
    j = tl.arange(0, PBLOCK)
    jm = j < nchunks
    v = tl.load(val_ptr + row.to(tl.int64) * nchunks + j, mask=jm, other=float("-inf"))
    idx = tl.load(idx_ptr + row.to(tl.int64) * nchunks + j, mask=jm, other=2147483647)
    best = tl.max(v, axis=0)
    tl.store(y_ptr + row, tl.min(tl.where(jm & (v == best), idx, 2147483647), axis=0))


def argmax_dim(x):
    assert x.dtype == torch.float32 and x.dim() == 2
    x = x.contiguous()
    rows, cols = x.shape
    y = torch.empty((rows,), dtype=torch.int32, device=x.device)
    block = max(16, min(4096, triton.next_power_of_2(cols)))
    chunk = block * min(8, triton.cdiv(cols, block))
    nchunks = triton.cdiv(cols, chunk)
    warps = 8 if block >= 2048 else 4
    if nchunks == 1:
        _argmax_chunks_kernel[(rows, 1)](x, y, y, cols, 1, CHUNK=chunk, BLOCK=block, WRITE_VAL=False,
                                         num_warps=warps)
        return y
    vals = torch.empty((rows, nchunks), dtype=torch.float32, device=x.device)
    idxs = torch.empty((rows, nchunks), dtype=torch.int32, device=x.device)
    _argmax_chunks_kernel[(rows, nchunks)](x, vals, idxs, cols, nchunks, CHUNK=chunk, BLOCK=block,
                                           WRITE_VAL=True, num_warps=warps)
    _argmax_finish_kernel[(rows,)](vals, idxs, y, nchunks,
                                   PBLOCK=max(16, triton.next_power_of_2(nchunks)), num_warps=4)
    return y
