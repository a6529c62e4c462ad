#!/bin/sh
# Runs every test binary, then the fuzz smoke tests, and prints the suite's final line:
# "N passed, N failed, N skipped".
# Tests find the freshly built helpers through KSCORE_LIBEXEC and the sanitized score binary
# through KSCORE_BIN.
cd "$(dirname "$0")/.." || exit 2
export KSCORE_LIBEXEC="$PWD/build"
export KSCORE_BIN="$PWD/build/test/score"
export KSCORE_ROOT="$PWD"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1}"
passed=0 failed=0 skipped=0 broken=""
for t in build/test/test_*; do
	[ -x "$t" ] || continue
	out=$("$t" 2>&1)
	rc=$?
	printf '%s\n' "$out"
	line=$(printf '%s\n' "$out" | grep -E '^[a-z_0-9]+: [0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' | tail -n 1)
	if [ -z "$line" ]; then
		broken="$broken $t"
		failed=$((failed + 1))
		continue
	fi
	set -- $(printf '%s\n' "$line" | sed -E 's/^[^:]+: ([0-9]+) passed, ([0-9]+) failed, ([0-9]+) skipped$/\1 \2 \3/')
	passed=$((passed + $1)); failed=$((failed + $2)); skipped=$((skipped + $3))
	[ "$rc" -ne 0 ] && [ "$2" -eq 0 ] && { broken="$broken $t"; failed=$((failed + 1)); }
done
# add_summary NAME CMD...: runs CMD, prints its output and adds its "NAME: N passed, N failed,
# N skipped" line to the totals (a missing line counts as a failure)
add_summary() {
	name=$1; shift
	out=$("$@" 2>&1)
	printf '%s\n' "$out"
	line=$(printf '%s\n' "$out" | grep -E "^$name: [0-9]+ passed, [0-9]+ failed, [0-9]+ skipped\$" | tail -n 1)
	if [ -z "$line" ]; then
		broken="$broken $*"
		failed=$((failed + 1))
		return
	fi
	set -- $(printf '%s\n' "$line" | sed -E 's/^[^:]+: ([0-9]+) passed, ([0-9]+) failed, ([0-9]+) skipped$/\1 \2 \3/')
	passed=$((passed + $1)); failed=$((failed + $2)); skipped=$((skipped + $3))
}
# the fuzz targets: a few seconds each and their regression inputs (fuzz/run.sh; skipped by name
# where clang's libFuzzer runtime is missing)
add_summary fuzz sh fuzz/run.sh smoke
# the installed library: headers, libkscore.a/.so, kscore.pc, the example program built against them
add_summary install sh tests/install.sh
# the Triton helper's Python tests (tests using torch, triton or a GPU skip by name without them)
add_summary triton_py python3 tests/triton/run.py
# the oracle helper's Python tests (a stand-in torch: they need only Python)
add_summary oracle_py python3 tests/oracle/run.py
[ -n "$broken" ] && echo "test binaries that crashed or printed no summary:$broken"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
