"""Recording one call of the answer's entry: a torch dispatch mode plus a hook on Triton's launcher.

Runs in the trace child only (imports torch and triton lazily). While `run_call()` runs the entry:
- every aten op passes through `_on_op`: allocations, views, fills, copies and metadata queries
  are allowed (fills and copies become steps), random ops only for `made_by_entry` inputs, and
  anything else that computes stops the call with `host_op`;
- every Triton launch passes through `_on_launch` (a wrapper around `CompiledKernel.run`, which
  Triton calls with the grid, the stream, the function and every bound argument): it records the
  compiled kernel, the grid and each non-constexpr argument, identifying tensors by their storage;
- launches and ops inside the autotuner's benchmarking (`Autotuner._bench`) are not recorded.
Every tensor an op returns is kept alive until the call's record is final, so that the caching
allocator cannot hand an address out twice within a call.
"""

import base64
import hashlib
import sys
import traceback

from . import limits
from .protocol import clean_text
from .provenance import record_kernel
from .record import Region, TraceStop, dense
from .spec import dtype_name


class _State:
    """What the hooks need to find: the active recording, the answer's file, the trace device."""

    def __init__(self):
        self.recorder = None
        self.bench = 0
        self.answer_file = None
        self.device = None
        self.torch = None
        self.pending = []  # made_by_entry inputs not seen yet: (name, shape, torch dtype)
        self.keep = []
        self.kernels = {}  # id(CompiledKernel) -> (kernel, info)


STATE = _State()

ALLOC = frozenset({"empty", "empty_like", "empty_strided", "new_empty", "new_empty_strided", "empty_permuted"})
FILLED = {"zeros": 0, "zeros_like": 0, "new_zeros": 0, "ones": 1, "ones_like": 1, "new_ones": 1}
FULL_VALUE_ARG = {"full": 1, "full_like": 1, "new_full": 2, "scalar_tensor": 0}
INPLACE_FILL = frozenset({"fill_", "zero_"})
CLONE = frozenset({"clone", "_to_copy"})
RANDOM_NEW = frozenset({"randn", "rand", "randint", "randn_like", "rand_like", "randint_like", "normal"})
RANDOM_INPLACE = frozenset({"normal_", "uniform_", "random_", "bernoulli_", "exponential_", "cauchy_",
                            "log_normal_", "geometric_"})
VIEW = frozenset({
    "view", "_unsafe_view", "_reshape_alias", "as_strided", "t", "transpose", "permute", "expand",
    "slice", "select", "unsqueeze", "squeeze", "alias", "detach", "split", "split_with_sizes",
    "chunk", "unbind", "narrow", "diagonal", "unfold", "unflatten", "movedim", "swapaxes",
    "swapdims", "expand_as", "view_as", "reshape", "flatten", "squeeze_", "unsqueeze_", "t_",
    "transpose_", "detach_", "_neg_view", "_conj", "resolve_conj", "resolve_neg", "view_as_real",
    "tensor_split",
})
META = frozenset({
    "sym_size", "sym_stride", "sym_numel", "sym_storage_offset", "is_contiguous",
    "is_strides_like_format", "is_non_overlapping_and_dense", "size", "stride", "dim", "numel",
    "storage_offset", "is_same_size", "_has_compatible_shallow_copy_type", "record_stream",
    "requires_grad_", "is_pinned", "device", "layout", "dtype",
})


def answer_line(frame=None):
    """The line of the answer's innermost frame on the current stack, or None."""
    f = frame or sys._getframe(1)
    while f is not None:
        if f.f_code.co_filename == STATE.answer_file:
            return f.f_lineno
        f = f.f_back
    return None


def exception_line(exc):
    """The line of the answer's innermost frame in an exception's traceback, or None."""
    line = None
    for fs in traceback.extract_tb(exc.__traceback__):
        if fs.filename == STATE.answer_file:
            line = fs.lineno
    return line


def describe_exception(exc):
    text = "%s: %s" % (type(exc).__name__, exc)
    return clean_text(text, limits.MAX_REASON)


# ---- kernels ----

