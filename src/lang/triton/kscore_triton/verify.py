"""The server's side of provenance: every CUBIN of an `ok` reply is recompiled, or the answer is
refused (docs/triton-protocol.md, "Provenance of the CUBINs").

`Verifier.verify(req, reply)` runs after the child's reply passed the schema check. For each
kernel it takes the `jit` record, plans the recompile from the request's own source (never from
anything the child sent but the record), looks the result up in the cache (this process's, and a
folder on disk when the helper was given one), and has a fresh recompile worker (recompile.py,
forked from the compile template) compile what is missing. A CUBIN whose SHA-256 differs from
the recompiled one is `untraceable: a CUBIN Triton did not compile from this answer`; a kernel
that cannot be recompiled (no record, a refused definition, a compile error, a worker that dies,
hangs or answers nonsense) is `untraceable` with the reason. Only the SHA-256 of a CUBIN that
Triton compiled is cached, keyed by (source hash, specialization, Triton version).
"""

import json
import os
import shutil
import tempfile
import time

from . import limits
from .protocol import clean_text
from .provenance import Untraceable, cache_key, plan
from .template import Template, TemplateError, request_memfd

MISMATCH = "a CUBIN Triton did not compile from this answer"
MAX_WORKER_REPLY = 1 << 20  # bytes the server reads back from a recompile worker
MAX_DISK_ENTRY = 4096  # bytes of one cached verdict on disk


