"""The request loop: one JSON request per line on stdin, one JSON response per line on stdout.

`serve` imports torch once, never initialising CUDA, and forks a fresh child per `cases` or
`materialize` request: a file's code runs in a process of its own, confined (confine_child) and
killed with its process group at the request's deadline. The child writes its reply on a pipe;
the server checks its size and passes it on. Only `Server.respond` writes to the protocol
descriptor: fd 1 is pointed at stderr at start, so nothing the set's code prints reaches it.
"""

import json
import os
import select
import shutil
import signal
import sys
import tempfile
import time

from . import limits
from .record import CaseError, Writer, signature
from .runset import SetError, run_kernelbench, run_tritonbench

OPS = ("version", "cases", "materialize", "quit")
FORMATS = ("tritonbench-g", "kernelbench")


class BadRequest(Exception):
    pass


def clean(text, cap=limits.MAX_REASON):
    data = str(text).replace("\x00", "").encode("utf-8", "replace")
    if len(data) <= cap:
        return data.decode("utf-8")
    return data[:cap - 16].decode("utf-8", "ignore") + " [truncated]"


def encode(obj):
    return (json.dumps(obj, ensure_ascii=False, allow_nan=False, separators=(",", ":")) + "\n").encode("utf-8")


def _str(req, key, required=True):
    v = req.get(key)
    if v is None and not required:
        return None
    if not isinstance(v, str) or not v or len(v.encode("utf-8", "replace")) > limits.MAX_PATH or "\x00" in v:
        raise BadRequest("%s must be a non-empty string of at most %d bytes" % (key, limits.MAX_PATH))
    return v


def parse_request(line):
    """The request as a dict with defaults filled in, or raises BadRequest naming the field."""
    try:
        req = json.loads(line)
    except (ValueError, RecursionError) as e:
        raise BadRequest("the request is not JSON (%s)" % type(e).__name__)
    if not isinstance(req, dict):
        raise BadRequest("the request is not a JSON object")
    op = req.get("op")
    if op not in OPS:
        raise BadRequest("op must be one of %s" % ", ".join(OPS))
    rid = req.get("id", 0)
    if not isinstance(rid, int) or isinstance(rid, bool) or not 0 <= rid < (1 << 53):
        raise BadRequest("id must be an integer from 0 to 2^53")
    if op in ("version", "quit"):
        return {"op": op, "id": rid}
    # paths are made absolute here: the child that runs the set's code works in its private folder
    out = {"op": op, "id": rid, "format": req.get("format"), "path": os.path.abspath(_str(req, "path")),
           "perf_path": _str(req, "perf_path", required=False)}
    if out["perf_path"]:
        out["perf_path"] = os.path.abspath(out["perf_path"])
    if out["format"] not in FORMATS:
        raise BadRequest("format must be one of %s" % ", ".join(FORMATS))
    entries = req.get("entries", [])
    if not isinstance(entries, list) or len(entries) > limits.MAX_NAMES or \
            not all(isinstance(e, str) and e.isidentifier() and len(e) <= limits.MAX_NAME for e in entries):
        raise BadRequest("entries must be a list of at most %d Python names" % limits.MAX_NAMES)
    out["entries"] = entries
    seed = req.get("seed", 0)
    if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < (1 << 63):
        raise BadRequest("seed must be an integer from 0 to 2^63-1")
    out["seed"] = seed
    t = req.get("timeout_s", limits.DEFAULT_TIMEOUT_S)
    if isinstance(t, bool) or not isinstance(t, (int, float)) or not 0 < t <= limits.MAX_TIMEOUT_S:
        raise BadRequest("timeout_s must be a number of seconds in (0, %d]" % limits.MAX_TIMEOUT_S)
    out["timeout_s"] = float(t)
    out["confine"] = req.get("confine", True) is not False
    if op == "materialize":
        out["inputs_dir"] = os.path.abspath(_str(req, "inputs_dir"))
        out["outputs_dir"] = os.path.abspath(_str(req, "outputs_dir"))
        for key in ("inputs_dir", "outputs_dir"):
            if not os.path.isdir(out[key]):
                raise BadRequest("%s %s is not a folder" % (key, out[key]))
        if os.path.realpath(out["inputs_dir"]) == os.path.realpath(out["outputs_dir"]):
            raise BadRequest("inputs_dir and outputs_dir must be two folders: expected outputs never lie "
                             "beside the inputs")
        mb = req.get("max_bytes", limits.DEFAULT_MAX_BYTES)
        if isinstance(mb, bool) or not isinstance(mb, int) or not 0 < mb <= (1 << 50):
            raise BadRequest("max_bytes must be a positive integer")
        out["max_bytes"] = mb
        expect = req.get("expect")
        if expect is not None and (not isinstance(expect, list) or len(expect) > limits.MAX_CASES or
                                   not all(isinstance(s, str) and len(s) <= 64 for s in expect)):
            raise BadRequest("expect must be a list of at most %d case signatures" % limits.MAX_CASES)
        out["expect"] = expect
        cs = req.get("cases_seed", 0)
        if not isinstance(cs, int) or isinstance(cs, bool) or not 0 <= cs < (1 << 63):
            raise BadRequest("cases_seed must be an integer from 0 to 2^63-1")
        out["cases_seed"] = cs
    return out


