#!/usr/bin/env python3
"""Proves the golden kernels of reference_tests/ right on a GPU host, and measures their speed.

For every problem (all suites, or the suites / problems named on the command line) it takes the
golden launch plans that `score` itself resolves (`score problems --plans`, kscore.plans/1: shapes,
buffers, launches and the golden source with its shared prelude, for this GPU's sm_count), so no
expression or spec is evaluated twice. It builds inputs from each buffer's `dist` with torch
(seeded: an independent generator, not the scorer's), fills outputs and
poison-initialised scratch buffers with poison, surrounds every buffer with guard bands, compiles
golden.cu with NVRTC exactly as the scorer does (-arch=sm_90a --std=c++17 -I<cuda>/include
-I<cuda>/include/cccl), runs the golden launch plan (several kernels, scratch buffers, typed
scalar arguments, dynamic shared memory with the opt-in limit raised above 48 KiB), and compares
every output with the problem's reference.py at the problem's tolerance, on every correctness
case (every seed) and every perf case. It also checks that every output element was written (no
poison left where the reference is finite), that no input changed, that no guard byte changed,
and that a second run on the same inputs gives bitwise identical outputs.

With --perf it times the golden on every perf case (CUDA events, warm-up, L2 flushed by writing a
buffer of at least twice the L2 size before every run, median of --reps runs), and reports GB/s
and TFLOP/s from the spec's `bytes` / `flops`, the percentage of a device-to-device copy bandwidth
measured in the same run, and, where reference.py defines `baseline`, the library's time and the
golden/library throughput ratio.

Each problem runs in its own worker process, so a kernel that faults (a sticky CUDA error) or
hangs fails only its own problem. Prints one table row per problem, writes JSON with --json, and
exits nonzero if any problem fails.

Needs: python3, torch, cupy, numpy (no network), and the score binary ($KSCORE_BIN, else
build/score). Usage:
    python3 tests/gpu/validate_goldens.py                      # every problem, correctness
    python3 tests/gpu/validate_goldens.py hackathon --perf     # one suite, with timings
    python3 tests/gpu/validate_goldens.py sin_kernel --json out.json
"""

import argparse
import hashlib
import importlib.util
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))

# --------------------------------------------------------------------------------------------
# The plans score resolves
# --------------------------------------------------------------------------------------------

DTYPES = {
    # name: (torch dtype name, element size, kind)  kind: f = floating, i = signed, u = unsigned
    'f32': ('float32', 4, 'f'), 'f16': ('float16', 2, 'f'), 'bf16': ('bfloat16', 2, 'f'),
    'f64': ('float64', 8, 'f'), 'i8': ('int8', 1, 'i'), 'u8': ('uint8', 1, 'u'),
    'i32': ('int32', 4, 'i'), 'u32': ('int32', 4, 'u'), 'i64': ('int64', 8, 'i'),
}
PLANS_SCHEMA = 'kscore.plans/1'


class SpecError(Exception):
    pass


def score_binary():
    b = os.environ.get('KSCORE_BIN')
    return b if b else os.path.join(REPO, 'build', 'score')


_SM_COUNT = None


def sm_count():
    """The GPU's multiprocessor count (the plans' `sm_count`), 132 without one (as the scorer
    before it knows the device)."""
    global _SM_COUNT
    if _SM_COUNT is None:
        _SM_COUNT = 132
        try:
            import torch
            if torch.cuda.is_available():
                _SM_COUNT = torch.cuda.get_device_properties(0).multi_processor_count
        except Exception:
            pass
    return _SM_COUNT


def write_plans(root, path, sms):
    """Runs `score problems --plans` on root; the plans land in path."""
    cmd = [score_binary(), 'problems', '--refs', root, '--plans', path, '--sm-count', str(sms)]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if p.returncode != 0 or not os.path.isfile(path):
        raise SpecError('%s failed (%d): %s' % (' '.join(cmd), p.returncode, p.stderr.strip()[-2000:]))
    return [l for l in p.stderr.splitlines() if 'invalid problem' in l]


def load_plans(path):
    """{problem name: plan} from a kscore.plans/1 file."""
    with open(path) as f:
        doc = json.load(f)
    if doc.get('schema') != PLANS_SCHEMA:
        raise SpecError('%s: not a %s file' % (path, PLANS_SCHEMA))
    return {p['name']: p for p in doc['problems']}


def numel(shape):
    n = 1
    for s in shape:
        n *= s
    return n


# --------------------------------------------------------------------------------------------
# GPU side (imported lazily so that --help and the expression tests work without a GPU)
# --------------------------------------------------------------------------------------------

torch = None
cupy = None
np = None
DEVICE = 'cuda'

GUARD = 4096          # bytes of guard band before and after every buffer (keeps 256 B alignment)
GUARD_BYTE = 0xA5
POISON_BYTE = 0x5A


def gpu_imports():
    global torch, cupy, np
    if torch is None:
        import torch as _t
        import cupy as _c
        import numpy as _n
        torch, cupy, np = _t, _c, _n


def cuda_home():
    for var in ('CUDA_HOME', 'CUDA_PATH'):
        p = os.environ.get(var)
        if p and os.path.isdir(os.path.join(p, 'include')):
            return p
    return '/usr/local/cuda'


