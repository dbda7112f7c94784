"""The cross-check that comes before any timing counts.

    python3 check.py DIR

DIR holds what `bench-ufnc check` wrote for each backend (host, sim): the
inputs and ufnc's output of every workload.  On the same inputs this runs
NumPy, Numba cpu and Numba parallel, computes the float64 reference
(kernels.reference) and prints one JSON line per implementation and workload
with its error in float32 ulps and whether it is within kernels.TOLERANCE.
A timing of an implementation counts only if its check passed (report.py)."""
import glob
import json
import os
import sys

import numpy as np

import kernels


def load(dirname, arr):
    a = np.fromfile(os.path.join(dirname, arr['file']), dtype=arr['dtype'])
    return a.reshape(arr['shape'])


def main(dirname):
    manifests = {}
    for path in sorted(glob.glob(os.path.join(dirname, 'manifest.*.jsonl'))):
        with open(path) as f:
            for line in f:
                m = json.loads(line)
                manifests.setdefault(m['workload'], []).append(m)
    failed = False
    for workload, runs in manifests.items():
        inputs = [load(dirname, a) for a in runs[0]['inputs']]
        ref = kernels.reference(workload, inputs)
        tol, at_scale = kernels.TOLERANCE[workload]
        outputs = {}
        for m in runs:
            same = all(np.array_equal(load(dirname, a), b) for a, b in zip(m['inputs'], inputs))
            outputs['ufnc-' + m['backend']] = load(dirname, m['output']) if same else None
        for name, fn in kernels.numpy_impls(workload, inputs).items():
            if name == 'numpy':
                outputs[name] = fn()
        for target in ('cpu', 'parallel'):
            fn, o = kernels.numba_impl(workload, target, inputs)
            fn()
            outputs['numba-' + ('par' if target == 'parallel' else target)] = o
        for name, out in outputs.items():
            if out is None:
                line = {'workload': workload, 'impl': name, 'ok': False, 'why': 'different inputs'}
            else:
                err = kernels.ulp_error(out.reshape(ref.shape), ref, at_scale)
                line = {'workload': workload, 'impl': name, 'n': int(inputs[0].shape[0]),
                        'max_ulp': err, 'tolerance': tol, 'at_scale': at_scale, 'ok': err <= tol}
            failed |= not line['ok']
            print(json.dumps(line), flush=True)
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1]))
