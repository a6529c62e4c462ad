"""The template: the process every trace child is forked from.

The server reads every request of the run, so a child forked from it would hold every earlier
answer's source in its memory, for the answer it runs to find. The template is forked from the
server at start (after the imports and the warm-up, before the first request) and never reads a
request: for each trace the server sends it, over a socket pair, the request's private folder and
three descriptors (a memfd holding the request line, the reply pipe's write end, the output log).
The template forks a child, which alone reads the request from the memfd, checks it again and
runs it; the template answers with the child's pid and a pidfd for it. The child is the
template's, so the server cannot wait for it: it watches the pidfd (readable once the child has
exited; the pid stays reserved until the template reaps it, so killing its process group by pid
is safe until then) and asks the template to reap it, which answers with the wait status.
"""

import json
import os
import select
import signal
import socket

# imported here, so that the template holds them and no child pays for them
from .check import check_source
from .child import ChildContext
from .protocol import parse_request

_MAX_MESSAGE = 1 << 16


class TemplateError(Exception):
    """The template is gone or answered what it should not."""


class Template:
    """The server's handle on its template process."""

    def __init__(self, runner, raw=False):
        """Forks the template; `runner(req, tree, notes, ctx, wfd)` is what each child runs (with
        `raw`, `runner(fields, data, wfd, log_fd)` gets the memfd's bytes unparsed: the recompile
        worker's job, verify.py). Raises OSError."""
        mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        pid = os.fork()
        if pid == 0:
            code = 0
            try:
                mine.close()
                keep = theirs.fileno()
                os.closerange(3, keep)  # the protocol streams among them: it never reads a request
                os.closerange(keep + 1, 1 << 20)
                _template_loop(theirs, runner, _run_raw if raw else _run_child)
            except BaseException:
                code = 75
            finally:
                os._exit(code)
        theirs.close()
        self.pid = pid
        self.sock = mine

    def _call(self, msg, fds=()):
        try:
            socket.send_fds(self.sock, [json.dumps(msg).encode()], list(fds))
            data, got, _, _ = socket.recv_fds(self.sock, _MAX_MESSAGE, 1)
        except OSError as e:
            raise TemplateError("the trace template process is gone: %s" % e) from None
        if not data:
            raise TemplateError("the trace template process is gone")
        try:
            answer = json.loads(data)
        except ValueError:
            answer = None
        if not isinstance(answer, dict) or "error" in answer:
            for fd in got:
                os.close(fd)
            raise TemplateError("the trace template could not start a child: %s"
                                % (answer.get("error") if isinstance(answer, dict) else "a bad answer"))
        return answer, got

    def fork(self, fields, request_fd, reply_fd, log_fd):
        """Starts a child for one trace. `fields` (JSON) describe its private folder. Returns a
        Child. Raises TemplateError."""
        answer, got = self._call(dict(fields, op="fork"), (request_fd, reply_fd, log_fd))
        if len(got) != 1 or not isinstance(answer.get("pid"), int):
            for fd in got:
                os.close(fd)
            raise TemplateError("the trace template answered without a child")
        return Child(self, answer["pid"], got[0])

    def reap(self, pid):
        """The child's wait status (it is killed first if still running), or None."""
        try:
            answer, _ = self._call({"op": "reap", "pid": pid})
        except TemplateError:
            return None
        return answer.get("status")

    def close(self):
        """Ends the template (it exits when its socket closes) and waits for it."""
        self.sock.close()
        try:
            os.waitpid(self.pid, 0)
        except ChildProcessError:
            pass


class Child:
    """A trace child forked by the template, watched through its pidfd."""

    def __init__(self, template, pid, pidfd):
        self.template = template
        self.pid = pid
        self.pidfd = pidfd

    def exited(self):
        ready, _, _ = select.select([self.pidfd], [], [], 0)
        return bool(ready)

    def kill_group(self):
        for target in (lambda: os.killpg(self.pid, signal.SIGKILL),
                       lambda: signal.pidfd_send_signal(self.pidfd, signal.SIGKILL)):
            try:
                target()
            except OSError:
                pass

    def reap(self):
        """Kills what is left, lets the template reap the child; returns its wait status."""
        self.kill_group()
        try:
            return self.template.reap(self.pid)
        finally:
            os.close(self.pidfd)


# ---- in the template ----

def _template_loop(sock, runner, child_main):
    from . import confine
    confine.parent_death_signal()
    children = set()
    while True:
        try:
            data, fds, _, _ = socket.recv_fds(sock, _MAX_MESSAGE, 3)
        except OSError:
            return
        if not data:
            return  # the server closed its end, or died
        try:
            msg = json.loads(data)
            op = msg.get("op")
        except (ValueError, AttributeError):
            msg, op = {}, None
        if op == "fork" and len(fds) == 3:
            answer, out_fds = _fork_child(sock, msg, fds, runner, child_main)
            if "pid" in answer:
                children.add(answer["pid"])
        elif op == "reap" and msg.get("pid") in children:
            answer, out_fds = {"status": _reap(msg["pid"])}, []
            children.discard(msg["pid"])
        else:
            answer, out_fds = {"error": "a bad request"}, []
        for fd in fds:
            os.close(fd)
        try:
            socket.send_fds(sock, [json.dumps(answer).encode()], out_fds)
        finally:
            for fd in out_fds:
                os.close(fd)


def _reap(pid):
    try:
        os.killpg(pid, signal.SIGKILL)
    except OSError:
        pass
    try:
        return os.waitpid(pid, 0)[1]
    except ChildProcessError:
        return None


def _fork_child(sock, msg, fds, runner, child_main):
    request_fd, reply_fd, log_fd = fds
    pid = os.fork()
    if pid == 0:
        try:
            sock.close()
            child_main(msg, request_fd, reply_fd, log_fd, runner)
        finally:
            os._exit(72)  # a runner must not return
    try:
        os.setpgid(pid, pid)
    except OSError:
        pass  # the child did it first, or already exited
    try:
        return {"pid": pid}, [os.pidfd_open(pid)]
    except OSError as e:
        _reap(pid)
        return {"error": "pidfd_open: %s" % e}, []


def _run_child(msg, request_fd, reply_fd, log_fd, runner):
    """In the child: reads its own request, checks it again, runs the runner."""
    size = os.fstat(request_fd).st_size
    line = os.pread(request_fd, size, 0)
    os.close(request_fd)
    req = parse_request(line)
    tree, notes = check_source(req.source)
    ctx = ChildContext(msg["private"], msg["answer"], bool(msg.get("allow_unsandboxed")),
                       list(msg.get("read_exec") or ()), log_fd)
    runner(req, tree, notes, ctx, reply_fd)


def _run_raw(msg, request_fd, reply_fd, log_fd, runner):
    """In a raw child: hands the memfd's bytes to the runner unparsed."""
    size = os.fstat(request_fd).st_size
    data = os.pread(request_fd, size, 0)
    os.close(request_fd)
    runner(msg, data, reply_fd, log_fd)


def request_memfd(line):
    """A memfd holding the request line, for the child to read (the template never does)."""
    fd = os.memfd_create("kscore-request", os.MFD_CLOEXEC)
    view = memoryview(line)
    while view:
        view = view[os.write(fd, view):]
    return fd

