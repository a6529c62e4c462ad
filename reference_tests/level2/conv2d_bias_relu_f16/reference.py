import torch
import torch.nn.functional as F


def reference(inputs, dims):
    """float64 convolution (float32 without TF32 for the large perf cases), then bias and ReLU."""
    x, w, bias = inputs["x"], inputs["w"], inputs["bias"]
    macs = x.shape[0] * w.shape[0] * x.shape[2] * x.shape[3] * w.shape[1] * 9
    dtype = torch.float64 if macs <= 2e9 else torch.float32
    saved = torch.backends.cudnn.allow_tf32
    torch.backends.cudnn.allow_tf32 = False
    try:
        y = F.conv2d(x.to(dtype), w.to(dtype), bias.to(dtype), stride=1, padding=1)
    finally:
        torch.backends.cudnn.allow_tf32 = saved
    return {"out": torch.relu(y).double()}


def baseline(inputs, dims):
    # cuDNN convolution in fp16 (bias included), then the unfused ReLU
    return {"out": torch.relu(F.conv2d(inputs["x"], inputs["w"], inputs["bias"], stride=1, padding=1))}
