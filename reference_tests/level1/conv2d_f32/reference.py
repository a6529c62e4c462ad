import torch
import torch.nn.functional as F


def reference(inputs, dims):
    """3x3 convolution, stride 1, zero padding 1, with bias, in float64."""
    x = inputs["x"].to(torch.float64)
    w = inputs["w"].to(torch.float64)
    b = inputs["bias"].to(torch.float64)
    return {"y": F.conv2d(x, w, b, stride=1, padding=1)}


def baseline(inputs, dims):
    """cuDNN convolution in float32 with TF32 disabled (the problem is true FP32)."""
    prev = torch.backends.cudnn.allow_tf32
    torch.backends.cudnn.allow_tf32 = False
    try:
        y = F.conv2d(inputs["x"], inputs["w"], inputs["bias"], stride=1, padding=1)
    finally:
        torch.backends.cudnn.allow_tf32 = prev
    return {"y": y}
