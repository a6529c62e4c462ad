#!/bin/sh
# Real Nsight Compute and compute-sanitizer output for the CPU tests' fixtures (tests/test_profile.c,
# tests/test_sanitize.c), recorded on a GPU host from a build packed with gpu-pack:
#     sh scripts/gpu-session.sh capture-nvtools        (or: sh tests/gpu/capture-nvtools.sh)
# Everything lands in $OUT (default build/nvtools-out):
#   tools.txt                where ncu and compute-sanitizer are, their versions, the GPU
#   ncu-metrics.txt          for each metric kscore asks ncu for: does this ncu know it on this GPU
#                            (listed by --query-metrics, or a column with a number in a raw table:
#                            the launch__ metrics are collected but never listed)
#   raw/NNN-<tool>-*.log     every log kscore's own runs produced (KSCORE_NVTOOL_KEEP), with the
#   raw/NNN-<tool>-*.out     tools' console output: (a) uncoalesced, (b) register-heavy, (c) the golden
#                            kernels (under ncu), (d) 64 KiB past the output, (e) a shared-memory race,
#                            (f) clean kernels (under compute-sanitizer), from tests/fixtures/gpu/nvtools.json
#   nvtools/                 that run's result folder (score.json, exec/performance_analysis.txt); the
#                            fixture is scored as a folder of passes, one entry per file (within one
#                            file only the first entry for a problem counts), so kernels[i] is entry i
#   direct-*.csv, direct-*.log  the same tools run by hand on the whole score process (the worker
#                            inherits everything: KSCORE_WORKER_ENV='*'), as a fallback that does not
#                            depend on kscore's wrapped workers
#   capture.log              what ran, exit statuses and wall times
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
out_default="$root/build/nvtools-out" work="$root/build/nvtools-work" log_name=capture.log packed=1
. "$root/scripts/prelude.sh"
mkdir -p "$out/raw"
fix=tests/fixtures/gpu/nvtools.json
refs=tests/fixtures/problems
# passes NAME I...: entries I... of the fixture as a folder $work/NAME of one-entry files
passes() {
	python3 - "$fix" "$work/$1" "$@" <<'PY'
import json, os, sys
d = json.load(open(sys.argv[1])); out = sys.argv[2]
os.makedirs(out, exist_ok=True)
for k, i in enumerate(sys.argv[4:]):
    json.dump([d[int(i)]], open("%s/e%03d.json" % (out, k), "w"))
PY
}

# the tools, as kscore finds them ($CUDA_HOME/bin, /usr/local/cuda/bin, then PATH)
find_tool() {
	for d in "${CUDA_HOME:-/nonexistent}/bin" /usr/local/cuda/bin $(echo "$PATH" | tr ':' ' '); do
		[ -x "$d/$1" ] && { echo "$d/$1"; return 0; }
	done
	return 1
}
ncu=$(find_tool ncu) || ncu=
san=$(find_tool compute-sanitizer) || san=
{
	echo "ncu: ${ncu:-not found}"; [ -n "$ncu" ] && "$ncu" --version
	echo "compute-sanitizer: ${san:-not found}"; [ -n "$san" ] && "$san" --version
	nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv
	ls -l /usr/local/cuda 2>&1 | head -3
} >"$out/tools.txt" 2>&1
cat "$out/tools.txt" >>"$log"

# kscore's exact metric list, from the source (src/nvtool/profile.c's table)
metrics=$(sed -n 's/^[[:space:]]*{ "\([a-z0-9_]*__[a-z0-9_.]*\)".*/\1/p' src/nvtool/profile.c | paste -sd, -)
echo "metrics: $metrics" >>"$log"
if [ -n "$ncu" ]; then
	say "ncu metric names on this GPU"
	"$ncu" --query-metrics --query-metrics-mode suffix --csv >"$work/query.csv" 2>>"$log" ||
		"$ncu" --query-metrics --csv >"$work/query.csv" 2>>"$log"
	gzip -c "$work/query.csv" >"$out/ncu-query-metrics.csv.gz" 2>/dev/null
fi

# 1. kscore itself: every fixture kernel, every sanitizer tool, profiles of all kernels and goldens
say "score --sanitize=all --profile=all on $fix"
s=$(date +%s.%N)
passes all 0 1 2 3 4 5
KSCORE_NVTOOL_KEEP="$out/raw" "$bin" --require-gpu --seed 20261122 --refs "$refs" --sanitize=all --profile=all \
	--out "$work/nvtools" "$work/all" >"$out/score-stdout.txt" 2>>"$log"
