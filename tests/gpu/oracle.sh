#!/bin/sh
# The oracle on real sets, on a GPU host (issue 36): `score problems --refs DIR --cases --json` over
# every TritonBench-G reference and over KernelBench level1, in chunks run in parallel (one oracle
# helper each), then a report per set (tests/gpu/oracle_report.py: problems with cases, the reasons
# of those without, grouped, refused cases, notes, confinement, seconds per problem), and
# `materialize` under two seeds for a few problems (tests/gpu/oracle_materialize.py: files, bytes).
# Ends within ORACLE_BUDGET seconds (default 280) and prints one summary line:
#   oracle: N passed, N failed, N skipped
# Needs KSCORE_BIN (score), KSCORE_LIBEXEC (kscore-oracle and kscore_oracle/, kscore-triton and
# kscore_triton/ beside it), python3 with torch and triton on PATH (or KSCORE_PYTHON), SETS (default
# ../shared/problem-sets: tritonbench-g/ and kernelbench/ as they are shipped). Logs go to $OUT.
# ORACLE_JOBS (default 8) chunks run at once; ORACLE_UNCONFINED=1 runs the sets' code without
# Landlock; ORACLE_ONLY=tb or kb runs one set.
cd "$(dirname "$0")/../.." || exit 2
out="${OUT:-build/gpu-logs}" sets="${SETS:-../shared/problem-sets}" jobs="${ORACLE_JOBS:-8}"
work="${WORK:-build/gpu-work}/oracle"
budget="${ORACLE_BUDGET:-280}"
score="${KSCORE_BIN:-build/score}"
py="${KSCORE_PYTHON:-$(command -v python3)}"
export KSCORE_PYTHON="$py"
rm -rf "$work"
mkdir -p "$out" "$work"
log="$out/oracle.log"
start=$(date +%s)
deadline=$((start + budget - 25)) # what the reports and materialize need after the chunks
extra=""
[ -n "${ORACLE_UNCONFINED:-}" ] && extra="--unconfined"
{
	echo "python: $py ($("$py" -c 'import sys, torch, triton; print(sys.version.split()[0], "torch", torch.__version__, "triton", triton.__version__, "cuda", torch.cuda.is_available())' 2>&1 | tail -n 1))"
	echo "score: $score; libexec: ${KSCORE_LIBEXEC:-unset}; sets: $sets"
	ls "${KSCORE_LIBEXEC:-build}" 2>&1 | tr '\n' ' '
	echo
	nvidia-smi --query-gpu=name,memory.used,memory.total --format=csv,noheader 2>&1 | head -n 2
} >"$log"

# names DIR: the problem names of the set in DIR, one a line
names() {
	"$score" problems --refs "$1" --json 2>/dev/null | python3 -c 'import json, sys; [print(p["name"]) for p in json.load(sys.stdin)["problems"]]'
}

# run_set LABEL DIR PER_CHUNK TIMEOUT: the set's problems in chunks, ORACLE_JOBS at a time
run_set() {
	label=$1 dir=$2 per=$3 tmo=$4
	names "$dir" >"$work/$label.names"
	n=$(wc -l <"$work/$label.names")
	echo "$label: $n problems in $dir" >>"$log"
	split -l "$per" -d -a 3 "$work/$label.names" "$work/$label.chunk."
	for c in "$work/$label".chunk.*; do echo "$c"; done >"$work/$label.chunks"
	# each chunk gets what is left of the budget, at most 240 s
	xargs -P "$jobs" -I{} sh -c '
		c={}; left=$(('"$deadline"' - $(date +%s))); [ $left -gt 240 ] && left=240
		if [ $left -lt 5 ]; then echo "skipped: no time left" >$c.err; exit 0; fi
		timeout $left "'"$score"'" problems --refs "'"$dir"'" --cases --json --oracle-timeout '"$tmo"' '"$extra"' \
			--only "$(paste -sd, $c)" >$c.json 2>$c.err
		echo "$c: exit $? after $(( $(date +%s) - '"$start"' )) s" >>$c.err' <"$work/$label.chunks"
	cat "$work/$label".chunk.*.err >>"$log" 2>/dev/null
	python3 tests/gpu/oracle_report.py "$label" "$n" $(ls "$work/$label".chunk.*.json 2>/dev/null) >>"$log" 2>&1
}

status=0
only="${ORACLE_ONLY:-all}"
tb="$sets/tritonbench-g" kb="$sets/kernelbench/level1"
[ "$only" = kb ] || [ -d "$tb/reference" ] || { echo "no TritonBench-G set at $tb (set SETS)" >>"$log"; status=1; }
[ "$only" = tb ] || [ -d "$kb" ] || { echo "no KernelBench level1 at $kb (set SETS)" >>"$log"; status=1; }
# materialize: a few problems of each set, under two seeds, beside the chunks
(
	m="$work/materialize" && mkdir -p "$m"
	for s in tb kb; do
		[ "$only" = all ] || [ "$only" = $s ] || continue
		if [ $s = tb ]; then d=$tb f=tritonbench-g p="${ORACLE_MATERIALIZE_TB:-add_example adam_update_triton matrix_transpose}"
		else d=$kb f=kernelbench p="${ORACLE_MATERIALIZE_KB:-19_ReLU 1_Square_matrix_multiplication_}"; fi
		[ -d "$d" ] || continue
		"$score" problems --refs "$d" --json >"$m/$s.listing.json" 2>/dev/null
		timeout $((deadline - $(date +%s) + 15)) "$py" tests/gpu/oracle_materialize.py "${KSCORE_LIBEXEC:-build}/kscore-oracle" \
			"$m" $f "$m/$s.listing.json" $p 2>&1 | sed "s/^oracle_materialize:/oracle_materialize_$s:/"
	done >"$work/materialize.log"
) &
mpid=$!
pids=$mpid
if [ "$only" != kb ] && [ -d "$tb/reference" ]; then run_set tritonbench_g "$tb" 8 90 & pids="$pids $!"; fi
if [ "$only" != tb ] && [ -d "$kb" ]; then run_set kernelbench_level1 "$kb" 10 60 & pids="$pids $!"; fi
wait $pids
echo "== materialize" >>"$log"
cat "$work/materialize.log" >>"$log" 2>/dev/null
echo "total: $(( $(date +%s) - start )) s" >>"$log"
cp "$work"/*.chunk.*.json "$out/" 2>/dev/null
# the JSON of every chunk, merged into one file per set for the lead to read back
for s in tritonbench_g kernelbench_level1; do
	ls "$work/$s".chunk.*.json >/dev/null 2>&1 && python3 -c 'import json, sys
out = {"problems": []}
for f in sys.argv[1:]:
    try:
        d = json.load(open(f))
    except ValueError:
        continue
    out["problems"] += d.get("problems", [])
    out.update({k: v for k, v in d.items() if k not in ("problems", "summary")})
json.dump(out, open(sys.argv[1].rsplit(".chunk.", 1)[0] + ".json", "w"), indent=1)' "$work/$s".chunk.*.json && cp "$work/$s.json" "$out/"
done
rm -f "$out"/*.chunk.*.json
cat "$log"
# the summary: every set's and materialize's lines added up
grep -hE '^oracle_[a-z_0-9]+: [0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' "$log" | awk -v st=$status '
	{ p += $2; f += $4; s += $6 }
	END { if (NR == 0) f += 1; f += st; printf "oracle: %d passed, %d failed, %d skipped\n", p, f, s }'
