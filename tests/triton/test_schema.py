"""The response schema the server holds children's replies to, and the recorded fixtures."""

import base64
import copy
import hashlib
import json
import os
import random
import unittest

import common
import fixtures
from kscore_triton.schema import check_reply
from kscore_triton.server import parse_reply

CUBIN = b"\x7fELF" + b"\x00" * 60


def reply():
    return {
        "status": "ok", "confinement": {"landlock": True, "seccomp": True}, "stdout": "", "stderr": "",
        "kernels": [{"sha256": hashlib.sha256(CUBIN).hexdigest(), "name": "k", "cubin": base64.b64encode(CUBIN).decode(),
                     "num_warps": 4, "num_ctas": 1, "shared": 0, "cluster_dims": [1, 1, 1],
                     "global_scratch_size": 0, "global_scratch_align": 1, "profile_scratch_size": 0,
                     "profile_scratch_align": 1, "cooperative": False, "pdl": False,
                     "params": ["*fp32", "*fp32", "i32"]}],
        "cases": [{"index": 0, "notes": [],
                   "buffers": [{"name": "x", "kind": "input"}, {"name": "y", "kind": "output"},
                               {"name": "s0", "kind": "scratch", "bytes": 64}],
                   "steps": [{"op": "fill", "buffer": "s0", "offset": 0, "bytes": 64, "dtype": "f32", "value": 0},
                             {"op": "launch", "kernel": 0, "grid": [4, 1, 1], "block": [128, 1, 1], "shared": 0,
                              "args": [{"buffer": "x", "offset": 0}, {"buffer": "y", "offset": 0},
                                       {"type": "i32", "value": 100}, {"null": "global_scratch"},
                                       {"null": "profile_scratch"}]},
                             {"op": "copy", "dtype": "f32",
                              "dst": {"buffer": "y", "offset": 0, "sizes": [2, 2], "strides": [4, 1]},
                              "src": {"buffer": "x", "offset": 8, "sizes": [2, 2], "strides": [4, 1]}}]}]}


class Synthetic(unittest.TestCase):
    def test_well_formed(self):
        self.assertIsNone(check_reply(reply()))
        self.assertIsNone(check_reply({"status": "timeout", "reason": "late"}))

    def test_each_defect_is_caught(self):
        def k(r):
            return r["kernels"][0]

        def launch(r):
            return r["cases"][0]["steps"][1]
        defects = [
            lambda r: r.update(status="fine"),
            lambda r: k(r).update(cubin="!!"),
            lambda r: k(r).update(cubin=base64.b64encode(b"MZ" + CUBIN).decode()),
            lambda r: k(r).update(sha256="0" * 64),
            lambda r: k(r).update(num_warps=0),
            lambda r: r["kernels"].append(copy.deepcopy(k(r))),
            lambda r: launch(r).update(kernel=1),
            lambda r: launch(r).update(grid=[0, 1, 1]),
            lambda r: launch(r).update(grid=[1, 70000, 1]),
            lambda r: launch(r).update(block=[256, 1, 1]),
            lambda r: launch(r)["args"].pop(),
            lambda r: launch(r)["args"][0].update(buffer="nope"),
            lambda r: launch(r)["args"][0].update(offset=-4),
            lambda r: launch(r)["args"][2].update(type="fp32"),
            lambda r: launch(r)["args"][3].update(null="profile_scratch"),
            lambda r: r["cases"][0]["steps"][0].update(bytes=0),
            lambda r: r["cases"][0]["steps"][0].update(dtype="f8"),
            lambda r: r["cases"][0]["steps"][2]["src"].update(sizes=[2, 3]),
            lambda r: r["cases"][0]["buffers"].append({"name": "x", "kind": "input"}),
            lambda r: r["cases"][0]["buffers"][2].pop("bytes"),
            lambda r: r.update(cases=[]),
            lambda r: r.update(stdout="x" * 10000),
            lambda r: r.update(confinement={"landlock": "yes"}),
        ]
        for i, defect in enumerate(defects):
            with self.subTest(defect=i):
                r = reply()
                defect(r)
                self.assertIsNotNone(check_reply(r))


