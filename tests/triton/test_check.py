"""The static check: what it accepts, what it refuses and the line it names."""

import unittest

import common  # noqa: F401  (puts the package on sys.path)
from kscore_triton import limits
from kscore_triton.check import Refusal, check_source

HEADER = "import torch\nimport triton\nimport triton.language as tl\n"


def refused(src):
    try:
        check_source(src)
    except Refusal as e:
        return e.line, e.reason
    return None


class Accepts(unittest.TestCase):
    def test_fixture_answers(self):
        for name in ("sin_kernel", "matrix_vector_multip", "triton_matmul", "rotary_transform", "l2_norm_triton1",
                     "matrix_transpose", "embedding_triton_kernel", "attack_torch_fallback", "attack_result_cache",
                     "attack_skip_after_first"):
            with self.subTest(name=name):
                tree, _ = check_source(common.fixture_text(name + ".py"))
                self.assertTrue(tree.body)

    def test_modules_real_references_import(self):
        """TritonBench-G's int4_matmul imports time; others warnings, torch.amp, torch.autograd."""
        for line in ("import time", "import warnings", "import torch.amp", "from torch.cuda.amp import custom_fwd",
                     "from torch.autograd.function import Function", "import torch.autograd"):
            with self.subTest(line=line):
                self.assertIsNone(refused(HEADER + line + "\nX = 1\n"))
        for line in ("import numpy", "import torch._C", "import torch.testing", "import os"):
            with self.subTest(line=line):
                self.assertIn("is not allowed", refused(HEADER + line + "\n")[1])

    def test_typical_top_level(self):
        src = HEADER + (
            "from typing import Optional\nimport logging\nimport math\n"
            "logger = logging.getLogger(__name__)\n"
            "NUM_SM = torch.cuda.get_device_properties(0).multi_processor_count\n"
            "DTYPES = {'f16': torch.float16, 'f32': torch.float32}\n"
            "BLOCK: tl.constexpr = tl.constexpr(128)\n"
            "CONFIGS = [triton.Config({'B': b}, num_warps=w) for b in (64, 128) for w in (2, 4)]\n"
            "LOG2 = math.log2(1024) * 2\n"
            "if triton.__version__ >= '3':\n    NEW = True\nelse:\n    NEW = False\n"
            "try:\n    import triton.language.extra.cuda.libdevice as libdevice\nexcept ImportError:\n"
            "    libdevice = None\n"
            "@triton.heuristics({'EVEN': lambda args: args['n'] % 128 == 0})\n"
            "@triton.jit(do_not_specialize=['n'])\ndef k(x, n, EVEN: tl.constexpr):\n    pass\n"
            "class Op(torch.nn.Module):\n    '''doc'''\n    scale = 2.0\n"
            "    def __init__(self):\n        super().__init__()\n"
            "    @staticmethod\n    def forward(x: Optional[torch.Tensor] = None) -> torch.Tensor:\n        return x\n")
        check_source(src)

    def test_main_guard_is_dropped_with_a_note(self):
        src = HEADER + "X = 1\nif __name__ == '__main__':\n    import os\n    os.system('x')\nelse:\n    Y = 2\n"
        tree, notes = check_source(src)
        self.assertEqual(len(tree.body), 5)  # three imports, X, and Y from the else branch
        self.assertEqual(len(notes), 1)
        self.assertIn("line 5", notes[0])

    def test_function_bodies_may_compute(self):
        check_source(HEADER + "def f(x):\n    y = torch.empty_like(x)\n    for i in range(3):\n"
                              "        y.copy_(x)\n    print(y.shape)\n    return y\n")


