#!/usr/bin/python3
"""np.add.reduce over the values bench/methods/methods.c reduces: one line
`numpy N MEDIAN_SECONDS MIN_SECONDS RESULT_HEX VERSION` (3 warm-ups, >= 7
calls and 0.3 s, as the C harness's policy)."""
import sys
import time

import numpy as np

n = int(sys.argv[1]) if len(sys.argv) > 1 else 10 ** 8
x = ((np.arange(n, dtype=np.int64) * 7919) % 1999 - 999).astype(np.float32) / np.float32(7)
for _ in range(3):
    r = np.add.reduce(x)
times = []
start = time.perf_counter()
while len(times) < 7 or time.perf_counter() - start < 0.3:
    t = time.perf_counter()
    r = np.add.reduce(x)
    times.append(time.perf_counter() - t)
times.sort()
mant, exp = float(r).hex().split('p')     # as C's %a: no trailing zeros
print('numpy %d %.6f %.6f %sp%s %s' % (n, times[len(times) // 2], times[0],
                                       mant.rstrip('0').rstrip('.'), exp, np.__version__))
