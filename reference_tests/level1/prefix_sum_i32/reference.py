import torch


def reference(inputs, dims):
    x = inputs["x"].to(torch.int64)
    return {"y": torch.cumsum(x, dim=-1)}


def baseline(inputs, dims):
    return {"y": torch.cumsum(inputs["x"], dim=-1, dtype=torch.int32)}
