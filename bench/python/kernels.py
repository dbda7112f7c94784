"""The seeds' workloads for NumPy and Numba, and their float64 references.

Numba compiles the very .ufn files ufnc compiles (a .ufn module is a Python
module Numba can import): the text is executed with target='cuda' replaced by
'cpu' or 'parallel', so both compilers see the same kernels.

Every workload has the same name as in bench/harness/workloads.c and the same
inputs (the seeds' distributions; bench/python/check.py reads the exact inputs
the C harness wrote)."""
import math
import os

import numpy as np

SAMPLES = os.path.join(os.path.dirname(__file__), '..', '..', 'samples')
GAUSS_MEAN, GAUSS_SIGMA = 0.0, 1.0
PULSE_AMPLITUDE = 100.0
ZS_THRESHOLD = 15
SQRT_2PI = np.float32((2 * math.pi) ** 0.5)


def load_sample(name, target):
    """Compile samples/<name>.ufn with Numba for target 'cpu' or 'parallel'."""
    with open(os.path.join(SAMPLES, name + '.ufn')) as f:
        text = f.read()
    text = text.replace("target='cuda'", "target='%s'" % target)
    ns = {'__name__': 'ufn_' + name}
    exec(compile(text, name + '.ufn', 'exec'), ns)
    return ns


def period_of(n):
    return n / 23


# ---- inputs for timing (the checked run uses the C harness's files) ----------------

def make_inputs(workload, n, seed=0):
    rng = np.random.default_rng(seed)
    f32 = np.float32
    if workload == 'sqrt':
        return [rng.uniform(0, 100, n).astype(f32)]
    if workload == 'arctan2':
        return [rng.uniform(-1, 1, n).astype(f32), rng.uniform(-1, 1, n).astype(f32)]
    if workload in ('gauss', 'gauss_f32'):
        return [rng.uniform(-3, 3, n).astype(f32)]
    if workload == 'polar':
        return [rng.normal(0, 1, (n, 2)).astype(f32)]
    if workload == 'l2_norm':
        return [rng.uniform(-1, 1, (n, 16)).astype(f32)]
    if workload == 'hidden':
        return [np.floor(rng.uniform(0, 255, n).astype(f32)), rng.normal(.5, .1, n).astype(f32)]
    if workload == 'pulses':
        return [np.arange(n, dtype=f32), (rng.normal(size=n) * 3).astype(f32)]
    if workload == 'zero_suppress':
        pulses = np.maximum(np.sin(np.arange(n) / (n / 23)) - 0.3, 0.0)
        return [((pulses * 300) + rng.normal(size=n) * 3).astype(np.int16)]
    raise KeyError(workload)


def out_like(workload, inputs):
    n = inputs[0].shape[0]
    if workload == 'polar':
        return np.empty((n, 2), np.float32)
    if workload == 'zero_suppress':
        return np.empty(n, np.int16)
    return np.empty(n, np.float32)


# ---- NumPy: what a NumPy user writes (allocating), and out= where there is one --------

def numpy_impls(workload, inputs):
    """{name: callable} of NumPy versions."""
    if workload == 'sqrt':
        a, = inputs
        o = np.empty_like(a)
        return {'numpy': lambda: np.sqrt(a), 'numpy-out': lambda: np.sqrt(a, out=o)}
    if workload == 'arctan2':
        y, x = inputs
        o = np.empty_like(y)
        return {'numpy': lambda: np.arctan2(y, x), 'numpy-out': lambda: np.arctan2(y, x, out=o)}
    if workload in ('gauss', 'gauss_f32'):
        x, = inputs
        mean, sigma = GAUSS_MEAN, GAUSS_SIGMA
        return {'numpy': lambda: np.exp(-0.5 * ((x - mean) / sigma) ** 2) / (sigma * SQRT_2PI)}
    if workload == 'polar':
        v, = inputs

        def polar():
            x, y = v[:, 0], v[:, 1]
            out = np.empty_like(v)
            out[:, 0] = np.sqrt(x ** 2 + y ** 2)
            out[:, 1] = np.arctan2(y, x)
            return out
        return {'numpy': polar}
    if workload == 'l2_norm':
        v, = inputs
        return {'numpy': lambda: np.linalg.norm(v, axis=1)}
    if workload == 'hidden':
        g, w = inputs
        exp = np.exp

        def hidden():          # the seed's create_hidden_layer, on the CPU
            normalized = g / 255
            weighted = normalized * w
            return (exp(weighted) - exp(-weighted)) / (exp(weighted) + exp(-weighted))
        return {'numpy': hidden}
    if workload == 'pulses':
        t, noise = inputs
        period = period_of(t.shape[0])
        return {'numpy': lambda: np.maximum(np.sin(t / period) - 0.3, 0.0) * PULSE_AMPLITUDE + noise}
    if workload == 'zero_suppress':
        w, = inputs
        return {'numpy': lambda: np.where(w < ZS_THRESHOLD, 0, w)}
    raise KeyError(workload)


# ---- Numba: the sample's kernels, outputs preallocated (out=), device-array style ------

NUMBA_SAMPLES = {
    'sqrt': 'sqrt', 'arctan2': 'polar', 'gauss': 'gaussian', 'gauss_f32': 'gaussian',
    'polar': 'polar', 'l2_norm': 'l2_norm', 'hidden': 'hidden_layer', 'pulses': 'pulses',
    'zero_suppress': 'zero_suppress',
}

_compiled = {}


def numba_module(workload, target):
    key = (NUMBA_SAMPLES[workload], target)
    if key not in _compiled:
        _compiled[key] = load_sample(key[0], target)
    return _compiled[key]


