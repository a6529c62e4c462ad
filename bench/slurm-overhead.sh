#!/bin/sh
# The Slurm path's overhead, on the test cluster (tests/slurm/cluster.sh): one compile-only batch of
# TEAMS teams scored directly, then as --slurm arrays of 1, 2 and 4 shards (submission to the
# collect job's end, measured by polling squeue every 0.1 s), all with a warm compile cache. Prints the wall times and the
# overhead per shard. Usage: sh bench/slurm-overhead.sh [TEAMS] (default 8); needs build/score.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
teams=${1:-8}
work=$(mktemp -d /tmp/kscore-slurm-bench.XXXXXX)
trap 'sh "$root/tests/slurm/cluster.sh" stop "$work/cluster" >/dev/null 2>&1; rm -rf "$work"' EXIT
bin="$root/build/score"
export HOME="$work" XDG_CACHE_HOME="$work/cache" GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME=b \
	GIT_AUTHOR_EMAIL=b@example.org GIT_COMMITTER_NAME=b GIT_COMMITTER_EMAIL=b@example.org
cd "$work"
. "$root/bench/teams.sh"
make_teams "$teams"
sh "$root/tests/slurm/cluster.sh" start "$work/cluster" >/dev/null
. "$work/cluster/env"
now() { date +%s.%N; }
"$bin" batch teams.json --compile-only -q --out cold >/dev/null 2>&1 || true  # fetch, fill the compile cache
s=$(now); "$bin" batch teams.json --compile-only --no-fetch -q --out direct >/dev/null 2>&1 || true; e=$(now)
direct=$(echo "$e $s" | awk '{printf "%.2f", $1 - $2}')
echo "direct: $teams teams in $direct s (compile-only, compile cache warm)"
for n in 1 2 4; do
	rm -rf "res$n"
	s=$(now)
	"$bin" batch teams.json --compile-only --no-fetch -q --out "res$n" --slurm --shards $n >/dev/null 2>&1
	ids=$(python3 -c "import json;j=json.load(open('res$n/slurm/jobs.json'));print(j['array_job']+','+j['collect_job'])")
	while squeue -h -j "$ids" 2>/dev/null | grep -q .; do sleep 0.1; done
	e=$(now)
	echo "slurm $n shard(s): $(echo "$e $s" | awk '{printf "%.2f", $1 - $2}') s, overhead per shard" \
		"$(echo "$e $s $direct $n" | awk '{printf "%.2f", ($1 - $2 - $3) / $4}') s"
done