def confine_child(req, private):
    """The oracle's confinement (the set's code is trusted; the answer-only rules are left out):
    Landlock lets it read and execute the system, Python and the set's folders, write its private
    folder and (materialize) the two output folders, and reach no TCP port (ABI 4 and later).
    Privileges are kept and no seccomp filter is set. Returns the `confinement` object."""
    out = {"landlock": False}
    try:
        from kscore_triton import confine
    except ImportError as e:
        out["reason"] = "the Triton helper's confinement is not installed beside the oracle: %s" % e
        return out
    try:
        confine.process_setup()
        try:
            import torch
            if torch.cuda.is_available():
                torch.cuda.init()  # the driver's libraries are mapped before the view is closed
        except (ImportError, AttributeError):
            pass
        reads = [os.path.dirname(os.path.abspath(p)) for p in (req["path"], req.get("perf_path")) if p]
        rules = confine.child_rules(sys, private, reads + [os.path.dirname(os.path.abspath(__file__))])
        for key in ("inputs_dir", "outputs_dir"):
            if req.get(key):
                rules.append((os.path.realpath(req[key]), confine.all_access()))
        out["landlock_abi"] = confine.landlock(rules)
        out["landlock"] = True
        out["network"] = out["landlock_abi"] >= 4
    except Exception as e:  # ConfineError, OSError: reported, and the trusted code still runs
        out["reason"] = clean("%s: %s" % (type(e).__name__, e), 512)
    return out


def run_request(req, private):
    """The child's work: the reply object for one cases or materialize request."""
    try:  # the Triton helper's child environment: home, temporary folder, Triton cache, user name
        import types
        from kscore_triton.child import _environment
        _environment(types.SimpleNamespace(private_dir=private))
    except Exception:  # no triton (the stand-in's tests): the folders alone
        os.environ["TMPDIR"] = os.environ["HOME"] = private
        os.environ["TRITON_CACHE_DIR"] = os.path.join(private, "triton-cache")
        tempfile.tempdir = private
    os.chdir(private)
    reply = {"id": req["id"], "file": req["path"]}
    reply["confinement"] = confine_child(req, private) if req["confine"] else {"landlock": False,
                                                                               "reason": "not asked for"}
    t0 = time.monotonic()
    try:
        import torch  # noqa: F401
    except ImportError as e:
        return dict(reply, status="unavailable", reason=clean("torch cannot be imported: %s" % e))
    writer = None
    if req["op"] == "materialize":
        writer = Writer(req["inputs_dir"], req["outputs_dir"], req["max_bytes"])
    try:
        run = (run_tritonbench if req["format"] == "tritonbench-g" else run_kernelbench)(req, writer)
    except (SetError, CaseError) as e:
        return dict(reply, status="error", reason=clean(e), seconds=round(time.monotonic() - t0, 3))
    except (OSError, UnicodeDecodeError) as e:
        return dict(reply, status="error", reason=clean("it cannot be read: %s" % e))
    reply.update(status="ok", cases=run.rec.cases, notes=[clean(n, 512) for n in run.notes[:32]],
                 seconds=round(time.monotonic() - t0, 3))
    if run.result_gold is not None:
        reply["result_gold"] = run.result_gold
    if writer is not None:
        reply["bytes_written"] = writer.written
    return reply


