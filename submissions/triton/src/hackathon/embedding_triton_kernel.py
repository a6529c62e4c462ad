"""embedding_triton_kernel: out[s, :] = weight[ids[s] - vob_start_id, :] for ids in
[vob_start_id, vob_end_id), zero rows otherwise (a tensor-parallel vocabulary shard)."""
import torch
import triton
import triton.language as tl


@triton.jit
def _embedding_kernel(ids_ptr, w_ptr, out_ptr, seq, hidden, vob_start_id, vob_end_id,
                      BLOCK_S: tl.constexpr, BLOCK_H: tl.constexpr):
    ps = tl.program_id(0)
    ph = tl.program_id(1)
    s = ps * BLOCK_S + tl.arange(0, BLOCK_S)
    h = ph * BLOCK_H + tl.arange(0, BLOCK_H)
    smask = s < seq
    hmask = h < hidden
    ids = tl.load(ids_ptr + s, mask=smask, other=0)
    inside = (ids >= vob_start_id) & (ids < vob_end_id) & smask
    row = tl.where(inside, ids - vob_start_id, 0).to(tl.int64)
    # rows of ids outside the shard are never read: the masked load gives their zeros
    vals = tl.load(w_ptr + row[:, None] * hidden + h[None, :],
                   mask=inside[:, None] & hmask[None, :], other=0.0)
    tl.store(out_ptr + s.to(tl.int64)[:, None] * hidden + h[None, :], vals,
             mask=smask[:, None] & hmask[None, :])


def embedding(input_ids, weight, vob_start_id, vob_end_id, out):
    assert input_ids.is_contiguous() and weight.is_contiguous() and out.is_contiguous()
    seq = input_ids.numel()
    hidden = weight.shape[1]
    block_h = max(16, min(512, triton.next_power_of_2(hidden)))
    block_s = max(1, min(64, 4096 // block_h))
    grid = (triton.cdiv(seq, block_s), triton.cdiv(hidden, block_h))
    _embedding_kernel[grid](input_ids, weight, out, seq, hidden, vob_start_id, vob_end_id,
                            BLOCK_S=block_s, BLOCK_H=block_h, num_warps=4)
