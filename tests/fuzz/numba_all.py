"""numba_all.py - run the numba_run.py of several differential-test
directories in one Python process (importing numba takes seconds); each
directory gets its numba.txt."""
import importlib.util
import os
import sys

for d in sys.argv[1:]:
    try:
        spec = importlib.util.spec_from_file_location(
            'numba_run_' + os.path.basename(d), os.path.join(d, 'numba_run.py'))
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        lines = mod.run(d)
    except Exception as e:  # the comparison reports it
        lines = ['module numba-error %s: %s' % (type(e).__name__, e)]
    with open(os.path.join(d, 'numba.txt'), 'w') as f:
        for line in lines:
            f.write(line + '\n')
