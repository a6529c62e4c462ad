"""The static check of a Triton answer: the first filter before any of its code runs.

`check_source(source)` parses the answer with `ast` and either returns the module to execute (the
same tree, with `if __name__ == "__main__":` blocks removed, so that exactly what was checked is
what runs) or raises `Refusal(line, reason)`.

Rules (docs/triton-protocol.md has the full list and the reasons):
- The top level holds only imports from an allow-list, function and class definitions with known
  decorators, assignments of constant expressions, docstrings, `pass`, `if`/`try` blocks made of
  the same, and main guards (dropped, never executed). Nothing at the top level may call code the
  answer defines, so importing the answer runs none of its code.
- Anywhere in the file: no `exec`/`eval`/`open`/`__import__`/... , no dunder names or attributes
  beyond a few harmless ones, no imports outside the allow-list, no attributes of torch/triton that
  reach the filesystem, processes, other streams or the scorer's own machinery, no attributes
  named like modules that reach the system (`torch.os`), and no assignment to a module's attribute
  (monkeypatching).

The check is a filter, not the wall: the confinement of the trace child is what holds if a way
around it exists.
"""

import ast

from . import limits

# Modules an answer may import (docs/triton-protocol.md, "Imports", says why these and not others):
# what TritonBench-G's reference implementations import, where the trace's confinement covers what
# the module can reach (`time.sleep` runs into the wall-clock kill; `warnings` writes to the
# child's stderr; torch's autocast and autograd helpers only wrap torch calls).
ALLOWED_MODULES = frozenset({
    "torch", "torch.nn", "torch.nn.functional", "triton", "triton.language", "math", "typing",
    "functools", "itertools", "operator", "dataclasses", "enum", "numbers", "collections",
    "collections.abc", "logging", "time", "warnings", "torch.amp", "torch.cuda.amp",
    "torch.autograd", "torch.autograd.function",
})
ALLOWED_MODULE_PREFIXES = ("triton.language.",)

# Dotted paths (after import aliases are resolved) that the answer may not touch, with the reason.
FORBIDDEN_PATHS = {
    "torch.load": "reads files", "torch.save": "writes files", "torch.from_file": "reads files",
    "torch.hub": "downloads code", "torch.utils": "reaches build tools, loaders and the dispatcher",
    "torch.ops": "reaches operators kscore cannot see", "torch.library": "registers operators",
    "torch._C": "reaches torch's internals", "torch.classes": "loads custom classes",
    "torch.package": "loads packaged code", "torch.compile": "runs another compiler",
    "torch.jit": "runs another compiler", "torch.export": "runs another compiler",
    "torch.multiprocessing": "starts processes", "torch.distributed": "reaches the network",
    "torch.Stream": "uses another stream", "torch.cuda.Stream": "uses another stream",
    "torch.cuda.ExternalStream": "uses another stream", "torch.cuda.stream": "uses another stream",
    "torch.cuda.streams": "uses another stream", "torch.cuda.set_stream": "uses another stream",
    "torch.cuda.graph": "captures CUDA graphs", "torch.cuda.graphs": "captures CUDA graphs",
    "torch.cuda.CUDAGraph": "captures CUDA graphs",
    "torch.cuda.make_graphed_callables": "captures CUDA graphs",
    "torch.cuda.memory": "reaches the allocator", "torch.cuda.caching_allocator_alloc": "reaches the allocator",
    "torch.cuda.cudart": "reaches the CUDA runtime", "torch.cuda.nvtx": "reaches profiling tools",
    "torch.cuda.profiler": "reaches profiling tools", "torch.profiler": "reaches profiling tools",
    "triton.knobs": "changes Triton's settings", "triton.runtime.cache": "reaches Triton's cache",
    "triton.runtime.build": "runs the C compiler", "triton.runtime.jit": "reaches Triton's launcher",
    "triton.runtime.autotuner": "reaches Triton's autotuner internals",
    "triton.compiler": "reaches Triton's compiler and launcher", "triton.compile": "compiles outside @triton.jit",
    "triton.backends": "reaches Triton's driver", "triton.tools": "runs Triton's tools",
    "triton.testing.nvsmi": "runs nvidia-smi", "triton.testing.set_gpu_clock": "changes the GPU's clocks",
}

