"""Provenance of a trace's CUBINs: what each kernel was compiled from, and the part of the answer
that is recompiled to check it (docs/triton-protocol.md, "Provenance of the CUBINs").

The trace child cannot be trusted to say where a CUBIN came from (it runs the answer), so the
server recompiles every recorded kernel in a clean process from the answer's own source and
compares the CUBIN's SHA-256. This module holds the pieces that need no torch:

- `record_kernel(kernel)` (trace child): the `jit` record of a CompiledKernel, the jit function's
  name and `def` line, the signature, the constexprs, the specialization attributes, the compile
  options and the target, as Triton's JIT passed them to `triton.compile`;
- `check_record(jit)`: the record's schema, total (a child writes it);
- `plan(source, kernels)`: the answer's source parsed with `ast`; the jit functions named by the
  records, the jit functions they call and the module-level names they read, which must be
  imports of triton or math, or literals (refused otherwise, with the reason). The result is a
  skeleton of the source (the needed definitions on their own lines, every other line blank, so
  that line numbers, which Triton writes into the CUBIN's line table, are the answer's; a
  function's decorators become `@_kscore_jit` on the line of the first, triton.jit with the
  answer's literal options, autotune and heuristics dropped) and the names to bind before it
  runs;
- `cache_key(...)`: the key a verdict is cached under.

Both the trace child and the recompile see the answer under one file name, VIRTUAL_FILE, served
from `linecache`: a CUBIN's line table names the file, so the name must not depend on the
request's private folder.
"""

import ast
import hashlib
import json
import math
import re

from . import limits

VIRTUAL_FILE = "/kscore/answer.py"
MODULE_NAME = "kscore_answer"
# what stands for a taken function's decorators, on the line of the first: triton.jit with the
# answer's literal options (autotune and heuristics dropped), so that the function's code starts
# on the line it starts on in the answer (Triton counts the kernel's lines from it)
JIT_STAND_IN = "_kscore_jit"

# what the recompile may import for the answer's names: Triton and math, nothing else
ALLOWED_ROOTS = ("triton", "math")
JIT_DECORATORS = frozenset({"triton.jit", "triton.runtime.jit", "triton.runtime.jit.jit"})
DROPPED_DECORATORS = frozenset({"triton.autotune", "triton.heuristics", "triton.runtime.autotune",
                                "triton.runtime.heuristics", "triton.runtime.autotuner.autotune",
                                "triton.runtime.autotuner.heuristics"})
JIT_KEYWORDS = frozenset({"do_not_specialize", "do_not_specialize_on_alignment", "debug", "noinline"})
JIT_IGNORED = frozenset({"launch_metadata", "repr"})  # the launch's and the profiler's, not the CUBIN's
CONSTEXPR_CALLS = frozenset({"triton.language.constexpr", "triton.language.core.constexpr"})

MAX_RECORD_ITEMS = 1024  # constexprs, attributes or options of one record
MAX_PATH = 8  # depth of a constexpr's or attribute's argument path
MAX_TEXT = 512  # bytes of one string in a record
MAX_VALUE_DEPTH = 4  # nesting of a tuple value
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,127}\Z")


class Untraceable(Exception):
    """The answer's kernels cannot be recompiled from its source; the message says why."""


# ---- values: tagged, so that a JSON round trip keeps their type exactly ----

def encode_value(v, depth=0):
    """A constexpr or constant value as a tagged list: ["n"], ["b", x], ["i", "decimal"],
    ["f", float.hex], ["s", text], ["t", [values]], ["dtype", name], ["jit", name, def line].
    Raises ValueError for anything else."""
    if depth > MAX_VALUE_DEPTH:
        raise ValueError("a value nested too deeply")
    kind = type(v).__name__
    if v is None:
        return ["n"]
    if isinstance(v, bool):
        return ["b", v]
    if isinstance(v, int):
        return ["i", str(v)]
    if isinstance(v, float):
        return ["f", v.hex()]
    if isinstance(v, str):
        if len(v.encode("utf-8", "replace")) > MAX_TEXT:
            raise ValueError("a string constant over %d bytes" % MAX_TEXT)
        return ["s", v]
    if isinstance(v, tuple) and not hasattr(v, "_fields"):
        if len(v) > MAX_RECORD_ITEMS:
            raise ValueError("a tuple of more than %d items" % MAX_RECORD_ITEMS)
        return ["t", [encode_value(x, depth + 1) for x in v]]
    if kind == "constexpr" and hasattr(v, "value"):
        return encode_value(v.value, depth)
    if kind == "dtype" and type(v).__module__.startswith("triton.language") and hasattr(v, "name"):
        return ["dtype", str(v.name)]
    if kind == "JITFunction" and hasattr(v, "fn"):
        return ["jit", str(v.__name__), def_line(v)]
    raise ValueError("a %s value" % kind)