def nvrtc_options():
    home = cuda_home()
    return ['-arch=sm_90a', '--std=c++17', '-I%s' % os.path.join(home, 'include'),
            '-I%s' % os.path.join(home, 'include', 'cccl')]


class CompileError(Exception):
    pass


FUNC_ATTR_SHARED = 1
FUNC_ATTR_LOCAL = 3
FUNC_ATTR_REGS = 4
FUNC_ATTR_MAX_DYN_SHARED = 8


class Kernel:
    def __init__(self, func, name):
        self.func, self.name = func, name
        self._dyn_limit = 48 * 1024

    def attr(self, a):
        try:
            return int(cupy.cuda.driver.funcGetAttribute(a, self.func.ptr))
        except Exception:
            return None

    def launch(self, grid, block, args, shared, stream):
        if shared > self._dyn_limit:
            cupy.cuda.driver.funcSetAttribute(self.func.ptr, FUNC_ATTR_MAX_DYN_SHARED, int(shared))
            self._dyn_limit = shared
        self.func(tuple(grid), tuple(block), tuple(args), shared_mem=int(shared), stream=stream)


def compile_golden(src, names):
    """NVRTC with the scorer's options; returns ({name: Kernel}, note).

    NVRTC is driven directly (cupy's bindings) rather than through cupy.RawModule, because
    RawModule appends its own -arch and -ftz=true to the options, which would compile the golden
    differently from the scorer. RawModule (without our -arch) is only the fallback."""
    opts = nvrtc_options()
    exprs = [n for n in names if '<' in n or '::' in n]
    try:
        try:
            from cupy_backends.cuda.libs import nvrtc
        except ImportError:
            from cupy.cuda import nvrtc
        prog = nvrtc.createProgram(src, 'golden.cu', (), ())
        try:
            for e in exprs:
                nvrtc.addNameExpression(prog, e)
            try:
                nvrtc.compileProgram(prog, opts)
            except Exception as e:
                log = ''
                try:
                    log = nvrtc.getProgramLog(prog)
                except Exception:
                    pass
                raise CompileError('NVRTC: %s\n%s' % (e, log))
            cubin = nvrtc.getCUBIN(prog)
            lowered = {e: nvrtc.getLoweredName(prog, e) for e in exprs}
        finally:
            nvrtc.destroyProgram(prog)
        mod = cupy.cuda.function.Module()
        mod.load(cubin)
        kernels = {n: Kernel(mod.get_function(lowered.get(n, n)), n) for n in names}
        kernels['__module__'] = mod  # keep the module alive
        return kernels, 'nvrtc %s' % ' '.join(opts)
    except CompileError:
        raise
    except Exception as direct_err:
        # Fallback: cupy.RawModule (it appends its own -arch, so ours is dropped).
        ropts = tuple(o for o in opts if not o.startswith('-arch'))
        try:
            mod = cupy.RawModule(code=src, options=ropts, name_expressions=exprs or None)
            kernels = {}
            for n in names:
                rk = mod.get_function(n)
                func = getattr(rk, 'kernel', rk)
                kernels[n] = Kernel(func, n)
            kernels['__module__'] = mod
            return kernels, 'cupy.RawModule fallback (direct NVRTC failed: %s)' % direct_err
        except Exception as e:
            raise CompileError('compilation failed: %s' % e)


class Buffer:
    """A device buffer with guard bands; .t is the typed tensor view of the payload."""

    def __init__(self, name, dtype, shape, role):
        tname, esize, kind = DTYPES[dtype]
        self.name, self.dtype, self.shape, self.role, self.kind = name, dtype, shape, role, kind
        self.count = numel(shape)
        self.nbytes = self.count * esize
        padded = (self.nbytes + 255) // 256 * 256
        self.raw = torch.empty(GUARD + padded + GUARD, dtype=torch.uint8, device=DEVICE)
        self.raw.fill_(GUARD_BYTE)
        self.bytes = self.raw[GUARD:GUARD + self.nbytes]
        self.t = self.bytes.view(getattr(torch, tname)).view(*shape) if shape else \
            self.bytes.view(getattr(torch, tname)).view(1)
        self.ptr = np.uint64(self.bytes.data_ptr())

    def poison(self):
        if self.kind == 'f':
            self.t.fill_(float('nan'))
        else:
            self.bytes.fill_(POISON_BYTE)

    def zero(self):
        self.bytes.zero_()

    def guards_intact(self):
        lo = self.raw[:GUARD]
        hi = self.raw[GUARD + self.nbytes:]
        return bool((lo == GUARD_BYTE).all().item()) and bool((hi == GUARD_BYTE).all().item())


