"""Confinement of a trace child: Landlock and seccomp applied in a forked child, then probed."""

import ctypes
import errno
import fcntl
import json
import os
import resource
import socket
import stat
import subprocess
import sys
import tempfile
import termios
import time
import types
import unittest

import common
from kscore_triton import confine, limits

HAVE_LANDLOCK = confine.landlock_abi() >= 1


def _syscall(name, *args):
    """A raw system call by name: raises OSError as os functions do."""
    rc, err = confine._syscall(name, *args)
    if rc < 0:
        raise OSError(err, os.strerror(err))
    return rc


def _probe(private, host_socket, tty):
    """Runs in the confined child: what it may and may not do. Every call that could change
    something outside is made so that it changes nothing even if it were allowed (the values
    set are the current ones, signal 0, read-only requests)."""
    out = {}
    ppid = os.getppid()

    def attempt(name, fn):
        try:
            fn()
            out[name] = "ok"
        except OSError as e:
            out[name] = errno.errorcode.get(e.errno, str(e.errno))
        except ValueError:  # resource.setrlimit says EPERM so
            out[name] = "EPERM"
        except Exception as e:  # the probe itself must always answer
            out[name] = type(e).__name__
    read = common.read_one_byte

    def write(path):
        with open(path, "w") as f:
            f.write("x")

    attempt("read_etc_passwd", lambda: read("/etc/passwd"))
    attempt("read_parent_environ", lambda: read("/proc/%d/environ" % ppid))
    attempt("read_own_status", lambda: read("/proc/self/status"))
    attempt("read_usr", lambda: os.listdir("/usr"))
    attempt("write_private", lambda: write(os.path.join(private, "f")))
    attempt("write_tmp", lambda: write(os.path.join(tempfile.gettempdir(), "kscore-confine-test")))
    attempt("socket_inet", lambda: socket.socket(socket.AF_INET, socket.SOCK_STREAM).close())
    attempt("socket_inet6_udp", lambda: socket.socket(socket.AF_INET6, socket.SOCK_DGRAM).close())
    attempt("socket_unix", lambda: socket.socket(socket.AF_UNIX, socket.SOCK_STREAM).close())
    attempt("socket_unix_dgram", lambda: socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM).close())
    attempt("socketpair_stream", lambda: [s.close() for s in socket.socketpair()])
    attempt("socketpair_dgram", lambda: [s.close() for s in socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)])

    def datagram_to_host():
        a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
        a.close()
        try:
            b.sendto(b"kscore-probe", host_socket)
        finally:
            b.close()
    attempt("sendto_host_socket", datagram_to_host)

    def sendto_address():
        a, b = socket.socketpair()
        try:
            a.sendto(b"x", host_socket)
        finally:
            a.close()
            b.close()
    attempt("sendto_address", sendto_address)

    def connect_unix():
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            s.connect(os.path.join(private, "nowhere"))
        finally:
            s.close()
    attempt("connect_unix", connect_unix)
    attempt("setsid", os.setsid)
    attempt("exec_true", lambda: subprocess.run(["/bin/true"], check=True))
    # other processes: the test process stands for kscore, the helper and other lanes
    attempt("prlimit_parent", lambda: resource.prlimit(ppid, resource.RLIMIT_NOFILE))
    attempt("prlimit_self", lambda: resource.prlimit(0, resource.RLIMIT_NOFILE))
    attempt("prlimit_own_pid", lambda: resource.prlimit(os.getpid(), resource.RLIMIT_NOFILE))
    attempt("raise_fsize", lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (resource.RLIM_INFINITY,) * 2))
    attempt("raise_nofile", lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (1 << 20, 1 << 20)))
    attempt("setpriority_parent", lambda: os.setpriority(os.PRIO_PROCESS, ppid,
                                                         os.getpriority(os.PRIO_PROCESS, ppid)))
    attempt("setpriority_user", lambda: os.setpriority(os.PRIO_USER, 0, os.getpriority(os.PRIO_USER, 0)))
    attempt("setpriority_self", lambda: os.setpriority(os.PRIO_PROCESS, 0, os.getpriority(os.PRIO_PROCESS, 0)))
    attempt("setaffinity_parent", lambda: os.sched_setaffinity(ppid, os.sched_getaffinity(ppid)))
    attempt("setaffinity_self", lambda: os.sched_setaffinity(0, os.sched_getaffinity(0)))
    attempt("setscheduler_parent", lambda: os.sched_setscheduler(ppid, os.sched_getscheduler(ppid),
                                                                  os.sched_getparam(ppid)))
    attempt("setscheduler_fifo_self", lambda: os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(1)))
    attempt("ioprio_parent", lambda: _syscall("ioprio_set", 1, ppid, _syscall("ioprio_get", 1, ppid)))
    attempt("kill_parent", lambda: os.kill(ppid, 0))
    attempt("kill_everyone", lambda: os.kill(-1, 0))
    attempt("kill_parent_group", lambda: os.killpg(os.getpgid(ppid), 0))
    attempt("tgkill_parent", lambda: _syscall("tgkill", ppid, ppid, 0))
    attempt("kill_self", lambda: os.kill(os.getpid(), 0))
    attempt("kill_own_group", lambda: os.killpg(0, 0))
    attempt("ptrace_parent", lambda: _syscall("ptrace", 16, ppid, 0, 0))  # PTRACE_ATTACH
    attempt("process_vm_readv", lambda: _syscall("process_vm_readv", ppid, None, 0, None, 0, 0))
    # root's powers
    attempt("mknod_char", lambda: os.mknod(os.path.join(private, "null"), stat.S_IFCHR | 0o600, os.makedev(1, 3)))
    attempt("mknod_block", lambda: os.mknod(os.path.join(private, "loop"), stat.S_IFBLK | 0o600, os.makedev(7, 0)))
    attempt("mkfifo", lambda: os.mkfifo(os.path.join(private, "fifo")))
    attempt("tiocsti", lambda: fcntl.ioctl(tty, termios.TIOCSTI, b" "))
    attempt("settimeofday", lambda: _syscall("settimeofday", None, None))
    attempt("adjtimex_read", lambda: _syscall("adjtimex", ctypes.create_string_buffer(512)))
    attempt("clock_settime", lambda: time.clock_settime(time.CLOCK_REALTIME, time.clock_gettime(time.CLOCK_REALTIME)))
    # the name it already has: should the filter ever let the call through, nothing changes
    name = socket.gethostname().encode()
    attempt("sethostname", lambda: ctypes.CDLL(None, use_errno=True).sethostname(name, len(name)) == 0
            or _raise_errno())
    attempt("syslog_size", lambda: _syscall("syslog", 10, None, 0))
    out["uids"] = list(os.getresuid()) + list(os.getresgid())
    out["groups"] = os.getgroups()
    out["caps"] = confine.capabilities()
    return out