def _check_value(v, depth=0):
    if not isinstance(v, list) or not v or not isinstance(v[0], str) or depth > MAX_VALUE_DEPTH:
        return False
    tag, rest = v[0], v[1:]
    if tag == "n":
        return not rest
    if tag == "b":
        return len(rest) == 1 and isinstance(rest[0], bool)
    if tag == "i":
        return len(rest) == 1 and isinstance(rest[0], str) and re.fullmatch(r"-?[0-9]{1,40}", rest[0]) is not None
    if tag == "f":
        if len(rest) != 1 or not isinstance(rest[0], str) or len(rest[0]) > 64:
            return False
        try:
            float.fromhex(rest[0])
        except ValueError:
            return False
        return True
    if tag == "s":
        return len(rest) == 1 and isinstance(rest[0], str) and len(rest[0].encode("utf-8", "replace")) <= MAX_TEXT
    if tag == "t":
        return (len(rest) == 1 and isinstance(rest[0], list) and len(rest[0]) <= MAX_RECORD_ITEMS
                and all(_check_value(x, depth + 1) for x in rest[0]))
    if tag == "dtype":
        return len(rest) == 1 and isinstance(rest[0], str) and _IDENT.match(rest[0]) is not None
    if tag == "jit":
        return (len(rest) == 2 and isinstance(rest[0], str) and _IDENT.match(rest[0]) is not None
                and _is_line(rest[1]))
    return False


def decode_value(v, resolve_dtype, resolve_jit):
    """The Python value of a checked tagged value; dtypes and jit functions through the resolvers."""
    tag = v[0]
    if tag == "n":
        return None
    if tag == "b":
        return v[1]
    if tag == "i":
        return int(v[1])
    if tag == "f":
        return float.fromhex(v[1])
    if tag == "s":
        return v[1]
    if tag == "t":
        return tuple(decode_value(x, resolve_dtype, resolve_jit) for x in v[1])
    if tag == "dtype":
        return resolve_dtype(v[1])
    return resolve_jit(v[1], v[2])


def _is_line(v):
    return isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= 1 << 31


# ---- the record, made in the trace child ----

def def_line(jit_fn):
    """The line of a JITFunction's `def` (its code object starts at the first decorator)."""
    start = int(getattr(jit_fn, "starting_line_number", 0) or jit_fn.fn.__code__.co_firstlineno)
    for i, line in enumerate(getattr(jit_fn, "raw_src", None) or ()):
        if line.strip().startswith("def "):
            return start + i
    return start


def _jsonable(v, depth=0):
    if v is None or isinstance(v, (bool, int, str)):
        return v
    if isinstance(v, float):
        if math.isnan(v) or math.isinf(v):
            raise ValueError("a non-finite option")
        return v
    if isinstance(v, (tuple, list)) and depth < 3:
        return [_jsonable(x, depth + 1) for x in v]
    raise ValueError("an option of type %s" % type(v).__name__)


def _options(md):
    try:
        from triton.backends.nvidia.compiler import CUDAOptions
        names = list(CUDAOptions.__dataclass_fields__)
    except Exception:  # another backend: every metadata field a backend could take
        names = [n for n in getattr(md, "_fields", ()) if n not in ("hash", "target", "name", "shared")]
    out = {}
    for n in names:
        if hasattr(md, n):
            out[n] = _jsonable(getattr(md, n))
    return out


