import torch


def rope_tables(x, cos, sin, off):
    """cos and sin of every position of x ([S, rd/2]; positions outside [0, seqlen_ro) get cos 1,
    sin 0, so they are not rotated), and rd/2. Row s is at position s + off + S: the hackathon's
    apply_rotary (TritonBench-G) adds seqlen to an integer seqlen_offsets before its kernel."""
    S = x.shape[1]
    s_ro, h2 = cos.shape
    pos = torch.arange(S, device=x.device) + off + S
    ok = (pos >= 0) & (pos < s_ro)
    idx = torch.where(ok, pos, torch.zeros_like(pos))
    c = torch.where(ok[:, None], cos[idx], torch.ones_like(cos[idx]))
    s = torch.where(ok[:, None], sin[idx], torch.zeros_like(sin[idx]))
    return c, s, h2


def reference(inputs, dims):
    """Non-interleaved rotary embedding in float64; positions >= seqlen_ro are not rotated."""
    x = inputs["x"].to(torch.float64)                   # [B, S, H, D]
    cos = inputs["cos"].to(torch.float64)               # [S_ro, rd/2]
    sin = inputs["sin"].to(torch.float64)
    c, s, h2 = rope_tables(x, cos, sin, int(inputs["seqlen_offset"]))
    c, s = c[None, :, None, :], s[None, :, None, :]     # [1, S, 1, h2]
    rd = 2 * h2
    x0, x1 = x[..., :h2], x[..., h2:rd]
    out = x.clone()
    out[..., :h2] = x0 * c - x1 * s
    out[..., h2:rd] = x0 * s + x1 * c
    return {"out": out}


def baseline(inputs, dims):
    """The usual PyTorch formulation (rotate-half with cat), float32."""
    x = inputs["x"]
    c, s, h2 = rope_tables(x, inputs["cos"], inputs["sin"], int(inputs["seqlen_offset"]))
    c, s = c.repeat(1, 2)[None, :, None, :], s.repeat(1, 2)[None, :, None, :]
    rd = 2 * h2
    xr = x[..., :rd]
    rot = torch.cat((-xr[..., h2:], xr[..., :h2]), dim=-1)
    return {"out": torch.cat((xr * c + rot * s, x[..., rd:]), dim=-1)}
