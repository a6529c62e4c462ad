import torch
from refs import matmul64


def reference(inputs, dims):
    """y = A @ x in float64."""
    return matmul64(inputs, "A", "x", "y")


def baseline(inputs, dims):
    """cuBLAS GEMV in bfloat16 (fp32 accumulation inside cuBLAS)."""
    return {"y": torch.mv(inputs["A"], inputs["x"])}
