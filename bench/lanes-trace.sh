#!/bin/sh
# bench/lanes-trace.sh: where the wall time of a run on several GPUs goes (issue 24). With
# KSCORE_TRACE=1, the whole reference suite as one run on 1 and on 2 GPUs (more with LANES_GPUS="1 2
# 4"), then a small synthetic batch (LANES_TEAMS teams, default 3, batch defaults) on one GPU; each
# followed by bench/trace-report.py's split (requests, lane start, compiles, sanitizer runs, each lane
# thread's busy time). From a packed build (.gpu/) or KSCORE_BIN; writes to $OUT (default
# build/lanes-trace-out).
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
out_default="$root/build/lanes-trace-out" work="$root/build/lanes-trace" log_name=lanes-trace.txt packed=1
. "$root/scripts/prelude.sh"
seed=${SEED:-20261122}
cache="$work/cache/kscore"
"$bin" calibrate --devices all --cache-dir "$cache" >>"$log" 2>&1
for g in ${LANES_GPUS:-1 2}; do
	devs=$(seq -s, 0 $((g - 1)))
	rm -rf "$cache/cubin" "$cache/"[0-9a-f][0-9a-f]
	mkdir -p "$work/suite-$g"
	for f in "$root"/submissions/candidates/*.json; do
		case "$f" in *expected*) continue ;; esac
		cp "$f" "$work/suite-$g/"
	done
	s=$(date +%s.%N)
	(cd "$work/suite-$g" && KSCORE_TRACE=1 "$bin" --require-gpu --seed "$seed" -q --devices "$devs" \
		--cache-dir "$cache" --refs "$root/reference_tests" ./*.json) 2>"$work/suite-$g.trace"
	rc=$?
	e=$(date +%s.%N)
	say "suite on $g GPUs: exit $rc, wall $(echo "$e $s" | awk '{print $1 - $2}') s"
	python3 "$root/bench/trace-report.py" "$work/suite-$g.trace" >>"$log" 2>&1
done
teams=${LANES_TEAMS:-3}
mkdir -p "$work/batch" && cd "$work/batch" || exit 2
export HOME="$work/batch" GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME=b GIT_AUTHOR_EMAIL=b@example.org \
	GIT_COMMITTER_NAME=b GIT_COMMITTER_EMAIL=b@example.org
. "$root/bench/teams.sh"
make_teams "$teams"
rm -rf "$cache/cubin" "$cache/"[0-9a-f][0-9a-f]
s=$(date +%s.%N)
KSCORE_TRACE=1 "$bin" batch teams.json --require-gpu -q --no-site --seed "$seed" --cache-dir "$cache" \
	--refs "$root/reference_tests" --devices 0 >batch.out 2>"$work/batch.trace"
rc=$?
e=$(date +%s.%N)
say "batch of $teams teams on 1 GPU: exit $rc, wall $(echo "$e $s" | awk '{print $1 - $2}') s"
python3 "$root/bench/trace-report.py" "$work/batch.trace" >>"$log" 2>&1
cd "$root" && tar czf "$out/lanes-trace.tgz" -C "$work" --exclude=cache --exclude=repos . 2>/dev/null
cat "$log"
