#!/bin/sh
# Runs the libFuzzer targets built into build/fuzz/ (docs/fuzzing.md). Run from anywhere.
#
#   fuzz/run.sh smoke [TARGET...]  replays fuzz/regress/<target>/, then fuzzes each target for
#                                  FUZZ_SMOKE_SECONDS (default 4) from its seeds with a fixed seed
#                                  (FUZZ_SEED, default 1); prints one PASS/FAIL/SKIP line per
#                                  target and per open bug (fuzz/regress/README.md), then
#                                  "fuzz: N passed, N failed, N skipped" (tests/run.sh adds it to
#                                  the suite's line)
#   fuzz/run.sh long [TARGET...]   fuzzes each target for FUZZ_SECONDS (default 600) into its
#                                  corpus build/fuzz/corpus/<target>/, FUZZ_JOBS (default 1)
#                                  targets at a time, and reports executions and the result
#
# FUZZ_FLAGS adds libFuzzer options (e.g. "-fork=1 -ignore_crashes=1 -ignore_timeouts=1" to go on
# past a known crash). A failing input is kept as build/fuzz/artifacts/<target>/crash-* (or
# timeout-*, leak-*, oom-*); once understood, minimise it and keep it in fuzz/regress/<target>/.
cd "$(dirname "$0")/.." || exit 2
mode=${1:-smoke}
[ $# -gt 0 ] && shift
targets=${*:-"submission extract expr plan problem manifest trace nvlog proto pyset drvtrace oracle"}
B=build/fuzz

max_len() {
	case $1 in
	submission|extract) echo 65536 ;;
	expr) echo 4200 ;;
	plan|manifest) echo 16384 ;;
	problem) echo 32768 ;;
	trace) echo 262144 ;;
	nvlog|proto|pyset|oracle) echo 65536 ;;
	drvtrace) echo 131072 ;;
	*) echo 4096 ;;
	esac
}

# json.dict joined with the target's own
dict() {
	d=$B/dict/$1.dict
	mkdir -p $B/dict
	case $1 in
	expr|extract|nvlog|pyset) cat fuzz/dict/$1.dict > $d ;;
	proto) cat fuzz/dict/json.dict fuzz/dict/$1.dict > $d ;;
	*) cat fuzz/dict/json.dict fuzz/dict/$1.dict > $d ;;
	esac
	echo $d
}

# UBSan reports are fatal, except those fuzz/known-bugs.supp lists (bugs being fixed elsewhere)
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:suppressions=$PWD/fuzz/known-bugs.supp"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"
export KSCORE_ROOT="$PWD"

opts() {
	echo "-max_len=$(max_len $1) -rss_limit_mb=2048 -malloc_limit_mb=1024 -timeout=10" \
		"-dict=$(dict $1) -artifact_prefix=$B/artifacts/$1/ -print_final_stats=1"
}

# number of executions in a libFuzzer log
execs() {
	n=$(sed -n 's/^stat::number_of_executed_units: *//p' "$1" | tail -n 1)
	[ -z "$n" ] && n=$(sed -n 's/^#\([0-9][0-9]*\).*/\1/p' "$1" | tail -n 1)
	echo "${n:-0}"
}

artifact() {
	sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$1" | tail -n 1
}

# replays the reproducers of open bugs, fuzz/regress/<target>/open-*, with no known bug let pass:
# one SKIP line each while it still fails, a PASS line once it is fixed
open_bugs() {
	t=$1 bin=$B/fuzz_$1
	for f in $(find fuzz/regress/$t -type f -name 'open-*' 2>/dev/null | sort); do
		# shellcheck disable=SC2086
		if KSCORE_FUZZ_STRICT=1 UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1" \
			$bin $(opts $t) -timeout=2 "$f" > $B/logs/$t-open.log 2>&1; then
			echo "PASS fuzz_$t: $f is fixed: rename it without open- and drop its probe (fuzz/regress/README.md)"
			passed=$((passed + 1))
		else
			echo "SKIP fuzz_$t: $f: open bug, still fails (fuzz/regress/README.md)"
			skipped=$((skipped + 1))
		fi
	done
}

