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
        (numpy if 'numpy' in r else ufnc)[r['n']] = r
    load = os.getloadavg()[0]
    out = ['## Pipelines without passes: the hidden layer (issue 19)', '',
           '`make bench-pipeline` (bench/pipeline/): normalize -> weigh -> activate on float32 on the host '
           'backend, best of the interleaved rounds in ms: three calls (two full intermediates), '
           '`hidden()` composed into one kernel (ufn(7), Composition), the three calls as a deferred '
           'pipeline with both intermediates `ufn_pipeline_temp` (ufn(3), PIPELINES), and the floor: one '
           'threaded pass c = a + b that moves the bytes every way must move (two inputs, one output). '
           'The three ways agree bit for bit (checked before timing). NumPy: the same steps with `out=` '
           'arrays (its best case), %s.' % next((r['numpy_version'] for r in numpy.values()
                                                  if r.get('numpy_version')), 'not installed'), '',
           '| n | threads | three calls | composed | pipeline | floor | three / floor | composed / floor '
           '| pipeline / floor | NumPy | NumPy / pipeline |',
           '|---|---|---|---|---|---|---|---|---|---|---|']
    for n in sorted(ufnc):
        r, p = ufnc[n], numpy.get(n, {}).get('numpy')
        f = r['floor']
        out.append('| %.0e | %d | %.1f | %.1f | %.1f | %.1f | %.2fx | %.2fx | %.2fx | %s | %s |' % (
            n, r['threads'], r['three'], r['composed'], r['pipeline'], f, r['three'] / f,
            r['composed'] / f, r['pipeline'] / f, '%.1f' % p if p else '-',
            '%.1fx' % (p / r['pipeline']) if p else '-'))
    out.append('')
    for n in sorted(ufnc):
        r = ufnc[n]
        verdict = ['%s %.2fx: %s' % (way, r[way] / r['floor'], 'met' if r[way] <= 1.2 * r['floor'] else 'missed')
                   for way in ('composed', 'pipeline')]
        out.append('- %.0e, aim within 1.2x of one pass: %s.' % (n, '; '.join(verdict)))
    out += ['', 'Load average when written: %.1f on %d CPUs (other work shares them: compare '
            'columns of one row, not rows of different runs).' % (load, os.cpu_count() or 0), '']
    sys.stdout.write('\n'.join(out))


main()
