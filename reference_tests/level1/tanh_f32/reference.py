import torch


def reference(inputs, dims):
    x = inputs["x"].to(torch.float64)
    return {"y": torch.tanh(x)}


def baseline(inputs, dims):
    return {"y": torch.tanh(inputs["x"])}
