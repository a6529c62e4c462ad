#!/bin/sh
# bench/ctx-probe.sh: starting and ending N CUDA processes at once over the host's GPUs (one GPU
# each, round robin), with the driver's default hardware queues per context and with
# CUDA_DEVICE_MAX_CONNECTIONS=1 (what kscore gives its workers: src/run/workerenv.c). Prints, per
# case, when the last process had its context (ready), the median time a process waited for
# cuInit and for its context, and the time from the go signal until every context was released and
# every process had exited. Runs build/bench/ctx-probe (make build/bench/ctx-probe; packed builds
# carry it in .gpu/bin). Writes to $OUT (default build/ctx-probe-out).
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
out="${OUT:-$root/build/ctx-probe-out}"
mkdir -p "$out"
probe=${CTX_PROBE:-}
for c in "$root/.gpu/bin/ctx-probe" "$root/build/bench/ctx-probe"; do
	[ -z "$probe" ] && [ -x "$c" ] && probe=$c
done
[ -n "$probe" ] || { echo "ctx-probe.sh: no ctx-probe binary (make build/bench/ctx-probe)" >&2; exit 2; }
ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
[ "$ngpu" -ge 1 ] || { echo "ctx-probe.sh: no GPU" >&2; exit 2; }
one() { # N CONNECTIONS
	d=$(mktemp -d) i=0
	while [ "$i" -lt "$1" ]; do
		if [ -n "$2" ]; then
			CUDA_DEVICE_MAX_CONNECTIONS=$2 CUDA_VISIBLE_DEVICES=$((i % ngpu)) "$probe" "$d/go" >"$d/$i.out" &
		else
			env -u CUDA_DEVICE_MAX_CONNECTIONS CUDA_VISIBLE_DEVICES=$((i % ngpu)) "$probe" "$d/go" >"$d/$i.out" &
		fi
		i=$((i + 1))
	done
	t=0
	while [ "$(cat "$d"/*.out 2>/dev/null | grep -c '^ready')" -lt "$1" ] && [ "$t" -lt 3000 ]; do
		sleep 0.01
		t=$((t + 1))
	done
	sleep 0.2
	g=$(date +%s.%N)
	touch "$d/go"
	wait
	e=$(date +%s.%N)
	python3 - "$d" "$1" "${2:-default}" "$g" "$e" <<'PY'
import glob, sys
d, n, conn, go, end = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4]), float(sys.argv[5])
ready = []
for f in glob.glob(d + "/*.out"):
    for line in open(f):
        w = line.split()
        if w and w[0] == "ready":
            ready.append([float(x) for x in w[1:]])
if len(ready) != int(n):
    print(f"{n:>3} processes, connections {conn:>7}: only {len(ready)} started")
    sys.exit(0)
med = lambda v: sorted(v)[len(v) // 2]
t0 = min(r[0] for r in ready)
print(f"{n:>3} processes, connections {conn:>7}: all ready {max(r[2] for r in ready) - t0:7.0f} ms"
      f" | cuInit median {med([r[1] - r[0] for r in ready]):6.0f} ms"
      f" | context median {med([r[2] - r[1] for r in ready]):6.0f} ms"
      f" | released and exited {(end - go) * 1000:6.0f} ms")
PY
	rm -rf "$d"
}
{
	echo "ctx-probe: $ngpu GPUs, $(nproc) CPUs; $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)"
	for n in 1 4 8 16; do
		one "$n" ""
		one "$n" 1
	done
} | tee "$out/ctx-probe.txt"
