/* ufn_complex.h - complex64 and complex128 for the ufn language, included by
 * ufn_math.h (include that one).
 *
 * CUDA C++ has no C99 _Complex and C has no std::complex, so a complex number
 * is a struct of two floats in both worlds, laid out as NumPy lays out
 * complex64/complex128 (real part first), and every operation is a function:
 *
 *   ufn_c128_make(re, im)  _from_f64(x)  _add _sub _mul _div _neg _conj
 *   _eq _ne (int)  _abs (hypot)  _pow (z ** w)  _powi (z ** n, int64 n)
 *   ufn_c128_from_c64, ufn_c64_from_c128 (each part rounded)
 *   cmath: ufn_c{exp,log,log10,sqrt,sin,cos,tan,asin,acos,atan,sinh,cosh,
 *          tanh,asinh,acosh,atanh}_c128 -> ufn_c128; ufn_clog_base_c128(z, b);
 *          ufn_cphase_c128 -> double; ufn_cis{nan,inf,finite}_c128 -> int;
 *          ufn_crect_c128(r, phi) -> ufn_c128.  cmath.polar is (abs, phase).
 *   ... and the same with c64 / float.
 *
 * The algorithms are CPython's cmathmodule.c for finite arguments (accurate
 * near branch cuts, free of spurious overflow) and Numba's cmathimpl.py for
 * infinite and nan ones, so results agree with Python's cmath to a few ulp
 * and with its branch cuts, signed zeros included.  complex64 runs the same
 * algorithms in float (thresholds scaled to float), except ** (see there).
 *
 * Known deviations from Python, all for non-finite input or errors Python
 * raises: where Python raises ValueError/OverflowError we return what the
 * formula gives (log(0) == -inf+0j, exp(1000+1j) == inf+infj, 0j ** -1 ==
 * nan+nanj as in Numba); in the inverse functions a nan part makes both parts
 * nan where CPython's special-value tables keep an infinity (acos(nan+infj)
 * is nan+nanj, Python: nan-infj).  exp, log, sqrt, sinh, cosh, tanh, atanh
 * and rect follow Python's tables for the infinities and nans tested in
 * test_ufn_math.c.  The GPU contracts a*b+c into fma by default, so its
 * results may differ from the host's in the last bits (more for ** with a
 * large exponent, whose polar form amplifies rounding).
 */
#ifndef UFN_COMPLEX_H
#define UFN_COMPLEX_H

typedef struct { float re, im; } ufn_c64;
typedef struct { double re, im; } ufn_c128;

/* Thresholds of CPython's cmathmodule.c (CM_LARGE_DOUBLE and friends), for
 * double and for float. */
#define UFN_C128_LARGE       (DBL_MAX / 4.0)          /* 1 + |z|^2 would overflow */
#define UFN_C128_SQRT_LARGE  6.703903964971298e+153   /* sqrt(LARGE) */
#define UFN_C128_LOG_LARGE   708.3964185322641        /* log(LARGE) */
#define UFN_C128_MIN         DBL_MIN
#define UFN_C128_SQRT_MIN    1.4916681462400413e-154  /* sqrt(DBL_MIN) */
#define UFN_C128_MANT_DIG    53
#define UFN_C128_SCALE_UP    53                       /* 2 * (MANT_DIG / 2) + 1 */
#define UFN_C128_SCALE_DOWN  (-27)                    /* -(SCALE_UP + 1) / 2 */
#define UFN_C128_LN2         UFN_LN2
#define UFN_C128_LN4         (2.0 * UFN_LN2)
#define UFN_C128_LN10        UFN_LN10
#define UFN_C128_E           UFN_E
#define UFN_C128_PI_2        (UFN_PI / 2.0)

#define UFN_C64_LARGE        (FLT_MAX / 4.0f)
#define UFN_C64_SQRT_LARGE   9.2233715e+18f
#define UFN_C64_LOG_LARGE    87.33655f
#define UFN_C64_MIN          FLT_MIN
#define UFN_C64_SQRT_MIN     1.0842022e-19f
#define UFN_C64_MANT_DIG     24
#define UFN_C64_SCALE_UP     25
#define UFN_C64_SCALE_DOWN   (-13)
#define UFN_C64_LN2          ((float)UFN_LN2)
#define UFN_C64_LN4          ((float)(2.0 * UFN_LN2))
#define UFN_C64_LN10         ((float)UFN_LN10)
#define UFN_C64_E            ((float)UFN_E)
#define UFN_C64_PI_2         ((float)(UFN_PI / 2.0))

/* ---- complex128 ---------------------------------------------------------------------- */

UFN_FN ufn_c128 ufn_c128_make(double re, double im)
{
    ufn_c128 z;
    z.re = re;
    z.im = im;
    return z;
}

UFN_FN ufn_c128 ufn_c128_from_f64(double x)          { return ufn_c128_make(x, 0.0); }
UFN_FN ufn_c128 ufn_c128_add(ufn_c128 a, ufn_c128 b) { return ufn_c128_make(a.re + b.re, a.im + b.im); }
UFN_FN ufn_c128 ufn_c128_sub(ufn_c128 a, ufn_c128 b) { return ufn_c128_make(a.re - b.re, a.im - b.im); }
UFN_FN ufn_c128 ufn_c128_neg(ufn_c128 a)             { return ufn_c128_make(-a.re, -a.im); }
UFN_FN ufn_c128 ufn_c128_conj(ufn_c128 a)            { return ufn_c128_make(a.re, -a.im); }
UFN_FN int      ufn_c128_eq(ufn_c128 a, ufn_c128 b)  { return a.re == b.re && a.im == b.im; }
UFN_FN int      ufn_c128_ne(ufn_c128 a, ufn_c128 b)  { return !(a.re == b.re && a.im == b.im); }
UFN_FN double   ufn_c128_abs(ufn_c128 a)             { return hypot(a.re, a.im); }

