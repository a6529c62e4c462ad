#!/bin/sh
# What redrawing a part of every input before each timed run costs (issue 23.1; docs/timing.md,
# "What changing the inputs costs"): each file is scored twice on this GPU with the same seed, with
# input_change 0 (a set's inputs unchanged between its runs, as before the issue) and with
# scoring/scoring.json's input_change, and the timing stage of every timed kernel is compared:
# seconds.timing (its wall time), timed_gpu (the timed runs) and timed_busy (the GPU time of the
# timed batches, fills and flushes included), and whether every verdict is the same.
#   sh tests/gpu/measure-input-change.sh [FILE...]
# Default files: the bundled example and the level1-memory candidates. score is $KSCORE_BIN, else
# the packed build in .gpu/, else build/score; EXTRA holds more options for both runs (say
# --sanitize=memcheck). The log and the summary go to $OUT (default build/input-change-out).
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
out_default="$root/build/input-change-out" work="$root/build/input-change-work" log_name=input-change.log packed=1
. "$root/scripts/prelude.sh"
[ $# -gt 0 ] || set -- submissions/example/reflexion_oneshot_tritonbench_4.json submissions/candidates/level1-memory.json
printf '{"timing": {"input_change": 0}}\n' >"$work/off.json"
n=0
for f in "$@"; do
	n=$((n + 1))
	for mode in off on; do
		cfg=
		[ "$mode" = off ] && cfg="--config $work/off.json"
		s=$(date +%s)
		# shellcheck disable=SC2086
		"$bin" --require-gpu --seed 2323 $cfg ${EXTRA:-} --out "$work/r$n-$mode" "$f" >/dev/null 2>>"$log"
		echo "$f, input_change $mode: exit $?, $(( $(date +%s) - s )) s" | tee -a "$log"
	done
	cp "$work/r$n-off/score.json" "$out/r$n-off.json" 2>/dev/null
	cp "$work/r$n-on/score.json" "$out/r$n-on.json" 2>/dev/null
	python3 - "$f" "$work/r$n-off/score.json" "$work/r$n-on/score.json" <<'PY' | tee -a "$log"
import json, sys
name, off, on = sys.argv[1], json.load(open(sys.argv[2])), json.load(open(sys.argv[3]))
print("== %s (input_change %s against 0)" % (name, on["timing"]["protocol"].get("input_change")))
tot = {"off": [0.0, 0.0, 0.0], "on": [0.0, 0.0, 0.0]}
timed = same = 0
for a, b in zip(off["kernels"], on["kernels"]):
    va = (a["reason"], a["exec"], a.get("suspicious"))
    vb = (b["reason"], b["exec"], b.get("suspicious"))
    same += va == vb
    sa, sb = a.get("seconds") or {}, b.get("seconds") or {}
    if not (sa.get("timed_gpu") or 0) > 0 or not (sb.get("timed_gpu") or 0) > 0:
        if va != vb:
            print("  %-24s verdict %s -> %s" % (a["problem"], va, vb))
        continue
    timed += 1
    for k, s in (("off", sa), ("on", sb)):
        tot[k][0] += s["timing"]; tot[k][1] += s["timed_gpu"]; tot[k][2] += s["timed_busy"]
    san = b.get("sanitizer") or {}
    print("  %-24s timing %6.3f -> %6.3f s  busy %6.3f -> %6.3f s  gpu %6.3f -> %6.3f s  speedup %s -> %s%s%s" % (
        a["problem"], sa["timing"], sb["timing"], sa["timed_busy"], sb["timed_busy"], sa["timed_gpu"], sb["timed_gpu"],
        a.get("speedup"), b.get("speedup"), "" if va == vb else "  verdict %s -> %s" % (va, vb),
        "  sanitizer on %s (%s, %.2f s)" % (san.get("case"), san.get("case_choice"), san.get("seconds") or 0) if san else ""))
o, n = tot["off"], tot["on"]
if timed:
    print("  %d timed kernels: timing wall %.2f -> %.2f s (x%.2f, %+.3f s per timed kernel); busy %.2f -> %.2f s "
          "(x%.2f); timed GPU %.2f -> %.2f s; whole run %.1f -> %.1f s; same verdicts %d of %d" % (
          timed, o[0], n[0], n[0] / o[0], (n[0] - o[0]) / timed, o[2], n[2], n[2] / o[2], o[1], n[1],
          off.get("wall_seconds") or 0, on.get("wall_seconds") or 0, same, len(on["kernels"])))
PY
done
