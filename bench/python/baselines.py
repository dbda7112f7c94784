"""Time NumPy and Numba on the seeds' workloads; one JSON line per result.

    python3 baselines.py time [--sizes 1e3,...] [--long] [--only a,b] [--round R]
                              [--impls numpy,numba-cpu,numba-par]

Run with the Numba threading layer chosen by NUMBA_THREADING_LAYER (the
layer is fixed per process, so bench/run.sh runs one process per layer);
the layer actually used is recorded in every numba-par line."""
import argparse
import json
import sys

import kernels
import timing

DEFAULT_SIZES = [1e3, 1e4, 1e5, 1e6, 1e7]
# the largest n of each workload in the default sweep (bench/harness/workloads.c)
MAX_N = {'l2_norm': 1e6}
WORKLOADS = list(kernels.NUMBA_SAMPLES)


def threading_layer():
    import numba
    try:
        return numba.threading_layer()
    except ValueError:          # no parallel region has run yet
        return None


def run_one(workload, n, impls_wanted, round_no, out):
    inputs = kernels.make_inputs(workload, n)
    impls = {}
    if 'numpy' in impls_wanted:
        impls.update(kernels.numpy_impls(workload, inputs))
    if 'numba-cpu' in impls_wanted:
        impls['numba-cpu'] = kernels.numba_impl(workload, 'cpu', inputs)[0]
    if 'numba-par' in impls_wanted:
        impls['numba-par'] = kernels.numba_impl(workload, 'parallel', inputs)[0]
    results = timing.measure(impls)
    layer = threading_layer()
    for name, st in results.items():
        line = {'source': 'python', 'round': round_no, 'workload': workload, 'n': n,
                'impl': name + ('-' + layer if name == 'numba-par' and layer else ''), **st}
        out.write(json.dumps(line) + '\n')
        out.flush()


def main(argv):
    ap = argparse.ArgumentParser()
    ap.add_argument('command', choices=['time'])
    ap.add_argument('--sizes', default=','.join('%g' % s for s in DEFAULT_SIZES))
    ap.add_argument('--long', action='store_true')
    ap.add_argument('--only', default='')
    ap.add_argument('--round', type=int, default=0)
    ap.add_argument('--impls', default='numpy,numba-cpu,numba-par')
    a = ap.parse_args(argv)
    sizes = [int(float(s)) for s in a.sizes.split(',')]
    if a.long and max(sizes) < 1e8:
        sizes.append(int(1e8))
    only = set(filter(None, a.only.split(',')))
    wanted = set(a.impls.split(','))
    for n in sizes:
        for w in WORKLOADS:
            limit = MAX_N.get(w, 1e7) * (10 if a.long else 1)
            if (not only or w in only) and n <= limit:
                run_one(w, n, wanted, a.round, sys.stdout)


if __name__ == '__main__':
    main(sys.argv[1:])