# the regression inputs, then a few seconds of fuzzing from the seeds
smoke() {
	t=$1 bin=$B/fuzz_$1 log=$B/logs/$1-smoke.log
	if [ ! -x "$bin" ]; then
		echo "SKIP fuzz_$t: not built (needs clang and its libFuzzer runtime; make fuzz-build)"
		return 3
	fi
	mkdir -p $B/logs $B/artifacts/$t
	: > "$log"
	regress=$(find fuzz/regress/$t -type f ! -name 'open-*' ! -name '*.md' 2>/dev/null | sort)
	nreg=$(printf '%s\n' "$regress" | grep -c .)
	if [ "$nreg" -gt 0 ]; then
		# shellcheck disable=SC2086
		if ! $bin $(opts $t) $regress >> "$log" 2>&1; then
			echo "FAIL fuzz_$t: a regression input fails again (fuzz/regress/$t/); log $log"
			grep -a -E '^(SUMMARY|Running:|fuzz contract)' "$log" | tail -n 3 | sed 's/^/    /'
			return 1
		fi
	fi
	if [ ! -d $B/corpus/$t/seeds ]; then
		echo "FAIL fuzz_$t: no seeds in $B/corpus/$t/seeds (make fuzz-corpus)"
		return 1
	fi
	out=$(mktemp -d "${TMPDIR:-/tmp}/kscore-fuzz-smoke-XXXXXX")
	# shellcheck disable=SC2086
	$bin $(opts $t) -seed=${FUZZ_SEED:-1} -max_total_time=${FUZZ_SMOKE_SECONDS:-4} \
		"$out" $B/corpus/$t/seeds >> "$log" 2>&1
	rc=$?
	rm -rf "$out"
	if [ $rc -ne 0 ]; then
		echo "FAIL fuzz_$t: libFuzzer exit $rc; input $(artifact "$log"); log $log"
		grep -a -E '^(SUMMARY|fuzz contract|==[0-9]+==ERROR)' "$log" | tail -n 3 | sed 's/^/    /'
		return 1
	fi
	known=$(grep -a '^fuzz: known bug' "$log" | sed -E 's/[0-9]+ ms/N ms/' | sort -u | wc -l)
	note=""
	[ "$known" -gt 0 ] && note=" ($known known bugs let pass, see $log)"
	echo "PASS fuzz_$t: $nreg regression inputs, $(execs "$log") executions in" \
		"${FUZZ_SMOKE_SECONDS:-4} s$note"
	return 0
}

long() {
	t=$1 bin=$B/fuzz_$1 log=$B/logs/$1-long.log
	if [ ! -x "$bin" ]; then
		echo "fuzz_$t: not built (needs clang and its libFuzzer runtime; make fuzz-build)"
		return 3
	fi
	mkdir -p $B/logs $B/artifacts/$t $B/corpus/$t
	start=$(date +%s)
	stamp=$B/logs/$t-long.start
	: > "$stamp"
	# shellcheck disable=SC2086
	$bin $(opts $t) -max_total_time=${FUZZ_SECONDS:-600} ${FUZZ_FLAGS:-} $B/corpus/$t > "$log" 2>&1
	rc=$?
	secs=$(($(date +%s) - start))
	units=$(find $B/corpus/$t -type f | wc -l)
	found=$(find $B/artifacts/$t -type f -newer "$stamp" 2>/dev/null | wc -l)
	if [ $rc -eq 0 ] && [ "$found" -eq 0 ]; then
		echo "fuzz_$t: clean: $(execs "$log") executions in $secs s, corpus $units inputs; log $log"
		return 0
	fi
	echo "fuzz_$t: FAILED (exit $rc): $(execs "$log") executions in $secs s," \
		"$found new inputs in $B/artifacts/$t/; log $log"
	grep -a -E '^(SUMMARY|fuzz contract)' "$log" | sort | uniq -c | head -n 5 | sed 's/^/    /'
	return 1
}

passed=0 failed=0 skipped=0
case $mode in
smoke)
	for t in $targets; do
		smoke "$t"
		case $? in 0) passed=$((passed + 1)) ;; 3) skipped=$((skipped + 1)); continue ;;
		*) failed=$((failed + 1)) ;; esac
		open_bugs "$t"
	done
	echo "fuzz: $passed passed, $failed failed, $skipped skipped"
	[ $failed -eq 0 ]
	;;
long)
	jobs=${FUZZ_JOBS:-1} running=0 status=0 results=$(mktemp)
	for t in $targets; do
		long "$t" >> "$results" &
		running=$((running + 1))
		# in batches of FUZZ_JOBS: the targets all run for the same time
		if [ $running -ge "$jobs" ]; then
			wait
			running=0
		fi
	done
	wait
	cat "$results"
	grep -q -e FAILED -e 'not built' "$results" && status=1
	rm -f "$results"
	exit $status
	;;
*)
	echo "usage: fuzz/run.sh smoke|long [TARGET...]" >&2
	exit 64
	;;
esac