def _raise_errno():
    e = ctypes.get_errno()
    raise OSError(e, os.strerror(e))


_CLONE_NEWUTS = 0x04000000


def run_confined(sys_module=sys, private=None):
    """Forks a child that confines itself with the child's own function (confine.confine_child,
    after the rlimits the child sets) and runs _probe; returns (confinement, probe, datagrams the
    host socket got). `sys_module` tells confine_child where Python lies."""
    private = private or tempfile.mkdtemp(prefix="kscore-confine-")
    host_dir = tempfile.mkdtemp(prefix="kscore-host-")
    os.chmod(host_dir, 0o755)
    host_path = os.path.join(host_dir, "log")
    host = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    host.bind(host_path)
    os.chmod(host_path, 0o666)  # as /dev/log and journald's socket are
    host.setblocking(False)
    master, tty = os.openpty()
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        code = 1
        try:
            # a host name of its own (as root), so that a filter that lets sethostname through
            # changes no name outside the test
            ctypes.CDLL(None, use_errno=True).unshare(_CLONE_NEWUTS)
            confine.process_setup()
            confine.set_rlimits(60, 1 << 30, 4096)
            got = {"confinement": confine.confine_child(sys_module, private)}
            got["probe"] = _probe(private, host_path, tty)
            os.write(w, json.dumps(got).encode())
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
    received = []
    try:
        while True:
            received.append(host.recv(100))
    except BlockingIOError:
        pass
    host.close()
    os.close(master)
    os.close(tty)
    subprocess.run(["rm", "-rf", private, host_dir])
    got = json.loads(data)
    return got["confinement"], got["probe"], received