/* The textbook product, as CPython, Numba and NumPy compute it (no C99 Annex G
 * recovery of infinities: (inf+0j) * (1+0j) has a nan imaginary part there too). */
UFN_FN ufn_c128 ufn_c128_mul(ufn_c128 a, ufn_c128 b)
{
    return ufn_c128_make(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re);
}

/* CPython's _Py_c_quot (Smith's method, dividing rather than multiplying by a
 * reciprocal), which Numba copies.
 * Rule: a zero divisor gives NumPy's answer (a.re / 0, a.im / 0), so
 *       (1+1j) / 0 == inf+infj and 0j / 0 == nan+nanj; Python raises. */
UFN_FN ufn_c128 ufn_c128_div(ufn_c128 a, ufn_c128 b)
{
    double abr = fabs(b.re), abi = fabs(b.im), ratio, denom;
    if (abr >= abi) {
        if (abr == 0.0)
            return ufn_c128_make(a.re / abr, a.im / abr);
        ratio = b.im / b.re;
        denom = b.re + b.im * ratio;
        return ufn_c128_make((a.re + a.im * ratio) / denom, (a.im - a.re * ratio) / denom);
    }
    if (abi >= abr) {
        ratio = b.re / b.im;
        denom = b.re * ratio + b.im;
        return ufn_c128_make((a.re * ratio + a.im) / denom, (a.im * ratio - a.re) / denom);
    }
    return ufn_c128_make(UFN_NAN_F64, UFN_NAN_F64);     /* a part of b is nan */
}

/* z ** w through the polar form: CPython's _Py_c_pow.
 * Rule: 0 ** w with w negative real or not real is nan+nanj (Numba's
 *       numba_cpow; Python raises ZeroDivisionError); 0 ** 0 == 1. */
UFN_FN ufn_c128 ufn_c128_pow_polar(ufn_c128 a, ufn_c128 b)
{
    double vabs, len, at, phase;
    if (b.re == 0.0 && b.im == 0.0)
        return ufn_c128_make(1.0, 0.0);
    if (a.re == 0.0 && a.im == 0.0) {
        if (b.im != 0.0 || b.re < 0.0)
            return ufn_c128_make(UFN_NAN_F64, UFN_NAN_F64);
        return ufn_c128_make(0.0, 0.0);
    }
    vabs = hypot(a.re, a.im);
    len = pow(vabs, b.re);
    at = atan2(a.im, a.re);
    phase = at * b.re;
    if (b.im != 0.0) {
        len /= exp(at * b.im);
        phase += b.im * log(vabs);
    }
    return ufn_c128_make(len * cos(phase), len * sin(phase));
}

/* z ** n for an integer n: CPython's c_powi, binary powering for |n| <= 100
 * (so small powers are exact products, as Python gives them), the polar form
 * beyond.  Rule: z ** 2 is z * z (Numba's special case; CPython's 1 * (z * z)
 * differs only in the sign of a zero imaginary part).  0 ** -n is nan+nanj. */
UFN_FN ufn_c128 ufn_c128_powi(ufn_c128 a, int64_t n)
{
    ufn_c128 r = ufn_c128_make(1.0, 0.0), p = a;
    uint64_t m = n < 0 ? 0u - (uint64_t)n : (uint64_t)n;
    if (n == 2)
        return ufn_c128_mul(a, a);
    if (m > 100)
        return ufn_c128_pow_polar(a, ufn_c128_make((double)n, 0.0));
    if (n < 0 && a.re == 0.0 && a.im == 0.0)
        return ufn_c128_make(UFN_NAN_F64, UFN_NAN_F64);
    while (m != 0) {
        if (m & 1)
            r = ufn_c128_mul(r, p);
        m >>= 1;
        p = ufn_c128_mul(p, p);
    }
    return n < 0 ? ufn_c128_div(ufn_c128_make(1.0, 0.0), r) : r;
}

/* complex ** complex, as Python's complex_pow: a real integral exponent up to
 * 100 in magnitude takes the exact integer path. */
UFN_FN ufn_c128 ufn_c128_pow(ufn_c128 a, ufn_c128 b)
{
    if (b.im == 0.0 && b.re == floor(b.re) && fabs(b.re) <= 100.0)
        return ufn_c128_powi(a, (int64_t)b.re);
    return ufn_c128_pow_polar(a, b);
}

/* ---- complex64: the same arithmetic in float ---------------------------------------- */

UFN_FN ufn_c64 ufn_c64_make(float re, float im)
{
    ufn_c64 z;
    z.re = re;
    z.im = im;
    return z;
}

UFN_FN ufn_c64 ufn_c64_from_f32(float x)          { return ufn_c64_make(x, 0.0f); }
UFN_FN ufn_c64 ufn_c64_add(ufn_c64 a, ufn_c64 b) { return ufn_c64_make(a.re + b.re, a.im + b.im); }
UFN_FN ufn_c64 ufn_c64_sub(ufn_c64 a, ufn_c64 b) { return ufn_c64_make(a.re - b.re, a.im - b.im); }
UFN_FN ufn_c64 ufn_c64_neg(ufn_c64 a)             { return ufn_c64_make(-a.re, -a.im); }
UFN_FN ufn_c64 ufn_c64_conj(ufn_c64 a)            { return ufn_c64_make(a.re, -a.im); }
UFN_FN int      ufn_c64_eq(ufn_c64 a, ufn_c64 b)  { return a.re == b.re && a.im == b.im; }
UFN_FN int      ufn_c64_ne(ufn_c64 a, ufn_c64 b)  { return !(a.re == b.re && a.im == b.im); }
UFN_FN float   ufn_c64_abs(ufn_c64 a)             { return hypotf(a.re, a.im); }

