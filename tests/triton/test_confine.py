"""Confinement of a trace child: Landlock and seccomp applied in a forked child, then probed."""

import json
import os
import socket
import subprocess
import sys
import tempfile
import unittest

import common
from kscore_triton import confine

HAVE_LANDLOCK = confine.landlock_abi() >= 1


def _probe(private):
    """Runs in the confined child: what it may and may not do."""
    out = {}

    def attempt(name, fn):
        common.attempt(out, name, fn)
    read = common.read_one_byte

    def write(path):
        with open(path, "w") as f:
            f.write("x")

    attempt("read_etc_passwd", lambda: read("/etc/passwd"))
    attempt("read_parent_environ", lambda: read("/proc/%d/environ" % os.getppid()))
    attempt("read_own_status", lambda: read("/proc/self/status"))
    attempt("read_usr", lambda: os.listdir("/usr"))
    attempt("write_private", lambda: write(os.path.join(private, "f")))
    attempt("write_tmp", lambda: write(os.path.join(tempfile.gettempdir(), "kscore-confine-test")))
    attempt("socket_inet", lambda: socket.socket(socket.AF_INET, socket.SOCK_STREAM).close())
    attempt("socket_inet6_udp", lambda: socket.socket(socket.AF_INET6, socket.SOCK_DGRAM).close())
    attempt("socket_unix", lambda: socket.socket(socket.AF_UNIX, socket.SOCK_STREAM).close())

    def connect_unix():
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            s.connect(os.path.join(private, "nowhere"))
        finally:
            s.close()
    attempt("connect_unix", connect_unix)
    attempt("setsid", os.setsid)
    attempt("exec_true", lambda: subprocess.run(["/bin/true"], check=True))
    return out


def run_confined():
    private = tempfile.mkdtemp(prefix="kscore-confine-")
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        code = 1
        try:
            confine.process_setup()
            confine.landlock(confine.child_rules(sys, private))
            confine.seccomp()
            os.write(w, json.dumps(_probe(private)).encode())
            code = 0
        finally:
            os._exit(code)
    os.close(w)
    data = b""
    while True:
        chunk = os.read(r, 65536)
        if not chunk:
            break
        data += chunk
    os.close(r)
    os.waitpid(pid, 0)
    subprocess.run(["rm", "-rf", private])
    return json.loads(data)


class SeccompProgram(unittest.TestCase):
    def test_program_shape(self):
        for arch in (0, 1):
            prog = confine.seccomp_program(arch)
            self.assertEqual(len(prog) % 8, 0)
            self.assertLess(len(prog) // 8, 4096)
            self.assertEqual(prog[:2], b"\x20\x00")  # load seccomp_data.arch first


@unittest.skipUnless(HAVE_LANDLOCK, "Landlock is not available on this kernel")
class Confined(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.result = run_confined()

    def test_private_folder_and_system_programs_work(self):
        for key in ("read_usr", "write_private", "socket_unix", "exec_true", "read_own_status"):
            self.assertEqual(self.result[key], "ok", key)

    def test_host_files_are_out_of_reach(self):
        self.assertEqual(self.result["read_etc_passwd"], "EACCES")
        self.assertIn(self.result["read_parent_environ"], ("EACCES", "ENOENT"))
        self.assertEqual(self.result["write_tmp"], "EACCES")

    def test_no_network_no_escape_from_the_group(self):
        self.assertEqual(self.result["socket_inet"], "EAFNOSUPPORT")
        self.assertEqual(self.result["socket_inet6_udp"], "EAFNOSUPPORT")
        self.assertEqual(self.result["connect_unix"], "EPERM")
        self.assertEqual(self.result["setsid"], "EPERM")


class Rules(unittest.TestCase):
    def test_rules_cover_python_and_the_private_folder_only(self):
        private = tempfile.mkdtemp(prefix="kscore-rules-")
        try:
            rules = dict(confine.child_rules(sys, private, abi=1))
        finally:
            os.rmdir(private)
        self.assertIn(os.path.realpath(private), rules)
        self.assertIn(os.path.realpath(sys.prefix), rules)
        for forbidden in ("/", "/etc", "/home", "/root", "/tmp", "/proc", "/run"):
            self.assertNotIn(forbidden, rules)
        self.assertEqual(rules["/etc/ld.so.cache"], confine.FS_READ_FILE)


if __name__ == "__main__":
    unittest.main()
