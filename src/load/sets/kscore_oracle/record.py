"""What a case is: every call of an entry function, recorded by a wrapper.

A value is described as JSON: a tensor by shape, dtype, strides, storage offset and device; an
int, float, bool, str, None, torch dtype by kind and value; tuples, lists and dicts by their items
(up to limits.MAX_DEPTH deep). Anything else is {"kind": "other", "type": NAME}: an argument of
that kind is recorded as such, a return value of that kind is an error (kscore could not compare
it). Every tensor in a case has a path: `a0` (first positional argument), `a1.2` (its third item),
`k.out` (keyword `out`), `r` (the return value), `r.0`, `r.key`. In materialize mode each input
tensor is written to `<inputs>/c<case>.<path>.bin` as it was before the call, and each output (a
returned tensor, or an argument the call changed) to `<outputs>/c<case>.<path>.bin` after it;
the bytes are the tensor's elements in row-major order of its shape, whatever its strides.

torch is imported lazily (the protocol and its tests run without it); `tensor_type()` is what an
isinstance test uses.
"""

import ctypes
import hashlib
import json
import math
import os
import re

from . import limits


class CaseError(Exception):
    """A call the oracle cannot record; the reason names the case."""


_SAFE_KEY = re.compile(r"^[A-Za-z0-9_]{1,64}$")


def _torch():
    import torch
    return torch


def dtype_name(dt):
    return str(dt).replace("torch.", "")


def tensor_bytes(t):
    """The elements of t in row-major order of its shape, as bytes (any device, any strides)."""
    c = t.detach().to("cpu").contiguous()
    n = c.numel() * c.element_size()
    if n == 0:
        return b""
    return ctypes.string_at(c.data_ptr(), n)


def same_bytes(a, b):
    """True when the two tensors (of one shape and dtype) hold identical bytes (NaN payloads too),
    compared where they are (on the GPU for GPU tensors) when torch can view them as bytes."""
    try:
        torch = _torch()
        x = a.detach().contiguous().reshape(-1).view(torch.uint8)
        y = b.detach().contiguous().reshape(-1).view(torch.uint8)
        return bool(torch.equal(x, y))
    except Exception:  # a dtype torch cannot view as bytes, or the stand-in torch of the tests
        return tensor_bytes(a) == tensor_bytes(b)


class Writer:
    """Writes tensors of one case into the inputs and outputs folders (materialize), within a
    byte budget. Folder paths come from the request; names are made here from safe parts only."""

    def __init__(self, inputs_dir, outputs_dir, max_bytes):
        self.inputs_dir, self.outputs_dir = inputs_dir, outputs_dir
        self.left = max_bytes
        self.written = 0

    def write(self, folder, name, t):
        data = tensor_bytes(t)
        if len(data) > self.left:
            raise CaseError("materializing it would pass the %d-byte cap on what one request writes"
                            % (self.written + self.left))
        path = os.path.join(folder, name)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
        finally:
            os.close(fd)
        self.left -= len(data)
        self.written += len(data)
        return {"file": name, "bytes": len(data)}


class Describer:
    """Describes the values of one call, collecting its tensors by path."""

    def __init__(self):
        self.count = 0
        self.tensors = []  # (path, tensor)

    def value(self, v, path, depth=0, strict=False):
        self.count += 1
        if self.count > limits.MAX_VALUES:
            raise CaseError("it passes more than %d values" % limits.MAX_VALUES)
        torch = _torch()
        if isinstance(v, torch.Tensor):
            if v.dim() > limits.MAX_RANK:
                raise CaseError("%s has %d dimensions (at most %d)" % (path, v.dim(), limits.MAX_RANK))
            self.tensors.append((path, v))
            return {"kind": "tensor", "path": path, "shape": [int(s) for s in v.shape],
                    "dtype": dtype_name(v.dtype), "strides": [int(s) for s in v.stride()],
                    "offset": int(v.storage_offset()), "device": str(v.device),
                    "contiguous": bool(v.is_contiguous())}
        if v is None:
            return {"kind": "none"}
        if isinstance(v, bool):
            return {"kind": "bool", "value": v}
        if isinstance(v, int):
            return {"kind": "int", "value": v if abs(v) <= (1 << 53) else str(v)}
        if isinstance(v, float):
            return {"kind": "float", "value": _float(v)}
        if isinstance(v, str):
            return {"kind": "str", "value": v[:limits.MAX_STR]}
        if isinstance(v, torch.dtype):
            return {"kind": "dtype", "value": dtype_name(v)}
        if isinstance(v, (tuple, list)):
            if depth >= limits.MAX_DEPTH:
                raise CaseError("%s nests more than %d deep" % (path, limits.MAX_DEPTH))
            return {"kind": "tuple" if isinstance(v, tuple) else "list",
                    "items": [self.value(x, "%s.%d" % (path, i), depth + 1, strict) for i, x in enumerate(v)]}
        if isinstance(v, dict):
            if depth >= limits.MAX_DEPTH:
                raise CaseError("%s nests more than %d deep" % (path, limits.MAX_DEPTH))
            items = {}
            for k, x in v.items():
                key = str(k)
                if not _SAFE_KEY.match(key):
                    raise CaseError("%s has the key %r, which is not a name kscore can file" % (path, key[:64]))
                items[key] = self.value(x, "%s.%s" % (path, key), depth + 1, strict)
            return {"kind": "dict", "items": items}
        if strict:
            raise CaseError("%s is a %s, which kscore cannot describe or compare" % (path, type(v).__name__))
        return {"kind": "other", "type": type(v).__name__[:limits.MAX_NAME]}