/* The textbook product, as CPython, Numba and NumPy compute it (no C99 Annex G
 * recovery of infinities: (inf+0j) * (1+0j) has a nan imaginary part there too). */
UFN_FN ufn_c64 ufn_c64_mul(ufn_c64 a, ufn_c64 b)
{
    return ufn_c64_make(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re);
}

/* CPython's _Py_c_quot (Smith's method, dividing rather than multiplying by a
 * reciprocal), which Numba copies.
 * Rule: a zero divisor gives NumPy's answer (a.re / 0, a.im / 0), so
 *       (1+1j) / 0 == inf+infj and 0j / 0 == nan+nanj; Python raises. */
UFN_FN ufn_c64 ufn_c64_div(ufn_c64 a, ufn_c64 b)
{
    float abr = fabsf(b.re), abi = fabsf(b.im), ratio, denom;
    if (abr >= abi) {
        if (abr == 0.0f)
            return ufn_c64_make(a.re / abr, a.im / abr);
        ratio = b.im / b.re;
        denom = b.re + b.im * ratio;
        return ufn_c64_make((a.re + a.im * ratio) / denom, (a.im - a.re * ratio) / denom);
    }
    if (abi >= abr) {
        ratio = b.re / b.im;
        denom = b.re * ratio + b.im;
        return ufn_c64_make((a.re * ratio + a.im) / denom, (a.im * ratio - a.re) / denom);
    }
    return ufn_c64_make(UFN_NAN_F32, UFN_NAN_F32);     /* a part of b is nan */
}

/* ---- conversions and complex64 ** ----------------------------------------------------- */

UFN_FN ufn_c128 ufn_c128_from_c64(ufn_c64 z) { return ufn_c128_make((double)z.re, (double)z.im); }
UFN_FN ufn_c64  ufn_c64_from_c128(ufn_c128 z) { return ufn_c64_make((float)z.re, (float)z.im); }

/* Rule: complex64 ** is computed in complex128 and rounded, as Numba's
 * numba_cpowf does: pow, exp and log in float would lose several ulp for
 * large exponents.  z ** 2 stays z * z in float (exact, Numba's rule). */
UFN_FN ufn_c64 ufn_c64_powi(ufn_c64 a, int64_t n)
{
    if (n == 2)
        return ufn_c64_mul(a, a);
    return ufn_c64_from_c128(ufn_c128_powi(ufn_c128_from_c64(a), n));
}

UFN_FN ufn_c64 ufn_c64_pow(ufn_c64 a, ufn_c64 b)
{
    if (b.re == 2.0f && b.im == 0.0f)
        return ufn_c64_mul(a, a);
    return ufn_c64_from_c128(ufn_c128_pow(ufn_c128_from_c64(a), ufn_c128_from_c64(b)));
}

/* ---- cmath, complex128 ---------------------------------------------------------------- */

UFN_FN int ufn_cisnan_c128(ufn_c128 z)    { return ufn_isnan_f64(z.re) || ufn_isnan_f64(z.im); }
UFN_FN int ufn_cisinf_c128(ufn_c128 z)    { return ufn_isinf_f64(z.re) || ufn_isinf_f64(z.im); }
UFN_FN int ufn_cisfinite_c128(ufn_c128 z) { return ufn_isfinite_f64(z.re) && ufn_isfinite_f64(z.im); }
UFN_FN double ufn_cphase_c128(ufn_c128 z) { return atan2(z.im, z.re); }

/* cmath.rect(r, phi) == r * (cos(phi) + i sin(phi)), without the nan that
 * inf * 0 would give (Numba's rect_impl, matching CPython's special values). */
UFN_FN ufn_c128 ufn_crect_c128(double r, double phi)
{
    double re, im;
    if (!ufn_isfinite_f64(phi)) {
        if (r == 0.0)
            return ufn_c128_make(fabs(r), 0.0);
        if (ufn_isinf_f64(r))
            return ufn_c128_make(r, phi);
    }
    re = cos(phi);
    im = sin(phi);
    if (re == 0.0 && ufn_isinf_f64(r))
        re /= r;
    else
        re *= r;
    if (im == 0.0 && ufn_isinf_f64(r))
        im /= r;
    else
        im *= r;
    return ufn_c128_make(re, im);
}

UFN_FN ufn_c128 ufn_cexp_c128(ufn_c128 z)
{
    double x = z.re, y = z.im, l, c, s;
    if (ufn_isfinite_f64(x)) {
        if (!ufn_isfinite_f64(y))
            return ufn_c128_make(UFN_NAN_F64, UFN_NAN_F64);
        if (x > UFN_C128_LOG_LARGE) {
            /* exp(x) overflows but exp(x) * cos(y) may not */
            l = exp(x - 1.0);
            return ufn_c128_make(l * cos(y) * UFN_C128_E, l * sin(y) * UFN_C128_E);
        }
        l = exp(x);
        return ufn_c128_make(l * cos(y), l * sin(y));
    }
    if (ufn_isnan_f64(x))
        return y != 0.0 ? ufn_c128_make(x, x) : ufn_c128_make(x, y);
    if (x > 0.0) {                      /* +inf */
        if (!ufn_isfinite_f64(y))
            return ufn_c128_make(x, UFN_NAN_F64);
        c = cos(y);
        s = sin(y);
        if (c != 0.0)
            c *= x;
        if (s != 0.0)
            s *= x;
        return ufn_c128_make(c, s);
    }
    if (!ufn_isfinite_f64(y))           /* -inf */
        return ufn_c128_make(0.0, 0.0);
    l = exp(x);
    return ufn_c128_make(l * cos(y), l * sin(y));
}