def check_signatures(reply, expect, seed):
    """Materialize under a new seed must make the calls the cases run made (shapes, dtypes,
    strides, scalars): a difference is an error naming the first case that differs."""
    got = [c["signature"] for c in reply.get("cases", [])]
    for i, (a, b) in enumerate(zip(got, expect)):
        if a != b:
            return "case %d: its arguments under seed %d differ from the cases run's (shapes that depend " \
                   "on the data)" % (i, seed)
    if len(got) != len(expect):
        return "under seed %d the code made %d calls, the cases run %d (calls that depend on the data)" \
               % (seed, len(got), len(expect))
    return None


class Server:
    def __init__(self, out, runner=run_request):
        self.out = out
        self.runner = runner
        self.workdir = tempfile.mkdtemp(prefix="kscore-oracle-")
        self.versions = None
        self.unavailable = None
        self.stub_cache = None

    def load_torch(self):
        import platform
        self.versions = {"python": platform.python_version(), "protocol": limits.PROTOCOL_VERSION}
        try:
            import torch
            self.versions["torch"] = str(torch.__version__).split("+")[0]
        except BaseException as e:
            self.unavailable = clean("torch cannot be imported by %s: %s: %s" % (sys.executable, type(e).__name__, e))
            return
        self.warm()

    def warm(self):
        """What the Triton helper's server does once for its children (kscore_triton/warm.py),
        best effort: triton imported, a user name in the environment (getpass reads it before
        /etc/passwd, which the confined child cannot), Triton's host facts cached, its cuda_utils
        compiled once into a stub cache each child's Triton cache starts as a copy of."""
        try:
            import triton
            import triton.language  # noqa: F401
            self.versions["triton"] = str(triton.__version__)
            from kscore_triton import warm
        except BaseException as e:
            sys.stderr.write("kscore-oracle: no Triton warm-up: %s\n" % e)
            return
        warm._user_environment()
        try:
            warm._host_facts()
        except Exception as e:
            sys.stderr.write("kscore-oracle: warm-up of Triton's host facts failed: %s\n" % e)
        stubs = os.path.join(self.workdir, "stubs")
        try:
            if warm._build_stubs(stubs):
                self.stub_cache = stubs
        except OSError as e:
            sys.stderr.write("kscore-oracle: warm-up of Triton's cuda_utils failed: %s\n" % e)

    def respond(self, obj):
        view = memoryview(encode(obj))
        while view:
            view = view[os.write(self.out, view):]

    def serve(self, inp):
        while True:
            line = inp.readline(limits.MAX_REQUEST_LINE + 1)
            if not line:
                return 0
            if len(line) > limits.MAX_REQUEST_LINE and not line.endswith(b"\n"):
                while line and not line.endswith(b"\n"):
                    line = inp.readline(1 << 20)
                self.respond({"id": None, "status": "bad_request",
                              "reason": "the request line is over %d bytes" % limits.MAX_REQUEST_LINE})
                continue
            try:
                req = parse_request(line)
            except BadRequest as e:
                self.respond({"id": None, "status": "bad_request", "reason": clean(e)})
                continue
            if req["op"] == "quit":
                return 0
            self.respond(self.handle(req))

    def handle(self, req):
        if req["op"] == "version":
            out = {"id": req["id"], "status": "ok", "versions": self.versions}
            if self.unavailable:
                out["unavailable"] = self.unavailable
            return out
        if self.unavailable:
            return {"id": req["id"], "status": "unavailable", "file": req["path"], "reason": self.unavailable}
        if req["op"] == "materialize" and req["expect"] is None:
            first = self.fork(dict(req, op="cases", seed=req["cases_seed"], inputs_dir=None, outputs_dir=None))
            if first.get("status") != "ok":
                return dict(first, id=req["id"])
            req = dict(req, expect=[c["signature"] for c in first["cases"]])
        reply = self.fork(req)
        if req["op"] == "materialize" and reply.get("status") == "ok":
            wrong = check_signatures(reply, req["expect"], req["seed"])
            if wrong:
                reply = {"id": req["id"], "status": "error", "file": req["path"], "reason": wrong}
        return reply

    def fork(self, req):
        """Runs the request in a fresh child and returns its reply (or why there is none)."""
        private = tempfile.mkdtemp(prefix="req-", dir=self.workdir)
        if self.stub_cache:
            shutil.copytree(self.stub_cache, os.path.join(private, "triton-cache"))
        rfd, wfd = os.pipe()
        t0 = time.monotonic()
        try:
            pid = os.fork()
            if pid == 0:
                os.close(rfd)
                _child(self.runner, req, private, wfd)
            os.close(wfd)
            data, late = _collect(rfd, pid, t0 + req["timeout_s"])
        finally:
            os.close(rfd)
            shutil.rmtree(private, ignore_errors=True)
        base = {"id": req["id"], "file": req["path"]}
        if late:
            return dict(base, status="timeout", reason="the set's code ran past the %g s limit" % req["timeout_s"])
        if data is None:
            return dict(base, status="error", reason="the oracle's child sent more than %d bytes" % limits.MAX_REPLY)
        try:
            reply = json.loads(data)
            if not isinstance(reply, dict) or "status" not in reply:
                raise ValueError("not a reply object")
        except ValueError:
            return dict(base, status="error", reason="the oracle's child ended without a reply (the set's code "
                        "exited or crashed the process)")
        return reply


