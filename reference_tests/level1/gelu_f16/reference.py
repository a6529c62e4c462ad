import torch


def reference(inputs, dims):
    # Exact GELU (erf form), as torch.nn.functional.gelu(approximate="none").
    x = inputs["x"].to(torch.float64)
    return {"y": 0.5 * x * (1.0 + torch.erf(x / 2.0 ** 0.5))}


def baseline(inputs, dims):
    return {"y": torch.nn.functional.gelu(inputs["x"], approximate="none")}