def fill_input(buf, dist, env, gen):
    n = buf.count
    tname, esize, kind = DTYPES[buf.dtype]
    tdtype = getattr(torch, tname)
    if dist is None:
        dist = {'kind': 'normal', 'mean': 0, 'std': 1} if kind == 'f' else \
            {'kind': 'int', 'lo': -100, 'hi': 100}
    k = dist.get('kind')
    flat = buf.t.view(-1)
    if k == 'normal':
        v = torch.randn(n, generator=gen, device=DEVICE, dtype=torch.float32)
        v.mul_(float(dist.get('std', 1))).add_(float(dist.get('mean', 0)))
        flat.copy_(v.to(tdtype) if kind == 'f' else v.round().to(tdtype))
    elif k == 'uniform':
        lo, hi = float(dist['lo']), float(dist['hi'])
        v = torch.rand(n, generator=gen, device=DEVICE, dtype=torch.float32)
        v.mul_(hi - lo).add_(lo)
        flat.copy_(v.to(tdtype) if kind == 'f' else v.floor().to(tdtype))
    elif k == 'int':
        lo, hi = int(dist['lo']), int(dist['hi'])
        if hi < lo:
            raise SpecError('%s: int dist with hi < lo (%d < %d)' % (buf.name, hi, lo))
        v = torch.randint(lo, hi + 1, (n,), generator=gen, device=DEVICE, dtype=torch.int64)
        flat.copy_(v.to(tdtype))
    elif k == 'bits':
        v = torch.randint(0, 256, (buf.nbytes,), generator=gen, device=DEVICE, dtype=torch.int32)
        buf.bytes.copy_(v.to(torch.uint8))
    else:
        raise SpecError('%s: unknown dist kind %r' % (buf.name, k))


def as_compare_tensor(buf):
    """Output values as a flat tensor for comparison (unsigned types widened)."""
    t = buf.t.reshape(-1)
    if buf.dtype == 'u32':
        return t.to(torch.int64) & 0xFFFFFFFF
    return t


CHUNK = 1 << 26


def compare_output(buf, ref, atol, rtol):
    """Returns a dict: ok, max_abs, max_ratio (err / allowed), bad, unwritten, first_bad."""
    out = as_compare_tensor(buf)
    ref = ref.reshape(-1)
    res = {'name': buf.name, 'numel': buf.count, 'max_abs': 0.0, 'max_ratio': 0.0, 'bad': 0,
           'unwritten': 0, 'nan_mismatch': 0, 'first_bad': None}
    if ref.numel() != out.numel():
        res.update(ok=False, error='reference has %d elements, output %d' % (ref.numel(), out.numel()))
        return res
    exact = buf.kind != 'f'
    for s in range(0, out.numel(), CHUNK):
        o = out[s:s + CHUNK]
        r = ref[s:s + CHUNK]
        if exact and not r.is_floating_point():
            bad = o.to(torch.int64) != r.to(torch.int64)
            nbad = int(bad.sum().item())
            if nbad:
                d = (o.to(torch.int64) - r.to(torch.int64)).abs()
                res['max_abs'] = max(res['max_abs'], float(d.max().item()))
                res['max_ratio'] = math.inf
        else:
            o = o.double()
            r = r.double()
            onan, rnan = torch.isnan(o), torch.isnan(r)
            res['unwritten'] += int((onan & torch.isfinite(r)).sum().item())
            nanmis = onan != rnan
            res['nan_mismatch'] += int(nanmis.sum().item())
            infmis = (torch.isinf(o) | torch.isinf(r)) & ~(onan | rnan) & (o != r)
            fin = torch.isfinite(o) & torch.isfinite(r)
            d = torch.where(fin, (o - r).abs(), torch.zeros_like(o))
            if exact:
                allowed = torch.zeros_like(o)
            else:
                allowed = atol + rtol * r.abs()
            over = fin & (d > allowed)
            bad = over | nanmis | infmis
            nbad = int(bad.sum().item())
            if fin.any():
                res['max_abs'] = max(res['max_abs'], float(d.max().item()))
                ratio = torch.where(allowed > 0, d / torch.where(allowed > 0, allowed, torch.ones_like(allowed)),
                                    torch.where(d > 0, torch.full_like(d, math.inf), torch.zeros_like(d)))
                res['max_ratio'] = max(res['max_ratio'], float(ratio.max().item()))
        if nbad:
            if res['first_bad'] is None:
                i = int(torch.nonzero(bad.reshape(-1))[0].item())
                res['first_bad'] = {'index': s + i, 'out': float(out[s + i].double().item()),
                                    'ref': float(ref[s + i].double().item())}
            res['bad'] += nbad
    res['ok'] = res['bad'] == 0
    return res


def signal_warning(ref, atol):
    """METR-style low-signal check on a reference output (warning only)."""
    r = ref.reshape(-1)
    if not r.is_floating_point():
        r = r.double()
    r = r[torch.isfinite(r)]
    if r.numel() == 0:
        return 'no finite reference values'
    mx, mn = float(r.max().item()), float(r.min().item())
    if r.numel() > 1 and mx == mn:
        return 'reference output is constant (%g)' % mx
    if max(abs(mx), abs(mn)) <= atol:
        return 'reference output lies inside the tolerance of zero (max |ref| = %g)' % max(abs(mx), abs(mn))
    return None