/* CPython's c_log: rescales when |z| is huge or subnormal, and uses log1p
 * near |z| == 1, where log(hypot()) would lose the answer's low bits.
 * log(0) is -inf + phase j (Python raises). */
UFN_FN ufn_c128 ufn_clog_c128(ufn_c128 z)
{
    double ax = fabs(z.re), ay = fabs(z.im), re, h, am, an;
    if (!ufn_isfinite_f64(z.re) || !ufn_isfinite_f64(z.im)) {
        re = log(hypot(z.re, z.im));
    } else if (ax > UFN_C128_LARGE || ay > UFN_C128_LARGE) {
        re = log(hypot(ax / 2.0, ay / 2.0)) + UFN_C128_LN2;
    } else if (ax < UFN_C128_MIN && ay < UFN_C128_MIN) {
        if (ax > 0.0 || ay > 0.0)
            re = log(hypot(ldexp(ax, UFN_C128_MANT_DIG), ldexp(ay, UFN_C128_MANT_DIG)))
                 - UFN_C128_MANT_DIG * UFN_C128_LN2;
        else
            re = -UFN_INF_F64;
    } else {
        h = hypot(ax, ay);
        if (0.71 <= h && h <= 1.73) {
            am = ax > ay ? ax : ay;
            an = ax > ay ? ay : ax;
            re = log1p((am - 1.0) * (am + 1.0) + an * an) / 2.0;
        } else {
            re = log(h);
        }
    }
    return ufn_c128_make(re, atan2(z.im, z.re));
}

UFN_FN ufn_c128 ufn_clog10_c128(ufn_c128 z)
{
    ufn_c128 r = ufn_clog_c128(z);
    return ufn_c128_make(r.re / UFN_C128_LN10, r.im / UFN_C128_LN10);
}

/* cmath.log(z, base) == log(z) / log(base) */
UFN_FN ufn_c128 ufn_clog_base_c128(ufn_c128 z, ufn_c128 base)
{
    return ufn_c128_div(ufn_clog_c128(z), ufn_clog_c128(base));
}

/* Special values as Numba's sqrt_impl (NumPy's npy_csqrt), the finite case as
 * CPython's cmath_sqrt_impl: scaled by 1/8 against overflow, by 2**SCALE_UP
 * against subnormal hypot.  Branch cut on the negative real axis, continuous
 * with the sign of a zero imaginary part: sqrt(-1-0j) == -1j. */
UFN_FN ufn_c128 ufn_csqrt_c128(ufn_c128 z)
{
    double a = z.re, b = z.im, ax, ay, s, d;
    if (a == 0.0 && b == 0.0)
        return ufn_c128_make(0.0, b);
    if (ufn_isinf_f64(b))
        return ufn_c128_make(UFN_INF_F64, b);
    if (ufn_isnan_f64(a))
        return ufn_c128_make(a, a);
    if (ufn_isinf_f64(a)) {
        if (a < 0.0)
            return ufn_c128_make(fabs(b - b), copysign(a, b));
        return ufn_c128_make(a, copysign(b - b, b));
    }
    ax = fabs(a);
    ay = fabs(b);
    if (ax < UFN_C128_MIN && ay < UFN_C128_MIN) {
        ax = ldexp(ax, UFN_C128_SCALE_UP);
        s = ldexp(sqrt(ax + hypot(ax, ldexp(ay, UFN_C128_SCALE_UP))), UFN_C128_SCALE_DOWN);
    } else {
        ax /= 8.0;
        s = 2.0 * sqrt(ax + hypot(ax, ay / 8.0));
    }
    d = ay / (2.0 * s);
    if (a >= 0.0)
        return ufn_c128_make(s, copysign(d, b));
    return ufn_c128_make(d, copysign(s, b));
}

UFN_FN ufn_c128 ufn_ccosh_c128(ufn_c128 z)
{
    double x = z.re, y = z.im, re, im, x1;
    if (ufn_isinf_f64(x)) {
        if (ufn_isnan_f64(y) || y == 0.0) {
            re = fabs(x);
            im = y;
        } else {
            re = copysign(x, cos(y));
            im = copysign(x, sin(y));
        }
        if (x < 0.0)
            im = -im;
        return ufn_c128_make(re, im);
    }
    if (fabs(x) > UFN_C128_LOG_LARGE) {
        /* cosh(x) overflows but cosh(x) * cos(y) may not */
        x1 = x - copysign(1.0, x);
        return ufn_c128_make(cos(y) * cosh(x1) * UFN_C128_E, sin(y) * sinh(x1) * UFN_C128_E);
    }
    /* cosh(nan + 0j) is nan+0j in Python's table, not nan+nanj */
    return ufn_c128_make(cos(y) * cosh(x), y == 0.0 && ufn_isnan_f64(x) ? y : sin(y) * sinh(x));
}

