"""Requests: what parses, what is refused as a bad request and why; text and number encoding."""

import json
import unittest

import common
from kscore_triton import limits
from kscore_triton.protocol import BadRequest, clean_text, encode, json_number, parse_request


def sin_request():
    return common.fixture_json("sin_kernel.request.json")


def bad(obj):
    line = obj if isinstance(obj, (str, bytes)) else json.dumps(obj)
    try:
        parse_request(line)
    except BadRequest as e:
        return e
    return None


class Parse(unittest.TestCase):
    def test_fixture_requests_parse(self):
        for name in ("sin_kernel", "rotary_transform", "matrix_transpose", "embedding_triton_kernel"):
            with self.subTest(name=name):
                req = parse_request(common.fixture_text(name + ".request.json"))
                self.assertEqual(req.op, "trace")
                self.assertTrue(req.cases)

    def test_trace_fields(self):
        req = parse_request(json.dumps(sin_request()))
        self.assertEqual((req.id, req.device, req.problem, req.timeout_s), (1, 0, "sin_kernel", 120.0))
        self.assertEqual(req.entry.name, "call_kernel")
        self.assertEqual(req.entry.args, [("name", "x")])
        self.assertEqual(req.entry.returns, "y")
        case = req.cases[0]
        self.assertEqual(case.tensor("x").dist, ("uniform", -6.3, 6.3))
        self.assertEqual(case.scalars["n"], ("i32", 1))

    def test_dist_names_of_problem_json_are_accepted(self):
        r = sin_request()
        r["cases"][0]["tensors"][0]["dist"] = {"kind": "normal", "mean": 1, "std": 2}
        self.assertEqual(parse_request(json.dumps(r)).cases[0].tensor("x").dist, ("normal", 1, 2))
        r["cases"][0]["tensors"][0]["dist"] = {"kind": "int", "lo": 0, "hi": 9}
        self.assertEqual(parse_request(json.dumps(r)).cases[0].tensor("x").dist, ("int", 0, 9))

    def test_defaults(self):
        r = sin_request()
        del r["cases"][0]["tensors"][0]["dist"], r["timeout_s"], r["device"]
        req = parse_request(json.dumps(r))
        self.assertEqual(req.cases[0].tensor("x").dist, ("normal", 0.0, 1.0))
        self.assertEqual((req.device, req.timeout_s), (0, limits.DEFAULT_TIMEOUT_S))

    def test_optional_fields_may_be_null(self):
        r = sin_request()
        r["cases"][0]["label"] = None
        r["cases"][0]["tensors"][0]["dist"] = None
        r["entry"]["kwargs"] = None
        r["entry"]["made_by_entry"] = None
        req = parse_request(json.dumps(r))
        self.assertEqual(req.cases[0].label, "")
        self.assertEqual(req.cases[0].tensor("x").dist, ("normal", 0.0, 1.0))
        self.assertEqual((req.entry.kwargs, req.entry.made_by_entry), ({}, []))

    def test_other_ops(self):
        self.assertEqual(parse_request('{"op":"check","id":"a","source":"x = 1"}').id, "a")
        self.assertEqual(parse_request('{"op":"quit"}').op, "quit")
        self.assertEqual(parse_request('{"op":"version","id":7}').id, 7)


class BadRequests(unittest.TestCase):
    def expect(self, mutate, words, req_id=1):
        r = sin_request()
        mutate(r)
        e = bad(r)
        self.assertIsNotNone(e, "accepted")
        self.assertEqual(e.id, req_id)
        for w in words:
            self.assertIn(w, e.reason)

    def test_not_json_or_not_an_object(self):
        self.assertIn("not JSON", bad("{").reason)
        self.assertIn("not a JSON object", bad("[1]").reason)
        self.assertIn("unknown op", bad('{"op":"rm"}').reason)
        self.assertIsNone(bad('{"op":"rm"}').id)
        self.assertIn("over", bad(b"{" + b" " * limits.MAX_REQUEST_LINE + b"}").reason)

    def test_fields(self):
        self.expect(lambda r: r.pop("source"), ['missing "source"'])
        self.expect(lambda r: r.update(source=7), ['"source" has the wrong type'])
        self.expect(lambda r: r.update(device=-1), ["device"])
        self.expect(lambda r: r.update(device=True), ["device"])
        self.expect(lambda r: r.update(timeout_s=0), ["timeout_s"])
        self.expect(lambda r: r.update(timeout_s=limits.MAX_TIMEOUT_S + 1), ["timeout_s"])
        self.expect(lambda r: r.update(cases=[]), ["cases"])
        self.expect(lambda r: r["entry"].update(name="not an identifier"), ["identifier"])
        self.expect(lambda r: r["entry"].update(args=[{"const": [1]}]), ["const"])
        self.expect(lambda r: r["entry"].update(args=["nope"]), ["'nope'"])
        self.expect(lambda r: r["entry"].update(returns="x"), ["returns"])
        self.expect(lambda r: r["entry"].update(made_by_entry=["y"]), ["made_by_entry"])
        self.expect(lambda r: r["entry"].update(made_by_entry=["x"]), ["made by the entry"])

    def test_case_fields(self):
        def tensor(key, value):
            return lambda r: r["cases"][0]["tensors"][0].update({key: value})
        self.expect(tensor("dtype", "f8"), ["unknown dtype"])
        self.expect(tensor("shape", [-1]), ["shape"])
        self.expect(tensor("shape", [1] * (limits.MAX_RANK + 1)), ["dimensions"])
        self.expect(tensor("shape", [1 << 20, 1 << 20]), ["elements"])
        self.expect(tensor("role", "scratch"), ["role"])
        self.expect(tensor("dist", {"kind": "gamma"}), ["dist kind"])
        self.expect(tensor("dist", {"kind": "int", "a": 5, "b": 1}), ["lo <= hi"])
        self.expect(tensor("dist", {"kind": "normal", "a": 0, "b": float("inf")}), ["finite"])
        self.expect(tensor("name", "y"), ["distinct"])
        self.expect(lambda r: r["cases"][0]["scalars"][0].update(value=1 << 40), ["value"])
        self.expect(lambda r: r["cases"][0]["scalars"][0].update(type="f16"), ["scalar type"])
        self.expect(lambda r: r["cases"][0].update(index=-1), ["index"])

    def test_source_cap(self):
        self.expect(lambda r: r.update(source="#" * (limits.MAX_SOURCE + 1)), ["limit"])


class Encoding(unittest.TestCase):
    def test_clean_text(self):
        self.assertEqual(clean_text("a\x00b", 10), "ab")
        self.assertEqual(clean_text("\ud800x", 10), "?x")
        cut = clean_text("é" * 5000, 100)
        self.assertLessEqual(len(cut.encode()), 100)
        self.assertIn("truncated", cut)

    def test_numbers(self):
        self.assertEqual(json_number(3), 3)
        self.assertEqual(json_number(True), 1)
        self.assertEqual(json_number((1 << 53) + 1), str((1 << 53) + 1))
        self.assertEqual([json_number(float(v)) for v in ("nan", "inf", "-inf")], ["nan", "inf", "-inf"])
        self.assertEqual(json_number(1e-6), 1e-6)

    def test_encode_is_one_line_of_utf8(self):
        line = encode({"a": "x\ny", "b": "é"})
        self.assertTrue(line.endswith(b"\n") and line.count(b"\n") == 1)
        self.assertEqual(json.loads(line)["b"], "é")
        with self.assertRaises(ValueError):
            encode({"a": float("nan")})


if __name__ == "__main__":
    unittest.main()
