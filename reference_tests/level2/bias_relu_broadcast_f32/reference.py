import torch


def reference(inputs, dims):
    x = inputs["x"].double()
    bias = inputs["bias"].double()
    return {"y": torch.clamp(x + bias.unsqueeze(0), min=0.0)}


def baseline(inputs, dims):
    return {"y": torch.relu(inputs["x"] + inputs["bias"])}
