#!/usr/bin/python3
"""trig_constants.py - the constants of include/ufn_libm_trig.h for the
argument reduction of huge arguments (Payne-Hanek without a per-exponent
table in the float32 path).

For a bucket base Eb, C = (2^Eb * 2/pi) mod 4, split into non-overlapping
pieces of 53 bits: C = c0 + c1 + c2 + ..., c0 holding the bits from 2^1 down.
Then for x = M 2^(Eb + d) (M an integer, d >= 0): x * 2/pi = x' * C (mod 4)
with x' = x 2^-Eb = M 2^d an integer, because the dropped bits of C times
an integer are multiples of 4.

    /usr/bin/python3 tools/libm/trig_constants.py

prints the C initialisers; the values are pasted into the header.
"""
import mpmath as mp

mp.mp.prec = 4000
TWO_OVER_PI = 2 / mp.pi


def pieces(eb, n, bits=53):
    """The first n pieces of (2^eb * 2/pi) mod 4, bits each, as floats."""
    c = (mp.mpf(2) ** eb * TWO_OVER_PI) % 4
    out = []
    for i in range(n):
        scale = mp.mpf(2) ** (bits * (i + 1) - 1)      # piece i: bits 2^(1-bits*i) .. 2^(2-bits*(i+1))
        p = mp.floor(c * scale) / scale
        out.append(float(p))
        c -= p
    return out


def hexlist(values):
    return ", ".join(v.hex() for v in values)


# float32: x = M 2^E with E >= -6 (|x| >= 2^17); two buckets of 56 and 55 exponents, 3 pieces
for eb in (-6, 50):
    print("float32 Eb = %d: {%s}" % (eb, hexlist(pieces(eb, 3))))

# float64: x = M 2^E with E >= -22 (|x| >= 2^30); buckets of 16, 4 pieces
print("float64 buckets (Eb = 16 j - 22), 4 pieces:")
for j in range(63):
    eb = 16 * j - 22
    print("    %s," % hexlist(pieces(eb, 4)))
