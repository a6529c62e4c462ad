"""Self-confinement of a trace child, with ctypes only: privileges, rlimits, Landlock, seccomp.

Order in the child (child.py): `process_setup()` (own process group, die with the template that
forked it, no_new_privs), `set_rlimits()`, CUDA initialised by kscore's own code, then
`confine_child()`: `drop_privileges()` (every capability, the bounding set too; uid/gid 65534 when
root and that user can reach Python), `landlock()` and `seccomp()`, before the first line of the
answer runs. The tests run `confine_child()` itself in a forked process and try every call.

Landlock (mirrors util/sandbox.c): every access right the kernel knows is handled; granted are
read and execute beneath the Python installation and the system's program and library folders,
read and write on the GPU and a few harmless character devices, everything beneath the request's
private folder but making device nodes, and reading the child's own /proc entry. Everything else
is denied: /etc (but the loader's cache), /home, /root, /tmp, /run, the scorer's /proc entries,
TCP, abstract UNIX sockets and signals outside the sandbox (as far as the kernel's ABI allows).

Seccomp: sockets other than AF_UNIX streams, connect(), sendto() with an address, ptrace,
process_vm_*, io_uring, bpf, perf_event_open, mounts, namespaces (unshare, setns, clone with
CLONE_NEW*), kexec, modules, keyrings, setsid/setpgid (leaving the process group the server
kills), mknod (device nodes, FIFOs), TIOCSTI, the clock, host names, the kernel log and a few other
privileged calls fail with an errno; calls that name a process (prlimit, priorities, affinity,
scheduler, ioprio, signals) may name only the child itself (kill: also its own group); clone3
fails with ENOSYS so that the C library falls back to clone, whose flags the filter can read.
"""

import ctypes
import ctypes.util
import errno
import os
import platform
import resource
import signal
import stat
import struct

# ---- Landlock ----

_LL_CREATE_RULESET_VERSION = 1
_LL_RULE_PATH_BENEATH = 1
FS_EXECUTE = 1 << 0
FS_WRITE_FILE = 1 << 1
FS_READ_FILE = 1 << 2
FS_READ_DIR = 1 << 3
_FS_ABI1 = (1 << 13) - 1  # EXECUTE .. MAKE_SYM
_FS_REFER = 1 << 13  # ABI 2
_FS_TRUNCATE = 1 << 14  # ABI 3
_FS_IOCTL_DEV = 1 << 15  # ABI 5
_NET_TCP = (1 << 0) | (1 << 1)  # ABI 4: bind, connect
_SCOPE_ALL = (1 << 0) | (1 << 1)  # ABI 6: abstract UNIX sockets, signals
_RESTRICT_SELF_TSYNC = 1 << 3  # ABI 8: apply to every thread of the process

_FS_MAKE_CHAR = 1 << 6
_FS_MAKE_BLOCK = 1 << 11

READ = FS_READ_FILE | FS_READ_DIR
READ_EXEC = READ | FS_EXECUTE
_FILE_RIGHTS = FS_EXECUTE | FS_WRITE_FILE | FS_READ_FILE | _FS_TRUNCATE | _FS_IOCTL_DEV

_SYSCALLS = {
    # name: (x86_64, aarch64)
    "landlock_create_ruleset": (444, 444), "landlock_add_rule": (445, 445),
    "landlock_restrict_self": (446, 446), "seccomp": (317, 277), "capset": (126, 91),
    "ioprio_get": (252, 31), "ioprio_set": (251, 30), "syslog": (103, 116),
    "settimeofday": (164, 170), "adjtimex": (159, 171), "tgkill": (234, 131),
    "process_vm_readv": (310, 270), "ptrace": (101, 117),
}

_libc = None


class ConfineError(Exception):
    """Confinement could not be applied; the message says which step and why."""


def _c():
    global _libc
    if _libc is None:
        _libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
        _libc.syscall.restype = ctypes.c_long
        _libc.prctl.restype = ctypes.c_int
    return _libc


