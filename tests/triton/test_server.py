"""The request loop and the fork server, with stand-in trace children (no torch needed), and the
launcher script end to end in check mode."""

import io
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

import common
from kscore_triton import limits
from kscore_triton.protocol import encode
from kscore_triton.server import Server


def trace_line(timeout=5, source=None, req_id=1, case_timeout=None):
    r = common.fixture_json("sin_kernel.request.json")
    r["id"], r["timeout_s"] = req_id, timeout
    if case_timeout is not None:
        r["case_timeout_s"] = case_timeout
    if source is not None:
        r["source"] = source
    return (json.dumps(r) + "\n").encode()


def serve(lines, runner, mode="serve"):
    """Runs a Server over `lines` with `runner` as the trace child; returns the responses."""
    r, w = os.pipe()
    server = Server(mode, w, allow_unsandboxed=True, runner=runner)
    server.versions = {"python": "x", "torch": "x", "triton": "x"}
    try:
        server.serve(io.BytesIO(b"".join(lines)))
    finally:
        os.close(w)
    data = b""
    while True:
        chunk = os.read(r, 1 << 20)
        if not chunk:
            break
        data += chunk
    os.close(r)
    leftovers = os.listdir(server.workdir)
    os.rmdir(server.workdir)
    return [json.loads(x) for x in data.splitlines()], leftovers


