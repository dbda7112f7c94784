"""bench/pipeline.md from the JSON lines of bench/pipeline/run.sh (stdin):
the hidden layer three calls, composed and pipelined against the one-pass
floor and NumPy (issue 19).  report.py puts the file into RESULTS.md."""
import json
import os
import sys


def main():
    ufnc, numpy = {}, {}
    for line in sys.stdin:
        line = line.strip()
        if not line.startswith('{'):
            continue
        r = json.loads(line)
        if 'numpy' in r:
            numpy[r['n']] = r
        else:
            ufnc[(r['n'], r['threads'], r.get('clock', 'wall'))] = r
    load = os.getloadavg()[0]
    out = ['## Pipelines without passes: the hidden layer (issue 19)', '',
           '`make bench-pipeline` (bench/pipeline/): normalize -> weigh -> activate on float32 on the host '
           'backend, best of the interleaved rounds in ms: three calls (two full intermediates), '
           '`hidden()` composed into one kernel (ufn(7), Composition), the three calls as a deferred '
           'pipeline with both intermediates `ufn_pipeline_temp` (ufn(3), PIPELINES), and the floor: one '
           'threaded pass c = a + b that moves the bytes every way must move (two inputs, one output); '
           'and "in cache": `hidden()` over the first 256K elements again and again, n in all, the '
           'arithmetic alone (the other floor: no way beats its arithmetic). '
           'The three ways agree bit for bit (checked before timing). NumPy: the same steps with `out=` '
           'arrays (its best case), %s. Clock: wall, or cpu: one thread\'s CPU time (`BENCH_CLOCK=cpu`, '
           'one thread), which time given to other programs on a loaded machine does not inflate.' % next((r['numpy_version'] for r in numpy.values()
                                                  if r.get('numpy_version')), 'not installed'), '',
           '| n | threads | clock | three calls | composed | pipeline | floor | three / floor | composed / floor '
           '| pipeline / floor | in cache | in cache / floor | NumPy | NumPy / pipeline |',
           '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|']
    for key in sorted(ufnc):
        n, threads, clock = key
        r, p = ufnc[key], numpy.get(n, {}).get('numpy') if clock == 'wall' else None
        f = r['floor']
        out.append('| %.0e | %d | %s | %.1f | %.1f | %.1f | %.1f | %.2fx | %.2fx | %.2fx | %.1f | %.2fx | %s | %s |' % (
            n, threads, clock, r['three'], r['composed'], r['pipeline'], f, r['three'] / f,
            r['composed'] / f, r['pipeline'] / f, r['cached'], r['cached'] / f, '%.1f' % p if p else '-',
            '%.1fx' % (p / r['pipeline']) if p else '-'))
    out.append('')
    for key in sorted(ufnc):
        n, threads, clock = key
        r = ufnc[key]
        verdict = ['%s %.2fx: %s' % (way, r[way] / r['floor'], 'met' if r[way] <= 1.2 * r['floor'] else 'missed')
                   for way in ('composed', 'pipeline')]
        out.append('- %.0e, %d thread%s, %s clock, aim within 1.2x of one pass: %s.' % (
            n, threads, '' if threads == 1 else 's', clock, '; '.join(verdict)))
    out += ['', 'Load average when written: %.1f on %d CPUs (other work shares them: compare '
            'columns of one row, not rows of different runs).' % (load, os.cpu_count() or 0), '']
    sys.stdout.write('\n'.join(out))


main()
