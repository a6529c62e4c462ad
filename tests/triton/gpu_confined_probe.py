"""Run by test_gpu.py in a fresh process (`python3 -I gpu_confined_probe.py`): does what a trace child does before the answer runs
(environment, CUDA, Landlock, seccomp), then checks that Triton still compiles and launches while
the host stays out of reach. Prints one JSON object."""

import json
import os
import socket
import sys
import tempfile

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from common import PACKAGE, attempt, read_one_byte  # noqa: E402  (common puts the package on sys.path)
from kscore_triton import child  # noqa: E402

KERNEL = '''
import triton
import triton.language as tl


@triton.jit
def add_one(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=mask) + 1, mask=mask)
'''


def main():
    private = tempfile.mkdtemp(prefix="kscore-gpu-probe-")
    ctx = child.ChildContext(private, os.path.join(private, "answer.py"), False, [PACKAGE, os.path.dirname(os.path.abspath(__file__))])
    with open(ctx.answer_path, "w") as f:
        f.write(KERNEL)
    child._environment(ctx)
    import torch
    out = {"cuda_init_error": child._cuda_init(torch, 0)}
    out["confinement"] = child._confine(ctx)
    out["device_count"] = torch.cuda.device_count()
    for path in ("/etc/passwd", "/etc/hostname", "/root", "/proc/1/environ", "/proc/%d/environ" % os.getppid(),
                 "/sys/class/net", "/tmp", "/home"):
        attempt(out, "open " + path, lambda p=path: os.listdir(p) if os.path.isdir(p) else read_one_byte(p))
    attempt(out, "socket AF_INET", lambda: socket.socket(socket.AF_INET).close())
    import importlib.util
    spec = importlib.util.spec_from_file_location("probe_answer", ctx.answer_path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    x = torch.zeros(1000, device="cuda")
    mod.add_one[(4,)](x, 1000, BLOCK=256)
    torch.cuda.synchronize()
    out["triton_ran"] = float(x.sum().item()) == 1000.0
    print(json.dumps(out))


if __name__ == "__main__":
    main()