class Problem:
    """One problem as score resolved it (a kscore.plans/1 entry), with its reference.py."""

    def __init__(self, plan, load_ref=True):
        self.plan = plan
        self.name = plan['name']
        self.suite = plan['suite']
        self.folder = plan['dir']
        self.kernel_names = list(plan['kernels'])
        self.atol, self.rtol = float(plan['atol']), float(plan['rtol'])
        self.cases = {'correctness': [c for c in plan['cases'] if c['kind'] == 'correctness'],
                      'perf': [c for c in plan['cases'] if c['kind'] == 'perf'],
                      'extended': [c for c in plan['cases'] if c['kind'] == 'extended']}
        for c in plan['cases']:
            if 'error' in c:
                raise SpecError('%s case %d (%s): %s' % (c['kind'], c['index'], c['label'], c['error']))
        ref_path = os.path.join(self.folder, 'reference.py')
        self.ref = None
        self.has_ref = os.path.isfile(ref_path)
        if self.has_ref and load_ref:
            shared = os.path.join(os.path.dirname(os.path.dirname(self.folder)), '_shared')
            if os.path.isdir(shared) and shared not in sys.path:
                sys.path.insert(0, shared)   # reference_tests/_shared/refs.py
            spec = importlib.util.spec_from_file_location('reference_' + self.name, ref_path)
            mod = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(mod)
            self.ref = mod

    @staticmethod
    def tensors(case):
        return [b for b in case['bufs'] if b['role'] != 'scratch']

    # -- one case --------------------------------------------------------------------------

    def setup(self, case, seed):
        env = dict(case['env'])
        bufs, scratch = {}, {}
        for b in case['bufs']:
            if b['role'] == 'scratch':
                if b['count'] < 1:
                    raise SpecError('scratch %s has %d elements' % (b['name'], b['count']))
                scratch[b['name']] = (Buffer(b['name'], b['dtype'], [b['count']], 'scratch'), b['fill'])
            else:
                bufs[b['name']] = Buffer(b['name'], b['dtype'], list(b['shape']), b['role'])
        gen = torch.Generator(device=DEVICE)
        gen.manual_seed(seed)
        for b in self.tensors(case):
            if b['role'] in ('in', 'inout'):
                fill_input(bufs[b['name']], b.get('dist'), env, gen)
        scalars = {k: float(v['value']) if v['type'] in ('f32', 'f64') else int(v['value'])
                   for k, v in case['scalars'].items()}
        return env, bufs, scratch, scalars

    def launch_list(self, case, bufs, scratch):
        """The plan's launches as [(kernel name, grid, block, shared, args)]."""
        conv = {'i32': np.int32, 'u32': np.uint32, 'i64': np.int64, 'f32': np.float32, 'f64': np.float64}
        out = []
        for k in case['launches']:
            args = []
            for a in k['args']:
                (t, v), = a.items()
                if t == 'buf':
                    args.append(bufs[v].ptr if v in bufs else scratch[v][0].ptr)
                else:
                    args.append(conv[t](v))
            out.append((k['kernel'], list(k['grid']), list(k['block']), int(k['shared']), args))
        return out

    def prepare_outputs(self, bufs, scratch):
        for b in bufs.values():
            if b.role == 'out':
                b.poison()
        for sb, fill in scratch.values():
            if fill == 'zero':
                sb.zero()
            else:
                sb.poison()

    def run_plan(self, kernels, launches, stream):
        for name, grid, block, shared, args in launches:
            kernels[name].launch(grid, block, args, shared, stream)


# --------------------------------------------------------------------------------------------
# Worker: validates (and optionally times) one problem
# --------------------------------------------------------------------------------------------


def seed_for(problem, case_index, seed_index, kind):
    h = hashlib.sha256(('%s/%s/%d/%d' % (problem, kind, case_index, seed_index)).encode()).digest()
    return int.from_bytes(h[:8], 'little') & ((1 << 63) - 1)


