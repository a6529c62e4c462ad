"""Measures what a Triton trace costs on a GPU host (for docs/benchmarks.md).

    python3 tests/triton/bench_trace.py REQUEST.json N [OUTFILE]

Prints: the wall time of `import torch, triton` in fresh processes; for two helper processes,
the time from start to the first answer (imports and warm-up) and the round trip of N trace
requests each (fork, CUDA initialisation, confinement, the answer's import, compiles, both calls
of every case), with the child's own breakdown; medians last.
"""

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HELPER = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                      "src", "lang", "triton", "kscore-triton")


def median(values):
    return statistics.median(values) if values else float("nan")


def main(req_path, n, outfile=None):
    lines = []

    def log(text):
        lines.append(text)
        print(text, flush=True)

    imports = []
    for _ in range(3):
        t0 = time.monotonic()
        subprocess.run([sys.executable, "-I", "-c", "import torch, triton, triton.language"], check=True)
        imports.append(time.monotonic() - t0)
    log("import torch+triton, fresh process: %s s, median %.2f" % (["%.2f" % x for x in imports], median(imports)))
    with open(req_path) as f:
        req = json.load(f)
    home = tempfile.mkdtemp(prefix="kscore-bench-")
    env = {"PATH": "/usr/bin:/bin", "HOME": home, "TMPDIR": home}
    starts, trips, parts = [], [], []
    for _ in range(2):
        t0 = time.monotonic()
        proc = subprocess.Popen([sys.executable, "-I", HELPER, "serve"], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, env=env)
        proc.stdin.write(b'{"op":"version","id":0}\n')
        proc.stdin.flush()
        version = json.loads(proc.stdout.readline())
        starts.append(time.monotonic() - t0)
        log("helper start to first answer: %.2f s (%s)" % (starts[-1], json.dumps(version)))
        for i in range(n):
            req["id"] = i + 1
            t1 = time.monotonic()
            proc.stdin.write((json.dumps(req) + "\n").encode())
            proc.stdin.flush()
            got = json.loads(proc.stdout.readline())
            trips.append(time.monotonic() - t1)
            parts.append(got.get("seconds", {}))
            log("trace %d: %s, %.2f s, child %s" % (i + 1, got["status"], trips[-1], got.get("seconds")))
        proc.stdin.close()
        proc.wait(timeout=60)
    log("median helper start %.2f s; median trace round trip %.2f s over %d" % (median(starts), median(trips), len(trips)))
    for key in ("cuda_init", "import", "cases", "child", "total"):
        log("  median %s %.3f s" % (key, median([p[key] for p in parts if key in p])))
    if outfile:
        with open(outfile, "w") as f:
            f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    if len(sys.argv) not in (3, 4):
        sys.stderr.write(__doc__)
        sys.exit(2)
    main(sys.argv[1], int(sys.argv[2]), sys.argv[3] if len(sys.argv) == 4 else None)