class SeccompProgram(unittest.TestCase):
    def test_program_shape(self):
        for arch in (0, 1):
            prog = confine.seccomp_program(arch)
            self.assertEqual(len(prog) % 8, 0)
            self.assertLess(len(prog) // 8, 4096)
            self.assertEqual(prog[:2], b"\x20\x00")  # load seccomp_data.arch first


@unittest.skipUnless(HAVE_LANDLOCK, "Landlock is not available on this kernel")
class Confined(unittest.TestCase):
    """The child's real confinement, applied in a forked process, then every call tried."""

    @classmethod
    def setUpClass(cls):
        cls.confinement, cls.result, cls.received = run_confined()

    def assertAll(self, keys, want):
        got = {k: self.result[k] for k in keys}
        self.assertEqual(got, {k: want for k in keys})

    def test_every_step_applied(self):
        self.assertEqual((self.confinement["landlock"], self.confinement["seccomp"],
                          self.confinement["privileges"]), (True, True, True), self.confinement.get("reason"))

    def test_private_folder_and_system_programs_work(self):
        self.assertAll(("read_usr", "write_private", "socket_unix", "socketpair_stream", "exec_true",
                        "read_own_status", "prlimit_self", "prlimit_own_pid", "setpriority_self",
                        "setaffinity_self", "kill_self", "kill_own_group"), "ok")

    def test_host_files_are_out_of_reach(self):
        self.assertEqual(self.result["read_etc_passwd"], "EACCES")
        self.assertIn(self.result["read_parent_environ"], ("EACCES", "ENOENT"))
        self.assertEqual(self.result["write_tmp"], "EACCES")

    def test_no_network_no_escape_from_the_group(self):
        self.assertEqual(self.result["socket_inet"], "EAFNOSUPPORT")
        self.assertEqual(self.result["socket_inet6_udp"], "EAFNOSUPPORT")
        self.assertAll(("connect_unix", "setsid"), "EPERM")

    def test_no_datagram_reaches_a_host_socket(self):
        self.assertAll(("socket_unix_dgram", "socketpair_dgram", "sendto_host_socket", "sendto_address"), "EPERM")
        self.assertEqual(self.received, [])

    def test_other_processes_are_out_of_reach(self):
        self.assertAll(("prlimit_parent", "setpriority_parent", "setpriority_user", "setaffinity_parent",
                        "setscheduler_parent", "ioprio_parent", "kill_parent", "kill_everyone",
                        "kill_parent_group", "tgkill_parent", "ptrace_parent", "process_vm_readv"), "EPERM")

    def test_limits_stay_fixed(self):
        self.assertAll(("raise_fsize", "raise_nofile", "setscheduler_fifo_self"), "EPERM")

    def test_root_gives_nothing(self):
        self.assertAll(("mknod_char", "mknod_block", "mkfifo", "tiocsti", "settimeofday", "adjtimex_read",
                        "clock_settime", "sethostname", "syslog_size"), "EPERM")
        caps = self.result["caps"]
        self.assertEqual({k: caps[k] for k in ("CapInh", "CapPrm", "CapEff", "CapAmb")},
                         {"CapInh": 0, "CapPrm": 0, "CapEff": 0, "CapAmb": 0})
        if os.geteuid() == 0:
            self.assertEqual(caps["CapBnd"], 0)
            # the switch to the unprivileged user needs a Python installation that user can reach
            switch = all(confine.reachable(p, limits.CHILD_UID, limits.CHILD_GID) for p in confine.needed_paths(sys))
            want = [limits.CHILD_UID] * 3 + [limits.CHILD_GID] * 3 if switch else [0] * 6
            self.assertEqual(self.result["uids"], want)
            self.assertEqual(self.confinement["uid"], want[0])


# where the unprivileged user can reach every Python folder the child still needs
_REACHABLE_PYTHON = types.SimpleNamespace(prefix="/usr", base_prefix="/usr", exec_prefix="/usr",
                                          base_exec_prefix="/usr", path=[], modules={})


@unittest.skipUnless(HAVE_LANDLOCK and os.geteuid() == 0, "needs Landlock and root")
class ConfinedRootSwitches(unittest.TestCase):
    """Root becomes the unprivileged user when it can: the private folder is its own, nothing else."""

    @classmethod
    def setUpClass(cls):
        cls.confinement, cls.result, cls.received = run_confined(_REACHABLE_PYTHON)

    def test_ids_and_folder(self):
        self.assertEqual(self.confinement["uid"], limits.CHILD_UID, self.confinement.get("reason"))
        self.assertEqual(self.result["uids"], [limits.CHILD_UID] * 3 + [limits.CHILD_GID] * 3)
        self.assertEqual(self.result["groups"], [])
        self.assertEqual((self.result["write_private"], self.result["read_own_status"]), ("ok", "ok"))
        self.assertEqual(self.result["caps"]["CapBnd"], 0)
        self.assertEqual((self.result["kill_parent"], self.result["mknod_char"]), ("EPERM", "EPERM"))


@unittest.skipUnless(HAVE_LANDLOCK and os.geteuid() == 0, "needs Landlock and root")
class ConfinedRootUnderAClosedFolder(unittest.TestCase):
    """A private folder the unprivileged user could not reach (a TMPDIR in root's 0700 home, as a
    test's own temporary folder is): the child stays uid 0 with no capability, and confines."""

    @classmethod
    def setUpClass(cls):
        cls.top = tempfile.mkdtemp(prefix="kscore-closed-")
        os.chmod(cls.top, 0o700)
        private = os.path.join(cls.top, "private")
        os.mkdir(private, 0o700)
        cls.confinement, cls.result, cls.received = run_confined(_REACHABLE_PYTHON, private)

    @classmethod
    def tearDownClass(cls):
        subprocess.run(["rm", "-rf", cls.top])

    def test_confined_as_root_without_capabilities(self):
        self.assertEqual(self.confinement["uid"], 0, self.confinement.get("reason"))
        self.assertEqual(self.result["caps"]["CapEff"], 0)
        self.assertEqual(self.result["caps"]["CapBnd"], 0)
        self.assertEqual(self.result["write_private"], "ok")
        self.assertEqual((self.result["kill_parent"], self.result["mknod_char"]), ("EPERM", "EPERM"))


class Reachable(unittest.TestCase):
    def test_a_closed_folder_is_not_reachable(self):
        top = tempfile.mkdtemp(prefix="kscore-reach-")
        try:
            inner = os.path.join(top, "lib")
            os.mkdir(inner)
            os.chmod(inner, 0o755)
            os.chmod(top, 0o700)
            self.assertFalse(confine.reachable(inner, 65534, 65534))
            os.chmod(top, 0o711)
            self.assertTrue(confine.reachable(inner, 65534, 65534))
            os.chmod(inner, 0o711)  # searchable, not readable
            self.assertFalse(confine.reachable(inner, 65534, 65534))
        finally:
            os.chmod(top, 0o700)
            subprocess.run(["rm", "-rf", top])


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

    def test_private_folder_grants_no_device_nodes(self):
        private = tempfile.mkdtemp(prefix="kscore-rules-")
        try:
            for abi in range(1, 9):
                rights = dict(confine.child_rules(sys, private, abi=abi))[os.path.realpath(private)]
                self.assertEqual(rights & ((1 << 6) | (1 << 11)), 0, "MAKE_CHAR/MAKE_BLOCK at ABI %d" % abi)
                self.assertTrue(rights & (1 << 8), "MAKE_REG at ABI %d" % abi)
        finally:
            os.rmdir(private)


if __name__ == "__main__":
    unittest.main()