echo "exit $? wall $(echo "$(date +%s.%N) $s" | awk '{printf "%.1f", $1 - $2}') s" | tee -a "$log"
cp -r "$work/nvtools" "$out/nvtools" 2>/dev/null
python3 - "$work/nvtools/score.json" tests/fixtures/gpu/nvtools.expected.json >>"$log" 2>&1 <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); exp = json.load(open(sys.argv[2]))
for e in exp:
    k = d["kernels"][e["index"]]
    s = k.get("sanitizer") or {}
    p = k.get("profile") or {}
    print("entry %d (%s): reason %s (expected %s): %s" % (e["index"], e["kind"], k["reason"], e["reason"], k.get("detail")))
    for t in s.get("tools", []):
        print("   sanitizer %-9s %-8s %6.2f s  errors %s warnings %s api %s exit %s %s" % (t["tool"], t["status"],
              t["seconds"] or 0, t["errors"], t["warnings"], t["api_errors"], t["exit_status"], t.get("error") or ""))
    if p:
        print("   profile %.2f s (kernel %.2f s, golden %s s) error %s" % (p.get("seconds") or 0,
              (p.get("kernel") or {}).get("seconds") or 0, (p.get("golden") or {}).get("seconds"), p.get("error")))
        for line in p.get("diagnosis") or []:
            print("     - " + line)
PY

# every metric: known to --query-metrics, or a column with a number in one of kscore's raw tables
if [ -n "$ncu" ]; then
	python3 - "$work/query.csv" "$out/raw" "$metrics" >"$out/ncu-metrics.txt" <<'PY'
import csv, glob, sys
listed = set()
try:
    for row in csv.reader(open(sys.argv[1])):
        for part in (row[0].split(".") if row else []):
            if "__" in part:
                listed.add(part)  # "FBSP.TriageCompute.dramc__cycles_elapsed", "dram__throughput"
except OSError:
    pass
seen = {}
for f in sorted(glob.glob(sys.argv[2] + "/*-ncu-*.log")):
    rows = list(csv.reader(l for l in open(f, errors="replace") if l.startswith('"')))
    if len(rows) < 3:
        continue
    for i, name in enumerate(rows[0]):
        for r in rows[2:]:
            if i < len(r) and r[i] not in ("", "n/a"):
                seen[name] = r[i]
for m in sys.argv[3].split(","):
    base = m.split(".", 1)[0]
    where = "listed" if base in listed else "not listed"
    if m in seen:
        print("known   %s (%s; collected: %s)" % (m, where, seen[m]))
    else:
        print("%s %s (%s; no number in any raw table)" % ("known  " if where == "listed" else "UNKNOWN", m, where))
PY
fi

# 2. by hand, on the whole score process (fallback raw output in the same formats), each set of
# kernels as a folder of passes
passes perf 0 1 4
passes oob 2
passes race 3
passes clean 4 5
if [ -n "$ncu" ]; then
	say "ncu by hand (raw page, kscore's metric list) on (a), (b), (f) and the golden vadd"
	KSCORE_WORKER_ENV='*' timeout 500 "$ncu" --target-processes all --clock-control none \
		--kernel-name-base mangled -k 'regex:^vadd$' --metrics "$metrics" --csv --page raw \
		--print-units base --print-kernel-base mangled --log-file "$out/direct-ncu-raw.csv" \
		"$bin" --require-gpu --seed 20261122 --refs "$refs" --no-sanitize -q --out "$work/d1" "$work/perf" \
		>>"$log" 2>&1
	echo "exit $?" >>"$log"
fi
if [ -n "$san" ]; then
	for case in "memcheck oob" "memcheck clean" "racecheck race" "racecheck clean" "synccheck clean" "initcheck clean"; do
		set -- $case
		say "compute-sanitizer --tool $1 by hand on $2"
		KSCORE_WORKER_ENV='*' timeout 300 "$san" --tool "$1" --target-processes all --error-exitcode 86 \
			--print-limit 32 --show-backtrace no --report-api-errors no --log-file "$out/direct-$1-$2.%p.log" \
			"$bin" --require-gpu --seed 20261122 --refs "$refs" --no-sanitize --no-timing -q \
			--out "$work/d-$1-$2" "$work/$2" >>"$log" 2>&1
		echo "exit $?" >>"$log"
	done
fi
ls -la "$out/raw" >>"$log" 2>&1
tail -n 80 "$log"
