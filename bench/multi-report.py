#!/usr/bin/env python3
"""Summarises a bench/multi-gpu.sh work folder: for each GPU count, the whole suite as one run and the
synthetic batch (wall, kernels per minute, speed-up over one GPU, the start of the lanes), and
whether every kernel got the same verdict as on one GPU (timings differ within their noise; the
largest speed-up difference is shown). Usage: multi-report.py WORK COUNT..."""
import glob, json, os, re, sys

work, counts = sys.argv[1], [int(c) for c in sys.argv[2:]]
out = {"gpus": counts, "suite": {}, "batch": {}}

def records(folder):
    """score.json of every result folder below folder, by its path relative to it."""
    recs = {}
    for p in sorted(glob.glob(os.path.join(folder, "**", "score.json"), recursive=True)):
        recs[os.path.relpath(os.path.dirname(p), folder)] = json.load(open(p))
    return recs

def verdicts(recs):
    return {(name, i): (k.get("reason"), k.get("call"), k.get("exec"), k.get("speedup"))
            for name, r in recs.items() for i, k in enumerate(r["kernels"])}

def compare(base, other):
    """(kernels compared, kernels whose verdict differs, largest relative speed-up difference)"""
    diff, spread = [], 0.0
    for key, (reason, call, ex, sp) in base.items():
        o = other.get(key)
        if o is None or o[:3] != (reason, call, ex):
            diff.append((key, (reason, call, ex), o[:3] if o else None))
        elif sp and o[3]:
            spread = max(spread, abs(sp - o[3]) / sp)
    return len(base), diff, spread

def start_of(recs):
    s = [r.get("start") for r in recs.values() if r.get("start")]
    return max(s, key=lambda x: x["seconds"]) if s else None

for g in counts:
    wall = None
    try:
        wall = float(open(os.path.join(work, f"suite-{g}.wall")).read())
    except (OSError, ValueError):
        pass
    recs = records(os.path.join(work, f"suite-{g}"))
    n = sum(len(r["kernels"]) for r in recs.values())
    out["suite"][g] = {"wall_s": wall, "kernels": n, "files": len(recs),
                       "kernels_per_minute": n / wall * 60 if wall else None, "start": start_of(recs),
                       "verdicts": verdicts(recs)}
    text = ""
    try:
        text = open(os.path.join(work, f"batch-{g}.txt")).read()
    except OSError:
        pass
    m = re.search(r"(\d+) scored in this run, (\d+) kernels, exit (\d+), wall ([\d.]+) s, (\d+) kernels per minute", text)
    brecs = records(os.path.join(work, f"batch-{g}"))
    out["batch"][g] = {"teams": int(m.group(1)) if m else None, "kernels": int(m.group(2)) if m else None,
                       "exit": int(m.group(3)) if m else None, "wall_s": float(m.group(4)) if m else None,
                       "kernels_per_minute": int(m.group(5)) if m else None, "verdicts": verdicts(brecs)}

def cell(v, fmt):
    return fmt.format(v) if v is not None else "-"

base = counts[0] if counts else None
print("| run | " + " | ".join(f"{g} GPU{'s' if g > 1 else ''}" for g in counts) + " |")
print("| --- |" + " ---: |" * len(counts))
for what, key in (("the whole suite, one run", "suite"), ("synthetic batch", "batch")):
    row = []
    for g in counts:
        r, b = out[key][g], out[key][base]
        s = cell(r["wall_s"], "{:.1f} s")
        if g != base and r["wall_s"] and b["wall_s"]:
            r["speedup"] = b["wall_s"] / r["wall_s"]
            s += f" ({r['speedup']:.2f}x)"
        row.append(s)
    n = out[key][base]["kernels"] if base else None
    label = f"{what} ({n} kernels" + (f", {out['batch'][base]['teams']} teams)" if key == "batch" else ")")
    print(f"| {label}, wall | " + " | ".join(row) + " |")
    print(f"| {what}, kernels per minute | " +
          " | ".join(cell(out[key][g]["kernels_per_minute"], "{:.0f}") for g in counts) + " |")
print("| start of the lanes (suite run: lanes, then ceilings) | " +
      " | ".join((f"{s['seconds']:.2f} s ({s['lanes_seconds']:.2f} + {s['calibration_seconds']:.2f})"
                  if (s := out['suite'][g]['start']) else "-") for g in counts) + " |")
print()
same = True
for key in ("suite", "batch"):
    for g in counts[1:]:
        n, diff, spread = compare(out[key][base]["verdicts"], out[key][g]["verdicts"])
        out[key][g]["verdicts_differ"] = len(diff)
        out[key][g]["speedup_spread"] = spread
        same &= not diff
        print(f"{key}, {g} GPUs against {base}: {n} kernels, {len(diff)} verdicts differ"
              f"{', largest speed-up difference %.1f %%' % (100 * spread) if spread else ''}")
        for d in diff[:10]:
            print(f"  {d[0]}: {d[1]} vs {d[2]}")
print("verdicts identical between the runs" if same else "VERDICTS DIFFER between the runs")
out["verdicts_identical"] = same
for key in ("suite", "batch"):
    for g in counts:
        out[key][g].pop("verdicts", None)
json.dump(out, open(os.path.join(work, "multi.json"), "w"), indent=1, default=str)
