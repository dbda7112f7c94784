"""Turn a bench run (bench/run.sh's work directory) into bench/RESULTS.md,
bench/throughput.png and bench/results/<date>-<host>.json.

    python3 report.py WORKDIR BENCHDIR

Timings: of all rounds, the one with the best median per (workload,
implementation, n) is kept (the machine is shared: interleaving spreads
noise, the best median of several rounds discards the worst of it); the
spread of ufnc's medians across rounds is reported as the noise.  A timing
counts only if its implementation passed the cross-check (check.py).
The analysis section comes verbatim from bench/analysis.md, the thread
engine's section from bench/engine.md (make bench-engine), the model of
several GPUs from bench/scaling.md (bench/python/scaling.py), the compile
time of the architectures from bench/compile-time.md (compile-time.sh)."""
import datetime
import json
import os
import sys

WORKLOADS = ['sqrt', 'arctan2', 'gauss', 'gauss_f32', 'polar', 'l2_norm', 'hidden', 'pulses',
             'zero_suppress']
TITLES = {
    'sqrt': 'sqrt (1 in, 1 out)', 'arctan2': 'arctan2 (2 in, 1 out)',
    'gauss': 'Gaussian pdf, seed source (float64 inside)', 'gauss_f32': 'Gaussian pdf, float32',
    'polar': 'polar gufunc (n, 2)', 'l2_norm': 'l2_norm gufunc (n, 16)',
    'hidden': 'hidden layer, 3 calls over device arrays', 'pulses': 'make_pulses + add, device arrays',
    'zero_suppress': 'zero_suppress int16'}
BYTES = {'sqrt': 8, 'arctan2': 12, 'gauss': 8, 'gauss_f32': 8, 'polar': 16, 'l2_norm': 68,
         'hidden': 28, 'pulses': 20, 'zero_suppress': 4}


