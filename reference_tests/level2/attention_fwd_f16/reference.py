import torch


def reference(inputs, dims):
    """float64 softmax(Q K^T * scale) V, one (batch, head) and at most 1024 queries at a time."""
    q, k, v = inputs["Q"], inputs["K"], inputs["V"]
    scale = float(inputs["scale"])
    B, H, S, D = q.shape
    out = torch.empty((B, H, S, D), dtype=torch.float64, device=q.device)
    for b in range(B):
        for h in range(H):
            kk = k[b, h].double()
            vv = v[b, h].double()
            for q0 in range(0, S, 1024):
                qq = q[b, h, q0:q0 + 1024].double()
                s = (qq @ kk.t()) * scale
                out[b, h, q0:q0 + qq.shape[0]] = torch.softmax(s, dim=-1) @ vv
    return {"O": out}


def baseline(inputs, dims):
    o = torch.nn.functional.scaled_dot_product_attention(
        inputs["Q"], inputs["K"], inputs["V"], scale=float(inputs["scale"]), is_causal=False)
    return {"O": o}
