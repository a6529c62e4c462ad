#!/bin/sh
# make bench: the scorer's own speed on a GPU host (docs/benchmarks.md says how to read it).
# Uses build/ (or a packed .gpu/ when KSCORE_BIN is set), writes logs and bench.json to $OUT
# (default build/bench-out). Steps, each timed:
#   1. the bundled example with an empty compile cache (cold NVRTC), then again (cached), same seed
#   2. every honest-candidate file (the whole reference suite), from an empty compile cache
#   3. the same files again with --devices 0,0 (two lanes on one GPU, timings marked shared), from an
#      empty compile cache too
#   4. repeatability: step 1's two runs compared kernel by kernel
#   5. a synthetic batch of BENCH_TEAMS teams (default 5; 0: none) with `score batch`'s defaults
#      (bench/synthetic-batch.sh): kernels scored per minute
#   6. Nsight Compute (if present, --clock-control none) on one golden kernel, against kscore's median
#   7. on a host of several GPUs, the 1/2/4-GPU table (bench/multi-gpu.sh: the suite as one run and
#      a synthetic batch of MULTI_TEAMS teams on 1, 2 and 4 GPUs, side by side); on one GPU it says so
#   8. what starting and ending 1 to 16 CUDA processes at once costs, with the driver's default
#      hardware queues and with the one kscore gives its workers (bench/ctx-probe.sh)
# Each run's process wall time goes to $work/<run>.wall (bench/report.py reads it).
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
out_default="$root/build/bench-out" work="$root/build/bench-work" log_name=bench.log packed=0
. "$root/scripts/prelude.sh"
seed=20261122
ex=submissions/example/reflexion_oneshot_tritonbench_4.json
# run NAME ARGS...: score ARGS with the seed, into $work/NAME, its process wall time in $work/NAME.wall
run() {
	name=$1
	shift
	s=$(date +%s.%N)
	"$bin" --require-gpu --seed $seed -q --out "$work/$name" "$@" 2>>"$log"
	e=$(date +%s.%N)
	echo "$e $s" | awk '{print $1 - $2}' >"$work/$name.wall"
	echo "wall $(cat "$work/$name.wall")" >>"$log"
}

echo "== calibrate (measured once, then cached)" | tee -a "$log"
"$bin" calibrate >>"$log" 2>&1
echo "== example, cold compile cache" | tee -a "$log"
rm -rf "$work/cache/kscore/cubin" "$work/cache/kscore/"[0-9a-f][0-9a-f] 2>/dev/null
run ex-cold "$ex"
echo "== example, cached" | tee -a "$log"
run ex-warm "$ex"
rm -rf "$work/cache/kscore/cubin" "$work/cache/kscore/"[0-9a-f][0-9a-f] 2>/dev/null
for f in submissions/candidates/*.json; do
	case "$f" in *expected*) continue ;; esac
	n=$(basename "$f" .json)
	echo "== suite candidates $n" | tee -a "$log"
	run "cand-$n" "$f"
done
rm -rf "$work/cache/kscore/cubin" "$work/cache/kscore/"[0-9a-f][0-9a-f] 2>/dev/null
for f in submissions/candidates/*.json; do
	case "$f" in *expected*) continue ;; esac
	n=$(basename "$f" .json)
	echo "== suite candidates $n, --devices 0,0, cold compile cache" | tee -a "$log"
	run "dev00-$n" --devices 0,0 "$f"
done
teams=${BENCH_TEAMS:-5}
if [ "$teams" -gt 0 ]; then
	echo "== synthetic batch: $teams teams of the hackathon candidates (score batch defaults)" | tee -a "$log"
	sh bench/synthetic-batch.sh "$teams" >"$work/synthetic.txt" 2>>"$log"
	cat "$work/synthetic.txt" >>"$log"
fi
if command -v ncu >/dev/null 2>&1; then
	echo "== Nsight Compute: sin_kernel golden, --clock-control none" | tee -a "$log"
	python3 - "$ex" "$work/sin.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
json.dump([e for e in d if e["file"].startswith("sin_kernel")], open(sys.argv[2], "w"))
PY
	KSCORE_WORKER_ENV='*' timeout 300 ncu --target-processes all --clock-control none --metrics gpu__time_duration.sum \
		-k regex:'^sin_kernel_golden$' --csv "$bin" --require-gpu --seed $seed -q --out "$work/ncu-run" \
		"$work/sin.json" >"$work/ncu.csv" 2>>"$log"
	echo "ncu exit $?" >>"$log"
fi
python3 bench/report.py "$work" >"$out/bench.txt" 2>>"$log"
cp "$work/bench.json" "$out/bench.json" 2>/dev/null
cp "$work/ncu.csv" "$out/ncu.csv" 2>/dev/null
cat "$out/bench.txt"
ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
if [ "${ngpu:-0}" -gt 1 ]; then
	echo
	echo "== $ngpu GPUs: the suite and a synthetic batch on 1, 2 and 4 of them (bench/multi-gpu.sh)"
	KSCORE_BIN="$bin" OUT="$out" sh bench/multi-gpu.sh
else
	echo
	echo "one GPU on this host: the 1/2/4-GPU table (bench/multi-gpu.sh) needs a host with several"
fi
echo
echo "== starting and ending CUDA processes, several at once (bench/ctx-probe.sh)"
OUT="$out" sh bench/ctx-probe.sh
