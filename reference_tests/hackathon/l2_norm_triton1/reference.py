import torch


def reference(inputs, dims):
    """y = x / sqrt(sum(x^2, row) + eps), in float64."""
    x = inputs["x"].to(torch.float64)
    eps = float(inputs["eps"])
    ss = (x * x).sum(dim=1, keepdim=True)
    return {"y": x / torch.sqrt(ss + eps)}


def baseline(inputs, dims):
    """The plain PyTorch way in float32: a row reduction kernel and a broadcast divide."""
    x = inputs["x"]
    return {"y": x * torch.rsqrt((x * x).sum(dim=1, keepdim=True) + float(inputs["eps"]))}
