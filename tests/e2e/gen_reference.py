#!/usr/bin/python3
"""Generate tests/e2e/reference.h: what Numba computes, kept as data.

Run once with Numba (0.56.4 was used) and NumPy, and commit the output; the
tests never need Python:

    /usr/bin/python3 tests/e2e/gen_reference.py > tests/e2e/reference.h

A .ufn file is a Python module Numba can import, so this loads the very
sources the tests compile with ufnc (typing.ufn, intsem.ufn) and runs their
ufuncs on Numba's CPU target.  Only cases where ufnc promises Numba's result
are recorded; where ufnc defines a rule Numba leaves to the machine (INT_MIN
// -1, shifts by the width or more, float -> int out of range, powers
beyond 2**53) the test programs spell the expected value and the rule.
"""
import importlib.machinery
import importlib.util
import os
import sys

import numba
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
I64_MIN, I64_MAX = -2**63, 2**63 - 1
I32_MIN, I32_MAX = -2**31, 2**31 - 1
# NumPy picks the first loop the inputs cast to safely, which for int32 or
# uint64 operands of 'int64(int64, int64)', ... would be the int64 one: ask
# for the loop of the operands' type by name.
I32, U64 = (np.int32,) * 3, (np.uint64,) * 3

out = []
emit = out.append


