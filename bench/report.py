#!/usr/bin/env python3
"""Summarises a bench/run.sh work folder: wall times, per-kernel split, NVRTC cold vs cached,
overhead ratio (wall / GPU time of the timed runs), the timing protocol's share (GPU time its timed
batches hold the GPU for, flushes and poison fills included, over the runs' own), kernels per minute
(the suite, the synthetic batch), repeatability, and the Nsight comparison.
Runs with several lanes (--devices) are reported the same way, with their lane count; on two lanes
of one GPU the timed runs of the two lanes overlap, so their GPU time can exceed the wall time."""
import csv, glob, json, math, os, re, statistics, sys

work = sys.argv[1]
out = {}

def load(name):
    p = os.path.join(work, name, "score.json")
    return json.load(open(p)) if os.path.exists(p) else None

def process_wall(name):
    """The whole process's wall time (bench/run.sh's NAME.wall), None when not measured."""
    p = os.path.join(work, name + ".wall")
    try:
        return float(open(p).read().strip())
    except (OSError, ValueError):
        return None

def times(wall, pwall, gpu_s, busy_s):
    """The times of a run (or of several summed) and their ratios; None where a figure is missing."""
    return {"wall_s": wall, "process_wall_s": pwall, "timed_gpu_s": gpu_s, "timed_busy_s": busy_s,
            "overhead_ratio": wall / gpu_s if gpu_s > 0 else None,
            "protocol_ratio": busy_s / gpu_s if gpu_s > 0 and busy_s > 0 else None,
            "wall_over_busy": wall / busy_s if busy_s > 0 else None,
            "process_ratio": pwall / gpu_s if gpu_s > 0 and pwall else None}

def summary(name, rec):
    ks = rec["kernels"]
    compile_s = sum((k["seconds"]["compile"] or 0) for k in ks)
    check_s = sum((k["seconds"]["check"] or 0) for k in ks)
    timing_s = sum((k["seconds"]["timing"] or 0) for k in ks)
    gpu_s = sum((k["seconds"]["timed_gpu"] or 0) for k in ks)
    busy_s = sum((k["seconds"].get("timed_busy") or 0) for k in ks)
    wall = rec["wall_seconds"]
    pwall = process_wall(name)
    row = {"kernels": len(ks), "compile_s": compile_s, "check_s": check_s, "timing_s": timing_s,
           **times(wall, pwall, gpu_s, busy_s),
           "lanes": len(rec.get("devices") or []) or 1,
           "shared_gpu": bool(rec["summary"].get("shared_gpu")),
           "nvrtc_per_kernel_s": statistics.median([k["seconds"]["compile"] or 0 for k in ks if k["compiled"]] or [0]),
           "cached": sum(1 for k in ks if k["compile"]["cached"]),
           "score": rec["summary"].get("score")}
    out[name] = row
    r = row
    print(f"{name:26s} {r['kernels']:3d} kernels {r['lanes']} lane{'s' if r['lanes'] > 1 else ' '}"
          f"{' (shared GPU)' if r['shared_gpu'] else '             '}  wall {r['wall_s']:7.2f} s "
          f"(process {pwall if pwall is not None else float('nan'):6.2f})  compile {r['compile_s']:6.2f}  "
          f"check {r['check_s']:6.2f}  timing {r['timing_s']:7.2f}  timed GPU {r['timed_gpu_s']:6.2f} s  "
          f"wall/GPU {r['overhead_ratio'] or float('nan'):5.2f} (process {r['process_ratio'] or float('nan'):5.2f})  "
          f"busy {r['timed_busy_s']:6.2f} s (busy/GPU {r['protocol_ratio'] or float('nan'):4.2f}, "
          f"wall/busy {r['wall_over_busy'] or float('nan'):4.2f})  "
          f"NVRTC median {r['nvrtc_per_kernel_s']:.3f} s ({r['cached']} cached)")
    return row

print("run                        kernels, lanes, wall, split (s)")
recs = {}
names = ["ex-cold", "ex-warm"]
for prefix in ("cand-", "dev00-"):
    names += sorted(os.path.basename(p) for p in glob.glob(os.path.join(work, prefix + "*")) if os.path.isdir(p))
for name in names:
    rec = load(name)
    if rec:
        recs[name] = rec
        summary(name, rec)

def suite(prefix, key, label):
    runs = [n for n in recs if n.startswith(prefix)]
    if not runs:
        return
    tot_wall = sum(recs[n]["wall_seconds"] for n in runs)
    walls = [out[n]["process_wall_s"] for n in runs]
    tot_pwall = sum(walls) if all(w is not None for w in walls) else None
    tot_gpu = sum(out[n]["timed_gpu_s"] for n in runs)
    tot_busy = sum(out[n]["timed_busy_s"] for n in runs)
    nk = sum(out[n]["kernels"] for n in runs)
    out[key] = {"kernels": nk, **times(tot_wall, tot_pwall, tot_gpu, tot_busy)}
    r = out[key]
    print(f"{label}: {nk} kernels, wall {tot_wall:.1f} s (process {tot_pwall if tot_pwall is not None else float('nan'):.1f}), "
          f"timed GPU {tot_gpu:.1f} s, ratio {r['overhead_ratio'] or float('nan'):.2f} "
          f"(process {r['process_ratio'] or float('nan'):.2f}); timed batches held the GPU {tot_busy:.1f} s "
          f"(busy/GPU {r['protocol_ratio'] or float('nan'):.2f}, wall/busy {r['wall_over_busy'] or float('nan'):.2f})")

