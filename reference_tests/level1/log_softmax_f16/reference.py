import torch


def reference(inputs, dims):
    x = inputs["x"].to(torch.float64)
    return {"y": torch.log_softmax(x, dim=-1)}


def baseline(inputs, dims):
    return {"y": torch.log_softmax(inputs["x"], dim=-1)}