def load(name):
    path = os.path.join(HERE, name + '.ufn')
    loader = importlib.machinery.SourceFileLoader(name, path)
    spec = importlib.util.spec_from_loader(name, loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def c_float(v, suffix):
    v = float(v)
    if np.isnan(v):
        return 'NAN'
    if np.isinf(v):
        return 'INFINITY' if v > 0 else '-INFINITY'
    return v.hex() + suffix


def c_int(v, ctype):
    v = int(v)
    if ctype == 'int64_t' and v == I64_MIN:
        return 'INT64_MIN'
    if ctype == 'int32_t' and v == I32_MIN:
        return 'INT32_MIN'
    if ctype == 'uint64_t':
        return '%dull' % v
    if ctype == 'int64_t':
        return '%dll' % v
    return '%d' % v


def array(name, ctype, values, comment=None):
    if comment:
        emit('/* %s */' % comment)
    if ctype == 'float':
        items = [c_float(v, 'f') for v in values]
    elif ctype == 'double':
        items = [c_float(v, '') for v in values]
    else:
        items = [c_int(v, ctype) for v in values]
    emit('static const %s %s[%d] = {' % (ctype, name, len(items)))
    for i in range(0, len(items), 4):
        emit('    ' + ', '.join(items[i:i + 4]) + ',')
    emit('};')


def pairs(a_values, b_values, skip=()):
    a, b = [], []
    for x in a_values:
        for y in b_values:
            if (x, y) not in skip:
                a.append(x)
                b.append(y)
    return a, b


def intsem():
    m = load('intsem')
    # int64 // and %, by zero included; INT64_MIN // -1 is the test's own (Numba: 0)
    av = [7, -7, 0, 1, -1, 13, -13, I64_MAX, I64_MIN, 123456789012345]
    bv = [2, -2, 3, -3, 1, -1, 7, 0, I64_MAX, -5]
    a, b = pairs(av, bv, skip={(I64_MIN, -1)})
    a64, b64 = np.array(a, np.int64), np.array(b, np.int64)
    array('ref_i64_a', 'int64_t', a64, 'int64 operand pairs (a, b)')
    array('ref_i64_b', 'int64_t', b64)
    array('ref_i64_floordiv', 'int64_t', m.floordiv(a64, b64))
    array('ref_i64_mod', 'int64_t', m.mod(a64, b64))
    # int32: computed in int64 (Numba's rule), stored as int32
    av = [7, -7, 0, 1, -1, 13, I32_MAX, I32_MIN]
    bv = [2, -2, 3, 1, -1, 0, I32_MAX]
    a, b = pairs(av, bv)
    a32, b32 = np.array(a, np.int32), np.array(b, np.int32)
    array('ref_i32_a', 'int32_t', a32, 'int32 operand pairs')
    array('ref_i32_b', 'int32_t', b32)
    array('ref_i32_floordiv', 'int32_t', m.floordiv(a32, b32, signature=I32))
    array('ref_i32_mod', 'int32_t', m.mod(a32, b32, signature=I32))
    # uint64
    av = [0, 1, 7, 2**64 - 1, 2**63]
    bv = [0, 1, 2, 3, 2**64 - 1]
    a, b = pairs(av, bv)
    au, bu = np.array(a, np.uint64), np.array(b, np.uint64)
    array('ref_u64_a', 'uint64_t', au, 'uint64 operand pairs')
    array('ref_u64_b', 'uint64_t', bu)
    array('ref_u64_floordiv', 'uint64_t', m.floordiv(au, bu, signature=U64))
    array('ref_u64_mod', 'uint64_t', m.mod(au, bu, signature=U64))
    # int ** int, negative exponents included; results within 2**53
    a, b = pairs([-3, -2, -1, 0, 1, 2, 3, 10], [-3, -2, -1, 0, 1, 2, 3, 5, 10])
    pa, pb = np.array(a, np.int64), np.array(b, np.int64)
    array('ref_pow_a', 'int64_t', pa, 'int64 ** int64')
    array('ref_pow_b', 'int64_t', pb)
    array('ref_pow', 'int64_t', m.power(pa, pb))
    # float ** int: repeated squaring, bit for bit.  Numba raises
    # ZeroDivisionError on the CPU where x ** -n divides by a zero x ** n;
    # ufnc's 1 / 0.0 = inf is the test's own.
    xs, ns = [2.0, -1.5, 0.1, 0.0, -0.0, 1e-200, 3.0, 1.0000001], [-3, -1, 0, 1, 2, 5, 31, 64]
    a, b = pairs(xs, ns, skip={(x, n) for x in xs for n in ns if n < 0 and x ** -n == 0})
    fa, fb = np.array(a, np.float64), np.array(b, np.int64)
    array('ref_fpow_x', 'double', fa, 'float64 ** int64')
    array('ref_fpow_n', 'int64_t', fb)
    array('ref_fpow', 'double', m.fpower(fa, fb))
    # shifts by 0..63 (beyond is the test's own rule)
    a, b = pairs([1, -1, 5, -8, I64_MAX, I64_MIN, 0x123456789abcdef], [0, 1, 3, 31, 62, 63])
    sa, sb = np.array(a, np.int64), np.array(b, np.int64)
    array('ref_shift_a', 'int64_t', sa, 'int64 << and >> by 0..63')
    array('ref_shift_n', 'int64_t', sb)
    array('ref_shl', 'int64_t', m.shl(sa, sb))
    array('ref_shr', 'int64_t', m.shr(sa, sb))
    a, b = pairs([1, -1, 5, I32_MAX, I32_MIN], [0, 1, 3, 31])
    sa, sb = np.array(a, np.int32), np.array(b, np.int32)
    array('ref_shift32_a', 'int32_t', sa, 'int32 << and >>: shifted in int64, stored as int32')
    array('ref_shift32_n', 'int32_t', sb)
    array('ref_shl32', 'int32_t', m.shl(sa, sb, signature=I32))
    array('ref_shr32', 'int32_t', m.shr(sa, sb, signature=I32))
    # float -> int inside the range, and int64 -> int8 narrowing (wraps)
    x = np.array([3.7, -3.7, -0.9, 0.0, 2147483647.0, -2147483648.0, 1e9, -1e9], np.float64)
    array('ref_trunc_x', 'double', x, 'float64 -> int32 inside the range: truncation')
    array('ref_trunc_i32', 'int32_t', m.ret_i32(x))
    n = np.array([300, -129, 127, -128, 255, 256, I64_MAX, I64_MIN], np.int64)
    array('ref_narrow_x', 'int64_t', n, 'int64 -> int8: wraps')
    array('ref_narrow_i8', 'int32_t', m.narrow(n))


def typing():
    m = load('typing')
    rng = np.random.default_rng(2024)
    x = rng.uniform(-100, 100, 1000).astype(np.float32)
    array('ref_scale_x', 'float', x, 'x * 0.1 + 1.3 computed in float64 (Numba), and in float32')
    array('ref_scale_literal', 'float', m.scale_literal(x))
    array('ref_scale_f32', 'float', m.scale_f32(x))
    a, b = pairs([7, -7, 1, -1, 0, I64_MAX, 3], [2, -2, 0, 3, I64_MAX])
    a, b = np.array(a, np.int64), np.array(b, np.int64)
    array('ref_div_a', 'int64_t', a, 'int64 / int64 is float64')
    array('ref_div_b', 'int64_t', b)
    array('ref_div', 'double', m.true_div(a, b, signature=(np.int64, np.int64, np.float64)))
    x = np.array([1.0, 1.0, 1e8, 3.0, -2.5, 1e-30], np.float32)
    y = np.array([1e-8, 1e-30, 1.0, 0.1, 1e7, 1e30], np.float32)
    array('ref_acc_x', 'float', x, 'acc = 0; acc += x; acc += y; acc -= x: float64')
    array('ref_acc_y', 'float', y)
    array('ref_acc', 'float', m.acc_unify(x, y))
    x = np.array([2.5, -2.5, 0.0, -0.0, np.nan, np.inf, -np.inf, 1e-45], np.float32)
    array('ref_pos_x', 'float', x, 'x if x > 0 else 0')
    array('ref_pos', 'float', m.positive(x))
    a, b = pairs([I32_MAX, I32_MIN, -7, 7, 0], [I32_MAX, I32_MIN, 2, -1])
    a, b = np.array(a, np.int32), np.array(b, np.int32)
    array('ref_wide_a', 'int32_t', a, '(a + b) // 2 on int32: the sum is int64')
    array('ref_wide_b', 'int32_t', b)
    array('ref_wide', 'int32_t', m.wide_add(a, b))
    rows = rng.uniform(-1000, 1000, (7, 13)).astype(np.float32)
    array('ref_rows', 'float', rows.ravel(), 'row_mean of a (7, 13) float32 array')
    array('ref_row_mean', 'float', m.row_mean(rows))


def main():
    emit('/* reference.h - generated by tests/e2e/gen_reference.py from Numba %s and NumPy %s'
         % (numba.__version__, np.__version__))
    emit(' * running typing.ufn and intsem.ufn on the CPU; do not edit. */')
    emit('#ifndef E2E_REFERENCE_H')
    emit('#define E2E_REFERENCE_H')
    emit('')
    emit('#include <math.h>')
    emit('#include <stdint.h>')
    emit('')
    emit('/* ---- intsem.ufn ---- */')
    intsem()
    emit('')
    emit('/* ---- typing.ufn ---- */')
    typing()
    emit('')
    emit('#endif /* E2E_REFERENCE_H */')
    sys.stdout.write('\n'.join(out) + '\n')


if __name__ == '__main__':
    main()
