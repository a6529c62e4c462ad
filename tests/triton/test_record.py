"""From what a call did to the case's buffers and steps, and the comparison of the two calls,
driven with fake storage addresses (no torch needed)."""

import unittest

import common  # noqa: F401
from kscore_triton import limits
from kscore_triton.record import Recording, Region, TraceStop, compare, dense, finalize

X, Y, S1, S2, OTHER = 0x1000, 0x2000, 0x3000, 0x4000, 0x9000
NULLS = [("null", "global_scratch"), ("null", "profile_scratch")]
CASE = [("x", "input"), ("y", "output")]


def launch(rec, *args, grid=(4, 1, 1), kernel="k1"):
    rec.launch(kernel, grid, (128, 1, 1), 0, list(args) + NULLS)


class Finalize(unittest.TestCase):
    def test_returned_output_and_scratch_names(self):
        rec = Recording({X: ("x", "input")})
        rec.alloc(S1, 4096)
        rec.alloc(S2, 64)
        rec.alloc(Y, 400)
        rec.fill(S2, 0, 64, "f32", 0)
        launch(rec, ("ptr", X, 0, "x_ptr"), ("ptr", S2, 16, "tmp"), ("ptr", Y, 0, "out"), ("scalar", "i32", 100))
        buffers, steps = finalize(rec, CASE, returned=(Y, "y"))
        self.assertEqual(buffers, [{"name": "x", "kind": "input"}, {"name": "y", "kind": "output"},
                                   {"name": "s0", "kind": "scratch", "bytes": 64}])
        self.assertEqual(steps[0], {"op": "fill", "buffer": "s0", "offset": 0, "bytes": 64, "dtype": "f32",
                                    "value": 0})
        self.assertEqual(steps[1]["args"], [{"buffer": "x", "offset": 0}, {"buffer": "s0", "offset": 16},
                                            {"buffer": "y", "offset": 0}, {"type": "i32", "value": 100},
                                            {"null": "global_scratch"}, {"null": "profile_scratch"}])
        self.assertNotIn("s1", [b["name"] for b in buffers])  # S1 was never used

    def test_launch_scratch_buffers(self):
        rec = Recording({X: ("x", "input"), Y: ("y", "output")})
        rec.launch("k", (2, 1, 1), (64, 1, 1), 0, [("ptr", X, 0, "x"), ("scratch", "g", 2 * 256), ("null", "profile_scratch")])
        buffers, steps = finalize(rec, CASE)
        self.assertEqual(buffers[-1], {"name": "g0", "kind": "scratch", "bytes": 512})
        self.assertEqual(steps[0]["args"][1], {"buffer": "g0", "offset": 0})

    def test_copy_regions(self):
        rec = Recording({X: ("x", "input")})
        rec.alloc(Y, 64)
        rec.copy("f32", Region(Y, 32, [2, 4], [8, 1]), Region(X, 32, [2, 4], [8, 1]))
        rec.copy("f32", Region(Y, 0, [0, 4], [8, 1]), Region(X, 0, [0, 4], [8, 1]))  # empty: dropped
        _, steps = finalize(rec, CASE, returned=(Y, "y"))
        self.assertEqual(steps, [{"op": "copy", "dtype": "f32",
                                  "dst": {"buffer": "y", "offset": 32, "sizes": [2, 4], "strides": [8, 1]},
                                  "src": {"buffer": "x", "offset": 32, "sizes": [2, 4], "strides": [8, 1]}}])

    def test_unknown_memory_is_named_in_the_reason(self):
        rec = Recording({X: ("x", "input")})
        launch(rec, ("ptr", OTHER, 0, "cache_ptr"))
        with self.assertRaises(ValueError) as e:
            finalize(rec, CASE)
        self.assertIn("cache_ptr", str(e.exception))
        self.assertIn("did not allocate in this call", str(e.exception))

    def test_values_are_json_safe(self):
        rec = Recording({X: ("x", "input")})
        rec.fill(X, 0, 4, "f32", float("-inf"))
        launch(rec, ("scalar", "fp32", float("nan")), ("scalar", "i64", 1 << 60))
        _, steps = finalize(rec, CASE)
        self.assertEqual(steps[0]["value"], "-inf")
        self.assertEqual([a.get("value") for a in steps[1]["args"][:2]], ["nan", str(1 << 60)])

    def test_made_by_entry_storage_becomes_the_input(self):
        rec = Recording({})
        rec.alloc(X, 128)
        rec.name_storage(X, "matrix", "input")
        launch(rec, ("ptr", X, 0, "in_ptr"))
        buffers, steps = finalize(rec, [("matrix", "input"), ("out", "output")])
        self.assertEqual([b["name"] for b in buffers], ["matrix", "out"])
        self.assertEqual(steps[0]["args"][0]["buffer"], "matrix")


class Dense(unittest.TestCase):
    def test_dense_views(self):
        self.assertTrue(dense([4, 8], [8, 1]))
        self.assertTrue(dense([8, 4], [1, 8]))  # a transposed whole tensor
        self.assertTrue(dense([1, 5], [99, 1]))  # size-1 dimensions do not matter
        self.assertTrue(dense([], []))

    def test_strided_views(self):
        self.assertFalse(dense([4, 4], [8, 1]))  # every other row block: the rotary tail
        self.assertFalse(dense([4], [2]))
        self.assertFalse(dense([2, 2], [1, 1]))  # overlapping
        self.assertFalse(dense([3], [0]))  # broadcast


class Failures(unittest.TestCase):
    def test_first_failure_sticks(self):
        rec = Recording({})
        with self.assertRaises(TraceStop):
            rec.fail("host_op", "first", 3)
        with self.assertRaises(TraceStop):
            rec.fail("untraceable", "second")
        self.assertEqual(rec.failure, ("host_op", "first", 3))

    def test_trace_stop_is_not_an_exception(self):
        self.assertFalse(issubclass(TraceStop, Exception))

    def test_step_cap(self):
        rec = Recording({X: ("x", "input")})
        with self.assertRaises(TraceStop):
            for _ in range(limits.MAX_STEPS + 1):
                rec.fill(X, 0, 4, "f32", 0)
        self.assertEqual(rec.failure[0], "untraceable")
        self.assertEqual(len(rec.steps), limits.MAX_STEPS)


class Compare(unittest.TestCase):
    def call(self, n_launches, grid=(4, 1, 1), kernel="k1", fills=0):
        rec = Recording({X: ("x", "input")})
        rec.alloc(Y, 400)
        for _ in range(fills):
            rec.fill(Y, 0, 400, "f32", 0)
        for _ in range(n_launches):
            launch(rec, ("ptr", X, 0, "x"), ("ptr", Y, 0, "y"), grid=grid, kernel=kernel)
        return finalize(rec, CASE, returned=(Y, "y"))

    def test_same(self):
        self.assertIsNone(compare(self.call(2), self.call(2)))

    def test_fills_of_the_first_call_do_not_count(self):
        self.assertIsNone(compare(self.call(1, fills=1), self.call(1)))

    def test_differences(self):
        self.assertEqual(compare(self.call(1), self.call(0)), "the first call launched 1 kernel, the second 0")
        self.assertEqual(compare(self.call(2), self.call(1)), "the first call launched 2 kernels, the second 1")
        self.assertIn("(grid)", compare(self.call(1), self.call(1, grid=(8, 1, 1))))
        self.assertIn("(kernel)", compare(self.call(1), self.call(1, kernel="k2")))


if __name__ == "__main__":
    unittest.main()
