#!/bin/sh
# Compile compatibility (docs/benchmarks.md): compiles every kernel of the corpus
# (tests/fixtures/compat-corpus) with nvcc and with kscore's compile helper, without and with
# kscore's compatibility headers, and prints the compile rates and median compile times.
# Needs a build (make) and python3; nvcc where it is installed. Options are passed on to
# bench/compile-rate.py (--reps N, --json FILE, --before-helper PATH, --nvcc none, ...).
root=$(cd "$(dirname "$0")/.." && pwd)
[ -x "$root/build/kscore-compile" ] || { echo "compile-rate: run make first" >&2; exit 2; }
exec python3 "$root/bench/compile-rate.py" "$@"
