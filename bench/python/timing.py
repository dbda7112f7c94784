"""Interleaved adaptive repetitions, as bench/harness/timing.c does them:
3 warm-up calls each, then A B A B ... until every implementation has at least
11 calls and 0.3 s (at most 1000); min, median and p90 per implementation."""
import math
import time

WARMUP, MIN_REPS, MIN_SECONDS, MAX_REPS = 3, 11, 0.3, 1000


def _done(times):
    return len(times) >= MAX_REPS or (len(times) >= MIN_REPS and sum(times) >= MIN_SECONDS)


def stats(times):
    t = sorted(times)
    n = len(t)
    median = t[n // 2] if n % 2 else 0.5 * (t[n // 2 - 1] + t[n // 2])
    p90 = t[min(n - 1, max(0, math.ceil(0.9 * n) - 1))]
    return {'reps': n, 'min': t[0], 'median': median, 'p90': p90}


def measure(impls):
    """impls: {name: callable}.  Returns {name: stats}."""
    for _ in range(WARMUP):
        for fn in impls.values():
            fn()
    times = {name: [] for name in impls}
    clock = time.perf_counter
    while not all(_done(t) for t in times.values()):
        for name, fn in impls.items():
            if _done(times[name]):
                continue
            t0 = clock()
            fn()
            times[name].append(clock() - t0)
    return {name: stats(t) for name, t in times.items()}