def record_kernel(kernel):
    """The `jit` record of a CompiledKernel (trace child). Never raises: what cannot be recorded
    is an `error` record, which the server refuses with its text."""
    try:
        src = kernel.src
        fn = src.fn
        if type(fn).__name__ != "JITFunction":
            raise ValueError("it was not compiled from a @triton.jit function")
        sig = {}
        for k, ty in src.signature.items():
            if not isinstance(ty, str):
                raise ValueError("argument %s has the type %r (tuple arguments are not recompiled)" % (k, ty))
            sig[str(k)] = ty
        constexprs = [[list(path), encode_value(v)] for path, v in getattr(src, "constants", {}).items()]
        attrs = [[list(path), [[str(a), _jsonable(b)] for a, b in v]] for path, v in (src.attrs or {}).items()]
        md = kernel.metadata
        t = md.target
        t = t if isinstance(t, dict) else {k: getattr(t, k) for k in ("backend", "arch", "warp_size")}
        target = {"backend": str(t["backend"]), "arch": t["arch"] if isinstance(t["arch"], int) else str(t["arch"]),
                  "warp_size": int(t["warp_size"])}
        return {"name": str(fn.__name__), "line": def_line(fn), "signature": sig, "constexprs": constexprs,
                "attrs": attrs, "options": _options(md), "target": target}
    except Exception as e:
        return {"error": ("%s: %s" % (type(e).__name__, e))[:MAX_TEXT]}


# ---- the record's schema ----

def _path_ok(p):
    return (isinstance(p, list) and 0 < len(p) <= MAX_PATH
            and all(isinstance(i, int) and not isinstance(i, bool) and 0 <= i <= limits.MAX_PARAMS for i in p))


def _short(v, cap=MAX_TEXT):
    return isinstance(v, str) and len(v.encode("utf-8", "replace")) <= cap


def _option_ok(v, depth=0):
    if v is None or isinstance(v, (bool, int)):
        return True
    if isinstance(v, float):
        return math.isfinite(v)
    if isinstance(v, str):
        return _short(v, 4096)
    return isinstance(v, list) and depth < 3 and len(v) <= 64 and all(_option_ok(x, depth + 1) for x in v)


def check_record(jit):
    """None when `jit` is a well-formed record (or an `error` record), else the problem. Total."""
    try:
        if not isinstance(jit, dict):
            return "not an object"
        if "error" in jit:
            return None if len(jit) == 1 and _short(jit["error"]) else "error record"
        if set(jit) != {"name", "line", "signature", "constexprs", "attrs", "options", "target"}:
            return "fields"
        if not (isinstance(jit["name"], str) and _IDENT.match(jit["name"])) or not _is_line(jit["line"]):
            return "name/line"
        sig = jit["signature"]
        if not (isinstance(sig, dict) and len(sig) <= limits.MAX_PARAMS
                and all(_IDENT.match(k) and _short(v, 64) for k, v in sig.items())):
            return "signature"
        ce = jit["constexprs"]
        if not (isinstance(ce, list) and len(ce) <= MAX_RECORD_ITEMS and all(
                isinstance(x, list) and len(x) == 2 and _path_ok(x[0]) and _check_value(x[1]) for x in ce)):
            return "constexprs"
        at = jit["attrs"]
        if not (isinstance(at, list) and len(at) <= MAX_RECORD_ITEMS and all(
                isinstance(x, list) and len(x) == 2 and _path_ok(x[0]) and isinstance(x[1], list) and len(x[1]) <= 8
                and all(isinstance(a, list) and len(a) == 2 and _short(a[0], 64) and _option_ok(a[1]) for a in x[1])
                for x in at)):
            return "attrs"
        op = jit["options"]
        if not (isinstance(op, dict) and len(op) <= 128 and all(_short(k, 64) and _option_ok(v) for k, v in op.items())):
            return "options"
        t = jit["target"]
        if not (isinstance(t, dict) and set(t) == {"backend", "arch", "warp_size"} and _short(t["backend"], 16)
                and (_short(t["arch"], 32) or (isinstance(t["arch"], int) and not isinstance(t["arch"], bool)
                                               and 0 < t["arch"] < 10000))
                and isinstance(t["warp_size"], int) and t["warp_size"] in (32, 64)):
            return "target"
    except Exception as e:  # a shape the checks above did not foresee
        return "unreadable (%s)" % type(e).__name__
    return None


def jit_refs(jit):
    """[(name, line)] of the jit functions a record's constexprs pass (a kernel as an argument)."""
    out = []

    def walk(v):
        if v[0] == "jit":
            out.append((v[1], v[2]))
        elif v[0] == "t":
            for x in v[1]:
                walk(x)
    for _, v in jit["constexprs"]:
        walk(v)
    return out


