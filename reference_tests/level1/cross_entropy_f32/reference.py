import torch


def reference(inputs, dims):
    x = inputs["logits"].to(torch.float64)
    t = inputs["target"].to(torch.int64)
    lse = torch.logsumexp(x, dim=-1)
    return {"loss": lse - x.gather(1, t.unsqueeze(1)).squeeze(1)}


def baseline(inputs, dims):
    return {"loss": torch.nn.functional.cross_entropy(inputs["logits"], inputs["target"].long(), reduction="none")}