UFN_FN ufn_c128 ufn_csinh_c128(ufn_c128 z)
{
    double x = z.re, y = z.im, re, im, x1;
    if (ufn_isinf_f64(x)) {
        if (ufn_isnan_f64(y))
            return ufn_c128_make(x, y);
        re = cos(y);
        im = sin(y);
        if (re != 0.0)
            re *= x;
        if (im != 0.0)
            im *= fabs(x);
        return ufn_c128_make(re, im);
    }
    if (fabs(x) > UFN_C128_LOG_LARGE) {
        x1 = x - copysign(1.0, x);
        return ufn_c128_make(cos(y) * sinh(x1) * UFN_C128_E, sin(y) * cosh(x1) * UFN_C128_E);
    }
    /* y == 0: the imaginary part is y (cosh > 0), also for a nan x as in Python */
    return ufn_c128_make(cos(y) * sinh(x), y == 0.0 ? y : sin(y) * cosh(x));
}

/* CPython's c_tanh: 1 - tanh(x)**2 is computed as 1 / cosh(x)**2, and for
 * large |x| as 4 exp(-2|x|), so nothing overflows. */
UFN_FN ufn_c128 ufn_ctanh_c128(ufn_c128 z)
{
    double x = z.re, y = z.im, tx, ty, cx, txty, denom;
    if (ufn_isinf_f64(x))
        return ufn_c128_make(copysign(1.0, x),
                             ufn_isinf_f64(y) ? 0.0 : copysign(0.0, sin(2.0 * y)));
    if (fabs(x) > UFN_C128_LOG_LARGE)
        return ufn_c128_make(copysign(1.0, x), 4.0 * sin(y) * cos(y) * exp(-2.0 * fabs(x)));
    tx = tanh(x);
    ty = tan(y);
    cx = 1.0 / cosh(x);
    txty = tx * ty;
    denom = 1.0 + txty * txty;
    return ufn_c128_make(tx * (1.0 + ty * ty) / denom, y == 0.0 ? y : ((ty / denom) * cx) * cx);
}

/* cos(z) == cosh(iz), sin(z) == -i sinh(iz), tan(z) == -i tanh(iz) */
UFN_FN ufn_c128 ufn_ccos_c128(ufn_c128 z)
{
    return ufn_ccosh_c128(ufn_c128_make(-z.im, z.re));
}

UFN_FN ufn_c128 ufn_csin_c128(ufn_c128 z)
{
    ufn_c128 r = ufn_csinh_c128(ufn_c128_make(-z.im, z.re));
    return ufn_c128_make(r.im, -r.re);
}

UFN_FN ufn_c128 ufn_ctan_c128(ufn_c128 z)
{
    ufn_c128 r = ufn_ctanh_c128(ufn_c128_make(-z.im, z.re));
    return ufn_c128_make(r.im, -r.re);
}

/* The inverse functions are CPython's (Kahan's formulas from products of
 * square roots, which keep the branch cuts continuous with the sign of zero),
 * with the asymptotic form log(2|z|) when |z| is so large that 1 +- z^2 would
 * overflow. */
UFN_FN ufn_c128 ufn_cacos_c128(ufn_c128 z)
{
    ufn_c128 s1, s2;
    if (fabs(z.re) > UFN_C128_LARGE || fabs(z.im) > UFN_C128_LARGE)
        return ufn_c128_make(atan2(fabs(z.im), z.re),
                             copysign(log(hypot(z.re * 0.5, z.im * 0.5)) + UFN_C128_LN4, -z.im));
    s1 = ufn_csqrt_c128(ufn_c128_make(1.0 - z.re, -z.im));
    s2 = ufn_csqrt_c128(ufn_c128_make(1.0 + z.re, z.im));
    return ufn_c128_make(2.0 * atan2(s1.re, s2.re), asinh(s2.re * s1.im - s2.im * s1.re));
}

UFN_FN ufn_c128 ufn_cacosh_c128(ufn_c128 z)
{
    ufn_c128 s1, s2;
    if (fabs(z.re) > UFN_C128_LARGE || fabs(z.im) > UFN_C128_LARGE)
        return ufn_c128_make(log(hypot(z.re * 0.5, z.im * 0.5)) + UFN_C128_LN4, atan2(z.im, z.re));
    s1 = ufn_csqrt_c128(ufn_c128_make(z.re - 1.0, z.im));
    s2 = ufn_csqrt_c128(ufn_c128_make(z.re + 1.0, z.im));
    return ufn_c128_make(asinh(s1.re * s2.re + s1.im * s2.im), 2.0 * atan2(s1.im, s2.re));
}

UFN_FN ufn_c128 ufn_casinh_c128(ufn_c128 z)
{
    ufn_c128 s1, s2;
    if (fabs(z.re) > UFN_C128_LARGE || fabs(z.im) > UFN_C128_LARGE)
        return ufn_c128_make(copysign(log(hypot(z.re * 0.5, z.im * 0.5)) + UFN_C128_LN4, z.re),
                             atan2(z.im, fabs(z.re)));
    s1 = ufn_csqrt_c128(ufn_c128_make(1.0 + z.im, -z.re));
    s2 = ufn_csqrt_c128(ufn_c128_make(1.0 - z.im, z.re));
    return ufn_c128_make(asinh(s1.re * s2.im - s2.re * s1.im),
                         atan2(z.im, s1.re * s2.re - s1.im * s2.im));
}

/* asin(z) == -i asinh(iz) */
UFN_FN ufn_c128 ufn_casin_c128(ufn_c128 z)
{
    ufn_c128 r = ufn_casinh_c128(ufn_c128_make(-z.im, z.re));
    return ufn_c128_make(r.im, -r.re);
}

/* CPython's c_atanh, reduced to re >= 0 by atanh(-z) == -atanh(z); special
 * values as Numba's atanh_impl. */
