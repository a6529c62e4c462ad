"""The request loop: one JSON request per line on stdin, one JSON response per line on stdout.

`check` mode needs no torch. `serve` mode imports torch and triton once at start (never
initialising CUDA: the children fork from this process) and forks one child per trace request;
the server enforces the request's wall-clock limit, kills the child's process group when the
child is done or late, checks the child's reply against the response schema and removes the
request's private folder.

Only `Server.respond` writes to the protocol descriptor; the process's own fd 1 is pointed at
stderr at start, so nothing a library prints can reach the protocol stream.
"""

import json
import os
import select
import shutil
import signal
import stat
import sys
import tempfile
import time

from . import confine, limits, recompile, schema, warm
from .check import Refusal, check_source
from .protocol import BadRequest, clean_text, encode, parse_request, response
from .template import Template, TemplateError, request_memfd
from .verify import Verifier


class Server:
    """One helper process. `runner(req, tree, notes, ctx, wfd)` runs in the forked child and must
    never return (child.run_child by default; the tests pass stand-ins). `provenance` is the
    recompile workers' compile function (recompile.triton_compile once torch and triton load;
    the tests pass stand-ins), False to trust the trace's CUBINs, None for the default;
    `cache_dir` a folder for recompile results that outlive the process."""

    def __init__(self, mode, proto_out, allow_unsandboxed=False, runner=None, workdir=None, provenance=None,
                 cache_dir=None):
        self.mode = mode
        self.out = proto_out
        self.allow_unsandboxed = allow_unsandboxed
        self.runner = runner
        self.workdir = workdir or tempfile.mkdtemp(prefix="kscore-triton-")
        os.chmod(self.workdir, 0o711)  # a child that drops root must reach its folder beneath
        self.versions = None
        self.unavailable = None
        self.import_s = None
        self.warm_s = None
        self.stub_cache = None
        self.template = None
        self.provenance = provenance
        self.cache_dir = cache_dir
        self.verifier = None
        self.package_dir = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

    # ---- start-up ----

    def load_torch(self):
        """Imports torch and triton (serve mode). On failure, traces answer `unavailable`.
        Whatever torch writes to the temporary folder (its inductor cache folder, created when
        the dispatch machinery is first used) lands in the server's own folder, removed at exit."""
        tmp = os.path.join(self.workdir, "tmp")
        os.makedirs(tmp, exist_ok=True)
        os.environ["TMPDIR"] = tmp
        tempfile.tempdir = tmp
        t0 = time.monotonic()
        try:
            import platform
            import torch
            import triton
            import triton.language  # noqa: F401  (warm what a child would import)
            import triton.compiler.compiler  # noqa: F401
            import triton.runtime.autotuner  # noqa: F401
            import torch.utils._python_dispatch  # noqa: F401
            from . import child, trace  # noqa: F401
            self.versions = {"python": platform.python_version(), "torch": str(torch.__version__).split("+")[0],
                             "triton": str(triton.__version__)}
            if self.runner is None:
                self.runner = child.run_child
            if self.provenance is None:
                self.provenance = recompile.triton_compile
        except BaseException as e:  # ImportError, or a broken installation raising anything
            self.unavailable = clean_text("torch and triton cannot be imported by %s: %s: %s"
                                          % (sys.executable, type(e).__name__, e), limits.MAX_REASON)
        self.import_s = round(time.monotonic() - t0, 3)
        if self.unavailable is None:
            t1 = time.monotonic()
            warm.warm_server(self)
            self.warm_s = round(time.monotonic() - t1, 3)

    # ---- the loop ----

    def respond(self, obj):
        data = encode(obj)
        view = memoryview(data)
        while view:
            n = os.write(self.out, view)
            view = view[n:]

    def start_template(self):
        """Forks the template every trace child comes from (template.py), before any request is
        read; on failure, traces answer `unavailable`."""
        if self.mode != "serve" or self.unavailable or self.template is not None or self.runner is None:
            return
        try:
            self.template = Template(self.runner)
            if self.provenance:
                self.verifier = Verifier(recompile.make_runner(self.provenance), self.workdir,
                                         (self.versions or {}).get("triton", "?"), self.allow_unsandboxed,
                                         [self.package_dir], self.cache_dir)
        except OSError as e:
            self.unavailable = "the trace template process cannot start: %s" % e

    def serve(self, inp):
        """Reads requests from the binary stream `inp` until EOF or `quit`."""
        self.start_template()
        try:
            return self._loop(inp)
        finally:
            if self.template is not None:
                self.template.close()
                self.template = None
            if self.verifier is not None:
                self.verifier.close()
                self.verifier = None

    def _loop(self, inp):
        while True:
            line = inp.readline(limits.MAX_REQUEST_LINE + 1)
            if not line:
                return 0
            if len(line) > limits.MAX_REQUEST_LINE and not line.endswith(b"\n"):
                while line and not line.endswith(b"\n"):
                    line = inp.readline(1 << 20)
                self.respond(response(None, "bad_request", reason="the request line is over %d bytes"
                                      % limits.MAX_REQUEST_LINE))
                continue
            if not line.strip():
                continue
            try:
                req = parse_request(line)
                req.line = line  # what a trace child reads (the template never does)
            except BadRequest as e:
                self.respond(response(e.id, "bad_request", reason=clean_text(e.reason, limits.MAX_REASON)))
                continue
            if req.op == "quit":
                return 0
            try:
                out = self.handle(req)
            except Exception as e:  # the server outlives whatever one request does to it
                out = response(req.id, "error", reason=clean_text("kscore-triton internal error: %s: %s"
                                                                  % (type(e).__name__, e), limits.MAX_REASON))
            self.respond(out)

    def handle(self, req):
        if req.op == "check":
            return self.handle_check(req)
        if req.op == "version":
            return self.handle_version(req)
        return self.handle_trace(req)

    def handle_check(self, req):
        try:
            _, notes = check_source(req.source)
        except Refusal as e:
            return response(req.id, "refused", line=e.line, reason=clean_text(e.reason, limits.MAX_REASON))
        return response(req.id, "ok", notes=notes or None)

    def handle_version(self, req):
        abi = confine.landlock_abi()
        fields = {"protocol": limits.PROTOCOL_VERSION, "mode": self.mode, "landlock_abi": abi}
        if self.mode == "check":
            return response(req.id, "ok", **fields)
        if self.unavailable:
            return response(req.id, "unavailable", reason=self.unavailable, **fields)
        return response(req.id, "ok", versions=self.versions, import_s=self.import_s, warm_s=self.warm_s,
                        stub_cache=self.stub_cache is not None, **fields)

    # ---- trace ----

    def _refuse_trace(self, req):
        """A response when the trace cannot run at all, else None."""
        if self.mode != "serve":
            return response(req.id, "unavailable", reason="kscore-triton was started in check mode")
        if self.unavailable:
            return response(req.id, "unavailable", reason=self.unavailable)
        if self.template is None:
            return response(req.id, "unavailable", reason="no trace template process (the server was not started "
                            "with serve())")
        if confine.landlock_abi() < 1 and not self.allow_unsandboxed:
            return response(req.id, "unavailable", reason="Landlock is not available on this kernel, so a trace "
                            "cannot be confined (serve --allow-unsandboxed runs trusted answers without it)")
        return None

    def handle_trace(self, req):
        refused = self._refuse_trace(req)
        if refused is not None:
            return refused
        try:
            tree, notes = check_source(req.source)
        except Refusal as e:
            return response(req.id, "refused", line=e.line, reason=clean_text(e.reason, limits.MAX_REASON))
        private = tempfile.mkdtemp(prefix="req-", dir=self.workdir)
        try:
            return self._fork_trace(req, tree, notes, private)
        finally:
            shutil.rmtree(private, ignore_errors=True)

    def _fork_trace(self, req, tree, notes, private):
        """Has the template fork the child (which reads the request itself) and collects its
        reply. `tree` and `notes` are the server's own check; the child checks again."""
        answer = os.path.join(private, "answer.py")
        with open(answer, "w", encoding="utf-8") as f:
            f.write(req.source)
        if self.stub_cache:
            shutil.copytree(self.stub_cache, os.path.join(private, "triton-cache"))
        fields = {"private": private, "answer": answer, "allow_unsandboxed": self.allow_unsandboxed,
                  "read_exec": [self.package_dir]}
        t0 = time.monotonic()
        fds = []
        try:
            # the log is read back through this descriptor, never by its path (the child may replace it)
            fds.append(os.open(os.path.join(private, "output.log"),
                               os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600))
            fds.append(request_memfd(req.line))
            rfd, wfd = os.pipe2(os.O_CLOEXEC)
            fds += [rfd, wfd]
            log_fd, request_fd = fds[0], fds[1]
            try:
                child = self.template.fork(fields, request_fd, wfd, log_fd)
            except TemplateError as e:
                self.unavailable = str(e)  # no other template: a fresh helper is kscore's to start
                return response(req.id, "unavailable", reason=clean_text(str(e), limits.MAX_REASON))
            fds.remove(wfd)
            os.close(wfd)
            data, timed_out, status, stopped = collect(rfd, child, t0 + req.timeout_s, lambda: disk_problem(private),
                                                       case_s=req.case_timeout_s)
            out = self._reply(req, data, timed_out, status, log_fd, stopped,
                              deadline=t0 + req.timeout_s + limits.PROVENANCE_GRACE_S)
        finally:
            for fd in fds:
                os.close(fd)
        out["seconds"] = dict(out.get("seconds") or {}, total=round(time.monotonic() - t0, 4))
        return out

    def _reply(self, req, data, timed_out, status, log_fd, stopped=None, deadline=None):
        if stopped:
            return response(req.id, "error", reason=stopped, stderr=_log_head(log_fd))
        if timed_out:
            if isinstance(timed_out, CaseTimeout):
                return response(req.id, "timeout", reason="case %d ran past its %g s limit (each case's trace, "
                                "with its compiles and autotuning, has it)" % (timed_out.case, req.case_timeout_s),
                                case=timed_out.case, stderr=_log_head(log_fd))
            return response(req.id, "timeout", reason="the trace ran past its %g s limit" % req.timeout_s,
                            stderr=_log_head(log_fd))
        if data is None:
            return response(req.id, "error", reason="the trace process sent more than %d bytes"
                            % limits.MAX_CHILD_REPLY)
        if not data:
            return response(req.id, "error", reason="the trace process %s without a reply" % describe_status(status),
                            stderr=_log_head(log_fd))
        obj, problem = parse_reply(data)
        if problem:
            return response(req.id, "error", reason=clean_text("the trace process sent a malformed reply: %s"
                                                               % problem, limits.MAX_REASON),
                            stderr=_log_head(log_fd))
        if obj["status"] == "ok":
            refused = self._provenance(req, obj, deadline)
            if refused is not None:
                return refused
        return dict([("id", req.id), ("status", obj["status"])] + [(k, obj[k]) for k in schema.FIELDS
                                                                    if k in obj and k != "status"])


    def _provenance(self, req, obj, deadline=None):
        """Recompiles the ok reply's kernels (verify.py): None when they are the answer's, else the
        untraceable response. The `jit` records are the server's alone: removed from what it
        passes on."""
        t0 = time.monotonic()
        if self.verifier is not None:
            problem = self.verifier.verify(req, obj, deadline)
            if problem is not None:
                keep = {k: obj[k] for k in ("versions", "confinement", "notes", "stdout", "stderr") if k in obj}
                return response(req.id, "untraceable", reason=clean_text(problem[0], limits.MAX_REASON), **keep)
            obj["seconds"] = dict(obj.get("seconds") or {}, provenance=round(time.monotonic() - t0, 4))
        for k in obj["kernels"]:
            k.pop("jit", None)
        return None


