import torch


def reference(inputs, dims):
    a = inputs["a"].double()
    b = inputs["b"].double()
    return {"y": a * torch.sigmoid(a) * b}


def baseline(inputs, dims):
    return {"y": torch.nn.functional.silu(inputs["a"]) * inputs["b"]}
