#!/usr/bin/env python3
"""Compile compatibility: how many kernels of a corpus kscore compiles, against nvcc, and at what
cost (docs/benchmarks.md, "Compile compatibility"). Run through bench/compile-rate.sh.

Each corpus file's first line names the kernel to instantiate: `// kernel: EXPR`. Per file:

  nvcc    nvcc -arch=ARCH -std=c++17 --expt-relaxed-constexpr -c (the flags PyTorch extensions
          use), with a host reference to EXPR appended so that templates are instantiated;
  before  kscore's helper with NVRTC alone (no --compat: the options kscore used before its
          compatibility headers), or an older build's helper (--before-helper);
  after   kscore's helper as kscore runs it now (--compat DIR).

The helpers run as kscore runs them (empty environment, source on stdin, Landlock), one at a time;
"before" and "after" alternate, file by file and repetition by repetition, so that the load of the
machine falls on both alike. Times are the helper's wall time (process start to exit), the median
of the repetitions.
"""

import argparse
import json
import os
import resource
import statistics
import struct
import subprocess
import sys
import tempfile
import time

STATUS = ['ok', 'compile error', 'timeout', 'limit', 'crash', 'kernel name not found', 'no sandbox',
          'missing header']


def kernel_of(path):
    with open(path, encoding='utf-8') as f:
        first = f.readline()
    if not first.startswith('// kernel:'):
        sys.exit('%s: the first line must be "// kernel: EXPR"' % path)
    return first.split(':', 1)[1].strip()


def first_error(log):
    for line in log.splitlines():
        if 'error' in line or line.startswith('missing header'):
            return line.strip()
    return log.splitlines()[0].strip() if log.strip() else ''


def run_helper(helper, compat, args, source, expr):
    argv = [helper, '--arch', args.arch]
    if compat:
        argv += ['--compat', compat]
    argv += ['--include', os.path.join(args.cuda, 'include')]
    cccl = os.path.join(args.cuda, 'include', 'cccl')
    if os.path.isdir(cccl):
        argv += ['--include', cccl]
    argv += ['--max-log', '65536', '--max-source', str(1 << 20), '--name', expr]
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    p = subprocess.run(argv, input=source, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env={})
    dt = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    out = p.stdout
    if out[:4] != b'KSCR':
        return 'crash', dt, cpu, p.stderr.decode('utf-8', 'replace')[:200]
    status, loglen = struct.unpack('<II', out[8:16])
    log = out[16:16 + loglen].decode('utf-8', 'replace')
    name = STATUS[status] if status < len(STATUS) else str(status)
    return name, dt, cpu, '' if status == 0 else first_error(log)


