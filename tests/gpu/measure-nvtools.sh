#!/bin/sh
# What the sanitizer stage and the profile stage cost, for choosing the defaults in
# src/nvtool/sanitize.h (KS_SANITIZE_DEFAULT_SCORE, KS_SANITIZE_DEFAULT_BATCH, KS_SANITIZE_DEFAULT_TOOLS):
# `score batch` runs the sanitizer by default unless it more than doubles the wall time.
#     sh scripts/gpu-session.sh measure-nvtools      (or: sh tests/gpu/measure-nvtools.sh)
# Environment: FILES (default: the bundled example, then every honest-candidate file of the
# reference suite), TOOLS (default: "memcheck racecheck synccheck initcheck"), PROFILE=0 to skip the
# profile runs. Each file is scored once without any stage (cached compiles, so only GPU work
# differs), then once per tool, then with --profile=all; results in $OUT (default
# build/nvtools-measure): measure.txt (the table), measure.log, the score.json of every run.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
out_default="$root/build/nvtools-measure" work="$root/build/nvtools-measure-work" log_name=measure.log packed=1
. "$root/scripts/prelude.sh"
files="${FILES:-submissions/example/reflexion_oneshot_tritonbench_4.json $(ls submissions/candidates/*.json | grep -v expected)}"
tools="${TOOLS:-memcheck racecheck synccheck initcheck}"
seed=20261122

run() { # name file args...
	name=$1; f=$2; shift 2
	s=$(date +%s.%N)
	"$bin" --require-gpu --seed $seed -q --out "$work/$name" "$@" "$f" 2>>"$log"
	st=$?
	e=$(date +%s.%N)
	echo "$name $(echo "$e $s" | awk '{printf "%.2f", $1 - $2}') exit $st" | tee -a "$log" >>"$work/walls"
	cp "$work/$name/score.json" "$out/$name.score.json" 2>/dev/null
}

"$bin" calibrate >>"$log" 2>&1
for f in $files; do
	n=$(basename "$f" .json)
	echo "== $f" | tee -a "$log"
	run "$n-warmup" "$f" --no-sanitize   # fills the compile cache: later runs differ only in GPU work
	run "$n-none" "$f" --no-sanitize
	for t in $tools; do
		run "$n-$t" "$f" --sanitize="$t"
	done
	[ "${PROFILE:-1}" = 0 ] || run "$n-profile" "$f" --no-sanitize --profile=all
done
python3 - "$work/walls" "$out" $files <<'PY' | tee "$out/measure.txt"
import json, os, sys
walls = {}
for line in open(sys.argv[1]):
    name, secs, _, st = line.split()
    walls[name] = (float(secs), st)
out = sys.argv[2]
print("%-34s %-10s %9s %9s %7s %8s %9s %s" % ("file", "stage", "wall s", "base s", "ratio", "kernels",
                                              "s/kernel", "verdict changes"))
for f in sys.argv[3:]:
    n = os.path.basename(f)[:-5]
    base = walls.get(n + "-none", (float("nan"), ""))[0]
    try:
        ref = {(k["pass"], k["index"]): k["reason"] for k in json.load(open("%s/%s-none.score.json" % (out, n)))["kernels"]}
    except Exception:
        ref = {}
    for stage in [s for s in ("memcheck", "racecheck", "synccheck", "initcheck", "profile") if n + "-" + s in walls]:
        w = walls[n + "-" + stage][0]
        per, cnt, changes = 0.0, 0, []
        try:
            d = json.load(open("%s/%s-%s.score.json" % (out, n, stage)))
            for k in d["kernels"]:
                rec = k.get("profile" if stage == "profile" else "sanitizer")
                if rec and rec.get("seconds") is not None:
                    per += rec["seconds"]
                    cnt += 1
                if ref.get((k["pass"], k["index"])) not in (None, k["reason"]):
                    changes.append("%s:%s->%s" % (k["problem"], ref[(k["pass"], k["index"])], k["reason"]))
        except Exception as e:
            changes.append("(no score.json: %s)" % e)
        print("%-34s %-10s %9.1f %9.1f %7.2f %8d %9.2f %s" % (n[:34], stage, w, base, w / base if base else float("nan"),
              cnt, per / cnt if cnt else float("nan"), " ".join(changes) or "-"))
PY
