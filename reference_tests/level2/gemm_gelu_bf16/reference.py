import math

import torch


def reference(inputs, dims):
    a = inputs["A"].double()
    b = inputs["B"].double()
    v = a @ b.t()
    return {"C": 0.5 * v * (1.0 + torch.erf(v / math.sqrt(2.0)))}


def baseline(inputs, dims):
    # cuBLAS GEMM in bf16, then the unfused exact GELU
    return {"C": torch.nn.functional.gelu(torch.matmul(inputs["A"], inputs["B"].t()))}
