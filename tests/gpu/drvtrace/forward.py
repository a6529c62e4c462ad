"""A KernelBench level-1-like forward under the driver-level tracer (tests/gpu/drvtrace.sh).

usage: forward.py MODEL LIB   MODEL: matmul relu softmax layernorm conv triton
Warms up, then records two forwards between marks (kscore_drvtrace_mark in LIB, the injected
library; without the tracer LIB is "-") and prints the median forward time of a few runs."""
import ctypes, statistics, sys, time
import torch

name, lib = sys.argv[1], sys.argv[2]
torch.manual_seed(0)
dev = "cuda"
if name == "matmul":
    a, b = torch.randn(1024, 1024, device=dev), torch.randn(1024, 1024, device=dev)
    fwd = lambda: a @ b
elif name == "relu":
    x = torch.randn(1 << 20, device=dev); fwd = lambda: torch.relu(x)
elif name == "softmax":
    x = torch.randn(256, 4096, device=dev); fwd = lambda: torch.softmax(x, dim=1)
elif name == "layernorm":
    m = torch.nn.LayerNorm(1024).to(dev); x = torch.randn(64, 1024, device=dev); fwd = lambda: m(x)
elif name == "conv":
    m = torch.nn.Sequential(torch.nn.Conv2d(3, 16, 3), torch.nn.ReLU()).to(dev)
    x = torch.randn(8, 3, 64, 64, device=dev); fwd = lambda: m(x)
elif name == "triton":
    import triton, triton.language as tl
    @triton.jit
    def add(x_ptr, y_ptr, o_ptr, n, BLOCK: tl.constexpr):
        i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        tl.store(o_ptr + i, tl.load(x_ptr + i, mask=i < n) + tl.load(y_ptr + i, mask=i < n), mask=i < n)
    x, y = torch.randn(1 << 20, device=dev), torch.randn(1 << 20, device=dev)
    o = torch.empty_like(x)
    fwd = lambda: add[(triton.cdiv(x.numel(), 1024),)](x, y, o, x.numel(), BLOCK=1024)
else:
    sys.exit("unknown model " + name)
mark = ctypes.CDLL(lib).kscore_drvtrace_mark if lib != "-" else None
if mark:
    mark.argtypes = [ctypes.c_char_p, ctypes.c_int]
for _ in range(3):
    fwd()
torch.cuda.synchronize()
for k in range(2):
    if mark: mark(b"forward %d" % k, 1)
    fwd(); torch.cuda.synchronize()
    if mark: mark(b"forward %d done" % k, 0)
times = []
for _ in range(20):
    s = time.perf_counter(); fwd(); torch.cuda.synchronize(); times.append(time.perf_counter() - s)
print("forward %s: median %.1f us" % (name, statistics.median(times) * 1e6))