def _signature(kernel):
    """[(name, type)] of every argument in declaration order, constexprs included."""
    src = getattr(kernel, "src", None)
    sig = getattr(src, "signature", None)
    if not isinstance(sig, dict):
        raise ValueError("the compiled kernel carries no signature")
    out = []
    for name, ty in sig.items():
        if not isinstance(ty, str):
            raise ValueError("argument %s has the type %r, which kscore cannot replay" % (name, ty))
        out.append((str(name), ty))
    return out


def _meta(md, name, default):
    value = getattr(md, name, default)
    return default if value is None else value


def kernel_info(kernel):
    """The response's description of a CompiledKernel (cached per kernel object)."""
    cached = STATE.kernels.get(id(kernel))
    if cached is not None and cached[0] is kernel:
        return cached[1]
    asm = getattr(kernel, "asm", {}) or {}
    cubin = asm.get("cubin") if hasattr(asm, "get") else None
    if cubin is None:
        cubin = getattr(kernel, "kernel", None)
    if not isinstance(cubin, (bytes, bytearray)) or bytes(cubin[:4]) != b"\x7fELF":
        raise ValueError("the compiled kernel has no cubin")
    md = kernel.metadata
    sig = _signature(kernel)
    num_ctas = int(_meta(md, "num_ctas", 1))
    cluster = list(_meta(md, "cluster_dims", (num_ctas, 1, 1)))
    cluster = [int(c) for c in (cluster + [1, 1, 1])[:3]]
    info = {
        "sha256": hashlib.sha256(bytes(cubin)).hexdigest(),
        "name": str(_meta(md, "name", getattr(kernel, "name", ""))),
        "cubin": bytes(cubin),
        "num_warps": int(_meta(md, "num_warps", 4)),
        "num_ctas": num_ctas,
        "shared": int(_meta(md, "shared", 0)),
        "cluster_dims": cluster,
        "global_scratch_size": int(_meta(md, "global_scratch_size", 0)),
        "global_scratch_align": int(_meta(md, "global_scratch_align", 1)),
        "profile_scratch_size": int(_meta(md, "profile_scratch_size", 0)),
        "profile_scratch_align": int(_meta(md, "profile_scratch_align", 1)),
        "cooperative": bool(_meta(md, "launch_cooperative_grid", False)),
        "pdl": bool(_meta(md, "launch_pdl", False)),
        "params": [ty for _, ty in sig if ty != "constexpr"],
        "jit": record_kernel(kernel),  # what the server recompiles it from (provenance.py)
        "_sig": sig,
    }
    if len(info["params"]) > limits.MAX_PARAMS:
        raise ValueError("the kernel has more than %d parameters" % limits.MAX_PARAMS)
    if getattr(md, "tensordesc_meta", None):
        raise ValueError("the kernel takes tensor descriptors, which kscore cannot replay")
    STATE.kernels[id(kernel)] = (kernel, info)
    return info


def kernel_json(info):
    """The response's `kernels` entry for a kernel_info."""
    out = {k: v for k, v in info.items() if not k.startswith("_") and k != "cubin"}
    out["cubin"] = base64.b64encode(info["cubin"]).decode("ascii")
    return out


_SCALAR_TYPES = ("i1", "i8", "i16", "i32", "i64", "u1", "u8", "u16", "u32", "u64", "fp16", "bf16", "fp32", "fp64")


def _pointer(rec, kname, pname, value):
    torch = STATE.torch
    if isinstance(value, torch.Tensor):
        if value.device.type != "cuda" or value.device.index != STATE.device:
            rec.fail("untraceable", "kernel %s: argument %s is a tensor on %s, not on the trace's device"
                     % (kname, pname, value.device), answer_line())
        base = value.untyped_storage().data_ptr()
        if base == 0:
            rec.fail("untraceable", "kernel %s: argument %s is an empty tensor" % (kname, pname), answer_line())
        if not rec.is_known(base):
            rec.fail("untraceable", "kernel %s: argument %s points to memory the entry did not allocate in this "
                     "call (a cached tensor, or one from the first call?)" % (kname, pname), answer_line())
        return ("ptr", base, value.data_ptr() - base, pname)
    if isinstance(value, int):
        rec.fail("untraceable", "kernel %s: argument %s is an integer passed as a pointer" % (kname, pname),
                 answer_line())
    rec.fail("untraceable", "kernel %s: argument %s is a %s, not a tensor" % (kname, pname, type(value).__name__),
             answer_line())
    return None


