#!/bin/sh
# One device call's worth of GPU work, from a build packed with gpu-pack into .gpu/:
#   sh scripts/gpu-session.sh STEP...
# Steps: calibrate (measure the ceilings), bench (make bench), triton (the Triton answers,
# tests/gpu/triton.sh), trace (bench/trace-runs.sh: where the
# wall time goes, from KSCORE_TRACE), lanes-trace (bench/lanes-trace.sh: the same on 1 and 2 GPUs
# and for a batch), tests (the GPU suite), example (score the bundled example), candidates (score every
# honest candidate file), validate (prove the golden kernels against PyTorch and time them),
# capture-nvtools and measure-nvtools (tests/gpu/: real ncu and compute-sanitizer output, and the cost
# of the sanitizer and profile stages; their files land in $OUT/nvtools*).
# Everything lands in $OUT (or build/gpu-out): session.log and results.tgz.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
out_default="$root/build/gpu-out" work="$root/build/gpu-work" log_name=session.log packed=0
. "$root/scripts/prelude.sh"
# the packed build always, whatever the environment names
export LD_LIBRARY_PATH="$root/.gpu/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export KSCORE_BIN="$root/.gpu/bin/score" KSCORE_LIBEXEC="$root/.gpu/bin" KSCORE_GPU_TEST="$root/.gpu/bin/test_gpu"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv >>"$log" 2>&1
for step in "$@"; do
	t0=$(date +%s)
	case "$step" in
	calibrate)
		say "calibrate"
		"$KSCORE_BIN" calibrate --force >>"$log" 2>&1
		echo "exit status $?" >>"$log"
		;;
	triton)
		say "Triton answers (tests/gpu/triton.sh)"
		OUT="$work" WORK="$work" sh tests/gpu/triton.sh >>"$log" 2>&1
		echo "exit status $?" >>"$log"
		;;
	tests)
		say "GPU test suite"
		OUT="$work" sh tests/gpu/run.sh >>"$log" 2>&1
		;;
	example)
		say "bundled example"
		"$KSCORE_BIN" --require-gpu --team example --out "$work/example" \
			submissions/example/reflexion_oneshot_tritonbench_4.json >>"$log" 2>&1
		echo "exit status $?" >>"$log"
		;;
	candidates)
		for f in submissions/candidates/*.json; do
			case "$f" in *expected*) continue ;; esac
			say "candidates $f"
			"$KSCORE_BIN" --require-gpu --out "$work/cand-$(basename "$f" .json)" "$f" >>"$log" 2>&1
			echo "exit status $?" >>"$log"
		done
		;;
	validate)
		say "validate goldens"
		timeout 420 python3 tests/gpu/validate_goldens.py --perf --json "$work/validate.json" ${VALIDATE_ONLY:-} >>"$log" 2>&1
		echo "exit status $?" >>"$log"
		;;
	check-refs)
		say "check-refs"
		"$KSCORE_BIN" check-refs --json "$work/check-refs.json" >>"$log" 2>&1
		echo "exit status $?" >>"$log"
		;;
	bench)
		say "bench"
		OUT="$work" KSCORE_BIN="$KSCORE_BIN" sh bench/run.sh >>"$log" 2>&1
		;;
	trace)
		say "traced runs (where the wall time goes)"
		OUT="$work/trace" KSCORE_BIN="$KSCORE_BIN" sh bench/trace-runs.sh >>"$log" 2>&1
		;;
	lanes-trace)
		say "traced runs on 1 and 2 GPUs and a small batch (bench/lanes-trace.sh)"
		OUT="$work/lanes-trace" KSCORE_BIN="$KSCORE_BIN" sh bench/lanes-trace.sh >>"$log" 2>&1
		;;
	capture-nvtools)
		say "capture-nvtools (real ncu and compute-sanitizer output)"
		OUT="$out/nvtools" sh tests/gpu/capture-nvtools.sh >>"$log" 2>&1
		;;
	measure-nvtools)
		say "measure-nvtools (cost of the sanitizer and profile stages)"
		OUT="$out/nvtools-measure" sh tests/gpu/measure-nvtools.sh >>"$log" 2>&1
		;;
	*)
		say "unknown step $step"
		;;
	esac
	echo "($step took $(( $(date +%s) - t0 )) s)" >>"$log"
done
tar czf "$out/results.tgz" -C "$work" --exclude=cache . 2>>"$log"
tail -n 60 "$log"