suite("cand-", "suite", "whole suite, one lane")
if "suite" in out and out["suite"]["process_wall_s"]:
    out["suite"]["kernels_per_minute"] = out["suite"]["kernels"] / out["suite"]["process_wall_s"] * 60
    print(f"  {out['suite']['kernels_per_minute']:.0f} kernels per minute (the suite's files scored one after the other, whole processes)")
syn = os.path.join(work, "synthetic.txt")
if os.path.exists(syn):
    text = open(syn).read()
    m = re.search(r"(\d+) scored in this run, (\d+) kernels, exit (\d+), wall ([\d.]+) s, (\d+) kernels per minute", text)
    if m:
        out["synthetic_batch"] = {"teams": int(m.group(1)), "kernels": int(m.group(2)), "exit": int(m.group(3)),
                                  "wall_s": float(m.group(4)), "kernels_per_minute": int(m.group(5))}
        print(f"synthetic batch (score batch defaults): {m.group(1)} teams, {m.group(2)} kernels, exit {m.group(3)}, "
              f"wall {m.group(4)} s, {m.group(5)} kernels per minute")
    else:
        print("synthetic batch: no result line (" + text.strip()[-200:] + ")")
suite("dev00-", "suite_devices_0_0", "whole suite, --devices 0,0 (two lanes, one GPU: timings shared)")
if "suite" in out and "suite_devices_0_0" in out and out["suite_devices_0_0"]["wall_s"] > 0:
    print(f"  --devices 0,0 against one lane: wall x{out['suite']['wall_s'] / out['suite_devices_0_0']['wall_s']:.2f} faster")

print("\nper kernel (example, cached run):")
if "ex-warm" in recs:
    for k in recs["ex-warm"]["kernels"]:
        s = k["seconds"]
        print(f"  {k['problem'] or '?':26s} compile {s['compile'] or 0:6.3f}  check {s['check'] or 0:6.3f}  "
              f"timing {s['timing'] or 0:6.3f}  timed GPU {s['timed_gpu'] or 0:6.3f}  "
              f"busy {s.get('timed_busy') or 0:6.3f}  exec {k['exec']}")

def compare(a_name, b_name, title, key):
    if a_name not in recs or b_name not in recs:
        return
    print(f"\n{title}")
    rep = []
    for a, b in zip(recs[a_name]["kernels"], recs[b_name]["kernels"]):
        if not a.get("speedup") or not b.get("speedup"):
            continue
        if min(p["ms"] for p in a["perf"]) < 0.05:
            continue
        d = abs(a["speedup"] - b["speedup"]) / a["speedup"]
        rep.append({"problem": a["problem"], "speedup_1": a["speedup"], "speedup_2": b["speedup"], "rel_diff": d})
        print(f"  {a['problem']:26s} {a['speedup']:.4f} vs {b['speedup']:.4f}  ({100 * d:.2f}%)")
    out[key] = rep

compare("ex-cold", "ex-warm", "repeatability (same submission, same seed, two runs; perf cases over 50 us):",
        "repeatability")
for n in sorted(recs):
    if n.startswith("cand-") and "dev00-" + n[5:] in recs:
        compare(n, "dev00-" + n[5:], f"one lane against --devices 0,0 ({n[5:]}; perf cases over 50 us; shared "
                "timings are expected to be noisier):", "lanes_" + n[5:])

ncu = os.path.join(work, "ncu.csv")
if os.path.exists(ncu):
    groups = {}
    with open(ncu) as f:
        lines = [l for l in f if l.startswith('"')]
    for row in csv.DictReader(lines):
        if row.get("Metric Name") == "gpu__time_duration.sum":
            v = float(row["Metric Value"].replace(",", ""))
            unit = row.get("Metric Unit", "nsecond")
            ms = v / 1e6 if unit in ("nsecond", "ns") else v / 1e3 if unit in ("usecond", "us") else v
            groups.setdefault(row.get("Grid Size", "?"), []).append(ms)
    rec = recs.get("ex-warm")
    k = next((k for k in (rec or {}).get("kernels", []) if k["problem"] == "sin_kernel"), None)
    n = sum(len(v) for v in groups.values())
    print(f"\nNsight Compute gpu__time_duration vs kscore golden medians (sin_kernel; {n} launches profiled):")
    cmp = []
    if k and groups:
        # each perf case is one launch geometry: compare with the geometry whose median is nearest
        meds = {g: statistics.median(v) for g, v in groups.items()}
        for p in k["perf"]:
            g = min(meds, key=lambda x: abs(meds[x] - p["golden_ms"]))
            m = meds[g]
            cmp.append({"case": p["case"], "grid": g, "kscore_ms": p["golden_ms"], "ncu_ms": m,
                        "launches": len(groups[g]), "rel_diff": abs(m - p["golden_ms"]) / m})
            print(f"  {p['case']:30s} kscore {p['golden_ms']:.4f} ms  ncu {m:.4f} ms (grid {g}, {len(groups[g])} "
                  f"launches)  diff {100 * abs(m - p['golden_ms']) / m:.2f}%")
    out["ncu"] = cmp
json.dump(out, open(os.path.join(work, "bench.json"), "w"), indent=1)
