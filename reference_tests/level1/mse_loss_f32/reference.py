import torch


def reference(inputs, dims):
    a = inputs["a"].to(torch.float64)
    b = inputs["b"].to(torch.float64)
    return {"out": ((a - b) ** 2).mean(dim=-1)}


def baseline(inputs, dims):
    return {"out": torch.nn.functional.mse_loss(inputs["a"], inputs["b"], reduction="none").mean(dim=-1)}