# Attribute names refused whatever they are read from: they name modules or objects that reach
# the system (`torch.os.system`), frames (`gen.gi_frame.f_globals`) or the interpreter.
FORBIDDEN_ATTRS = frozenset({
    "os", "sys", "subprocess", "builtins", "importlib", "ctypes", "shutil", "socket", "pathlib",
    "io", "pickle", "marshal", "gc", "threading", "multiprocessing", "signal", "tempfile", "glob",
    "inspect", "linecache", "runpy", "_C", "knobs", "cpp_extension", "system", "popen", "environ",
    "getenv", "putenv", "f_globals", "f_locals", "f_builtins", "f_back", "f_code", "gi_frame",
    "gi_code", "cr_frame", "cr_code", "ag_frame", "tb_frame", "tb_next", "co_code",
})

FORBIDDEN_BUILTINS = frozenset({
    "exec", "eval", "compile", "open", "__import__", "input", "breakpoint", "globals", "locals",
    "vars", "help", "memoryview", "exit", "quit", "copyright", "credits", "license",
})
ATTR_BUILTINS = frozenset({"getattr", "setattr", "delattr", "hasattr"})
ALLOWED_DUNDER_NAMES = frozenset({"__name__", "__doc__"})
ALLOWED_DUNDER_ATTRS = frozenset({"__name__", "__qualname__", "__doc__", "__version__"})
# dunder methods a class may define: none of them runs when the class is created
ALLOWED_DUNDER_DEFS = frozenset({
    "__init__", "__call__", "__repr__", "__str__", "__len__", "__getitem__", "__iter__",
    "__eq__", "__hash__", "__post_init__", "__enter__", "__exit__", "__contains__",
})

# Callables a top-level constant expression may call: pure, and none runs answer code.
CONST_BUILTINS = frozenset({
    "range", "len", "min", "max", "abs", "int", "float", "bool", "str", "tuple", "list", "dict",
    "set", "frozenset", "sorted", "reversed", "enumerate", "zip", "round", "pow", "divmod", "sum",
    "any", "all", "staticmethod", "classmethod", "property",
})
CONST_CALL_PATHS = frozenset({
    "triton.Config", "triton.language.constexpr", "triton.cdiv", "triton.next_power_of_2",
    "triton.jit", "triton.autotune", "triton.heuristics", "logging.getLogger", "torch.device",
    "torch.finfo", "torch.iinfo", "torch.get_default_dtype", "torch.no_grad", "torch.inference_mode",
    "torch.cuda.get_device_properties", "torch.cuda.get_device_capability",
    "torch.cuda.get_device_name", "torch.cuda.is_available", "torch.cuda.current_device",
    "torch.cuda.device_count", "triton.runtime.driver.active.get_current_device",
    "triton.runtime.driver.active.get_current_target",
    "triton.runtime.driver.active.get_active_torch_device",
    "triton.runtime.driver.active.utils.get_device_properties",
    "functools.partial", "functools.lru_cache", "functools.cache", "functools.wraps",
    "collections.namedtuple", "collections.OrderedDict", "collections.defaultdict",
    "dataclasses.dataclass", "dataclasses.field", "enum.auto", "typing.TypeVar",
    "typing.NamedTuple", "typing.cast",
})
CONST_CALL_PREFIXES = ("math.", "operator.", "itertools.")

DECORATOR_PATHS = frozenset({
    "triton.jit", "triton.autotune", "triton.heuristics", "torch.no_grad", "torch.inference_mode",
    "torch.enable_grad", "dataclasses.dataclass", "functools.lru_cache", "functools.cache",
    "functools.wraps", "typing.overload", "typing.final", "enum.unique",
})
DECORATOR_BUILTINS = frozenset({"staticmethod", "classmethod", "property"})
PROPERTY_DECORATOR_ATTRS = frozenset({"setter", "getter", "deleter"})


