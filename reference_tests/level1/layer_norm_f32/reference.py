import torch


def reference(inputs, dims):
    x = inputs["x"].to(torch.float64)
    g = inputs["gamma"].to(torch.float64)
    b = inputs["beta"].to(torch.float64)
    eps = inputs["eps"]
    mean = x.mean(dim=-1, keepdim=True)
    var = ((x - mean) ** 2).mean(dim=-1, keepdim=True)      # biased
    return {"y": (x - mean) / torch.sqrt(var + eps) * g + b}


def baseline(inputs, dims):
    x = inputs["x"]
    return {"y": torch.nn.functional.layer_norm(x, (x.shape[-1],), inputs["gamma"], inputs["beta"], inputs["eps"])}
