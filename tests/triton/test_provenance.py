"""Provenance of the CUBINs without Triton: the plan (what is taken from the answer, what is
refused), the recompile worker run for real (forked from its template, confined where the
kernel allows) with a stand-in compiler, the cache, and the server's answer when the worker
dies, hangs or lies, or when a CUBIN is not the one the answer's source compiles to."""

import base64
import hashlib
import inspect
import io
import json
import linecache
import os
import shutil
import sys
import tempfile
import time
import types
import unittest

import common
from kscore_triton import confine, provenance, recompile
from kscore_triton.protocol import encode
from kscore_triton.provenance import Untraceable, VIRTUAL_FILE, plan
from kscore_triton.server import Server
from kscore_triton.verify import MISMATCH, Verifier


def stub_triton():
    """A stand-in `triton` (jit, autotune, heuristics, Config, language.constexpr and a dtype):
    enough to execute an answer's definitions and to tell a JITFunction."""
    triton = types.ModuleType("triton")
    language = types.ModuleType("triton.language")
    runtime = types.ModuleType("triton.runtime")

    class JITFunction:
        def __init__(self, fn, **kw):
            self.fn, self.kw, self.__name__ = fn, kw, fn.__name__

    def jit(fn=None, **kw):
        return JITFunction(fn, **kw) if fn is not None else (lambda f: JITFunction(f, **kw))

    class constexpr:
        def __init__(self, value):
            self.value = value

    class dtype:
        def __init__(self, name):
            self.name = name
    dtype.__module__ = "triton.language.core"
    language.constexpr, language.dtype, language.float32 = constexpr, dtype, dtype("fp32")
    language.program_id = language.arange = language.load = language.store = language.sin = None
    runtime.JITFunction = JITFunction
    triton.jit, triton.language, triton.runtime = jit, language, runtime
    triton.autotune = lambda *a, **k: (lambda f: f)
    triton.heuristics = lambda *a, **k: (lambda f: f)
    triton.Config = lambda *a, **k: (a, k)
    triton.cdiv = lambda a, b: -(-a // b)
    return {"triton": triton, "triton.language": language, "triton.runtime": runtime}


def fake_cubin(ns, jit):
    """The stand-in compiler: an 'ELF' that depends on the jit function's source and line, the
    values of the globals it reads, and the record."""
    fn = ns[jit["name"]]
    lines, start = inspect.getsourcelines(fn.fn)  # start: the first decorator's line, as Triton's
    first = next(i for i, ln in enumerate(lines) if ln.lstrip().startswith("def "))
    lines = lines[first:]  # as Triton: the source from `def`
    reads = sorted((n, repr(getattr(fn.fn.__globals__.get(n), "value", fn.fn.__globals__.get(n))))
                   for n in fn.fn.__code__.co_names if n in fn.fn.__globals__ and n != "tl")
    text = json.dumps([lines, start, reads, jit], sort_keys=True)
    return b"\x7fELF" + hashlib.sha256(text.encode()).digest()


def record(name, line, **over):
    jit = {"name": name, "line": line, "signature": {"x_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32",
                                                     "BLOCK": "constexpr"},
           "constexprs": [[[3], ["i", "256"]]], "attrs": [[[0], [["tt.divisibility", 16]]]],
           "options": {"num_warps": 2, "num_stages": 3, "num_ctas": 1, "cluster_dims": [1, 1, 1]},
           "target": {"backend": "cuda", "arch": 90, "warp_size": 32}}
    jit.update(over)
    return jit


SIN = common.fixture_text("sin_kernel.py")
SIN_LINE = 14  # the `def sin_kernel` line of the fixture


def trace_child_cubin(source, jit, stubs):
    """What an honest trace child's kernel is under the stand-in compiler: the whole answer
    executed as the child executes it."""
    saved = {k: sys.modules.get(k) for k in stubs}
    sys.modules.update(stubs)
    try:
        ns = {"__name__": provenance.MODULE_NAME}
        linecache.cache[VIRTUAL_FILE] = (len(source), None, source.splitlines(True), VIRTUAL_FILE)
        src = "\n".join("" if ln.startswith("import torch") else ln for ln in source.split("\n"))
        exec(compile(src, VIRTUAL_FILE, "exec"), ns)
        return fake_cubin(ns, jit)
    finally:
        for k, v in saved.items():
            if v is None:
                sys.modules.pop(k, None)
            else:
                sys.modules[k] = v


def kernel_entry(cubin, jit, params=("*fp32", "*fp32", "i32")):
    return {"sha256": hashlib.sha256(cubin).hexdigest(), "name": jit["name"], "num_warps": 2, "num_ctas": 1,
            "shared": 0, "cluster_dims": [1, 1, 1], "global_scratch_size": 0, "global_scratch_align": 1,
            "profile_scratch_size": 0, "profile_scratch_align": 1, "cooperative": False, "pdl": False,
            "params": list(params), "cubin": base64.b64encode(cubin).decode(), "jit": jit}


def ok_reply(kernels):
    args = [{"buffer": "x", "offset": 0}, {"buffer": "y", "offset": 0}, {"type": "i32", "value": 8},
            {"null": "global_scratch"}, {"null": "profile_scratch"}]
    return {"status": "ok", "kernels": kernels, "stdout": "", "stderr": "",
            "cases": [{"index": 0, "buffers": [{"name": "x", "kind": "input"}, {"name": "y", "kind": "output"}],
                       "steps": [{"op": "launch", "kernel": i, "grid": [1, 1, 1], "block": [64, 1, 1], "shared": 0,
                                  "args": args} for i in range(len(kernels))], "notes": []}]}


class Plan(unittest.TestCase):
    def test_takes_the_kernel_its_imports_and_blanks_the_autotuner(self):
        p = plan(SIN, [record("sin_kernel", SIN_LINE)])
        lines = p["skeleton"].split("\n")
        self.assertEqual(len(lines), len(SIN.split("\n")), "the skeleton keeps every line number")
        self.assertEqual(lines[SIN_LINE - 1], SIN.split("\n")[SIN_LINE - 1])
        self.assertEqual(lines[5], "@_kscore_jit", "the first decorator's line: triton.jit stands for them all")
        self.assertTrue(all(not ln for ln in lines[:5] + lines[6:13]), "imports and the decorators are blank")
        self.assertNotIn("call_kernel", p["skeleton"])
        self.assertEqual(p["bindings"], {"tl": ["import", "triton.language"]})
        self.assertEqual(p["jit_options"], {"sin_kernel": {}})

    def test_takes_called_jit_functions_and_literal_constants(self):
        src = ("import triton\nimport triton.language as tl\nimport math\nSCALE = 0.5\nBLOCK = tl.constexpr(64)\n"
               "F32 = tl.float32\n\n@triton.jit\ndef helper(x):\n    return x * SCALE\n\n"
               "@triton.jit(do_not_specialize=['n'])\ndef k(x_ptr, n, B: tl.constexpr = 4):\n"
               "    i = tl.arange(0, BLOCK)\n    return helper(tl.load(x_ptr + i)).to(F32) + math.pi\n\n"
               "def other():\n    return 1\n")
        p = plan(src, [record("k", 13)])
        self.assertEqual(p["bindings"]["SCALE"], ["literal", ["f", (0.5).hex()]])
        self.assertEqual(p["bindings"]["BLOCK"], ["constexpr", ["i", "64"]])
        self.assertEqual(p["bindings"]["F32"], ["attr", "triton.language.float32"])
        self.assertEqual(p["bindings"]["math"], ["import", "math"])
        self.assertIn("def helper", p["skeleton"])
        self.assertNotIn("other", p["skeleton"])
        self.assertEqual(p["jit_options"], {"k": {"do_not_specialize": ["n"]}, "helper": {}})

    def test_what_honest_references_write(self):
        src = ("import triton\nfrom triton import language as tl\ntry:\n"
               "    from triton.language.extra.cuda.libdevice import pow as _pow\nexcept ImportError:\n"
               "    from triton.language.math import pow as _pow\n\n"
               "def meta(grid, kernel, args):\n    return {}\n\n"
               "MODE = tl.constexpr(3)\n"
               "@triton.jit(launch_metadata=meta)\ndef k(x_ptr, n: int, ACC: tl.constexpr = tl.int32,\n"
               "      M: tl.constexpr = MODE):\n"
               "    return _pow(tl.load(x_ptr), 2.0)\n")
        p = plan(src, [record("k", 13)])
        self.assertEqual(p["bindings"]["MODE"], ["constexpr", ["i", "3"]])
        self.assertEqual(p["bindings"]["_pow"], ["imports", ["triton.language.extra.cuda.libdevice.pow",
                                                            "triton.language.math.pow"]])
        self.assertEqual(p["jit_options"], {"k": {}}, "launch_metadata is the launch's, not the CUBIN's")

    def refused(self, src, line, words, name="k"):
        with self.assertRaises(Untraceable) as cm:
            plan(src, [record(name, line)])
        self.assertIn(words, str(cm.exception))

    def test_refusals(self):
        head = "import triton\nimport triton.language as tl\nimport torch\nimport math\n"
        cases = [
            ("a decorator argument that is a call", "@triton.jit(noinline=bool(1))\ndef k(x):\n    pass\n", 6,
             "not a literal keyword"),
            ("an unknown decorator argument", "@triton.jit(extra=1)\ndef k(x):\n    pass\n", 6, "not a literal keyword"),
            ("a positional decorator argument", "@triton.jit(1)\ndef k(x):\n    pass\n", 6, "positional argument"),
            ("another decorator", "import functools\n@functools.lru_cache\n@triton.jit\ndef k(x):\n    pass\n", 8,
             "neither triton.jit"),
            ("jit not innermost", "@triton.jit\n@triton.heuristics({})\ndef k(x):\n    pass\n", 7,
             "innermost decorator"),
            ("a default that is not a literal", "N = 4\n@triton.jit\ndef k(x, B: tl.constexpr = N * 2):\n    pass\n",
             7, "default value on line 7 is not a literal"),
            ("a default that is a computed global", "N = math.sqrt(4)\n@triton.jit\ndef k(x, B=N):\n    pass\n",
             7, "N (line 7), which is a value computed at import"),
            ("a computed global", "SCALE = math.sqrt(2.0)\n@triton.jit\ndef k(x):\n    return x * SCALE\n", 7,
             "SCALE (line 8), which is a value computed at import"),
            ("a plain function", "def f(x):\n    return x\n@triton.jit\ndef k(x):\n    return f(x)\n", 8,
             "f (line 9), which is not a @triton.jit function"),
            ("a class", "class C:\n    pass\n@triton.jit\ndef k(x):\n    return C\n", 8, "which is a class"),
            ("torch", "@triton.jit\ndef k(x):\n    return torch.float32\n", 6, "the module torch"),
            ("a kernel in a function", "def make():\n    @triton.jit\n    def k(x):\n        pass\n    return k\n",
             7, "not a @triton.jit function at the top level"),
            ("a name bound twice", "@triton.jit\ndef k(x):\n    pass\nk = 3\n", 6, "more than once"),
            ("a global bound twice", "S = 1\nS = 2\n@triton.jit\ndef k(x):\n    return x * S\n", 8,
             "more than once"),
            ("an annotation that is a call", "@triton.jit\ndef k(x: tl.pointer_type(tl.float32)):\n    pass\n", 6,
             "annotation on line 6"),
            ("a global bound in a try block", "try:\n    S = 2\nexcept Exception:\n    pass\n"
             "@triton.jit\ndef k(x):\n    return x * S\n", 10, "bound inside an if or try block"),
        ]
        for what, body, line, words in cases:
            with self.subTest(what):
                self.refused(head + body, line, words)

    def test_locals_hide_globals(self):
        src = "import triton\nSCALE = object()\n@triton.jit\ndef k(x, SCALE):\n    y = SCALE\n    return y\n"
        self.assertEqual(plan(src, [record("k", 4)])["bindings"], {}, "SCALE is the parameter")

    def test_a_kernel_passed_as_a_constexpr_is_taken(self):
        src = ("import triton\n@triton.jit\ndef act(x):\n    return x\n@triton.jit\ndef k(x, F):\n"
               "    return F(x)\n")
        p = plan(src, [record("k", 6, constexprs=[[[1], ["jit", "act", 3]]])])
        self.assertIn("def act", p["skeleton"])

    def test_record_schema_is_total(self):
        good = record("k", 3)
        self.assertIsNone(provenance.check_record(good))
        self.assertIsNone(provenance.check_record({"error": "x"}))
        deep = ["n"]
        for _ in range(6):
            deep = ["t", [deep]]
        bad = [None, [], {}, dict(good, line=0), dict(good, name="a b"), dict(good, extra=1),
               dict(good, constexprs=[[[0], ["i", "x"]]]), dict(good, constexprs=[[[0], ["q"]]]),
               dict(good, constexprs=[[[], ["n"]]]), dict(good, attrs=[[[0], [[1, 2]]]]),
               dict(good, options={"a": {"b": 1}}), dict(good, target={"backend": "cuda"}),
               dict(good, signature={"x": 5}), dict(good, constexprs=[[[0], deep]])]
        for b in bad:
            with self.subTest(b=str(b)[:60]):
                self.assertIsNotNone(provenance.check_record(b))

    def test_mutated_records_never_raise(self):
        import random
        from kscore_triton import schema
        rng = random.Random(34)
        odd = [None, True, -1, 1 << 70, 1.5, float("nan"), "", "x" * 5000, [], {}, [[]], {"a": []}, ["t"],
               ["i", "1"], [[0], ["n"]], [[-1], ["n"]]]
        jit = record("sin_kernel", SIN_LINE)
        cubin = b"\x7fELF"
        for _ in range(2000):
            j = json.loads(json.dumps(jit))
            for _ in range(rng.randint(1, 3)):
                key = rng.choice(list(j) + ["extra"])
                target = j.get(key)
                if isinstance(target, list) and target and rng.random() < 0.5:
                    target[rng.randrange(len(target))] = rng.choice(odd)
                elif isinstance(target, dict) and target and rng.random() < 0.5:
                    target[rng.choice(list(target))] = rng.choice(odd)
                else:
                    j[key] = rng.choice(odd)
            problem = provenance.check_record(j)
            self.assertTrue(problem is None or isinstance(problem, str))
            reply = ok_reply([kernel_entry(cubin, j if isinstance(j, dict) else jit)])
            self.assertTrue(schema.check_reply(reply) is None or isinstance(schema.check_reply(reply), str))

    def test_values_round_trip(self):
        for v in (None, True, 3, -(1 << 70), 0.1, float("inf"), "s", (1, (2.5, None))):
            enc = json.loads(json.dumps(provenance.encode_value(v)))
            self.assertTrue(provenance._check_value(enc))
            self.assertEqual(provenance.decode_value(enc, None, None), v)


class Req:
    def __init__(self, source, timeout_s=20):
        self.source, self.timeout_s, self.id = source, timeout_s, 1


class Recompile(unittest.TestCase):
    """The Verifier with real recompile workers forked from its template."""

    def setUp(self):
        self.stubs = stub_triton()
        self.saved = {k: sys.modules.get(k) for k in self.stubs}
        sys.modules.update(self.stubs)
        self.workdir = tempfile.mkdtemp(prefix="kscore-prov-")
        self.verifiers = []

    def tearDown(self):
        for v in self.verifiers:
            v.close()
        shutil.rmtree(self.workdir, ignore_errors=True)
        for k, v in self.saved.items():
            if v is None:
                sys.modules.pop(k, None)
            else:
                sys.modules[k] = v

    def verifier(self, compile_fn=fake_cubin, sandbox=False, cache_dir=None):
        v = Verifier(recompile.make_runner(compile_fn), self.workdir, "3.6.0", allow_unsandboxed=not sandbox,
                     read_exec=[common.PACKAGE], cache_dir=cache_dir)
        self.verifiers.append(v)
        return v

    def honest(self, source=SIN, line=SIN_LINE, **over):
        jit = record("sin_kernel", line, **over)
        return ok_reply([kernel_entry(trace_child_cubin(source, jit, self.stubs), jit)])

    def test_an_honest_kernel_passes_and_a_forged_one_does_not(self):
        v = self.verifier()
        self.assertIsNone(v.verify(Req(SIN), self.honest()))
        forged = self.honest()
        evil = b"\x7fELF nvcc-built kernel"
        forged["kernels"][0].update(sha256=hashlib.sha256(evil).hexdigest(), cubin=base64.b64encode(evil).decode())
        reason, _ = v.verify(Req(SIN), forged)
        self.assertTrue(reason.startswith(MISMATCH), reason)
        self.assertIn("sin_kernel (line 14)", reason)

    def test_another_specialization_is_another_cubin(self):
        v = self.verifier()
        reply = self.honest()
        reply["kernels"][0]["jit"] = record("sin_kernel", SIN_LINE, constexprs=[[[3], ["i", "1024"]]])
        self.assertTrue(v.verify(Req(SIN), reply)[0].startswith(MISMATCH))

    def test_a_kernel_of_another_source_is_refused(self):
        other = SIN.replace("tl.sin(x)", "x")
        v = self.verifier()
        self.assertTrue(v.verify(Req(SIN), self.honest(source=other))[0].startswith(MISMATCH))

    def test_confined_worker(self):
        if confine.landlock_abi() < 1:
            self.skipTest("no Landlock on this kernel")
        self.assertIsNone(self.verifier(sandbox=True).verify(Req(SIN), self.honest()))

    def test_missing_and_error_records(self):
        v = self.verifier()
        reply = self.honest()
        del reply["kernels"][0]["jit"]
        self.assertIn("carries no record", v.verify(Req(SIN), reply)[0])
        reply["kernels"][0]["jit"] = {"error": "ValueError: tuple arguments"}
        self.assertIn("tuple arguments", v.verify(Req(SIN), reply)[0])

    def test_cache_in_memory_and_on_disk(self):
        cache = os.path.join(self.workdir, "cache")
        v = self.verifier(cache_dir=cache)
        for _ in range(2):
            self.assertIsNone(v.verify(Req(SIN), self.honest()))
        self.assertEqual(v.stats, {"compiled": 1, "cached": 1})
        fresh = self.verifier(lambda ns, jit: b"never", cache_dir=cache)
        self.assertIsNone(fresh.verify(Req(SIN), self.honest()), "a new process finds the verdict on disk")
        self.assertEqual(fresh.stats, {"compiled": 0, "cached": 1})
        self.assertTrue(fresh.verify(Req(SIN + "\n# another answer\n"), self.honest())[0].startswith(MISMATCH),
                        "the key holds the source's hash")

    def test_a_worker_that_dies_hangs_or_lies(self):
        def dies(ns, jit):
            os.kill(os.getpid(), 9)

        def hangs(ns, jit):
            time.sleep(60)

        def lies(ns, jit):
            for fd in range(3, 256):
                try:
                    os.write(fd, b'{"results": [{"sha256": "zz"}]}')
                except OSError:
                    pass
            os._exit(0)

        def raises(ns, jit):
            raise RuntimeError("CompilationError at 17:4")
        for fn, words in ((dies, "was killed by SIGKILL"), (hangs, "ran past the trace's limit (2 s"),
                          (lies, "malformed reply"), (raises, "CompilationError at 17:4")):
            with self.subTest(fn.__name__):
                t0 = time.monotonic()
                reason, _ = self.verifier(fn).verify(Req(SIN, timeout_s=2), self.honest(), time.monotonic() + 2)
                self.assertIn(words, reason)
                self.assertLess(time.monotonic() - t0, 10)
                self.assertEqual([n for n in os.listdir(self.workdir) if n.startswith("compile-")], [])


class ServerProvenance(unittest.TestCase):
    """The server end to end with a stand-in trace child and the stand-in compiler."""

    def setUp(self):
        self.stubs = stub_triton()
        self.saved = {k: sys.modules.get(k) for k in self.stubs}
        sys.modules.update(self.stubs)

    def tearDown(self):
        for k, v in self.saved.items():
            if v is None:
                sys.modules.pop(k, None)
            else:
                sys.modules[k] = v

    def serve(self, reply, provenance=fake_cubin, timeout_s=20):
        def runner(req, tree, notes, ctx, wfd):
            os.write(wfd, encode(reply))
            os._exit(0)
        r = common.fixture_json("sin_kernel.request.json")
        r["timeout_s"] = timeout_s
        rfd, wfd = os.pipe()
        server = Server("serve", wfd, allow_unsandboxed=True, runner=runner, provenance=provenance)
        server.versions = {"python": "x", "torch": "x", "triton": "3.6.0"}
        try:
            server.serve(io.BytesIO((json.dumps(r) + "\n").encode()))
        finally:
            os.close(wfd)
        with os.fdopen(rfd, "rb") as f:
            out = json.loads(f.read().splitlines()[0])
        shutil.rmtree(server.workdir, ignore_errors=True)
        return out

    def honest(self):
        jit = record("sin_kernel", SIN_LINE)
        return ok_reply([kernel_entry(trace_child_cubin(SIN, jit, self.stubs), jit)])

    def test_ok_is_passed_on_without_the_records(self):
        out = self.serve(self.honest())
        self.assertEqual(out["status"], "ok", out.get("reason"))
        self.assertNotIn("jit", out["kernels"][0])
        self.assertIn("provenance", out["seconds"])

    def test_a_forged_cubin_is_untraceable(self):
        reply = self.honest()
        evil = b"\x7fELF another kernel's CUBIN"
        reply["kernels"][0].update(sha256=hashlib.sha256(evil).hexdigest(), cubin=base64.b64encode(evil).decode())
        out = self.serve(reply)
        self.assertEqual(out["status"], "untraceable")
        self.assertTrue(out["reason"].startswith(MISMATCH), out["reason"])

    def test_a_malformed_record_is_a_malformed_reply(self):
        reply = self.honest()
        reply["kernels"][0]["jit"]["line"] = "14"
        out = self.serve(reply)
        self.assertEqual(out["status"], "error")
        self.assertIn("kernels[0].jit", out["reason"])

    def test_the_recompile_ends_within_the_trace_limit_and_its_grace(self):
        from kscore_triton import limits
        old, limits.PROVENANCE_GRACE_S = limits.PROVENANCE_GRACE_S, 1
        try:
            t0 = time.monotonic()
            out = self.serve(self.honest(), provenance=lambda ns, jit: time.sleep(60), timeout_s=2)
        finally:
            limits.PROVENANCE_GRACE_S = old
        self.assertLess(time.monotonic() - t0, 6, "kscore waits timeout_s + 30 s for the whole answer")
        self.assertEqual(out["status"], "untraceable")
        self.assertIn("ran past the trace's limit", out["reason"])

    def test_without_provenance_the_records_are_still_removed(self):
        out = self.serve(self.honest(), provenance=False)
        self.assertEqual(out["status"], "ok")
        self.assertNotIn("jit", out["kernels"][0])


if __name__ == "__main__":
    unittest.main()


class References(unittest.TestCase):
    """Every @triton.jit function of TritonBench-G's references that the static check admits can
    be planned for the recompile, but those listed with the rule that refuses them."""

    REFUSED = {
        ("uniform_sampling.py", "uniform_kernel"): "binds more than once",  # a helper bound in an if/else
    }

    def test_references_plan(self):
        import ast
        import test_check_references as refs
        from kscore_triton.check import Refusal, check_source
        if not os.path.isdir(refs.REFERENCES):
            self.skipTest("no TritonBench-G references at ../shared/problem-sets/tritonbench-g/reference")
        planned = 0
        for name in sorted(os.listdir(refs.REFERENCES)):
            if not name.endswith(".py"):
                continue
            with open(os.path.join(refs.REFERENCES, name), encoding="utf-8", errors="replace") as f:
                src = refs.kernel_part(f.read())
            try:
                check_source(src)
            except Refusal:
                continue
            for node in ast.parse(src).body:
                if not isinstance(node, ast.FunctionDef) or not any("jit" in ast.unparse(d) for d in node.decorator_list):
                    continue
                want = self.REFUSED.get((name, node.name))
                with self.subTest(reference=name, kernel=node.name):
                    try:
                        plan(src, [{"name": node.name, "line": node.lineno, "constexprs": []}])
                        self.assertIsNone(want, "planned, but listed as refused")
                        planned += 1
                    except Untraceable as e:
                        self.assertIsNotNone(want, str(e))
                        self.assertIn(want, str(e))
        self.assertGreater(planned, 200)
