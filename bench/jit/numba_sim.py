#!/usr/bin/python3
"""Time seed 002's add kernel (bench/jit/jit_bench.ufn's add_kernel) on
Numba's CUDA simulator, launched as jit_bench.c's 'sim' part launches it
on ufnc's sim backend: n float32 elements, 128 threads per block.

    NUMBA_ENABLE_CUDASIM=1 python3 bench/jit/numba_sim.py N
"""
import importlib.machinery
import importlib.util
import os
import sys
import time

os.environ.setdefault('NUMBA_ENABLE_CUDASIM', '1')
import numpy as np  # noqa: E402

path = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'jit_bench.ufn')
loader = importlib.machinery.SourceFileLoader('jit_bench', path)
spec = importlib.util.spec_from_loader('jit_bench', loader)
mod = importlib.util.module_from_spec(spec)
loader.exec_module(mod)

n = int(sys.argv[1]) if len(sys.argv) > 1 else 10000
x = np.arange(n, dtype=np.float32)
y = np.ones(n, np.float32)
out = np.zeros(n, np.float32)
times = []
for _ in range(3):
    t0 = time.perf_counter()
    mod.add_kernel[(n + 127) // 128, 128](x, y, out)
    times.append((time.perf_counter() - t0) * 1e3)
assert (out == x + y).all()
print('numba-sim add_kernel n=%d: %.3f ms' % (n, sorted(times)[1]))
