import torch


def reference(inputs, dims):
    # First index of the row maximum (inputs are finite). Computed without relying on
    # torch.argmax's tie rule: the smallest column index among the entries equal to the max.
    x = inputs["x"].to(torch.float64)
    m = torch.amax(x, dim=-1, keepdim=True)
    cols = torch.arange(x.shape[-1], device=x.device, dtype=torch.int64).expand_as(x)
    big = torch.full_like(cols, x.shape[-1])
    idx = torch.where(x == m, cols, big).amin(dim=-1)
    return {"y": idx.to(torch.int32)}


def baseline(inputs, dims):
    return {"y": torch.argmax(inputs["x"], dim=-1).to(torch.int32)}
