#!/bin/sh
# A synthetic batch for throughput: TEAMS teams (default 100), each a local git repository holding
# the honest hackathon candidates, scored by `score batch --require-gpu` from a packed build
# (.gpu/, see scripts/gpu-session.sh) or build/. Prints the wall time and kernels scored per
# minute. Usage: sh bench/synthetic-batch.sh [TEAMS] [extra score batch options...]
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
teams=${1:-100}
[ $# -gt 0 ] && shift
work=$(mktemp -d /tmp/kscore-synthetic.XXXXXX)
if [ -d "$root/.gpu" ]; then
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
s=$(date +%s.%N)
"$bin" batch teams.json --require-gpu -q --no-site --refs "$root/reference_tests" "$@" >batch.log 2>&1
rc=$?
e=$(date +%s.%N)
kernels=$((teams * 10))
echo "synthetic batch: $teams teams, $kernels kernels, exit $rc, wall $(echo "$e $s" | awk '{printf "%.1f", $1 - $2}') s," \
	"$(echo "$e $s $kernels" | awk '{printf "%.0f", $3 / ($1 - $2) * 60}') kernels per minute"
tail -n 3 batch.log
rm -rf "$work"
