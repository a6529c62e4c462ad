#!/bin/sh
# The installed library as a program that embeds kscore sees it (include/kscore.h, docs/api.md):
# `make install DESTDIR=` stages the headers, libkscore.a, libkscore.so and kscore.pc; the example
# program (examples/score_example.c) is built with `pkg-config --cflags --libs kscore` alone, against
# the shared and the static library, and scores the bundled example (compile-only here) with the
# installed helpers and problems, agreeing with `score`; `make uninstall` removes all of it.
# Prints "install: N passed, N failed, N skipped" (tests/run.sh adds it to the suite's line).
cd "$(dirname "$0")/.." || exit 2
root=$PWD
passed=0 failed=0 skipped=0
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
ok() { echo "PASS $1"; passed=$((passed + 1)); }
bad() { echo "FAIL $1: $2"; failed=$((failed + 1)); }
skip() { echo "skipped install.$1: $2"; skipped=$((skipped + 1)); }

stage=$tmp/stage
prefix=/usr/local
if make -s install DESTDIR="$stage" PREFIX="$prefix" >"$tmp/install.log" 2>&1; then
	ok install_stages_the_library
else
	bad install_stages_the_library "make install failed: $(tail -n 3 "$tmp/install.log")"
fi
lib=$stage$prefix/lib
missing=""
for f in include/kscore.h lib/libkscore.a lib/libkscore.so lib/libkscore.so.0 lib/pkgconfig/kscore.pc; do
	[ -e "$stage$prefix/$f" ] || missing="$missing $f"
done
[ -z "$missing" ] && ok install_has_header_libraries_and_pc || bad install_has_header_libraries_and_pc "missing:$missing"

# the shared library's soname and its exports: the public names alone
soname=$(objdump -p "$lib/libkscore.so" 2>/dev/null | awk '$1 == "SONAME" { print $2 }')
[ "$soname" = libkscore.so.0 ] && ok shared_library_has_a_soname || bad shared_library_has_a_soname "soname '$soname'"
others=$(nm -D --defined-only "$lib/libkscore.so" 2>/dev/null | awk '$2 == "T" && $3 !~ /^kscore_/ { print $3 }' | head -n 3)
count=$(nm -D --defined-only "$lib/libkscore.so" 2>/dev/null | awk '$2 == "T" && $3 ~ /^kscore_/' | wc -l)
if [ -z "$others" ] && [ "$count" -gt 10 ]; then ok shared_library_exports_the_api_alone
else bad shared_library_exports_the_api_alone "$count kscore_ symbols; others: $others"; fi

export PKG_CONFIG_PATH="$lib/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$stage"
flags=$(pkg-config --cflags --libs kscore 2>"$tmp/pc.err")
if [ $? -ne 0 ]; then
	bad pkg_config_knows_kscore "$(cat "$tmp/pc.err")"
elif [ "$(pkg-config --modversion kscore)" != "$(sed -n 's/^VERSION *:= *//p' Makefile)" ]; then
	bad pkg_config_knows_kscore "version $(pkg-config --modversion kscore)"
else
	ok pkg_config_knows_kscore
fi

# shellcheck disable=SC2086
if cc -std=c11 -Wall -Wextra -Werror -pedantic -o "$tmp/example" examples/score_example.c $flags 2>"$tmp/cc.err"; then
	ok example_builds_against_the_installed_api
else
	bad example_builds_against_the_installed_api "$(head -n 5 "$tmp/cc.err")"
fi
# shellcheck disable=SC2086
if cc -std=c11 -Wall -Werror -o "$tmp/example-static" examples/score_example.c $(pkg-config --cflags kscore) \
	"$lib/libkscore.a" $(pkg-config --libs $(pkg-config --print-requires-private kscore)) -pthread -ldl -lm 2>"$tmp/cc2.err"; then
	ok example_links_the_static_library
else
	bad example_links_the_static_library "$(head -n 5 "$tmp/cc2.err")"
fi
if command -v c++ >/dev/null 2>&1; then
	if c++ -x c++ -std=c++17 -Wall -Werror -fsyntax-only $(pkg-config --cflags kscore) examples/score_example.c 2>"$tmp/cxx.err"; then
		ok header_is_cxx_safe
	else
		bad header_is_cxx_safe "$(head -n 5 "$tmp/cxx.err")"
	fi
else
	skip header_is_cxx_safe "no C++ compiler"
fi

# the example scores the bundled example with what was installed, as `score` does
sub=$root/submissions/example/reflexion_oneshot_tritonbench_4.json
for ex in example example-static; do
	[ -x "$tmp/$ex" ] || { bad "${ex}_scores_the_bundled_example" "not built"; continue; }
	out=$(cd "$tmp" && env -u KSCORE_REFS LD_LIBRARY_PATH="$lib" KSCORE_LIBEXEC="$stage$prefix/libexec/kscore" \
		XDG_CACHE_HOME="$tmp/cache" "./$ex" "$sub" "$tmp/out-$ex" "$stage$prefix/share/kscore/reference_tests" 2>&1)
	rc=$?
	if [ $rc -eq 0 ] && printf '%s\n' "$out" | grep -q "10 kernels" && [ -f "$tmp/out-$ex/score.json" ]; then
		ok "${ex}_scores_the_bundled_example"
	else
		bad "${ex}_scores_the_bundled_example" "exit $rc: $(printf '%s\n' "$out" | tail -n 3)"
	fi
done
# no behaviour changes: the API's result is the command's, kernel by kernel
XDG_CACHE_HOME="$tmp/cache" build/score "$sub" --team example --compile-only -q --out "$tmp/out-score" >/dev/null 2>&1
verdicts() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print([(k["problem"], k["compiled"], k["reason"]) for k in d["kernels"]], d["summary"]["compile_accuracy"])' "$1" 2>&1; }
a=$(verdicts "$tmp/out-example/score.json") b=$(verdicts "$tmp/out-score/score.json")
if [ -n "$a" ] && [ "$a" = "$b" ]; then ok api_and_score_agree
else bad api_and_score_agree "api: $a / score: $b"; fi

make -s uninstall DESTDIR="$stage" PREFIX="$prefix" >"$tmp/uninstall.log" 2>&1
left=$(find "$stage" -type f -o -type l | head -n 5)
[ -z "$left" ] && ok uninstall_removes_everything || bad uninstall_removes_everything "left: $left"

echo "install: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
