"""The recompile worker: a confined process that compiles an answer's kernels from its source.

Forked (per answer) from the compile template, a process the server forks at start before it
reads any request, so the worker holds nothing of another answer and has run no answer code. It
is confined like a trace child (process group, no_new_privs, rlimits, capabilities, Landlock,
seccomp) but never starts CUDA: `triton.compile` with an explicit target needs no GPU. Its job
(JSON, from the server, through a memfd): the answer's source, the skeleton and bindings of
provenance.plan, and per kernel its `jit` record. It builds a fresh namespace holding only the
bindings (imports of triton and math, literals, tl.constexpr literals), executes the skeleton
under provenance.VIRTUAL_FILE (the source served from linecache, as in the trace child), and
compiles each kernel with Triton's compiler for the recorded signature, constexprs, attributes,
options and target, in a Triton cache of its own that starts empty. Its reply: per kernel the
CUBIN's SHA-256 or an error text. The server compares; the worker is never told what to expect.
"""

import builtins
import hashlib
import importlib
import json
import linecache
import os
import sys

from . import confine, limits
from .child import ChildContext, _environment, _redirect_fds, _write_all
from .provenance import JIT_STAND_IN, MODULE_NAME, VIRTUAL_FILE, decode_value

# the defaults only: a library path or an IR file given at launch is not the answer's source
OPTIONS_DROPPED = ("extern_libs", "ir_override")


def _lookup(path):
    """The object at dotted `path` under triton or math (imported as needed)."""
    parts = path.split(".")
    if parts[0] not in ("triton", "math"):
        raise ValueError("%s is outside triton and math" % path)
    obj = importlib.import_module(parts[0])
    for i, name in enumerate(parts[1:], 1):
        try:
            obj = getattr(obj, name)
        except AttributeError:
            obj = importlib.import_module(".".join(parts[:i + 1]))
    return obj


def _dtype(name):
    import triton.language as tl
    for d in (getattr(tl, name, None), getattr(getattr(tl, "core", None), name, None)):
        if type(d).__name__ == "dtype":
            return d
    return tl.dtype(name)


def namespace(job):
    """The module namespace the skeleton runs in: builtins, the bindings, then the skeleton."""
    ns = {"__name__": MODULE_NAME, "__builtins__": builtins, "__file__": VIRTUAL_FILE}
    for name, (kind, value) in sorted(job["bindings"].items()):
        if kind in ("import", "attr"):
            ns[name] = _lookup(value)
        elif kind == "imports":
            ns[name] = _first_import(value)
        elif kind == "literal":
            ns[name] = decode_value(value, _dtype, _no_jit)
        elif kind == "constexpr":
            import triton.language as tl
            ns[name] = tl.constexpr(decode_value(value, _dtype, _no_jit))
        else:
            raise ValueError("binding %s of kind %s" % (name, kind))
    ns[JIT_STAND_IN] = _jit_stand_in(job.get("jit_options") or {})
    source = job["source"]
    linecache.cache[VIRTUAL_FILE] = (len(source), None, source.splitlines(True), VIRTUAL_FILE)
    flags = 0
    if job.get("future_annotations"):
        import __future__
        flags = __future__.annotations.compiler_flag
    exec(compile(job["skeleton"], VIRTUAL_FILE, "exec", flags, dont_inherit=True), ns)
    return ns


def _jit_stand_in(options):
    """What `@_kscore_jit` calls: triton.jit with the function's literal options."""
    def stand_in(fn):
        import triton
        return triton.jit(fn, **options.get(fn.__name__, {}))
    return stand_in


def _first_import(paths):
    for path in paths:
        try:
            return _lookup(path)
        except (ImportError, AttributeError):
            continue
    raise ImportError("none of %s imports" % ", ".join(paths))


def _no_jit(name, line):
    raise ValueError("a jit function among module constants")


def _tuples(v):
    return tuple(_tuples(x) for x in v) if isinstance(v, list) else v


def triton_compile(ns, jit):
    """The CUBIN Triton compiles for one record, in the namespace `ns`."""
    kernel = compile_kernel(ns, jit)
    cubin = kernel.asm.get("cubin") if hasattr(kernel.asm, "get") else None
    if not isinstance(cubin, (bytes, bytearray)):
        raise ValueError("Triton produced no CUBIN")
    return bytes(cubin)


def compile_kernel(ns, jit):
    """The CompiledKernel Triton makes for one record (the GPU script compares its stages)."""
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    def jit_fn(name, line=None):
        fn = ns.get(name)
        if not isinstance(fn, triton.runtime.JITFunction):
            raise ValueError("%s is not a @triton.jit function in the answer" % name)
        return fn
    fn = jit_fn(jit["name"])
    constexprs = {tuple(p): decode_value(v, _dtype, jit_fn) for p, v in jit["constexprs"]}
    attrs = {tuple(p): [list(a) for a in v] for p, v in jit["attrs"]}
    options = {k: _tuples(v) for k, v in jit["options"].items() if k not in OPTIONS_DROPPED}
    t = jit["target"]
    src = ASTSource(fn, dict(jit["signature"]), constexprs, attrs)
    return triton.compile(src, target=GPUTarget(t["backend"], t["arch"], t["warp_size"]), options=options)


def _describe(e):
    return ("%s: %s" % (type(e).__name__, e))[:limits.MAX_REASON]


def compile_job(job, compile_fn):
    """[{"sha256": hex} | {"error": text}] per kernel of the job, in order."""
    try:
        ns = namespace(job)
    except BaseException as e:
        return [{"error": "the answer's definitions cannot be executed: " + _describe(e)}] * len(job["kernels"])
    out = []
    for jit in job["kernels"]:
        try:
            out.append({"sha256": hashlib.sha256(compile_fn(ns, jit)).hexdigest()})
        except BaseException as e:  # Triton's CompilationError, or anything the source makes it raise
            out.append({"error": _describe(e)})
    return out


def make_runner(compile_fn=None):
    """The compile template's runner: `runner(fields, data, wfd, log_fd)`, never returns."""
    def runner(fields, data, wfd, log_fd):
        code = 70
        try:
            confine.process_setup()
            private = fields["private"]
            ctx = ChildContext(private, None, bool(fields.get("allow_unsandboxed")), (), log_fd)
            _redirect_fds(ctx, wfd)  # as a trace child: the same folders, environment and Triton cache
            _environment(ctx)
            confine.set_rlimits(4 * int(fields["timeout_s"]) + limits.CHILD_CPU_EXTRA_S, limits.CHILD_FSIZE,
                                limits.CHILD_NOFILE)
            confined = confine.confine_child(sys, private, list(fields.get("read_exec") or ()))
            if not (confined["landlock"] and confined["seccomp"] and confined["privileges"]) \
                    and not fields.get("allow_unsandboxed"):
                reply = {"unconfined": confined.get("reason", "unknown")[:512]}
            else:
                job = json.loads(data)
                reply = {"results": compile_job(job, compile_fn or triton_compile)}
            _write_all(wfd, json.dumps(reply).encode("utf-8"))
            code = 0
        except BaseException:
            code = 71
        finally:
            os._exit(code)
    return runner