def run_nvcc(args, path, expr, tmp):
    src = os.path.join(tmp, 'k.cu')
    with open(path, encoding='utf-8') as f, open(src, 'w', encoding='utf-8') as o:
        o.write(f.read())
        # A host reference instantiates a template kernel, as a name expression does in NVRTC.
        o.write('\nstatic void *kscore_bench_ref = (void *)&%s;\n' % expr)
    p = subprocess.run([args.nvcc, '-arch=' + args.arch, '-std=c++17', '--expt-relaxed-constexpr',
                        '-c', src, '-o', os.path.join(tmp, 'k.o')],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    text = p.stdout.decode('utf-8', 'replace')
    return p.returncode == 0, '' if p.returncode == 0 else first_error(text)


def median(xs):
    return statistics.median(xs) if xs else float('nan')


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--corpus', default=os.path.join(root, 'tests', 'fixtures', 'compat-corpus'))
    ap.add_argument('--helper', default=os.path.join(root, 'build', 'kscore-compile'))
    ap.add_argument('--before-helper', help='an older build\'s helper, run without --compat '
                    '(default: --helper without --compat)')
    ap.add_argument('--compat', default=os.path.join(root, 'compat', 'include'))
    ap.add_argument('--cuda', default=os.environ.get('CUDA_HOME', '/usr/local/cuda'))
    ap.add_argument('--nvcc', help='default: CUDA/bin/nvcc; "none" skips it')
    ap.add_argument('--arch', default='sm_90a')
    ap.add_argument('--reps', type=int, default=3)
    ap.add_argument('--json', help='write every figure and per-file result here')
    args = ap.parse_args()
    if not args.nvcc:
        args.nvcc = os.path.join(args.cuda, 'bin', 'nvcc')
    use_nvcc = args.nvcc != 'none' and os.access(args.nvcc, os.X_OK)
    before_helper = args.before_helper or args.helper

    files = sorted(f for f in os.listdir(args.corpus) if f.endswith('.cu'))
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for f in files:
            path = os.path.join(args.corpus, f)
            expr = kernel_of(path)
            with open(path, 'rb') as fh:
                source = fh.read()
            row = {'file': f, 'kernel': expr, 'before_s': [], 'after_s': [], 'before_cpu': [],
                   'after_cpu': []}
            if use_nvcc:
                row['nvcc'], row['nvcc_error'] = run_nvcc(args, path, expr, tmp)
            rows.append((row, source))
        for rep in range(args.reps):
            for row, source in rows:
                st, dt, cpu, err = run_helper(before_helper, None, args, source, row['kernel'])
                row['before'], row['before_error'] = st, err
                row['before_s'].append(dt)
                row['before_cpu'].append(cpu)
                st, dt, cpu, err = run_helper(args.helper, args.compat, args, source, row['kernel'])
                row['after'], row['after_error'] = st, err
                row['after_s'].append(dt)
                row['after_cpu'].append(cpu)
    rows = [r for r, _ in rows]
    for r in rows:
        for k in ('before_s', 'after_s', 'before_cpu', 'after_cpu'):
            r[k] = median(r[k])

    n = len(rows)
    ok = lambda r, k: r[k] == 'ok'
    summary = {'kernels': n, 'reps': args.reps, 'arch': args.arch,
               'before_ok': sum(ok(r, 'before') for r in rows),
               'after_ok': sum(ok(r, 'after') for r in rows),
               'median_before_s': median([r['before_s'] for r in rows]),
               'median_after_s': median([r['after_s'] for r in rows])}
    both = [r for r in rows if ok(r, 'before') and ok(r, 'after')]
    summary['compiled_both'] = len(both)
    summary['median_before_s_compiled_both'] = median([r['before_s'] for r in both])
    summary['median_after_s_compiled_both'] = median([r['after_s'] for r in both])
    summary['median_after_s_compiled_after'] = median([r['after_s'] for r in rows if ok(r, 'after')])
    summary['median_before_cpu_compiled_both'] = median([r['before_cpu'] for r in both])
    summary['median_after_cpu_compiled_both'] = median([r['after_cpu'] for r in both])
    if use_nvcc:
        nv = [r for r in rows if r['nvcc']]
        summary['nvcc_ok'] = len(nv)
        summary['before_ok_of_nvcc'] = sum(ok(r, 'before') for r in nv)
        summary['after_ok_of_nvcc'] = sum(ok(r, 'after') for r in nv)

    print('%-40s %-6s %-22s %-22s %8s %8s' % ('file', 'nvcc', 'before', 'after', 'before', 'after'))
    for r in rows:
        print('%-40s %-6s %-22s %-22s %7.3fs %7.3fs' % (
            r['file'][:40], ('ok' if r['nvcc'] else 'fail') if use_nvcc else '-', r['before'],
            r['after'], r['before_s'], r['after_s']))
    print()
    pct = lambda a, b: 100.0 * a / b if b else float('nan')
    print('kernels: %d (%d repetitions per compile)' % (n, args.reps))
    if use_nvcc:
        print('nvcc compiles:            %3d (%.0f%%)' % (summary['nvcc_ok'], pct(summary['nvcc_ok'], n)))
    print('kscore before compiles:   %3d (%.0f%%)' % (summary['before_ok'], pct(summary['before_ok'], n)))
    print('kscore after compiles:    %3d (%.0f%%)' % (summary['after_ok'], pct(summary['after_ok'], n)))
    if use_nvcc:
        print('of the %d nvcc compiles: before %d (%.1f%%), after %d (%.1f%%)' % (
            summary['nvcc_ok'], summary['before_ok_of_nvcc'], pct(summary['before_ok_of_nvcc'], summary['nvcc_ok']),
            summary['after_ok_of_nvcc'], pct(summary['after_ok_of_nvcc'], summary['nvcc_ok'])))
    print('median compile time, all kernels: before %.3f s, after %.3f s' % (
        summary['median_before_s'], summary['median_after_s']))
    print('median compile time, kernels that compile before and after (%d): before %.3f s, after %.3f s'
          % (len(both), summary['median_before_s_compiled_both'], summary['median_after_s_compiled_both']))
    print('median compile time, kernels that compile after: %.3f s' % summary['median_after_s_compiled_after'])
    print('median CPU time (user + system), kernels that compile before and after: before %.3f s, '
          'after %.3f s' % (summary['median_before_cpu_compiled_both'], summary['median_after_cpu_compiled_both']))
    if use_nvcc:
        lost = [r for r in rows if r['nvcc'] and not ok(r, 'after')]
        extra = [r for r in rows if not r['nvcc'] and ok(r, 'after')]
        both_fail = [r for r in rows if not r['nvcc'] and not ok(r, 'after')]
        print('\nnvcc compiles, kscore does not (%d):' % len(lost))
        for r in lost:
            print('  %s: %s' % (r['file'], r['after_error'][:200]))
        print('kscore compiles, nvcc does not (%d):' % len(extra))
        for r in extra:
            print('  %s: nvcc: %s' % (r['file'], r['nvcc_error'][:160]))
        print('neither compiles (%d):' % len(both_fail))
        for r in both_fail:
            print('  %s: %s' % (r['file'], r['after_error'][:160]))
    print('\nkscore before, first error by file (failures only):')
    for r in rows:
        if not ok(r, 'before'):
            print('  %s: [%s] %s' % (r['file'], r['before'], r['before_error'][:160]))
    if args.json:
        with open(args.json, 'w') as f:
            json.dump({'summary': summary, 'files': rows}, f, indent=1)
    return 0


if __name__ == '__main__':
    sys.exit(main())
