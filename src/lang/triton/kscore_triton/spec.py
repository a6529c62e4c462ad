"""Building a case's torch tensors and the entry's arguments (runs in the trace child only).

Values barely matter for a trace (kscore replays the kernels on its own inputs), but they follow
the request's distributions so that an answer that branches on data or gathers by index stays in
range: `int` bounds are honoured exactly.
"""

TORCH_DTYPES = {
    "f16": "float16", "bf16": "bfloat16", "f32": "float32", "f64": "float64", "i8": "int8",
    "u8": "uint8", "i16": "int16", "i32": "int32", "u32": "uint32", "i64": "int64", "bool": "bool",
}


def torch_dtype(torch, name):
    return getattr(torch, TORCH_DTYPES[name])


def dtype_name(torch, dtype):
    """kscore's name of a torch dtype (`torch.float32` -> "f32"), or torch's own for the rest."""
    for name, attr in TORCH_DTYPES.items():
        if getattr(torch, attr, None) == dtype:
            return name
    return str(dtype).replace("torch.", "")


def _random(torch, spec, device, gen):
    """A tensor of `spec`'s shape and dtype drawn from its dist (kind, a, b)."""
    kind, a, b = spec.dist
    shape = tuple(spec.shape)
    dtype = torch_dtype(torch, spec.dtype)
    if kind == "zeros":
        return torch.zeros(shape, dtype=dtype, device=device)
    if kind == "ones":
        return torch.ones(shape, dtype=dtype, device=device)
    if kind == "bits" or (kind != "int" and spec.dtype == "bool"):
        if spec.dtype == "bool":
            return torch.randint(0, 2, shape, generator=gen, device=device, dtype=torch.int64).to(dtype)
        nbytes = spec.numel() * torch.empty((), dtype=dtype).element_size()
        raw = torch.randint(0, 256, (nbytes,), generator=gen, device=device, dtype=torch.int64).to(torch.uint8)
        return raw.view(dtype).reshape(shape)
    if kind == "int":
        vals = torch.randint(int(a), int(b) + 1, shape, generator=gen, device=device, dtype=torch.int64)
        return vals.to(dtype)
    work = torch.float64 if spec.dtype == "f64" else torch.float32
    if kind == "normal":
        vals = torch.randn(shape, generator=gen, device=device, dtype=work) * float(b) + float(a)
    else:
        vals = torch.rand(shape, generator=gen, device=device, dtype=work) * (float(b) - float(a)) + float(a)
    return vals.to(dtype)


def build_tensors(torch, case, device, made_by_entry, seed):
    """The case's tensors as a dict name -> tensor: `in`/`inout` drawn from their dist, `out` left
    uninitialised; tensors the entry makes itself (made_by_entry) are not built."""
    gen = torch.Generator(device=device)
    gen.manual_seed(seed)
    out = {}
    for spec in case.tensors:
        if spec.name in made_by_entry:
            continue
        if spec.role == "out":
            out[spec.name] = torch.empty(tuple(spec.shape), dtype=torch_dtype(torch, spec.dtype), device=device)
        else:
            out[spec.name] = _random(torch, spec, device, gen).contiguous()
    return out


def entry_arguments(entry, case, tensors):
    """(args, kwargs) for the entry: names become the case's tensors or scalars, consts their
    value. A name of an `out` tensor that the entry returns is never passed (protocol)."""
    def value(arg):
        kind, v = arg
        if kind == "const":
            return v
        if v in tensors:
            return tensors[v]
        return case.scalars[v][1]
    args = [value(a) for a in entry.args]
    kwargs = {k: value(a) for k, a in entry.kwargs.items()}
    return args, kwargs