def parse_reply(data):
    """(reply, None) for a well-formed child reply (bytes), else (None, the problem). Never
    raises: the decoder's own recursion guard stops deep nesting, schema.check_reply the rest."""
    try:
        obj = json.loads(data)
    except (ValueError, RecursionError, MemoryError) as e:
        return None, "not JSON (%s)" % type(e).__name__
    if not isinstance(obj, dict):
        return None, "not a JSON object"
    problem = schema.check_reply(obj)
    return (None, problem) if problem else (obj, None)


def _log_head(log_fd):
    from .child import read_head
    return clean_text(read_head(log_fd, limits.MAX_OUTPUT), limits.MAX_OUTPUT)


def folder_usage(path, max_entries):
    """(bytes allocated, entries) beneath `path`, counting at most max_entries + 1 entries. Every
    folder is opened relative to its parent's descriptor without following a link, so a child
    that swaps a folder for a link cannot send the walk elsewhere."""
    total = entries = 0
    try:
        top = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return 0, 0
    stack = [top]
    try:
        while stack and entries <= max_entries:
            fd = stack.pop()
            try:
                with os.scandir(fd) as it:
                    for entry in it:
                        entries += 1
                        if entries > max_entries:
                            break
                        try:
                            st = entry.stat(follow_symlinks=False)
                        except OSError:
                            continue
                        total += st.st_blocks * 512
                        if stat.S_ISDIR(st.st_mode):
                            try:
                                stack.append(os.open(entry.name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW
                                                     | os.O_CLOEXEC, dir_fd=fd))
                            except OSError:
                                pass
            except OSError:
                pass
            finally:
                os.close(fd)
    finally:
        for fd in stack:
            os.close(fd)
    return total, entries