def cache_key(source, jit, triton_version):
    """The key of a recompile's result: (source hash, specialization, Triton version)."""
    spec = json.dumps([hashlib.sha256(source.encode("utf-8")).hexdigest(), jit, str(triton_version)],
                      sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(spec.encode("utf-8")).hexdigest()


# ---- the plan: which part of the answer is recompiled ----

def _dotted(node):
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


def _literal(node):
    """(True, value) for a literal of None, bool, int, float, str or tuples of them."""
    try:
        v = ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False, None
    try:
        encode_value(v)
    except ValueError:
        return False, None
    return True, v


def _json_ok(v):
    try:
        json.dumps(v)
    except (TypeError, ValueError):
        return False
    return True


def _any_literal(node):
    """True for any Python literal (lists and sets too: `do_not_specialize=["n"]`)."""
    try:
        ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False
    return True


class _Binding:
    """One top-level name: kind is import, jit, literal, constexpr, attr, other."""

    def __init__(self, kind, node=None, value=None, why=None):
        self.kind, self.node, self.value, self.why = kind, node, value, why


def _imports(stmt, out):
    """Records the names an import binds: 'import' with the dotted path for triton and math,
    'other' for any other module."""
    if isinstance(stmt, ast.Import):
        for a in stmt.names:
            root = a.name.split(".")[0]
            name = a.asname or root
            path = a.name if a.asname else root
            ok = root in ALLOWED_ROOTS
            out.setdefault(name, []).append(_Binding("import" if ok else "other", value=path,
                                                     why=None if ok else "the module %s" % path))
    elif isinstance(stmt, ast.ImportFrom) and stmt.module and stmt.level == 0 and stmt.module != "__future__":
        root = stmt.module.split(".")[0]
        for a in stmt.names:
            name = a.asname or a.name
            path = stmt.module + "." + a.name
            ok = root in ALLOWED_ROOTS
            out.setdefault(name, []).append(_Binding("import" if ok else "other", value=path,
                                                     why=None if ok else "%s, imported from %s" % (a.name, stmt.module)))


def _bound_names(stmt):
    """The names a statement binds in the scope it runs in (not those of a body it defines)."""
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [stmt.name]
    targets = []
    if isinstance(stmt, ast.Assign):
        targets = stmt.targets
    elif isinstance(stmt, (ast.AnnAssign, ast.AugAssign, ast.For)):
        targets = [stmt.target]
    elif isinstance(stmt, ast.With):
        targets = [i.optional_vars for i in stmt.items if i.optional_vars is not None]
    return [n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)]


class _Index:
    """The answer's top level: every name it binds, how."""

    def __init__(self, tree):
        self.names = {}
        self.future_annotations = False
        for stmt in tree.body:
            self._top(stmt)

    def _nested_imports(self, body):
        for stmt in body:
            if isinstance(stmt, (ast.Import, ast.ImportFrom)):
                _imports(stmt, self.names)
            elif isinstance(stmt, ast.If):
                self._nested_imports(stmt.body + stmt.orelse)
            elif isinstance(stmt, ast.Try):
                self._nested_imports(stmt.body + stmt.orelse + stmt.finalbody
                                     + [s for h in stmt.handlers for s in h.body])
            else:
                for name in _bound_names(stmt):
                    self._add(name, _Binding("other", why="a name bound inside an if or try block"))

    def _add(self, name, b):
        self.names.setdefault(name, []).append(b)

    def _top(self, stmt):
        if isinstance(stmt, ast.ImportFrom) and stmt.module == "__future__":
            self.future_annotations |= any(a.name == "annotations" for a in stmt.names)
        elif isinstance(stmt, (ast.Import, ast.ImportFrom)):
            _imports(stmt, self.names)
        elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            self._add(stmt.name, _Binding("def", stmt))
        elif isinstance(stmt, ast.ClassDef):
            self._add(stmt.name, _Binding("other", stmt, why="a class"))
        elif isinstance(stmt, (ast.Assign, ast.AnnAssign)):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            b = self._assigned(stmt)
            for t in targets:
                if isinstance(t, ast.Name) and b is not None and len(targets) == 1:
                    self._add(t.id, b)
                else:
                    for n in ast.walk(t):
                        if isinstance(n, ast.Name):
                            self._add(n.id, _Binding("other", why="a value assigned by unpacking"))
        elif isinstance(stmt, ast.AugAssign):
            for n in ast.walk(stmt.target):
                if isinstance(n, ast.Name):
                    self._add(n.id, _Binding("other", why="a value computed at import"))
        elif isinstance(stmt, (ast.If, ast.Try)):
            self._nested_imports([stmt])

    def _assigned(self, stmt):
        value = stmt.value
        if value is None:
            return _Binding("other", why="a name without a value")
        ok, v = _literal(value)
        if ok:
            if isinstance(stmt, ast.AnnAssign) and self._resolve(_dotted(stmt.annotation)) in CONSTEXPR_CALLS:
                return _Binding("constexpr", value=v)
            return _Binding("literal", value=v)
        if (isinstance(value, ast.Call) and len(value.args) == 1 and not value.keywords
                and self._resolve(_dotted(value.func)) in CONSTEXPR_CALLS):
            ok, v = _literal(value.args[0])
            if ok:
                return _Binding("constexpr", value=v)
        path = self._resolve(_dotted(value))
        if path is not None and path.split(".")[0] == "triton":
            return _Binding("attr", value=path)
        return _Binding("other", why="a value computed at import (not a literal)")

    def _resolve(self, dotted):
        """The full dotted path of `a.b.c` where `a` is an import of triton or math, else None."""
        if not dotted:
            return None
        head, _, rest = dotted.partition(".")
        bs = self.names.get(head)
        if not bs or len(bs) != 1 or bs[0].kind != "import":
            return None
        return bs[0].value + ("." + rest if rest else "")

    def resolve(self, dotted):
        return self._resolve(dotted)


