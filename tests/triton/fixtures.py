"""The recorded Triton fixtures: which answer, which problem, which entry, which cases.

tests/fixtures/triton/<name>.py is an answer (written for kscore's tests), <name>.request.json
the trace request kscore would send for it (the cases are small ones taken from
reference_tests/hackathon/<problem>/problem.json by hand), and <name>.response.json the response
the helper gave on the GPU host (Python 3.12, torch 2.11, Triton 3.6, H100), cubins included.

    python3 tests/triton/fixtures.py requests        # rewrite every request file
    python3 tests/triton/fixtures.py record OUTDIR   # run every request through a real helper

`record` needs torch, triton and a GPU; it writes <name>.response.json files to OUTDIR and a
timing summary to OUTDIR/record.log. `expected_status(name)` is what each fixture must answer.
"""

import json
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIXTURES = os.path.join(ROOT, "tests", "fixtures", "triton")
HELPER = os.path.join(ROOT, "src", "lang", "triton", "kscore-triton")


def t(name, dtype, shape, role, dist=None):
    out = {"name": name, "dtype": dtype, "shape": shape, "role": role}
    if dist is not None:
        out["dist"] = dist
    return out


def normal(mean=0, std=1):
    return {"kind": "normal", "a": mean, "b": std}


def uniform(lo, hi):
    return {"kind": "uniform", "a": lo, "b": hi}


def integers(lo, hi):
    return {"kind": "int", "a": lo, "b": hi}


def i32(name, value):
    return {"name": name, "type": "i32", "value": value}


def case(index, label, tensors, scalars):
    return {"index": index, "label": label, "perf": False, "tensors": tensors, "scalars": scalars}


def sin_cases(sizes):
    return [case(i, "n = %d" % n, [t("x", "f32", [n], "in", uniform(-6.3, 6.3)), t("y", "f32", [n], "out")],
                 [i32("n", n)]) for i, n in enumerate(sizes)]


def mv_cases():
    return [case(i, "%d x %d" % (n, m),
                 [t("A", "f32", [n, m], "in", normal()), t("B", "f32", [m], "in", normal()), t("C", "f32", [n], "out")],
                 [i32("N", n), i32("M", m)]) for i, (n, m) in enumerate([(1, 1), (127, 33), (9, 4096)])]


def matmul_cases():
    return [case(i, "%d x %d x %d" % (m, n, k),
                 [t("a", "f16", [m, k], "in", normal()), t("b", "f16", [k, n], "in", normal()),
                  t("c", "f16", [m, n], "out")],
                 [i32("M", m), i32("N", n), i32("K", k)])
            for i, (m, n, k) in enumerate([(127, 33, 65), (128, 256, 64)])]