def _arch():
    machine = platform.machine()
    return {"x86_64": 0, "amd64": 0, "aarch64": 1, "arm64": 1}.get(machine.lower())


def _syscall(name, *args):
    arch = _arch()
    if arch is None:
        raise ConfineError("unsupported architecture %s" % platform.machine())
    ctypes.set_errno(0)
    rc = _c().syscall(ctypes.c_long(_SYSCALLS[name][arch]), *args)
    return rc, ctypes.get_errno()


def landlock_abi():
    """The running kernel's Landlock ABI version, or -1 when Landlock is missing or disabled."""
    try:
        rc, _ = _syscall("landlock_create_ruleset", None, ctypes.c_size_t(0),
                         ctypes.c_uint32(_LL_CREATE_RULESET_VERSION))
    except (ConfineError, OSError, AttributeError):
        return -1
    return int(rc) if rc > 0 else -1


class _RulesetAttr(ctypes.Structure):
    _fields_ = [("handled_access_fs", ctypes.c_uint64), ("handled_access_net", ctypes.c_uint64),
                ("scoped", ctypes.c_uint64)]


class _PathBeneath(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def _ruleset_attr(abi):
    attr = _RulesetAttr(_FS_ABI1, 0, 0)
    size = 8
    if abi >= 2:
        attr.handled_access_fs |= _FS_REFER
    if abi >= 3:
        attr.handled_access_fs |= _FS_TRUNCATE
    if abi >= 4:
        attr.handled_access_net = _NET_TCP
        size = 16
    if abi >= 5:
        attr.handled_access_fs |= _FS_IOCTL_DEV
    if abi >= 6:
        attr.scoped = _SCOPE_ALL
        size = 24
    return attr, size


def _add_rule(ruleset, path, access, handled):
    """Grants `access` beneath `path` (a file gets file rights only). Missing paths are skipped:
    the lists are built from what may exist."""
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        if not stat.S_ISDIR(os.fstat(fd).st_mode):
            access &= _FILE_RIGHTS
        rule = _PathBeneath(access & handled, fd)
        rc, err = _syscall("landlock_add_rule", ctypes.c_int(ruleset), ctypes.c_int(_LL_RULE_PATH_BENEATH),
                           ctypes.byref(rule), ctypes.c_uint32(0))
        if rc < 0:
            raise ConfineError("cannot allow %s in the Landlock ruleset: %s" % (path, os.strerror(err)))
        return True
    finally:
        os.close(fd)


def no_new_privs():
    if _c().prctl(38, 1, 0, 0, 0) != 0:  # PR_SET_NO_NEW_PRIVS
        raise ConfineError("PR_SET_NO_NEW_PRIVS failed: %s" % os.strerror(ctypes.get_errno()))


def landlock(rules):
    """Restricts this process to `rules`, a list of (path, access) with access built from the
    FS_* bits (ALL_ACCESS for a writable folder). Returns the ABI used. Raises ConfineError when
    Landlock is missing or a step fails."""
    abi = landlock_abi()
    if abi < 1:
        raise ConfineError("Landlock is not available on this kernel")
    attr, size = _ruleset_attr(abi)
    rc, err = _syscall("landlock_create_ruleset", ctypes.byref(attr), ctypes.c_size_t(size), ctypes.c_uint32(0))
    if rc < 0:
        raise ConfineError("cannot create a Landlock ruleset (ABI %d): %s" % (abi, os.strerror(err)))
    ruleset = int(rc)
    try:
        for path, access in rules:
            _add_rule(ruleset, path, access, attr.handled_access_fs)
        no_new_privs()
        flags = _RESTRICT_SELF_TSYNC if abi >= 8 else 0
        rc, err = _syscall("landlock_restrict_self", ctypes.c_int(ruleset), ctypes.c_uint32(flags))
        if rc < 0 and flags:
            rc, err = _syscall("landlock_restrict_self", ctypes.c_int(ruleset), ctypes.c_uint32(0))
        if rc < 0:
            raise ConfineError("landlock_restrict_self failed: %s" % os.strerror(err))
    finally:
        os.close(ruleset)
    return abi


def all_access(abi=None):
    """Every filesystem right Landlock knows but making device nodes (for the private folder)."""
    attr, _ = _ruleset_attr(abi if abi is not None else max(landlock_abi(), 1))
    return attr.handled_access_fs & ~(_FS_MAKE_CHAR | _FS_MAKE_BLOCK)


# ---- seccomp ----

_AUDIT_ARCH = (0xC000003E, 0xC00000B7)  # x86_64, aarch64
_X32_BIT = 0x40000000
_RET_ALLOW = 0x7FFF0000
_RET_KILL_PROCESS = 0x80000000
_RET_ERRNO = 0x00050000
_CLONE_NEW_MASK = 0x7E020000  # CLONE_NEWNS|NEWCGROUP|NEWUTS|NEWIPC|NEWUSER|NEWPID|NEWNET
_AF_UNIX = 1

# (x86_64, aarch64) numbers of calls that always fail with EPERM (None: the architecture has no
# such call)
_DENIED = {
    "connect": (42, 203), "ptrace": (101, 117), "process_vm_readv": (310, 270),
    "process_vm_writev": (311, 271), "io_uring_setup": (425, 425), "io_uring_enter": (426, 426),
    "io_uring_register": (427, 427), "bpf": (321, 280), "perf_event_open": (298, 241),
    "mount": (165, 40), "umount2": (166, 39), "pivot_root": (155, 41), "chroot": (161, 51),
    "setns": (308, 268), "unshare": (272, 97), "kexec_load": (246, 104),
    "kexec_file_load": (320, 294), "init_module": (175, 105), "finit_module": (313, 273),
    "delete_module": (176, 106), "keyctl": (250, 219), "add_key": (248, 217),
    "request_key": (249, 218), "reboot": (169, 142), "swapon": (167, 224), "swapoff": (168, 225),
    "acct": (163, 89), "userfaultfd": (323, 282), "open_by_handle_at": (304, 265),
    "kcmp": (312, 272), "pidfd_getfd": (438, 438), "open_tree": (428, 428),
    "move_mount": (429, 429), "fsopen": (430, 430), "fsconfig": (431, 431), "fsmount": (432, 432),
    "fspick": (433, 433), "mount_setattr": (442, 442),
    # leaving the process group the server kills
    "setsid": (112, 157), "setpgid": (109, 154),
    # device nodes and FIFOs (mkfifo is mknodat), the clock, the host's names, the kernel log
    "mknod": (133, None), "mknodat": (259, 33), "settimeofday": (164, 170),
    "clock_settime": (227, 112), "adjtimex": (159, 171), "clock_adjtime": (305, 266),
    "sethostname": (170, 161), "setdomainname": (171, 162), "syslog": (103, 116),
    "pidfd_send_signal": (424, 424), "iopl": (172, None), "ioperm": (173, None),
    "vhangup": (153, 58), "quotactl": (179, 60),
}
_SOCKET = (41, 198)
_SOCKETPAIR = (53, 199)
_SENDTO = (44, 206)
_IOCTL = (16, 29)
_CLONE = (56, 220)
_CLONE3 = (435, 435)
# calls that take a pid (argument 0): allowed on the child itself only (0 or its own pid)
_SELF_ONLY = {
    "prlimit64": (302, 261), "sched_setaffinity": (203, 122), "sched_setscheduler": (144, 119),
    "sched_setparam": (142, 118), "sched_setattr": (314, 274), "tgkill": (234, 131),
    "tkill": (200, 130), "rt_sigqueueinfo": (129, 138), "rt_tgsigqueueinfo": (297, 240),
}
_KILL = (62, 129)  # kill(pid): 0, itself, or its own process group (-pid: it leads the group)
_SETPRIORITY = (141, 140)  # (PRIO_PROCESS, 0 or itself) only
_IOPRIO_SET = (251, 30)  # (IOPRIO_WHO_PROCESS, 0 or itself) only
_STREAM_TYPES = (1, 5)  # SOCK_STREAM, SOCK_SEQPACKET: no datagram can carry an address
_TIOCSTI, _TIOCLINUX = 0x5412, 0x541C  # typing into a terminal, the console's own ioctls

_LD_W_ABS = 0x20
_ALU_AND_K = 0x54
_JEQ_K = 0x15
_JGE_K = 0x35
_JSET_K = 0x45
_RET_K = 0x06


def _insn(code, k, jt=0, jf=0):
    return struct.pack("HBBI", code, jt, jf, k & 0xFFFFFFFF)


def _arg(i, high=False):
    """The offset of argument i's low (or high) 32 bits in seccomp_data."""
    return 16 + 8 * i + (4 if high else 0)


def _guarded(nr, conditions, refuse):
    """Instructions for call `nr`: allowed when every (offset, values, mask) condition holds (the
    32-bit word at offset, masked, is one of values), else `refuse` (a RET value). Leaves the
    accumulator changed, so every block returns."""
    body = []
    for offset, values, mask in conditions:
        body.append(_insn(_LD_W_ABS, offset))
        if mask is not None:
            body.append(_insn(_ALU_AND_K, mask))
        for i, value in enumerate(values):
            body.append(_insn(_JEQ_K, value, len(values) - i, 0))
        body.append(_insn(_RET_K, refuse))
    body.append(_insn(_RET_K, _RET_ALLOW))
    return [_insn(_JEQ_K, nr, 0, len(body))] + body


def _refused_values(nr, offset, values, refuse):
    """Instructions for call `nr`: refused when the word at `offset` is one of `values`."""
    body = [_insn(_LD_W_ABS, offset)]
    for i, value in enumerate(values):
        body.append(_insn(_JEQ_K, value, len(values) - i, 0))
    body += [_insn(_RET_K, _RET_ALLOW), _insn(_RET_K, refuse)]
    return [_insn(_JEQ_K, nr, 0, len(body))] + body


def seccomp_program(arch, pid=None):
    """The filter for `arch` (0 x86_64, 1 aarch64) as packed sock_filter instructions. `pid` is
    the process the filter is for (default: this one): the calls that name a process may name only
    it (or 0, or its own process group for kill)."""
    pid = os.getpid() if pid is None else pid
    me = (0, pid)
    eperm, eafnosupport = _RET_ERRNO | errno.EPERM, _RET_ERRNO | errno.EAFNOSUPPORT
    prog = [
        _insn(_LD_W_ABS, 4),  # seccomp_data.arch
        _insn(_JEQ_K, _AUDIT_ARCH[arch], 1, 0),
        _insn(_RET_K, _RET_KILL_PROCESS),
        _insn(_LD_W_ABS, 0),  # seccomp_data.nr
    ]
    if arch == 0:  # x32 system calls reach the same kernel entry with bit 30 set
        prog += [_insn(_JGE_K, _X32_BIT, 0, 1), _insn(_RET_K, _RET_ERRNO | errno.ENOSYS)]
    for numbers in _DENIED.values():
        if numbers[arch] is not None:
            prog += [_insn(_JEQ_K, numbers[arch], 0, 1), _insn(_RET_K, eperm)]
    prog += [_insn(_JEQ_K, _CLONE3[arch], 0, 1), _insn(_RET_K, _RET_ERRNO | errno.ENOSYS)]
    for numbers in _SELF_ONLY.values():
        prog += _guarded(numbers[arch], [(_arg(0), me, None)], eperm)
    prog += _guarded(_KILL[arch], [(_arg(0), (0, pid, -pid), None)], eperm)
    prog += _guarded(_SETPRIORITY[arch], [(_arg(0), (0,), None), (_arg(1), me, None)], eperm)
    prog += _guarded(_IOPRIO_SET[arch], [(_arg(0), (1,), None), (_arg(1), me, None)], eperm)
    prog += _refused_values(_IOCTL[arch], _arg(1), (_TIOCSTI, _TIOCLINUX), eperm)
    # sendto(..., dest_addr, addrlen): no address (argument 4 NULL)
    prog += _guarded(_SENDTO[arch], [(_arg(4), (0,), None), (_arg(4, True), (0,), None)], eperm)
    # socket(domain, type, ...) and socketpair: AF_UNIX streams only (a stream socket cannot be
    # connected, connect() being refused, and refuses an address in sendmsg)
    for numbers in (_SOCKET, _SOCKETPAIR):
        body = [_insn(_LD_W_ABS, _arg(0)), _insn(_JEQ_K, _AF_UNIX, 1, 0), _insn(_RET_K, eafnosupport),
                _insn(_LD_W_ABS, _arg(1)), _insn(_ALU_AND_K, 0xF),
                _insn(_JEQ_K, _STREAM_TYPES[0], 2, 0), _insn(_JEQ_K, _STREAM_TYPES[1], 1, 0),
                _insn(_RET_K, eperm), _insn(_RET_K, _RET_ALLOW)]
        prog += [_insn(_JEQ_K, numbers[arch], 0, len(body))] + body
    # clone(flags, ...): no new namespaces
    prog += [_insn(_JEQ_K, _CLONE[arch], 0, 4), _insn(_LD_W_ABS, 16),
             _insn(_JSET_K, _CLONE_NEW_MASK, 0, 1), _insn(_RET_K, eperm),
             _insn(_RET_K, _RET_ALLOW)]
    prog.append(_insn(_RET_K, _RET_ALLOW))
    return b"".join(prog)


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def seccomp():
    """Installs the filter on every thread of the process (SECCOMP_FILTER_FLAG_TSYNC). Raises
    ConfineError."""
    arch = _arch()
    if arch is None:
        raise ConfineError("seccomp: unsupported architecture %s" % platform.machine())
    no_new_privs()
    code = seccomp_program(arch)
    buf = ctypes.create_string_buffer(code, len(code))
    prog = _SockFprog(len(code) // 8, ctypes.cast(buf, ctypes.c_void_p))
    rc, err = _syscall("seccomp", ctypes.c_uint(1), ctypes.c_uint(1), ctypes.byref(prog))
    if rc != 0:
        raise ConfineError("seccomp filter refused: %s" % os.strerror(err or errno.EINVAL))


# ---- process setup, privileges and rlimits ----

def parent_death_signal():
    """SIGKILL when the parent dies; exits at once when it already has."""
    parent = os.getppid()
    _c().prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG
    if os.getppid() != parent or parent == 1:
        os._exit(70)  # the parent died before PDEATHSIG was set


def process_setup():
    """Own process group (the server kills the group), death with the template that forked it,
    no new privileges."""
    os.setpgid(0, 0)
    parent_death_signal()
    no_new_privs()


_PR_CAPBSET_READ, _PR_CAPBSET_DROP = 23, 24
_PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL = 47, 4
_CAP_VERSION_3 = 0x20080522


def _last_cap():
    try:
        with open("/proc/sys/kernel/cap_last_cap") as f:
            return int(f.read())
    except (OSError, ValueError):
        return 63


def _own_tree(path, uid, gid):
    """Gives `path` and everything beneath it (links themselves, never followed) to uid:gid."""
    os.chown(path, uid, gid, follow_symlinks=False)
    for top, dirs, files in os.walk(path):
        for name in dirs + files:
            os.chown(os.path.join(top, name), uid, gid, follow_symlinks=False)


def capabilities():
    """The Cap* lines of /proc/self/status as integers: {"CapEff": 0, ...}."""
    out = {}
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("Cap"):
                key, value = line.split(":", 1)
                out[key] = int(value, 16)
    return out


def reachable(path, uid, gid, need_last=0o5):
    """Whether user uid:gid (no supplementary groups, no capabilities) may search every folder
    down to `path` and read it (ACLs aside); with need_last 0o1, only search it."""
    parts = os.path.realpath(path).split("/")
    for i in range(1, len(parts) + 1):
        here = "/".join(parts[:i]) or "/"
        try:
            st = os.stat(here)
        except OSError:
            return False
        shift = 6 if st.st_uid == uid else 3 if st.st_gid == gid else 0
        need = need_last if i == len(parts) else 0o1
        if (st.st_mode >> shift) & need != need:
            return False
    return True


def drop_privileges(private_dir, uid, gid, needed=()):
    """Leaves the process nothing of root: the capability bounding set emptied (where it may be),
    the ambient set cleared, and, when it runs as root and uid:gid can reach every folder in
    `needed` (the Python installation: modules still load later), `private_dir` given to uid:gid
    and the process switched to them (every thread: the C library broadcasts the change; no
    supplementary groups); then the permitted, effective and inheritable sets emptied. Returns
    the uid it runs as, or raises ConfineError when a capability is left."""
    was_root = os.geteuid() == 0 or os.getuid() == 0
    # the private folder becomes uid's own, but uid must also reach it: under a folder closed to
    # others (a TMPDIR in root's 0700 home) the child stays uid 0 with no capability instead
    switch = (was_root and all(reachable(p, uid, gid) for p in needed) and
              reachable(os.path.dirname(os.path.realpath(private_dir)), uid, gid, need_last=0o1))
    libc = _c()
    for cap in range(_last_cap() + 1):
        libc.prctl(_PR_CAPBSET_DROP, cap, 0, 0, 0)  # EPERM without CAP_SETPCAP: checked below
    libc.prctl(_PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
    try:
        if switch:
            _own_tree(private_dir, uid, gid)
            os.setgroups([])
            os.setresgid(gid, gid, gid)
            os.setresuid(uid, uid, uid)
        header = struct.pack("Ii", _CAP_VERSION_3, 0)
        data = ctypes.create_string_buffer(24)  # two {effective, permitted, inheritable}, zeroed
        rc, err = _syscall("capset", ctypes.c_char_p(header), data)
        if rc != 0:
            raise ConfineError("capset failed: %s" % os.strerror(err))
        caps = capabilities()
    except OSError as e:
        raise ConfineError("cannot drop privileges: %s" % e) from None
    left = [k for k in ("CapInh", "CapPrm", "CapEff", "CapAmb") if caps.get(k)]
    if was_root and caps.get("CapBnd"):
        left.append("CapBnd")
    if left or (switch and 0 in os.getresuid() + os.getresgid()):
        raise ConfineError("privileges are left after dropping them: %s" % (", ".join(left) or "root ids"))
    if not os.access(private_dir, os.R_OK | os.W_OK | os.X_OK):
        raise ConfineError("user %d cannot reach the private folder %s (a folder above it is not "
                           "searchable)" % (os.getuid(), private_dir))
    return os.getuid()


def needed_paths(sys_module, read_exec=()):
    """What a child must still read after dropping root: the Python prefixes, the folders of the
    torch and triton packages when loaded, the helper's package."""
    paths = [sys_module.prefix, sys_module.exec_prefix] + list(read_exec)
    for name in ("torch", "triton"):
        module = sys_module.modules.get(name)
        if getattr(module, "__file__", None):
            paths.append(os.path.dirname(os.path.dirname(module.__file__)))
    return [p for p in paths if p and os.path.exists(p)]


def _limit(which, soft):
    _, hard = resource.getrlimit(which)
    if hard != resource.RLIM_INFINITY:
        soft = min(soft, hard)
    resource.setrlimit(which, (soft, soft))


def set_rlimits(cpu_s, fsize, nofile, data=None):
    """Core dumps off, CPU seconds, file size and descriptors capped; `data` (bytes), when given,
    caps RLIMIT_DATA. RLIMIT_AS is never set: CUDA reserves far more address space than it uses.
    Soft and hard limits are equal: once the capabilities are gone, none can be raised."""
    _limit(resource.RLIMIT_CORE, 0)
    _limit(resource.RLIMIT_CPU, int(cpu_s))
    _limit(resource.RLIMIT_FSIZE, int(fsize))
    _limit(resource.RLIMIT_NOFILE, int(nofile))
    if data:
        _limit(resource.RLIMIT_DATA, int(data))


def confine_child(sys_module, private_dir, read_exec=(), uid=None, gid=None):
    """The whole confinement of a trace child, in order: privileges dropped (drop_privileges: no
    capability left; the unprivileged uid:gid of limits when it runs as root and that user can
    reach the Python installation, else uid 0 without capabilities), Landlock (child_rules) and
    the seccomp filter. Returns the response's `confinement` object: a step that fails is reported
    there (`reason`) and the caller refuses to run the answer."""
    from . import limits
    out = {"landlock": False, "seccomp": False, "privileges": False}
    reasons = []
    try:
        rules = child_rules(sys_module, private_dir, read_exec)
    except OSError as e:
        rules = None
        reasons.append("cannot list the Landlock rules: %s" % e)
    try:
        out["uid"] = drop_privileges(private_dir, limits.CHILD_UID if uid is None else uid,
                                     limits.CHILD_GID if gid is None else gid, needed_paths(sys_module, read_exec))
        out["privileges"] = True
    except ConfineError as e:
        reasons.append(str(e))
    if rules is not None:
        try:
            out["landlock_abi"] = landlock(rules)
            out["landlock"] = True
        except (ConfineError, OSError) as e:
            reasons.append(str(e))
    try:
        seccomp()
        out["seccomp"] = True
    except (ConfineError, OSError) as e:
        reasons.append(str(e))
    if reasons:
        out["reason"] = "; ".join(reasons)[:512]
    return out


# ---- the paths a trace child may use ----

SYSTEM_READ_EXEC = ("/usr", "/lib", "/lib64", "/lib32", "/bin", "/sbin")
SYSTEM_READ_FILES = ("/etc/ld.so.cache",)
DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom",
           "/dev/nvidiactl", "/dev/nvidia-uvm", "/dev/nvidia-uvm-tools", "/dev/nvidia-modeset",
           "/dev/nvidia-caps")


def _real(path):
    try:
        return os.path.realpath(path)
    except (OSError, ValueError):
        return None


def python_paths(sys_module):
    """Folders of the Python installation: the prefixes and every sys.path entry."""
    paths = [sys_module.prefix, sys_module.base_prefix, sys_module.exec_prefix, sys_module.base_exec_prefix]
    paths += [p for p in sys_module.path if p]
    return paths


def mapped_library_dirs(maps_path="/proc/self/maps"):
    """Folders of every file mapped into this process (libcuda and what it loaded)."""
    dirs = set()
    try:
        with open(maps_path, "r", errors="replace") as f:
            for line in f:
                parts = line.split(None, 5)
                if len(parts) == 6 and parts[5].startswith("/"):
                    name = parts[5].strip()
                    if name.endswith(" (deleted)"):
                        continue
                    dirs.add(os.path.dirname(name))
    except OSError:
        pass
    return sorted(d for d in dirs if not d.startswith(("/dev", "/proc", "/sys", "/tmp", "/run", "/memfd")))


def gpu_devices():
    try:
        names = os.listdir("/dev")
    except OSError:
        return []
    return ["/dev/" + n for n in sorted(names) if n.startswith("nvidia") and n[6:].isdigit()]


def child_rules(sys_module, private_dir, extra_read_exec=(), abi=None):
    """The Landlock rules of a trace child: (path, access) pairs."""
    rules = []
    for path in list(SYSTEM_READ_EXEC) + python_paths(sys_module) + list(extra_read_exec) + mapped_library_dirs():
        real = _real(path)
        if real and real != "/" and os.path.exists(real):
            rules.append((real, READ_EXEC))
    rules += [(p, FS_READ_FILE) for p in SYSTEM_READ_FILES]
    device_rights = FS_READ_FILE | FS_WRITE_FILE | _FS_IOCTL_DEV
    rules += [(p, device_rights | (FS_READ_DIR if os.path.isdir(p) else 0)) for p in list(DEVICES) + gpu_devices()]
    rules.append(("/proc/%d" % os.getpid(), READ))
    rules.append((_real(private_dir), all_access(abi)))
    seen, out = set(), []
    for path, access in rules:
        if path and (path, access) not in seen:
            seen.add((path, access))
            out.append((path, access))
    return out