def _float(v):
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return v


def signature(case):
    """What must not change under a new seed: every value's kind, shape, dtype, strides and
    scalar value (hex digest of the case's description without its files)."""
    keep = {k: case[k] for k in ("entry", "args", "kwargs", "returns", "writes")}
    return hashlib.sha256(json.dumps(keep, sort_keys=True).encode()).hexdigest()[:16]


def describe_result(value):
    """The test function's own return value (GEAK-eval's result_gold), described loosely."""
    d = Describer()
    try:
        return d.value(value, "gold")
    except CaseError as e:
        return {"kind": "other", "type": str(e)[:limits.MAX_REASON]}


class Recorder:
    """Wraps entry functions; every outermost call of one is a case. `kind` is the kind of cases
    being recorded now ("correctness" while the test code runs, "perf" for the perf script)."""

    def __init__(self, writer=None, expect=None):
        self.expect = expect  # materialize: the cases run's signatures, checked before writing
        self.cases = []
        self.depth = 0
        self.kind = "correctness"
        self.writer = writer
        self.error = None  # the first CaseError: the run stops there
        self.dropped = 0  # calls past limits.MAX_CASES, not recorded
        self.called = set()

    def wrap(self, name, fn):
        rec = self

        def entry(*args, **kwargs):
            if rec.depth or rec.error is not None:
                return fn(*args, **kwargs)
            rec.depth += 1
            try:
                pending = rec._before(name, args, kwargs)
                ret = fn(*args, **kwargs)
            finally:
                rec.depth -= 1
            if pending is not None:
                rec._after(pending, ret)
            return ret

        entry.__name__ = getattr(fn, "__name__", name)
        entry.__doc__ = getattr(fn, "__doc__", None)
        entry.__wrapped__ = fn
        return entry

    def _fail(self, index, reason):
        err = CaseError("case %d: %s" % (index, reason))
        if self.error is None:
            self.error = err
        return err

    def _before(self, name, args, kwargs):
        index = len(self.cases)
        if index >= limits.MAX_CASES:
            self.dropped += 1  # a test that loops over its entry (a benchmark): the first calls are the cases
            return None
        d = Describer()
        try:
            a = [d.value(v, "a%d" % i) for i, v in enumerate(args)]
            k = {}
            for key, v in kwargs.items():
                if not _SAFE_KEY.match(key):
                    raise CaseError("keyword %r is not a name kscore can file" % key[:64])
                k[key] = d.value(v, "k.%s" % key)
        except CaseError as e:
            raise self._fail(index, "calling %s: %s" % (name, e))
        total = sum(t.numel() * t.element_size() for _, t in d.tensors)
        if total > limits.MAX_COPY_BYTES:
            raise self._fail(index, "its arguments pass %d bytes" % limits.MAX_COPY_BYTES)
        copies = [(p, t, t.detach().clone()) for p, t in d.tensors]
        return {"index": index, "entry": name, "args": a, "kwargs": k, "copies": copies}

    def _after(self, pending, ret):
        index = pending["index"]
        case = {"index": index, "kind": self.kind, "entry": pending["entry"], "args": pending["args"],
                "kwargs": pending["kwargs"]}
        d = Describer()
        try:
            case["returns"] = d.value(ret, "r", strict=True)
        except CaseError as e:
            raise self._fail(index, "%s returned %s" % (pending["entry"], e))
        writes = []
        for path, t, before in pending["copies"]:
            if t.shape != before.shape or t.dtype != before.dtype or not same_bytes(t, before):
                writes.append(path)
        case["writes"] = writes
        case["signature"] = signature(case)
        if self.expect is not None:
            if index >= len(self.expect):
                raise self._fail(index, "the code makes more calls than in the cases run (calls that depend on "
                                 "the data)")
            if case["signature"] != self.expect[index]:
                raise self._fail(index, "its arguments differ from the cases run's (shapes that depend on the "
                                 "data)")
        if self.writer is not None:
            files = {}
            try:
                for path, _, before in pending["copies"]:
                    files[path] = self.writer.write(self.writer.inputs_dir, "c%d.%s.bin" % (index, path), before)
                outs = {}
                for path in writes:
                    t = next(t for p, t, _ in pending["copies"] if p == path)
                    outs[path] = self.writer.write(self.writer.outputs_dir, "c%d.%s.bin" % (index, path), t)
                for path, t in d.tensors:
                    outs[path] = self.writer.write(self.writer.outputs_dir, "c%d.%s.bin" % (index, path), t)
            except (CaseError, OSError) as e:
                raise self._fail(index, "writing its tensors: %s" % e)
            case["inputs"] = files
            case["outputs"] = outs
        self.called.add(pending["entry"])
        self.cases.append(case)