class Refuses(unittest.TestCase):
    def check(self, src, line, words):
        got = refused(src)
        self.assertIsNotNone(got, "accepted: %r" % src)
        self.assertEqual(got[0], line, got[1])
        self.assertTrue(got[1].startswith("line %d: " % line) if line else True, got[1])
        for w in words:
            self.assertIn(w, got[1])

    def test_imports(self):
        self.check("import os", 1, ["import os is not allowed", "allowed:"])
        self.check(HEADER + "import subprocess as sp", 4, ["import subprocess"])
        self.check("from os import path", 1, ["import os"])
        self.check("from torch import *", 1, ["import *"])
        self.check("from . import x", 1, ["relative"])
        self.check("import torch.utils.cpp_extension", 1, ["torch.utils.cpp_extension"])
        self.check("from torch import load", 1, ["torch.load", "reads files"])
        self.check("import triton.knobs", 1, ["triton.knobs"])
        self.check("from __future__ import braces", 1, ["__future__"])
        self.check(HEADER + "def f():\n    import ctypes\n", 5, ["import ctypes"])

    def test_top_level_code(self):
        self.check(HEADER + "print('hi')", 4, ["a call of print"])
        self.check(HEADER + "X = foo()", 4, ["calling foo"])
        self.check(HEADER + "for i in range(3):\n    pass", 4, ["a for loop"])
        self.check(HEADER + "with torch.no_grad():\n    pass", 4, ["a with block"])
        self.check(HEADER + "X = sorted([1], key=lambda v: f(v))", 4, ["lambda"])
        self.check(HEADER + "X = [f(i) for i in range(3)]", 4, ["calling f"])
        self.check(HEADER + "@my_decorator\ndef f():\n    pass", 4, ["decorator my_decorator"])
        self.check(HEADER + "def f(x=g()):\n    pass", 4, ["calling g"])
        self.check(HEADER + "class A(metaclass=M):\n    pass", 4, ["metaclass"])
        self.check(HEADER + "class A:\n    x = f()\n", 5, ["calling f"])
        self.check(HEADER + "class A:\n    def __init_subclass__(cls):\n        pass\n", 5, ["__init_subclass__"])
        self.check(HEADER + "X = torch.randn(4)", 4, ["calling torch.randn"])
        self.check(HEADER + "x.y = 1", 4, ["plain names"])

    def test_dangerous_builtins_anywhere(self):
        for name in ("exec", "eval", "compile", "open", "__import__", "input", "breakpoint", "globals", "vars"):
            with self.subTest(name=name):
                self.check(HEADER + "def f():\n    return %s('x')\n" % name, 5, [name])

    def test_dunders_and_reflection(self):
        self.check(HEADER + "def f(x):\n    return x.__class__\n", 5, ["__class__"])
        self.check(HEADER + "def f(x):\n    return __builtins__\n", 5, ["__builtins__"])
        self.check(HEADER + "def f(x):\n    return getattr(x, name)\n", 5, ["literal attribute name"])
        self.check(HEADER + "def f(x):\n    return getattr(x, '__dict__')\n", 5, ["__dict__"])
        self.check(HEADER + "def f(g):\n    return g.gi_frame\n", 5, ["gi_frame"])
        self.check(HEADER + "__name__ = '__main__'\n", 4, ["__name__"])

    def test_reaching_the_system_through_modules(self):
        self.check(HEADER + "def f():\n    torch.os.system('id')\n", 5, [".system"])
        self.check(HEADER + "def f():\n    return torch.load('x')\n", 5, ["torch.load"])
        self.check(HEADER + "def f():\n    t = torch\n    t.save(1, 'x')\n", 6, ["torch.save"])
        self.check(HEADER + "def f():\n    getattr(torch, 'load')('x')\n", 5, ["torch.load"])
        self.check(HEADER + "def f():\n    return torch.ops.aten.sin\n", 5, ["torch.ops"])
        self.check(HEADER + "def f():\n    return torch._C\n", 5, ["_C"])
        self.check(HEADER + "def f():\n    return triton.compiler.compile\n", 5, ["triton.compiler"])

    def test_monkeypatching(self):
        self.check(HEADER + "def f():\n    torch.allclose = None\n", 5, ["assigning to torch.allclose"])
        self.check(HEADER + "def f():\n    setattr(torch.cuda, 'Event', None)\n", 5, ["setattr on torch.cuda"])
        self.check(HEADER + "def f():\n    del tl.load\n", 5, ["triton.language.load"])

    def test_streams_and_graphs(self):
        self.check(HEADER + "def f():\n    s = torch.cuda.Stream()\n", 5, ["torch.cuda.Stream", "another stream"])
        self.check(HEADER + "def f():\n    with torch.cuda.stream(s):\n        pass\n", 5, ["torch.cuda.stream"])
        self.check(HEADER + "def f():\n    g = torch.cuda.CUDAGraph()\n", 5, ["CUDA graphs"])
        self.check(common.fixture_text("attack_other_stream.py"), 16, ["torch.cuda.Stream"])

    def test_fixture_attacks(self):
        self.check(common.fixture_text("attack_forbidden_import.py"), 1, ["import os"])
        self.check(common.fixture_text("attack_toplevel_call.py"), 18, ["calling _sine_table"])

    def test_malformed_sources(self):
        self.check(HEADER + "def f(:\n", 4, ["syntax error"])
        self.check(HEADER + "x = 1\x00", 4, ["NUL"])
        self.check("x = " + "(" * 300 + ")" * 300, 1, ["nested"])
        self.check("\ud800", 0, ["UTF-8"])
        self.check("#" * (limits.MAX_SOURCE + 1), 0, ["over the"])

    def test_node_cap(self):
        src = "X = [" + "1," * (limits.MAX_AST_NODES + 10) + "]"
        got = refused(src)
        self.assertIsNotNone(got)
        self.assertTrue("syntax nodes" in got[1] or "over the" in got[1], got[1])


if __name__ == "__main__":
    unittest.main()
