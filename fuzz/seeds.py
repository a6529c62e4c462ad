#!/usr/bin/env python3
"""Collects the fuzz targets' seed inputs from the repository's own files (docs/fuzzing.md).

usage: fuzz/seeds.py OUT   (run from the repository root)

Writes OUT/<target>/seeds/<sha1> for every target, replacing what an earlier run wrote there and
nothing else (inputs libFuzzer found sit next to seeds/ and are kept). The seeds are the test
fixtures, the example and candidate submissions and the reference problems, cut to each target's
input format and size limit. The output depends only on the repository's files.
"""
import glob
import gzip
import hashlib
import json
import os
import re
import shutil
import struct
import sys

# each target's -max_len, also used by fuzz/run.sh
MAX_LEN = {"submission": 65536, "extract": 65536, "expr": 4200, "plan": 16384, "trace": 262144,
           "problem": 32768, "manifest": 16384, "nvlog": 65536,
           "proto": 65536, "pyset": 65536, "drvtrace": 131072, "oracle": 65536}

seeds = {t: set() for t in MAX_LEN}


def add(target, data):
    if isinstance(data, str):
        data = data.encode()
    if 0 < len(data) <= MAX_LEN[target]:
        seeds[target].add(data)


def read(path):
    with open(path, "rb") as f:
        return f.read()


def entries_of(path):
    """The entries of a submission file (JSON array or JSON Lines), [] if it is neither."""
    text = read(path).decode("utf-8", "replace")
    try:
        v = json.loads(text)
        return [e for e in v if isinstance(e, dict)] if isinstance(v, list) else [v]
    except ValueError:
        out = []
        for line in text.splitlines():
            try:
                e = json.loads(line)
            except ValueError:
                continue
            if isinstance(e, dict):
                out.append(e)
        return out


def submission_files():
    files = glob.glob("tests/fixtures/submission/*") + glob.glob("tests/fixtures/cli/*.json")
    files += glob.glob("tests/fixtures/gpu/*.json") + glob.glob("submissions/*/*.json")
    return sorted(f for f in files if not f.endswith("expected.json") and os.path.isfile(f))


def problem_dirs():
    """Problem folders in the order fuzz_plan numbers them: reference_tests/ by suite and name
    (bytewise), then the fixtures."""
    dirs = []
    for root in ("reference_tests", "tests/fixtures/problems"):
        for suite in sorted(os.listdir(root), key=os.fsencode):
            sdir = os.path.join(root, suite)
            if not os.path.isdir(sdir):
                continue
            for name in sorted(os.listdir(sdir), key=os.fsencode):
                if os.path.isfile(os.path.join(sdir, name, "problem.json")):
                    dirs.append(os.path.join(sdir, name))
    return dirs


LAUNCH_RE = re.compile(r"(/\*\s*kscore-launch.*?\*/|//\s*kscore-launch[^\n]*)", re.S)
EXPR_RE = re.compile(r"^[A-Za-z0-9_ ()+\-*/%<>,]+$")


def expressions(v):
    """Every string or integer in a spec or plan that may be an expression."""
    if isinstance(v, dict):
        for k, x in v.items():
            if k not in ("name", "kernel", "description", "label", "type", "role", "kind",
                         "dtype", "peak", "init", "golden", "instruction"):
                yield from expressions(x)
    elif isinstance(v, list):
        for x in v:
            yield from expressions(x)
    elif isinstance(v, str) and EXPR_RE.match(v):
        yield v
    elif isinstance(v, int) and not isinstance(v, bool):
        yield str(v)


