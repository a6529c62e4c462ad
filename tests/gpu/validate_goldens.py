#!/usr/bin/env python3
"""Proves the golden kernels of reference_tests/ right on a GPU host, and measures their speed.

For every problem (all suites, or the suites / problems named on the command line) it loads
problem.json, builds inputs from each argument's `dist` with torch (seeded), fills outputs and
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

Needs: python3, torch, cupy, numpy (no network). Usage:
    python3 tests/gpu/validate_goldens.py                      # every problem, correctness
    python3 tests/gpu/validate_goldens.py hackathon --perf     # one suite, with timings
    python3 tests/gpu/validate_goldens.py sin_kernel --json out.json
"""

import argparse
import glob
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
# The spec's integer expression language (same grammar and semantics as src/expr.c)
# --------------------------------------------------------------------------------------------

I64_MIN, I64_MAX = -(1 << 63), (1 << 63) - 1


class ExprError(Exception):
    pass


def _check(v, text):
    if v < I64_MIN or v > I64_MAX:
        raise ExprError('in expression "%s": integer overflow' % text)
    return v


def _cdivt(a, b):
    """C division: truncates toward zero."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def _tokenize(text):
    toks, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if c.isspace():
            i += 1
        elif c.isdigit():
            j = i
            if text[i:i + 2] in ('0x', '0X'):
                j = i + 2
                while j < n and text[j] in '0123456789abcdefABCDEF':
                    j += 1
                if j == i + 2:
                    raise ExprError('in expression "%s": bad hexadecimal number' % text)
                val = int(text[i + 2:j], 16)
            else:
                while j < n and text[j].isdigit():
                    j += 1
                val = int(text[i:j])
            if j < n and (text[j].isalpha() or text[j] in '_.'):
                raise ExprError('in expression "%s": bad number' % text)
            toks.append(('num', _check(val, text)))
            i = j
        elif c.isalpha() or c == '_':
            j = i
            while j < n and (text[j].isalnum() or text[j] == '_'):
                j += 1
            toks.append(('name', text[i:j]))
            i = j
        elif text[i:i + 2] in ('<<', '>>', '**'):
            toks.append(('op', text[i:i + 2]))
            i += 2
        elif c in '+-*/%(),':
            toks.append(('op', c))
            i += 1
        else:
            raise ExprError('in expression "%s": unexpected character %r' % (text, c))
    return toks


class _Parser:
    def __init__(self, text, env):
        self.text, self.env = text, env
        self.toks = _tokenize(text)
        self.i = 0

    def peek(self):
        return self.toks[self.i] if self.i < len(self.toks) else (None, None)

    def accept(self, op):
        t = self.peek()
        if t[0] == 'op' and t[1] == op:
            self.i += 1
            return True
        return False

    def fail(self, what):
        raise ExprError('in expression "%s": %s' % (self.text, what))

    def parse(self):
        v = self.expr()
        if self.i != len(self.toks):
            self.fail('unexpected text')
        return v

    def expr(self):
        v = self.sum()
        while True:
            if self.accept('<<'):
                b = self.sum()
                if b < 0 or b > 62 or v < 0 or v > (I64_MAX >> b):
                    self.fail('shift out of range')
                v = v << b
            elif self.accept('>>'):
                b = self.sum()
                if b < 0 or b > 63:
                    self.fail('shift out of range')
                v = v >> b
            else:
                return v

    def sum(self):
        v = self.prod()
        while True:
            if self.accept('+'):
                v = _check(v + self.prod(), self.text)
            elif self.accept('-'):
                v = _check(v - self.prod(), self.text)
            else:
                return v

    def prod(self):
        v = self.unary()
        while True:
            if self.accept('*'):
                v = _check(v * self.unary(), self.text)
            elif self.accept('/') or self.accept('%'):
                op = self.toks[self.i - 1][1]
                b = self.unary()
                if b == 0:
                    self.fail('division by zero')
                q = _cdivt(v, b)
                v = _check(q if op == '/' else v - q * b, self.text)
            else:
                return v

    def unary(self):
        if self.accept('-'):
            return _check(-self.unary(), self.text)
        if self.accept('+'):
            return self.unary()
        return self.power()

    def power(self):
        v = self.atom()
        if self.accept('**'):
            e = self.unary()
            if e < 0:
                self.fail('negative exponent')
            r = 1
            for _ in range(e):
                r = _check(r * v, self.text)
            v = r
        return v

    def atom(self):
        kind, val = self.peek()
        if kind == 'num':
            self.i += 1
            return val
        if kind == 'name':
            self.i += 1
            if self.accept('('):
                args = []
                if not self.accept(')'):
                    args.append(self.expr())
                    while self.accept(','):
                        args.append(self.expr())
                    if not self.accept(')'):
                        self.fail("expected ')'")
                return self.call(val, args)
            if val not in self.env:
                self.fail('unknown name "%s"' % val)
            return int(self.env[val])
        if self.accept('('):
            v = self.expr()
            if not self.accept(')'):
                self.fail("expected ')'")
            return v
        self.fail('unexpected end' if kind is None else 'unexpected token %r' % (val,))

    def call(self, name, a):
        if name in ('cdiv', 'align'):
            if len(a) != 2:
                self.fail('cdiv/align take 2 arguments')
            if a[1] <= 0:
                self.fail('cdiv/align need a positive divisor')
            q = _check(a[0] + a[1] - 1, self.text) // a[1] if a[0] >= 0 else _cdivt(a[0], a[1])
            return _check(q * a[1], self.text) if name == 'align' else q
        if name in ('min', 'max'):
            if not a:
                self.fail('min/max need at least 1 argument')
            return min(a) if name == 'min' else max(a)
        if name == 'abs':
            if len(a) != 1:
                self.fail('abs takes 1 argument')
            return _check(abs(a[0]), self.text)
        if name == 'log2':
            if len(a) != 1:
                self.fail('log2 takes 1 argument')
            if a[0] <= 0:
                self.fail('log2 needs a positive argument')
            return a[0].bit_length() - 1
        self.fail('unknown function "%s"' % name)


def eval_int(value, env):
    """An integer from a JSON number or an expression string."""
    if isinstance(value, bool):
        raise ExprError('boolean where an integer is expected: %r' % (value,))
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        if value != int(value):
            raise ExprError('non-integer number %r' % (value,))
        return int(value)
    if isinstance(value, str):
        return _Parser(value, env).parse()
    raise ExprError('expected an integer or an expression, got %r' % (value,))


# --------------------------------------------------------------------------------------------
# Spec handling
# --------------------------------------------------------------------------------------------

DTYPES = {
    # name: (torch dtype name, element size, kind)  kind: f = floating, i = signed, u = unsigned
    'f32': ('float32', 4, 'f'), 'f16': ('float16', 2, 'f'), 'bf16': ('bfloat16', 2, 'f'),
    'f64': ('float64', 8, 'f'), 'i8': ('int8', 1, 'i'), 'u8': ('uint8', 1, 'u'),
    'i32': ('int32', 4, 'i'), 'u32': ('int32', 4, 'u'), 'i64': ('int64', 8, 'i'),
}
SCALAR_TYPES = ('i32', 'u32', 'i64', 'f32', 'f64')


class SpecError(Exception):
    pass


def load_spec(folder):
    path = os.path.join(folder, 'problem.json')
    with open(path) as f:
        spec = json.load(f)
    name = os.path.basename(os.path.normpath(folder))
    if spec.get('name') != name:
        raise SpecError('problem.json name %r does not match folder %r' % (spec.get('name'), name))
    for key in ('dims', 'args', 'launch', 'tolerance', 'cases'):
        if key not in spec:
            raise SpecError('problem.json lacks "%s"' % key)
    seen = set()
    for a in spec['args']:
        if a['name'] in seen:
            raise SpecError('argument %s given twice' % a['name'])
        seen.add(a['name'])
        t = a['type']
        if t.endswith('*'):
            if t[:-1] not in DTYPES:
                raise SpecError('argument %s: unknown dtype %s' % (a['name'], t))
            if a.get('role') not in ('in', 'out', 'inout'):
                raise SpecError('argument %s: role must be in, out or inout' % a['name'])
        elif t not in SCALAR_TYPES:
            raise SpecError('argument %s: unknown scalar type %s' % (a['name'], t))
    for sub in ('golden', 'instruction'):
        fn = spec.get(sub, sub + ('.cu' if sub == 'golden' else '.md'))
        if not os.path.isfile(os.path.join(folder, fn)):
            raise SpecError('missing %s' % fn)
    return spec


_SM_COUNT = None


def sm_count():
    """`sm_count` of the expression language: the GPU's multiprocessor count, 132 without one
    (as the scorer before it knows the device)."""
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


def case_env(spec, case):
    env = {'sm_count': sm_count()}
    for d in spec['dims']:
        if d not in case:
            raise SpecError('case %s does not give dim %s' % (json.dumps(case), d))
        env[d] = eval_int(case[d], env)
    for k, v in spec.get('let', {}).items():
        env[k] = eval_int(v, env)
    return env


def numel(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def normalize_plan(plan):
    if 'kernels' in plan:
        kernels, scratch = plan['kernels'], plan.get('scratch', [])
    else:
        kernels, scratch = [plan], plan.get('scratch', [])
    if not 1 <= len(kernels) <= 8:
        raise SpecError('a launch plan has 1 to 8 kernels')
    if len(scratch) > 8:
        raise SpecError('a launch plan has at most 8 scratch buffers')
    out = []
    for k in kernels:
        name = k.get('name', k.get('kernel'))
        if not name:
            raise SpecError('a kernel of the plan has no name')
        out.append({'name': name, 'grid': list(k['grid']), 'block': list(k['block']),
                    'shared': k.get('shared', 0), 'args': k.get('args')})
    return out, scratch


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
        lo, hi = eval_int(dist['lo'], env), eval_int(dist['hi'], env)
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
    def __init__(self, folder, load_ref=True):
        self.folder = folder
        self.spec = load_spec(folder)
        self.name = self.spec['name']
        self.suite = os.path.basename(os.path.dirname(os.path.normpath(folder)))
        plan = self.spec.get('golden_launch') or self.spec['launch']
        self.kernels, self.scratch = normalize_plan(plan)
        self.tensor_args = [a for a in self.spec['args'] if a['type'].endswith('*')]
        self.scalar_args = {a['name']: a for a in self.spec['args'] if not a['type'].endswith('*')}
        tol = self.spec['tolerance']
        self.atol, self.rtol = float(tol.get('atol', 0)), float(tol.get('rtol', 0))
        ref_path = os.path.join(folder, 'reference.py')
        self.ref = None
        self.has_ref = os.path.isfile(ref_path)
        if self.has_ref and load_ref:
            spec = importlib.util.spec_from_file_location('reference_' + self.name, ref_path)
            mod = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(mod)
            self.ref = mod

    # -- one case --------------------------------------------------------------------------

    def setup(self, case, seed):
        env = case_env(self.spec, case)
        bufs = {}
        for a in self.tensor_args:
            shape = [eval_int(s, env) for s in a['shape']]
            bufs[a['name']] = Buffer(a['name'], a['type'][:-1], shape, a['role'])
        scratch = {}
        for s in self.scratch:
            count = eval_int(s['count'], env)
            if count < 1:
                raise SpecError('scratch %s has %d elements' % (s['name'], count))
            scratch[s['name']] = (Buffer(s['name'], s['dtype'], [count], 'scratch'), s.get('init', 'poison'))
        dist_over = case.get('dist', {})
        gen = torch.Generator(device=DEVICE)
        gen.manual_seed(seed)
        for idx, a in enumerate(self.tensor_args):
            b = bufs[a['name']]
            if b.role in ('in', 'inout'):
                fill_input(b, dist_over.get(a['name'], a.get('dist')), env, gen)
        scalars = {}
        for name, a in self.scalar_args.items():
            v = a['value']
            if a['type'] in ('f32', 'f64'):
                scalars[name] = float(v)
            else:
                scalars[name] = eval_int(v, env)
        return env, bufs, scratch, scalars

    def launch_list(self, env, bufs, scratch, scalars):
        """Resolves the plan into [(kernel name, grid, block, shared, args)]."""
        out = []
        for k in self.kernels:
            grid = [eval_int(g, env) for g in k['grid']] + [1] * (3 - len(k['grid']))
            block = [eval_int(b, env) for b in k['block']] + [1] * (3 - len(k['block']))
            shared = eval_int(k['shared'], env)
            if any(g < 1 for g in grid) or grid[0] > (1 << 31) - 1 or grid[1] > 65535 or grid[2] > 65535:
                raise SpecError('kernel %s: grid %s outside the hardware limits' % (k['name'], grid))
            if any(b < 1 for b in block) or numel(block) > 1024 or block[2] > 64:
                raise SpecError('kernel %s: block %s invalid' % (k['name'], block))
            if shared < 0 or shared > 227 * 1024:
                raise SpecError('kernel %s: %d bytes of dynamic shared memory' % (k['name'], shared))
            names = k['args'] if k['args'] is not None else [a['name'] for a in self.spec['args']]
            args = []
            for item in names:
                if isinstance(item, dict):
                    if len(item) != 1:
                        raise SpecError('typed literal %r must have one key' % (item,))
                    (t, v), = item.items()
                    if t in ('i32', 'u32', 'i64'):
                        iv = eval_int(v, env)
                        args.append({'i32': np.int32, 'u32': np.uint32, 'i64': np.int64}[t](iv))
                    elif t in ('f32', 'f64'):
                        args.append((np.float32 if t == 'f32' else np.float64)(float(v)))
                    else:
                        raise SpecError('unknown literal type %s' % t)
                elif item in bufs:
                    args.append(bufs[item].ptr)
                elif item in scratch:
                    args.append(scratch[item][0].ptr)
                elif item in scalars:
                    t = self.scalar_args[item]['type']
                    conv = {'i32': np.int32, 'u32': np.uint32, 'i64': np.int64,
                            'f32': np.float32, 'f64': np.float64}[t]
                    args.append(conv(scalars[item]))
                elif item in env:
                    args.append(np.int32(env[item]))
                else:
                    raise SpecError('kernel %s: unknown argument name %r' % (k['name'], item))
            out.append((k['name'], grid, block, shared, args))
        return out

    def prepare_outputs(self, bufs, scratch):
        for b in bufs.values():
            if b.role == 'out':
                b.poison()
        for sb, init in scratch.values():
            if init == 'zero':
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
    rec = {'case': label, 'dims': {d: case[d] for d in prob.spec['dims']}, 'seed': seed, 'ok': True,
           'errors': [], 'outputs': [], 'warnings': []}
    env, bufs, scratch, scalars = prob.setup(case, seed)
    rec['dims'] = {d: env[d] for d in prob.spec['dims']}
    launches = prob.launch_list(env, bufs, scratch, scalars)
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
        for a in prob.tensor_args:
            b = bufs[a['name']]
            if b.role in ('in', 'inout'):
                ref_inputs[a['name']] = snap[a['name']].view(b.t.dtype).view(b.t.shape).clone()
        ref_inputs.update(scalars)
        with torch.no_grad():
            refs = prob.ref.reference(ref_inputs, dict(env))
        for a in prob.tensor_args:
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
            for sb, init in scratch.values():
                if init == 'zero':
                    sb.zero()
        t = time_it(lambda: prob.run_plan(kernels, launches, stream), flush, reps, before=before)
        rec['golden'] = t
        ms = t['median_ms']
        try:
            nbytes = eval_int(prob.spec.get('bytes', '0'), env)
            flops = eval_int(prob.spec.get('flops', '0'), env)
        except ExprError as e:
            nbytes, flops = 0, 0
            rec['warnings'].append('bytes/flops: %s' % e)
        rec['bytes'], rec['flops'] = nbytes, flops
        rec['gbps'] = nbytes / (ms * 1e-3) / 1e9 if ms > 0 else None
        rec['tflops'] = flops / (ms * 1e-3) / 1e12 if ms > 0 else None
        rec['pct_bandwidth'] = 100.0 * rec['gbps'] / bw if bw and rec['gbps'] else None
        if prob.ref is not None and hasattr(prob.ref, 'baseline'):
            lib_inputs = {a['name']: bufs[a['name']].t for a in prob.tensor_args if bufs[a['name']].role != 'out'}
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


def run_worker(folder, perf, reps, bw, only):
    gpu_imports()
    result = {'problem': os.path.basename(os.path.normpath(folder)), 'folder': os.path.relpath(folder, REPO),
              'ok': False, 'errors': [], 'cases': [], 'warnings': []}
    t0 = time.time()
    try:
        prob = Problem(folder)
        result['suite'] = prob.suite
        with open(os.path.join(folder, prob.spec.get('golden', 'golden.cu'))) as f:
            src = f.read()
        names = sorted({k['name'] for k in prob.kernels})
        kernels, note = compile_golden(src, names)
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
        cases = prob.spec['cases']
        if only in ('all', 'correctness'):
            for ci, case in enumerate(cases.get('correctness', [])):
                nseeds = max(2, int(case.get('seeds', 2)))
                for si in range(nseeds):
                    label = 'correctness[%d]%s seed %d' % (ci, (' ' + case['label']) if 'label' in case else '', si)
                    try:
                        rec = check_case(prob, kernels, stream, case, seed_for(prob.name, ci, si, 'c'), label,
                                         False, None, reps, bw)
                    except Exception as e:
                        rec = {'case': label, 'ok': False, 'errors': ['%s: %s' % (type(e).__name__, e)],
                               'trace': traceback.format_exc()}
                    result['cases'].append(rec)
                    torch.cuda.empty_cache()
        if only in ('all', 'perf'):
            for ci, case in enumerate(cases.get('perf', [])):
                label = 'perf[%d]%s' % (ci, (' ' + case['label']) if 'label' in case else '')
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
# Self-test without a GPU: the expression evaluator, every spec, every plan, and (with torch on
# the CPU) input generation, the reference and the comparison on the correctness cases.
# --------------------------------------------------------------------------------------------

EXPR_CASES = [
    ('1 << 24', {}, 1 << 24), ('cdiv(n, 256)', {'n': 1000}, 4), ('cdiv(-7, 2)', {}, -3),
    ('-7 / 2', {}, -3), ('-7 % 2', {}, -1), ('7 % -2', {}, 1), ('2 ** 3 ** 2', {}, 512),
    ('-2 ** 2', {}, -4), ('1 + 2 << 3', {}, 24), ('log2(1000)', {}, 9), ('align(1000, 64)', {}, 1024),
    ('min(3, 1, 2) + max(4, 9) + abs(-5)', {}, 15), ('0x10 * 2', {}, 32), ('(1 + 2) * 3', {}, 9),
    ('rows * cdiv(cols, 16384)', {'rows': 16, 'cols': 1 << 23}, 16 * 512),
]
EXPR_ERRORS = ['1 / 0', 'cdiv(1, 0)', 'foo', '1 +', '2 ** -1', '1 << 63', 'log2(0)', '9223372036854775807 + 1',
               '1.5', 'bar(1)']


def selftest(root, selectors, data):
    global DEVICE
    nfail = 0
    for text, env, want in EXPR_CASES:
        try:
            got = eval_int(text, env)
        except ExprError as e:
            got = e
        if got != want:
            print('expr %r: got %r, want %r' % (text, got, want))
            nfail += 1
    for text in EXPR_ERRORS:
        try:
            eval_int(text, {})
            print('expr %r: no error' % text)
            nfail += 1
        except ExprError:
            pass
    folders, unknown = discover(root, selectors)
    nfail += len(unknown)
    if data:
        gpu_imports_cpu()
        DEVICE = 'cpu'
    for folder in folders:
        name = os.path.basename(folder)
        try:
            prob = Problem(folder, load_ref=data)
            if not prob.has_ref:
                raise SpecError('no reference.py')
            for kind in ('correctness', 'perf'):
                for ci, case in enumerate(prob.spec['cases'].get(kind, [])):
                    env = case_env(prob.spec, case)
                    for a in prob.tensor_args:
                        shape = [eval_int(x, env) for x in a['shape']]
                        if min(shape, default=1) < 1:
                            raise SpecError('%s %d: %s has shape %s' % (kind, ci, a['name'], shape))
                    for k in prob.kernels:
                        [eval_int(g, env) for g in k['grid']]
                    eval_int(prob.spec.get('bytes', '0'), env)
                    eval_int(prob.spec.get('flops', '0'), env)
                    if kind == 'perf':
                        total = sum(numel([eval_int(x, env) for x in a['shape']]) * DTYPES[a['type'][:-1]][1]
                                    for a in prob.tensor_args)
                        if total >= 2 << 30:
                            raise SpecError('perf %d: %d bytes of buffers (limit 2 GiB)' % (ci, total))
            if data:
                for ci, case in enumerate(prob.spec['cases'].get('correctness', [])):
                    env, bufs, scratch, scalars = prob.setup(case, seed_for(name, ci, 0, 'c'))
                    prob.launch_list(env, bufs, scratch, scalars)
                    ins = {a['name']: bufs[a['name']].t.clone() for a in prob.tensor_args
                           if bufs[a['name']].role != 'out'}
                    ins.update(scalars)
                    refs = prob.ref.reference(ins, dict(env))
                    for a in prob.tensor_args:
                        b = bufs[a['name']]
                        if b.role == 'out':
                            b.poison()
                            r = refs[a['name']].reshape(-1)
                            cmp = compare_output(b, r, prob.atol, prob.rtol)
                            if cmp['ok'] or cmp['unwritten'] == 0 and b.kind == 'f':
                                raise SpecError('poisoned %s passed the comparison' % a['name'])
                            b.t.view(-1).copy_(r.to(b.t.dtype))
                            cmp = compare_output(b, r, prob.atol, prob.rtol)
                            w = signal_warning(r, prob.atol)
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
                        for a in prob.tensor_args:
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


def discover(root, selectors):
    folders = sorted(os.path.dirname(p) for p in glob.glob(os.path.join(root, '*', '*', 'problem.json')))
    if not selectors:
        return folders, []
    chosen, unknown = [], []
    for sel in selectors:
        hits = [f for f in folders if os.path.basename(f) == sel or os.path.basename(os.path.dirname(f)) == sel]
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


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('select', nargs='*', help='suite or problem names (default: all)')
    ap.add_argument('--root', default=os.path.join(REPO, 'reference_tests'))
    ap.add_argument('--perf', action='store_true', help='time the golden on the perf cases')
    ap.add_argument('--reps', type=int, default=30, help='timed runs per perf case (>= 20)')
    ap.add_argument('--json', help='write the results here')
    ap.add_argument('--only', choices=('all', 'correctness', 'perf'), default='all')
    ap.add_argument('--timeout', type=float, default=1800.0, help='seconds per problem')
    ap.add_argument('--in-process', action='store_true', help='no worker processes (debugging)')
    ap.add_argument('--selftest', action='store_true',
                    help='no GPU: check the expression evaluator, every spec and plan; with --selftest-data '
                         'also run input generation, reference.py and the comparison on the CPU')
    ap.add_argument('--selftest-data', action='store_true', help=argparse.SUPPRESS)
    ap.add_argument('--worker', help=argparse.SUPPRESS)
    ap.add_argument('--worker-out', help=argparse.SUPPRESS)
    ap.add_argument('--measure-bw', action='store_true', help=argparse.SUPPRESS)
    ap.add_argument('--bw', type=float, default=None, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    args.reps = max(20, args.reps)

    if args.selftest:
        return selftest(args.root, args.select, args.selftest_data)
    if args.measure_bw:
        print(json.dumps({'bandwidth_gbps': measure_bandwidth()}))
        return 0
    if args.worker:
        res = run_worker(args.worker, args.perf, args.reps, args.bw, args.only)
        with open(args.worker_out, 'w') as f:
            json.dump(res, f, default=str)
        return 0

    folders, unknown = discover(args.root, args.select)
    for u in unknown:
        print('no suite or problem named %r under %s' % (u, args.root), file=sys.stderr)
    if not folders:
        print('no problems found', file=sys.stderr)
        return 2

    device = {}
    bw = None
    if args.in_process:
        gpu_imports()
        device['name'] = torch.cuda.get_device_name(0)
        if args.perf:
            bw = measure_bandwidth()
    else:
        try:
            out = subprocess.run([sys.executable, os.path.abspath(__file__), '--measure-bw'] if args.perf else
                                 [sys.executable, '-c', 'import torch; print(torch.cuda.get_device_name(0))'],
                                 capture_output=True, text=True, timeout=600)
            if args.perf:
                bw = json.loads(out.stdout.strip().splitlines()[-1])['bandwidth_gbps']
            else:
                device['name'] = out.stdout.strip()
        except Exception as e:
            print('could not query the device: %s' % e, file=sys.stderr)
    if bw:
        device['copy_bandwidth_gbps'] = bw
        print('device-to-device copy bandwidth (read + write): %.1f GB/s' % bw)

    results = []
    for folder in folders:
        name = os.path.basename(folder)
        print('== %s' % os.path.relpath(folder, REPO), flush=True)
        if args.in_process:
            res = run_worker(folder, args.perf, args.reps, bw, args.only)
        else:
            fd, tmp = tempfile.mkstemp(suffix='.json')
            os.close(fd)
            cmd = [sys.executable, os.path.abspath(__file__), '--worker', folder, '--worker-out', tmp,
                   '--reps', str(args.reps), '--only', args.only]
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
                res = {'problem': name, 'ok': False, 'errors': ['timed out after %.0f s' % args.timeout],
                       'cases': []}
            except Exception as e:
                res = {'problem': name, 'ok': False, 'errors': ['%s: %s' % (type(e).__name__, e)], 'cases': []}
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
