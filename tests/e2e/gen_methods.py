#!/usr/bin/python3
"""Generate tests/e2e/methods_ref.h: NumPy's reduce, accumulate and outer.

Run with NumPy (2.4 was used) and commit the output; the tests need no Python:

    python3 tests/e2e/gen_methods.py > tests/e2e/methods_ref.h

The ufuncs of methods.ufn are NumPy's add, subtract, multiply and maximum
(no NaN among the inputs), so NumPy's own ufuncs give the reference, bit for
bit: np.add.reduce sums floats pairwise, the others go in order.  Inputs are
a formula both sides compute exactly (value(), and methods.c's), viewed with
the shapes, strides and offsets recorded per case.
"""
import numpy as np

FUNCS = {'add': np.add, 'sub': np.subtract, 'mul': np.multiply, 'biggest': np.maximum}
DT = {'f32': (np.float32, 'UFN_FLOAT32', 'float'), 'f64': (np.float64, 'UFN_FLOAT64', 'double'),
      'i32': (np.int32, 'UFN_INT32', 'int32_t'),
      'c64': (np.complex64, 'UFN_COMPLEX64', 'float'), 'c128': (np.complex128, 'UFN_COMPLEX128', 'double')}
PART = {'c64': ('f32', np.float32), 'c128': ('f64', np.float64)}   # a complex dtype's parts
BASE = 1 << 17            # elements of every base array


def base(func, dt):
    """methods.c's value(): v = (i * 7919) % 1999 - 999, then per dtype."""
    t = DT[dt][0]
    v = (np.arange(BASE, dtype=np.int64) * 7919) % 1999 - 999
    if dt == 'i32':
        return v.astype(np.int32)
    if dt in PART:        # the real part as the floats', the imaginary w / 3
        pdt, pt = PART[dt]
        w = (np.arange(BASE, dtype=np.int64) * 104729) % 1013 - 506
        return (v.astype(pt) / pt(7)) + 1j * (w.astype(pt) / pt(3))
    if func == 'mul':     # near 1, so that products stay finite
        return t(1) + v.astype(t) / t(8192)
    return v.astype(t) / t(7)


def view(arr, shape, steps=None, transpose=False, offset=0):
    """A view of the base array: reshape its first elements, slice, transpose."""
    n = int(np.prod(shape))
    v = arr[offset:offset + n].reshape(shape)
    if steps:
        v = v[tuple(slice(None, None, s) for s in steps)]
    if transpose:
        v = v.T
    return v


cases = []


def case(name, func, dt, method, shape, steps=None, transpose=False, offset=0, **kw):
    cases.append(dict(name=name, func=func, dt=dt, method=method, shape=shape, steps=steps,
                      transpose=transpose, offset=offset, **kw))


