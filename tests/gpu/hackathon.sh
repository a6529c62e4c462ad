#!/bin/sh
# The hackathon's problems as the hackathon defined them, on a GPU host: the ten TritonBench-G
# reference implementations (a GEAK file written by tests/gpu/reference_answers.py, REFS_FILE) scored
# as Triton answers must be correct on every scored case, and the hackathon goldens are proved
# against their PyTorch references (tests/gpu/validate_goldens.py hackathon), extended cases too.
# Needs KSCORE_BIN and KSCORE_LIBEXEC (as tests/gpu/run.sh) and python3 with torch, triton, cupy.
# Logs go to $OUT; prints "hackathon_refs: N passed, N failed, N skipped".
cd "$(dirname "$0")/../.." || exit 2
out="${OUT:-build/gpu-logs}" work="${WORK:-build/gpu-work}/hackathon"
mkdir -p "$out" "$work"
refs="${REFS_FILE:-$work/references.json}"
[ -f "$refs" ] || python3 tests/gpu/reference_answers.py ../shared/problem-sets/tritonbench-g "$refs" || exit 2
start=$(date +%s)
"$KSCORE_BIN" --require-gpu --seed 1 --suite hackathon --team references --out "$work/references" "$refs" \
	>"$out/hackathon-refs.txt" 2>"$out/hackathon-refs.err"
echo "references scored: exit status $? in $(($(date +%s) - start)) s" >>"$out/hackathon-refs.txt"
python3 - "$work/references/score.json" <<'PY' | tee -a "$out/hackathon-refs.txt"
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except Exception as e:
    print("hackathon_refs: no score.json (%s)" % e)
    print("hackathon_refs: 0 passed, 1 failed, 0 skipped")
    sys.exit(1)
ok = bad = 0
for k in d["kernels"]:
    good = k.get("exec") is True
    ok += good
    bad += not good
    print("%s %-26s %-14s speedup=%s extended=%s %s" % ("PASS" if good else "FAIL", k["problem"], k.get("reason"),
          k.get("speedup"), k.get("extended"), (k.get("detail") or "")[:300].replace("\n", " ")))
print("hackathon_refs: %d passed, %d failed, 0 skipped" % (ok, bad))
sys.exit(1 if bad else 0)
PY
status=$?
timeout "${VALIDATE_TIMEOUT:-300}" python3 tests/gpu/validate_goldens.py --json "$out/validate-hackathon.json" hackathon \
	>"$out/validate-hackathon.txt" 2>&1
echo "validate_goldens hackathon: exit status $?" | tee -a "$out/validate-hackathon.txt"
tail -n 15 "$out/validate-hackathon.txt"
exit $status
