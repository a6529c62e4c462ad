import torch


def reference(inputs, dims):
    """h is the float64 sum rounded to bfloat16 (what the kernel stores); y normalises that h in float64."""
    x = inputs["x"].double()
    r = inputs["r"].double()
    h = (x + r).to(torch.bfloat16).double()
    mean = h.mean(dim=-1, keepdim=True)
    var = ((h - mean) ** 2).mean(dim=-1, keepdim=True)
    y = (h - mean) / torch.sqrt(var + float(inputs["eps"]))
    y = y * inputs["gamma"].double() + inputs["beta"].double()
    return {"h": h, "y": y}


def baseline(inputs, dims):
    h = inputs["x"] + inputs["r"]
    y = torch.nn.functional.layer_norm(h, (h.shape[-1],), inputs["gamma"], inputs["beta"],
                                       float(inputs["eps"]))
    return {"h": h, "y": y}
