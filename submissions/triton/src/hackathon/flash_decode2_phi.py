"""flash_decode2_phi: flash-decoding stage 2. For batch b and head h, with n = cdiv(B_Seqlen[b],
block_seq) valid splits, Out[b, h] = sum_j w_j mid_out[b, h, j] / sum_j w_j, w_j =
exp(lse_j - max_j lse_j) over the valid splits."""
import torch
import triton
import triton.language as tl


@triton.jit
def _flash_decode_stage2_kernel(mid_ptr, lse_ptr, seqlen_ptr, out_ptr, H, NBLK, D, block_seq,
                                BLOCK_N: tl.constexpr, BLOCK_D: tl.constexpr, CH: tl.constexpr):
    b = tl.program_id(0)
    h = tl.program_id(1)
    seqlen = tl.load(seqlen_ptr + b)
    nvalid = tl.minimum((seqlen + block_seq - 1) // block_seq, NBLK)
    bh = b.to(tl.int64) * H + h
    lse_row = lse_ptr + bh * NBLK
    j = tl.arange(0, BLOCK_N)
    lse = tl.load(lse_row + j, mask=j < nvalid, other=float("-inf"))
    mx = tl.max(lse, axis=0)
    denom = tl.sum(tl.exp(lse - mx), axis=0)
    d = tl.arange(0, BLOCK_D)
    dmask = d < D
    acc = tl.zeros([BLOCK_D], dtype=tl.float32)
    for j0 in range(0, nvalid, CH):
        jj = j0 + tl.arange(0, CH)
        jmask = jj < nvalid
        w = tl.exp(tl.load(lse_row + jj, mask=jmask, other=float("-inf")) - mx)
        tile = tl.load(mid_ptr + (bh * NBLK + jj)[:, None] * D + d[None, :],
                       mask=jmask[:, None] & dmask[None, :], other=0.0)
        acc += tl.sum(w[:, None] * tile, axis=0)
    tl.store(out_ptr + bh * D + d, acc / denom, mask=dmask)


def flash_decode_stage2(mid_out, mid_out_logexpsum, B_Seqlen, Out, block_seq):
    batch, heads, nblk, head_dim = mid_out.shape
    assert mid_out_logexpsum.shape == (batch, heads, nblk) and Out.shape == (batch, heads, head_dim)
    block_d = max(16, triton.next_power_of_2(head_dim))
    block_n = max(16, triton.next_power_of_2(nblk))
    ch = max(1, min(16, 2048 // block_d))
    _flash_decode_stage2_kernel[(batch, heads)](
        mid_out, mid_out_logexpsum, B_Seqlen, Out, heads, nblk, head_dim, block_seq,
        BLOCK_N=block_n, BLOCK_D=block_d, CH=ch, num_warps=4)