class Refusal(Exception):
    """A refused answer: `line` (1-based, 0 when unknown) and a `reason` that starts with it."""

    def __init__(self, line, reason):
        super().__init__(reason)
        self.line = int(line or 0)
        self.reason = "line %d: %s" % (self.line, reason) if self.line else reason


def _refuse(node, reason):
    raise Refusal(getattr(node, "lineno", 0), reason)


def _is_dunder(name):
    return len(name) > 4 and name.startswith("__") and name.endswith("__")


def _module_allowed(name):
    return name in ALLOWED_MODULES or name.startswith(ALLOWED_MODULE_PREFIXES)


def _allowed_list():
    return ", ".join(sorted(ALLOWED_MODULES)) + ", triton.language.*"


def _forbidden_reason(path):
    """The reason a dotted path is forbidden, or None. A path is forbidden when it or one of its
    prefixes is in FORBIDDEN_PATHS."""
    parts = path.split(".")
    for i in range(len(parts), 0, -1):
        reason = FORBIDDEN_PATHS.get(".".join(parts[:i]))
        if reason:
            return reason
    return None


def _is_main_guard(node):
    """True for `if __name__ == "__main__":` (either operand order)."""
    test = node.test if isinstance(node, ast.If) else None
    if not isinstance(test, ast.Compare) or len(test.ops) != 1 or not isinstance(test.ops[0], ast.Eq):
        return False
    sides = [test.left, test.comparators[0]]
    names = [s for s in sides if isinstance(s, ast.Name) and s.id == "__name__"]
    consts = [s for s in sides if isinstance(s, ast.Constant) and s.value == "__main__"]
    return len(names) == 1 and len(consts) == 1


class _Aliases:
    """Names bound to modules or module attributes (`tl` -> `triton.language`), collected from every
    import and every plain `x = <dotted path>` assignment in the file, whatever its scope."""

    def __init__(self):
        self.paths = {}

    def bind(self, name, path):
        self.paths[name] = path

    def resolve(self, node):
        """The dotted path an expression names (`tl.load` -> `triton.language.load`), or None when
        it is not an attribute chain rooted at an alias (a call or subscript in the chain ends it:
        `[torch][0].load` is not resolved, which is why the check is a filter, not the wall)."""
        attrs = []
        while isinstance(node, ast.Attribute):
            attrs.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name) or node.id not in self.paths:
            return None
        return ".".join([self.paths[node.id]] + attrs[::-1])


def _collect_aliases(tree):
    aliases = _Aliases()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.asname:
                    aliases.bind(a.asname, a.name)
                else:
                    root = a.name.split(".")[0]
                    aliases.bind(root, root)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for a in node.names:
                aliases.bind(a.asname or a.name, node.module + "." + a.name)
    # assignments of aliases to other names, to a fixed point (bounded by the number of names)
    for _ in range(8):
        changed = False
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                path = aliases.resolve(node.value)
                name = node.targets[0].id
                if path and aliases.paths.get(name) != path:
                    aliases.bind(name, path)
                    changed = True
        if not changed:
            break
    return aliases


