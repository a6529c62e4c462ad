"""The oracle helper (src/load/sets/kscore_oracle/) over its protocol, on the fixtures of
tests/fixtures/sets/, with the stand-in torch and triton of tests/oracle/fake (so it runs on a
machine without them; the GPU host runs the real sets: tests/gpu/oracle.sh)."""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
FX = os.path.join(ROOT, "tests", "fixtures", "sets")
TB = os.path.join(FX, "tritonbench-g")
SEP = "#" * 146


def start(fake=True):
    paths = ([os.path.join(HERE, "fake")] if fake else []) + [os.path.join(ROOT, "src", "load", "sets"),
                                                               os.path.join(ROOT, "src", "lang", "triton")]
    code = "import sys; sys.path[:0]=%r; from kscore_oracle.main import main; sys.exit(main(['serve']))" % paths
    return subprocess.Popen([sys.executable, "-B", "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL)


class OracleTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.proc = start()
        cls.next_id = 0

    @classmethod
    def tearDownClass(cls):
        cls.proc.stdin.close()
        cls.proc.wait(timeout=30)

    def ask(self, **req):
        OracleTest.next_id += 1
        req.setdefault("id", OracleTest.next_id)
        self.proc.stdin.write((json.dumps(req) + "\n").encode())
        self.proc.stdin.flush()
        return json.loads(self.proc.stdout.readline())

    def tb(self, name, entries, perf=None, **more):
        req = dict(op="cases", format="tritonbench-g", path=os.path.join(TB, "reference", name + ".py"),
                   entries=entries)
        req.update(more)
        if perf:
            req["perf_path"] = os.path.join(TB, "perf", perf)
        return self.ask(**req)

    def tmpdir(self):
        d = tempfile.mkdtemp(prefix="oracle-test-")
        self.addCleanup(shutil.rmtree, d, True)
        return d

    def write_ref(self, name, ref, test):
        d = self.tmpdir()
        path = os.path.join(d, name + ".py")
        with open(path, "w") as f:
            f.write("import torch\nimport triton\n\n@triton.jit\ndef k(x):\n    pass\n\n%s\n%s\n%s\n" % (ref, SEP, test))
        return path

    def test_version(self):
        r = self.ask(op="version")
        self.assertEqual(r["status"], "ok")
        self.assertEqual(r["versions"]["protocol"], 1)
        self.assertIn("torch", r["versions"])

    def test_dict_test_and_perf_script(self):
        r = self.tb("add_dict", ["add"], perf="add_dict_perf.py")
        self.assertEqual(r["status"], "ok", r)
        kinds = [c["kind"] for c in r["cases"]]
        self.assertEqual(kinds, ["correctness"] + ["perf"] * 4)
        c = r["cases"][0]
        self.assertEqual(c["entry"], "add")
        self.assertEqual([a["shape"] for a in c["args"]], [[1000], [1000]])
        self.assertEqual(c["args"][0]["dtype"], "float32")
        self.assertEqual(c["returns"]["kind"], "tensor")
        self.assertEqual(c["writes"], [])
        self.assertEqual(r["cases"][4]["args"][0]["shape"], [2 ** 15])
        self.assertEqual(r["result_gold"]["kind"], "dict")
        self.assertEqual(list(r["result_gold"]["items"]), ["test_case_1"])

    def test_list_test_autograd_alias(self):
        r = self.tb("scale_list", ["scale"])
        self.assertEqual(r["status"], "ok", r)
        self.assertEqual(len(r["cases"]), 2)
        self.assertEqual(r["cases"][1]["args"][1], {"kind": "float", "value": 0.5})
        self.assertEqual(r["result_gold"]["kind"], "list")
        self.assertNotEqual(r["cases"][0]["signature"], r["cases"][1]["signature"])

    def test_in_place_strided_kwargs_and_geak_perf_names(self):
        r = self.tb("update_inplace", ["update_"], perf="update_inplace_perf.py")
        self.assertEqual(r["status"], "ok", r)
        self.assertEqual(r["notes"], [])
        self.assertEqual([c["kind"] for c in r["cases"]], ["correctness"] * 2 + ["perf"] * 3)
        first, second = r["cases"][0], r["cases"][1]
        self.assertEqual(first["writes"], ["a0"])
        self.assertEqual(first["returns"]["kind"], "tuple")
        self.assertEqual(first["returns"]["items"][1], {"kind": "none"})
        self.assertEqual(second["args"][1]["strides"], [1, 4])
        self.assertFalse(second["args"][1]["contiguous"])
        self.assertEqual(second["kwargs"], {"scale": {"kind": "float", "value": 0.5}})
        self.assertEqual(r["cases"][4]["args"][0]["shape"], [32, 8])

    def test_test_code_raises(self):
        r = self.tb("raises", ["neg_"])
        self.assertEqual(r["status"], "error")
        self.assertIn("RuntimeError: feature dim too large", r["reason"])
        self.assertTrue(r["file"].endswith("raises.py"))

    def test_no_test_code(self):
        r = self.tb("no_test", ["run"])
        self.assertEqual(r["status"], "error")
        self.assertIn("no test code", r["reason"])

    def test_return_it_cannot_describe(self):
        r = self.tb("returns_object", ["boxed"])
        self.assertEqual(r["status"], "error")
        self.assertIn("case 0", r["reason"])
        self.assertIn("Box", r["reason"])

    def test_entry_never_called(self):
        r = self.tb("add_dict", ["nothing_here"])
        self.assertEqual(r["status"], "error")
        self.assertIn("never called nothing_here", r["reason"])

    def test_kernelbench(self):
        r = self.ask(op="cases", format="kernelbench", path=os.path.join(FX, "kernelbench", "level1", "1_Scale.py"))
        self.assertEqual(r["status"], "ok", r)
        self.assertEqual(len(r["cases"]), 1)
        self.assertEqual(r["cases"][0]["entry"], "Model")
        self.assertEqual(r["cases"][0]["args"][0]["shape"], [4096])

    def test_materialize_two_folders(self):
        ins, outs = self.tmpdir(), self.tmpdir()
        r = self.tb("update_inplace", ["update_"], op="materialize", seed=7, inputs_dir=ins, outputs_dir=outs)
        self.assertEqual(r["status"], "ok", r)
        self.assertEqual(sorted(os.listdir(ins)), ["c0.a0.bin", "c0.a1.bin", "c1.a0.bin", "c1.a1.bin"])
        self.assertEqual(sorted(os.listdir(outs)), ["c0.a0.bin", "c0.r.0.bin", "c1.a0.bin", "c1.r.0.bin"])
        self.assertEqual(r["cases"][0]["inputs"]["a1"], {"file": "c0.a1.bin", "bytes": 96})
        self.assertEqual(r["bytes_written"], 8 * 96)
        # the state before the first call is zeros, after it holds the first input
        with open(os.path.join(ins, "c0.a0.bin"), "rb") as f:
            self.assertEqual(f.read(), bytes(96))
        with open(os.path.join(ins, "c0.a1.bin"), "rb") as f, open(os.path.join(outs, "c0.a0.bin"), "rb") as g:
            self.assertEqual(f.read(), g.read())
        # a new seed draws new values
        ins2, outs2 = self.tmpdir(), self.tmpdir()
        r2 = self.tb("update_inplace", ["update_"], op="materialize", seed=8, inputs_dir=ins2, outputs_dir=outs2)
        self.assertEqual(r2["status"], "ok", r2)
        with open(os.path.join(ins, "c0.a1.bin"), "rb") as f, open(os.path.join(ins2, "c0.a1.bin"), "rb") as g:
            self.assertNotEqual(f.read(), g.read())

    def test_materialize_refuses_one_folder_and_existing_files(self):
        d = self.tmpdir()
        r = self.tb("add_dict", ["add"], op="materialize", inputs_dir=d, outputs_dir=d)
        self.assertEqual(r["status"], "bad_request")
        self.assertIn("two folders", r["reason"])
        ins, outs = self.tmpdir(), self.tmpdir()
        with open(os.path.join(ins, "c0.a0.bin"), "w") as f:
            f.write("organizer's")
        r = self.tb("add_dict", ["add"], op="materialize", inputs_dir=ins, outputs_dir=outs)
        self.assertEqual(r["status"], "error")
        self.assertIn("File exists", r["reason"])
        with open(os.path.join(ins, "c0.a0.bin")) as f:
            self.assertEqual(f.read(), "organizer's")

    def test_materialize_data_dependent_shapes(self):
        path = self.write_ref("dd", "def grow(x):\n    return x\n",
                              "import random\ndef test_dd():\n    return {'a': grow(torch.rand(random.randint(1, 10**6)))}\n"
                              "result_gold = test_dd()\n")
        ins, outs = self.tmpdir(), self.tmpdir()
        r = self.ask(op="materialize", format="tritonbench-g", path=path, entries=["grow"], seed=3,
                     inputs_dir=ins, outputs_dir=outs)
        self.assertEqual(r["status"], "error")
        self.assertIn("case 0", r["reason"])
        self.assertIn("depend on the data", r["reason"])
        self.assertEqual(os.listdir(ins) + os.listdir(outs), [])  # checked before anything is written
        r = self.ask(op="materialize", format="tritonbench-g", path=path, entries=["grow"], seed=3, cases_seed=3,
                     inputs_dir=ins, outputs_dir=outs)
        self.assertEqual(r["status"], "ok", r)

    def test_a_test_that_fixes_its_seed_gets_fresh_values(self):
        path = self.write_ref("fixed", "def f(x):\n    return x\n",
                              "def test_f():\n    torch.manual_seed(0)\n    return {'a': f(torch.rand(8))}\n"
                              "result_gold = test_f()\n")
        got = []
        for seed in (1, 2, 1):
            ins, outs = self.tmpdir(), self.tmpdir()
            r = self.ask(op="materialize", format="tritonbench-g", path=path, entries=["f"], seed=seed,
                         inputs_dir=ins, outputs_dir=outs)
            self.assertEqual(r["status"], "ok", r)
            with open(os.path.join(ins, "c0.a0.bin"), "rb") as fh:
                got.append(fh.read())
        self.assertNotEqual(got[0], got[1])
        self.assertEqual(got[0], got[2])

    def test_calls_past_the_cap_are_noted(self):
        path = self.write_ref("loop", "def f(x):\n    return x\n",
                              "def test_f():\n    x = torch.rand(2)\n    return [f(x) for _ in range(1030)]\n"
                              "result_gold = test_f()\n")
        r = self.ask(op="cases", format="tritonbench-g", path=path, entries=["f"])
        self.assertEqual(r["status"], "ok", r.get("reason"))
        self.assertEqual(len(r["cases"]), 1024)
        self.assertIn("6 calls past the first 1024 were not recorded", r["notes"])

    def test_timeout_and_exit(self):
        slow = self.write_ref("slow", "def f(x):\n    return x\n", "import time\ntime.sleep(30)\nresult_gold = f(1)\n")
        r = self.ask(op="cases", format="tritonbench-g", path=slow, entries=["f"], timeout_s=1)
        self.assertEqual(r["status"], "timeout")
        gone = self.write_ref("gone", "def f(x):\n    return x\n", "import os\nos._exit(3)\n")
        r = self.ask(op="cases", format="tritonbench-g", path=gone, entries=["f"])
        self.assertEqual(r["status"], "error")
        self.assertIn("without a reply", r["reason"])
        # the server still answers
        self.assertEqual(self.ask(op="version")["status"], "ok")

    def test_bad_requests(self):
        for req, word in ((dict(op="nope"), "op"), (dict(op="cases", format="x", path="/p"), "format"),
                          (dict(op="cases", format="kernelbench", path=""), "path"),
                          (dict(op="cases", format="kernelbench", path="/p", entries=["a b"]), "entries"),
                          (dict(op="cases", format="kernelbench", path="/p", seed=-1), "seed")):
            r = self.ask(**req)
            self.assertEqual(r["status"], "bad_request", req)
            self.assertIn(word, r["reason"])

    def test_unreadable_file(self):
        r = self.ask(op="cases", format="kernelbench", path="/nonexistent/1_X.py")
        self.assertEqual(r["status"], "error")
        self.assertIn("1_X.py", r["file"])


if __name__ == "__main__":
    unittest.main()