def disk_problem(private):
    """Why the child's folder is over its caps (limits.CHILD_DISK_*), or None."""
    size, entries = folder_usage(private, limits.CHILD_DISK_ENTRIES)
    if entries > limits.CHILD_DISK_ENTRIES:
        return "the trace made more than %d files in its folder" % limits.CHILD_DISK_ENTRIES
    if size > limits.CHILD_DISK_TOTAL:
        return "the trace wrote more than %d bytes in its folder" % limits.CHILD_DISK_TOTAL
    return None


def describe_status(status):
    if status is None:
        return "ended"
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        try:
            name = signal.Signals(sig).name
        except ValueError:
            name = "signal %d" % sig
        return "was killed by %s" % name
    return "exited with status %d" % os.WEXITSTATUS(status)


DISK_CHECK_S = 1.0  # seconds between two checks of a child's folder


class CaseTimeout(int):
    """collect()'s timed_out when a case ran past the per-case limit: true, and names the case."""

    @property
    def case(self):
        return int(self) - 1


def collect(rfd, child, deadline, watch=None, case_s=None, cap=None):
    """Reads the child's reply (template.Child) until EOF or the deadline. Once the child has
    exited, its process group is killed, so nothing it started can hold the pipe open; the group is killed in every
    case and the child reaped. `watch()`, called about every DISK_CHECK_S seconds, returns a
    reason to stop the child (or None). With `case_s`, each case also has that long: the child
    writes a newline ahead of its reply as each case ends (child.run_child), and the case's window
    starts again there, within the whole `deadline`. Returns (data, timed_out, wait status, stop
    reason): data is None when the reply was over the cap (`cap` bytes, limits.MAX_CHILD_REPLY by
    default); timed_out is a CaseTimeout (naming the case) when a case ran past its window."""
    cap = limits.MAX_CHILD_REPLY if cap is None else cap
    chunks, size = [], 0
    timed_out = over = False
    stopped = None
    next_watch = time.monotonic() + DISK_CHECK_S
    cases_done, in_reply = 0, False
    case_deadline = time.monotonic() + case_s if case_s else None
    while True:
        now = time.monotonic()
        limit = deadline if case_deadline is None or in_reply else min(deadline, case_deadline)
        left = limit - now
        if left <= 0:
            timed_out = CaseTimeout(cases_done + 1) if limit != deadline else True
            break
        if watch is not None and now >= next_watch:
            stopped = watch()
            if stopped:
                break
            next_watch = time.monotonic() + DISK_CHECK_S
        ready, _, _ = select.select([rfd], [], [], min(left, 0.25))
        if not ready:
            if child.exited():
                child.kill_group()
            continue
        chunk = os.read(rfd, 1 << 20)
        if not chunk:
            break
        size += len(chunk)
        if size > cap:
            over = True
            break
        if not in_reply:
            marks = len(chunk) - len(chunk.lstrip(b"\n"))
            cases_done += marks
            in_reply = marks < len(chunk)
            if marks and case_deadline is not None:
                case_deadline = time.monotonic() + case_s
            chunk = chunk[marks:]
        if chunk:
            chunks.append(chunk)
    if not timed_out and not over and not stopped:
        grace = min(time.monotonic() + limits.CHILD_EXIT_GRACE_S, deadline)
        while not child.exited() and time.monotonic() < grace:
            time.sleep(0.005)
    status = child.reap()
    if timed_out or stopped:
        return b"", timed_out, status, stopped
    return (None if over else b"".join(chunks)), False, status, None


def protect_stdio():
    """Moves the protocol streams to private descriptors: returns (requests in, responses out).
    Afterwards fd 0 reads /dev/null and fd 1 is a copy of stderr."""
    proto_in = os.dup(0)
    proto_out = os.dup(1)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return os.fdopen(proto_in, "rb", buffering=1 << 16), proto_out