# reduce: NumPy's pairwise order for add on floats
case('add f32 1-d 100000', 'add', 'f32', 'reduce', (100000,))
case('add f32 1-d 7', 'add', 'f32', 'reduce', (7,))
case('add f32 1-d 129', 'add', 'f32', 'reduce', (129,))
case('add f64 1-d 100000', 'add', 'f64', 'reduce', (100000,))
case('add f32 (37,300) axis 0', 'add', 'f32', 'reduce', (37, 300), axes=[0])
case('add f32 (37,300) axis 1', 'add', 'f32', 'reduce', (37, 300), axes=[1])
case('add f32 (37,300) axis -1 keepdims', 'add', 'f32', 'reduce', (37, 300), axes=[-1], keepdims=1)
case('add f32 (37,300) all', 'add', 'f32', 'reduce', (37, 300), axes='all')
case('add f32 (37,300) axis 0 initial', 'add', 'f32', 'reduce', (37, 300), axes=[0], initial=2.5)
case('add f32 (5,6,700) axes (0,2)', 'add', 'f32', 'reduce', (5, 6, 700), axes=[0, 2])
case('add f32 (5,6,700) axes (2,1)', 'add', 'f32', 'reduce', (5, 6, 700), axes=[2, 1])
case('add f32 (40,600)[:, ::3] all', 'add', 'f32', 'reduce', (40, 600), steps=(1, 3), axes='all')
case('add f32 (40,600)[:, ::3] axis 1', 'add', 'f32', 'reduce', (40, 600), steps=(1, 3), axes=[1])
case('add f32 (40,600)[::2, ::-3] axis 0', 'add', 'f32', 'reduce', (40, 600), steps=(2, -3), axes=[0])
case('add f32 (300,37).T axis 0', 'add', 'f32', 'reduce', (300, 37), transpose=True, axes=[0])
case('add f32 (300,37).T axis 1', 'add', 'f32', 'reduce', (300, 37), transpose=True, axes=[1])
case('add f64 (3000,)[::-1]', 'add', 'f64', 'reduce', (3000,), steps=(-1,))
case('add f32 (0,5) axis 0', 'add', 'f32', 'reduce', (0, 5), axes=[0])
case('add f32 (5,0) axis 0', 'add', 'f32', 'reduce', (5, 0), axes=[0])
case('add f32 (6,200) axis 1 where', 'add', 'f32', 'reduce', (6, 200), axes=[1], where=1, initial=1.5)
case('add f64 (6,200) axis 0 where', 'add', 'f64', 'reduce', (6, 200), axes=[0], where=1, initial=0.0)
# complex sums: NumPy's pairwise form for complex (4 accumulators, leaves of 64)
case('add c64 1-d 100000', 'add', 'c64', 'reduce', (100000,))
case('add c64 1-d 3', 'add', 'c64', 'reduce', (3,))
case('add c64 1-d 67', 'add', 'c64', 'reduce', (67,))
case('add c128 1-d 1000', 'add', 'c128', 'reduce', (1000,))
case('add c64 (37,300) axis 1', 'add', 'c64', 'reduce', (37, 300), axes=[1])
case('add c64 (37,300) axis 0', 'add', 'c64', 'reduce', (37, 300), axes=[0])
case('add c128 (37,300) all', 'add', 'c128', 'reduce', (37, 300), axes='all')
case('add c128 (40,600)[:, ::3] axis 1', 'add', 'c128', 'reduce', (40, 600), steps=(1, 3), axes=[1])
case('add c64 (5,6,700) axes (2,1)', 'add', 'c64', 'reduce', (5, 6, 700), axes=[2, 1])
case('add c64 (6,200) axis 1 where', 'add', 'c64', 'reduce', (6, 200), axes=[1], where=1, initial=1.5)
case('add i32 (37,300) axis 0', 'add', 'i32', 'reduce', (37, 300), axes=[0])
case('add i32 (37,300) all', 'add', 'i32', 'reduce', (37, 300), axes='all')
# reduce: in order
case('sub f64 1-d 1000', 'sub', 'f64', 'reduce', (1000,))
case('sub f32 (37,300) axis 1', 'sub', 'f32', 'reduce', (37, 300), axes=[1])
case('sub f32 (37,300) axis 0', 'sub', 'f32', 'reduce', (37, 300), axes=[0])
case('sub f64 (40,600)[:, ::3] axis 1 initial', 'sub', 'f64', 'reduce', (40, 600), steps=(1, 3),
     axes=[1], initial=0.25)
case('sub f32 (6,200) axis 1 where', 'sub', 'f32', 'reduce', (6, 200), axes=[1], where=1, initial=-3.0)
case('mul f64 (5,6,7) axes (0,2)', 'mul', 'f64', 'reduce', (5, 6, 7), axes=[0, 2])
case('mul f64 (0,) ', 'mul', 'f64', 'reduce', (0,))
case('biggest f32 (37,300) all', 'biggest', 'f32', 'reduce', (37, 300), axes='all')
case('biggest i32 (5,6,70) axes (0,1) keepdims', 'biggest', 'i32', 'reduce', (5, 6, 70), axes=[0, 1],
     keepdims=1)
# NumPy's errors
case('sub two axes', 'sub', 'f64', 'reduce', (4, 5), axes=[0, 1], error="UFN_ERR_INVALID",
     message="reduction operation 'sub' is not reorderable, so at most one axis may be specified")
case('sub empty', 'sub', 'f64', 'reduce', (0, 5), axes=[0], error="UFN_ERR_SHAPE",
     message="zero-size array to reduction operation sub which has no identity")
case('sub where', 'sub', 'f64', 'reduce', (4, 5), axes=[0], where=1, error="UFN_ERR_INVALID",
     message="does not have an identity, so to use a where mask one has to specify 'initial'")
case('add axis 2', 'add', 'f64', 'reduce', (4, 5), axes=[2], error="UFN_ERR_INVALID",
     message="axis 2 is out of bounds for array of dimension 2")
case('add axis twice', 'add', 'f64', 'reduce', (4, 5), axes=[1, -1], error="UFN_ERR_INVALID",
     message="duplicate value in 'axis'")
# accumulate
case('add f32 accumulate (13,40) axis 0', 'add', 'f32', 'accumulate', (13, 40), axis=0)
case('add f32 accumulate (13,40) axis 1', 'add', 'f32', 'accumulate', (13, 40), axis=1)
case('sub f64 accumulate (300,)', 'sub', 'f64', 'accumulate', (300,), axis=0)
case('sub f32 accumulate (10,60)[::2, ::-3] axis -1', 'sub', 'f32', 'accumulate', (10, 60),
     steps=(2, -3), axis=-1)
