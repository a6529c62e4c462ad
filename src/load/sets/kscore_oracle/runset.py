"""Running a problem set's own code under the recorder (record.py), one file per process.

TritonBench-G: the file's reference part (above the line of 146 '#') runs as the module named
after the file; the named entries are then wrapped in that module's namespace (a function or
alias: the name; an autograd Function: its `apply`; an nn.Module: its `forward`); then the test
code below the line runs in the same namespace, as GEAK-eval's import of the whole file runs it.
Its `result_gold` is described. The perf script (`<op>_perf.py`) runs after, with the modules it
imports from the GEAK-eval tree mapped onto the set: `geak_eval.perf.performance_utils` is the
set's own perf/performance_utils.py, `geak_eval.data.TritonBench.data.TritonBench_G_v1.<op>` and
`<op>` the reference module already loaded; its `performance_metrics().get_input_tensors()`
makes the inputs and `call_op` on each (after `to_cuda`) is recorded as perf cases.

KernelBench: seeded as KernelBench seeds (torch.manual_seed), `Model(*get_init_inputs())` under
the fixed seed limits.KERNELBENCH_INIT_SEED, `get_inputs()` under the request's seed, one case:
the forward call.
"""

import importlib.abc
import importlib.util
import io
import os
import sys
import types

from . import limits
from .record import CaseError, Recorder, describe_result

SEPARATOR = "#" * 146
GEAK_DATA = "geak_eval.data.TritonBench.data.TritonBench_G_v1"
GEAK_PERF_UTILS = "geak_eval.perf.performance_utils"


class SetError(Exception):
    """The set's code could not give cases; the reason says why (the file is named by the caller)."""


def seed_all(seed):
    import random
    import torch
    random.seed(seed)
    getattr(seed_all, "real", torch.manual_seed)(seed)
    cuda = getattr(torch, "cuda", None)
    if cuda is not None and getattr(cuda, "is_available", lambda: False)():
        cuda.manual_seed_all(seed)


def reseed_calls(seed):
    """Makes the set's own torch.manual_seed(s) calls (a test that fixes its seed) seed with s mixed
    with the request's seed: under seed 0 (the cases run) they are what the set wrote, under another
    the values are fresh too. The child that runs the file is a process of its own: nothing is
    restored."""
    import torch
    if seed == 0:
        return

    def mixed(real):
        def manual_seed(s):
            return real((int(s) * 0x9E3779B97F4A7C15 + seed) % (1 << 63))
        return manual_seed
    real_seed = torch.manual_seed
    torch.manual_seed = mixed(real_seed)
    cuda = getattr(torch, "cuda", None)
    for name in ("manual_seed", "manual_seed_all"):
        if cuda is not None and hasattr(cuda, name):
            setattr(cuda, name, mixed(getattr(cuda, name)))
    seed_all.real = real_seed


def split(text):
    """(reference part, test part, line of the separator), or raises SetError."""
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if line.rstrip("\r") == SEPARATOR:
            return "\n".join(lines[:i]), "\n".join(lines[i + 1:]), i + 1
    raise SetError("it has no line of 146 '#' between the reference and its test code")


def _exception(e):
    return "%s: %s" % (type(e).__name__, e)