def recorded(name):
    path = os.path.join(common.FIXTURES, name + ".response.json")
    with open(path, encoding="utf-8") as f:
        return json.load(f)


class RecordedFixtures(unittest.TestCase):
    """Every fixture request has a response recorded on the GPU host, in the final format."""

    def test_every_response_is_well_formed_and_as_expected(self):
        for name in fixtures.names():
            with self.subTest(name=name):
                got = recorded(name)
                self.assertIsNone(check_reply(got))
                self.assertEqual(got["status"], fixtures.expected_status(name), got.get("reason"))
                self.assertEqual(got["id"], 1)

    def test_requests_carry_the_answer_files(self):
        for name in fixtures.names():
            with self.subTest(name=name):
                self.assertEqual(common.fixture_json(name + ".request.json"), fixtures.request(name))

    def test_ok_responses_trace_every_case_and_confine(self):
        for name in fixtures.names():
            got = recorded(name)
            if got["status"] != "ok":
                continue
            with self.subTest(name=name):
                req = fixtures.request(name)
                self.assertEqual([c["index"] for c in got["cases"]], [c["index"] for c in req["cases"]])
                self.assertEqual(got["confinement"]["landlock"], True)
                self.assertEqual(got["confinement"]["seccomp"], True)
                for case in got["cases"]:
                    self.assertTrue(any(s["op"] == "launch" for s in case["steps"]))

    def test_the_rotary_tail_is_a_copy_step(self):
        got = recorded("rotary_transform")
        copies = [s for s in got["cases"][1]["steps"] if s["op"] == "copy"]
        self.assertEqual(len(copies), 1)
        self.assertEqual((copies[0]["dst"]["buffer"], copies[0]["src"]["buffer"]), ("out", "x"))
        self.assertEqual(copies[0]["dst"]["offset"], 32 * 4)  # rotary_dim 32 floats into each row
        self.assertFalse([s for s in got["cases"][0]["steps"] if s["op"] == "copy"])  # rotary_dim == headdim

    def test_made_by_entry_input_is_the_kernels_source(self):
        got = recorded("matrix_transpose")
        launch = [s for s in got["cases"][1]["steps"] if s["op"] == "launch"][0]
        self.assertEqual([a.get("buffer") for a in launch["args"][:2]], ["matrix", "out"])

    def test_integer_one_is_specialised_away(self):
        got = recorded("sin_kernel")
        params = [got["kernels"][s["kernel"]]["params"] for c in got["cases"] for s in c["steps"] if s["op"] == "launch"]
        self.assertEqual(params[0], ["*fp32", "*fp32"])  # n == 1 is a constexpr
        self.assertEqual(params[1], ["*fp32", "*fp32", "i32"])

    def test_attacks_fail_with_their_reason(self):
        self.assertIn("aten.sin", recorded("attack_torch_fallback")["reason"])
        self.assertEqual(recorded("attack_torch_fallback")["line"], 17)
        self.assertIn("did not allocate in this call", recorded("attack_result_cache")["reason"])
        self.assertIn("the first call launched 1 kernel, the second 0", recorded("attack_skip_after_first")["reason"])
        self.assertIn("torch.cuda.Stream", recorded("attack_other_stream")["reason"])

    def test_the_answers_prints_are_captured(self):
        self.assertIn("mv: n=127 m=33", recorded("matrix_vector_multip")["stdout"])



# values a mutation puts anywhere: every JSON type, the shapes the checks index into, names the
# checks look up
ODD_VALUES = [None, True, False, 0, -1, 1 << 70, 1.5, float("1e308"), "", "x", "nan", "*fp32", "null",
              "input", "scratch", "f32", [], [[]], {}, {"null": "global_scratch"}, {"buffer": []},
              {"buffer": {}}, {"buffer": "x", "offset": 0}, [1, 2, 3], ["a"], {"sizes": 1}]


