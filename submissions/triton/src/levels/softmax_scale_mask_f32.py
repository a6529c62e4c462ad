"""softmax_scale_mask_f32: y = softmax(x * scale + mask) over the last dimension, float32 (level 2:
the scale and the additive mask fused into the softmax's passes)."""
import torch
import triton
import triton.language as tl


@triton.jit
def _scaled(x_ptr, mask_ptr, offs, m, scale):
    x = tl.load(x_ptr + offs, mask=m, other=0.0)
    a = tl.load(mask_ptr + offs, mask=m, other=0.0)
    return tl.where(m, x * scale + a, float("-inf"))


@triton.jit
def _softmax_scale_mask_kernel(x_ptr, mask_ptr, y_ptr, cols, scale, BLOCK: tl.constexpr):
    base = tl.program_id(0).to(tl.int64) * cols
    c = tl.arange(0, BLOCK)
    z = _scaled(x_ptr, mask_ptr, base + c, c < cols, scale)
    mx = tl.max(z, axis=0)
    total = tl.sum(tl.exp(z - mx), axis=0)
    for off in range(BLOCK, cols, BLOCK):
        c = off + tl.arange(0, BLOCK)
        z = _scaled(x_ptr, mask_ptr, base + c, c < cols, scale)
        new_mx = tl.maximum(mx, tl.max(z, axis=0))
        total = total * tl.exp(mx - new_mx) + tl.sum(tl.exp(z - new_mx), axis=0)
        mx = new_mx
    for off in range(0, cols, BLOCK):
        c = off + tl.arange(0, BLOCK)
        m = c < cols
        z = _scaled(x_ptr, mask_ptr, base + c, m, scale)
        tl.store(y_ptr + base + c, tl.exp(z - mx) / total, mask=m)


def softmax_scale_mask(x, mask, scale=1.0):
    assert x.shape == mask.shape and x.dim() == 2 and x.dtype == torch.float32
    x = x.contiguous()
    mask = mask.contiguous()
    rows, cols = x.shape
    y = torch.empty_like(x)
    block = max(16, min(4096, triton.next_power_of_2(cols)))
    _softmax_scale_mask_kernel[(rows,)](x, mask, y, cols, scale, BLOCK=block,
                                        num_warps=8 if block >= 2048 else 4)
    return y
