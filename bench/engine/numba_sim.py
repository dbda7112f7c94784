"""numba_sim.py - the seed's add kernel in Numba's CUDA simulator: prints the
nanoseconds per element (per CUDA thread) for bench/engine/engine.c to
compare with.  Needs Debian's python3-numba; prints 0 without it.

The kernel and launch are engine.c's: float32, a grid-stride loop, blocks of
256 threads covering the array once, host arrays copied in and out."""
import os
import sys
import time

os.environ['NUMBA_ENABLE_CUDASIM'] = '1'
try:
    import numpy as np
    from numba import cuda
except ImportError:
    print(0)
    sys.exit(0)


@cuda.jit
def add_kernel(x, y, out):
    start = cuda.grid(1)
    stride = cuda.gridsize(1)
    for i in range(start, x.shape[0], stride):
        out[i] = x[i] + y[i]


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 10000
    x = np.zeros(n, dtype=np.float32)
    y = np.zeros(n, dtype=np.float32)
    out = np.zeros(n, dtype=np.float32)
    blocks = (n + 255) // 256
    t0 = time.perf_counter()
    add_kernel[blocks, 256](x, y, out)
    print('%.0f' % ((time.perf_counter() - t0) / n * 1e9))


main()
