#!/bin/sh
# Triton answers on a GPU host (issue 22, "Done means"): the helper's own tests, the bundled Triton
# answers scored and compared with submissions/triton/expected.json, and kscore's times against
# triton.testing.do_bench on three problems. Needs KSCORE_BIN and KSCORE_LIBEXEC (as tests/gpu/run.sh)
# and a python3 with torch and triton on PATH (or KSCORE_PYTHON). Logs go to $OUT.
cd "$(dirname "$0")/../.." || exit 2
out="${OUT:-build/gpu-logs}" work="${WORK:-build/gpu-work}/triton"
mkdir -p "$out" "$work/keep"
py="${KSCORE_PYTHON:-$(command -v python3)}"
export KSCORE_PYTHON="$py"
status=0
echo "python: $py" >"$out/triton.log"
# TRITON_SKIP_PY=1: the answers only (the helper's own tests take a minute)
[ -n "${TRITON_SKIP_PY:-}" ] || PYTHONUNBUFFERED=1 "$py" tests/triton/run.py >>"$out/triton.log" 2>&1 || status=1
for f in reflexion_oneshot_tritonbench_triton levels_triton attacks_triton; do
	start=$(date +%s)
	KSCORE_TRITON_KEEP="$work/keep" timeout "${TRITON_FILE_TIMEOUT:-600}" "$KSCORE_BIN" --require-gpu --seed 1 ${TRITON_SCORE_ARGS:-} --team triton --out "$work/$f" \
		"submissions/triton/$f.json" >"$work/$f.txt" 2>"$work/$f.err"
	echo "$f: exit status $? in $(($(date +%s) - start)) s" >>"$out/triton.log"
	cat "$work/$f.txt" >>"$out/triton.log"
done
"$py" tests/gpu/triton_expected.py submissions/triton/expected.json "$work" >>"$out/triton.log" 2>&1 || status=1
PYTHONUNBUFFERED=1 "$py" tests/gpu/triton_do_bench.py "$work/keep" \
	"$work/reflexion_oneshot_tritonbench_triton/score.json" \
	submissions/triton/reflexion_oneshot_tritonbench_triton.json sin_kernel triton_matmul l2_norm_triton1 \
	>>"$out/triton.log" 2>&1 || status=1
grep -E '^(triton_py|triton_expected|triton_do_bench):' "$out/triton.log"
exit $status
