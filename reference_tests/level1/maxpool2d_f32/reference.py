import torch
import torch.nn.functional as F


def reference(inputs, dims):
    """max_pool2d, kernel 3, stride 2, padding 1 (padding never wins), in float64."""
    x = inputs["x"].to(torch.float64)
    return {"y": F.max_pool2d(x, kernel_size=3, stride=2, padding=1)}


def baseline(inputs, dims):
    """PyTorch's CUDA max_pool2d in float32."""
    return {"y": F.max_pool2d(inputs["x"], kernel_size=3, stride=2, padding=1)}
