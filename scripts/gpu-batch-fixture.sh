#!/bin/sh
# Records a real GPU batch for the site tests (web_export/fixtures/gpu-batch/): six teams made
# from the bundled example and the honest candidates, in local git repositories, scored by
# `score batch` on the GPU host from a packed build (.gpu/, see scripts/gpu-session.sh):
#   Team Alpha           the honest hackathon candidates
#   bravo                the bundled example (correct, slow, failing kernels)
#   <script>x</script>   a hostile name: candidates with two kernels broken
#   デルタ               a CJK name, a file of Triton answers (not CUDA)
#   echo                 every commit after the deadline (not scored)
#   foxtrot              no submission file
# The batch runs with scoring/fixture-scoring.json beside the default settings but a timer floor of
# 1000 us, so that real kernels land on the suspicious list for the site to show. Writes
# $OUT/gpu-batch.tgz (the results folder, the site included, without caches).
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
out="${OUT:-$root/build/gpu-out}"
work=$(mktemp -d /tmp/kscore-gpu-batch.XXXXXX)
mkdir -p "$out"
export LD_LIBRARY_PATH="$root/.gpu/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export KSCORE_LIBEXEC="$root/.gpu/bin" XDG_CACHE_HOME="$work/cache" HOME="$work"
export GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME=org GIT_AUTHOR_EMAIL=org@example.org \
	GIT_COMMITTER_NAME=org GIT_COMMITTER_EMAIL=org@example.org
bin="$root/.gpu/bin/score"
cd "$work" || exit 2
team() { # folder date file
	mkdir -p "repos/$1" && (cd "repos/$1" && git -c init.defaultBranch=main init -q . &&
		{ [ -z "$3" ] || cp "$3" reflexion_oneshot_tritonbench_4.json; } && echo "# $1" >README.md &&
		git add -A && GIT_AUTHOR_DATE="$2" GIT_COMMITTER_DATE="$2" git commit -q -m "$1 submission")
}
team alpha 2025-08-24T20:00:00Z "$root/submissions/candidates/hackathon.json"
team bravo 2025-08-24T21:00:00Z "$root/submissions/example/reflexion_oneshot_tritonbench_4.json"
python3 - "$root/submissions/candidates/hackathon.json" hostile.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d[1]["predict"] = d[1]["predict"].replace("__global__", "__global__ void oops(); __global__", 1).replace("{", "{ int x = ;", 1)
d[3]["predict"] = "<b>I could not write this kernel</b>"
json.dump(d, open(sys.argv[2], "w"), indent=1)
PY
team hostile 2025-08-24T22:00:00Z "$work/hostile.json"
python3 - "$root/submissions/example/reflexion_oneshot_tritonbench_4.json" triton.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
tri = ("```python\nimport torch\nimport triton\nimport triton.language as tl\n\n@triton.jit\n"
       "def kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):\n    pid = tl.program_id(0)\n"
       "    offs = pid * BLOCK + tl.arange(0, BLOCK)\n    x = tl.load(x_ptr + offs, mask=offs < n)\n"
       "    tl.store(y_ptr + offs, x, mask=offs < n)\n```")
for e in d[:7]:
    e["predict"] = tri
json.dump(d, open(sys.argv[2], "w"), indent=1)
PY
team delta 2025-08-24T23:00:00Z "$work/triton.json"
team echo 2025-08-26T10:00:00Z "$root/submissions/candidates/hackathon.json"
team foxtrot 2025-08-24T12:00:00Z ""
cat >teams.json <<'JSON'
{"schema": "kscore.batch/1", "deadline": "2025-08-24T23:59:59Z",
 "submission": "reflexion_oneshot_tritonbench_<N>.json",
 "teams": [{"name": "Team Alpha", "repo": "repos/alpha"},
           {"name": "bravo", "repo": "repos/bravo"},
           {"name": "<script>x</script>", "repo": "repos/hostile"},
           {"name": "デルタ", "repo": "repos/delta"},
           {"name": "echo", "repo": "repos/echo"},
           {"name": "foxtrot", "repo": "repos/foxtrot"}]}
JSON
python3 - "$root/scoring/scoring.json" fixture-scoring.json <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["roofline"]["timer_floor_us"] = 1000.0
json.dump(c, open(sys.argv[2], "w"), indent=1)
PY
"$bin" batch teams.json --require-gpu --seed 20261124 --config fixture-scoring.json \
	--refs "$root/reference_tests" --out results >batch.log 2>&1
echo "score batch exit status $?"
tail -n 25 batch.log
rm -rf results/.lock*
tar czf "$out/gpu-batch.tgz" results teams.json fixture-scoring.json batch.log
ls -la results
