#!/bin/sh
# A synthetic batch for throughput: TEAMS teams (default 100), each a local git repository holding
# the honest hackathon candidates, scored by `score batch --require-gpu` with $KSCORE_BIN (and its
# helpers in $KSCORE_LIBEXEC) when set, else from a packed build (.gpu/, see scripts/gpu-session.sh)
# or build/. Prints the wall time and kernels scored per
# minute. Usage: sh bench/synthetic-batch.sh [TEAMS] [extra score batch options...]
# A batch longer than one sitting runs as shards (`--shard I/N` among the options), one call each:
# KEEP=FILE.tgz saves this run's results folder; PRELOAD="A.tgz B.tgz" restores earlier shards'
# results first; COLLECT=1 builds the leaderboard of every team present afterwards (`--collect`).
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
teams=${1:-100}
[ $# -gt 0 ] && shift
work=$(mktemp -d /tmp/kscore-synthetic.XXXXXX)
if [ -n "${KSCORE_BIN:-}" ]; then
	bin="$KSCORE_BIN"
elif [ -d "$root/.gpu" ]; then
	export LD_LIBRARY_PATH="$root/.gpu/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" KSCORE_LIBEXEC="$root/.gpu/bin"
	bin="$root/.gpu/bin/score"
else
	bin="$root/build/score"
fi
export HOME="$work" XDG_CACHE_HOME="$work/cache" GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME=b \
	GIT_AUTHOR_EMAIL=b@example.org GIT_COMMITTER_NAME=b GIT_COMMITTER_EMAIL=b@example.org
cd "$work" || exit 2
. "$root/bench/teams.sh"
make_teams "$teams"
for t in ${PRELOAD:-}; do
	tar xzf "$t" -C "$work" || exit 2
done
touch .start
s=$(date +%s.%N)
"$bin" batch teams.json --require-gpu -q --no-site --refs "$root/reference_tests" "$@" >batch.log 2>&1
rc=$?
e=$(date +%s.%N)
# the teams this run scored (a shard scores its share; earlier shards' folders are older)
scored=$(find results -name score.json -newer .start | wc -l)
kernels=$((scored * 10))
echo "synthetic batch: $teams teams in the manifest, $scored scored in this run, $kernels kernels, exit $rc, wall $(echo "$e $s" | awk '{printf "%.1f", $1 - $2}') s," \
	"$(echo "$e $s $kernels" | awk '{printf "%.0f", $3 / ($1 - $2) * 60}') kernels per minute"
tail -n 3 batch.log
if [ -n "${COLLECT:-}" ]; then
	"$bin" batch teams.json --collect -q --no-site --refs "$root/reference_tests" >collect.log 2>&1
	echo "collect: exit $?"
	python3 -c 'import json, collections, sys; t = json.load(open(sys.argv[1]))["teams"]; print(len(t), "teams in the leaderboard:", dict(collections.Counter(x["status"] for x in t)))' results/leaderboard.json
	tail -n 3 collect.log
fi
[ -n "${KEEP:-}" ] && tar czf "$KEEP" -C "$work" results
rm -rf "$work"
