"""The trace child: forked by the server for one `trace` request, never returns.

Order: process setup and rlimits, output captured, CUDA initialised on the requested device by
kscore's own code, Landlock and seccomp applied, hooks installed, and only then the answer's
module is executed and its entry called twice per case. The reply (one JSON object) goes to the
pipe the server reads; the answer's prints go to capped buffers, never to the server's stdout.
"""

import io
import os
import stat
import sys
import time

from . import confine, limits
from .protocol import clean_text, encode
from .provenance import MODULE_NAME, VIRTUAL_FILE
from .record import Recording, compare, finalize
from .spec import build_tensors, entry_arguments, torch_dtype
from . import trace

# an inout tensor is an output buffer: the entry writes it (kscore fills it from its dist)
ROLE_KIND = {"in": "input", "out": "output", "inout": "output"}


class ChildContext:
    """What the server hands a child: its private folder, the answer's file in it, the policy."""

    def __init__(self, private_dir, answer_path, allow_unsandboxed, read_exec=(), log_fd=None):
        self.private_dir = private_dir
        self.answer_path = answer_path
        self.allow_unsandboxed = allow_unsandboxed
        self.read_exec = list(read_exec)
        self.log_fd = log_fd  # output.log, opened by the server (None: the child opens it)


class CappedText(io.TextIOBase):
    """A text sink that keeps the first `cap` bytes written and counts the rest."""

    encoding = "utf-8"
    errors = "replace"

    def __init__(self, cap):
        super().__init__()
        self.cap = cap
        self.parts = []
        self.size = 0
        self.dropped = 0

    def writable(self):
        return True

    def write(self, s):
        s = str(s)
        data = s.encode("utf-8", "replace")
        room = self.cap - self.size
        if room > 0:
            self.parts.append(data[:room])
            self.size += min(room, len(data))
        self.dropped += max(0, len(data) - max(room, 0))
        return len(s)

    def getvalue(self):
        text = b"".join(self.parts).decode("utf-8", "replace")
        if self.dropped:
            text += "\n[%d more bytes dropped]" % self.dropped
        return text