def _scalar(rec, kname, pname, ty, value):
    if ty not in _SCALAR_TYPES:
        rec.fail("untraceable", "kernel %s: argument %s has the type %s, which kscore cannot replay"
                 % (kname, pname, ty), answer_line())
    if isinstance(value, bool) or ty in ("i1", "u1"):
        return ("scalar", ty, int(bool(value)))
    if ty.startswith(("i", "u")):
        return ("scalar", ty, int(value))
    return ("scalar", ty, float(value))


def _scratch(kind, size, grid_blocks, num_ctas):
    if size <= 0:
        return ("null", kind + "_scratch")
    return ("scratch", "g" if kind == "global" else "p", size * grid_blocks * num_ctas)


def on_launch(kernel, launcher_args):
    """Records one launch: `launcher_args` are the CompiledKernel.run call's arguments, which start
    with gridX, gridY, gridZ and end with the kernel's bound arguments in declaration order."""
    rec = STATE.recorder
    if rec is None or STATE.bench:
        return
    if rec.failure is not None:
        raise TraceStop(rec.failure[1])
    try:
        info = kernel_info(kernel)
    except ValueError as e:
        rec.fail("untraceable", "kernel %s: %s" % (getattr(kernel, "name", "?"), e), answer_line())
    grid = [int(g) for g in launcher_args[:3]]
    sig = info["_sig"]
    if grid[0] * grid[1] * grid[2] <= 0:
        return  # Triton does not launch an empty grid
    bound = launcher_args[len(launcher_args) - len(sig):]
    kname = info["name"]
    args = []
    for (pname, ty), value in zip(sig, bound):
        if ty == "constexpr":
            continue
        if ty.startswith("*"):
            args.append(_pointer(rec, kname, pname, value))
        else:
            args.append(_scalar(rec, kname, pname, ty, value))
    blocks = grid[0] * grid[1] * grid[2]
    args.append(_scratch("global", info["global_scratch_size"], blocks, info["num_ctas"]))
    args.append(_scratch("profile", info["profile_scratch_size"], blocks, info["num_ctas"]))
    rec.launch(info["sha256"], (grid[0] * info["num_ctas"], grid[1], grid[2]), (32 * info["num_warps"], 1, 1),
               info["shared"], args)


# ---- aten ops ----

def _tensors(value):
    torch = STATE.torch
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, (list, tuple)):
        return [v for v in value if isinstance(v, torch.Tensor)]
    return []


def _on_device(t):
    return t.device.type == "cuda"


def _base(t):
    return t.untyped_storage().data_ptr()


def _region(t, shape=None):
    """The Region of a tensor view; with `shape`, broadcast to that shape (stride 0 where the view
    has size 1 or lacks the dimension)."""
    itemsize = t.element_size()
    sizes, strides = list(t.shape), list(t.stride())
    if shape is not None and list(shape) != sizes:
        lead = len(shape) - len(sizes)
        bstrides = []
        for i, n in enumerate(shape):
            j = i - lead
            bstrides.append(0 if j < 0 or (sizes[j] == 1 and n != 1) else strides[j])
        sizes, strides = list(shape), bstrides
    return Region(_base(t), t.storage_offset() * itemsize, sizes, strides)


def _whole_storage(t):
    return (t.storage_offset() == 0 and t.is_contiguous()
            and t.untyped_storage().nbytes() == t.numel() * t.element_size())


def _host_op(rec, func, why=None):
    reason = "the entry calls %s%s; kscore replays only Triton launches, allocations, views, fills and copies" % (
        func, " (" + why + ")" if why else "")
    rec.fail("host_op", reason, answer_line())


def _check_device(rec, func, t):
    if t.device.index != STATE.device:
        rec.fail("untraceable", "%s makes a tensor on %s, not on the trace's device" % (func, t.device), answer_line())


