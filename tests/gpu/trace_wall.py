#!/usr/bin/env python3
"""The Triton trace's wall on a GPU host (issue 34): provenance of the CUBINs, a second answer's
view of the first, and what the trace costs with provenance. Run by tests/gpu/trace-wall.sh.

    trace_wall.py all OUTDIR SECONDS   every check below within SECONDS; one summary line
    trace_wall.py probe FIXTURE        (in a process of its own) JIT launch vs recompile, stage by stage
    trace_wall.py helper MODE [ARG]    (started by `all`) a helper whose trace child is tampered with:
                                       forge CUBIN_FILE (the child's reply carries that CUBIN),
                                       scan (a child that scans its own memory for a marker)

Prints PASS/FAIL/SKIP lines, what it measured (`cost ...` lines), and last
`trace-wall: N passed, N failed, N skipped`.
"""

import base64
import hashlib
import json
import os
import re
import secrets
import select
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
PACKAGE = os.path.join(ROOT, "src", "lang", "triton")
HELPER = os.path.join(PACKAGE, "kscore-triton")
FIX = os.path.join(ROOT, "tests", "fixtures", "triton")
OK_FIXTURES = ("sin_kernel", "matrix_vector_multip", "triton_matmul", "rotary_transform", "l2_norm_triton1",
               "matrix_transpose", "embedding_triton_kernel")
MISMATCH = "a CUBIN Triton did not compile from this answer"
TOKEN = re.compile(rb"kswall[0-9a-f]{24}")

COUNTS = {"passed": 0, "failed": 0, "skipped": 0}


def say(text):
    print(text, flush=True)


def check(name, ok, detail=""):
    COUNTS["passed" if ok else "failed"] += 1
    say("%s %s%s" % ("PASS" if ok else "FAIL", name, (": " + detail) if detail else ""))


def skip(name, why):
    COUNTS["skipped"] += 1
    say("SKIP %s: %s" % (name, why))


def request(name, **over):
    with open(os.path.join(FIX, name + ".request.json")) as f:
        req = json.load(f)
    req.update(over)
    return req


