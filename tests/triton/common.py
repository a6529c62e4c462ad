"""Shared helpers of the Triton helper's tests."""

import errno
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
PACKAGE = os.path.join(ROOT, "src", "lang", "triton")
HELPER = os.path.join(PACKAGE, "kscore-triton")
FIXTURES = os.path.join(ROOT, "tests", "fixtures", "triton")
if PACKAGE not in sys.path:
    sys.path.insert(0, PACKAGE)


def fixture_text(name):
    with open(os.path.join(FIXTURES, name), encoding="utf-8") as f:
        return f.read()


def fixture_json(name):
    return json.loads(fixture_text(name))


def have_torch_gpu():
    """(True, "") when torch and triton import and an NVIDIA device node exists, else (False,
    why). CUDA is not initialised here: tests fork, and CUDA must not be initialised before a
    fork."""
    try:
        import torch  # noqa: F401
        import triton  # noqa: F401
    except Exception as e:  # ImportError, or a broken install
        return False, "torch/triton not importable (%s)" % type(e).__name__
    if not os.path.exists("/dev/nvidiactl"):
        return False, "no NVIDIA device"
    return True, ""


def gpu_count():
    """The host's GPU nodes (/dev/nvidiaN), at least 1: without initialising CUDA."""
    return max(1, sum(1 for n in os.listdir("/dev") if n.startswith("nvidia") and n[6:].isdigit()))


def attempt(out, name, fn):
    """Runs fn(); out[name] becomes "ok" or the errno name of the OSError it raised."""
    try:
        fn()
        out[name] = "ok"
    except OSError as e:
        out[name] = errno.errorcode.get(e.errno, str(e.errno))


def read_one_byte(path):
    with open(path, "rb") as f:
        f.read(1)