def numba_impl(workload, target, inputs):
    """(callable, its output array): the Numba-compiled sample kernels with out=."""
    fn, o = _numba_impl(workload, target, inputs)
    return fn, o


def _numba_impl(workload, target, inputs):
    m = numba_module(workload, target)
    o = out_like(workload, inputs)
    fn = _numba_call(m, workload, inputs, o)
    return fn, o


def _numba_call(m, workload, inputs, o):
    if workload == 'sqrt':
        a, = inputs
        return lambda: m['gpu_sqrt'](a, out=o)
    if workload == 'arctan2':
        y, x = inputs
        return lambda: m['gpu_arctan2'](y, x, out=o)
    if workload in ('gauss', 'gauss_f32'):
        x, = inputs
        # Numba's CPU ufuncs refuse Python floats for a float32 signature
        mean, sigma = np.float32(GAUSS_MEAN), np.float32(GAUSS_SIGMA)
        return lambda: m['gaussian_pdf'](x, mean, sigma, out=o)
    if workload == 'polar':
        v, = inputs
        return lambda: m['gpu_polar'](v, o)
    if workload == 'l2_norm':
        v, = inputs
        return lambda: m['l2_norm'](v, o)
    if workload == 'hidden':
        g, w = inputs
        t1, t2 = np.empty_like(g), np.empty_like(g)

        def hidden():
            m['gpu_normalize'](g, out=t1)
            m['gpu_weigh'](t1, w, out=t2)
            return m['gpu_activate'](t2, out=o)
        return hidden
    if workload == 'pulses':
        t, noise = inputs
        period, amplitude = np.float32(period_of(t.shape[0])), np.float32(PULSE_AMPLITUDE)
        p = np.empty_like(t)

        def pulses():
            m['make_pulses'](t, period, amplitude, out=p)
            return m['add_ufunc'](p, noise, out=o)
        return pulses
    if workload == 'zero_suppress':
        w, = inputs
        threshold = np.int16(ZS_THRESHOLD)
        return lambda: m['zero_suppress'](w, threshold, out=o)
    raise KeyError(workload)


# ---- float64 references -----------------------------------------------------------------
# The rounding a kernel's typing prescribes at exactly rounded steps (float32
# +, *, /) is reproduced; only the transcendental functions are evaluated in
# float64.  So the error measured is the math library's, not the program's.

def f64(a):
    return np.asarray(a, dtype=np.float64)


def reference(workload, inputs):
    f32 = np.float32
    if workload == 'sqrt':
        return np.sqrt(f64(inputs[0]))
    if workload == 'arctan2':
        y, x = inputs
        return np.arctan2(f64(y), f64(x))
    if workload in ('gauss', 'gauss_f32'):
        x, = inputs
        z = (x - f32(GAUSS_MEAN)) / f32(GAUSS_SIGMA)
        z2 = z * z                                     # float32, as x**2 is
        return np.exp(-0.5 * f64(z2)) / f64(f32(GAUSS_SIGMA) * SQRT_2PI)
    if workload == 'polar':
        v, = inputs
        x, y = v[:, 0], v[:, 1]
        r = np.sqrt(f64(x * x + y * y))                # float32 x**2 + y**2, sqrt
        return np.stack([r, np.arctan2(f64(y), f64(x))], axis=1)
    if workload == 'l2_norm':
        v, = inputs
        return np.sqrt(f64(v * v).sum(axis=1))         # float64 acc (acc = 0.0)
    if workload == 'hidden':
        g, w = inputs
        normalized = (f64(g) / 255).astype(f32)        # float32 / int is float64 in Numba
        weighted = normalized * w
        return np.tanh(f64(weighted))
    if workload == 'pulses':
        t, noise = inputs
        arg = t / f32(period_of(t.shape[0]))           # float32 / float32
        pulses = np.maximum(np.sin(f64(arg)) - 0.3, 0.0) * PULSE_AMPLITUDE
        return pulses + f64(noise)
    if workload == 'zero_suppress':
        w, = inputs
        return np.where(w < ZS_THRESHOLD, 0, w).astype(np.int16)
    raise KeyError(workload)


# Error allowed, in float32 ulps of the reference.  "scale": ulps of the
# array's largest magnitude instead of each value's, for the seeds' formulas
# that cancel near zero in float32 whoever evaluates them (tanh written with
# four exps; sin(x) - 0.3 plus noise).
TOLERANCE = {
    'sqrt': (1, False), 'arctan2': (4, False), 'gauss': (4, False), 'gauss_f32': (8, False),
    'polar': (4, False), 'l2_norm': (8, False), 'hidden': (8, True), 'pulses': (8, True),
    'zero_suppress': (0, False),
}


def ulp_error(out, ref, at_scale):
    """Max error in float32 ulps (integers: the number of differing elements)."""
    if np.issubdtype(np.asarray(ref).dtype, np.integer):
        return float(np.count_nonzero(np.asarray(out) != ref))
    out, ref = f64(out), f64(ref)
    both_nan = np.isnan(out) & np.isnan(ref)
    same = (out == ref) | both_nan
    mag = np.abs(ref)
    if at_scale:
        mag = np.full_like(mag, np.max(mag[np.isfinite(mag)]) if mag.size else 0.0)
    sp = f64(np.spacing(mag.astype(np.float32)))
    with np.errstate(invalid='ignore', divide='ignore'):
        err = np.where(same, 0.0, np.abs(out - ref) / sp)
    err = np.where(np.isnan(err), np.inf, err)
    return float(err.max()) if err.size else 0.0