class Verifier:
    """Recompiles and compares; holds the compile template and the caches."""

    def __init__(self, runner, workdir, triton_version, allow_unsandboxed=False, read_exec=(), cache_dir=None):
        self.template = Template(runner, raw=True)
        self.workdir = workdir
        self.triton_version = triton_version
        self.allow_unsandboxed = allow_unsandboxed
        self.read_exec = list(read_exec)
        self.cache_dir = cache_dir
        self.cache = {}
        self.stats = {"compiled": 0, "cached": 0}

    def close(self):
        self.template.close()

    # ---- the cache ----

    def _cached(self, key):
        if key in self.cache:
            return self.cache[key]
        if not self.cache_dir:
            return None
        try:
            fd = os.open(os.path.join(self.cache_dir, key + ".json"), os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
        except OSError:
            return None
        try:
            data = os.read(fd, MAX_DISK_ENTRY + 1)
        finally:
            os.close(fd)
        try:
            sha = json.loads(data).get("sha256") if len(data) <= MAX_DISK_ENTRY else None
        except (ValueError, AttributeError):
            sha = None
        if isinstance(sha, str) and len(sha) == 64 and all(c in "0123456789abcdef" for c in sha):
            self.cache[key] = sha
            return sha
        return None

    def _store(self, key, sha):
        self.cache[key] = sha
        if not self.cache_dir:
            return
        try:
            os.makedirs(self.cache_dir, mode=0o700, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.cache_dir, prefix=".tmp-")
            with os.fdopen(fd, "w") as f:
                json.dump({"sha256": sha}, f)
            os.replace(tmp, os.path.join(self.cache_dir, key + ".json"))
        except OSError:
            pass  # the cache is an optimisation: a folder that cannot be written costs recompiles

    # ---- verifying one reply ----

    def verify(self, req, reply, deadline=None):
        """None when every kernel of the ok `reply` is what Triton compiles from req.source, else
        (reason, seconds): the answer is untraceable. The recompile ends by `deadline` (monotonic;
        default: req.timeout_s from now)."""
        deadline = time.monotonic() + req.timeout_s if deadline is None else deadline
        t0 = time.monotonic()
        kernels = reply.get("kernels") or []
        records = []
        for k in kernels:
            jit = k.get("jit")
            if not isinstance(jit, dict) or "error" in jit:
                why = jit.get("error") if isinstance(jit, dict) else "the trace carries no record of it"
                return ("the kernel %s cannot be recompiled from this answer's source: %s" % (k["name"], why),
                        time.monotonic() - t0)
            records.append(jit)
        try:
            job_plan = plan(req.source, records)
        except Untraceable as e:
            return "the answer's kernels cannot be recompiled from its source: %s" % e, time.monotonic() - t0
        keys = [cache_key(req.source, jit, self.triton_version) for jit in records]
        want = {}
        for k, jit, key in zip(kernels, records, keys):
            if self._cached(key) is None and key not in want:
                want[key] = jit
        if want:
            results, problem = self._compile(req, job_plan, list(want.values()), deadline)
            if problem:
                return problem, time.monotonic() - t0
            for (key, jit), res in zip(want.items(), results):
                if "error" in res:
                    return ("the kernel %s (line %d) cannot be recompiled from this answer's source: %s"
                            % (jit["name"], jit["line"], res["error"]), time.monotonic() - t0)
                self._store(key, res["sha256"])
            self.stats["compiled"] += len(want)
        self.stats["cached"] += len(kernels) - len(want)
        for k, key in zip(kernels, keys):
            if self.cache[key] != k["sha256"]:
                return ("%s: the kernel %s (line %d) recompiled from the answer's source for the recorded "
                        "specialization is CUBIN %s, the trace's is %s"
                        % (MISMATCH, k["name"], k["jit"]["line"], self.cache[key][:16], k["sha256"][:16]),
                        time.monotonic() - t0)
        return None

    def _compile(self, req, job_plan, records, deadline):
        """Runs one recompile worker for `records`. Returns (results, None) or (None, problem)."""
        from .server import _log_head, collect, disk_problem, describe_status  # server imports this module
        job = dict(job_plan, source=req.source, kernels=records)
        private = tempfile.mkdtemp(prefix="compile-", dir=self.workdir)
        os.chmod(private, 0o711)
        fds = []
        try:
            fds.append(os.open(os.path.join(private, "output.log"),
                               os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600))
            fds.append(request_memfd(json.dumps(job).encode("utf-8")))
            rfd, wfd = os.pipe2(os.O_CLOEXEC)
            fds += [rfd, wfd]
            fields = {"private": private, "allow_unsandboxed": self.allow_unsandboxed, "read_exec": self.read_exec,
                      "timeout_s": req.timeout_s}
            try:
                child = self.template.fork(fields, fds[1], wfd, fds[0])
            except TemplateError as e:
                return None, clean_text("the kernels cannot be recompiled: %s" % e, limits.MAX_REASON)
            fds.remove(wfd)
            os.close(wfd)
            data, timed_out, status, stopped = collect(rfd, child, deadline, lambda: disk_problem(private),
                                                       cap=MAX_WORKER_REPLY)
            log = _log_head(fds[0]).strip()[-600:]
        finally:
            for fd in fds:
                os.close(fd)
            shutil.rmtree(private, ignore_errors=True)
        if stopped:
            return None, "the recompile of the answer's kernels was stopped: %s" % stopped
        if timed_out:
            return None, ("the recompile of the answer's kernels ran past the trace's limit (%g s, and %g s more "
                          "for the recompile)" % (req.timeout_s, limits.PROVENANCE_GRACE_S))
        if not data:
            return None, clean_text("the recompile process %s without a reply%s" % (
                describe_status(status), " (its output ends: %s)" % log if log else ""), limits.MAX_REASON)
        return _check_worker_reply(data, len(records))


def _check_worker_reply(data, count):
    """(results, None) for a well-formed worker reply, else (None, the problem). Total."""
    try:
        obj = json.loads(data)
    except (ValueError, RecursionError, MemoryError):
        obj = None
    if isinstance(obj, dict) and isinstance(obj.get("unconfined"), str):
        return None, clean_text("the recompile process could not be confined: %s" % obj["unconfined"], 600)
    results = obj.get("results") if isinstance(obj, dict) else None
    ok = isinstance(results, list) and len(results) == count and all(
        isinstance(r, dict) and len(r) == 1 and (
            (isinstance(r.get("sha256"), str) and len(r["sha256"]) == 64
             and all(c in "0123456789abcdef" for c in r["sha256"]))
            or isinstance(r.get("error"), str)) for r in results)
    if not ok:
        return None, "the recompile process sent a malformed reply"
    return [dict(r, error=clean_text(r["error"], limits.MAX_REASON)) if "error" in r else r for r in results], None
