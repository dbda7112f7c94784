"""Compile times: ufnc's front end on a generated 10,000-line module (issue 2
wants under a second), and per sample the whole of ufnc against nvcc alone.

    python3 compile_time.py UFNC SAMPLES_DIR [--arch LIST]

JSON lines: {"what": "frontend", ...} and {"what": "sample", ...}.  The front
end is `ufnc -d types` (scanner, parser, checker, type inference: everything
before code generation), and `-d ast` (scanner and parser) beside it; best of
five runs.  nvcc alone is the very nvcc command ufnc ran (ufnc -v --keep),
run again in ufnc's kept directory."""
import argparse
import glob
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

LINES = 10_000


def generate(path, lines=LINES):
    """A module of varied kernels (a device helper and a two-signature
    @vectorize with loops, branches and math calls, about 40 lines each:
    a module has at most 768 names); exactly `lines` lines."""
    out = ['"""A generated module for timing the front end."""', 'import math',
           'from numba import vectorize, cuda', '', 'SCALE = 2.5', '']
    k = 0
    while True:
        body = ['', '', '@cuda.jit(device=True)', 'def helper%d(a, b):' % k,
                '    t = a * SCALE + b % 7.0' if k % 2 else '    t = math.sqrt(abs(a)) + b',
                '    return t, a - b', '', '',
                "@vectorize(['float32(float32, float32)', 'float64(float64, float64)'], target='cuda')",
                'def kernel%d(x, y):' % k, '    """Kernel %d."""' % k,
                '    p, q = helper%d(x, y)' % k, '    acc = 0.0', '    n = 0']
        for j in range(6):
            body += ['    for i in range(%d):' % (j + k % 3 + 1),
                     '        if p > q and i %% %d == 0:' % (j + 2),
                     '            acc += math.exp(-p * i) / (1.0 + q ** 2)',
                     '        elif p < -%d.5:' % j,
                     '            acc -= math.atan2(p, q + %d.0)' % (j + 1)]
        body += ['        else:', '            acc += min(p, q) * %d' % (k % 11), '            n += 1',
                 '    return acc / (n + 1) if acc == acc else 0.0']
        if len(out) + len(body) > lines - 1:
            break
        out += body
        k += 1
    while len(out) < lines:
        out.append('# padding')
    with open(path, 'w') as f:
        f.write('\n'.join(out) + '\n')
    return k


def best_of(cmd, runs=5, cwd=None):
    best = None
    for _ in range(runs):
        t0 = time.perf_counter()
        r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=cwd)
        dt = time.perf_counter() - t0
        if r.returncode != 0:
            raise RuntimeError('%s failed: %s' % (cmd[0], r.stderr.decode()[-400:]))
        best = dt if best is None else min(best, dt)
    return best


def frontend(ufnc, tmp):
    path = os.path.join(tmp, 'gen10k.ufn')
    kernels = generate(path)
    line = {'what': 'frontend', 'lines': LINES, 'kernels': kernels, 'signatures': 2 * kernels,
            'parse_s': best_of([ufnc, '-w', '-d', 'ast', path]),
            'check_s': best_of([ufnc, '-w', '-d', 'types', path]),
            'host_c_s': best_of([ufnc, '-w', '--target=host', path, '-o', os.path.join(tmp, 'g.c')], 3)}
    print(json.dumps(line), flush=True)


def sample(ufnc, src, tmp, arch, runs):
    """Best of `runs` of ufnc and of its nvcc command alone, interleaved."""
    mod = os.path.splitext(os.path.basename(src))[0]
    line = {'what': 'sample', 'sample': mod, 'arch': arch or 'default', 'runs': runs}
    for _ in range(runs):
        t = sample_once(ufnc, src, tmp, arch)
        if 'error' in t:
            print(json.dumps({**line, **t}))
            return
        for k in ('ufnc_s', 'nvcc_s'):
            if k in t:
                line[k] = min(line.get(k, t[k]), t[k])
        line['gencode'] = t.get('gencode')
    print(json.dumps(line), flush=True)


def sample_once(ufnc, src, tmp, arch):
    mod = os.path.splitext(os.path.basename(src))[0]
    cmd = [ufnc, '-w', '-v', '--keep', '--no-cache', src, '-o', os.path.join(tmp, mod + '.o')]
    if arch:
        cmd.insert(1, '--arch=' + arch)
    t0 = time.perf_counter()
    r = subprocess.run(cmd, capture_output=True, text=True)
    whole = time.perf_counter() - t0
    if r.returncode != 0:
        return {'error': r.stderr[-400:]}
    nvcc = None
    kept = None
    for l in r.stderr.splitlines():
        m = re.match(r'\(cd (\S+) && (.*)\)$', l)
        if m:
            kept = m.group(1)
            argv = shlex.split(m.group(2))
            if os.path.basename(argv[0]).startswith('nvcc') and '--fatbin' in argv:
                nvcc = argv
    line = {'ufnc_s': whole}
    if nvcc and kept:
        out = os.path.join(kept, 'again.fatbin')
        i = nvcc.index('-o')
        nvcc[i + 1] = out
        line['nvcc_s'] = best_of(nvcc, 1, cwd=kept)
        line['gencode'] = sum(1 for a in nvcc if a.startswith('-gencode') or a.startswith('arch='))
    if kept and kept.startswith(tempfile.gettempdir()):
        shutil.rmtree(kept, ignore_errors=True)
    return line


def main(argv):
    ap = argparse.ArgumentParser()
    ap.add_argument('ufnc')
    ap.add_argument('samples')
    ap.add_argument('--arch', default='', help='GPU list for ufnc (default: its own)')
    ap.add_argument('--runs', type=int, default=1)
    ap.add_argument('--only', default='', help='samples, comma-separated')
    ap.add_argument('--no-frontend', action='store_true')
    a = ap.parse_args(argv)
    only = set(filter(None, a.only.split(',')))
    tmp = tempfile.mkdtemp(prefix='bench-compile-')
    try:
        if not a.no_frontend:
            frontend(a.ufnc, tmp)
        if shutil.which('nvcc') or os.environ.get('NVCC'):
            for src in sorted(glob.glob(os.path.join(a.samples, '*.ufn'))):
                if not only or os.path.splitext(os.path.basename(src))[0] in only:
                    sample(a.ufnc, src, tmp, a.arch, a.runs)
        else:
            print(json.dumps({'what': 'sample', 'skipped': 'no nvcc'}))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == '__main__':
    main(sys.argv[1:])