def read_head(source, cap):
    """The first `cap` bytes of a log as text ("" when it cannot be read). `source` is a
    descriptor (read from offset 0, whatever was done to its path) or a path, opened without
    following a link and without blocking, and read only when it is a regular file: a trace
    child may have replaced anything in its folder by a link or a FIFO."""
    fd = source
    try:
        if not isinstance(source, int):
            fd = os.open(source, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                return ""
            data = os.pread(fd, cap + 1, 0)
        finally:
            if fd is not source:
                os.close(fd)
    except OSError:
        return ""
    text = data[:cap].decode("utf-8", "replace")
    return text + ("\n[truncated]" if len(data) > cap else "")


# ---- setup ----

def _redirect_fds(ctx, keep_fd):
    """stdin from /dev/null, fd 1 and 2 to the private log, every other descriptor closed."""
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    log = ctx.log_fd
    if log is None:
        log = os.open(os.path.join(ctx.private_dir, "output.log"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.dup2(log, 1)
    os.dup2(log, 2)
    if log not in (1, 2, keep_fd):
        os.close(log)
    os.closerange(3, keep_fd)
    os.closerange(keep_fd + 1, 1 << 20)


def _environment(ctx):
    env = {"cache": "triton-cache", "tmp": "tmp", "home": "home"}
    paths = {k: os.path.join(ctx.private_dir, v) for k, v in env.items()}
    for p in paths.values():
        os.makedirs(p, exist_ok=True)
    os.environ["TRITON_CACHE_DIR"] = paths["cache"]
    os.environ["TRITON_HOME"] = paths["home"]
    os.environ["TMPDIR"] = paths["tmp"]
    os.environ["HOME"] = paths["home"]
    os.environ.setdefault("USER", "kscore")  # getpass.getuser() must not need /etc/passwd
    os.environ.setdefault("LOGNAME", "kscore")
    import tempfile
    tempfile.tempdir = paths["tmp"]
    try:
        import triton
        knobs = getattr(triton, "knobs", None)
        if knobs is not None and hasattr(knobs, "cache"):
            knobs.cache.dir = paths["cache"]
    except Exception:  # an old Triton without knobs reads the environment
        pass


def _cuda_init(torch, device):
    """Initialises CUDA and Triton's driver on the device, before the answer runs. Returns an
    error text or None."""
    try:
        torch.cuda.set_device(device)
        torch.empty(1, device="cuda:%d" % device)
        torch.cuda.synchronize()
        import triton
        driver = triton.runtime.driver.active
        driver.get_current_device()
        getattr(driver, "utils", None)
    except Exception as e:
        return "CUDA could not be initialised on device %d: %s" % (device, trace.describe_exception(e))
    return None


def _confine(ctx):
    """Drops privileges, applies Landlock and seccomp. Returns the response's `confinement`."""
    out = confine.confine_child(sys, ctx.private_dir, ctx.read_exec)
    if "reason" in out:
        out["reason"] = clean_text(out["reason"], 512)
    return out


# ---- the answer ----

def _load_answer(tree, source):
    """Executes the checked module under provenance.VIRTUAL_FILE, its source served from
    linecache (Triton reads a kernel's source through inspect, and writes the file name into the
    CUBIN's line table: a name that is the same in every request lets the recompile match it).
    Returns (namespace, None) or (None, failure)."""
    import linecache
    import types
    module = types.ModuleType(MODULE_NAME)
    module.__file__ = VIRTUAL_FILE
    sys.modules[MODULE_NAME] = module
    linecache.cache[VIRTUAL_FILE] = (len(source), None, source.splitlines(True), VIRTUAL_FILE)
    try:
        code = compile(tree, VIRTUAL_FILE, "exec")
        exec(code, module.__dict__)
    except BaseException as e:
        return None, ("error", trace.describe_exception(e), trace.exception_line(e))
    return module.__dict__, None


def _check_returned(torch, rec, result, entry, case):
    """(base, name) of the output the entry returned, or None for in-place entries. Calls
    rec.fail-like handling by returning a failure tuple instead: (None, failure)."""
    if entry.returns is None:
        if result is not None:
            rec.note("the entry returned a value; it is ignored (the spec's outputs are written in place)")
        return None, None
    spec = case.tensor(entry.returns)
    if not isinstance(result, torch.Tensor):
        kind = "a tuple" if isinstance(result, (tuple, list)) else type(result).__name__
        return None, ("untraceable", "the entry returns %s, not the output tensor %s" % (kind, spec.name), None)
    base = result.untyped_storage().data_ptr() if result.device.type == "cuda" else 0
    if base in rec.known:
        name, kind = rec.known[base]
        return None, ("untraceable", "the entry returns its %s %s, not a tensor it allocated" % (kind, name), None)
    if base not in rec.allocs:
        return None, ("untraceable", "the entry returns a tensor it did not allocate in this call (a cached "
                      "result?)", None)
    want = torch_dtype(torch, spec.dtype)
    if result.dtype != want:
        return None, ("untraceable", "the entry returns %s, the spec's %s is %s" % (
            str(result.dtype).replace("torch.", ""), spec.name, spec.dtype), None)
    if result.numel() != spec.numel():
        return None, ("untraceable", "the entry returns %d elements, the spec's %s has %d" % (
            result.numel(), spec.name, spec.numel()), None)
    if result.storage_offset() != 0 or result.untyped_storage().nbytes() != result.numel() * result.element_size():
        return None, ("untraceable", "the entry returns a view of a larger buffer", None)
    if not result.is_contiguous():
        return None, ("untraceable", "the entry returns a non-contiguous tensor", None)
    if list(result.shape) != list(spec.shape):
        rec.note("the entry returns shape %s, the spec's %s is %s (same number of elements)" % (
            list(result.shape), spec.name, spec.shape))
    return (base, spec.name), None


def _one_call(torch, fn, req, case, tensors, known, mode_cls):
    """Runs and finalizes one call. Returns ((buffers, steps, notes), None) or (None, failure)."""
    args, kwargs = entry_arguments(req.entry, case, tensors)
    pending = [(n, tuple(case.tensor(n).shape), torch_dtype(torch, case.tensor(n).dtype))
               for n in req.entry.made_by_entry]
    rec = Recording(known)
    result = trace.run_call(fn, args, kwargs, rec, pending, mode_cls)
    if rec.failure is not None:
        return None, rec.failure
    returned, failure = _check_returned(torch, rec, result, req.entry, case)
    if failure is not None:
        return None, failure
    case_buffers = [(t.name, ROLE_KIND[t.role]) for t in case.tensors]
    try:
        buffers, steps = finalize(rec, case_buffers, returned)
    except ValueError as e:
        return None, ("untraceable", str(e), None)
    finally:
        trace.STATE.keep.clear()
    return (buffers, steps, rec.notes), None


def _trace_case(torch, fn, req, case, mode_cls):
    """Both calls of one case. Returns (case_json_with_kernel_shas, None) or (None, failure)."""
    device = "cuda:%d" % req.device
    tensors = build_tensors(torch, case, device, set(req.entry.made_by_entry), seed=case.index + 1)
    torch.cuda.synchronize()
    known = {}
    for spec in case.tensors:
        t = tensors.get(spec.name)
        if t is not None and t.numel():
            known[t.untyped_storage().data_ptr()] = (spec.name, ROLE_KIND[spec.role])
    calls = []
    for which in ("first", "second"):
        done, failure = _one_call(torch, fn, req, case, tensors, known, mode_cls)
        if failure is not None:
            status, reason, line = failure
            return None, (status, "case %d, %s call: %s" % (case.index, which, reason), line)
        calls.append(done)
    diff = compare(calls[0][:2], calls[1][:2])
    if diff:
        return None, ("untraceable", "case %d: %s" % (case.index, diff), None)
    buffers, steps, notes = calls[1]
    return {"index": case.index, "buffers": buffers, "steps": steps, "notes": notes}, None


class _Kernels:
    """The response's `kernels`, deduplicated by cubin SHA-256, with the cubin cap."""

    def __init__(self):
        self.index = {}
        self.items = []
        self.cubin_bytes = 0

    def add(self, sha):
        if sha not in self.index:
            info = next(i for k, i in trace.STATE.kernels.values() if i["sha256"] == sha)
            self.cubin_bytes += len(info["cubin"])
            if self.cubin_bytes > limits.MAX_CUBIN_TOTAL:
                raise ValueError("the answer's cubins exceed %d bytes" % limits.MAX_CUBIN_TOTAL)
            if len(self.items) >= limits.MAX_KERNELS:
                raise ValueError("the answer launches more than %d distinct kernels" % limits.MAX_KERNELS)
            self.index[sha] = len(self.items)
            self.items.append(trace.kernel_json(info))
        return self.index[sha]


def _run_cases(torch, fn, req, mode_cls, progress=None):
    """Every case. Returns (cases, kernels, None) or (None, None, (status, reason, line, case)).
    `progress()` is called after each case: the server's per-case limit starts again there."""
    kernels = _Kernels()
    cases = []
    for case in req.cases:
        done, failure = _trace_case(torch, fn, req, case, mode_cls)
        if failure is not None:
            return None, None, failure + (case.index,)
        try:
            for step in done["steps"]:
                if step["op"] == "launch":
                    step["kernel"] = kernels.add(step["kernel"])
        except ValueError as e:
            return None, None, ("untraceable", str(e), None, case.index)
        cases.append(done)
        if progress is not None:
            progress()
    return cases, kernels.items, None


def _versions(torch, triton):
    import platform
    return {"python": platform.python_version(), "torch": str(torch.__version__).split("+")[0],
            "triton": str(triton.__version__)}


def trace_request(req, tree, notes, ctx, progress=None):
    """The reply to a trace request (a dict without `id`). Runs in the child. `progress` as in
    _run_cases."""
    times = {}
    t0 = time.monotonic()
    import torch
    import triton
    reply = {"versions": _versions(torch, triton)}
    error = _cuda_init(torch, req.device)
    times["cuda_init"] = time.monotonic() - t0
    if error:
        reply.update(status="unavailable", reason=error)
        return reply
    reply["confinement"] = _confine(ctx)
    confined = reply["confinement"]
    if not (confined["landlock"] and confined["seccomp"] and confined["privileges"]) and not ctx.allow_unsandboxed:
        reply.update(status="unavailable", reason="the trace could not be confined: %s"
                     % reply["confinement"].get("reason", "unknown"))
        return reply
    trace.STATE.torch = torch
    trace.STATE.device = req.device
    trace.STATE.answer_file = VIRTUAL_FILE
    trace.install_hooks()
    mode_cls = trace.make_mode()
    t1 = time.monotonic()
    namespace, failure = _load_answer(tree, req.source)
    times["import"] = time.monotonic() - t1
    if failure is None:
        fn = namespace.get(req.entry.name)
        if not callable(fn):
            failure = ("error", "the answer defines no function %s" % req.entry.name, None)
    cases = kernels = None
    if failure is None:
        t2 = time.monotonic()
        cases, kernels, failure = _run_cases(torch, fn, req, mode_cls, progress)
        times["cases"] = time.monotonic() - t2
    times["child"] = time.monotonic() - t0
    reply["seconds"] = {k: round(v, 4) for k, v in times.items()}
    if notes:
        reply["notes"] = list(notes)
    if failure is not None:
        status, reason, line = failure[:3]
        reply.update(status=status, reason=clean_text(reason, limits.MAX_REASON))
        if line:
            reply["line"] = line
        if len(failure) > 3:
            reply["case"] = failure[3]
        return reply
    reply.update(status="ok", kernels=kernels, cases=cases)
    return reply


def _write_all(fd, data):
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        view = view[n:]


def run_child(req, tree, notes, ctx, wfd):
    """The forked child's whole life: trace, write the reply to `wfd`, exit. Never returns."""
    code = 70
    try:
        confine.process_setup()
        _redirect_fds(ctx, wfd)
        out, err = CappedText(limits.MAX_OUTPUT), CappedText(limits.MAX_OUTPUT)
        sys.stdout, sys.stderr = out, err
        _environment(ctx)
        cpu = int(4 * req.timeout_s) + limits.CHILD_CPU_EXTRA_S
        confine.set_rlimits(cpu, limits.CHILD_FSIZE, limits.CHILD_NOFILE)
        try:
            # a newline per finished case, ahead of the reply (JSON allows leading white space):
            # the server's per-case limit (case_timeout_s) starts again at each
            reply = trace_request(req, tree, notes, ctx, lambda: _write_all(wfd, b"\n"))
        except BaseException as e:
            reply = {"status": "error", "reason": "kscore-triton internal error: " + trace.describe_exception(e)}
        reply["stdout"] = clean_text(out.getvalue(), limits.MAX_OUTPUT)
        fd_output = read_head(os.path.join(ctx.private_dir, "output.log"), limits.MAX_OUTPUT)
        reply["stderr"] = clean_text(err.getvalue() + fd_output, limits.MAX_OUTPUT)
        _write_all(wfd, encode(reply))
        code = 0
    except BaseException:
        code = 71
    finally:
        os._exit(code)
