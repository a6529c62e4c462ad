#!/usr/bin/env python3
"""Compares what kscore scored for the bundled Triton answers with submissions/triton/expected.json
(issue 22, "Done means"): every answer correct, every attack failed with its reason.

    triton_expected.py EXPECTED.json RESULTS_DIR
        RESULTS_DIR/<file stem>/score.json for each file named in EXPECTED.json.
Prints one line per answer (problem, expected, got, detail) and a last line
`triton_expected: N passed, N failed, N skipped`; exits 1 when one differs."""
import json
import os
import sys


def verdict(k):
    return {"exec": bool(k.get("exec")), "reason": k.get("reason"), "detail": (k.get("detail") or "")[:200],
            "speedup": k.get("speedup")}


def main():
    expected = json.load(open(sys.argv[1]))
    results = sys.argv[2]
    passed = failed = skipped = 0
    for fname, answers in sorted(expected.items()):
        path = os.path.join(results, fname.rsplit(".", 1)[0], "score.json")
        if not os.path.exists(path):
            print("%s: no result (%s)" % (fname, path))
            skipped += len(answers)
            continue
        kernels = {k.get("problem") or k.get("file"): k for k in json.load(open(path))["kernels"]}
        for problem, want in sorted(answers.items()):
            got = kernels.get(problem)
            if got is None:
                print("FAIL %s %s: not in the results" % (fname, problem))
                failed += 1
                continue
            v = verdict(got)
            ok = v["exec"] == bool(want.get("exec")) and ("reason" not in want or want["reason"] == v["reason"])
            print("%s %s %s: expected exec=%s%s, got exec=%s reason=%s speedup=%s; %s" % (
                "PASS" if ok else "FAIL", fname, problem, want.get("exec"),
                " reason=" + want["reason"] if "reason" in want else "", v["exec"], v["reason"], v["speedup"],
                v["detail"]))
            passed += ok
            failed += not ok
    print("triton_expected: %d passed, %d failed, %d skipped" % (passed, failed, skipped))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
