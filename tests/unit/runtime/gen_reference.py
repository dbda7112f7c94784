#!/usr/bin/python3
"""Generate tests/unit/runtime/reference.h: what NumPy does, kept as data.

Run once (with NumPy; 1.24 was used) and commit the output; the tests never
need Python:

    /usr/bin/python3 tests/unit/runtime/gen_reference.py > tests/unit/runtime/reference.h

It records
  - np.can_cast(a, b, 'safe') and 'same_kind' over the 13 dtypes of ufn.h;
  - the signature NumPy's rule picks for the `add` loops (float32, float64,
    int64): the first exact match of the inputs, else the first loop both
    inputs cast to safely;
  - broadcasting cases: operands as views (shape, element strides, offset)
    of three base arrays, the result shape and values NumPy computes, or
    the kind of error (and NumPy's message where ours must contain it).
"""
import numpy as np
from numpy.core import _umath_tests as ut

DTYPES = ['bool', 'int8', 'int16', 'int32', 'int64', 'uint8', 'uint16', 'uint32', 'uint64',
          'float32', 'float64', 'complex64', 'complex128']
BASE_N = 256
BASE = [np.arange(BASE_N, dtype=np.float64),
        1000.0 + 3.0 * np.arange(BASE_N, dtype=np.float64),
        np.arange(BASE_N, dtype=np.float64) - 7.0]
FUNCS = {'add': (2, np.add), 'muladd': (3, lambda a, b, c: a * b + c),
         'matrix_multiply': (2, ut.matrix_multiply), 'inner1d': (2, ut.inner1d),
         'cross1d': (2, ut.cross1d)}

out = []
emit = out.append


def table(name, mode):
    emit('static const unsigned char %s[13][13] = {' % name)
    for a in DTYPES:
        emit('    {%s}, /* %s */' % (', '.join(str(int(np.can_cast(a, b, mode))) for b in DTYPES), a))
    emit('};')


def dispatch():
    loops = ['float32', 'float64', 'int64']
    emit('/* ref_add_loop[a][b]: the add loop (0 f32, 1 f64, 2 i64) for inputs a, b; -1 none */')
    emit('static const signed char ref_add_loop[13][13] = {')
    for a in DTYPES:
        row = []
        for b in DTYPES:
            pick = -1
            for i, t in enumerate(loops):
                if a == t and b == t:
                    pick = i
                    break
            if pick < 0:
                for i, t in enumerate(loops):
                    if np.can_cast(a, t, 'safe') and np.can_cast(b, t, 'safe'):
                        pick = i
                        break
            row.append(str(pick))
        emit('    {%s}, /* %s */' % (', '.join(row), a))
    emit('};')


