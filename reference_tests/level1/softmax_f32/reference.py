import torch


def reference(inputs, dims):
    x = inputs["x"].to(torch.float64)
    return {"y": torch.softmax(x, dim=-1)}


def baseline(inputs, dims):
    return {"y": torch.softmax(inputs["x"], dim=-1)}
