"""What one call of the entry did, as plain data, and how it becomes a case of the response.

A `Recording` holds the steps of one call in order (launches, fills, copies) with every buffer
named by its storage's base address. `finalize()` names those storages (the case's inputs and
outputs, scratch buffers `s0`, `s1`, ... in order of first use) and returns the case's `buffers`
and `steps` in the response format, with each launch's kernel given by its cubin's SHA-256 (the
caller turns that into an index into `kernels`). `compare()` tells whether two calls did the same.

Nothing here imports torch: trace.py feeds it, and the CI tests drive it with fake storages.
"""

from . import limits
from .protocol import json_number


class TraceStop(BaseException):
    """Stops the answer's call (a BaseException, so `except Exception` in an answer cannot swallow
    it). The recording keeps the status and reason, so a swallowed stop still counts."""


class Region:
    """A strided view of a storage: byte offset into it, sizes and strides in elements."""

    def __init__(self, base, offset, sizes, strides):
        self.base = base
        self.offset = offset
        self.sizes = list(sizes)
        self.strides = list(strides)


def dense(sizes, strides):
    """True when a view with these sizes and strides (in elements, non-negative) covers one
    contiguous run of its storage with no element twice, in some order of its dimensions."""
    expected = 1
    for stride, size in sorted((st, sz) for sz, st in zip(sizes, strides) if sz != 1):
        if stride != expected:
            return False
        expected *= size
    return True


class Recording:
    """The steps of one call. `known` maps a storage base to (name, kind) for the storages that
    exist before the call (inputs, in-place outputs); `allocs` maps the bases the call allocated
    to their size in bytes."""

    def __init__(self, known):
        self.known = dict(known)
        self.allocs = {}
        self.steps = []
        self.failure = None  # (status, reason, line)
        self.notes = []

    # ---- failures ----

    def fail(self, status, reason, line=None):
        """Records the first failure and stops the call."""
        if self.failure is None:
            self.failure = (status, reason, line)
        raise TraceStop(reason)

    def note(self, text):
        if len(self.notes) < limits.MAX_NOTES and text not in self.notes:
            self.notes.append(text)

    # ---- what the call did ----

    def is_known(self, base):
        return base in self.known or base in self.allocs

    def alloc(self, base, nbytes):
        if base and base not in self.known:
            self.allocs.setdefault(base, nbytes)

    def name_storage(self, base, name, kind):
        """Identifies a storage the call made as one of the case's tensors (made_by_entry)."""
        self.allocs.pop(base, None)
        self.known[base] = (name, kind)

    def _add(self, step):
        if len(self.steps) >= limits.MAX_STEPS:
            self.fail("untraceable", "the entry did more than %d launches, fills and copies in one call"
                      % limits.MAX_STEPS)
        self.steps.append(step)

    def fill(self, base, offset, nbytes, dtype, value):
        if nbytes:
            self._add({"op": "fill", "base": base, "offset": offset, "bytes": nbytes, "dtype": dtype,
                       "value": json_number(value)})

    def copy(self, dtype, dst, src):
        if all(dst.sizes):
            self._add({"op": "copy", "dtype": dtype, "dst": dst, "src": src})

    def launch(self, kernel, grid, block, shared, args):
        """`args`: ("ptr", base, offset, param name) | ("scalar", type, value) |
        ("scratch", prefix, bytes) | ("null", what), in the kernel's parameter order, Triton's two
        scratch pointers last."""
        self._add({"op": "launch", "kernel": kernel, "grid": list(grid), "block": list(block),
                   "shared": shared, "args": list(args)})


class _Namer:
    """Names storages: known ones by their case name, the rest s0, s1, ... by first use."""

    def __init__(self, rec):
        self.rec = rec
        self.names = {base: name for base, (name, _) in rec.known.items()}
        self.scratch = []  # (name, bytes) in order of first use
        self.extra = 0  # g<k> / p<k> buffers

    def name(self, base):
        if base in self.names:
            return self.names[base]
        nbytes = self.rec.allocs.get(base)
        if nbytes is None:
            return None
        name = "s%d" % len(self.scratch)
        self.scratch.append((name, nbytes))
        self.names[base] = name
        return name

    def launch_scratch(self, prefix, nbytes):
        name = "%s%d" % (prefix, self.extra)
        self.extra += 1
        self.scratch.append((name, nbytes))
        return name


