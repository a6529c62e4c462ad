"""rotary_transform: non-interleaved rotary embedding on the first rotary_dim features of x
[batch, seqlen, nheads, headdim], cos/sin [seqlen_ro, rotary_dim / 2] at position
s + offset + seqlen (TritonBench-G's apply_rotary adds seqlen to an integer offset); positions at or
past seqlen_ro are left unrotated, features from rotary_dim on are copied."""
import torch
import triton
import triton.language as tl


@triton.jit
def _rotary_kernel(x_ptr, cos_ptr, sin_ptr, out_ptr, nrows, S, H, D, HALF, S_RO, offset,
                   CONJ: tl.constexpr, BLOCK_R: tl.constexpr, BLOCK_D: tl.constexpr):
    # one program rotates BLOCK_R (batch, position, head) rows of headdim features
    pid = tl.program_id(0)
    r = pid * BLOCK_R + tl.arange(0, BLOCK_R)
    rmask = r < nrows
    pos = (r // H) % S + offset
    d = tl.arange(0, BLOCK_D)
    dmask = d < D
    first = d < HALF
    second = (d >= HALF) & (d < 2 * HALF)
    partner = tl.where(first, d + HALF, tl.where(second, d - HALF, d))
    k = tl.where(first, d, d - HALF)
    base = r.to(tl.int64)[:, None] * D
    m2 = rmask[:, None] & dmask[None, :]
    x = tl.load(x_ptr + base + d[None, :], mask=m2, other=0.0)
    xp = tl.load(x_ptr + base + partner[None, :], mask=m2, other=0.0)
    # cos = 1, sin = 0 outside the table and for the copied features: out = x exactly
    cmask = m2 & (first | second)[None, :] & (pos < S_RO)[:, None]
    cidx = pos.to(tl.int64)[:, None] * HALF + k[None, :]
    c = tl.load(cos_ptr + cidx, mask=cmask, other=1.0)
    s = tl.load(sin_ptr + cidx, mask=cmask, other=0.0)
    if CONJ:
        s = -s
    sign = tl.where(first, -1.0, 1.0)
    out = x * c + (sign[None, :] * xp) * s
    tl.store(out_ptr + base + d[None, :], out, mask=m2)


def apply_rotary(x, cos, sin, seqlen_offsets=0, cu_seqlens=None, max_seqlen=None,
                 interleaved=False, inplace=False, conjugate=False):
    # the forms this problem uses: fixed-length batches, an integer offset, GPT-NeoX halves
    assert cu_seqlens is None and not interleaved and isinstance(seqlen_offsets, int)
    batch, seqlen, nheads, headdim = x.shape
    seqlen_ro, half = cos.shape
    assert sin.shape == cos.shape and 2 * half <= headdim
    assert x.is_contiguous() and cos.is_contiguous() and sin.is_contiguous()
    out = torch.empty_like(x)
    nrows = batch * seqlen * nheads
    block_d = max(16, triton.next_power_of_2(headdim))
    block_r = max(1, 2048 // block_d)
    grid = (triton.cdiv(nrows, block_r),)
    _rotary_kernel[grid](x, cos, sin, out, nrows, seqlen, nheads, headdim, half, seqlen_ro,
                         seqlen_offsets + seqlen, CONJ=conjugate, BLOCK_R=block_r, BLOCK_D=block_d,
                         num_warps=4)
    if inplace:
        x.copy_(out)
        return x
    return out
