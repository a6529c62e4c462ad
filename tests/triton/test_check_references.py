"""The static check over TritonBench-G's 184 reference implementations (the code above the
146-`#` line, as a GEAK answer holds it): every reference that imports only the modules
docs/triton-protocol.md admits passes, unless a rule other than the imports refuses it (listed
below, with the rule). Reads the problem set from `../shared/problem-sets/tritonbench-g/reference`
beside the repository; skipped by name where it is absent."""

import ast
import os
import re
import unittest

import common
from kscore_triton import check
from kscore_triton.check import Refusal, check_source

REFERENCES = os.path.join(os.path.dirname(common.ROOT), "shared", "problem-sets", "tritonbench-g", "reference")
SEPARATOR = "#" * 146
IMPORT_REFUSAL = re.compile(r"import \S+ is not allowed")

# The modules the references import that a confined trace can bear, as docs/triton-protocol.md
# lists them, and those it does not admit (with why).
ADMITTED = {"torch", "triton", "triton.language", "typing", "math", "logging", "functools", "time",
            "warnings", "torch.amp", "torch.nn", "torch.nn.functional", "collections", "operator",
            "torch.cuda.amp", "torch.autograd.function"}
ADMITTED_PREFIXES = ("triton.language.",)
NOT_ADMITTED = {
    "numpy": "reads and writes files (np.load, np.fromfile, np.memmap) and loads libraries (np.ctypeslib)",
    "torch._C": "torch's internals",
    "torch._inductor.runtime": "torch's compiler internals",
    "torch._inductor.runtime.triton_helpers": "torch's compiler internals",
    "torch.testing": "test helpers; torch.testing._internal reaches processes and files",
}

# References that import only admitted modules but break another rule of the check (not its
# imports): the file and the words of the refusal. Loosening these rules is a decision of its own.
OTHER_RULES = {
    "chunk_gate_recurrence.py": "assigning to torch.backends.cudnn.allow_tf32",
    "chunk_retention.py": "decorator custom_fwd is not allowed",
    "chunk_retention_ops.py": "decorator contiguous is not allowed",
    "cross_entropy1.py": "torch.distributed.get_world_size is not allowed",
    "cross_entropy_ops.py": "torch.distributed.get_world_size is not allowed",
    "int8_dequant_matmul.py": "calling get_configs_io_bound is not allowed here",
    "int8_matmul_kernel.py": "calling get_autotune_config is not allowed here",
    "layer_norm_liger.py": "decorator ensure_contiguous is not allowed",
    "masked_select.py": "calling cfggen is not allowed here",
    "matmul_triton_autotune.py": "calling get_autotune_config is not allowed here",
    "parallel_retention_attention.py": "decorator contiguous is not allowed",
    "quant_transpose_kernel.py": "input is not allowed",
    "rbe_triton_transform.py": "a call of torch.manual_seed",
    "rms_matmul_rbe.py": "a call of torch.manual_seed",
    "rms_rbe_matmul.py": "a call of torch.manual_seed",
    "rmsnorm_triton.py": "a call of torch.manual_seed",
    "softmax_triton3.py": "input is not allowed",
    "triton_linear_activation.py": "calling get_configs_io_bound is not allowed here",
}


def kernel_part(text):
    """The lines above the first separator line (the whole file when there is none)."""
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if line.strip() == SEPARATOR:
            return "\n".join(lines[:i]) + "\n"
    return text


def imports(source):
    """Every module the source imports, anywhere."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            found.add("." * node.level + (node.module or ""))
    return found


def admitted(module):
    return module in ADMITTED or module.startswith(ADMITTED_PREFIXES)


def references():
    if not os.path.isdir(REFERENCES):
        return None
    out = {}
    for name in sorted(os.listdir(REFERENCES)):
        if name.endswith(".py"):
            with open(os.path.join(REFERENCES, name), encoding="utf-8") as f:
                out[name] = kernel_part(f.read())
    return out


class References(unittest.TestCase):
    def setUp(self):
        self.refs = references()
        if self.refs is None:
            self.skipTest("no TritonBench-G references at ../shared/problem-sets/tritonbench-g/reference")

    def test_the_check_admits_what_the_docs_list(self):
        """The allow-list and this list agree on every module a reference imports."""
        seen = set().union(*(imports(src) for src in self.refs.values()))
        for module in sorted(seen):
            with self.subTest(module=module):
                in_check = module in check.ALLOWED_MODULES or module.startswith(check.ALLOWED_MODULE_PREFIXES)
                if admitted(module):
                    self.assertTrue(in_check, "%s is admitted by the docs but refused by the check" % module)
                else:
                    self.assertIn(module, NOT_ADMITTED, "%s: a module no list says anything about" % module)
                    self.assertFalse(in_check, "%s is not admitted but the check lets it in" % module)

    def test_references_with_admitted_imports_pass(self):
        self.assertEqual(len(self.refs), 184)
        passed = 0
        for name, src in self.refs.items():
            if not all(admitted(m) for m in imports(src)):
                continue
            with self.subTest(reference=name):
                try:
                    check_source(src)
                    passed += 1
                    self.assertNotIn(name, OTHER_RULES, "%s passes now: take it off OTHER_RULES" % name)
                except Refusal as e:
                    self.assertIsNone(IMPORT_REFUSAL.search(e.reason),
                                      "%s: an admitted import refused: %s" % (name, e.reason))
                    self.assertIn(name, OTHER_RULES, "%s refused: %s" % (name, e.reason))
                    self.assertIn(OTHER_RULES[name], e.reason)
        # int4_matmul imports time: the hackathon's own reference passes
        check_source(self.refs["int4_matmul.py"])
        self.assertGreaterEqual(passed, 159)


if __name__ == "__main__":
    unittest.main()
