import torch


def reference(inputs, dims):
    x = inputs["x"].to(torch.float64)
    return {"y": torch.sigmoid(x)}


def baseline(inputs, dims):
    return {"y": torch.sigmoid(inputs["x"])}