def alive(pid):
    """False once `pid` is gone or a zombie (killed, waiting to be reaped by whoever adopted it)."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def reply_runner(obj_or_bytes):
    def runner(req, tree, notes, ctx, wfd):
        data = obj_or_bytes if isinstance(obj_or_bytes, bytes) else encode(obj_or_bytes)
        os.write(wfd, data)
        os._exit(0)
    return runner


class ForkServer(unittest.TestCase):
    def test_reply_is_passed_on_with_id_and_time(self):
        got, left = serve([trace_line(req_id=9)], reply_runner({"status": "host_op", "reason": "r", "line": 3,
                                                                "stdout": "", "stderr": ""}))
        self.assertEqual(got[0]["id"], 9)
        self.assertEqual((got[0]["status"], got[0]["line"]), ("host_op", 3))
        self.assertIn("total", got[0]["seconds"])
        self.assertEqual(left, [], "the request's private folder must be removed")

    def test_timeout_kills_the_whole_group(self):
        marker = tempfile.mktemp(prefix="kscore-grandchild-")

        def runner(req, tree, notes, ctx, wfd):
            pid = os.fork()
            if pid == 0:
                time.sleep(60)
                os._exit(0)
            with open(marker, "w") as f:
                f.write(str(pid))
            time.sleep(60)
            os._exit(0)
        t0 = time.monotonic()
        got, _ = serve([trace_line(timeout=1)], runner)
        self.assertLess(time.monotonic() - t0, 10)
        self.assertEqual(got[0]["status"], "timeout")
        with open(marker) as f:
            grandchild = int(f.read())
        os.unlink(marker)
        time.sleep(0.2)
        self.assertFalse(alive(grandchild), "the trace child's own child outlived the timeout")

    def test_each_case_ends_its_own_window(self):
        # three cases of 0.6 s each under a 1 s window per case: 1.8 s in all, past one window
        def runner(req, tree, notes, ctx, wfd):
            for _ in range(3):
                time.sleep(0.6)
                os.write(wfd, b"\n")
            os.write(wfd, encode({"status": "host_op", "reason": "r", "stdout": "", "stderr": ""}))
            os._exit(0)
        got, _ = serve([trace_line(timeout=30, case_timeout=1)], runner)
        self.assertEqual(got[0]["status"], "host_op", got[0])

    def test_a_case_past_its_window_is_a_timeout_naming_it(self):
        def runner(req, tree, notes, ctx, wfd):
            os.write(wfd, b"\n")
            time.sleep(60)
            os._exit(0)
        t0 = time.monotonic()
        got, _ = serve([trace_line(timeout=30, case_timeout=1)], runner)
        self.assertLess(time.monotonic() - t0, 10)
        self.assertEqual((got[0]["status"], got[0].get("case")), ("timeout", 1), got[0])
        self.assertIn("case 1 ran past its 1 s limit", got[0]["reason"])

    def test_progress_never_lengthens_the_whole_limit(self):
        def runner(req, tree, notes, ctx, wfd):
            while True:
                os.write(wfd, b"\n")
                time.sleep(0.1)
        t0 = time.monotonic()
        got, _ = serve([trace_line(timeout=1.5, case_timeout=1)], runner)
        self.assertLess(time.monotonic() - t0, 10)
        self.assertEqual(got[0]["status"], "timeout")
        self.assertIn("the trace ran past its 1.5 s limit", got[0]["reason"])

    def test_a_crash_is_an_error(self):
        got, _ = serve([trace_line()], lambda *a: os.kill(os.getpid(), signal.SIGSEGV))
        self.assertEqual(got[0]["status"], "error")
        self.assertIn("SIGSEGV", got[0]["reason"])

    def test_malformed_replies(self):
        for data, words in ((b"not json", "malformed"), (encode({"status": "ok", "kernels": []}), "malformed"),
                            (encode({"status": "weird", "reason": "x"}), "status"), (b"", "without a reply")):
            with self.subTest(data=data[:20]):
                got, _ = serve([trace_line()], reply_runner(data))
                self.assertEqual(got[0]["status"], "error")
                self.assertIn(words, got[0]["reason"])

    def test_a_reply_that_cannot_be_checked_is_the_answers_error(self):
        deep = b'{"status": "ok", "kernels": ' + b"[" * 100000
        odd = encode({"status": "ok", "kernels": [], "cases": [{"index": 0, "buffers": [], "steps": [
            {"op": "fill", "buffer": ["x"], "offset": 0, "bytes": 4, "dtype": "f32", "value": 0}]}]})
        for data in (deep, odd):
            with self.subTest(data=data[:30]):
                got, _ = serve([trace_line(req_id=1), b'{"op":"check","id":2,"source":"x = 1"}\n'],
                               reply_runner(data))
                self.assertEqual([g["status"] for g in got], ["error", "ok"])
                self.assertIn("malformed", got[0]["reason"])

    def test_a_field_the_protocol_does_not_know_is_refused(self):
        got, _ = serve([trace_line()], reply_runner({"status": "error", "reason": "r", "stdout": "o",
                                                     "table": [[["deep"]]]}))
        self.assertEqual(got[0]["status"], "error")
        self.assertIn("unknown field", got[0]["reason"])

    def test_reply_over_the_cap(self):
        old = limits.MAX_CHILD_REPLY
        limits.MAX_CHILD_REPLY = 1000
        try:
            got, _ = serve([trace_line()], reply_runner(b"x" * 5000))
        finally:
            limits.MAX_CHILD_REPLY = old
        self.assertEqual(got[0]["status"], "error")
        self.assertIn("more than 1000 bytes", got[0]["reason"])

    def test_refused_answers_never_fork(self):
        def runner(*a):
            os._exit(99)
        got, _ = serve([trace_line(source="import os")], runner)
        self.assertEqual((got[0]["status"], got[0]["line"]), ("refused", 1))

    def test_check_mode_does_not_trace(self):
        got, _ = serve([trace_line()], reply_runner({"status": "ok"}), mode="check")
        self.assertEqual(got[0]["status"], "unavailable")
        self.assertIn("check mode", got[0]["reason"])

    def test_loop_survives_bad_lines(self):
        lines = [b"\n", b"{\n", b'{"op":"check","id":2,"source":"x = 1"}\n', b'{"op":"quit"}\n',
                 b'{"op":"check","id":3,"source":"x = 1"}\n']
        got, _ = serve(lines, reply_runner({"status": "ok"}))
        self.assertEqual([g["status"] for g in got], ["bad_request", "ok"])


PROBE = "KSCORE-MEMORY-PROBE-"  # followed by a token made after the template started


def memory_holds(prefix, token):
    """True when this process's readable memory holds `prefix` directly followed by `token`
    (bytes). The two are never joined here, so only a copy made elsewhere can match."""
    with open("/proc/self/maps") as f:
        regions = [line.split() for line in f]
    with open("/proc/self/mem", "rb", buffering=0) as mem:
        for parts in regions:
            if not parts[1].startswith("r") or (len(parts) > 5 and parts[5] in ("[vvar]", "[vsyscall]", "[vvar_vclock]")):
                continue
            lo, hi = (int(x, 16) for x in parts[0].split("-"))
            try:
                mem.seek(lo)
                data = mem.read(hi - lo)
            except (OSError, OverflowError, ValueError):
                continue
            at = data.find(prefix)
            while at >= 0:
                if data[at + len(prefix):at + len(prefix) + len(token)] == token:
                    return True
                at = data.find(prefix, at + 1)
    return False


def scanning_runner(req, tree, notes, ctx, wfd):
    """The child of the second request: its source names the first one's token, reversed."""
    token = req.source.rsplit("# probe ", 1)[1].strip()[::-1].encode()
    found = memory_holds(PROBE.encode(), token)
    os.write(wfd, encode({"status": "error", "reason": "found" if found else "clean", "stdout": "", "stderr": ""}))
    os._exit(0)


