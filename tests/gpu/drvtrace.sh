#!/bin/sh
# The driver-level tracer on a GPU host (docs/drvtrace.md): small CUDA programs built with nvcc and
# torch / Triton forwards, each run under CUDA_INJECTION64_PATH, their traces read by the scorer's
# reader (drvtrace_check), two recorded forwards compared, and forward times with and without the
# tracer. Needs KSCORE_LIBEXEC (the folder with libkscore-cupti.so and drvtrace_check; default
# build/ and build/gpu/), python3 with torch and triton, nvcc; logs and traces go to $OUT.
# Prints "drvtrace: N passed, N failed, N skipped".
cd "$(dirname "$0")/../.." || exit 2
out="${OUT:-build/gpu-logs}/drvtrace"
mkdir -p "$out"
bin="${KSCORE_LIBEXEC:-build}"
lib="$bin/libkscore-cupti.so"; [ -f "$lib" ] || lib=build/libkscore-cupti.so
chk="$bin/drvtrace_check"; [ -x "$chk" ] || chk=build/gpu/drvtrace_check
lib=$(cd "$(dirname "$lib")" && pwd)/$(basename "$lib")
py="${KSCORE_PYTHON:-python3}"
pass=0 fail=0 skip=0
ok() { pass=$((pass + 1)); echo "PASS $*"; }
no() { fail=$((fail + 1)); echo "FAIL $*"; }
sk() { skip=$((skip + 1)); echo "SKIP $*"; }
echo "library: $lib"; nm -D --defined-only "$lib" | sed 's/^/  /'
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | sed 's/^/gpu: /'

# trace NAME MIN CMD...: runs CMD under the tracer into $out/NAME, reads it
trace() {
	name=$1 min=$2; shift 2
	rm -rf "$out/$name"; mkdir -p "$out/$name"
	if ! CUDA_INJECTION64_PATH="$lib" KSCORE_DRVTRACE_DIR="$out/$name" timeout 120 "$@" >"$out/$name.log" 2>&1; then
		no "$name: the traced program failed (log $out/$name.log)"; tail -n 5 "$out/$name.log"; return 1
	fi
	"$chk" "$out/$name" "$min" >"$out/$name.check" 2>&1; rc=$?
	grep -E '^(summary|untraceable|unreadable)' "$out/$name.check"
	head -n 12 "$out/$name.check" | grep '^launch' | sed 's/^/  /'
	if [ $rc -eq 0 ]; then ok "$name: read, >= $min launches, layouts and ELF modules"; else no "$name: $out/$name.check"; fi
}

if command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]; then
	nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
	if "$nvcc" -arch=sm_90a -o "${TMPDIR:-/tmp}/kscore-drvtrace-progs" tests/gpu/drvtrace/progs.cu -lcuda >"$out/nvcc.log" 2>&1; then
		if trace progs 3 "${TMPDIR:-/tmp}/kscore-drvtrace-progs"; then
			c=$(grep -c '^launch' "$out/progs.check")
			[ "$c" -eq 3 ] && ok "progs: 3 launches" || no "progs: $c launches, expected 3"
			grep -q '^launch 0 .*scale_struct.* ptrs 2' "$out/progs.check" && ok "progs: the struct's embedded pointer and the input classified" || no "progs: pointers of launch 0 (see $out/progs.check)"
			grep -q 'cluster_add' "$out/progs.check" && ok "progs: the cluster launch recorded" || no "progs: no cluster_add"
			grep -q '"id":4,"v":\[2,1,1\]' "$out/progs"/trace-*.jsonl && ok "progs: the cluster attribute recorded" || no "progs: no cluster attribute in the trace"
			grep -q '"k":"copy".*"dir":"htod".*"data"' "$out/progs"/trace-*.jsonl && ok "progs: the host-to-device copy kept its bytes" || no "progs: no kept copy"
		fi
	else
		no "progs: nvcc failed ($out/nvcc.log)"
	fi
else
	sk "progs: no nvcc"
fi

if "$py" -c 'import torch; assert torch.cuda.is_available()' 2>/dev/null; then
	for m in matmul relu softmax layernorm conv triton; do
		export KSCORE_DRVTRACE_RECORD=0
		trace "$m" 2 "$py" tests/gpu/drvtrace/forward.py "$m" "$lib" || continue
		unset KSCORE_DRVTRACE_RECORD
		# the two recorded forwards launch the same sequence (names, grids, blocks, sizes)
		n=$(grep -c '^launch' "$out/$m.check"); h=$((n / 2))
		a=$(grep '^launch' "$out/$m.check" | head -n $h | cut -d' ' -f3- | sed 's/ ptrs.*//' | md5sum)
		b=$(grep '^launch' "$out/$m.check" | tail -n $h | cut -d' ' -f3- | sed 's/ ptrs.*//' | md5sum)
		[ $((n % 2)) -eq 0 ] && [ "$a" = "$b" ] && ok "$m: two forwards, identical sequences of $h launches" || no "$m: forwards differ ($n launches)"
		t0=$("$py" tests/gpu/drvtrace/forward.py "$m" - 2>/dev/null | sed -n 's/.*median \([0-9.]*\) us/\1/p')
		t1=$(sed -n 's/.*median \([0-9.]*\) us/\1/p' "$out/$m.log")
		echo "overhead $m: $t0 us without, $t1 us with the tracer" | tee -a "$out/overhead.txt"
	done
	unset KSCORE_DRVTRACE_RECORD
else
	sk "torch forwards: no torch with CUDA"
fi
echo "drvtrace: $pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
