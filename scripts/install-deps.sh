#!/bin/sh
# Installs what kscore needs to build and test, from Debian's packages, where it is missing.
# CUDA (NVRTC and its headers) is not a Debian package: it is expected at $CUDA_HOME
# (default /usr/local/cuda); this script only checks it.
#   sh scripts/install-deps.sh          what building and running need
#   sh scripts/install-deps.sh --test   and what the test suite needs: clang and libclang-rt-dev
#                                       (the fuzz targets, docs/fuzzing.md), a real Slurm cluster,
#                                       a headless browser (the site tests)
set -eu
packages="gcc make pkg-config libcjson-dev libcurl4-openssl-dev libgit2-dev zlib1g-dev libssl-dev \
python3 git ca-certificates"
if [ "${1:-}" = "--test" ]; then
	# the Slurm test cluster (tests/slurm/cluster.sh); --no-install-recommends keeps it small
	packages="$packages clang libclang-rt-dev slurmctld slurmd slurm-client munge"
fi
missing=""
for p in $packages; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
	echo "install-deps: installing:$missing"
	if [ "$(id -u)" -eq 0 ]; then sudo=""; else sudo="sudo"; fi
	$sudo apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi
# The site tests (tests/export/test_export_browser.c) open the exported pages in a headless
# browser; without it they report themselves skipped. Installed on its own, without recommends
# (about 100 MB), and a failure to install it does not stop the build.
if [ "${1:-}" = "--test" ] && ! command -v chromium-headless-shell >/dev/null 2>&1; then
	echo "install-deps: installing: chromium-headless-shell"
	if [ "$(id -u)" -eq 0 ]; then sudo=""; else sudo="sudo"; fi
	{ $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq \
		--no-install-recommends chromium-headless-shell >/dev/null; } ||
		echo "install-deps: warning: chromium-headless-shell could not be installed; the browser tests will be skipped" >&2
fi
cuda="${CUDA_HOME:-/usr/local/cuda}"
if [ ! -f "$cuda/include/nvrtc.h" ] || ! ls "$cuda"/lib64/libnvrtc.so* >/dev/null 2>&1; then
	echo "install-deps: the CUDA toolkit (NVRTC) is not at $cuda; install it or set CUDA_HOME" >&2
	exit 1
fi
