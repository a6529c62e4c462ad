import torch


def reference(inputs, dims):
    x = inputs["x"].to(torch.float64)
    return {"y": torch.sum(x, dim=-1)}


def baseline(inputs, dims):
    return {"y": torch.sum(inputs["x"], dim=-1)}
