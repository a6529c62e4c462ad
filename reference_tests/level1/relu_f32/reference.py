import torch


def reference(inputs, dims):
    x = inputs["x"].to(torch.float64)
    return {"y": torch.clamp(x, min=0.0)}


def baseline(inputs, dims):
    return {"y": torch.relu(inputs["x"])}
