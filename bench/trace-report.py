#!/usr/bin/env python3
"""Where a scoring run's wall time goes, from its KSCORE_TRACE=1 lines (stderr of `score`).

Each trace line is one worker request: start (ms, monotonic), role, message type, ms to the reply,
bytes sent and received, worker pid, ms waited at the GPU gate (docs/benchmarks.md). This prints,
per message type, the count, the summed time and the summed gate wait, and splits the span from the
first request to the last reply into: time with a timed request (TIME_RUN, TIME_VERIFY) in flight,
time with only other requests in flight, and time with none (the scoring process itself: waiting
for compiles, comparing outputs, writing results).

The `kscore-timed:` lines (one per timed batch: role, pid, runs, GPU ms of the runs, of the whole
batch, and of the steps around the runs: redraw of the inputs, the other fills, the L2 flush, the
kept samples and checksums) are summed per role: what the protocol around the timed runs costs.

The `kscore-span:` lines (util/tracelog.h: start ms, duration ms, thread, what, detail) are summed
per kind of span (lane start, harness compile, worker starts, sanitizer runs, compile waves, each
entry's check and timing stages), and each lane thread's time in its stages is set against the
span, which says how long the lanes sat idle.

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


def report_spans(spans, start, end):
    """Sums per kind of span, and each lane thread's stage time against the requests' span."""
    kinds = {}
    for t0, ms, tid, what, detail in spans:
        d = kinds.setdefault(what, [0, 0.0, 0.0, None, None])
        d[0] += 1
        d[1] += ms
        d[2] = max(d[2], ms)
        d[3] = t0 if d[3] is None else min(d[3], t0)
        d[4] = t0 + ms if d[4] is None else max(d[4], t0 + ms)
    print("spans (util/tracelog.h), times from the first request:")
    for what, (n, ms, mx, a, b) in sorted(kinds.items(), key=lambda kv: kv[1][3]):
        print(f"  {what:16s} {n:5d}  sum {ms / 1e3:8.2f} s  max {mx / 1e3:6.2f} s  "
              f"from {(a - start) / 1e3:7.2f} to {(b - start) / 1e3:7.2f} s")
    threads = {}
    for t0, ms, tid, what, detail in spans:
        if what in ("check", "time"):
            d = threads.setdefault(tid, [0.0, None, None, 0])
            d[0] += ms
            d[1] = t0 if d[1] is None else min(d[1], t0)
            d[2] = t0 + ms if d[2] is None else max(d[2], t0 + ms)
            d[3] += 1
    span = end - start
    for tid, (busy, a, b, n) in sorted(threads.items(), key=lambda kv: kv[1][1]):
        print(f"  lane thread {tid}: {n} stages, busy {busy / 1e3:6.2f} s of the {span / 1e3:.2f} s span "
              f"({100 * busy / span:4.1f} %), first at {(a - start) / 1e3:.2f} s, last done {(b - start) / 1e3:.2f} s")


PHASES = ("redraw", "fill", "flush", "keep")


def report_timed(timed):
    """Sums the timed batches' GPU time per role: the runs, each step around them, and the rest."""
    print("timed batches (GPU time, kscore-timed lines):")
    for role, d in sorted(timed.items()):
        rest = d["span"] - d["runs"] - sum(d[k] for k in PHASES)
        steps = "  ".join(f"{k} {d[k] / 1e3:6.2f} s" for k in PHASES)
        print(f"  {role:9s} {d['batches']:5d} batches {d['n']:6d} runs  batch {d['span'] / 1e3:6.2f} s  "
              f"runs {d['runs'] / 1e3:6.2f} s  {steps}  rest {rest / 1e3:5.2f} s")


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    reqs = []
    spans = []
    timed_b = {}
    with open(sys.argv[1], errors="replace") as f:
        for line in f:
            if line.startswith("kscore-timed: "):
                p = line.split()
                try:
                    v = [float(x) for x in p[4:11]]
                    d = timed_b.setdefault(p[1], dict({"batches": 0, "n": 0, "runs": 0.0, "span": 0.0},
                                                      **{k: 0.0 for k in PHASES}))
                    d["batches"] += 1
                    d["n"] += int(p[3])
                    d["runs"] += v[0]
                    d["span"] += v[1]
                    for k, x in zip(PHASES, v[2:6]):
                        d[k] += x
                except (IndexError, ValueError):
                    pass
                continue
            if line.startswith("kscore-span: "):
                p = line.split()
                try:
                    spans.append((float(p[1]), float(p[2]), int(p[3]), p[4], p[5] if len(p) > 5 else "-"))
                except (IndexError, ValueError):
                    pass
                continue
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
    if spans:
        report_spans(spans, start, end)
    if timed_b:
        report_timed(timed_b)
    if len(sys.argv) > 3 and sys.argv[2] == "--json":
        json.dump({"span_s": span / 1e3, "timed_s": timed / 1e3, "other_s": (anyreq - timed) / 1e3,
                   "none_s": (span - anyreq) / 1e3,
                   "types": {k: {"count": d["count"], "s": d["ms"] / 1e3, "gate_s": d["gate_ms"] / 1e3}
                             for k, d in per.items()}},
                  open(sys.argv[3], "w"), indent=1)


main()
