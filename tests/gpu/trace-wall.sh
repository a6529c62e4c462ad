#!/bin/sh
# The Triton trace's wall on a GPU host (issue 34): provenance of every CUBIN (the bundled fixtures
# trace ok with it, a child's reply carrying a CUBIN built by nvcc or another answer's CUBIN is
# refused), a second answer's child finds nothing of the first in its memory, a probe that compares
# a recompiled CUBIN with the launch's stage by stage, the trace's cost with provenance (cold and
# cached) and without, and the bundled Triton answers scored by `score` with provenance on.
# Needs a python3 with torch and triton (KSCORE_PYTHON, else python3 on PATH), nvcc (PATH or
# /usr/local/cuda/bin) for the forged CUBIN, and KSCORE_BIN and KSCORE_LIBEXEC for the bundled
# answers (skipped without them). Ends within TRACE_WALL_SECONDS (default 280). Logs go to $OUT.
cd "$(dirname "$0")/../.." || exit 2
out="${OUT:-build/gpu-logs}"
mkdir -p "$out"
py="${KSCORE_PYTHON:-$(command -v python3)}"
export KSCORE_PYTHON="$py"
PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 "$py" tests/gpu/trace_wall.py all "$out/trace-wall" \
	"${TRACE_WALL_SECONDS:-280}" >"$out/trace-wall.log" 2>&1
status=$?
grep -E '^(FAIL|SKIP|cost) ' "$out/trace-wall.log"
grep -E '^trace-wall: ' "$out/trace-wall.log" || { echo "trace-wall: 0 passed, 1 failed, 0 skipped"; status=1; }
exit $status