def main():
    out = sys.argv[1]

    # submissions: whole files, single entries, JSON Lines and gzip forms
    all_entries = []
    for f in submission_files():
        data = read(f)
        add("submission", data)
        es = entries_of(f)
        all_entries += es
        for e in es[:4]:
            add("submission", json.dumps([e], indent=1))
        if es:
            jsonl = "".join(json.dumps(e) + "\n" for e in es[:3])
            add("submission", jsonl)
            add("submission", gzip.compress(jsonl.encode(), mtime=0))
            add("submission", gzip.compress(json.dumps(es[:2]).encode(), mtime=0))

    # LLM answers and kernel sources; launch comments and fields
    codes = [read(f) for f in sorted(glob.glob("submissions/*/src/*.cu"))]
    for e in all_entries:
        if isinstance(e.get("predict"), str):
            add("extract", e["predict"])
    for c in codes:
        add("extract", c)
        add("extract", b"Here is the kernel:\n```cuda\n" + c + b"```\n<|im_end|>")

    # problems: specs renamed to the fuzz_problem folder, plans and expressions
    dirs = problem_dirs()
    for i, d in enumerate(dirs):
        spec = json.loads(read(os.path.join(d, "problem.json")))
        name = spec.get("name")
        spec["name"] = "vadd"
        spec.pop("golden", None)
        spec.pop("instruction", None)
        add("problem", json.dumps(spec, indent=1))
        idx = bytes([i % 256])
        for key in ("launch", "golden_launch"):
            if key in spec:
                add("plan", idx + json.dumps(spec[key]).encode())
        for x in expressions(spec):
            add("expr", x)
        for e in all_entries:
            f = e.get("file")
            if not isinstance(f, str) or f.split("/")[-1].split(".")[0] != name:
                continue
            if isinstance(e.get("launch"), dict):
                add("plan", idx + json.dumps(e["launch"]).encode())
            p = e.get("predict")
            if isinstance(p, str) and "kscore-launch" in p:
                add("plan", idx + p.encode())
        for c in codes:
            if b"kscore-launch" in c and name and (b"void " + name.encode()) in c:
                add("plan", idx + c)
    for e in all_entries:
        if isinstance(e.get("launch"), dict):
            for x in expressions(e["launch"]):
                add("expr", x)

    # Triton trace responses recorded on a GPU host: the first byte picks the hackathon problem
    # (fuzz_trace numbers them in name order)
    hack = sorted(d for d in os.listdir("reference_tests/hackathon")
                  if os.path.exists(os.path.join("reference_tests/hackathon", d, "problem.json")))
    for path in sorted(glob.glob("tests/fixtures/triton/*.response.json")):
        req = json.loads(read(path.replace(".response.json", ".request.json")))
        if req.get("problem") in hack:
            add("trace", bytes([hack.index(req["problem"])]) + read(path))
    for c in codes:
        for m in LAUNCH_RE.findall(c.decode("utf-8", "replace")):
            for x in re.findall(r'"([^"]*)"', m):
                if EXPR_RE.match(x):
                    add("expr", x)

    # manifests: the examples in docs/batch.md
    doc = read("docs/batch.md").decode()
    for block in re.findall(r"```json\n(.*?)```", doc, re.S):
        if "kscore.batch/1" in block:
            add("manifest", block)
    add("manifest", json.dumps({"schema": "kscore.batch/1", "submission": "a/<N>.json",
                                "teams": [{"name": "Leaderboard", "repo": "x"},
                                          {"name": "a b", "repo": "/r", "ref": "v1"}]}))

    # the NVIDIA tools' logs and CSV tables recorded on a GPU host, whole and cut into the parts a
    # kept memcheck worker reads (from one line on)
    for path in sorted(glob.glob("tests/fixtures/nvtools/*.log") + glob.glob("tests/fixtures/nvtools/*.csv")):
        data = read(path)
        add("nvlog", data[:MAX_LEN["nvlog"]])
        lines = data.split(b"\n")
        for k in range(1, min(len(lines), 12)):
            add("nvlog", b"\n".join(lines[k:]))

    # a worker's replies as they come down its socket (run/proto.h: a 24-byte header, the JSON,
    # the blob), alone, in sequence and cut short
    def frame(obj, blob=b"", typ=100):
        js = json.dumps(obj).encode()
        return struct.pack("<IIIIQ", 0x3157534B, typ, len(js), 0, len(blob)) + js + blob
    replies = [frame({"status": "ok"}),
               frame({"status": "ok", "name": "NVIDIA H200", "cc_major": 9, "cc_minor": 0, "sm_count": 132}),
               frame({"status": "ok", "ms": 0.125, "bufs": [{"off": 0, "len": 16}, {"off": 16, "len": 8}]},
                     bytes(range(24))),
               frame({"status": "fault", "message": "an illegal memory access was encountered"}),
               frame({"ms": [0.01, 0.011, 0.0105]})]
    for r in replies:
        add("proto", r)
        add("proto", r[:len(r) // 2])
    add("proto", b"".join(replies))
    add("proto", "printf from a kernel\n\x1b[31mred\x1b[0m \xe9\xff tab\tend".encode("latin-1"))

    # problem-set sources: kscore's own fixtures in TritonBench-G's and KernelBench's layouts, and
    # the Triton answers and Python references it ships
    for f in sorted(glob.glob("tests/fixtures/sets/*/*/*.py")) + sorted(glob.glob("reference_tests/*/*/reference.py")):
        add("pyset", read(f))

    # driver-level traces: the fixtures, whole and cut after each line
    for f in sorted(glob.glob("tests/fixtures/drvtrace/*/trace-*.jsonl")):
        data = read(f)
        add("drvtrace", data)
        lines = data.split(b"\n")
        for i in range(1, len(lines)):
            add("drvtrace", b"\n".join(lines[:i]) + b"\n")
    # the oracle helper's replies (src/load/sets/kscore_oracle/): the kinds of values it describes
    def tensor(path, shape, strides=None, dtype="float32"):
        if strides is None:
            strides, acc = [], 1
            for n in reversed(shape):
                strides.insert(0, acc)
                acc *= n
        return {"kind": "tensor", "path": path, "shape": shape, "dtype": dtype, "strides": strides, "offset": 0,
                "device": "cuda:0", "contiguous": True}

    def case(i, args, ret, kwargs=None, writes=(), kind="correctness", entry="f", files=False):
        c = {"index": i, "kind": kind, "entry": entry, "args": args, "kwargs": kwargs or {}, "returns": ret,
             "writes": list(writes), "signature": "%016x" % (i + 1)}
        if files:
            c["inputs"] = {a["path"]: {"file": "c%d.%s.bin" % (i, a["path"]), "bytes": 16}
                           for a in args if a["kind"] == "tensor"}
        return c
    replies = [
        {"status": "ok", "cases": [case(0, [tensor("a0", [4, 6]), {"kind": "float", "value": 0.5}], tensor("r", [4, 6])),
                                   case(1, [tensor("a0", [8, 6]), {"kind": "float", "value": 0.5}], tensor("r", [8, 6]),
                                        kind="perf", files=True)]},
        {"status": "ok", "cases": [case(0, [tensor("a0", [3]), {"kind": "int", "value": 3}, {"kind": "none"}],
                                        {"kind": "tuple", "items": [tensor("r.0", [3]), {"kind": "none"}]},
                                        kwargs={"out": tensor("k.out", [3], dtype="bfloat16")}, writes=["k.out"]),
                                   case(1, [tensor("a0", [3], [2])], {"kind": "none"}, entry="g")]},
        {"status": "ok", "cases": [case(0, [{"kind": "list", "items": [tensor("a0.0", [2])]}],
                                        {"kind": "dict", "items": {"x": tensor("r.x", [2])}})]},
        {"status": "error", "file": "/s/raises.py", "reason": "its test code raised RuntimeError: x"},
        {"status": "timeout", "reason": "the set's code ran past the 300 s limit"},
    ]
    for r in replies:
        add("oracle", json.dumps(r))

    for t, s in seeds.items():
        d = os.path.join(out, t, "seeds")
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        for data in s:
            with open(os.path.join(d, hashlib.sha1(data).hexdigest()), "wb") as f:
                f.write(data)
        print("fuzz seeds: %-10s %4d inputs in %s" % (t, len(s), d))


if __name__ == "__main__":
    main()
