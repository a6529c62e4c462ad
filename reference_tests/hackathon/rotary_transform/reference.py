import torch


def reference(inputs, dims):
    """Non-interleaved rotary embedding in float64; positions >= seqlen_ro are not rotated."""
    x = inputs["x"].to(torch.float64)                   # [B, S, H, D]
    cos = inputs["cos"].to(torch.float64)               # [S_ro, rd/2]
    sin = inputs["sin"].to(torch.float64)
    off = int(inputs["seqlen_offset"])
    S = x.shape[1]
    s_ro, h2 = cos.shape
    rd = 2 * h2
    pos = torch.arange(S, device=x.device) + off
    ok = (pos >= 0) & (pos < s_ro)
    idx = torch.where(ok, pos, torch.zeros_like(pos))
    c = torch.where(ok[:, None], cos[idx], torch.ones_like(cos[idx]))[None, :, None, :]   # [1, S, 1, h2]
    s = torch.where(ok[:, None], sin[idx], torch.zeros_like(sin[idx]))[None, :, None, :]
    x0, x1 = x[..., :h2], x[..., h2:rd]
    out = x.clone()
    out[..., :h2] = x0 * c - x1 * s
    out[..., h2:rd] = x0 * s + x1 * c
    return {"out": out}


def baseline(inputs, dims):
    """The usual PyTorch formulation (rotate-half with cat), float32."""
    x, cos, sin = inputs["x"], inputs["cos"], inputs["sin"]
    off = int(inputs["seqlen_offset"])
    S = x.shape[1]
    s_ro, h2 = cos.shape
    rd = 2 * h2
    pos = torch.arange(S, device=x.device) + off
    ok = (pos >= 0) & (pos < s_ro)
    idx = torch.where(ok, pos, torch.zeros_like(pos))
    c = torch.where(ok[:, None], cos[idx], torch.ones_like(cos[idx])).repeat(1, 2)[None, :, None, :]
    s = torch.where(ok[:, None], sin[idx], torch.zeros_like(sin[idx])).repeat(1, 2)[None, :, None, :]
    xr = x[..., :rd]
    rot = torch.cat((-xr[..., h2:], xr[..., :h2]), dim=-1)
    return {"out": torch.cat((xr * c + rot * s, x[..., rd:]), dim=-1)}