def _local_names(fn):
    """Names the function binds itself (parameters, assignments, loop and comprehension targets)."""
    out = set()
    a = fn.args
    for arg in a.posonlyargs + a.args + a.kwonlyargs + [x for x in (a.vararg, a.kwarg) if x]:
        out.add(arg.arg)
    for node in ast.walk(fn):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            out.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node is not fn:
            out.add(node.name)
        elif isinstance(node, ast.arg) and node is not fn:
            out.add(node.arg)
    return out


class _Planner:
    def __init__(self, source, tree):
        self.source = source
        self.lines = source.splitlines(True)
        self.index = _Index(tree)
        self.defs = {}  # name -> FunctionDef node (jit functions taken)
        self.bindings = {}  # name -> ["import", path] | ["literal"/"constexpr", value] | ["attr", path]
        self.blank = set()  # line numbers of decorators, blank in the skeleton
        self.stand_in = set()  # first decorator lines: `@_kscore_jit` there
        self.jit_options = {}  # function name -> the literal keywords of its triton.jit

    def take_kernel(self, name, line):
        bs = self.index.names.get(name, [])
        node = next((b.node for b in bs if b.kind == "def" and b.node.lineno == line), None)
        if node is None:
            raise Untraceable("the kernel %s (line %d) is not a @triton.jit function at the top level of the answer"
                              % (name, line))
        if len(bs) != 1:
            raise Untraceable("the answer binds the name %s more than once at its top level" % name)
        self._take_def(name, node)

    def _take_def(self, name, node):
        if name in self.defs:
            return
        self.defs[name] = node
        where = "the kernel %s (line %d)" % (name, node.lineno)
        self._decorators(node, where)
        a = node.args
        for d in a.defaults + [x for x in a.kw_defaults if x is not None]:
            path = self.index.resolve(_dotted(d))
            if path is not None and path.split(".")[0] == "triton":  # `ACC: tl.constexpr = tl.float32`
                self._take_name(_dotted(d).split(".")[0], where, d.lineno)
            elif isinstance(d, ast.Name) and d.id in self.index.names:  # `MODE: tl.constexpr = _MEAN`
                self._take_name(d.id, where, d.lineno)
            elif not _literal(d)[0]:
                raise Untraceable("%s: the default value on line %d is not a literal" % (where, d.lineno))
        for arg in a.posonlyargs + a.args + a.kwonlyargs + [x for x in (a.vararg, a.kwarg) if x]:
            self._annotation(arg.annotation, where)
        self._annotation(node.returns, where)
        local = _local_names(node)
        for stmt in node.body:
            for n in ast.walk(stmt):
                if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id not in local:
                    self._take_name(n.id, where, n.lineno)

    def _decorators(self, node, where):
        jit = [d for d in node.decorator_list if self._decorator_path(d) in JIT_DECORATORS]
        if len(jit) != 1 or node.decorator_list[-1] is not jit[0]:
            raise Untraceable("%s: @triton.jit must be its innermost decorator, once" % where)
        d = jit[0]
        options = {}
        for k in d.keywords if isinstance(d, ast.Call) else ():
            if k.arg in JIT_IGNORED:
                continue
            value = ast.literal_eval(k.value) if k.arg in JIT_KEYWORDS and _any_literal(k.value) else None
            if isinstance(value, tuple):
                value = list(value)
            if value is None or not isinstance(value, (bool, list)) or not _json_ok(value):
                raise Untraceable("%s: the decorator on line %d takes an argument that is not a literal keyword "
                                  "(%s)" % (where, d.lineno, ", ".join(sorted(JIT_KEYWORDS))))
            options[k.arg] = value
        if isinstance(d, ast.Call) and d.args:
            raise Untraceable("%s: the decorator on line %d takes a positional argument" % (where, d.lineno))
        for other in node.decorator_list[:-1]:
            if self._decorator_path(other) not in DROPPED_DECORATORS:
                raise Untraceable("%s: the decorator on line %d is neither triton.jit, triton.autotune nor "
                                  "triton.heuristics" % (where, other.lineno))
        for x in node.decorator_list:
            if not self.lines[x.lineno - 1].startswith("@") or x.end_lineno is None:
                raise Untraceable("%s: the decorator on line %d does not start its line" % (where, x.lineno))
            self.blank.update(range(x.lineno, x.end_lineno + 1))
        self.stand_in.add(node.decorator_list[0].lineno)
        self.jit_options[node.name] = options

    def _decorator_path(self, d):
        return self.index.resolve(_dotted(d.func if isinstance(d, ast.Call) else d))

    def _annotation(self, ann, where):
        if ann is None or (isinstance(ann, ast.Constant) and isinstance(ann.value, str)):
            return
        if isinstance(ann, ast.Name) and ann.id not in self.index.names:
            return  # a builtin (`n: int`)
        path = self.index.resolve(_dotted(ann))
        if path is None or path.split(".")[0] != "triton":
            raise Untraceable("%s: the annotation on line %d is not a name from triton" % (where, ann.lineno))
        self._take_name(_dotted(ann).split(".")[0], where, ann.lineno)

    def _take_name(self, name, where, line):
        bs = self.index.names.get(name)
        if not bs:
            return  # a builtin, or a name Triton itself will refuse
        if len(bs) > 1 and all(b.kind == "import" for b in bs):
            # `try: from triton.language.extra.cuda import libdevice / except ImportError: ...`:
            # the recompile takes the first that imports, as the chain does
            self.bindings[name] = ["imports", [b.value for b in bs]]
            return
        if len(bs) != 1:
            raise Untraceable("%s reads %s (line %d), which the answer binds more than once" % (where, name, line))
        b = bs[0]
        if b.kind == "def":
            if not any(self._decorator_path(d) in JIT_DECORATORS for d in b.node.decorator_list):
                raise Untraceable("%s calls %s (line %d), which is not a @triton.jit function" % (where, name, line))
            self._take_def(name, b.node)
        elif b.kind in ("import", "attr"):
            self.bindings[name] = [b.kind, b.value]
        elif b.kind in ("literal", "constexpr"):
            self.bindings[name] = [b.kind, encode_value(b.value)]
        else:
            raise Untraceable("%s reads %s (line %d), which is %s" % (where, name, line, b.why))

    def skeleton(self):
        keep = set()
        for node in self.defs.values():
            start = min([node.lineno] + [d.lineno for d in node.decorator_list])
            keep.update(range(start, node.end_lineno + 1))
        keep -= self.blank
        out = []
        for i, line in enumerate(self.lines):
            n = i + 1
            out.append("@%s\n" % JIT_STAND_IN if n in self.stand_in else line if n in keep else "\n")
        return "".join(out)


def plan(source, kernels):
    """What the recompile runs for the answer `source` and the records `kernels` (checked `jit`
    records). Returns {"skeleton", "bindings", "jit_options",
    "future_annotations"}; raises Untraceable."""
    try:
        tree = ast.parse(source, VIRTUAL_FILE)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as e:
        raise Untraceable("the answer's source cannot be parsed again: %s" % type(e).__name__) from None
    p = _Planner(source, tree)
    try:
        for jit in kernels:
            p.take_kernel(jit["name"], jit["line"])
            for name, line in jit_refs(jit):
                p.take_kernel(name, line)
    except RecursionError:
        raise Untraceable("the answer's kernels nest too deeply") from None
    return {"skeleton": p.skeleton(), "bindings": p.bindings, "jit_options": p.jit_options,
            "future_annotations": p.index.future_annotations}