def _region(namer, region, what):
    name = namer.name(region.base)
    if name is None:
        raise ValueError(what)
    return {"buffer": name, "offset": region.offset, "sizes": region.sizes, "strides": region.strides}


def _launch_args(namer, step, index):
    out = []
    for i, arg in enumerate(step["args"]):
        kind = arg[0]
        if kind == "ptr":
            name = namer.name(arg[1])
            if name is None:
                raise ValueError("launch %d, argument %d (%s) points to memory the entry did not allocate in "
                                 "this call (a cached tensor, or one from the first call?)" % (index, i, arg[3]))
            out.append({"buffer": name, "offset": arg[2]})
        elif kind == "scalar":
            out.append({"type": arg[1], "value": json_number(arg[2])})
        elif kind == "scratch":
            out.append({"buffer": namer.launch_scratch(arg[1], arg[2]), "offset": 0})
        else:
            out.append({"null": arg[1]})
    return out


def _steps(namer, rec):
    steps = []
    launches = 0
    for step in rec.steps:
        op = step["op"]
        if op == "launch":
            launches += 1
            args = _launch_args(namer, step, launches)
            steps.append({"op": "launch", "kernel": step["kernel"], "grid": step["grid"], "block": step["block"],
                          "shared": step["shared"], "args": args})
        elif op == "fill":
            name = namer.name(step["base"])
            if name is None:
                raise ValueError("the entry fills memory it did not allocate in this call")
            steps.append({"op": "fill", "buffer": name, "offset": step["offset"], "bytes": step["bytes"],
                          "dtype": step["dtype"], "value": step["value"]})
        else:
            dst = _region(namer, step["dst"], "the entry copies into memory it did not allocate in this call")
            src = _region(namer, step["src"], "the entry copies from memory it did not allocate in this call")
            steps.append({"op": "copy", "dtype": step["dtype"], "dst": dst, "src": src})
    return steps


def finalize(rec, case_buffers, returned=None):
    """The case's buffers and steps. `case_buffers` lists (name, kind) of the case's tensors in
    request order; `returned` is (base, name) for the output the entry returned. Raises ValueError
    with the reason when a step refers to memory that is not the case's and was not allocated in
    the call."""
    if returned is not None:
        base, name = returned
        rec.allocs.pop(base, None)
        rec.known[base] = (name, "output")
    namer = _Namer(rec)
    steps = _steps(namer, rec)
    buffers = [{"name": name, "kind": kind} for name, kind in case_buffers]
    buffers += [{"name": name, "kind": "scratch", "bytes": nbytes} for name, nbytes in namer.scratch]
    return buffers, steps


def _launch_key(step, buffer_bytes):
    """What must match between the two calls: kernel, geometry, and each argument's kind, buffer
    (with a scratch buffer's size) and offset, or scalar type and value."""
    args = []
    for a in step["args"]:
        if "buffer" in a:
            args.append((a["buffer"], buffer_bytes.get(a["buffer"]), a["offset"]))
        else:
            args.append(tuple(sorted(a.items())))
    return (step["kernel"], tuple(step["grid"]), tuple(step["block"]), step["shared"], tuple(args))


def compare(first, second):
    """None when two calls launched the same kernels the same way, else the reason, e.g. "the
    first call launched 2 kernels, the second 1". Each argument is (buffers, steps) from
    finalize(). Fills and copies are not compared: the first call may also reset buffers for
    the autotuner, which the second does not."""
    keys = []
    for buffers, steps in (first, second):
        sizes = {b["name"]: b.get("bytes") for b in buffers}
        keys.append([_launch_key(s, sizes) for s in steps if s["op"] == "launch"])
    a, b = keys
    if len(a) != len(b):
        return "the first call launched %d kernel%s, the second %d" % (len(a), "" if len(a) == 1 else "s", len(b))
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            what = "kernel" if x[0] != y[0] else "grid" if x[1] != y[1] else "arguments"
            return "launch %d differs between the two calls (%s)" % (i + 1, what)
    return None