UFN_FN ufn_c128 ufn_catanh_c128(ufn_c128 z)
{
    int negate = z.re < 0.0;
    double x = negate ? -z.re : z.re, y = negate ? -z.im : z.im;
    double ay = fabs(y), re, im, h, x1;
    if (ufn_isnan_f64(x) || x > UFN_C128_SQRT_LARGE || ay > UFN_C128_SQRT_LARGE) {
        /* |z| large: atanh(z) ~ 1/z +- i pi/2 */
        if (ufn_isinf_f64(y)) {
            re = copysign(0.0, x);
        } else if (ufn_isinf_f64(x)) {
            re = 0.0;
        } else {
            h = hypot(x * 0.5, y * 0.5);
            re = x / 4.0 / h / h;
        }
        im = -copysign(UFN_C128_PI_2, -y);
        if (ufn_isnan_f64(x) && !ufn_isinf_f64(y))
            im = re;    /* nan: atanh(nan + yj) is nan+nanj for finite y */
    } else if (x == 1.0 && ay < UFN_C128_SQRT_MIN) {
        if (ay == 0.0) {
            re = UFN_INF_F64;
            im = y;
        } else {
            re = -log(sqrt(ay) / sqrt(hypot(ay, 2.0)));
            im = copysign(atan2(2.0, -ay) / 2.0, y);
        }
    } else {
        x1 = 1.0 - x;
        re = log1p(4.0 * x / (x1 * x1 + ay * ay)) / 4.0;
        im = -atan2(-2.0 * y, x1 * (1.0 + x) - ay * ay) / 2.0;
    }
    if (ufn_isnan_f64(y))
        im = UFN_NAN_F64;
    return negate ? ufn_c128_make(-re, -im) : ufn_c128_make(re, im);
}

/* atan(z) == -i atanh(iz) */
UFN_FN ufn_c128 ufn_catan_c128(ufn_c128 z)
{
    ufn_c128 r = ufn_catanh_c128(ufn_c128_make(-z.im, z.re));
    if (ufn_isinf_f64(z.re) && ufn_isnan_f64(z.im))
        return ufn_c128_make(r.im, r.re);     /* Numba's (and CPython's) sign here */
    return ufn_c128_make(r.im, -r.re);
}
/* ---- cmath, complex64: the same algorithms in float ---------------------------------- */

UFN_FN int ufn_cisnan_c64(ufn_c64 z)    { return ufn_isnan_f32(z.re) || ufn_isnan_f32(z.im); }
UFN_FN int ufn_cisinf_c64(ufn_c64 z)    { return ufn_isinf_f32(z.re) || ufn_isinf_f32(z.im); }
UFN_FN int ufn_cisfinite_c64(ufn_c64 z) { return ufn_isfinite_f32(z.re) && ufn_isfinite_f32(z.im); }
UFN_FN float ufn_cphase_c64(ufn_c64 z) { return atan2f(z.im, z.re); }

UFN_FN ufn_c64 ufn_crect_c64(float r, float phi)
{
    float re, im;
    if (!ufn_isfinite_f32(phi)) {
        if (r == 0.0f)
            return ufn_c64_make(fabsf(r), 0.0f);
        if (ufn_isinf_f32(r))
            return ufn_c64_make(r, phi);
    }
    re = cosf(phi);
    im = sinf(phi);
    if (re == 0.0f && ufn_isinf_f32(r))
        re /= r;
    else
        re *= r;
    if (im == 0.0f && ufn_isinf_f32(r))
        im /= r;
    else
        im *= r;
    return ufn_c64_make(re, im);
}

UFN_FN ufn_c64 ufn_cexp_c64(ufn_c64 z)
{
    float x = z.re, y = z.im, l, c, s;
    if (ufn_isfinite_f32(x)) {
        if (!ufn_isfinite_f32(y))
            return ufn_c64_make(UFN_NAN_F32, UFN_NAN_F32);
        if (x > UFN_C64_LOG_LARGE) {
            /* expf(x) overflows but expf(x) * cosf(y) may not */
            l = expf(x - 1.0f);
            return ufn_c64_make(l * cosf(y) * UFN_C64_E, l * sinf(y) * UFN_C64_E);
        }
        l = expf(x);
        return ufn_c64_make(l * cosf(y), l * sinf(y));
    }
    if (ufn_isnan_f32(x))
        return y != 0.0f ? ufn_c64_make(x, x) : ufn_c64_make(x, y);
    if (x > 0.0f) {                      /* +inf */
        if (!ufn_isfinite_f32(y))
            return ufn_c64_make(x, UFN_NAN_F32);
        c = cosf(y);
        s = sinf(y);
        if (c != 0.0f)
            c *= x;
        if (s != 0.0f)
            s *= x;
        return ufn_c64_make(c, s);
    }
    if (!ufn_isfinite_f32(y))           /* -inf */
        return ufn_c64_make(0.0f, 0.0f);
    l = expf(x);
    return ufn_c64_make(l * cosf(y), l * sinf(y));
}

