"""Speaks to kscore-oracle directly (its JSON-lines protocol) for a few problems: `cases` under
seed 0, then `materialize` under seed 1 into two fresh folders, and prints what was written (files,
bytes, the time of each op) and whether a second seed gave other input values. Used by
tests/gpu/oracle.sh on the GPU host.

usage: oracle_materialize.py HELPER OUTDIR FORMAT LISTING NAME...   (LISTING: the set as
`score problems --refs DIR --json` prints it; NAME: problems of it)
Prints `oracle_materialize: N passed, N failed, N skipped`.
"""

import json
import os
import subprocess
import sys
import time


def main(argv):
    helper, outdir, fmt, listing, wanted = argv[0], argv[1], argv[2], argv[3], argv[4:]
    with open(listing) as f:
        known = {p["name"]: p for p in json.load(f)["problems"]}
    python = os.environ.get("KSCORE_PYTHON") or sys.executable
    proc = subprocess.Popen([python, "-I", "-B", helper, "serve"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE)
    passed = failed = 0
    n = 0

    def ask(req):
        nonlocal n
        n += 1
        req["id"] = n
        proc.stdin.write((json.dumps(req) + "\n").encode())
        proc.stdin.flush()
        return json.loads(proc.stdout.readline())

    print("versions:", ask({"op": "version"}))
    for name in wanted:
        if name not in known:
            print("%s: not a problem of the set" % name)
            failed += 1
            continue
        p = known[name]
        path, perf, entries = p["file"], p.get("perf_script"), p["entries"] if fmt == "tritonbench-g" else []
        base = {"format": fmt, "path": path, "perf_path": perf, "entries": entries, "timeout_s": 120}
        stem = os.path.splitext(os.path.basename(path))[0]
        t0 = time.monotonic()
        cases = ask(dict(base, op="cases", seed=0))
        t1 = time.monotonic()
        if cases.get("status") != "ok":
            print("%s: cases %s: %s" % (stem, cases.get("status"), cases.get("reason")))
            failed += 1
            continue
        sizes = []
        for seed in (1, 2):
            ins, outs = os.path.join(outdir, "%s-s%d-in" % (stem, seed)), os.path.join(outdir, "%s-s%d-out" % (stem, seed))
            os.makedirs(ins)
            os.makedirs(outs)
            t2 = time.monotonic()
            m = ask(dict(base, op="materialize", seed=seed, cases_seed=0, inputs_dir=ins, outputs_dir=outs,
                         expect=[c["signature"] for c in cases["cases"]]))
            t3 = time.monotonic()
            if m.get("status") != "ok":
                print("%s: materialize seed %d %s: %s" % (stem, seed, m.get("status"), m.get("reason")))
                failed += 1
                break
            fi, fo = sorted(os.listdir(ins)), sorted(os.listdir(outs))
            bi = sum(os.path.getsize(os.path.join(ins, f)) for f in fi)
            bo = sum(os.path.getsize(os.path.join(outs, f)) for f in fo)
            sizes.append((ins, fi))
            print("%s: seed %d: %d calls, %d input files (%d bytes), %d output files (%d bytes); cases %.2f s, "
                  "materialize %.2f s; first files %s | %s" % (stem, seed, len(m["cases"]), len(fi), bi, len(fo), bo,
                                                             t1 - t0, t3 - t2, fi[:3], fo[:3]))
        else:
            (a, fa), (b, fb) = sizes
            same = [f for f in fa if f in fb and open(os.path.join(a, f), "rb").read() == open(os.path.join(b, f), "rb").read()]
            print("%s: %d of %d input files equal under seeds 1 and 2 (fixed-value tensors stay fixed)" % (stem, len(same), len(fa)))
            passed += 1
    proc.stdin.close()
    proc.wait(timeout=30)
    print("oracle_materialize: %d passed, %d failed, 0 skipped" % (passed, failed))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