case('biggest i32 accumulate (5,6,7).T axis 1', 'biggest', 'i32', 'accumulate', (5, 6, 7),
     transpose=True, axis=1)
case('add f32 accumulate (0,3) axis 0', 'add', 'f32', 'accumulate', (0, 3), axis=0)
# outer
case('add f32 outer (5,) (7,)', 'add', 'f32', 'outer', (5,), shape2=(7,), offset2=100)
case('sub f64 outer (3,4) (40,)[::-2]', 'sub', 'f64', 'outer', (3, 4), shape2=(40,), steps2=(-2,),
     offset2=7)
case('biggest i32 outer (6,) (2,3)', 'biggest', 'i32', 'outer', (6,), shape2=(2, 3), offset2=50)


def c_value(v, dt):
    if dt == 'i32':
        return str(int(v))
    return float(v).hex() + ('f' if dt == 'f32' else '')


def c_values(res, dt):
    """A result's values, a complex one's as real and imaginary parts."""
    if dt in PART:
        return [c_value(x, PART[dt][0]) for z in res.ravel() for x in (z.real, z.imag)]
    return [c_value(x, dt) for x in res.ravel()]


def geometry(v, arr):
    item = arr.itemsize
    off = (v.__array_interface__['data'][0] - arr.__array_interface__['data'][0]) // item
    return list(v.shape), [s // item for s in v.strides], off


def ints(xs):
    return '{' + ', '.join(str(x) for x in xs) + '}' if xs else '{0}'


out = []
emit = out.append
emit('/* methods_ref.h - generated by tests/e2e/gen_methods.py from NumPy %s; do not edit. */'
     % np.__version__)
emit('#ifndef E2E_METHODS_REF_H\n#define E2E_METHODS_REF_H\n')
emit('#define METHODS_BASE %d\n' % BASE)
rows = []
for i, c in enumerate(cases):
    ufunc, dt = FUNCS[c['func']], c['dt']
    arr = base(c['func'], dt)
    a = view(arr, c['shape'], c['steps'], c['transpose'], c['offset'])
    shape, strides, off = geometry(a, arr)
    shape2 = strides2 = []
    off2 = 0
    res = None
    if c['method'] == 'reduce':
        axes = c.get('axes', [0])
        kw = dict(axis=None if axes == 'all' else tuple(axes), keepdims=bool(c.get('keepdims')))
        if 'initial' in c:
            kw['initial'] = c['initial']
        if c.get('where'):
            kw['where'] = (np.arange(a.size).reshape(a.shape) % 3) != 0
        if 'error' not in c:
            res = ufunc.reduce(a, **kw)
    elif c['method'] == 'accumulate':
        res = ufunc.accumulate(a, axis=c['axis'])
    else:
        b = view(arr, c['shape2'], c.get('steps2'), False, c['offset2'])
        shape2, strides2, off2 = geometry(b, arr)
        res = ufunc.outer(a, b)
    ctype = DT[dt][2]
    if res is not None:
        res = np.asarray(res, dtype=DT[dt][0])
        vals = c_values(res, dt)
        emit('static const %s methods_expect%d[%d] = {' % (ctype, i, max(1, len(vals))))
        for k in range(0, len(vals), 6):
            emit('    ' + ', '.join(vals[k:k + 6]) + ',')
        if not vals:
            emit('    0')
        emit('};')
    axes = c.get('axes', [0])
    rows.append('    {%s, "%s", %s, M_%s, %d, %s, %s, %d, %d, %s, %s, %d, %d, %s, %d, %d, %s, %d, %s, %s, %s, %s, %s},' % (
        '"%s"' % c['name'], c['func'], DT[dt][1], c['method'].upper(),
        len(shape), ints(shape), ints(strides), off,
        len(shape2), ints(shape2), ints(strides2), off2,
        -1 if axes == 'all' else len(axes), ints([] if axes == 'all' else axes),
        int(c.get('keepdims', 0)), int('initial' in c), repr(float(c.get('initial', 0.0))),
        int(c.get('where', 0)), str(c.get('axis', 0)), c.get('error', '0'),
        '"%s"' % c['message'] if 'message' in c else 'NULL',
        '%d, %s' % (res.ndim, ints(list(res.shape))) if res is not None else '0, {0}',
        'methods_expect%d' % i if res is not None else 'NULL'))
emit('\nstatic const methods_case methods_cases[] = {')
out.extend(rows)
emit('};\n\n#endif')
print('\n'.join(out))