UFN_FN ufn_c64 ufn_clog_c64(ufn_c64 z)
{
    float ax = fabsf(z.re), ay = fabsf(z.im), re, h, am, an;
    if (!ufn_isfinite_f32(z.re) || !ufn_isfinite_f32(z.im)) {
        re = logf(hypotf(z.re, z.im));
    } else if (ax > UFN_C64_LARGE || ay > UFN_C64_LARGE) {
        re = logf(hypotf(ax / 2.0f, ay / 2.0f)) + UFN_C64_LN2;
    } else if (ax < UFN_C64_MIN && ay < UFN_C64_MIN) {
        if (ax > 0.0f || ay > 0.0f)
            re = logf(hypotf(ldexpf(ax, UFN_C64_MANT_DIG), ldexpf(ay, UFN_C64_MANT_DIG)))
                 - UFN_C64_MANT_DIG * UFN_C64_LN2;
        else
            re = -UFN_INF_F32;
    } else {
        h = hypotf(ax, ay);
        if (0.71f <= h && h <= 1.73f) {
            am = ax > ay ? ax : ay;
            an = ax > ay ? ay : ax;
            re = log1pf((am - 1.0f) * (am + 1.0f) + an * an) / 2.0f;
        } else {
            re = logf(h);
        }
    }
    return ufn_c64_make(re, atan2f(z.im, z.re));
}

UFN_FN ufn_c64 ufn_clog10_c64(ufn_c64 z)
{
    ufn_c64 r = ufn_clog_c64(z);
    return ufn_c64_make(r.re / UFN_C64_LN10, r.im / UFN_C64_LN10);
}

UFN_FN ufn_c64 ufn_clog_base_c64(ufn_c64 z, ufn_c64 base)
{
    return ufn_c64_div(ufn_clog_c64(z), ufn_clog_c64(base));
}

UFN_FN ufn_c64 ufn_csqrt_c64(ufn_c64 z)
{
    float a = z.re, b = z.im, ax, ay, s, d;
    if (a == 0.0f && b == 0.0f)
        return ufn_c64_make(0.0f, b);
    if (ufn_isinf_f32(b))
        return ufn_c64_make(UFN_INF_F32, b);
    if (ufn_isnan_f32(a))
        return ufn_c64_make(a, a);
    if (ufn_isinf_f32(a)) {
        if (a < 0.0f)
            return ufn_c64_make(fabsf(b - b), copysignf(a, b));
        return ufn_c64_make(a, copysignf(b - b, b));
    }
    ax = fabsf(a);
    ay = fabsf(b);
    if (ax < UFN_C64_MIN && ay < UFN_C64_MIN) {
        ax = ldexpf(ax, UFN_C64_SCALE_UP);
        s = ldexpf(sqrtf(ax + hypotf(ax, ldexpf(ay, UFN_C64_SCALE_UP))), UFN_C64_SCALE_DOWN);
    } else {
        ax /= 8.0f;
        s = 2.0f * sqrtf(ax + hypotf(ax, ay / 8.0f));
    }
    d = ay / (2.0f * s);
    if (a >= 0.0f)
        return ufn_c64_make(s, copysignf(d, b));
    return ufn_c64_make(d, copysignf(s, b));
}

UFN_FN ufn_c64 ufn_ccosh_c64(ufn_c64 z)
{
    float x = z.re, y = z.im, re, im, x1;
    if (ufn_isinf_f32(x)) {
        if (ufn_isnan_f32(y) || y == 0.0f) {
            re = fabsf(x);
            im = y;
        } else {
            re = copysignf(x, cosf(y));
            im = copysignf(x, sinf(y));
        }
        if (x < 0.0f)
            im = -im;
        return ufn_c64_make(re, im);
    }
    if (fabsf(x) > UFN_C64_LOG_LARGE) {
        /* coshf(x) overflows but coshf(x) * cosf(y) may not */
        x1 = x - copysignf(1.0f, x);
        return ufn_c64_make(cosf(y) * coshf(x1) * UFN_C64_E, sinf(y) * sinhf(x1) * UFN_C64_E);
    }
    /* y == 0: the imaginary part is y itself, also for a nan x (Python's table) */
    return ufn_c64_make(cosf(y) * coshf(x), y == 0.0f && ufn_isnan_f32(x) ? y : sinf(y) * sinhf(x));
}

UFN_FN ufn_c64 ufn_csinh_c64(ufn_c64 z)
{
    float x = z.re, y = z.im, re, im, x1;
    if (ufn_isinf_f32(x)) {
        if (ufn_isnan_f32(y))
            return ufn_c64_make(x, y);
        re = cosf(y);
        im = sinf(y);
        if (re != 0.0f)
            re *= x;
        if (im != 0.0f)
            im *= fabsf(x);
        return ufn_c64_make(re, im);
    }
    if (fabsf(x) > UFN_C64_LOG_LARGE) {
        x1 = x - copysignf(1.0f, x);
        return ufn_c64_make(cosf(y) * sinhf(x1) * UFN_C64_E, sinf(y) * coshf(x1) * UFN_C64_E);
    }
    return ufn_c64_make(cosf(y) * sinhf(x), y == 0.0f ? y : sinf(y) * coshf(x));
}

UFN_FN ufn_c64 ufn_ctanh_c64(ufn_c64 z)
{
    float x = z.re, y = z.im, tx, ty, cx, txty, denom;
    if (ufn_isinf_f32(x))
        return ufn_c64_make(copysignf(1.0f, x),
                             ufn_isinf_f32(y) ? 0.0f : copysignf(0.0f, sinf(2.0f * y)));
    if (fabsf(x) > UFN_C64_LOG_LARGE)
        return ufn_c64_make(copysignf(1.0f, x), 4.0f * sinf(y) * cosf(y) * expf(-2.0f * fabsf(x)));
    tx = tanhf(x);
    ty = tanf(y);
    cx = 1.0f / coshf(x);
    txty = tx * ty;
    denom = 1.0f + txty * txty;
    return ufn_c64_make(tx * (1.0f + ty * ty) / denom, y == 0.0f ? y : ((ty / denom) * cx) * cx);
}