def _register(rec, func, out):
    for t in _tensors(out):
        if _on_device(t):
            _check_device(rec, func, t)
            rec.alloc(_base(t), t.untyped_storage().nbytes())


def _fill(rec, func, t, value):
    if not _on_device(t) or t.numel() == 0:
        return
    if not rec.is_known(_base(t)):
        rec.fail("untraceable", "%s fills a tensor the entry did not allocate in this call" % func, answer_line())
    if not dense(t.shape, t.stride()):
        rec.fail("untraceable", "%s fills a non-contiguous view, which kscore cannot replay" % func, answer_line())
    isz = t.element_size()
    rec.fill(_base(t), t.storage_offset() * isz, t.numel() * isz, dtype_name(STATE.torch, t.dtype), value)


def _fill_value(rec, func, name, args, out):
    if name in FILLED:
        return FILLED[name]
    if name == "zero_":
        return 0
    if name in FULL_VALUE_ARG:
        return args[FULL_VALUE_ARG[name]]
    value = args[1]
    torch = STATE.torch
    if isinstance(value, torch.Tensor):
        if _on_device(value) or value.numel() != 1:
            _host_op(rec, func, "the fill value is read from the device")
        return value.item()
    return value


def _copy(rec, func, dst, src):
    if not _on_device(dst) and not _on_device(src):
        return
    if _on_device(dst) != _on_device(src):
        _host_op(rec, func, "a copy between host and device")
    if dst.dtype != src.dtype:
        _host_op(rec, func, "converts %s to %s" % (dtype_name(STATE.torch, src.dtype), dtype_name(STATE.torch, dst.dtype)))
    if dst.numel() == 0:
        return
    for t, what in ((dst, "into"), (src, "from")):
        if not rec.is_known(_base(t)):
            rec.fail("untraceable", "%s copies %s memory the entry did not allocate in this call" % (func, what),
                     answer_line())
    rec.copy(dtype_name(STATE.torch, dst.dtype), _region(dst), _region(src, dst.shape))


def _random(rec, func, t, inplace):
    """A random op is allowed only for an input the entry makes itself (made_by_entry)."""
    if not _on_device(t):
        return
    for i, (name, shape, dtype) in enumerate(STATE.pending):
        if tuple(t.shape) == shape and t.dtype == dtype and _whole_storage(t) and \
                (not inplace or _base(t) in rec.allocs):
            del STATE.pending[i]
            rec.name_storage(_base(t), name, "input")
            return
    _host_op(rec, func, "random data that is none of the spec's inputs made by the entry")


def _before(rec, func, name, args, kwargs):
    """Checks that must hold before the op runs (it is not run when they fail)."""
    if name in ALLOC or name in FILLED or name in FULL_VALUE_ARG or name in VIEW or name in META:
        return
    if name in INPLACE_FILL or name in RANDOM_NEW or name in RANDOM_INPLACE:
        return
    if name == "copy_":
        _copy_precheck(rec, func, args)
        return
    if name in CLONE or name == "lift_fresh":
        return
    if getattr(func, "is_view", False):
        return
    _host_op(rec, func)


def _copy_precheck(rec, func, args):
    dst, src = args[0], args[1]
    torch = STATE.torch
    if not isinstance(src, torch.Tensor):
        _host_op(rec, func, "copies a Python value")
    if _on_device(dst) != _on_device(src):
        _host_op(rec, func, "a copy between host and device")
    if dst.dtype != src.dtype:
        _host_op(rec, func, "converts %s to %s" % (dtype_name(torch, src.dtype), dtype_name(torch, dst.dtype)))