class Helper:
    """A helper process spoken to over its protocol."""

    def __init__(self, argv, log):
        self.home = tempfile.mkdtemp(prefix="kscore-wall-")
        env = {"PATH": "/usr/bin:/bin", "HOME": self.home, "TMPDIR": self.home}
        t0 = time.monotonic()
        self.err = open(log, "ab")
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.err, env=env)
        self.next_id = 0
        version = self.ask({"op": "version"}, 180)
        self.start_s = time.monotonic() - t0
        self.version = version

    def ask(self, obj, timeout):
        self.next_id += 1
        obj = dict(obj, id=self.next_id)
        t0 = time.monotonic()
        self.proc.stdin.write((json.dumps(obj) + "\n").encode())
        self.proc.stdin.flush()
        ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
        if not ready:
            return {"status": "lost", "reason": "no answer within %d s" % timeout}
        line = self.proc.stdout.readline()
        out = json.loads(line) if line else {"status": "lost", "reason": "the helper exited"}
        out["_round_trip"] = time.monotonic() - t0
        return out

    def close(self):
        try:
            self.proc.stdin.close()
            self.proc.wait(timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait()
        self.err.close()
        shutil.rmtree(self.home, ignore_errors=True)


def brief(resp):
    s = resp.get("seconds") or {}
    return "%s %.2f s (child %s, provenance %s)%s" % (
        resp.get("status"), resp.get("_round_trip", 0), s.get("child"), s.get("provenance"),
        (": " + resp["reason"][:300]) if resp.get("reason") else "")


def median(xs):
    return "%.3f" % statistics.median(xs) if xs else "n/a"


# ---- the checks ----

def run_probes(py, outdir, left):
    for fx in ("sin_kernel", "triton_matmul"):
        if left() < 60:
            skip("probe %s" % fx, "out of time")
            continue
        try:
            p = subprocess.run([py, "-I", os.path.abspath(__file__), "probe", fx], capture_output=True, text=True,
                               timeout=min(120, left() - 30))
            text = p.stdout + p.stderr
        except subprocess.TimeoutExpired:
            text = "probe timed out"
        with open(os.path.join(outdir, "probe-%s.log" % fx), "w") as f:
            f.write(text)
        say("\n".join("  probe %s | %s" % (fx, ln) for ln in text.splitlines()[-40:]))
        check("recompiled CUBIN is byte-identical to the launch's, in one process (%s)" % fx,
              "PROBE IDENTICAL" in text and "PROBE DIFFERS" not in text)


def run_honest(py, outdir, left, costs):
    h = Helper([py, "-I", HELPER, "serve"], os.path.join(outdir, "helper-provenance.err"))
    costs["start_provenance"] = h.start_s
    say("helper (provenance on): %s in %.2f s" % (json.dumps(h.version), h.start_s))
    try:
        for fx in OK_FIXTURES:
            if left() < 40:
                skip("fixture %s with provenance" % fx, "out of time")
                continue
            r = h.ask(request(fx, timeout_s=120), 150)
            say("  %s cold: %s" % (fx, brief(r)))
            check("the bundled fixture %s traces ok with provenance on" % fx, r.get("status") == "ok", brief(r))
            if r.get("status") == "ok":
                costs["trace"].append(r["_round_trip"])
                costs["cold"].append(r["seconds"].get("provenance", 0))
                costs["kernels"].append(len(r.get("kernels", [])))
        for fx in ("sin_kernel", "l2_norm_triton1", "triton_matmul"):
            if left() < 30:
                skip("fixture %s cached" % fx, "out of time")
                continue
            r = h.ask(request(fx, timeout_s=120), 150)
            say("  %s again: %s" % (fx, brief(r)))
            ok = r.get("status") == "ok"
            check("the same answer again is served from the cache (%s)" % fx,
                  ok and r["seconds"].get("provenance", 9) < 0.5, brief(r))
            if ok:
                costs["cached"].append(r["seconds"].get("provenance", 0))
                costs["trace_cached"].append(r["_round_trip"])
    finally:
        h.close()
    if left() < 40:
        skip("helper without provenance", "out of time")
        return
    h = Helper([py, "-I", HELPER, "serve", "--no-provenance"], os.path.join(outdir, "helper-plain.err"))
    costs["start_plain"] = h.start_s
    try:
        for fx in ("sin_kernel", "l2_norm_triton1", "triton_matmul"):
            if left() < 30:
                break
            r = h.ask(request(fx, timeout_s=120), 150)
            say("  %s without provenance: %s" % (fx, brief(r)))
            if r.get("status") == "ok":
                costs["plain"].append(r["_round_trip"])
    finally:
        h.close()


def nvcc_cubin(work):
    nvcc = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
    out = os.path.join(work, "forged_sin.cubin")
    try:
        subprocess.run([nvcc, "-cubin", "-arch=sm_90", "-o", out, os.path.join(FIX, "forged_sin.cu")], check=True,
                       capture_output=True, timeout=60)
    except (OSError, subprocess.SubprocessError) as e:
        return None, "nvcc: %s" % e
    return out, None


def run_forged(py, outdir, work, left):
    other = os.path.join(work, "other.cubin")
    with open(os.path.join(FIX, "rotary_transform.response.json")) as f:
        with open(other, "wb") as g:
            g.write(base64.b64decode(json.load(f)["kernels"][0]["cubin"]))
    cubin, why = nvcc_cubin(work)
    for what, path in (("a CUBIN built by nvcc from a CUDA kernel", cubin), ("another answer's CUBIN", other)):
        if path is None:
            skip("forged: " + what, why)
            continue
        if left() < 40:
            skip("forged: " + what, "out of time")
            continue
        h = Helper([py, "-I", os.path.abspath(__file__), "helper", "forge", path],
                   os.path.join(outdir, "helper-forge.err"))
        try:
            r = h.ask(request("sin_kernel", timeout_s=120), 150)
        finally:
            h.close()
        say("  forged (%s): %s" % (what, brief(r)))
        check("a child's ok reply with %s is refused as untraceable" % what,
              r.get("status") == "untraceable" and r.get("reason", "").startswith(MISMATCH), brief(r))


def run_scan(py, outdir, left):
    if left() < 40:
        skip("second answer's memory", "out of time")
        return
    first, own = "kswall" + secrets.token_hex(12), "kswall" + secrets.token_hex(12)
    sha = lambda t: hashlib.sha256(t.encode()).hexdigest()  # noqa: E731
    base = request("sin_kernel", timeout_s=120)
    a = dict(base, source=base["source"] + "\n# %s\nMARK = \"%s\"\n" % (first, first))
    b = dict(base, source=base["source"] + "\n# kswall-scan %s %s\n# %s\n" % (sha(first), sha(own), own))
    h = Helper([py, "-I", os.path.abspath(__file__), "helper", "scan"], os.path.join(outdir, "helper-scan.err"))
    try:
        ra = h.ask(a, 150)
        rb = h.ask(b, 150)
    finally:
        h.close()
    say("  first answer: %s\n  second answer: %s" % (brief(ra), brief(rb)))
    m = re.search(r"first=(\d+) own=(\d+)", rb.get("reason", ""))
    check("the first answer traces ok", ra.get("status") == "ok", brief(ra))
    check("a second answer's child finds nothing of the first in its memory (and finds its own marker)",
          bool(m) and m.group(1) == "0" and int(m.group(2)) > 0, rb.get("reason", "")[:300])


def run_bundled(outdir, work, left):
    score = os.environ.get("KSCORE_BIN")
    if not score:
        skip("bundled Triton answers", "KSCORE_BIN is not set")
        return
    results = os.path.join(work, "bundled")
    plan = (("attacks_triton", []), ("reflexion_oneshot_tritonbench_triton", ["--no-timing"]),
            ("levels_triton", ["--no-timing"]))
    done = []
    for stem, extra in plan:
        if left() < 45:
            skip("bundled %s" % stem, "out of time (%d s left)" % left())
            continue
        t0 = time.monotonic()
        try:
            p = subprocess.run([score, "--require-gpu", "--seed", "1", "--team", "wall"] + extra
                               + ["--out", os.path.join(results, stem), os.path.join(ROOT, "submissions", "triton",
                                                                                      stem + ".json")],
                               capture_output=True, text=True, timeout=left() - 20)
            say("  score %s: exit %d in %.1f s\n%s" % (stem, p.returncode, time.monotonic() - t0, p.stdout[-3000:]))
            done.append(stem)
        except subprocess.TimeoutExpired:
            skip("bundled %s" % stem, "score ran out of time")
    if not done:
        return
    p = subprocess.run([sys.executable, os.path.join(HERE, "triton_expected.py"),
                        os.path.join(ROOT, "submissions", "triton", "expected.json"), results],
                       capture_output=True, text=True)
    say(p.stdout[-6000:])
    for line in p.stdout.splitlines():
        if line.startswith(("PASS ", "FAIL ")):
            check("bundled verdict with provenance: " + line[5:].split(":")[0], line.startswith("PASS"), line[5:][:300])


def run_all(outdir, seconds):
    deadline = time.monotonic() + seconds
    left = lambda: deadline - time.monotonic()  # noqa: E731
    py = sys.executable
    work = tempfile.mkdtemp(prefix="kscore-wall-work-")
    costs = {"trace": [], "cold": [], "cached": [], "trace_cached": [], "plain": [], "kernels": []}
    say("python %s; package %s" % (py, PACKAGE))
    try:
        run_forged(py, outdir, work, left)
        run_scan(py, outdir, left)
        run_honest(py, outdir, left, costs)
        run_probes(py, outdir, left)
        run_bundled(outdir, work, left)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    say("cost helper start to first answer: with provenance %s s, without %s s" % (
        "%.2f" % costs["start_provenance"] if "start_provenance" in costs else "n/a",
        "%.2f" % costs["start_plain"] if "start_plain" in costs else "n/a"))
    say("cost trace round trip, cold cache (median of %d fixtures, %s kernels each): %s s; the provenance part: %s s"
        % (len(costs["trace"]), costs["kernels"], median(costs["trace"]), median(costs["cold"])))
    say("cost per recompiled kernel, cold (sum over fixtures): %s s" % (
        "%.3f" % (sum(costs["cold"]) / max(1, sum(costs["kernels"][:len(costs["cold"])])))))
    say("cost same answer again: trace %s s, provenance from the cache %s s; without provenance: trace %s s" % (
        median(costs["trace_cached"]), median(costs["cached"]), median(costs["plain"])))
    say("trace-wall: %d passed, %d failed, %d skipped" % (COUNTS["passed"], COUNTS["failed"], COUNTS["skipped"]))
    return 1 if COUNTS["failed"] else 0


# ---- inside the tampering helper ----

def scan_memory(hashes):
    """Counts, per SHA-256 in `hashes`, the marker tokens in this process's anonymous memory whose
    hash it is (the tokens themselves are never in this code's memory)."""
    found = dict.fromkeys(hashes, 0)
    regions = total = 0
    with open("/proc/self/maps") as f:
        maps = f.read().splitlines()
    fd = os.open("/proc/self/mem", os.O_RDONLY)
    try:
        for line in maps:
            parts = line.split()
            path = parts[5] if len(parts) > 5 else ""
            if parts[1][0] != "r" or (path and path not in ("[heap]", "[stack]")):
                continue
            lo, hi = (int(x, 16) for x in parts[0].split("-"))
            regions += 1
            at = lo
            while at < hi:
                n = min(16 << 20, hi - at)
                try:
                    data = os.pread(fd, n + 64 if at + n < hi else n, at)
                except OSError:
                    break
                total += len(data)
                for m in TOKEN.finditer(data):
                    h = hashlib.sha256(m.group()).hexdigest()
                    if h in found:
                        found[h] += 1
                at += n
    finally:
        os.close(fd)
    return found, regions, total


def tampering_runner(mode, arg):
    sys.path.insert(0, PACKAGE)
    from kscore_triton import child, trace
    from kscore_triton.protocol import encode

    def forge():
        with open(arg, "rb") as f:
            cubin = f.read()
        real = trace.kernel_info
        first = []

        def forged(kernel):  # what an answer with full Python in its child can do to the record
            # only the first kernel (specialization) the answer launches, so that the rest of the
            # reply stays consistent (the other specializations of sin_kernel take other
            # arguments and blocks, and a forgery of them all is refused by the reply's own
            # checks before provenance: the first GPU run showed it)
            info = real(kernel)
            if not first:
                first.append(id(kernel))
            if id(kernel) == first[0] and not info.get("_forged"):
                info.update(cubin=cubin, sha256=hashlib.sha256(cubin).hexdigest(), _forged=True)
            return info
        trace.kernel_info = forged

    def runner(req, tree, notes, ctx, wfd):
        if mode == "forge":
            forge()
        elif "kswall-scan" in req.source:
            want = re.search(r"kswall-scan ([0-9a-f]{64}) ([0-9a-f]{64})", req.source).groups()
            found, regions, total = scan_memory(want)
            os.write(wfd, encode({"status": "error", "reason": "scan: first=%d own=%d regions=%d bytes=%d" % (
                found[want[0]], found[want[1]], regions, total), "stdout": "", "stderr": ""}))
            os._exit(0)
        child.run_child(req, tree, notes, ctx, wfd)
    return runner


def run_helper(mode, arg):
    sys.path.insert(0, PACKAGE)
    from kscore_triton.server import Server, protect_stdio
    inp, out = protect_stdio()
    server = Server("serve", out, runner=tampering_runner(mode, arg))
    server.load_torch()
    try:
        return server.serve(inp)
    finally:
        shutil.rmtree(server.workdir, ignore_errors=True)


# ---- the probe: one process, JIT launch then recompile ----

def _first_diff(a, b):
    la, lb = a.splitlines(), b.splitlines()
    for i, (x, y) in enumerate(zip(la, lb)):
        if x != y:
            return "line %d: %r != %r" % (i + 1, x[:200], y[:200])
    return "lengths %d != %d lines" % (len(la), len(lb))


def run_probe(fixture):
    sys.path.insert(0, PACKAGE)
    cache = tempfile.mkdtemp(prefix="kscore-probe-")
    os.environ["TRITON_CACHE_DIR"] = os.path.join(cache, "launch")
    import torch
    import triton
    triton.knobs.cache.dir = os.path.join(cache, "launch")
    from kscore_triton import child, provenance, recompile
    from kscore_triton.check import check_source
    from kscore_triton.protocol import parse_request
    from kscore_triton.spec import build_tensors, entry_arguments
    say("triton %s, torch %s" % (triton.__version__, torch.__version__))
    with open(os.path.join(FIX, fixture + ".request.json"), "rb") as f:
        req = parse_request(f.read())
    tree, _ = check_source(req.source)
    ns, failure = child._load_answer(tree, req.source)
    if failure:
        say("PROBE DIFFERS: the answer does not load: %s" % (failure,))
        return 1
    for case in req.cases:
        tensors = build_tensors(torch, case, "cuda:0", set(req.entry.made_by_entry), seed=case.index + 1)
        args, kwargs = entry_arguments(req.entry, case, tensors)
        ns[req.entry.name](*args, **kwargs)
    torch.cuda.synchronize()
    kernels = []
    for v in list(ns.values()):
        while type(v).__name__ != "JITFunction" and hasattr(v, "fn"):
            v = v.fn
        if type(v).__name__ == "JITFunction":
            for entry in v.device_caches.values():
                kernels += [k for k in entry[0].values() if hasattr(k, "asm")]
    say("%d compiled kernels" % len(kernels))
    triton.knobs.cache.dir = os.path.join(cache, "recompile")
    identical = 0
    for k in kernels:
        rec = provenance.record_kernel(k)
        say("record: %s" % json.dumps(rec)[:1500])
        if "error" in rec:
            say("PROBE DIFFERS: no record: %s" % rec["error"])
            continue
        t0 = time.monotonic()
        try:
            job = dict(provenance.plan(req.source, [rec]), source=req.source, kernels=[rec])
            k2 = recompile.compile_kernel(recompile.namespace(job), rec)
        except Exception as e:
            say("PROBE DIFFERS: the recompile failed: %s: %s" % (type(e).__name__, e))
            continue
        say("recompiled in %.3f s" % (time.monotonic() - t0))
        if k.asm["cubin"] == k2.asm["cubin"]:
            identical += 1
            continue
        say("PROBE DIFFERS: kernel %s: the CUBINs differ (%d vs %d bytes)" % (rec["name"], len(k.asm["cubin"]),
                                                                          len(k2.asm["cubin"])))
        for stage in ("ttir", "ttgir", "llir", "ptx"):
            if stage in k.asm and stage in k2.asm and k.asm[stage] != k2.asm[stage]:
                say("  stage %s differs first at %s" % (stage, _first_diff(k.asm[stage], k2.asm[stage])))
        m1, m2 = k.metadata._asdict(), k2.metadata._asdict()
        for key in sorted(set(m1) | set(m2)):
            if m1.get(key) != m2.get(key):
                say("  metadata %s: %r != %r" % (key, m1.get(key), m2.get(key)))
    if kernels and identical == len(kernels):
        say("PROBE IDENTICAL: %d of %d kernels" % (identical, len(kernels)))
    shutil.rmtree(cache, ignore_errors=True)
    return 0


def main(argv):
    if len(argv) == 3 and argv[0] == "all":
        os.makedirs(argv[1], exist_ok=True)
        return run_all(argv[1], float(argv[2]))
    if len(argv) == 2 and argv[0] == "probe":
        return run_probe(argv[1])
    if len(argv) in (2, 3) and argv[0] == "helper":
        return run_helper(argv[1], argv[2] if len(argv) == 3 else None)
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