UFN_FN ufn_c64 ufn_ccos_c64(ufn_c64 z)
{
    return ufn_ccosh_c64(ufn_c64_make(-z.im, z.re));
}

UFN_FN ufn_c64 ufn_csin_c64(ufn_c64 z)
{
    ufn_c64 r = ufn_csinh_c64(ufn_c64_make(-z.im, z.re));
    return ufn_c64_make(r.im, -r.re);
}

UFN_FN ufn_c64 ufn_ctan_c64(ufn_c64 z)
{
    ufn_c64 r = ufn_ctanh_c64(ufn_c64_make(-z.im, z.re));
    return ufn_c64_make(r.im, -r.re);
}

UFN_FN ufn_c64 ufn_cacos_c64(ufn_c64 z)
{
    ufn_c64 s1, s2;
    if (fabsf(z.re) > UFN_C64_LARGE || fabsf(z.im) > UFN_C64_LARGE)
        return ufn_c64_make(atan2f(fabsf(z.im), z.re),
                             copysignf(logf(hypotf(z.re * 0.5f, z.im * 0.5f)) + UFN_C64_LN4, -z.im));
    s1 = ufn_csqrt_c64(ufn_c64_make(1.0f - z.re, -z.im));
    s2 = ufn_csqrt_c64(ufn_c64_make(1.0f + z.re, z.im));
    return ufn_c64_make(2.0f * atan2f(s1.re, s2.re), asinhf(s2.re * s1.im - s2.im * s1.re));
}

UFN_FN ufn_c64 ufn_cacosh_c64(ufn_c64 z)
{
    ufn_c64 s1, s2;
    if (fabsf(z.re) > UFN_C64_LARGE || fabsf(z.im) > UFN_C64_LARGE)
        return ufn_c64_make(logf(hypotf(z.re * 0.5f, z.im * 0.5f)) + UFN_C64_LN4, atan2f(z.im, z.re));
    s1 = ufn_csqrt_c64(ufn_c64_make(z.re - 1.0f, z.im));
    s2 = ufn_csqrt_c64(ufn_c64_make(z.re + 1.0f, z.im));
    return ufn_c64_make(asinhf(s1.re * s2.re + s1.im * s2.im), 2.0f * atan2f(s1.im, s2.re));
}

UFN_FN ufn_c64 ufn_casinh_c64(ufn_c64 z)
{
    ufn_c64 s1, s2;
    if (fabsf(z.re) > UFN_C64_LARGE || fabsf(z.im) > UFN_C64_LARGE)
        return ufn_c64_make(copysignf(logf(hypotf(z.re * 0.5f, z.im * 0.5f)) + UFN_C64_LN4, z.re),
                             atan2f(z.im, fabsf(z.re)));
    s1 = ufn_csqrt_c64(ufn_c64_make(1.0f + z.im, -z.re));
    s2 = ufn_csqrt_c64(ufn_c64_make(1.0f - z.im, z.re));
    return ufn_c64_make(asinhf(s1.re * s2.im - s2.re * s1.im),
                         atan2f(z.im, s1.re * s2.re - s1.im * s2.im));
}

UFN_FN ufn_c64 ufn_casin_c64(ufn_c64 z)
{
    ufn_c64 r = ufn_casinh_c64(ufn_c64_make(-z.im, z.re));
    return ufn_c64_make(r.im, -r.re);
}

UFN_FN ufn_c64 ufn_catanh_c64(ufn_c64 z)
{
    int negate = z.re < 0.0f;
    float x = negate ? -z.re : z.re, y = negate ? -z.im : z.im;
    float ay = fabsf(y), re, im, h, x1;
    if (ufn_isnan_f32(x) || x > UFN_C64_SQRT_LARGE || ay > UFN_C64_SQRT_LARGE) {
        /* |z| large: atanh(z) ~ 1/z +- i pi/2 */
        if (ufn_isinf_f32(y)) {
            re = copysignf(0.0f, x);
        } else if (ufn_isinf_f32(x)) {
            re = 0.0f;
        } else {
            h = hypotf(x * 0.5f, y * 0.5f);
            re = x / 4.0f / h / h;
        }
        im = -copysignf(UFN_C64_PI_2, -y);
        if (ufn_isnan_f32(x) && !ufn_isinf_f32(y))
            im = re;    /* nan: atanh(nan + yj) is nan+nanj for finite y */
    } else if (x == 1.0f && ay < UFN_C64_SQRT_MIN) {
        if (ay == 0.0f) {
            re = UFN_INF_F32;
            im = y;
        } else {
            re = -logf(sqrtf(ay) / sqrtf(hypotf(ay, 2.0f)));
            im = copysignf(atan2f(2.0f, -ay) / 2.0f, y);
        }
    } else {
        x1 = 1.0f - x;
        re = log1pf(4.0f * x / (x1 * x1 + ay * ay)) / 4.0f;
        im = -atan2f(-2.0f * y, x1 * (1.0f + x) - ay * ay) / 2.0f;
    }
    if (ufn_isnan_f32(y))
        im = UFN_NAN_F32;
    return negate ? ufn_c64_make(-re, -im) : ufn_c64_make(re, im);
}

UFN_FN ufn_c64 ufn_catan_c64(ufn_c64 z)
{
    ufn_c64 r = ufn_catanh_c64(ufn_c64_make(-z.im, z.re));
    if (ufn_isinf_f32(z.re) && ufn_isnan_f32(z.im))
        return ufn_c64_make(r.im, r.re);     /* Numba's (and CPython's) sign here */
    return ufn_c64_make(r.im, -r.re);
}
#endif /* UFN_COMPLEX_H */