def _after(rec, func, name, args, out):
    if name in ALLOC:
        _register(rec, func, out)
    elif name in FILLED or name in FULL_VALUE_ARG:
        _register(rec, func, out)
        _fill(rec, func, out, _fill_value(rec, func, name, args, out))
    elif name in INPLACE_FILL:
        _fill(rec, func, args[0], _fill_value(rec, func, name, args, out))
    elif name == "copy_":
        _copy(rec, func, args[0], args[1])
    elif name in CLONE:
        src = args[0]
        if _on_device(out) != _on_device(src):
            _host_op(rec, func, "a copy between host and device")
        if out.dtype != src.dtype:
            _host_op(rec, func, "converts %s to %s" % (dtype_name(STATE.torch, src.dtype), dtype_name(STATE.torch, out.dtype)))
        _register(rec, func, out)
        _copy(rec, func, out, src)
    elif name == "lift_fresh":
        if any(_on_device(t) for t in _tensors(out)):
            _host_op(rec, func, "a tensor made from Python data")
    elif name in RANDOM_NEW:
        _register(rec, func, out)
        _random(rec, func, out, inplace=False)
    elif name in RANDOM_INPLACE:
        _random(rec, func, args[0], inplace=True)


def on_op(func, args, kwargs):
    """The dispatch mode's handler: checks the op, runs it, records what it did."""
    rec = STATE.recorder
    if rec is None or STATE.bench:
        return func(*args, **kwargs)
    if rec.failure is not None:
        raise TraceStop(rec.failure[1])  # the answer swallowed an earlier stop
    name = getattr(getattr(func, "overloadpacket", None), "__name__", str(func))
    namespace = getattr(func, "namespace", "aten")
    if namespace not in ("aten", "prim"):
        _host_op(rec, func)
    _before(rec, func, name, args, kwargs)
    out = func(*args, **kwargs)
    STATE.keep.append(out)
    _after(rec, func, name, args, out)
    return out


# ---- installing the hooks and running one call ----

def _wrap_launcher(kernel, launcher):
    def hooked(*args):
        on_launch(kernel, args)
        return launcher(*args)
    return hooked


def install_hooks():
    """Wraps Triton's CompiledKernel.run (every launch) and Autotuner._bench (benchmarking, not
    recorded). Raises RuntimeError when this Triton's layout is unknown."""
    from triton.compiler import compiler as tc
    ck = tc.CompiledKernel
    run = ck.__dict__.get("run")
    if isinstance(run, property):
        fget = run.fget
        ck.run = property(lambda self: _wrap_launcher(self, fget(self)))
    elif "_init_handles" in ck.__dict__:
        init = ck._init_handles

        def _init_handles(self):
            fresh = getattr(self, "_kscore_wrapped", None) is None
            init(self)
            if fresh and "run" in self.__dict__:
                self._kscore_wrapped = True
                self.run = _wrap_launcher(self, self.__dict__["run"])
        ck._init_handles = _init_handles
    else:
        raise RuntimeError("this Triton's CompiledKernel has no run property to hook")
    from triton.runtime import autotuner
    bench = autotuner.Autotuner.__dict__.get("_bench")
    if bench is not None:
        def _bench(self, *args, **kwargs):
            STATE.bench += 1
            try:
                return bench(self, *args, **kwargs)
            finally:
                STATE.bench -= 1
        autotuner.Autotuner._bench = _bench


def make_mode():
    """The TorchDispatchMode class that routes every aten op through on_op."""
    from torch.utils._python_dispatch import TorchDispatchMode

    class KscoreMode(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            return on_op(func, args, kwargs or {})

    return KscoreMode


def run_call(fn, args, kwargs, rec, pending, mode_cls):
    """Calls the entry once under `rec`. Returns its result, or None when it failed (the failure
    is in rec.failure). `pending` lists made_by_entry inputs (name, shape, torch dtype)."""
    torch = STATE.torch
    STATE.recorder, STATE.pending, STATE.bench = rec, list(pending), 0
    result = None
    try:
        with mode_cls():
            result = fn(*args, **kwargs)
        torch.cuda.synchronize()
    except TraceStop:
        result = None
    except BaseException as e:  # the answer raised (SystemExit included)
        if rec.failure is None:
            rec.failure = ("error", describe_exception(e), exception_line(e))
    finally:
        STATE.recorder = None
    if rec.failure is None and STATE.pending:
        rec.failure = ("untraceable", "the entry did not create its input %s with a random op of the spec's shape "
                       "and dtype" % STATE.pending[0][0], None)
    return result