class _Checker:
    """Walks the tree once for the rules that hold anywhere, and the top level for its own."""

    def __init__(self, aliases, future_annotations):
        self.aliases = aliases
        self.future_annotations = future_annotations

    # ---- rules that hold anywhere ----

    def check_everywhere(self, tree):
        for node in ast.walk(tree):
            if isinstance(node, ast.Name):
                self._check_name(node)
            elif isinstance(node, ast.Attribute):
                self._check_attribute(node)
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                self._check_import(node)
            elif isinstance(node, ast.Call):
                self._check_attr_builtin(node)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if _is_dunder(node.name) and node.name not in ALLOWED_DUNDER_DEFS:
                    _refuse(node, "defining %s is not allowed (it can run when a class is created)" % node.name)
            elif isinstance(node, ast.ClassDef) and node.keywords:
                _refuse(node, "class %s: class keywords (metaclass=...) are not allowed" % node.name)

    def _check_name(self, node):
        if isinstance(node.ctx, ast.Load) and node.id in FORBIDDEN_BUILTINS:
            _refuse(node, "%s is not allowed" % node.id)
        if _is_dunder(node.id) and node.id not in ALLOWED_DUNDER_NAMES:
            _refuse(node, "the name %s is not allowed" % node.id)

    def _check_attribute(self, node):
        attr = node.attr
        if _is_dunder(attr):
            is_super_init = (attr == "__init__" and isinstance(node.value, ast.Call)
                             and isinstance(node.value.func, ast.Name) and node.value.func.id == "super")
            if attr not in ALLOWED_DUNDER_ATTRS and not is_super_init:
                _refuse(node, "the attribute %s is not allowed" % attr)
        if attr in FORBIDDEN_ATTRS:
            _refuse(node, "the attribute .%s is not allowed" % attr)
        path = self.aliases.resolve(node)
        if path is None:
            return
        reason = _forbidden_reason(path)
        if reason:
            _refuse(node, "%s is not allowed (%s)" % (path, reason))
        if not isinstance(node.ctx, ast.Load):
            _refuse(node, "assigning to %s is not allowed (no changes to modules)" % path)

    def _check_import(self, node):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                _refuse(node, "relative imports are not allowed")
            module = node.module or ""
            if module == "__future__":
                bad = [a.name for a in node.names if a.name != "annotations"]
                if bad:
                    _refuse(node, "from __future__ import %s is not allowed" % bad[0])
                return
            names = [module + "." + a.name for a in node.names]
            if any(a.name == "*" for a in node.names):
                _refuse(node, "from %s import * is not allowed" % module)
        else:
            module = None
            names = [a.name for a in node.names]
        for full in ([module] if module else names):
            if not _module_allowed(full):
                _refuse(node, "import %s is not allowed (allowed: %s)" % (full, _allowed_list()))
        for full in names:
            reason = _forbidden_reason(full)
            if reason:
                _refuse(node, "%s is not allowed (%s)" % (full, reason))
            if full.split(".")[-1] in FORBIDDEN_ATTRS:
                _refuse(node, "importing %s is not allowed" % full)

    def _check_attr_builtin(self, node):
        func = node.func
        if not (isinstance(func, ast.Name) and func.id in ATTR_BUILTINS):
            return
        name = node.args[1] if len(node.args) >= 2 else None
        if not (isinstance(name, ast.Constant) and isinstance(name.value, str)):
            _refuse(node, "%s needs a literal attribute name" % func.id)
        if _is_dunder(name.value) or name.value in FORBIDDEN_ATTRS:
            _refuse(node, "%s(..., %r) is not allowed" % (func.id, name.value))
        path = self.aliases.resolve(node.args[0]) if node.args else None
        if path is not None:
            full = path + "." + name.value
            reason = _forbidden_reason(full)
            if reason:
                _refuse(node, "%s is not allowed (%s)" % (full, reason))
            if func.id in ("setattr", "delattr"):
                _refuse(node, "%s on %s is not allowed (no changes to modules)" % (func.id, path))

    # ---- the top level: nothing may run answer code while the module is imported ----

    def check_body(self, body, where):
        for stmt in body:
            self._check_statement(stmt, where)

    def _check_statement(self, stmt, where):
        if isinstance(stmt, (ast.Import, ast.ImportFrom, ast.Pass)):
            return
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            self._check_function_def(stmt, where)
        elif isinstance(stmt, ast.ClassDef):
            self._check_class_def(stmt, where)
        elif isinstance(stmt, ast.Assign):
            for target in stmt.targets:
                self._check_target(target)
            self.const(stmt.value)
        elif isinstance(stmt, ast.AnnAssign):
            self._check_target(stmt.target)
            self._annotation(stmt.annotation)
            if stmt.value is not None:
                self.const(stmt.value)
        elif isinstance(stmt, ast.AugAssign):
            self._check_target(stmt.target)
            self.const(stmt.value)
        elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
            return  # docstrings, string comments, `...`
        elif isinstance(stmt, ast.If):
            self.const(stmt.test)
            self.check_body(stmt.body, where)
            self.check_body(stmt.orelse, where)
        elif isinstance(stmt, ast.Try):
            self.check_body(stmt.body, where)
            for handler in stmt.handlers:
                if handler.type is not None:
                    self.const(handler.type)
                self.check_body(handler.body, where)
            self.check_body(stmt.orelse, where)
            self.check_body(stmt.finalbody, where)
        else:
            _refuse(stmt, "%s: only imports, definitions and constant assignments are allowed here (%s)"
                    % (where, _describe(stmt)))

    def _check_target(self, target):
        if isinstance(target, ast.Name):
            if _is_dunder(target.id):
                _refuse(target, "assigning to %s is not allowed" % target.id)
        elif isinstance(target, (ast.Tuple, ast.List)):
            for elt in target.elts:
                self._check_target(elt)
        else:
            _refuse(target, "at the top level only plain names may be assigned")

    def _check_function_def(self, node, where):
        for dec in node.decorator_list:
            self._decorator(dec, in_class=where.startswith("class"))
        args = node.args
        for default in list(args.defaults) + [d for d in args.kw_defaults if d is not None]:
            self.const(default)
        all_args = args.posonlyargs + args.args + args.kwonlyargs + [a for a in (args.vararg, args.kwarg) if a]
        for a in all_args:
            if a.annotation is not None:
                self._annotation(a.annotation)
        if node.returns is not None:
            self._annotation(node.returns)

    def _check_class_def(self, node, where):
        for dec in node.decorator_list:
            self._decorator(dec, in_class=False)
        for base in node.bases:
            if not isinstance(base, (ast.Name, ast.Attribute, ast.Subscript)):
                _refuse(base, "class %s: a base class must be a name" % node.name)
            self.const(base)
        self.check_body(node.body, "class %s" % node.name)

    def _decorator(self, dec, in_class):
        target = dec.func if isinstance(dec, ast.Call) else dec
        if isinstance(target, ast.Name) and target.id in DECORATOR_BUILTINS:
            pass
        elif in_class and isinstance(target, ast.Attribute) and target.attr in PROPERTY_DECORATOR_ATTRS \
                and isinstance(target.value, ast.Name) and not isinstance(dec, ast.Call):
            return
        else:
            path = self.aliases.resolve(target)
            if path not in DECORATOR_PATHS:
                _refuse(dec, "decorator %s is not allowed (allowed: %s)"
                        % (_describe(target), ", ".join(sorted(DECORATOR_PATHS | DECORATOR_BUILTINS))))
        if isinstance(dec, ast.Call):
            for arg in list(dec.args) + [k.value for k in dec.keywords]:
                self.const(arg, lambdas=True)

    def _annotation(self, node):
        if self.future_annotations:
            return  # never evaluated
        self.const(node)

    # ---- constant expressions: evaluated while the module is imported ----

    def const(self, node, lambdas=True):
        """Refuse unless `node` is a constant expression: literals, names, attributes, containers,
        operators, comprehensions, and calls only of CONST_BUILTINS / CONST_CALL_PATHS. Lambdas are
        allowed where nothing calls them at import time (not inside the arguments of a builtin,
        which may call them: `sorted(key=...)`)."""
        stack = [(node, lambdas)]
        while stack:
            n, lam = stack.pop()
            if isinstance(n, ast.Lambda):
                if not lam:
                    _refuse(n, "a lambda here would run while the module is imported")
                self._lambda_defaults(n)
                continue
            if isinstance(n, ast.Call):
                lam = self._const_call(n, lam)
                stack.extend((c, lam) for c in list(n.args) + [k.value for k in n.keywords])
                continue
            if not isinstance(n, _CONST_NODES):
                _refuse(n, "not a constant expression (%s); the top level may not run code" % _describe(n))
            stack.extend((c, lam) for c in ast.iter_child_nodes(n) if not isinstance(c, _CONTEXT_NODES))

    def _lambda_defaults(self, node):
        for default in list(node.args.defaults) + [d for d in node.args.kw_defaults if d is not None]:
            self.const(default)

    def _const_call(self, node, lambdas):
        """Checks the callee of a call in a constant expression; returns whether its arguments may
        hold lambdas."""
        func = node.func
        if isinstance(func, ast.Name) and func.id in CONST_BUILTINS:
            return False
        path = self.aliases.resolve(func)
        if path and (path in CONST_CALL_PATHS or path.startswith(CONST_CALL_PREFIXES)):
            return lambdas
        _refuse(node, "calling %s is not allowed here: the top level may not run code"
                % _describe(func))
        return False


