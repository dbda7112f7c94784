"""Facts about the Python side of the machine, as JSON: NumPy and Numba
versions, NumPy's SIMD dispatch, Numba's SVML and threading layers, and the
OpenBLAS variables that slow a current NumPy on some CPUs (recorded, not
changed)."""
import json
import os
import sys


def facts():
    import numpy as np
    import numba
    f = {'python': sys.version.split()[0], 'numpy': np.__version__, 'numba': numba.__version__,
         'openblas_env': {k: os.environ[k] for k in ('OPENBLAS_CORETYPE', 'OPENBLAS_L2_SIZE')
                          if k in os.environ}}
    try:
        from numpy.core._multiarray_umath import __cpu_baseline__, __cpu_dispatch__, __cpu_features__
        f['numpy_simd_baseline'] = list(__cpu_baseline__)
        f['numpy_simd_dispatch'] = [d for d in __cpu_dispatch__ if __cpu_features__.get(d)]
    except ImportError:
        pass
    f['numba_svml'] = bool(getattr(numba.config, 'USING_SVML', False))
    layers = {}
    for name in ('tbb', 'omp', 'workqueue'):
        try:
            __import__('numba.np.ufunc.%spool' % name)
            layers[name] = True
        except Exception:
            layers[name] = False
    f['numba_layers_importable'] = layers
    return f


if __name__ == '__main__':
    print(json.dumps(facts()))