class _Aliases(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Maps the GEAK-eval module names a perf script imports onto the set's own files."""

    def __init__(self, modules, perf_utils):
        self.modules = modules  # name -> module already loaded
        self.perf_utils = perf_utils

    def find_spec(self, name, path=None, target=None):
        packages = {".".join(full.split(".")[:i]) for full in (GEAK_DATA, GEAK_PERF_UTILS)
                    for i in range(1, len(full.split(".")) + (full == GEAK_DATA))}
        if name in packages:
            return importlib.util.spec_from_loader(name, self, is_package=True)
        if name in self.modules or name == GEAK_PERF_UTILS or name.startswith(GEAK_DATA + "."):
            return importlib.util.spec_from_loader(name, self)
        return None

    def create_module(self, spec):
        name = spec.name
        if name in self.modules:
            return self.modules[name]
        if name.startswith(GEAK_DATA + "."):
            op = name[len(GEAK_DATA) + 1:]
            if op in self.modules:
                return self.modules[op]
            raise ImportError("the perf script imports %s, which is not this problem's reference" % name)
        if name == GEAK_PERF_UTILS:
            if not self.perf_utils or not os.path.isfile(self.perf_utils):
                raise ImportError("the perf script imports %s and the set has no perf/performance_utils.py"
                                  % name)
            return None
        mod = types.ModuleType(name)
        mod.__path__ = []
        return mod

    def exec_module(self, module):
        if module.__name__ == GEAK_PERF_UTILS and not getattr(module, "_kscore_loaded", False):
            with open(self.perf_utils, encoding="utf-8") as f:
                code = compile(f.read(), self.perf_utils, "exec")
            module.__file__ = self.perf_utils
            exec(code, module.__dict__)
            module._kscore_loaded = True


def wrap_entries(rec, ns, entries):
    """Replaces each entry in the namespace ns by its recording wrapper. Returns the notes on
    names that could not be wrapped."""
    notes = []
    try:
        import torch
        function_type = getattr(getattr(torch, "autograd", None), "Function", None)
        module_type = getattr(getattr(torch, "nn", None), "Module", None)
    except ImportError:
        function_type = module_type = None
    for name in entries:
        obj = ns.get(name)
        if obj is None:
            notes.append("%s is not defined by the reference" % name)
        elif isinstance(obj, type) and function_type is not None and issubclass(obj, function_type):
            obj.apply = staticmethod(rec.wrap(name, obj.apply))
        elif isinstance(obj, type) and module_type is not None and issubclass(obj, module_type):
            obj.forward = _bind_forward(rec, name, obj.forward)
        elif isinstance(obj, type):
            notes.append("%s is a class that is neither an autograd Function nor a Module: its calls are "
                         "not cases" % name)
        elif callable(obj) or hasattr(obj, "__getitem__"):
            ns[name] = _launcher(rec, name, obj) if hasattr(obj, "__getitem__") and not callable(obj) \
                else rec.wrap(name, obj)
        else:
            notes.append("%s is not callable" % name)
    return notes


def _bind_forward(rec, name, orig):
    """An nn.Module's forward recorded without its self (the module's state is the reference's)."""
    def forward(self, *args, **kwargs):
        return rec.wrap(name, lambda *a, **k: orig(self, *a, **k))(*args, **kwargs)
    return forward


class _launcher:
    """A Triton kernel the test code launches itself (`kernel[grid](...)`): each launch is a case."""

    def __init__(self, rec, name, kernel):
        self._rec, self._name, self._kernel = rec, name, kernel

    def __getitem__(self, grid):
        return self._rec.wrap(self._name, self._kernel[grid])

    def __getattr__(self, attr):
        return getattr(self._kernel, attr)


class Run:
    """One file's run: the recorder, the notes, the described result_gold."""

    def __init__(self, writer=None, expect=None):
        self.rec = Recorder(writer, expect)
        self.notes = []
        self.result_gold = None
        self.output = io.StringIO()


def run_tritonbench(req, writer=None):
    """Runs a TritonBench-G reference (and its perf script) under the recorder; returns the Run.
    Raises SetError with the reason when the code raises or records nothing."""
    run = Run(writer, req.get("expect"))
    path = req["path"]
    with open(path, encoding="utf-8") as f:
        text = f.read()
    ref, test, sep_line = split(text)
    if not test.strip():
        raise SetError("it has no test code below the separator")
    stem = os.path.splitext(os.path.basename(path))[0]
    mod = types.ModuleType(stem)
    mod.__file__ = path
    sys.modules[stem] = mod
    ref_dir = os.path.dirname(os.path.abspath(path))
    if ref_dir not in sys.path:
        sys.path.insert(0, ref_dir)
    seed_all(req["seed"])
    reseed_calls(req["seed"])
    try:
        exec(compile(ref, path, "exec"), mod.__dict__)
    except BaseException as e:
        raise SetError("its reference part raised %s" % _exception(e))
    run.notes += wrap_entries(run.rec, mod.__dict__, req["entries"])
    try:
        exec(compile("\n" * sep_line + test, path, "exec"), mod.__dict__)
    except CaseError as e:
        raise SetError(str(e))
    except BaseException as e:
        if run.rec.error is not None:
            raise SetError(str(run.rec.error))
        raise SetError("its test code raised %s" % _exception(e))
    if run.rec.error is not None:
        raise SetError(str(run.rec.error))
    if "result_gold" in mod.__dict__:
        run.result_gold = describe_result(mod.__dict__["result_gold"])
    else:
        run.notes.append("its test code sets no result_gold")
    missing = [e for e in req["entries"] if e not in run.rec.called]
    if not run.rec.cases:
        raise SetError("its test code never called %s" % (", ".join(req["entries"]) or "an entry"))
    if missing:
        run.notes.append("never called: %s" % ", ".join(missing))
    if req.get("perf_path"):
        run_perf(run, req, mod, stem)
    if run.rec.dropped:
        run.notes.append("%d calls past the first %d were not recorded" % (run.rec.dropped, limits.MAX_CASES))
    return run


def run_perf(run, req, mod, stem):
    """The perf script's inputs, each passed to call_op, recorded as perf cases. A perf script
    that cannot run leaves a note, not an error: the correctness cases stand."""
    perf = req["perf_path"]
    utils = os.path.join(os.path.dirname(os.path.abspath(perf)), "performance_utils.py")
    finder = _Aliases({stem: mod}, utils)
    sys.meta_path.insert(0, finder)
    before = len(run.rec.cases)
    run.rec.kind = "perf"
    try:
        with open(perf, encoding="utf-8") as f:
            code = compile(f.read(), perf, "exec")
        pmod = types.ModuleType(stem + "_perf")
        pmod.__file__ = perf
        exec(code, pmod.__dict__)
        cls = pmod.__dict__.get("performance_metrics")
        if cls is None:
            run.notes.append("perf: the script defines no performance_metrics class")
            return
        pm = cls()
        pm.get_input_tensors()
        inputs = list(getattr(pm, "input_tensors", None) or [])
        for i, x in enumerate(inputs):
            if hasattr(pm, "to_cuda"):
                try:
                    x = pm.to_cuda(x)
                except NotImplementedError:
                    pass
            pm.call_op(x)
            if run.rec.error is not None:
                raise run.rec.error
        if len(run.rec.cases) == before:
            run.notes.append("perf: call_op never called an entry on its %d inputs" % len(inputs))
    except CaseError as e:
        raise SetError("perf: %s" % e)
    except BaseException as e:
        if run.rec.error is not None:
            raise SetError("perf: %s" % run.rec.error)
        run.notes.append("perf: the script raised %s (perf cases %d and on are missing)"
                         % (_exception(e), len(run.rec.cases)))
    finally:
        run.rec.kind = "correctness"
        sys.meta_path.remove(finder)


def run_kernelbench(req, writer=None):
    """One case: Model(*get_init_inputs()) seeded as KernelBench seeds it, then its forward on
    get_inputs() under the request's seed."""
    run = Run(writer, req.get("expect"))
    path = req["path"]
    stem = os.path.splitext(os.path.basename(path))[0]
    mod = types.ModuleType("kb_" + "".join(c if c.isalnum() else "_" for c in stem))
    mod.__file__ = path
    try:
        with open(path, encoding="utf-8") as f:
            exec(compile(f.read(), path, "exec"), mod.__dict__)
    except BaseException as e:
        raise SetError("importing it raised %s" % _exception(e))
    for name in ("Model", "get_inputs", "get_init_inputs"):
        if name not in mod.__dict__:
            raise SetError("it defines no %s" % name)
    try:
        import torch
        seed_all(limits.KERNELBENCH_INIT_SEED)
        init = mod.get_init_inputs()
        seed_all(limits.KERNELBENCH_INIT_SEED)
        model = mod.Model(*init)
        cuda = getattr(torch, "cuda", None)
        on_gpu = cuda is not None and getattr(cuda, "is_available", lambda: False)()
        if on_gpu and hasattr(model, "cuda"):
            model = model.cuda()
        seed_all(req["seed"])
        inputs = [x.cuda() if on_gpu and isinstance(x, torch.Tensor) else x for x in mod.get_inputs()]
        forward = run.rec.wrap("Model", lambda *a: model(*a))
        with (torch.no_grad() if hasattr(torch, "no_grad") else _nothing()):
            forward(*inputs)
    except CaseError as e:
        raise SetError(str(e))
    except BaseException as e:
        if run.rec.error is not None:
            raise SetError(str(run.rec.error))
        raise SetError("its Model raised %s" % _exception(e))
    if run.rec.error is not None:
        raise SetError(str(run.rec.error))
    return run


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *a):
        return False
