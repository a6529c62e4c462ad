#!/usr/bin/env python3
"""kscore's time for a Triton answer's kernels against triton.testing.do_bench on the same answer
and shape (issue 22: within 10 % on perf cases over 100 us). Runs the answers this repository
ships (trusted code) in this process, on the inputs the helper builds for a trace.

    triton_do_bench.py KEEP_DIR SCORE.json ANSWERS.json PROBLEM...
        KEEP_DIR: the requests kscore sent (KSCORE_TRITON_KEEP); SCORE.json: kscore's result for
        ANSWERS.json (the submission file it scored).
Prints per perf case kscore's median, do_bench's median and their ratio, and a last line
`triton_do_bench: N passed, N failed, N skipped` (cases under 100 us are skipped)."""
import glob
import importlib.util
import json
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "src", "lang", "triton"))


def load_answer(source, name):
    path = os.path.join(tempfile.mkdtemp(prefix="kscore-bench-"), name + ".py")
    with open(path, "w") as f:
        f.write(source)
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def request_for(keep, problem):
    for path in sorted(glob.glob(os.path.join(keep, problem + "-*.request.json"))):
        return json.load(open(path))
    return None


def main():
    import torch
    import triton
    from kscore_triton import protocol, spec
    keep, score_path, answers_path, problems = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    answers = {os.path.splitext(e["file"])[0]: e["predict"] for e in json.load(open(answers_path))}
    kernels = {k["problem"]: k for k in json.load(open(score_path))["kernels"]}
    passed = failed = skipped = 0
    for problem in problems:
        raw = request_for(keep, problem)
        k = kernels.get(problem)
        if raw is None or k is None or not k.get("perf"):
            print("SKIP %s: no request kept or no perf result" % problem)
            skipped += 1
            continue
        req = protocol.parse_request(json.dumps(raw))
        mod = load_answer(answers[problem], problem)
        fn = getattr(mod, req.entry.name)
        perf_cases = [c for c in req.cases if c.perf]
        for case, pc in zip(perf_cases, k["perf"]):
            tensors = spec.build_tensors(torch, case, "cuda", req.entry.made_by_entry, 1)
            args, kwargs = spec.entry_arguments(req.entry, case, tensors)
            ms = triton.testing.do_bench(lambda: fn(*args, **kwargs), warmup=50, rep=500, return_mode="median")
            ks = pc.get("ms")
            if not ks or ks < 0.1:
                print("SKIP %s %s: kscore %.4f ms (under 100 us), do_bench %.4f ms" % (problem, case.label, ks or 0, ms))
                skipped += 1
                continue
            ratio = ks / ms
            ok = abs(ratio - 1) <= 0.10
            print("%s %s %s: kscore %.4f ms, do_bench %.4f ms, ratio %.3f" % ("PASS" if ok else "FAIL", problem,
                                                                          case.label, ks, ms, ratio))
            passed += ok
            failed += not ok
            del tensors, args, kwargs
            torch.cuda.empty_cache()
    print("triton_do_bench: %d passed, %d failed, %d skipped" % (passed, failed, skipped))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
