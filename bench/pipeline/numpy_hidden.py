"""The hidden layer in NumPy 2.x for bench/pipeline: the seed's three steps
on float32 arrays, written as the seed writes them (four exps), with out=
arrays preallocated (NumPy's best case), best of BENCH_ROUNDS; one JSON line
per size on the command line."""
import json
import os
import sys
import time

import numpy as np


def layer(g, w, t1, t2, out, e1, e2):
    np.divide(g, np.float32(255), out=t1)
    np.multiply(t1, w, out=t2)
    np.exp(t2, out=e1)
    np.negative(t2, out=out)
    np.exp(out, out=e2)
    np.subtract(e1, e2, out=out)
    np.add(e1, e2, out=e1)
    np.divide(out, e1, out=out)


def main():
    rounds = int(os.environ.get("BENCH_ROUNDS", "5"))
    for arg in sys.argv[1:]:
        n = int(float(arg))
        i = np.arange(n)
        g = (i % 256).astype(np.float32)
        w = (np.float32(0.5) + (i % 7).astype(np.float32) * np.float32(0.01)).astype(np.float32)
        del i
        t1, t2, out, e1, e2 = (np.empty(n, np.float32) for _ in range(5))
        best = float("inf")
        for _ in range(rounds):
            t0 = time.perf_counter()
            layer(g, w, t1, t2, out, e1, e2)
            best = min(best, (time.perf_counter() - t0) * 1e3)
        print(json.dumps({"n": n, "numpy": round(best, 3), "numpy_version": np.__version__}), flush=True)


main()
