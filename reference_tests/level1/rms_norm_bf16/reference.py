import torch


def reference(inputs, dims):
    x = inputs["x"].to(torch.float64)
    w = inputs["w"].to(torch.float64)
    eps = inputs["eps"]
    return {"y": x / torch.sqrt((x * x).mean(dim=-1, keepdim=True) + eps) * w}


def baseline(inputs, dims):
    x = inputs["x"]
    return {"y": torch.nn.functional.rms_norm(x, (x.shape[-1],), inputs["w"], inputs["eps"])}