def rotary_cases():
    shapes = [(1, 1, 1, 2, 2, 1, 0), (2, 16, 3, 64, 32, 20, 0), (3, 7, 2, 10, 6, 12, 3)]
    out = []
    for i, (b, s, h, d, r, ro, off) in enumerate(shapes):
        out.append(case(i, "batch %d seqlen %d heads %d headdim %d rotary %d" % (b, s, h, d, r),
                        [t("out", "f32", [b, s, h, d], "out"), t("x", "f32", [b, s, h, d], "in", normal()),
                         t("cos", "f32", [ro, r // 2], "in", uniform(-1, 1)),
                         t("sin", "f32", [ro, r // 2], "in", uniform(-1, 1))],
                        [i32("seqlen_offset", off), i32("batch", b), i32("seqlen", s), i32("nheads", h),
                         i32("headdim", d), i32("rotary_dim", r), i32("seqlen_ro", ro)]))
    return out


def l2_cases():
    return [case(i, "%d x %d" % (r, c), [t("x", "f32", [r, c], "in", normal()), t("y", "f32", [r, c], "out")],
                 [i32("rows", r), i32("cols", c), {"name": "eps", "type": "f32", "value": 1e-6}])
            for i, (r, c) in enumerate([(1, 1), (3, 4097), (127, 33)])]


def transpose_cases():
    return [case(i, "%d x %d" % (m, n), [t("matrix", "f16", [m, n], "in", normal()), t("out", "f16", [n, m], "out")],
                 [i32("m", m), i32("n", n)]) for i, (m, n) in enumerate([(1, 1), (127, 33), (64, 64)])]


def embedding_cases():
    shapes = [(1, 1, 1, 0, 0), (127, 1000, 33, 0, 999), (64, 600, 256, 200, 999)]
    return [case(i, "seq %d vocab %d hidden %d shard from %d" % (s, v, h, vs),
                 [t("weight", "f16", [v, h], "in", normal()), t("input_ids", "i32", [s], "in", integers(0, idmax)),
                  t("out", "f16", [s, h], "out")],
                 [i32("vob_start_id", vs), i32("vob_end_id", vs + v), i32("n_ctx", s), i32("hidden_size", h)])
            for i, (s, v, h, vs, idmax) in enumerate(shapes)]


def entry(name, args, returns, kwargs=None, made=None):
    return {"name": name, "args": args, "kwargs": kwargs or {}, "returns": returns, "made_by_entry": made or []}


SIN_ENTRY = entry("call_kernel", ["x"], "y")

# name -> (problem, entry, cases, expected status)
FIXTURES_TABLE = {
    "sin_kernel": ("sin_kernel", SIN_ENTRY, sin_cases([1, 1000, 4097]), "ok"),
    "matrix_vector_multip": ("matrix_vector_multip", entry("mv", ["A", "B"], "C"), mv_cases(), "ok"),
    "triton_matmul": ("triton_matmul", entry("matmul", ["a", "b"], "c"), matmul_cases(), "ok"),
    "rotary_transform": ("rotary_transform",
                         entry("apply_rotary", ["x", "cos", "sin"], "out", kwargs={"seqlen_offsets": "seqlen_offset"}),
                         rotary_cases(), "ok"),
    "l2_norm_triton1": ("l2_norm_triton1", entry("_l2_norm_fwd", ["x"], "y", kwargs={"eps": "eps"}), l2_cases(), "ok"),
    "matrix_transpose": ("matrix_transpose", entry("wrapper", ["m", "n"], "out", made=["matrix"]),
                         transpose_cases(), "ok"),
    "embedding_triton_kernel": ("embedding_triton_kernel",
                                entry("embedding", ["input_ids", "weight", "vob_start_id", "vob_end_id", "out"], None),
                                embedding_cases(), "ok"),
    "attack_torch_fallback": ("sin_kernel", SIN_ENTRY, sin_cases([1000, 4097]), "host_op"),
    "attack_forbidden_import": ("sin_kernel", SIN_ENTRY, sin_cases([1000]), "refused"),
    "attack_toplevel_call": ("sin_kernel", SIN_ENTRY, sin_cases([1000]), "refused"),
    "attack_result_cache": ("sin_kernel", SIN_ENTRY, sin_cases([1000, 4097]), "untraceable"),
    "attack_skip_after_first": ("sin_kernel", SIN_ENTRY, sin_cases([1000, 4097]), "untraceable"),
    "attack_other_stream": ("sin_kernel", SIN_ENTRY, sin_cases([1000]), "refused"),
    # the helper traces it; kscore refuses it (host_op: the output is written by a copy step alone).
    # Its response was made from matrix_transpose's recording (the launch moved onto a scratch
    # element, the fill and the copy added) without a GPU; `record` replaces it with a real one.
    "attack_copy_transpose": ("matrix_transpose", entry("wrapper", ["m", "n"], "out", made=["matrix"]),
                              transpose_cases(), "ok"),
}


def names():
    return list(FIXTURES_TABLE)


def expected_status(name):
    return FIXTURES_TABLE[name][3]


def source(name):
    with open(os.path.join(FIXTURES, name + ".py"), encoding="utf-8") as f:
        return f.read()


def request(name, req_id=1, device=0):
    problem, ent, cases, _ = FIXTURES_TABLE[name]
    return {"op": "trace", "id": req_id, "device": device, "source": source(name), "problem": problem,
            "timeout_s": 120, "entry": ent, "cases": cases}


def write_requests():
    for name in names():
        with open(os.path.join(FIXTURES, name + ".request.json"), "w", encoding="utf-8") as f:
            json.dump(request(name), f, indent=1)
            f.write("\n")


def record(outdir, python=sys.executable):
    """Sends every request to one helper and writes each response; returns the log lines."""
    os.makedirs(outdir, exist_ok=True)
    t0 = time.monotonic()
    env = {"PATH": "/usr/bin:/bin", "HOME": outdir, "TMPDIR": outdir}
    for name in filter(None, os.environ.get("KT_PASS_ENV", "").split(",")):
        if name in os.environ:
            env[name] = os.environ[name]
    proc = subprocess.Popen([python, "-I", HELPER, "serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
    log = []
    for name in names():
        t1 = time.monotonic()
        proc.stdin.write((json.dumps(request(name)) + "\n").encode())
        proc.stdin.flush()
        line = proc.stdout.readline()
        obj = json.loads(line)
        with open(os.path.join(outdir, name + ".response.json"), "w", encoding="utf-8") as f:
            json.dump(obj, f, indent=1)
            f.write("\n")
        log.append("%-26s %-12s expected %-12s %.2f s %s" % (name, obj.get("status"), expected_status(name),
                                                           time.monotonic() - t1, obj.get("reason", "")[:300]))
    proc.stdin.close()
    proc.wait(timeout=60)
    log.append("total %.2f s" % (time.monotonic() - t0))
    return log


if __name__ == "__main__":
    if sys.argv[1:] == ["requests"]:
        write_requests()
    elif len(sys.argv) == 3 and sys.argv[1] == "record":
        lines = record(sys.argv[2])
        with open(os.path.join(sys.argv[2], "record.log"), "w") as f:
            f.write("\n".join(lines) + "\n")
        print("\n".join(lines))
    else:
        sys.stderr.write(__doc__)
        sys.exit(2)