def l2_flush_buffer():
    l2 = 50 << 20
    try:
        l2 = int(cupy.cuda.runtime.deviceGetAttribute(89, torch.cuda.current_device()))  # L2 size
    except Exception:
        pass
    nbytes = max(2 * l2, 128 << 20)
    return torch.empty(nbytes // 4, dtype=torch.float32, device='cuda'), l2


def time_it(fn, flush, reps, warmup=3, before=None):
    for _ in range(warmup):
        if before:
            before()
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        if before:
            before()
        flush.zero_()
        s = torch.cuda.Event(enable_timing=True)
        e = torch.cuda.Event(enable_timing=True)
        s.record()
        fn()
        e.record()
        e.synchronize()
        times.append(s.elapsed_time(e))
    return {'median_ms': statistics.median(times), 'min_ms': min(times), 'max_ms': max(times),
            'stdev_ms': statistics.pstdev(times), 'runs': reps}


def measure_bandwidth(reps=20):
    gpu_imports()
    n = (1 << 30) // 4
    a = torch.randn(n, device='cuda')
    b = torch.empty_like(a)
    flush, _ = l2_flush_buffer()
    t = time_it(lambda: b.copy_(a), flush, reps)
    return 2.0 * n * 4 / (t['median_ms'] * 1e-3) / 1e9


def check_case(prob, kernels, stream, case, seed, label, want_perf, flush, reps, bw):
    rec = {'case': label, 'dims': {d: case['env'][d] for d in prob.plan['dims']}, 'seed': seed, 'ok': True,
           'errors': [], 'outputs': [], 'warnings': []}
    env, bufs, scratch, scalars = prob.setup(case, seed)
    launches = prob.launch_list(case, bufs, scratch)
    snap = {n: b.bytes.clone() for n, b in bufs.items() if b.role in ('in', 'inout')}
    inputs_before = {n: v for n, v in snap.items() if bufs[n].role == 'in'}
    prob.prepare_outputs(bufs, scratch)
    torch.cuda.synchronize()
    prob.run_plan(kernels, launches, stream)
    torch.cuda.synchronize()
    first = {n: b.bytes.clone() for n, b in bufs.items() if b.role in ('out', 'inout')}

    # reference
    if prob.ref is None:
        rec['errors'].append('no reference.py')
    else:
        ref_inputs = {}
        for a in prob.tensors(case):
            b = bufs[a['name']]
            if b.role in ('in', 'inout'):
                ref_inputs[a['name']] = snap[a['name']].view(b.t.dtype).view(b.t.shape).clone()
        ref_inputs.update(scalars)
        with torch.no_grad():
            refs = prob.ref.reference(ref_inputs, dict(env))
        for a in prob.tensors(case):
            b = bufs[a['name']]
            if b.role not in ('out', 'inout'):
                continue
            if a['name'] not in refs:
                rec['errors'].append('reference returned no %s' % a['name'])
                continue
            atol = float(a.get('atol', prob.atol))
            rtol = float(a.get('rtol', prob.rtol))
            r = refs[a['name']]
            if not torch.is_tensor(r):
                r = torch.as_tensor(r)
            r = r.to(DEVICE)
            cmp = compare_output(b, r, atol, rtol)
            cmp['atol'], cmp['rtol'] = atol, rtol
            rec['outputs'].append(cmp)
            if not cmp['ok']:
                rec['errors'].append('%s: %d of %d elements wrong (%d unwritten, max err %.3g = %.3gx allowed), first %s'
                                     % (b.name, cmp['bad'], cmp['numel'], cmp['unwritten'], cmp['max_abs'],
                                        cmp['max_ratio'], json.dumps(cmp['first_bad'])))
            w = signal_warning(r, atol)
            if w:
                rec['warnings'].append('%s: %s' % (b.name, w))
        del refs

    for n, before in inputs_before.items():
        if not torch.equal(before, bufs[n].bytes):
            rec['errors'].append('input %s was modified' % n)
    for b in list(bufs.values()) + [sb for sb, _ in scratch.values()]:
        if not b.guards_intact():
            rec['errors'].append('guard band of %s overwritten' % b.name)

    # determinism: same inputs, outputs re-poisoned, second run must be bitwise identical
    for n, before in snap.items():
        bufs[n].bytes.copy_(before)
    prob.prepare_outputs(bufs, scratch)
    torch.cuda.synchronize()
    prob.run_plan(kernels, launches, stream)
    torch.cuda.synchronize()
    for n, b in bufs.items():
        if b.role in ('out', 'inout') and not torch.equal(first[n], b.bytes):
            rec['errors'].append('output %s differs between two runs on the same inputs' % n)

    if want_perf:
        def before():
            for sb, fill in scratch.values():
                if fill == 'zero':
                    sb.zero()
        t = time_it(lambda: prob.run_plan(kernels, launches, stream), flush, reps, before=before)
        rec['golden'] = t
        ms = t['median_ms']
        nbytes, flops = int(case.get('bytes', 0)), int(case.get('flops', 0))
        rec['bytes'], rec['flops'] = nbytes, flops
        rec['gbps'] = nbytes / (ms * 1e-3) / 1e9 if ms > 0 else None
        rec['tflops'] = flops / (ms * 1e-3) / 1e12 if ms > 0 else None
        rec['pct_bandwidth'] = 100.0 * rec['gbps'] / bw if bw and rec['gbps'] else None
        if prob.ref is not None and hasattr(prob.ref, 'baseline'):
            lib_inputs = {a['name']: bufs[a['name']].t for a in prob.tensors(case) if bufs[a['name']].role != 'out'}
            lib_inputs.update(scalars)
            try:
                with torch.no_grad():
                    lt = time_it(lambda: prob.ref.baseline(lib_inputs, dict(env)), flush, reps)
                rec['library'] = lt
                rec['pct_of_library'] = 100.0 * lt['median_ms'] / ms if ms > 0 else None
                with torch.no_grad():
                    lout = prob.ref.baseline(lib_inputs, dict(env))
                rec['library_outputs'] = {k: tuple(v.shape) for k, v in lout.items()}
            except Exception as e:
                rec['warnings'].append('baseline failed: %s' % e)
    rec['ok'] = not rec['errors']
    for b in bufs.values():
        del b.raw
    del bufs, scratch, first, inputs_before, snap
    return rec


def run_worker(plan, perf, reps, bw, only):
    gpu_imports()
    result = {'problem': plan['name'], 'folder': os.path.relpath(plan['dir'], REPO),
              'ok': False, 'errors': [], 'cases': [], 'warnings': []}
    t0 = time.time()
    try:
        prob = Problem(plan)
        result['suite'] = prob.suite
        names = sorted(prob.kernel_names)
        kernels, note = compile_golden(plan['golden_source'], names)
        result['compile'] = note
        result['kernels'] = {n: {'regs': kernels[n].attr(FUNC_ATTR_REGS),
                                 'local_bytes': kernels[n].attr(FUNC_ATTR_LOCAL),
                                 'static_smem': kernels[n].attr(FUNC_ATTR_SHARED)} for n in names}
        for n, a in result['kernels'].items():
            if a['local_bytes']:
                result['warnings'].append('kernel %s uses %s bytes of local memory per thread'
                                          % (n, a['local_bytes']))
        stream = cupy.cuda.ExternalStream(torch.cuda.current_stream().cuda_stream)
        flush = None
        if perf:
            flush, _ = l2_flush_buffer()
        cases = prob.cases
        if only in ('all', 'correctness'):
            for ci, case in enumerate(cases['correctness']):
                nseeds = max(2, int(case['seeds']))
                for si in range(nseeds):
                    label = 'correctness[%d] %s seed %d' % (ci, case['label'], si)
                    try:
                        rec = check_case(prob, kernels, stream, case, seed_for(prob.name, ci, si, 'c'), label,
                                         False, None, reps, bw)
                    except Exception as e:
                        rec = {'case': label, 'ok': False, 'errors': ['%s: %s' % (type(e).__name__, e)],
                               'trace': traceback.format_exc()}
                    result['cases'].append(rec)
                    torch.cuda.empty_cache()
            # extended cases (beyond the problem's domain, never counted by score) are checked
            # against the reference too: they are what kscore reports beside the scored ones
            for ci, case in enumerate(cases['extended']):
                label = 'extended[%d] %s' % (ci, case['label'])
                try:
                    rec = check_case(prob, kernels, stream, case, seed_for(prob.name, ci, 0, 'e'), label,
                                     False, None, reps, bw)
                except Exception as e:
                    rec = {'case': label, 'ok': False, 'errors': ['%s: %s' % (type(e).__name__, e)],
                           'trace': traceback.format_exc()}
                result['cases'].append(rec)
                torch.cuda.empty_cache()
        if only in ('all', 'perf'):
            for ci, case in enumerate(cases['perf']):
                label = 'perf[%d] %s' % (ci, case['label'])
                try:
                    rec = check_case(prob, kernels, stream, case, seed_for(prob.name, ci, 0, 'p'), label,
                                     perf, flush, reps, bw)
                    rec['perf_case'] = True
                except Exception as e:
                    rec = {'case': label, 'ok': False, 'perf_case': True,
                           'errors': ['%s: %s' % (type(e).__name__, e)], 'trace': traceback.format_exc()}
                result['cases'].append(rec)
                torch.cuda.empty_cache()
        result['ok'] = all(c['ok'] for c in result['cases']) and bool(result['cases'])
        if not result['cases']:
            result['errors'].append('no cases ran')
    except Exception as e:
        result['errors'].append('%s: %s' % (type(e).__name__, e))
        result['trace'] = traceback.format_exc()
    result['seconds'] = time.time() - t0
    return result


# --------------------------------------------------------------------------------------------
# Self-test without a GPU: every plan resolves and fits, and (with torch on the CPU) input
# generation, the reference and the comparison on the correctness cases.
# --------------------------------------------------------------------------------------------


def selftest(plans, selectors, data):
    global DEVICE
    chosen, unknown = select(plans, selectors)
    nfail = len(unknown)
    if data:
        gpu_imports_cpu()
        DEVICE = 'cpu'
    for plan in chosen:
        name = plan['name']
        try:
            prob = Problem(plan, load_ref=data)
            if not prob.has_ref:
                raise SpecError('no reference.py')
            for kind in ('correctness', 'perf'):
                for ci, case in enumerate(prob.cases[kind]):
                    for b in prob.tensors(case):
                        if min(b['shape'], default=1) < 1:
                            raise SpecError('%s %d: %s has shape %s' % (kind, ci, b['name'], b['shape']))
                    if kind == 'perf':
                        total = sum(b['bytes'] for b in prob.tensors(case))
                        if total >= 2 << 30:
                            raise SpecError('perf %d: %d bytes of buffers (limit 2 GiB)' % (ci, total))
            if data:
                for ci, case in enumerate(prob.cases['correctness']):
                    env, bufs, scratch, scalars = prob.setup(case, seed_for(name, ci, 0, 'c'))
                    ins = {a['name']: bufs[a['name']].t.clone() for a in prob.tensors(case)
                           if bufs[a['name']].role != 'out'}
                    ins.update(scalars)
                    refs = prob.ref.reference(ins, dict(env))
                    for a in prob.tensors(case):
                        b = bufs[a['name']]
                        atol = float(a.get('atol', prob.atol))
                        rtol = float(a.get('rtol', prob.rtol))
                        if b.role == 'out':
                            b.poison()
                            r = refs[a['name']].reshape(-1)
                            cmp = compare_output(b, r, atol, rtol)
                            if cmp['ok'] or cmp['unwritten'] == 0 and b.kind == 'f':
                                raise SpecError('poisoned %s passed the comparison' % a['name'])
                            b.t.view(-1).copy_(r.to(b.t.dtype))
                            cmp = compare_output(b, r, atol, rtol)
                            w = signal_warning(r, atol)
                            if w:
                                print('  %s correctness[%d] %s: warning: %s' % (name, ci, a['name'], w))
                            if not cmp['ok']:
                                raise SpecError('%s: the reference rounded to the output dtype fails the '
                                                'tolerance: %s' % (a['name'], cmp))
                    if hasattr(prob.ref, 'baseline'):
                        # the library way (another valid order, native dtype) against the tolerance
                        try:
                            with torch.no_grad():
                                lib = prob.ref.baseline(ins, dict(env))
                        except Exception as e:
                            lib = None
                            print('  %s correctness[%d]: baseline not runnable here (%s)'
                                  % (name, ci, str(e).splitlines()[0][:80]))
                        for a in prob.tensors(case):
                            b = bufs[a['name']]
                            if lib is not None and b.role == 'out':
                                b.t.view(-1).copy_(lib[a['name']].reshape(-1).to(b.t.dtype))
                                cmp = compare_output(b, refs[a['name']].reshape(-1), prob.atol, prob.rtol)
                                if not cmp['ok'] or cmp['max_ratio'] > 0.5:
                                    print('  %s correctness[%d] %s: baseline error %.3g of the tolerance%s'
                                          % (name, ci, a['name'], cmp['max_ratio'],
                                             '' if cmp['ok'] else ' (FAILS)'))
            print('%-26s ok' % name)
        except Exception as e:
            print('%-26s FAIL %s: %s' % (name, type(e).__name__, e))
            traceback.print_exc()
            nfail += 1
    print('selftest: %d failures' % nfail)
    return 1 if nfail else 0


def gpu_imports_cpu():
    global torch, np
    import torch as _t
    import numpy as _n
    torch, np = _t, _n


# --------------------------------------------------------------------------------------------
# Driver
# --------------------------------------------------------------------------------------------


def select(plans, selectors):
    """The plans of the named problems or suites (all without selectors), and the unknown names."""
    ordered = sorted(plans.values(), key=lambda p: (p['suite'], p['name']))
    if not selectors:
        return ordered, []
    chosen, unknown = [], []
    for sel in selectors:
        hits = [p for p in ordered if p['name'] == sel or p['suite'] == sel]
        if not hits:
            unknown.append(sel)
        chosen += [h for h in hits if h not in chosen]
    return chosen, unknown


def summarize(res):
    worst = 0.0
    for c in res.get('cases', []):
        for o in c.get('outputs', []):
            worst = max(worst, o.get('max_ratio', 0.0))
    return worst


def fmt(v, f='%.3f'):
    return '-' if v is None else (f % v)


def print_table(results, perf):
    hdr = '%-26s %-5s %6s %10s' % ('problem', 'res', 'cases', 'err/tol')
    if perf:
        hdr += ' %10s %9s %8s %7s %10s %8s' % ('golden ms', 'GB/s', 'TFLOP/s', '%bw', 'lib ms', '%lib')
    print(hdr)
    print('-' * len(hdr))
    for r in results:
        ncases = len(r.get('cases', []))
        nok = sum(1 for c in r.get('cases', []) if c.get('ok'))
        line = '%-26s %-5s %6s %10s' % (r['problem'][:26], 'PASS' if r['ok'] else 'FAIL', '%d/%d' % (nok, ncases),
                                         fmt(summarize(r), '%.3g'))
        print(line)
        if perf:
            for c in r.get('cases', []):
                if not c.get('perf_case') or 'golden' not in c:
                    continue
                lib = c.get('library', {}).get('median_ms') if c.get('library') else None
                print('  %-41s %10s %9s %8s %7s %10s %8s' % (
                    c['case'][:41], fmt(c['golden']['median_ms'], '%.4f'), fmt(c.get('gbps'), '%.1f'),
                    fmt(c.get('tflops'), '%.2f'), fmt(c.get('pct_bandwidth'), '%.1f'), fmt(lib, '%.4f'),
                    fmt(c.get('pct_of_library'), '%.1f')))
        for e in r.get('errors', []):
            print('    error: %s' % e.splitlines()[0][:300])
        for c in r.get('cases', []):
            for e in c.get('errors', []):
                print('    %s: %s' % (c['case'], e[:300]))
        for w in r.get('warnings', []):
            print('    warning: %s' % w)
        seen = set()
        for c in r.get('cases', []):
            for w in c.get('warnings', []):
                if w not in seen:
                    seen.add(w)
                    print('    warning (%s): %s' % (c['case'], w))


def query_device(perf):
    """{name, sm_count} of GPU 0 and, with perf, the copy bandwidth, from a child process: this one
    never initialises CUDA, so the workers it starts get a clean device."""
    code = ('import torch, json; p = torch.cuda.get_device_properties(0); '
            'print(json.dumps({"name": p.name, "sm_count": p.multi_processor_count}))')
    out = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, timeout=600)
    dev = json.loads(out.stdout.strip().splitlines()[-1])
    if perf:
        out = subprocess.run([sys.executable, os.path.abspath(__file__), '--measure-bw'],
                             capture_output=True, text=True, timeout=600)
        dev['copy_bandwidth_gbps'] = json.loads(out.stdout.strip().splitlines()[-1])['bandwidth_gbps']
    return dev


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('select', nargs='*', help='suite or problem names (default: all)')
    ap.add_argument('--root', default=os.path.join(REPO, 'reference_tests'))
    ap.add_argument('--plans', help='a kscore.plans/1 file (default: written now by `score problems --plans`)')
    ap.add_argument('--sm-count', type=int, help="the plans' sm_count (default: the GPU's; 132 with --selftest)")
    ap.add_argument('--perf', action='store_true', help='time the golden on the perf cases')
    ap.add_argument('--reps', type=int, default=30, help='timed runs per perf case (>= 20)')
    ap.add_argument('--json', help='write the results here')
    ap.add_argument('--only', choices=('all', 'correctness', 'perf'), default='all')
    ap.add_argument('--timeout', type=float, default=1800.0, help='seconds per problem')
    ap.add_argument('--in-process', action='store_true', help='no worker processes (debugging)')
    ap.add_argument('--selftest', action='store_true',
                    help='no GPU: check that every plan resolves and fits; with --selftest-data also run '
                         'input generation, reference.py and the comparison on the CPU')
    ap.add_argument('--selftest-data', action='store_true', help=argparse.SUPPRESS)
    ap.add_argument('--worker', help=argparse.SUPPRESS)
    ap.add_argument('--worker-out', help=argparse.SUPPRESS)
    ap.add_argument('--measure-bw', action='store_true', help=argparse.SUPPRESS)
    ap.add_argument('--bw', type=float, default=None, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    args.reps = max(20, args.reps)

    if args.measure_bw:
        print(json.dumps({'bandwidth_gbps': measure_bandwidth()}))
        return 0
    if args.worker:
        res = run_worker(load_plans(args.plans)[args.worker], args.perf, args.reps, args.bw, args.only)
        with open(args.worker_out, 'w') as f:
            json.dump(res, f, default=str)
        return 0

    device = {}
    bw = None
    sms = args.sm_count
    if args.selftest:
        sms = sms or 132
    elif args.in_process:
        gpu_imports()
        device['name'] = torch.cuda.get_device_name(0)
        sms = sms or sm_count()
        if args.perf:
            bw = measure_bandwidth()
    else:
        try:
            device = query_device(args.perf)
            sms = sms or device['sm_count']
            bw = device.get('copy_bandwidth_gbps')
        except Exception as e:
            print('could not query the device: %s' % e, file=sys.stderr)
            sms = sms or 132
    if bw:
        print('device-to-device copy bandwidth (read + write): %.1f GB/s' % bw)

    tmpdir = tempfile.mkdtemp(prefix='validate-goldens-')
    plans_path, invalid = args.plans, []
    try:
        if not plans_path:
            plans_path = os.path.join(tmpdir, 'plans.json')
            invalid = write_plans(args.root, plans_path, sms)
        plans = load_plans(plans_path)
        if args.selftest:
            for line in invalid:
                print(line)
            return selftest(plans, args.select, args.selftest_data) or (1 if invalid else 0)
        return run_all(args, plans, plans_path, invalid, device, bw)
    finally:
        if not args.plans and os.path.exists(os.path.join(tmpdir, 'plans.json')):
            os.unlink(os.path.join(tmpdir, 'plans.json'))
        os.rmdir(tmpdir)


def run_all(args, plans, plans_path, invalid, device, bw):
    chosen, unknown = select(plans, args.select)
    for u in unknown:
        print('no suite or problem named %r under %s' % (u, args.root), file=sys.stderr)
    if not chosen and not invalid:
        print('no problems found', file=sys.stderr)
        return 2

    results = [{'problem': '(spec)', 'ok': False, 'errors': [line], 'cases': []} for line in invalid]
    for plan in chosen:
        print('== %s' % os.path.relpath(plan['dir'], REPO), flush=True)
        if args.in_process:
            res = run_worker(plan, args.perf, args.reps, bw, args.only)
        else:
            fd, tmp = tempfile.mkstemp(suffix='.json')
            os.close(fd)
            cmd = [sys.executable, os.path.abspath(__file__), '--worker', plan['name'], '--plans', plans_path,
                   '--worker-out', tmp, '--reps', str(args.reps), '--only', args.only]
            if args.perf:
                cmd.append('--perf')
            if bw:
                cmd += ['--bw', repr(bw)]
            try:
                p = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout)
                with open(tmp) as f:
                    txt = f.read()
                if p.returncode != 0 or not txt:
                    raise RuntimeError('worker exited with %d: %s' % (p.returncode, (p.stderr or '')[-2000:]))
                res = json.loads(txt)
            except subprocess.TimeoutExpired:
                res = {'problem': plan['name'], 'ok': False, 'errors': ['timed out after %.0f s' % args.timeout],
                       'cases': []}
            except Exception as e:
                res = {'problem': plan['name'], 'ok': False, 'errors': ['%s: %s' % (type(e).__name__, e)],
                       'cases': []}
            finally:
                try:
                    os.unlink(tmp)
                except OSError:
                    pass
        results.append(res)
        print('   %s (%.1f s)' % ('PASS' if res['ok'] else 'FAIL', res.get('seconds', 0.0)), flush=True)

    print()
    print_table(results, args.perf)
    nfail = sum(1 for r in results if not r['ok'])
    print('\n%d problems, %d passed, %d failed' % (len(results), len(results) - nfail, nfail))
    if args.json:
        with open(args.json, 'w') as f:
            json.dump({'device': device, 'nvrtc_options': nvrtc_options(), 'problems': results}, f,
                      indent=1, default=str)
    return 1 if nfail or unknown else 0


if __name__ == '__main__':
    sys.exit(main())
