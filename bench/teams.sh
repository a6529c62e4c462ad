# bench/teams.sh: the teams of the batch benchmarks (bench/slurm-overhead.sh, bench/synthetic-batch.sh).
# Sourced, with root set to the repository root; then, in the scratch folder (git's identity set):
#   make_teams N
# makes N local git repositories repos/t0 .. repos/tN-1, each one commit holding the honest
# hackathon candidates as sub.json, and teams.json, a batch manifest naming them team0 .. teamN-1.
# shellcheck shell=sh disable=SC2154
make_teams() {
	m='{"schema": "kscore.batch/1", "deadline": "2025-08-24T23:59:59Z", "submission": "sub.json", "teams": ['
	i=0
	while [ $i -lt "$1" ]; do
		mkdir -p "repos/t$i"
		(cd "repos/t$i" && git -c init.defaultBranch=main init -q . &&
		 cp "$root/submissions/candidates/hackathon.json" sub.json && git add -A &&
		 GIT_COMMITTER_DATE=2025-08-20T10:00:00Z git commit -q -m s)
		[ $i -gt 0 ] && m="$m, "
		m="$m{\"name\": \"team$i\", \"repo\": \"repos/t$i\"}"
		i=$((i + 1))
	done
	echo "$m]}" >teams.json
}
