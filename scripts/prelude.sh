# shellcheck shell=sh disable=SC2154,SC2034
# scripts/prelude.sh: the start the GPU-host scripts share (bench/run.sh, bench/trace-runs.sh,
# scripts/gpu-session.sh, tests/gpu/capture-nvtools.sh, tests/gpu/measure-nvtools.sh). Sourced, after setting:
#   root         the repository root
#   out_default  where results go when $OUT is unset
#   work         a scratch folder, emptied here
#   log_name     the log's file name under $out
#   packed       1: a packed build in .gpu/ (when there is one) provides score, its helpers and
#                their libraries, unless KSCORE_BIN / KSCORE_LIBEXEC name others; 0: leave it alone
# It leaves the working directory at $root, $out and an empty $work created, bin (the score binary:
# $KSCORE_BIN, else build/score), XDG_CACHE_HOME under $work (each run starts with an empty compile
# cache), log (emptied) and say TEXT (a heading on stdout and in the log).
cd "$root" || exit 2
out="${OUT:-$out_default}"
rm -rf "$work"
mkdir -p "$out" "$work"
if [ "$packed" = 1 ] && [ -d "$root/.gpu" ]; then
	export LD_LIBRARY_PATH="$root/.gpu/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
	export KSCORE_BIN="${KSCORE_BIN:-$root/.gpu/bin/score}" KSCORE_LIBEXEC="${KSCORE_LIBEXEC:-$root/.gpu/bin}"
fi
bin="${KSCORE_BIN:-$root/build/score}"
export XDG_CACHE_HOME="$work/cache"
log="$out/$log_name"
: >"$log"
say() { echo "== $*" | tee -a "$log"; }
