#!/bin/sh
# Records or compares the CUBINs of every golden kernel, compiled as `score` compiles them
# (scripts/golden_cubins.c). For refactorings of reference_tests/ that must not change any
# golden's code: record before, compare after.
#
#   scripts/golden-cubins.sh record DIR     write DIR/<suite>/<problem>.cubin
#   scripts/golden-cubins.sh compare DIR    compile again and compare with DIR, one line a problem
#
# Needs `make` to have built build/libkscore.a and build/kscore-compile; NVRTC only, no GPU.
# Exit status: 0 all identical (compare) or all recorded, 1 a difference or a failure.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
[ $# -eq 2 ] || { echo "usage: $0 record|compare DIR" >&2; exit 2; }
mode=$1 dir=$2
tool=build/golden_cubins
pkgs="libcjson libcurl libgit2 zlib libcrypto"
cuda=${CUDA_HOME:-/usr/local/cuda}
if [ ! -x "$tool" ] || [ scripts/golden_cubins.c -nt "$tool" ] || [ build/libkscore.a -nt "$tool" ]; then
	# shellcheck disable=SC2046
	${CC:-cc} -std=c11 -D_GNU_SOURCE -Isrc -I"$cuda/include" $(pkg-config --cflags $pkgs) \
		-o "$tool" scripts/golden_cubins.c build/libkscore.a $(pkg-config --libs $pkgs) \
		-pthread -ldl -lm
fi
case $mode in
record)
	rm -rf "$dir"
	"$tool" reference_tests "$dir" build/kscore-compile
	echo "recorded $(find "$dir" -name '*.cubin' | wc -l) CUBINs in $dir"
	;;
compare)
	new=$(mktemp -d)
	trap 'rm -rf "$new"' EXIT
	st=0
	"$tool" reference_tests "$new" build/kscore-compile || st=1
	for f in $(cd "$dir" && find . -name '*.cubin' | sort); do
		if [ ! -f "$new/$f" ]; then
			echo "MISSING   ${f#./}"; st=1
		elif cmp -s "$dir/$f" "$new/$f"; then
			echo "identical ${f#./}"
		else
			echo "DIFFERENT ${f#./}"; st=1
		fi
	done
	for f in $(cd "$new" && find . -name '*.cubin' | sort); do
		[ -f "$dir/$f" ] || { echo "NEW       ${f#./}"; st=1; }
	done
	exit $st
	;;
*) echo "usage: $0 record|compare DIR" >&2; exit 2 ;;
esac
