"""Python references shared by several problems' reference.py (tests/gpu/validate_goldens.py puts
this folder on the import path before it loads a reference.py). Each function has the signature
of a reference.py entry point, reference(inputs, dims) or baseline(inputs, dims)."""
import torch


def matmul64(inputs, a, b, out):
    """{out: a @ b} in float64 (16-bit inputs are exact in float64)."""
    return {out: inputs[a].to(torch.float64) @ inputs[b].to(torch.float64)}


def gemm_reference(inputs, dims):
    """C = A @ B in float64."""
    return matmul64(inputs, "A", "B", "C")


def gemm_baseline(inputs, dims):
    """cuBLAS GEMM on tensor cores, 16-bit in / 16-bit out."""
    return {"C": torch.matmul(inputs["A"], inputs["B"])}


def attention_reference(inputs, causal):
    """float64 softmax(Q K^T * scale [+ causal mask]) V, one (batch, head) and at most 1024 queries
    at a time."""
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
                if causal:
                    rows = torch.arange(q0, q0 + qq.shape[0], device=q.device).unsqueeze(1)
                    cols = torch.arange(S, device=q.device).unsqueeze(0)
                    s = s.masked_fill(cols > rows, float("-inf"))
                out[b, h, q0:q0 + qq.shape[0]] = torch.softmax(s, dim=-1) @ vv
    return {"O": out}


def attention_baseline(inputs, causal):
    o = torch.nn.functional.scaled_dot_product_attention(
        inputs["Q"], inputs["K"], inputs["V"], scale=float(inputs["scale"]), is_causal=causal)
    return {"O": o}


def bias_relu_reference(inputs, dims):
    x = inputs["x"].double()
    bias = inputs["bias"].double()
    return {"y": torch.clamp(x + bias.unsqueeze(0), min=0.0)}


def bias_relu_baseline(inputs, dims):
    return {"y": torch.relu(inputs["x"] + inputs["bias"])}