def read_jsonl(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [json.loads(l) for l in f if l.strip()]


def ms(t):
    """A time with its unit: 3.62 ms, 431 µs, 95 ns."""
    if t is None:
        return '–'
    if t >= 1e-3:
        return ('%.3g ms' if t < 0.1 else '%.0f ms') % (t * 1e3)
    if t >= 1e-6:
        return '%.3g µs' % (t * 1e6)
    return '%.0f ns' % (t * 1e9)


def ratio(a, b):
    return None if a is None or b is None or b == 0 else a / b


def fmt_ratio(r):
    return '–' if r is None else ('%.2f×' % r if r < 10 else '%.0f×' % r)


def size_label(n):
    e = len(str(n)) - 1
    return '1e%d' % e if n == 10 ** e else str(n)


class Run:
    def __init__(self, work):
        self.machine = (read_jsonl(os.path.join(work, 'machine.json')) or [{}])[0]
        self.check = read_jsonl(os.path.join(work, 'check.jsonl'))
        self.raw = read_jsonl(os.path.join(work, 'c.jsonl')) + read_jsonl(os.path.join(work, 'py.jsonl'))
        self.transfers = read_jsonl(os.path.join(work, 'transfers.jsonl'))
        self.gpu = read_jsonl(os.path.join(work, 'gpu.jsonl'))
        self.compile = read_jsonl(os.path.join(work, 'compile.jsonl'))
        self.failed = {(c['workload'], c['impl']) for c in self.check if not c['ok']}
        self.best, self.spread = {}, {}
        rounds = {}
        for r in self.raw:
            key = (r['workload'], r['impl'], r['n'])
            rounds.setdefault(key, []).append(r['median'])
            if key not in self.best or r['median'] < self.best[key]['median']:
                self.best[key] = r
        for key, meds in rounds.items():
            self.spread[key] = max(meds) / min(meds) if min(meds) > 0 else None

    def counted(self, workload, impl):
        base = 'ufnc-host' if impl.startswith('ufnc') else \
            'numba-par' if impl.startswith('numba-par') else \
            'numpy' if impl.startswith('numpy') else impl
        return (workload, base) not in self.failed

    def t(self, workload, impl, n):
        r = self.best.get((workload, impl, n))
        if r is None or not self.counted(workload, impl):
            return None
        return r['median']

    def impls(self):
        seen = []
        for (w, i, n) in self.best:
            if i not in seen:
                seen.append(i)
        order = ['ufnc', 'ufnc-alloc', 'ufnc-e2e', 'floor', 'numpy', 'numpy-out', 'numba-cpu']
        return [i for i in order if i in seen] + sorted(i for i in seen if i not in order)

    def sizes(self, workload):
        return sorted({n for (w, i, n) in self.best if w == workload})

    def numba_par(self):
        return [i for i in self.impls() if i.startswith('numba-par')]

    def best_numba_par(self, w, n):
        ts = [self.t(w, i, n) for i in self.numba_par()]
        ts = [t for t in ts if t is not None]
        return min(ts) if ts else None


# ---- sections --------------------------------------------------------------------------------

def machine_section(run):
    m = run.machine
    p = m.get('python') or {}
    b = m.get('bench_ufnc') or {}
    layers = sorted({i[len('numba-par-'):] for i in run.numba_par()})
    rows = [
        ('date (UTC)', m.get('date')), ('host', m.get('host')),
        ('CPU', '%s (family/model %s), %s CPUs, AVX-512: %s' % (m.get('cpu'), m.get('cpu_family_model'),
                                                              m.get('nproc'), m.get('avx512'))),
        ('transparent huge pages', m.get('thp')), ('kernel', m.get('kernel')),
        ('glibc / gcc', '%s / %s' % (m.get('glibc'), m.get('gcc'))), ('nvcc', m.get('nvcc')),
        ('ufnc', '%s (git %s), host backend: %s threads, ISA %s' % (m.get('ufnc'), m.get('git'),
                                                                    b.get('threads'), b.get('isa'))),
        ('float32 Gaussian built from', b.get('gauss_f32')),
        ('Python / NumPy / Numba', '%s / %s / %s' % (p.get('python'), p.get('numpy'), p.get('numba'))),
        ('NumPy SIMD baseline / dispatch', '%s / %s' % (' '.join(p.get('numpy_simd_baseline', [])),
                                                       ' '.join(p.get('numpy_simd_dispatch', [])))),
        ('Numba SVML', p.get('numba_svml')),
        ('Numba threading layers measured', ', '.join(layers) or '–'),
        ('OPENBLAS_CORETYPE / L2_SIZE set', p.get('openblas_env') or 'no'),
        ('rounds', '%s%s' % (m.get('rounds'), ', long mode (1e8)' if m.get('long') else '')),
    ]
    out = ['## Machine and versions', '', '| | |', '|---|---|']
    out += ['| %s | %s |' % (k, v) for k, v in rows]
    return out


def check_section(run):
    out = ['## Outputs checked before timing', '',
           'Each implementation ran on the same inputs (n = %s, odd so every loop tail runs) and is '
           'compared with a float64 reference that keeps the float32 rounding the kernel\'s typing '
           'prescribes at exactly rounded steps, so the error is the math library\'s. Max error in '
           'float32 ulps (int16: differing elements; *at scale*: ulps of the array\'s largest value, '
           'for the seeds\' formulas that cancel near zero). A timing counts only if its check passed.'
           % (run.check[0].get('n', '?') if run.check else '?'), '']
    impls = []
    for c in run.check:
        if c['impl'] not in impls:
            impls.append(c['impl'])
    out += ['| workload | tolerance | ' + ' | '.join(impls) + ' |', '|---|---|' + '---|' * len(impls)]
    for w in WORKLOADS:
        cs = {c['impl']: c for c in run.check if c['workload'] == w}
        if not cs:
            continue
        any_c = next(iter(cs.values()))
        tol = '%s%s' % (any_c.get('tolerance'), ' at scale' if any_c.get('at_scale') else '')
        cells = []
        for i in impls:
            c = cs.get(i)
            cells.append('–' if not c else ('%.2f' % c['max_ulp'] + ('' if c['ok'] else ' **FAIL**'))
                         if 'max_ulp' in c else 'FAIL (%s)' % c.get('why'))
        out.append('| %s | %s | %s |' % (w, tol, ' | '.join(cells)))
    return out


def headline(run, n):
    out = ['| workload | ufnc | floor | NumPy | NumPy out= | Numba cpu | ' +
           ' | '.join('Numba par (%s)' % i[len('numba-par-'):] for i in run.numba_par()) +
           ' | NumPy / ufnc | best Numba par / ufnc | ufnc / floor |',
           '|---|' + '---|' * (8 + len(run.numba_par()))]
    for w in WORKLOADS:
        u = run.t(w, 'ufnc', n)
        if u is None and run.t(w, 'floor', n) is None:
            continue
        cells = [ms(u), ms(run.t(w, 'floor', n)), ms(run.t(w, 'numpy', n)), ms(run.t(w, 'numpy-out', n)),
                 ms(run.t(w, 'numba-cpu', n))] + [ms(run.t(w, i, n)) for i in run.numba_par()]
        cells += [fmt_ratio(ratio(run.t(w, 'numpy', n), u)), fmt_ratio(ratio(run.best_numba_par(w, n), u)),
                  fmt_ratio(ratio(u, run.t(w, 'floor', n)))]
        out.append('| %s | %s |' % (TITLES[w], ' | '.join(cells)))
    return out


def targets_section(run):
    E7, E8 = 10 ** 7, 10 ** 8
    rows = []

    def add(goal, measured, met):
        rows.append('| %s | %s | %s |' % (goal, measured, '–' if met is None else ('**met**' if met else '**missed**')))

    for w, k, label in (('arctan2', 3, 'arctan2'), ('gauss', 8, 'Gaussian pdf (seed source)'),
                        ('gauss_f32', 8, 'Gaussian pdf (float32)'), ('sqrt', 1.5, 'sqrt')):
        r = ratio(run.t(w, 'numpy', E7), run.t(w, 'ufnc', E7))
        ro = ratio(run.t(w, 'numpy-out', E7), run.t(w, 'ufnc', E7))
        extra = '' if ro is None else ' (vs NumPy out=: %s)' % fmt_ratio(ro)
        add('1e7 %s: ≥ %g× NumPy' % (label, k), fmt_ratio(r) + extra, None if r is None else r >= k)
    for w in WORKLOADS:
        r = ratio(run.best_numba_par(w, E7) or run.best_numba_par(w, 10 ** 6), run.t(w, 'ufnc', E7) or run.t(w, 'ufnc', 10 ** 6))
        n = E7 if run.t(w, 'ufnc', E7) else 10 ** 6
        add('%s %s: ≥ 1× best Numba parallel' % (size_label(n), TITLES[w]), fmt_ratio(r), None if r is None else r >= 1)
    for w in WORKLOADS:
        u, f = run.t(w, 'ufnc', E8), run.t(w, 'floor', E8)
        if u is not None and f is not None:
            r = u / f
            add('1e8 %s: ≤ 1.25× memory floor' % TITLES[w], '%.2f×' % r, r <= 1.25)
    if not any('1e8' in r for r in rows):
        add('1e8: ≤ 1.25× memory floor', 'not run (make bench BENCH_LONG=1)', None)
    ok_gpu = [g for g in run.gpu if 'regs' in g]
    if ok_gpu:
        spills = [g['kernel'] for g in ok_gpu if g.get('spill_stores') or g.get('spill_loads')]
        helpers = ['%s\'s %s (%d B)' % (g.get('sample'), g['kernel'], g['spill_stores'])
                   for g in run.gpu if 'regs' not in g and 'error' not in g and g.get('spill_stores')]
        add('CUDA: no spills in any sample kernel (%d kernels)' % len(ok_gpu),
            ('none' if not spills else ', '.join(spills)) +
            ('; a called device function spills (recursion keeps its frame on the stack): ' +
             ', '.join(helpers) if helpers else ''), not spills)
        simple = [g for g in ok_gpu if g['form'] == 'contig' and g.get('inputs', 9) <= 2]
        over = ['%s (%d)' % (g['kernel'], g['regs']) for g in simple if g['regs'] > 32]
        add('CUDA: ≤ 32 registers for simple ufuncs (contig kernels, ≤ 2 inputs: %d)' % len(simple),
            'all ≤ 32' if not over else 'over: ' + ', '.join(over), not over)
        contig = [g for g in ok_gpu if g['form'] == 'contig']
        no128 = ['%s' % g['kernel'] for g in contig if not g.get('vector128')]
        add('CUDA: 128-bit loads and stores in the contiguous path (%d contig kernels)' % len(contig),
            'all' if not no128 else '%d of %d; not: %s' % (len(contig) - len(no128), len(contig), ', '.join(no128)),
            not no128)
    fe = [c for c in run.compile if c.get('what') == 'frontend']
    if fe:
        add('front end on a 10,000-line module < 1 s (issue 2)', '%.3f s' % fe[0]['check_s'], fe[0]['check_s'] < 1)
    return ['## Targets of issue 5', '', '| target | measured | |', '|---|---|---|'] + rows


def sweep_section(run):
    out = ['## Every size', '',
           'Median of the best round (min and p90 of that round in the JSON). GB/s counts '
           'algorithmic bytes (inputs + outputs once) at ufnc\'s median. 1e5–1e6 are cache-resident.', '']
    impls = run.impls()
    for w in WORKLOADS:
        sizes = run.sizes(w)
        if not sizes:
            continue
        out += ['### %s' % TITLES[w], '', '| n | ' + ' | '.join(impls) + ' | ufnc GB/s | ufnc spread |',
                '|---|' + '---|' * (len(impls) + 2)]
        for n in sizes:
            u = run.t(w, 'ufnc', n)
            gbs = '%.1f' % (BYTES[w] * n / u / 1e9) if u else '–'
            sp = run.spread.get((w, 'ufnc', n))
            out.append('| %s | %s | %s | %s |' % (size_label(n), ' | '.join(ms(run.t(w, i, n)) for i in impls), gbs,
                                                  '–' if sp is None else '%.2f' % sp))
        out.append('')
    return out


def gpu_section(run):
    out = ['## CUDA kernels, statically (nvcc/ptxas, sm_90, no GPU)', '']
    if any('skipped' in g for g in run.gpu) or not run.gpu:
        return out + ['skipped: no nvcc', '']
    out += ['Registers, spills and stack from ptxas; global accesses by bits per instruction from '
            'the PTX; 128-bit = every input of the contiguous kernel is loaded and its output stored '
            'with 128-bit accesses. H100 time at 1e7 by perf.md\'s model: device arrays '
            '5 µs + bytes/(0.9 × 3.35 TB/s); host arrays max(in, out)/50 GB/s + one 16 MB chunk + 20 µs.', '',
            '| kernel | signature | regs | spill st/ld | stack | loads (bits:count) | stores | 128-bit | B/elem | FP64 ops | H100 dev 1e7 | H100 host 1e7 |',
            '|---|---|---|---|---|---|---|---|---|---|---|---|']
    for g in run.gpu:
        if 'error' in g:
            out.append('| %s | error: %s |' % (g.get('sample'), g['error'][:80]))
            continue
        if 'regs' not in g:
            # ptxas lists non-inlined device functions (recursion, CUDA's
            # slow paths of pow and trig reduction) without registers: their
            # frame and spills count in the calling kernel's
            out.append('| %s (%s; device function) | | – | %d/%d | %d | | | | | | | |' % (
                g['kernel'], g.get('sample'), g.get('spill_stores', 0), g.get('spill_loads', 0), g.get('stack', 0)))
            continue
        fmt = lambda d: ' '.join('%s:%s' % (k, v) for k, v in sorted(d.items(), key=lambda kv: -int(kv[0]))) or '–'
        out.append('| %s | %s | %d | %d/%d | %d | %s | %s | %s | %s | %d | %s | %s |' % (
            g['kernel'], g.get('signature', ''), g['regs'], g.get('spill_stores', 0), g.get('spill_loads', 0),
            g.get('stack', 0), fmt(g['loads_by_bits']), fmt(g['stores_by_bits']),
            {True: 'yes', False: 'no'}.get(g.get('vector128'), ''), g.get('bytes_per_element', ''),
            g.get('fp64_ops', 0),
            '%.0f µs' % (g['h100_device_1e7_s'] * 1e6) if 'h100_device_1e7_s' in g else '',
            '%.2f ms' % (g['h100_host_1e7_s'] * 1e3) if 'h100_host_1e7_s' in g else ''))
    seed = {'polar__gpu_arctan2__f32_f32__contig': 36.8, 'sqrt__gpu_sqrt__f32__contig': 24.7}
    out += ['', '| seed GPU call, 1e7 float32 host arrays | seed (Numba, Colab) | H100 model, ufnc host arrays | H100 model, device arrays |',
            '|---|---|---|---|']
    for g in run.gpu:
        if g.get('kernel') in seed:
            out.append('| %s | %.1f ms | %.2f ms (%.0f× less) | %.0f µs (%.0f× less) |' % (
                g['function'], seed[g['kernel']], g['h100_host_1e7_s'] * 1e3,
                seed[g['kernel']] / (g['h100_host_1e7_s'] * 1e3), g['h100_device_1e7_s'] * 1e6,
                seed[g['kernel']] / (g['h100_device_1e7_s'] * 1e3)))
    return out + ['']


def transfer_section(run):
    out = ['## Transfers of the seed pipelines (sim backend, trace hook)', '',
           'Bytes between host and device counted by the runtime\'s trace hook on the sim backend '
           '(the real CUDA code path against the simulated driver); the minimum is each input '
           'once in and the result once out.', '',
           '| pipeline | n | H2D bytes (copies) | D2H bytes (copies) | H2D / min | D2H / min | launches | device allocations |',
           '|---|---|---|---|---|---|---|---|']
    for t in run.transfers:
        out.append('| %s | %s | %d (%d) | %d (%d) | %.2f | %.2f | %d | %d |' % (
            t['what'], size_label(t['n']), t['h2d_bytes'], t['h2d_copies'], t['d2h_bytes'], t['d2h_copies'],
            t['h2d_bytes'] / t['min_h2d_bytes'], t['d2h_bytes'] / t['min_d2h_bytes'], t['launches'], t['allocs']))
    return out + ['']


def compile_section(run):
    out = ['## Compile time', '']
    fe = [c for c in run.compile if c.get('what') == 'frontend']
    if fe:
        f = fe[0]
        out += ['Front end on a generated %d-line module (%d kernels, %d signatures), best of 5: '
                'scanner + parser (`ufnc -d ast`) **%.3f s**; + checker and type inference (`ufnc -d types`) '
                '**%.3f s**; everything up to the host C file (`--target=host -o x.c`) %.3f s.'
                % (f['lines'], f['kernels'], f['signatures'], f['parse_s'], f['check_s'], f['host_c_s']), '']
    ss = [c for c in run.compile if c.get('what') == 'sample' and 'ufnc_s' in c]
    if ss:
        out += ['Per sample: the whole `ufnc x.ufn -o x.o` (front end, both C compilations, nvcc, '
                'the final link) against the nvcc command it runs, run alone in ufnc\'s kept directory; '
                'best of the runs given, interleaved.', '',
                '| sample | GPU list | runs | ufnc | nvcc alone | rest of ufnc |', '|---|---|---|---|---|---|']
        for c in ss:
            nv = c.get('nvcc_s')
            out.append('| %s | %s | %s | %.2f s | %s | %s |' % (
                c['sample'], c.get('arch'), c.get('runs', 1), c['ufnc_s'], '%.2f s' % nv if nv else '–',
                '%.2f s' % (c['ufnc_s'] - nv) if nv else '–'))
    elif any('skipped' in c for c in run.compile):
        out.append('ufnc vs nvcc: skipped: no nvcc')
    return out + ['']


def noise_section(run):
    sp = [v for (w, i, n), v in run.spread.items() if i == 'ufnc' and v]
    if not sp:
        return []
    sp.sort()
    return ['## Noise', '',
            'The machine is a VM whose neighbours are not ours%s. '
            'Across %s rounds the medians of the same ufnc measurement varied by a factor of %.2f '
            '(median over all measurements) up to %.2f (worst, small sizes measured in '
            'microseconds); the tables keep each measurement\'s best round.'
            % (' (load average at the start: %s)' % run.machine['loadavg'] if 'loadavg' in run.machine else '',
               run.machine.get('rounds'), sp[len(sp) // 2], sp[-1]), '']


def plot(run, path):
    try:
        import matplotlib
        matplotlib.use('Agg')
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    fig, axes = plt.subplots(3, 3, figsize=(15, 12))
    styles = {'ufnc': ('C0', '-', 2.5), 'floor': ('k', ':', 1.5), 'numpy': ('C1', '-', 1.5),
              'numba-cpu': ('C2', '--', 1.2)}
    for ax, w in zip(axes.flat, WORKLOADS):
        sizes = run.sizes(w)
        lines = list(styles) + run.numba_par()
        for i in lines:
            pts = [(n, BYTES[w] * n / run.t(w, i, n) / 1e9) for n in sizes if run.t(w, i, n)]
            if not pts:
                continue
            c, ls, lw = styles.get(i, ('C3' if 'workqueue' in i else 'C4', '-.', 1.2))
            ax.plot([p[0] for p in pts], [p[1] for p in pts], color=c, linestyle=ls, linewidth=lw,
                    marker='o', markersize=3, label=i)
        ax.set_xscale('log')
        ax.set_yscale('log')
        ax.set_title(TITLES[w], fontsize=10)
        ax.set_xlabel('n (loop items)')
        ax.set_ylabel('GB/s (algorithmic bytes)')
        ax.grid(True, which='both', alpha=0.3)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=7)
    fig.suptitle('ufnc host backend vs NumPy, Numba and the memory floor (%s, %s CPUs; best median of %s rounds)'
                 % (run.machine.get('cpu'), run.machine.get('nproc'), run.machine.get('rounds')))
    fig.tight_layout()
    fig.savefig(path, dpi=80)
    return True


def main(work, bench):
    run = Run(work)
    date = (run.machine.get('date') or datetime.datetime.utcnow().isoformat())[:10]
    os.makedirs(os.path.join(bench, 'results'), exist_ok=True)
    stamp = '%s-%s' % (date, run.machine.get('host', 'host'))
    with open(os.path.join(bench, 'results', stamp + '.json'), 'w') as f:
        json.dump({'machine': run.machine, 'check': run.check, 'timings': run.raw,
                   'transfers': run.transfers, 'gpu': run.gpu, 'compile': run.compile}, f, indent=1)
    have_plot = plot(run, os.path.join(bench, 'throughput.png'))
    analysis = os.path.join(bench, 'analysis.md')
    lines = ['# ufnc benchmark results', '',
             'Generated by `make bench` (bench/run.sh, bench/python/report.py) on %s; raw data in '
             '`bench/results/%s.json`. How to run and what each part measures: bench/README.md. '
             'Times are medians in milliseconds of the best of %s interleaved rounds.'
             % (run.machine.get('date'), stamp, run.machine.get('rounds')), '']
    lines += targets_section(run) + ['']
    if os.path.exists(analysis):
        with open(analysis) as f:
            lines += [f.read().rstrip(), '']
    for part in ('engine.md', 'methods.md', 'pipeline.md', 'scaling.md'):  # make bench-engine,
        path = os.path.join(bench, part)         # bench-methods, bench-pipeline; scaling.py (a model)
        if os.path.exists(path):
            with open(path) as f:
                lines += [f.read().rstrip(), '']
    for n, label in ((10 ** 7, '1e7'), (10 ** 8, '1e8'), (10 ** 6, '1e6')):
        if any(run.t(w, 'ufnc', n) for w in WORKLOADS):
            lines += ['## At n = %s' % label, ''] + headline(run, n) + ['']
    if have_plot:
        lines += ['![throughput against size](throughput.png)', '']
    lines += check_section(run) + [''] + sweep_section(run) + gpu_section(run) + transfer_section(run)
    lines += compile_section(run)
    ctime = os.path.join(bench, 'compile-time.md')    # bench/compile-time.sh (issue 19)
    if os.path.exists(ctime):
        with open(ctime) as f:
            lines += [f.read().rstrip(), '']
    lines += noise_section(run) + machine_section(run) + ['']
    with open(os.path.join(bench, 'RESULTS.md'), 'w') as f:
        f.write('\n'.join(lines))


if __name__ == '__main__':
    main(sys.argv[1], sys.argv[2])