class Pristine(unittest.TestCase):
    """A trace child holds nothing of any other request: it comes from a template forked before
    the first request was read."""

    def test_the_second_child_finds_nothing_of_the_first_request(self):
        r, w = os.pipe()
        server_out_r, server_out_w = os.pipe()
        server = Server("serve", server_out_w, allow_unsandboxed=True, runner=scanning_runner)
        server.versions = {"python": "x", "torch": "x", "triton": "x"}
        source = common.fixture_json("sin_kernel.request.json")["source"]

        def feed():
            while getattr(server, "template", 1) is None:  # until the template has forked
                time.sleep(0.01)
            token = os.urandom(8).hex()  # made after the template forked: only requests carry it
            first = trace_line(source=source + "\n# " + PROBE + token + "\n", req_id=1)
            second = trace_line(source=source + "\n# probe " + token[::-1] + "\n", req_id=2)
            os.write(w, first)
            os.read(server_out_r, 1 << 20)  # the first response: the server has read and run it
            os.write(w, second)
            os.close(w)
            self.replies.append(os.read(server_out_r, 1 << 20))
        self.replies = []
        import threading
        feeder = threading.Thread(target=feed)
        feeder.start()
        try:
            server.serve(os.fdopen(r, "rb"))
        finally:
            feeder.join(30)
            os.close(server_out_w)
            os.close(server_out_r)
            shutil.rmtree(server.workdir, ignore_errors=True)
        got = json.loads(self.replies[0])
        self.assertEqual((got["id"], got["reason"]), (2, "clean"))

    def test_the_probe_finds_what_is_there(self):
        token = os.urandom(8).hex()
        held = PROBE + token  # noqa: F841  (what the probe must find)
        self.assertTrue(memory_holds(PROBE.encode(), token.encode()))
        self.assertFalse(memory_holds(PROBE.encode(), os.urandom(8).hex().encode()))


class _Alarm(Exception):
    pass


def serve_within(seconds, lines, runner):
    """serve(), failing with _Alarm when it takes over `seconds` (a server that blocks)."""
    def ring(signum, frame):
        raise _Alarm("the server did not answer within %d s" % seconds)
    old = signal.signal(signal.SIGALRM, ring)
    signal.alarm(seconds)
    try:
        return serve(lines, runner)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


