"""Warming the server once, so that each trace child starts with less to do.

All of it runs without initialising CUDA in the server (the children fork from it):
- torch's lazy imports behind the dispatch mode, by running one CPU op under it;
- Triton's cached host facts (`platform_key`, the folders of libcuda), which otherwise run
  `file` and `ldconfig` in every child;
- Triton's `cuda_utils` module, compiled with the C compiler by a trusted child into the
  server's stub cache; each request's private Triton cache starts as a copy of it, so no child
  compiles it again, and no answer can write into what another answer's child loads.
Every step is best effort: a failure only costs the children the time it would have saved.
"""

import os
import sys
import time

USER = "kscore"  # getpass.getuser() reads the environment first; /etc/passwd is out of reach


def _user_environment():
    for name in ("USER", "LOGNAME"):
        os.environ.setdefault(name, USER)


def _dispatch_mode():
    import torch
    from . import trace
    with trace.make_mode()():
        torch.empty(1).fill_(0)


def _host_facts():
    from triton.runtime import build
    build.platform_key()
    from triton.backends.nvidia import driver
    driver.library_dirs()


def _build_stubs(cache_dir):
    """Compiles cuda_utils into `cache_dir` in a child; True when it succeeded."""
    os.makedirs(cache_dir, exist_ok=True)
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            os.environ["TRITON_CACHE_DIR"] = cache_dir
            import triton
            knobs = getattr(triton, "knobs", None)
            if knobs is not None and hasattr(knobs, "cache"):
                knobs.cache.dir = cache_dir
            from triton.backends.nvidia.driver import CudaUtils
            CudaUtils()
            code = 0
        finally:
            os._exit(code)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
        time.sleep(0.02)
    os.kill(pid, 9)
    os.waitpid(pid, 0)
    return False


def warm_server(server):
    """Runs every warm-up step; notes failures on stderr (never on the protocol stream)."""
    _user_environment()
    for step in (_dispatch_mode, _host_facts):
        try:
            step()
        except Exception as e:
            sys.stderr.write("kscore-triton: warm-up %s failed: %s\n" % (step.__name__, e))
    stubs = os.path.join(server.workdir, "stubs")
    try:
        if _build_stubs(stubs):
            server.stub_cache = stubs
    except OSError as e:
        sys.stderr.write("kscore-triton: warm-up of Triton's cuda_utils failed: %s\n" % e)