def view_of(arr, k):
    """Describe arr, a view of BASE[k], as (shape, element strides, offset)."""
    base = BASE[k]
    assert arr.base is not None or arr is base
    off = (arr.__array_interface__['data'][0] - base.__array_interface__['data'][0]) // 8
    strides = [s // 8 for s in arr.strides]
    return arr.shape, strides, off


def c_view(shape, strides, off, base=0):
    shape = list(shape)
    pad = lambda v: '{%s}' % ', '.join(str(x) for x in (v + [0] * (6 - len(v))))
    return '{%d, %s, %s, %d, %d}' % (len(shape), pad(shape), pad(list(strides)), off, base)


CASES = []


def case(what, func, views, out_shape=None):
    CASES.append((what, func, views, out_shape))


def b(k, n=None):
    return BASE[k] if n is None else BASE[k][:n]


def r(k, shape):
    size = int(np.prod(shape)) if shape else 1
    return BASE[k][:size].reshape(shape)


# ---- ufuncs ---------------------------------------------------------------------------
for sa, sb in [((3,), (3,)), ((3, 4), (4,)), ((3, 4), (3, 1)), ((2, 1), (3,)), ((2,), (2, 2)),
               ((2, 3), (3,)), ((2, 1), (1, 3)), ((1,), (5,)), ((), (4,)), ((4,), ()), ((), ()),
               ((2, 3, 4), (3, 4)), ((2, 1, 4), (3, 1)), ((1, 1, 1), (2, 3, 4)),
               ((5, 1, 3), (1, 4, 1)), ((0,), (1,)), ((0, 3), (3,)), ((2, 0), (2, 1)),
               ((1, 0), (3, 1)), ((3, 4), (5,)), ((2, 3), (3, 2)), ((0,), (2,)),
               ((2, 2, 3), (4, 3)), ((6,), (1, 1, 1, 1, 6)), ((2, 3, 1, 5), (3, 4, 1)),
               ((3, 1, 1), (1, 1, 1, 2)), ((7, 1), (1, 9)), ((1, 2, 1, 2, 1), (2, 1, 2, 1, 2))]:
    case('add(%s, %s)' % (sa, sb), 'add', [r(0, sa), r(1, sb)])
for sa, sb, sc in [((3, 1), (1, 4), (4,)), ((), (2, 1, 2), (2,)), ((5,), (5,), (6,)),
                   ((2, 1, 1), (1, 3, 1), (1, 1, 4))]:
    case('muladd(%s, %s, %s)' % (sa, sb, sc), 'muladd', [r(0, sa), r(1, sb), r(2, sc)])
# strides: transposed, sliced, negative, zero, Fortran order
case('add(b0[:24].reshape(4,6).T, b1[:4])', 'add', [r(0, (4, 6)).T, b(1, 4)])
case('add(b0[::2][:5], b1[1:6])', 'add', [b(0)[::2][:5], b(1)[1:6]])
case('add(b0[:6][::-1], b1[:6])', 'add', [b(0, 6)[::-1], b(1, 6)])
case('add(b0[:12].reshape(3,4)[::-1, ::-2], b1[:2])', 'add', [r(0, (3, 4))[::-1, ::-2], b(1, 2)])
case('add(broadcast_to(b0[:3], (4,3)), b1[:12].reshape(4,3))', 'add',
     [np.broadcast_to(b(0, 3), (4, 3)), r(1, (4, 3))])
case('add(b0[:12].reshape(4,3,order=F), b1[:12].reshape(4,3,order=F))', 'add',
     [b(0, 12).reshape(4, 3, order='F'), b(1, 12).reshape(4, 3, order='F')])
case('add(b0[:60].reshape(3,4,5).transpose(2,0,1), b1[:60].reshape(5,3,4))', 'add',
     [r(0, (3, 4, 5)).transpose(2, 0, 1), r(1, (5, 3, 4))])
case('add(b0[:24].reshape(2,3,4)[:, 1:, ::3], b1[5:7])', 'add',
     [r(0, (2, 3, 4))[:, 1:, ::3], b(1)[5:7]])
case('add(b0[:8][::-2], b1[:16][::4])', 'add', [b(0, 8)[::-2], b(1, 16)[::4]])
# given outputs take part in broadcasting, but are never stretched
case('add((3,), (3,), out=(2,3))', 'add', [r(0, (3,)), r(1, (3,))], (2, 3))
case('add((3,), (3,), out=(4,))', 'add', [r(0, (3,)), r(1, (3,))], (4,))
case('add((2,3), (3,), out=(1,3))', 'add', [r(0, (2, 3)), r(1, (3,))], (1, 3))
case('add((), (), out=(2,2))', 'add', [r(0, ()), r(1, ())], (2, 2))
# ---- gufuncs ------------------------------------------------------------------------------
for sa, sb in [((2, 3), (3, 4)), ((5, 2, 3), (3, 4)), ((2, 1, 2, 3), (3, 3, 2)),
               ((2, 3), (4, 2)), ((3, 2, 3), (2, 3, 2)), ((1, 1), (1, 1)), ((0, 2, 3), (3, 1)),
               ((2, 0), (0, 3))]:
    case('matrix_multiply(%s, %s)' % (sa, sb), 'matrix_multiply', [r(0, sa), r(1, sb)])
case('matrix_multiply(b0[:6].reshape(3,2).T, b1[:6].reshape(3,2))', 'matrix_multiply',
     [r(0, (3, 2)).T, r(1, (3, 2))])
case('matrix_multiply(b0[:24].reshape(2,3,4)[:, ::-1, ::2], b1[:8].reshape(2,4)[:, ::2])',
     'matrix_multiply', [r(0, (2, 3, 4))[:, ::-1, ::2], r(1, (2, 4))[:, ::2]])
for sa, sb in [((4,), (3,)), ((4, 3), (3,)), ((), (3,)), ((2, 3), (3, 3)), ((0, 3), (3,)),
               ((2, 0), (0,)), ((2, 1, 3), (4, 3))]:
    case('inner1d(%s, %s)' % (sa, sb), 'inner1d', [r(0, sa), r(1, sb)])
case('inner1d(b0[:12].reshape(3,4).T, b1[:3])', 'inner1d', [r(0, (3, 4)).T, b(1, 3)])
for sa, sb in [((4, 3), (3,)), ((4,), (4,)), ((2, 1, 3), (2, 3))]:
    case('cross1d(%s, %s)' % (sa, sb), 'cross1d', [r(0, sa), r(2, sb)])


def error_kind(func, views, out_shape, msg):
    if 'core dimension' in msg or 'enough dimensions' in msg:
        return 'UFN_ERR_CORE_DIM'
    if out_shape is not None:
        loop = [v.shape[:v.ndim - core_of(func, i)] for i, v in enumerate(views)]
        try:
            np.broadcast_shapes(*loop)
            return 'UFN_ERR_OUTPUT'
        except ValueError:
            pass
    return 'UFN_ERR_SHAPE'


def core_of(func, i):
    return {'matrix_multiply': 2, 'inner1d': 1, 'cross1d': 1}.get(func, 0)


def cases():
    emit('static const ref_case ref_cases[] = {')
    for what, func, views, out_shape in CASES:
        nin, fn = FUNCS[func]
        assert len(views) == nin
        descr = []
        for v in views:
            k = next((k for k in range(3) if v.size and np.shares_memory(v, BASE[k])), None)
            if k is None:   # empty: any pointer into a base will do
                descr.append(c_view(v.shape, [0] * v.ndim, 0))
            else:
                descr.append(c_view(*view_of(v, k), base=k))
        while len(descr) < 3:
            descr.append('{0}')
        kwargs = {}
        outv = None
        if out_shape is not None:
            outv = np.zeros(out_shape)
            kwargs['out'] = outv
        try:
            res = fn(*views, **kwargs)
            if outv is not None:
                res = outv
            res = np.asarray(res)
            status, message = '0', 'NULL'
            values = ', '.join(repr(float(x)) for x in res.ravel()) or '0'
            shape = res.shape
        except ValueError as e:
            msg = str(e).strip()
            status = error_kind(func, views, out_shape, msg)
            keep = func != 'muladd' and (status == 'UFN_ERR_CORE_DIM' or msg.startswith(
                'operands could not be broadcast together with shapes'))
            message = '"%s"' % msg if keep else 'NULL'
            values, shape = '0', ()
        nvalues = int(np.prod(shape)) if status == '0' else 0
        outd = c_view(out_shape, [0] * len(out_shape), 0) if out_shape is not None else '{0}'
        emit('    {"%s", REF_%s, %d, {%s}, %d, %s, %s, %s, %d, {%s}, %d, (const double[]){%s}},'
             % (what, func.upper(), nin, ', '.join(descr), out_shape is not None, outd, status,
                message, len(shape), ', '.join(str(x) for x in shape) or '0', nvalues, values))
    emit('};')


emit('/* reference.h - generated by gen_reference.py from NumPy %s; do not edit. */'
     % np.__version__)
emit('#ifndef REFERENCE_H\n#define REFERENCE_H\n\n#include <stdint.h>\n\n#include "ufn.h"\n')
emit('/* np.can_cast(a, b, mode), rows a, columns b, in ufn_dtype order */')
table('ref_safe', 'safe')
table('ref_same_kind', 'same_kind')
emit('')
dispatch()
emit('')
emit('#define REF_BASE_N %d' % BASE_N)
for k in range(3):
    emit('static const double ref_base%d[REF_BASE_N] = {%s};'
         % (k, ', '.join(repr(float(x)) for x in BASE[k])))
emit('''
enum { REF_ADD, REF_MULADD, REF_MATRIX_MULTIPLY, REF_INNER1D, REF_CROSS1D };

/* A view of ref_base<base>: shape, element strides, element offset. */
typedef struct ref_view {
    int ndim;
    int64_t shape[6];
    int64_t strides[6];
    int64_t offset;
    int base;
} ref_view;

typedef struct ref_case {
    const char *what;          /* the call, in Python terms */
    int func;                  /* REF_* */
    int nin;
    ref_view in[3];
    int has_out;               /* a given C-contiguous output of this shape (zeroed) */
    ref_view out;
    int status;                /* 0, or the error the call must fail with */
    const char *message;       /* NumPy's message, which ours must contain (or NULL) */
    int ndim;                  /* the result */
    int64_t shape[6];
    int nvalues;
    const double *values;      /* C order */
} ref_case;
''')
cases()
emit('\n#endif /* REFERENCE_H */')
print('\n'.join(out))
