#!/bin/sh
# The GPU suite, for a GPU host: `make gpu-test` (or, from a packed build,
# `sh tests/gpu/run.sh` with KSCORE_BIN and KSCORE_LIBEXEC set). Logs go to $OUT when it is set.
cd "$(dirname "$0")/../.." || exit 2
out="${OUT:-build/gpu-logs}"
mkdir -p "$out"
export KSCORE_BIN="${KSCORE_BIN:-$PWD/build/score}"
export KSCORE_LIBEXEC="${KSCORE_LIBEXEC:-$PWD/build}"
tbin="${KSCORE_GPU_TEST:-build/gpu/test_gpu}"
"$tbin" 2>&1 | tee "$out/gpu-tests.log"
# the lanes (--devices, several GPUs): beside test_gpu, packed with it
[ -x "${tbin}_lanes" ] && "${tbin}_lanes" 2>&1 | tee -a "$out/gpu-tests.log"