class ChildFolder(unittest.TestCase):
    """The child owns its folder: the server never opens a path in it that the child could have
    replaced, and stops a child that fills it."""

    def test_a_planted_link_is_not_followed(self):
        secret = tempfile.NamedTemporaryFile("w", prefix="kscore-secret-", delete=False)
        secret.write("KSCORE-SECRET-TOKEN-4711")
        secret.close()

        def runner(req, tree, notes, ctx, wfd):
            log = os.path.join(ctx.private_dir, "output.log")
            if os.path.lexists(log):
                os.unlink(log)
            os.symlink(secret.name, log)
            os._exit(1)
        try:
            got, _ = serve_within(20, [trace_line()], runner)
        finally:
            os.unlink(secret.name)
        self.assertEqual(got[0]["status"], "error")
        self.assertNotIn("KSCORE-SECRET", json.dumps(got[0]))

    def test_a_planted_fifo_does_not_block(self):
        def runner(req, tree, notes, ctx, wfd):
            log = os.path.join(ctx.private_dir, "output.log")
            if os.path.lexists(log):
                os.unlink(log)
            os.mkfifo(log)
            os._exit(1)
        got, _ = serve_within(20, [trace_line()], runner)
        self.assertEqual(got[0]["status"], "error")
        self.assertIn("without a reply", got[0]["reason"])

    def test_what_the_child_printed_is_quoted(self):
        def runner(req, tree, notes, ctx, wfd):
            os.write(ctx.log_fd, b"printed by the child")
            os._exit(1)
        got, _ = serve_within(20, [trace_line()], runner)
        self.assertIn("printed by the child", got[0]["stderr"])

    def fill(self, cap_name, cap, make):
        old = getattr(limits, cap_name)
        setattr(limits, cap_name, cap)

        def runner(req, tree, notes, ctx, wfd):
            make(ctx.private_dir)
            time.sleep(30)
            os._exit(0)
        t0 = time.monotonic()
        try:
            got, left = serve_within(30, [trace_line(timeout=20)], runner)
        finally:
            setattr(limits, cap_name, old)
        self.assertLess(time.monotonic() - t0, 10)
        self.assertEqual(left, [])
        return got[0]

    def test_a_child_over_the_total_disk_cap_is_stopped(self):
        def make(private):
            for i in range(4):
                with open(os.path.join(private, "f%d" % i), "wb") as f:
                    f.write(b"x" * (1 << 20))
        got = self.fill("CHILD_DISK_TOTAL", 2 << 20, make)
        self.assertEqual(got["status"], "error")
        self.assertIn("more than %d bytes in its folder" % (2 << 20), got["reason"])

    def test_a_child_over_the_file_count_cap_is_stopped(self):
        def make(private):
            os.makedirs(os.path.join(private, "a", "b"))
            for i in range(300):
                open(os.path.join(private, "a", "b", str(i)), "w").close()
        got = self.fill("CHILD_DISK_ENTRIES", 100, make)
        self.assertEqual(got["status"], "error")
        self.assertIn("more than 100 files", got["reason"])


class Launcher(unittest.TestCase):
    def run_helper(self, mode, lines):
        proc = subprocess.run([sys.executable, "-I", common.HELPER, mode], input="".join(lines).encode(),
                              capture_output=True, timeout=60, env={"PATH": "/usr/bin:/bin"})
        return proc.returncode, [json.loads(x) for x in proc.stdout.splitlines()], proc.stderr

    def test_check_mode_answers_every_line_with_json(self):
        req = json.dumps({"op": "check", "id": 1, "source": common.fixture_text("attack_forbidden_import.py")})
        ok = json.dumps({"op": "check", "id": 2, "source": common.fixture_text("sin_kernel.py")})
        rc, got, _ = self.run_helper("check", [req + "\n", ok + "\n", '{"op":"version","id":3}\n', "[]\n"])
        self.assertEqual(rc, 0)
        self.assertEqual([g["status"] for g in got], ["refused", "ok", "ok", "bad_request"])
        self.assertEqual(got[0]["line"], 1)
        self.assertIn("ignored", got[1]["notes"][0])
        self.assertEqual(got[2]["protocol"], limits.PROTOCOL_VERSION)

    def test_usage(self):
        proc = subprocess.run([sys.executable, "-I", common.HELPER, "bogus"], capture_output=True, timeout=60)
        self.assertEqual(proc.returncode, 2)
        self.assertEqual(proc.stdout, b"")

    def test_serve_without_torch_says_what_is_missing(self):
        have, _ = common.have_torch_gpu()
        try:
            import torch  # noqa: F401
            self.skipTest("torch is installed here")
        except ImportError:
            pass
        rc, got, _ = self.run_helper("serve", [trace_line().decode(), '{"op":"version","id":5}\n'])
        self.assertEqual(rc, 0)
        self.assertEqual([g["status"] for g in got], ["unavailable", "unavailable"])
        self.assertIn("torch", got[0]["reason"])


if __name__ == "__main__":
    unittest.main()