_CONST_NODES = (
    ast.Constant, ast.Name, ast.Attribute, ast.Tuple, ast.List, ast.Set, ast.Dict, ast.BinOp,
    ast.UnaryOp, ast.BoolOp, ast.Compare, ast.IfExp, ast.Subscript, ast.Slice, ast.Starred,
    ast.JoinedStr, ast.FormattedValue, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp,
    ast.comprehension, ast.keyword,
    # operator and context leaves
    ast.operator, ast.unaryop, ast.boolop, ast.cmpop,
)
_CONTEXT_NODES = (ast.expr_context,)


def _describe(node):
    """A short human name for a node: `os.system`, `a call`, `a for loop`."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        inner = _describe(node.value)
        return inner + "." + node.attr if inner else node.attr
    names = {
        ast.Call: "a call", ast.For: "a for loop", ast.While: "a while loop", ast.With: "a with block",
        ast.Expr: "an expression statement", ast.Delete: "a del statement", ast.Raise: "raise",
        ast.Assert: "assert", ast.Global: "global", ast.NamedExpr: "an assignment expression",
        ast.Await: "await", ast.Yield: "yield", ast.Return: "return",
    }
    for kind, text in names.items():
        if isinstance(node, kind):
            if kind is ast.Expr and isinstance(node.value, ast.Call):
                return "a call of %s" % _describe(node.value.func)
            return text
    return type(node).__name__


def _parse(source):
    if not isinstance(source, str):
        raise Refusal(0, "the source is not text")
    try:
        data = source.encode("utf-8")
    except UnicodeEncodeError:
        raise Refusal(0, "the source is not valid UTF-8") from None
    if len(data) > limits.MAX_SOURCE:
        raise Refusal(0, "the source is %d bytes, over the %d-byte limit" % (len(data), limits.MAX_SOURCE))
    if "\x00" in source:
        raise Refusal(source[:source.index("\x00")].count("\n") + 1, "the source holds a NUL byte")
    try:
        return ast.parse(source, filename="answer.py")
    except SyntaxError as e:
        raise Refusal(e.lineno or 0, "syntax error: %s" % (e.msg or "invalid syntax")) from None
    except (RecursionError, MemoryError):
        raise Refusal(0, "the source is nested too deeply") from None
    except ValueError as e:
        raise Refusal(0, "the source cannot be parsed: %s" % e) from None


def _drop_main_guards(body, notes):
    """The top-level statements with main guards replaced by their `else` branches."""
    out = []
    for stmt in body:
        if _is_main_guard(stmt):
            notes.append("line %d: the `if __name__ == \"__main__\":` block is ignored (never executed)"
                         % stmt.lineno)
            out.extend(_drop_main_guards(stmt.orelse, notes))
        else:
            out.append(stmt)
    return out


def check_source(source):
    """Checks an answer. Returns (module, notes): the ast.Module to execute (main guards removed;
    line numbers are the source's) and a list of notes for the report. Raises Refusal."""
    tree = _parse(source)
    count = 0
    for _ in ast.walk(tree):
        count += 1
        if count > limits.MAX_AST_NODES:
            raise Refusal(0, "the source has more than %d syntax nodes" % limits.MAX_AST_NODES)
    notes = []
    tree.body = _drop_main_guards(tree.body, notes)
    future = any(isinstance(s, ast.ImportFrom) and s.module == "__future__"
                 and any(a.name == "annotations" for a in s.names) for s in tree.body)
    checker = _Checker(_collect_aliases(tree), future)
    try:
        checker.check_everywhere(tree)
        checker.check_body(tree.body, "the top level")
    except RecursionError:
        raise Refusal(0, "the source is nested too deeply") from None
    return tree, notes
