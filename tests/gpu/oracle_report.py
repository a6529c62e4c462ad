"""Merges the kscore.problem-cases/1 files of `score problems --refs DIR --cases --json` (one per
chunk of a set, run in parallel by tests/gpu/oracle.sh) and prints what a first look at a set
needs: how many problems got cases, the reasons of those that did not (grouped, with examples),
the cases kscore's problem model refused (grouped), the notes (perf scripts that could not run),
the confinement, the time per problem (median, p90, slowest) and the shapes of a few cases.

usage: oracle_report.py NAME EXPECTED FILE...   (NAME labels the set; EXPECTED: the problems asked
for, so that a chunk that timed out shows as problems not run)
Prints `oracle_<NAME>: N passed, N failed, N skipped` (passed: problems with cases; failed:
problems without; skipped: problems of a chunk that produced no file).
"""

import collections
import json
import re
import sys


def group(reason):
    r = re.sub(r"^case \d+: ", "", reason or "")
    r = re.sub(r"\d+", "N", r)
    return r[:90]


def main(argv):
    name, expected, files = argv[0], int(argv[1]), argv[2:]
    problems, versions, unavailable = [], None, None
    for f in files:
        try:
            with open(f) as fh:
                d = json.load(fh)
        except (OSError, ValueError) as e:
            print("%s: unreadable (%s)" % (f, e))
            continue
        versions = versions or d.get("versions")
        unavailable = unavailable or d.get("unavailable")
        problems += d.get("problems", [])
    print("== %s: %d of %d problems run; versions %s" % (name, len(problems), expected, versions))
    if unavailable:
        print("oracle unavailable: %s" % unavailable)
    ok = [p for p in problems if not p.get("reason")]
    bad = [p for p in problems if p.get("reason")]
    ncases = sum(len(p.get("cases", [])) for p in problems)
    kept_c = sum(p.get("correctness", 0) for p in problems)
    kept_p = sum(p.get("perf", 0) for p in problems)
    print("with cases: %d, without: %d; calls recorded: %d; kept by the problem model: %d correctness, %d perf"
          % (len(ok), len(bad), ncases, kept_c, kept_p))
    by = collections.defaultdict(list)
    for p in bad:
        by[(p.get("status"), group(p["reason"]))].append(p)
    print("-- why problems have no cases (count, status, reason, examples)")
    for (st, g), ps in sorted(by.items(), key=lambda kv: -len(kv[1])):
        print("%4d  %-8s %s   [%s]" % (len(ps), st, g, ", ".join(p["name"] for p in ps[:4])))
        print("        e.g. %s: %s" % (ps[0]["name"], ps[0]["reason"][:300]))
    ref = collections.Counter(group(r["reason"]) for p in problems for r in p.get("refused", []))
    print("-- cases the problem model refused (count, reason)")
    for g, n in ref.most_common(15):
        print("%4d  %s" % (n, g))
    notes = collections.Counter(group(n) for p in problems for n in p.get("notes", []))
    print("-- notes (perf scripts, entries never called)")
    for g, n in notes.most_common(12):
        print("%4d  %s" % (n, g))
    conf = collections.Counter((p.get("confined"), p.get("confinement", "")[:80]) for p in problems)
    print("-- confinement: %s" % dict(conf))
    secs = sorted(p.get("seconds", 0) for p in problems)
    if secs:
        print("-- seconds per problem: median %.2f, p90 %.2f, max %.2f, total %.1f"
              % (secs[len(secs) // 2], secs[int(len(secs) * 0.9)], secs[-1], sum(secs)))
        for p in sorted(problems, key=lambda p: -p.get("seconds", 0))[:6]:
            print("      %7.2f s  %s (%s)" % (p.get("seconds", 0), p["name"], p.get("status")))
    kinds = collections.Counter(c["kind"] for p in problems for c in p.get("cases", []))
    dtypes = collections.Counter(a.get("dtype") for p in problems for c in p.get("cases", [])
                                 for a in c.get("args", []) if a.get("kind") == "tensor")
    print("-- calls by kind %s; argument dtypes %s" % (dict(kinds), dict(dtypes.most_common(8))))
    for p in ok[:5]:
        c = p["cases"][0]
        shapes = [(a.get("path"), a.get("shape"), a.get("dtype")) for a in c["args"] if a.get("kind") == "tensor"]
        print("   %s: %d calls; first %s%s -> %s" % (p["name"], len(p["cases"]), c["entry"], shapes,
                                                   c["returns"].get("kind")))
    print("oracle_%s: %d passed, %d failed, %d skipped" % (name, len(ok), len(bad), max(0, expected - len(problems))))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
