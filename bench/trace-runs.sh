#!/bin/sh
# Traced scoring runs for docs/benchmarks.md ("Where the wall time goes"): the bundled example
# (cold compile cache, then cached) and each honest-candidate file, with KSCORE_TRACE=1, each
# followed by bench/trace-report.py's split of its wall time. From build/ or a packed .gpu/
# (KSCORE_BIN); writes to $OUT (default build/trace-out).
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
out_default="$root/build/trace-out" work="$root/build/trace-work" log_name=trace.txt packed=1
. "$root/scripts/prelude.sh"
"$bin" calibrate >/dev/null 2>&1
trace() {
	name=$1
	shift
	KSCORE_TRACE=1 "$bin" --require-gpu --seed 20261122 -q --out "$work/$name" "$@" 2>"$work/$name.trace"
	echo "== $name (exit $?, wall $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["wall_seconds"])' "$work/$name/score.json") s)"
	python3 bench/trace-report.py "$work/$name.trace" --json "$work/$name.trace.json"
}
{
	trace ex-cold submissions/example/reflexion_oneshot_tritonbench_4.json
	trace ex-warm submissions/example/reflexion_oneshot_tritonbench_4.json
	for f in submissions/candidates/*.json; do
		case "$f" in *expected*) continue ;; esac
		trace "cand-$(basename "$f" .json)" "$f"
	done
} >"$log" 2>&1
tar czf "$out/traces.tgz" -C "$work" --exclude=cache . 2>/dev/null
cat "$log"
