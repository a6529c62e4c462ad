import torch


def _dequantize(inputs, dims, dtype):
    """W [K, N] from the packed int4 weights, zero points and scales."""
    qw = inputs["qweight"].to(torch.int64) & 0xFFFFFFFF          # [K/8, N]
    qz = inputs["qzeros"].to(torch.int64) & 0xFFFFFFFF           # [K/G, N/8]
    sc = inputs["scales"]                                        # [K/G, N]
    G = int(dims["G"])
    K8, N = qw.shape
    shifts = torch.arange(8, device=qw.device, dtype=torch.int64) * 4
    q = ((qw.unsqueeze(1) >> shifts.view(1, 8, 1)) & 15).reshape(K8 * 8, N)          # k = 8 k8 + i
    z = ((qz.unsqueeze(2) >> shifts.view(1, 1, 8)) & 15).reshape(qz.shape[0], N)      # n = 8 n8 + i
    diff = q - z.repeat_interleave(G, dim=0)
    return diff.to(dtype) * sc.to(dtype).repeat_interleave(G, dim=0)


def reference(inputs, dims):
    """out = x @ W with W dequantized exactly (float64)."""
    w = _dequantize(inputs, dims, torch.float64)
    return {"out": inputs["x"].to(torch.float64) @ w}


_cache = {}


def baseline(inputs, dims):
    """cuBLAS float16 GEMM (torch.matmul) against the dequantized float16 weight. The weight is
    dequantized once per input set and cached, so the timed region is the GEMM alone: the bar a
    fused int4 kernel is measured against is cuBLAS at the same size in float16."""
    key = tuple((id(inputs[n]), inputs[n].data_ptr(), inputs[n]._version)
                for n in ("qweight", "qzeros", "scales")) + (int(dims["G"]),)
    w = _cache.get(key)
    if w is None:
        _cache.clear()
        w = _dequantize(inputs, dims, torch.float16)
        _cache[key] = w
    return {"out": torch.matmul(inputs["x"], w)}
