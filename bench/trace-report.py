#!/usr/bin/env python3
"""Where a scoring run's wall time goes, from its KSCORE_TRACE=1 lines (stderr of `score`).

Each trace line is one worker request: start (ms, monotonic), role, message type, ms to the reply,
bytes sent and received, worker pid, ms waited at the GPU gate (docs/benchmarks.md). This prints,
per message type, the count, the summed time and the summed gate wait, and splits the span from the
first request to the last reply into: time with a timed request (TIME_RUN, TIME_VERIFY) in flight,
time with only other requests in flight, and time with none (the scoring process itself: waiting
for compiles, comparing outputs, writing results).

Usage: python3 bench/trace-report.py TRACE.log [--json OUT.json]
"""
import json
import sys

TYPES = {1: "HELLO", 2: "HARNESS", 3: "LOAD", 4: "UNLOAD", 5: "RUN", 6: "TIME_START", 7: "TIME_RUN",
         8: "TIME_VERIFY", 9: "TIME_END", 10: "CALIBRATE", 11: "STATUS", 12: "QUIT", 13: "TIME_CHECK"}
TIMED = {7, 8}


def union(iv):
    """Total length of the union of [a, b) intervals."""
    tot, end = 0.0, None
    for a, b in sorted(iv):
        if end is None or a > end:
            tot += b - a
            end = b
        elif b > end:
            tot += b - end
            end = b
    return tot


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    reqs = []
    with open(sys.argv[1], errors="replace") as f:
        for line in f:
            if not line.startswith("kscore-trace: "):
                continue
            p = line.split()
            try:
                t0, role, typ, ms = float(p[1]), p[2], int(p[3]), float(p[4])
                gate = float(p[8]) if len(p) > 8 else 0.0
            except (IndexError, ValueError):
                continue
            reqs.append((t0, t0 + ms, role, typ, ms, gate))
    if not reqs:
        sys.exit("no kscore-trace lines in " + sys.argv[1])
    start = min(r[0] for r in reqs)
    end = max(r[1] for r in reqs)
    span = end - start
    timed = union([(r[0], r[1]) for r in reqs if r[3] in TIMED])
    anyreq = union([(r[0], r[1]) for r in reqs])
    per = {}
    for r in reqs:
        k = (TYPES.get(r[3], str(r[3])))
        d = per.setdefault(k, {"count": 0, "ms": 0.0, "gate_ms": 0.0})
        d["count"] += 1
        d["ms"] += r[4]
        d["gate_ms"] += r[5]
    print(f"span {span / 1e3:.2f} s from the first request to the last reply, {len(reqs)} requests")
    print(f"  timed requests in flight  {timed / 1e3:7.2f} s  ({100 * timed / span:5.1f} %)")
    print(f"  only other requests       {(anyreq - timed) / 1e3:7.2f} s  ({100 * (anyreq - timed) / span:5.1f} %)")
    print(f"  no request in flight      {(span - anyreq) / 1e3:7.2f} s  ({100 * (span - anyreq) / span:5.1f} %)")
    print("per message type (summed over workers; requests of two runners overlap):")
    for k, d in sorted(per.items(), key=lambda kv: -kv[1]["ms"]):
        print(f"  {k:12s} {d['count']:6d} requests  {d['ms'] / 1e3:8.2f} s  gate wait {d['gate_ms'] / 1e3:7.2f} s")
    if len(sys.argv) > 3 and sys.argv[2] == "--json":
        json.dump({"span_s": span / 1e3, "timed_s": timed / 1e3, "other_s": (anyreq - timed) / 1e3,
                   "none_s": (span - anyreq) / 1e3,
                   "types": {k: {"count": d["count"], "s": d["ms"] / 1e3, "gate_s": d["gate_ms"] / 1e3}
                             for k, d in per.items()}},
                  open(sys.argv[3], "w"), indent=1)


main()