def _random_value(rng, depth=0):
    if depth > 3 or rng.random() < 0.5:
        return copy.deepcopy(rng.choice(ODD_VALUES))
    if rng.random() < 0.5:
        return [_random_value(rng, depth + 1) for _ in range(rng.randrange(4))]
    keys = ["status", "kernels", "cases", "buffer", "op", "args", "null", "name", "kind", "steps", "x"]
    return {rng.choice(keys): _random_value(rng, depth + 1) for _ in range(rng.randrange(4))}


def _containers(v, out):
    if isinstance(v, (dict, list)):
        out.append(v)
        for x in (v.values() if isinstance(v, dict) else v):
            _containers(x, out)
    return out


def mutate(obj, rng):
    """obj with one to four random changes: a value replaced, a key dropped or added, an item added."""
    obj = copy.deepcopy(obj)
    for _ in range(rng.randint(1, 4)):
        target = rng.choice(_containers(obj, []))
        if isinstance(target, dict):
            if target and rng.random() < 0.7:
                key = rng.choice(list(target))
                if rng.random() < 0.2:
                    del target[key]
                else:
                    target[key] = _random_value(rng)
            else:
                target[rng.choice(["x", "null", "buffer", "kind"])] = _random_value(rng)
        elif target and rng.random() < 0.7:
            target[rng.randrange(len(target))] = _random_value(rng)
        else:
            target.append(_random_value(rng))
    return obj


class Total(unittest.TestCase):
    """The check is a total function: random and mutated replies give None or a problem, never an
    exception (a TypeError or RecursionError here once killed the server: the answer was not_run)."""

    def test_mutated_replies(self):
        rng = random.Random(34)
        seeds = [reply()] + [common.fixture_json(n) for n in sorted(os.listdir(common.FIXTURES))
                             if n.endswith(".response.json")]
        for i in range(1500):
            obj = mutate(rng.choice(seeds), rng)
            problem = check_reply(obj)
            self.assertTrue(problem is None or isinstance(problem, str), (i, problem))

    def test_random_replies(self):
        rng = random.Random(35)
        for _ in range(1000):
            obj = _random_value(rng)
            if isinstance(obj, dict) and rng.random() < 0.5:
                obj["status"] = "ok"
            self.assertIsInstance(check_reply(obj), str)

    def test_shapes_that_once_raised(self):
        r = reply()
        r["cases"][0]["steps"][1]["args"][0] = {"buffer": [], "offset": 0}
        self.assertIn("names no buffer", check_reply(r))
        r = reply()
        r["cases"][0]["steps"][1]["args"][3] = 7
        self.assertIn("global_scratch", check_reply(r))
        r = reply()
        r["cases"][0]["steps"][0]["dtype"] = ["f32"]
        self.assertIn("dtype", check_reply(r))

    def test_deep_and_foreign_replies(self):
        for data in (b"[" * 100000, b'{"status": "error", "reason": "x", "x": ' + b"[" * 100000,
                     b'{"status": "error", "reason": "x", "notes": ' + b"[" * 500 + b"]" * 500 + b"}",
                     b'{"status": "error", "reason": "x", "extra": 1}', b"\xff\xfe", b"{" * 3 + b"\x00"):
            obj, problem = parse_reply(data)
            self.assertIsNone(obj)
            self.assertIsInstance(problem, str)
        obj, problem = parse_reply(json.dumps({"status": "error", "reason": "r", "stdout": ""}).encode())
        self.assertEqual((obj["status"], problem), ("error", None))

    def test_mutated_bytes(self):
        rng = random.Random(36)
        seed = json.dumps(reply()).encode()
        for _ in range(1000):
            data = bytearray(seed)
            for _ in range(rng.randint(1, 8)):
                op, at = rng.random(), rng.randrange(len(data))
                if op < 0.4:
                    data[at] = rng.choice(b'[]{}",:0a\\')
                elif op < 0.7:
                    del data[at:at + rng.randrange(1, 16)]
                else:
                    data[at:at] = rng.choice([b"[" * 2000, b'{"a":' * 50, b"null", b'"\\u0000"'])
            obj, problem = parse_reply(bytes(data))
            self.assertTrue((obj is None) != (problem is None))


if __name__ == "__main__":
    unittest.main()