def _child(runner, req, private, wfd):
    """In the forked child: own process group, output to a log, the reply on wfd; never returns."""
    code = 0
    try:
        os.setpgid(0, 0)
        try:  # dies with the server, confined or not
            from kscore_triton import confine
            confine.parent_death_signal()
        except ImportError:
            pass
        log = os.open(os.path.join(private, "output.log"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.dup2(log, 1)
        os.dup2(log, 2)
        try:
            reply = runner(req, private)
        except Exception as e:  # a bug of the oracle's own, said as such rather than lost
            reply = {"id": req["id"], "file": req["path"], "status": "error",
                     "reason": clean("the oracle failed: %s: %s" % (type(e).__name__, e))}
        try:
            with open(os.path.join(private, "output.log"), "rb") as f:
                head = f.read(limits.MAX_OUTPUT)
            if head:
                reply["output"] = clean(head.decode("utf-8", "replace"), limits.MAX_OUTPUT)
        except OSError:
            pass
        data = encode(reply)
        view = memoryview(data)
        while view:
            view = view[os.write(wfd, view):]
    except BaseException:
        code = 70
    finally:
        os._exit(code)


def _collect(rfd, pid, deadline):
    """(reply bytes or None when over the cap, timed out); the child's group is killed and reaped."""
    chunks, size, late = [], 0, False
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            late = True
            break
        ready, _, _ = select.select([rfd], [], [], min(left, 0.5))
        if not ready:
            continue
        chunk = os.read(rfd, 1 << 20)
        if not chunk:
            break
        size += len(chunk)
        if size > limits.MAX_REPLY:
            chunks = None
            break
        chunks.append(chunk)
    grace = time.monotonic() + limits.CHILD_EXIT_GRACE_S
    while not late and time.monotonic() < grace and os.waitpid(pid, os.WNOHANG) == (0, 0):
        time.sleep(0.01)
    for target in (-pid, pid):
        try:
            os.kill(target, signal.SIGKILL)
        except OSError:
            pass
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:
        pass
    return (None if chunks is None else b"".join(chunks)), late


def protect_stdio():
    """Moves the protocol streams to private descriptors; fd 0 reads /dev/null, fd 1 is stderr."""
    proto_in, proto_out = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return os.fdopen(proto_in, "rb", buffering=1 << 16), proto_out
