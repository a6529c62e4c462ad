#!/bin/sh
# bench/multi-gpu.sh: the same work on 1, 2 and 4 GPUs of this host, side by side, in one call (issue
# 24): the whole reference suite as one `score` run (every candidate file on one command line) and a
# synthetic batch of MULTI_TEAMS teams (default 40; bench/synthetic-batch.sh), each with --devices
# 0 / 0,1 / 0,1,2,3 (those the host has; MULTI_GPUS="1 2" picks others), the same seed, every
# GPU's ceilings cached first (score calibrate --devices all) and the compiled kernels cleared
# before each run. bench/multi-report.py prints the table (wall times, speed-ups over one GPU,
# kernels per minute) and whether the verdicts are the same in every run, and writes multi.json.
# bench/run.sh runs it when the host has more than one GPU; on its own, from a packed build:
#   KSCORE_BIN=.gpu/bin/score sh bench/multi-gpu.sh
# Its results (score.json files and walls, no repositories) are saved as $OUT/multi-work.tgz. A
# table longer than one device call (a 40-team batch on one GPU alone takes about 4.5 minutes) is
# made over several calls on the same kind of host: MULTI_GPUS=1 in one, then MULTI_GPUS="2 4"
# MULTI_PRELOAD="first/multi-work.tgz" in the next, which restores the first call's results before
# its own runs and reports every GPU count present (the table then spans calls; it says so).
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
out_default="$root/build/bench-out" work="$root/build/bench-multi" log_name=multi.log packed=1
. "$root/scripts/prelude.sh"
seed=${SEED:-20261122}
teams=${MULTI_TEAMS:-40}
cache="$work/cache/kscore"
ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
[ "$ngpu" -ge 1 ] 2>/dev/null || ngpu=1
counts=${MULTI_GPUS:-}
if [ -z "$counts" ]; then
	for g in 1 2 4; do
		[ "$g" -le "$ngpu" ] && counts="$counts $g"
	done
fi
clear_kernels() { rm -rf "$cache/cubin" "$cache/"[0-9a-f][0-9a-f] 2>/dev/null; }
say "this host has $ngpu GPUs; runs on:$counts"
for t in ${MULTI_PRELOAD:-}; do
	tar xzf "$t" -C "$work" || { say "cannot restore $t"; exit 2; }
	say "restored an earlier call's results: $t"
done
nvidia-smi -L >>"$log" 2>&1
say "ceilings of every GPU (score calibrate --devices all), cached for every run below"
"$bin" calibrate --devices all --cache-dir "$cache" >>"$log" 2>&1
for g in $counts; do
	devs=$(seq -s, 0 $((g - 1)))
	say "the whole suite as one run, --devices $devs"
	mkdir -p "$work/suite-$g"
	for f in "$root"/submissions/candidates/*.json; do
		case "$f" in *expected*) continue ;; esac
		cp "$f" "$work/suite-$g/"
	done
	clear_kernels
	s=$(date +%s.%N)
	(cd "$work/suite-$g" && "$bin" --require-gpu --seed "$seed" -q --devices "$devs" --cache-dir "$cache" \
		--refs "$root/reference_tests" ./*.json) \
		2>>"$log"
	echo "exit $?" >>"$log"
	e=$(date +%s.%N)
	echo "$e $s" | awk '{print $1 - $2}' >"$work/suite-$g.wall"
	say "synthetic batch of $teams teams, --devices $devs"
	clear_kernels
	KEEP="$work/batch-$g.tgz" sh "$root/bench/synthetic-batch.sh" "$teams" --devices "$devs" --seed "$seed" \
		--cache-dir "$cache" >"$work/batch-$g.txt" 2>>"$log"
	cat "$work/batch-$g.txt" >>"$log"
	mkdir -p "$work/batch-$g" && tar xzf "$work/batch-$g.tgz" -C "$work/batch-$g" 2>>"$log"
done
# every count present: this call's and any restored
all=$(for f in "$work"/suite-*.wall; do [ -e "$f" ] && basename "$f" .wall | cut -d- -f2; done | sort -n | tr '\n' ' ')
: >"$out/multi.txt"
[ -n "${MULTI_PRELOAD:-}" ] && echo "(the GPU counts of this table come from more than one device call: $all; restored: $MULTI_PRELOAD)" >>"$out/multi.txt"
python3 "$root/bench/multi-report.py" "$work" $all >>"$out/multi.txt" 2>>"$log"
tar czf "$out/multi-work.tgz" -C "$work" --exclude=cache --exclude='*.tgz' --exclude=repos \
	$(cd "$work" && ls -d suite-* batch-* 2>/dev/null) 2>>"$log"
cp "$work/multi.json" "$out/multi.json" 2>/dev/null
cat "$out/multi.txt"
