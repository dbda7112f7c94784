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
 * test_ufn_math.c.  The real functions used are ufn_libm.h's and nothing
 * here asks for a fused multiply-add, so the GPU, the simulator and the host
 * loops compute the same bits (given ufnc's -ffp-contract=off and nvcc's
 * -fmad=false).
 */
#ifndef UFN_COMPLEX_H
#define UFN_COMPLEX_H

typedef struct { float re, im; } ufn_c64;
typedef struct { double re, im; } ufn_c128;

/* Thresholds of CPython's cmathmodule.c (CM_LARGE_DOUBLE and friends), for
 * double and for float. */
#define UFN_C128_LARGE       (DBL_MAX / 4.0)          /* 1 + |z|^2 would overflow */
#define UFN_C128_SQRT_LARGE  6.703903964971298e+153   /* ufn_sqrt_f64(LARGE) */
#define UFN_C128_LOG_LARGE   708.3964185322641        /* ufn_log_f64(LARGE) */
#define UFN_C128_MIN         DBL_MIN
#define UFN_C128_SQRT_MIN    1.4916681462400413e-154  /* ufn_sqrt_f64(DBL_MIN) */
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
UFN_FN double   ufn_c128_abs(ufn_c128 a)             { return ufn_hypot_f64(a.re, a.im); }

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
    double abr = ufn_fabs_f64(b.re), abi = ufn_fabs_f64(b.im), ratio, denom;
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
    vabs = ufn_hypot_f64(a.re, a.im);
    len = ufn_pow_f64(vabs, b.re);
    at = ufn_atan2_f64(a.im, a.re);
    phase = at * b.re;
    if (b.im != 0.0) {
        len /= ufn_exp_f64(at * b.im);
        phase += b.im * ufn_log_f64(vabs);
    }
    return ufn_c128_make(len * ufn_cos_f64(phase), len * ufn_sin_f64(phase));
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
    if (b.im == 0.0 && b.re == ufn_floor_f64(b.re) && ufn_fabs_f64(b.re) <= 100.0)
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
UFN_FN float   ufn_c64_abs(ufn_c64 a)             { return ufn_hypot_f32(a.re, a.im); }

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
    float abr = ufn_fabs_f32(b.re), abi = ufn_fabs_f32(b.im), ratio, denom;
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
UFN_FN double ufn_cphase_c128(ufn_c128 z) { return ufn_atan2_f64(z.im, z.re); }

/* cmath.rect(r, phi) == r * (ufn_cos_f64(phi) + i ufn_sin_f64(phi)), without the nan that
 * inf * 0 would give (Numba's rect_impl, matching CPython's special values). */
UFN_FN ufn_c128 ufn_crect_c128(double r, double phi)
{
    double re, im;
    if (!ufn_isfinite_f64(phi)) {
        if (r == 0.0)
            return ufn_c128_make(ufn_fabs_f64(r), 0.0);
        if (ufn_isinf_f64(r))
            return ufn_c128_make(r, phi);
    }
    re = ufn_cos_f64(phi);
    im = ufn_sin_f64(phi);
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
            /* ufn_exp_f64(x) overflows but ufn_exp_f64(x) * ufn_cos_f64(y) may not */
            l = ufn_exp_f64(x - 1.0);
            return ufn_c128_make(l * ufn_cos_f64(y) * UFN_C128_E, l * ufn_sin_f64(y) * UFN_C128_E);
        }
        l = ufn_exp_f64(x);
        return ufn_c128_make(l * ufn_cos_f64(y), l * ufn_sin_f64(y));
    }
    if (ufn_isnan_f64(x))
        return y != 0.0 ? ufn_c128_make(x, x) : ufn_c128_make(x, y);
    if (x > 0.0) {                      /* +inf */
        if (!ufn_isfinite_f64(y))
            return ufn_c128_make(x, UFN_NAN_F64);
        c = ufn_cos_f64(y);
        s = ufn_sin_f64(y);
        if (c != 0.0)
            c *= x;
        if (s != 0.0)
            s *= x;
        return ufn_c128_make(c, s);
    }
    if (!ufn_isfinite_f64(y))           /* -inf */
        return ufn_c128_make(0.0, 0.0);
    l = ufn_exp_f64(x);
    return ufn_c128_make(l * ufn_cos_f64(y), l * ufn_sin_f64(y));
}

/* CPython's c_log: rescales when |z| is huge or subnormal, and uses log1p
 * near |z| == 1, where ufn_log_f64(ufn_hypot_f64()) would lose the answer's low bits.
 * ufn_log_f64(0) is -inf + phase j (Python raises). */
UFN_FN ufn_c128 ufn_clog_c128(ufn_c128 z)
{
    double ax = ufn_fabs_f64(z.re), ay = ufn_fabs_f64(z.im), re, h, am, an;
    if (!ufn_isfinite_f64(z.re) || !ufn_isfinite_f64(z.im)) {
        re = ufn_log_f64(ufn_hypot_f64(z.re, z.im));
    } else if (ax > UFN_C128_LARGE || ay > UFN_C128_LARGE) {
        re = ufn_log_f64(ufn_hypot_f64(ax / 2.0, ay / 2.0)) + UFN_C128_LN2;
    } else if (ax < UFN_C128_MIN && ay < UFN_C128_MIN) {
        if (ax > 0.0 || ay > 0.0)
            re = ufn_log_f64(ufn_hypot_f64(ufn_ldexp_f64(ax, UFN_C128_MANT_DIG), ufn_ldexp_f64(ay, UFN_C128_MANT_DIG)))
                 - UFN_C128_MANT_DIG * UFN_C128_LN2;
        else
            re = -UFN_INF_F64;
    } else {
        h = ufn_hypot_f64(ax, ay);
        if (0.71 <= h && h <= 1.73) {
            am = ax > ay ? ax : ay;
            an = ax > ay ? ay : ax;
            re = ufn_log1p_f64((am - 1.0) * (am + 1.0) + an * an) / 2.0;
        } else {
            re = ufn_log_f64(h);
        }
    }
    return ufn_c128_make(re, ufn_atan2_f64(z.im, z.re));
}

UFN_FN ufn_c128 ufn_clog10_c128(ufn_c128 z)
{
    ufn_c128 r = ufn_clog_c128(z);
    return ufn_c128_make(r.re / UFN_C128_LN10, r.im / UFN_C128_LN10);
}

/* cmath.ufn_log_f64(z, base) == ufn_log_f64(z) / ufn_log_f64(base) */
UFN_FN ufn_c128 ufn_clog_base_c128(ufn_c128 z, ufn_c128 base)
{
    return ufn_c128_div(ufn_clog_c128(z), ufn_clog_c128(base));
}

/* Special values as Numba's sqrt_impl (NumPy's npy_csqrt), the finite case as
 * CPython's cmath_sqrt_impl: scaled by 1/8 against overflow, by 2**SCALE_UP
 * against subnormal hypot.  Branch cut on the negative real axis, continuous
 * with the sign of a zero imaginary part: ufn_sqrt_f64(-1-0j) == -1j. */
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
            return ufn_c128_make(ufn_fabs_f64(b - b), ufn_copysign_f64(a, b));
        return ufn_c128_make(a, ufn_copysign_f64(b - b, b));
    }
    ax = ufn_fabs_f64(a);
    ay = ufn_fabs_f64(b);
    if (ax < UFN_C128_MIN && ay < UFN_C128_MIN) {
        ax = ufn_ldexp_f64(ax, UFN_C128_SCALE_UP);
        s = ufn_ldexp_f64(ufn_sqrt_f64(ax + ufn_hypot_f64(ax, ufn_ldexp_f64(ay, UFN_C128_SCALE_UP))), UFN_C128_SCALE_DOWN);
    } else {
        ax /= 8.0;
        s = 2.0 * ufn_sqrt_f64(ax + ufn_hypot_f64(ax, ay / 8.0));
    }
    d = ay / (2.0 * s);
    if (a >= 0.0)
        return ufn_c128_make(s, ufn_copysign_f64(d, b));
    return ufn_c128_make(d, ufn_copysign_f64(s, b));
}

UFN_FN ufn_c128 ufn_ccosh_c128(ufn_c128 z)
{
    double x = z.re, y = z.im, re, im, x1;
    if (ufn_isinf_f64(x)) {
        if (ufn_isnan_f64(y) || y == 0.0) {
            re = ufn_fabs_f64(x);
            im = y;
        } else {
            re = ufn_copysign_f64(x, ufn_cos_f64(y));
            im = ufn_copysign_f64(x, ufn_sin_f64(y));
        }
        if (x < 0.0)
            im = -im;
        return ufn_c128_make(re, im);
    }
    if (ufn_fabs_f64(x) > UFN_C128_LOG_LARGE) {
        /* ufn_cosh_f64(x) overflows but ufn_cosh_f64(x) * ufn_cos_f64(y) may not */
        x1 = x - ufn_copysign_f64(1.0, x);
        return ufn_c128_make(ufn_cos_f64(y) * ufn_cosh_f64(x1) * UFN_C128_E, ufn_sin_f64(y) * ufn_sinh_f64(x1) * UFN_C128_E);
    }
    /* ufn_cosh_f64(nan + 0j) is nan+0j in Python's table, not nan+nanj */
    return ufn_c128_make(ufn_cos_f64(y) * ufn_cosh_f64(x), y == 0.0 && ufn_isnan_f64(x) ? y : ufn_sin_f64(y) * ufn_sinh_f64(x));
}

UFN_FN ufn_c128 ufn_csinh_c128(ufn_c128 z)
{
    double x = z.re, y = z.im, re, im, x1;
    if (ufn_isinf_f64(x)) {
        if (ufn_isnan_f64(y))
            return ufn_c128_make(x, y);
        re = ufn_cos_f64(y);
        im = ufn_sin_f64(y);
        if (re != 0.0)
            re *= x;
        if (im != 0.0)
            im *= ufn_fabs_f64(x);
        return ufn_c128_make(re, im);
    }
    if (ufn_fabs_f64(x) > UFN_C128_LOG_LARGE) {
        x1 = x - ufn_copysign_f64(1.0, x);
        return ufn_c128_make(ufn_cos_f64(y) * ufn_sinh_f64(x1) * UFN_C128_E, ufn_sin_f64(y) * ufn_cosh_f64(x1) * UFN_C128_E);
    }
    /* y == 0: the imaginary part is y (cosh > 0), also for a nan x as in Python */
    return ufn_c128_make(ufn_cos_f64(y) * ufn_sinh_f64(x), y == 0.0 ? y : ufn_sin_f64(y) * ufn_cosh_f64(x));
}

/* CPython's c_tanh: 1 - ufn_tanh_f64(x)**2 is computed as 1 / ufn_cosh_f64(x)**2, and for
 * large |x| as 4 ufn_exp_f64(-2|x|), so nothing overflows. */
UFN_FN ufn_c128 ufn_ctanh_c128(ufn_c128 z)
{
    double x = z.re, y = z.im, tx, ty, cx, txty, denom;
    if (ufn_isinf_f64(x))
        return ufn_c128_make(ufn_copysign_f64(1.0, x),
                             ufn_isinf_f64(y) ? 0.0 : ufn_copysign_f64(0.0, ufn_sin_f64(2.0 * y)));
    if (ufn_fabs_f64(x) > UFN_C128_LOG_LARGE)
        return ufn_c128_make(ufn_copysign_f64(1.0, x), 4.0 * ufn_sin_f64(y) * ufn_cos_f64(y) * ufn_exp_f64(-2.0 * ufn_fabs_f64(x)));
    tx = ufn_tanh_f64(x);
    ty = ufn_tan_f64(y);
    cx = 1.0 / ufn_cosh_f64(x);
    txty = tx * ty;
    denom = 1.0 + txty * txty;
    return ufn_c128_make(tx * (1.0 + ty * ty) / denom, y == 0.0 ? y : ((ty / denom) * cx) * cx);
}

/* ufn_cos_f64(z) == ufn_cosh_f64(iz), ufn_sin_f64(z) == -i ufn_sinh_f64(iz), ufn_tan_f64(z) == -i ufn_tanh_f64(iz) */
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
 * with the asymptotic form ufn_log_f64(2|z|) when |z| is so large that 1 +- z^2 would
 * overflow. */
UFN_FN ufn_c128 ufn_cacos_c128(ufn_c128 z)
{
    ufn_c128 s1, s2;
    if (ufn_fabs_f64(z.re) > UFN_C128_LARGE || ufn_fabs_f64(z.im) > UFN_C128_LARGE)
        return ufn_c128_make(ufn_atan2_f64(ufn_fabs_f64(z.im), z.re),
                             ufn_copysign_f64(ufn_log_f64(ufn_hypot_f64(z.re * 0.5, z.im * 0.5)) + UFN_C128_LN4, -z.im));
    s1 = ufn_csqrt_c128(ufn_c128_make(1.0 - z.re, -z.im));
    s2 = ufn_csqrt_c128(ufn_c128_make(1.0 + z.re, z.im));
    return ufn_c128_make(2.0 * ufn_atan2_f64(s1.re, s2.re), ufn_asinh_f64(s2.re * s1.im - s2.im * s1.re));
}

UFN_FN ufn_c128 ufn_cacosh_c128(ufn_c128 z)
{
    ufn_c128 s1, s2;
    if (ufn_fabs_f64(z.re) > UFN_C128_LARGE || ufn_fabs_f64(z.im) > UFN_C128_LARGE)
        return ufn_c128_make(ufn_log_f64(ufn_hypot_f64(z.re * 0.5, z.im * 0.5)) + UFN_C128_LN4, ufn_atan2_f64(z.im, z.re));
    s1 = ufn_csqrt_c128(ufn_c128_make(z.re - 1.0, z.im));
    s2 = ufn_csqrt_c128(ufn_c128_make(z.re + 1.0, z.im));
    return ufn_c128_make(ufn_asinh_f64(s1.re * s2.re + s1.im * s2.im), 2.0 * ufn_atan2_f64(s1.im, s2.re));
}

UFN_FN ufn_c128 ufn_casinh_c128(ufn_c128 z)
{
    ufn_c128 s1, s2;
    if (ufn_fabs_f64(z.re) > UFN_C128_LARGE || ufn_fabs_f64(z.im) > UFN_C128_LARGE)
        return ufn_c128_make(ufn_copysign_f64(ufn_log_f64(ufn_hypot_f64(z.re * 0.5, z.im * 0.5)) + UFN_C128_LN4, z.re),
                             ufn_atan2_f64(z.im, ufn_fabs_f64(z.re)));
    s1 = ufn_csqrt_c128(ufn_c128_make(1.0 + z.im, -z.re));
    s2 = ufn_csqrt_c128(ufn_c128_make(1.0 - z.im, z.re));
    return ufn_c128_make(ufn_asinh_f64(s1.re * s2.im - s2.re * s1.im),
                         ufn_atan2_f64(z.im, s1.re * s2.re - s1.im * s2.im));
}

/* ufn_asin_f64(z) == -i ufn_asinh_f64(iz) */
UFN_FN ufn_c128 ufn_casin_c128(ufn_c128 z)
{
    ufn_c128 r = ufn_casinh_c128(ufn_c128_make(-z.im, z.re));
    return ufn_c128_make(r.im, -r.re);
}

/* CPython's c_atanh, reduced to re >= 0 by ufn_atanh_f64(-z) == -ufn_atanh_f64(z); special
 * values as Numba's atanh_impl. */
UFN_FN ufn_c128 ufn_catanh_c128(ufn_c128 z)
{
    int negate = z.re < 0.0;
    double x = negate ? -z.re : z.re, y = negate ? -z.im : z.im;
    double ay = ufn_fabs_f64(y), re, im, h, x1;
    if (ufn_isnan_f64(x) || x > UFN_C128_SQRT_LARGE || ay > UFN_C128_SQRT_LARGE) {
        /* |z| large: ufn_atanh_f64(z) ~ 1/z +- i pi/2 */
        if (ufn_isinf_f64(y)) {
            re = ufn_copysign_f64(0.0, x);
        } else if (ufn_isinf_f64(x)) {
            re = 0.0;
        } else {
            h = ufn_hypot_f64(x * 0.5, y * 0.5);
            re = x / 4.0 / h / h;
        }
        im = -ufn_copysign_f64(UFN_C128_PI_2, -y);
        if (ufn_isnan_f64(x) && !ufn_isinf_f64(y))
            im = re;    /* nan: ufn_atanh_f64(nan + yj) is nan+nanj for finite y */
    } else if (x == 1.0 && ay < UFN_C128_SQRT_MIN) {
        if (ay == 0.0) {
            re = UFN_INF_F64;
            im = y;
        } else {
            re = -ufn_log_f64(ufn_sqrt_f64(ay) / ufn_sqrt_f64(ufn_hypot_f64(ay, 2.0)));
            im = ufn_copysign_f64(ufn_atan2_f64(2.0, -ay) / 2.0, y);
        }
    } else {
        x1 = 1.0 - x;
        re = ufn_log1p_f64(4.0 * x / (x1 * x1 + ay * ay)) / 4.0;
        im = -ufn_atan2_f64(-2.0 * y, x1 * (1.0 + x) - ay * ay) / 2.0;
    }
    if (ufn_isnan_f64(y))
        im = UFN_NAN_F64;
    return negate ? ufn_c128_make(-re, -im) : ufn_c128_make(re, im);
}

/* ufn_atan_f64(z) == -i ufn_atanh_f64(iz) */
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
UFN_FN float ufn_cphase_c64(ufn_c64 z) { return ufn_atan2_f32(z.im, z.re); }

UFN_FN ufn_c64 ufn_crect_c64(float r, float phi)
{
    float re, im;
    if (!ufn_isfinite_f32(phi)) {
        if (r == 0.0f)
            return ufn_c64_make(ufn_fabs_f32(r), 0.0f);
        if (ufn_isinf_f32(r))
            return ufn_c64_make(r, phi);
    }
    re = ufn_cos_f32(phi);
    im = ufn_sin_f32(phi);
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
            /* ufn_exp_f32(x) overflows but ufn_exp_f32(x) * ufn_cos_f32(y) may not */
            l = ufn_exp_f32(x - 1.0f);
            return ufn_c64_make(l * ufn_cos_f32(y) * UFN_C64_E, l * ufn_sin_f32(y) * UFN_C64_E);
        }
        l = ufn_exp_f32(x);
        return ufn_c64_make(l * ufn_cos_f32(y), l * ufn_sin_f32(y));
    }
    if (ufn_isnan_f32(x))
        return y != 0.0f ? ufn_c64_make(x, x) : ufn_c64_make(x, y);
    if (x > 0.0f) {                      /* +inf */
        if (!ufn_isfinite_f32(y))
            return ufn_c64_make(x, UFN_NAN_F32);
        c = ufn_cos_f32(y);
        s = ufn_sin_f32(y);
        if (c != 0.0f)
            c *= x;
        if (s != 0.0f)
            s *= x;
        return ufn_c64_make(c, s);
    }
    if (!ufn_isfinite_f32(y))           /* -inf */
        return ufn_c64_make(0.0f, 0.0f);
    l = ufn_exp_f32(x);
    return ufn_c64_make(l * ufn_cos_f32(y), l * ufn_sin_f32(y));
}

UFN_FN ufn_c64 ufn_clog_c64(ufn_c64 z)
{
    float ax = ufn_fabs_f32(z.re), ay = ufn_fabs_f32(z.im), re, h, am, an;
    if (!ufn_isfinite_f32(z.re) || !ufn_isfinite_f32(z.im)) {
        re = ufn_log_f32(ufn_hypot_f32(z.re, z.im));
    } else if (ax > UFN_C64_LARGE || ay > UFN_C64_LARGE) {
        re = ufn_log_f32(ufn_hypot_f32(ax / 2.0f, ay / 2.0f)) + UFN_C64_LN2;
    } else if (ax < UFN_C64_MIN && ay < UFN_C64_MIN) {
        if (ax > 0.0f || ay > 0.0f)
            re = ufn_log_f32(ufn_hypot_f32(ufn_ldexp_f32(ax, UFN_C64_MANT_DIG), ufn_ldexp_f32(ay, UFN_C64_MANT_DIG)))
                 - UFN_C64_MANT_DIG * UFN_C64_LN2;
        else
            re = -UFN_INF_F32;
    } else {
        h = ufn_hypot_f32(ax, ay);
        if (0.71f <= h && h <= 1.73f) {
            am = ax > ay ? ax : ay;
            an = ax > ay ? ay : ax;
            re = ufn_log1p_f32((am - 1.0f) * (am + 1.0f) + an * an) / 2.0f;
        } else {
            re = ufn_log_f32(h);
        }
    }
    return ufn_c64_make(re, ufn_atan2_f32(z.im, z.re));
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
            return ufn_c64_make(ufn_fabs_f32(b - b), ufn_copysign_f32(a, b));
        return ufn_c64_make(a, ufn_copysign_f32(b - b, b));
    }
    ax = ufn_fabs_f32(a);
    ay = ufn_fabs_f32(b);
    if (ax < UFN_C64_MIN && ay < UFN_C64_MIN) {
        ax = ufn_ldexp_f32(ax, UFN_C64_SCALE_UP);
        s = ufn_ldexp_f32(ufn_sqrt_f32(ax + ufn_hypot_f32(ax, ufn_ldexp_f32(ay, UFN_C64_SCALE_UP))), UFN_C64_SCALE_DOWN);
    } else {
        ax /= 8.0f;
        s = 2.0f * ufn_sqrt_f32(ax + ufn_hypot_f32(ax, ay / 8.0f));
    }
    d = ay / (2.0f * s);
    if (a >= 0.0f)
        return ufn_c64_make(s, ufn_copysign_f32(d, b));
    return ufn_c64_make(d, ufn_copysign_f32(s, b));
}

UFN_FN ufn_c64 ufn_ccosh_c64(ufn_c64 z)
{
    float x = z.re, y = z.im, re, im, x1;
    if (ufn_isinf_f32(x)) {
        if (ufn_isnan_f32(y) || y == 0.0f) {
            re = ufn_fabs_f32(x);
            im = y;
        } else {
            re = ufn_copysign_f32(x, ufn_cos_f32(y));
            im = ufn_copysign_f32(x, ufn_sin_f32(y));
        }
        if (x < 0.0f)
            im = -im;
        return ufn_c64_make(re, im);
    }
    if (ufn_fabs_f32(x) > UFN_C64_LOG_LARGE) {
        /* ufn_cosh_f32(x) overflows but ufn_cosh_f32(x) * ufn_cos_f32(y) may not */
        x1 = x - ufn_copysign_f32(1.0f, x);
        return ufn_c64_make(ufn_cos_f32(y) * ufn_cosh_f32(x1) * UFN_C64_E, ufn_sin_f32(y) * ufn_sinh_f32(x1) * UFN_C64_E);
    }
    /* y == 0: the imaginary part is y itself, also for a nan x (Python's table) */
    return ufn_c64_make(ufn_cos_f32(y) * ufn_cosh_f32(x), y == 0.0f && ufn_isnan_f32(x) ? y : ufn_sin_f32(y) * ufn_sinh_f32(x));
}

UFN_FN ufn_c64 ufn_csinh_c64(ufn_c64 z)
{
    float x = z.re, y = z.im, re, im, x1;
    if (ufn_isinf_f32(x)) {
        if (ufn_isnan_f32(y))
            return ufn_c64_make(x, y);
        re = ufn_cos_f32(y);
        im = ufn_sin_f32(y);
        if (re != 0.0f)
            re *= x;
        if (im != 0.0f)
            im *= ufn_fabs_f32(x);
        return ufn_c64_make(re, im);
    }
    if (ufn_fabs_f32(x) > UFN_C64_LOG_LARGE) {
        x1 = x - ufn_copysign_f32(1.0f, x);
        return ufn_c64_make(ufn_cos_f32(y) * ufn_sinh_f32(x1) * UFN_C64_E, ufn_sin_f32(y) * ufn_cosh_f32(x1) * UFN_C64_E);
    }
    return ufn_c64_make(ufn_cos_f32(y) * ufn_sinh_f32(x), y == 0.0f ? y : ufn_sin_f32(y) * ufn_cosh_f32(x));
}

UFN_FN ufn_c64 ufn_ctanh_c64(ufn_c64 z)
{
    float x = z.re, y = z.im, tx, ty, cx, txty, denom;
    if (ufn_isinf_f32(x))
        return ufn_c64_make(ufn_copysign_f32(1.0f, x),
                             ufn_isinf_f32(y) ? 0.0f : ufn_copysign_f32(0.0f, ufn_sin_f32(2.0f * y)));
    if (ufn_fabs_f32(x) > UFN_C64_LOG_LARGE)
        return ufn_c64_make(ufn_copysign_f32(1.0f, x), 4.0f * ufn_sin_f32(y) * ufn_cos_f32(y) * ufn_exp_f32(-2.0f * ufn_fabs_f32(x)));
    tx = ufn_tanh_f32(x);
    ty = ufn_tan_f32(y);
    cx = 1.0f / ufn_cosh_f32(x);
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
    if (ufn_fabs_f32(z.re) > UFN_C64_LARGE || ufn_fabs_f32(z.im) > UFN_C64_LARGE)
        return ufn_c64_make(ufn_atan2_f32(ufn_fabs_f32(z.im), z.re),
                             ufn_copysign_f32(ufn_log_f32(ufn_hypot_f32(z.re * 0.5f, z.im * 0.5f)) + UFN_C64_LN4, -z.im));
    s1 = ufn_csqrt_c64(ufn_c64_make(1.0f - z.re, -z.im));
    s2 = ufn_csqrt_c64(ufn_c64_make(1.0f + z.re, z.im));
    return ufn_c64_make(2.0f * ufn_atan2_f32(s1.re, s2.re), ufn_asinh_f32(s2.re * s1.im - s2.im * s1.re));
}

UFN_FN ufn_c64 ufn_cacosh_c64(ufn_c64 z)
{
    ufn_c64 s1, s2;
    if (ufn_fabs_f32(z.re) > UFN_C64_LARGE || ufn_fabs_f32(z.im) > UFN_C64_LARGE)
        return ufn_c64_make(ufn_log_f32(ufn_hypot_f32(z.re * 0.5f, z.im * 0.5f)) + UFN_C64_LN4, ufn_atan2_f32(z.im, z.re));
    s1 = ufn_csqrt_c64(ufn_c64_make(z.re - 1.0f, z.im));
    s2 = ufn_csqrt_c64(ufn_c64_make(z.re + 1.0f, z.im));
    return ufn_c64_make(ufn_asinh_f32(s1.re * s2.re + s1.im * s2.im), 2.0f * ufn_atan2_f32(s1.im, s2.re));
}

UFN_FN ufn_c64 ufn_casinh_c64(ufn_c64 z)
{
    ufn_c64 s1, s2;
    if (ufn_fabs_f32(z.re) > UFN_C64_LARGE || ufn_fabs_f32(z.im) > UFN_C64_LARGE)
        return ufn_c64_make(ufn_copysign_f32(ufn_log_f32(ufn_hypot_f32(z.re * 0.5f, z.im * 0.5f)) + UFN_C64_LN4, z.re),
                             ufn_atan2_f32(z.im, ufn_fabs_f32(z.re)));
    s1 = ufn_csqrt_c64(ufn_c64_make(1.0f + z.im, -z.re));
    s2 = ufn_csqrt_c64(ufn_c64_make(1.0f - z.im, z.re));
    return ufn_c64_make(ufn_asinh_f32(s1.re * s2.im - s2.re * s1.im),
                         ufn_atan2_f32(z.im, s1.re * s2.re - s1.im * s2.im));
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
    float ay = ufn_fabs_f32(y), re, im, h, x1;
    if (ufn_isnan_f32(x) || x > UFN_C64_SQRT_LARGE || ay > UFN_C64_SQRT_LARGE) {
        /* |z| large: ufn_atanh_f64(z) ~ 1/z +- i pi/2 */
        if (ufn_isinf_f32(y)) {
            re = ufn_copysign_f32(0.0f, x);
        } else if (ufn_isinf_f32(x)) {
            re = 0.0f;
        } else {
            h = ufn_hypot_f32(x * 0.5f, y * 0.5f);
            re = x / 4.0f / h / h;
        }
        im = -ufn_copysign_f32(UFN_C64_PI_2, -y);
        if (ufn_isnan_f32(x) && !ufn_isinf_f32(y))
            im = re;    /* nan: ufn_atanh_f64(nan + yj) is nan+nanj for finite y */
    } else if (x == 1.0f && ay < UFN_C64_SQRT_MIN) {
        if (ay == 0.0f) {
            re = UFN_INF_F32;
            im = y;
        } else {
            re = -ufn_log_f32(ufn_sqrt_f32(ay) / ufn_sqrt_f32(ufn_hypot_f32(ay, 2.0f)));
            im = ufn_copysign_f32(ufn_atan2_f32(2.0f, -ay) / 2.0f, y);
        }
    } else {
        x1 = 1.0f - x;
        re = ufn_log1p_f32(4.0f * x / (x1 * x1 + ay * ay)) / 4.0f;
        im = -ufn_atan2_f32(-2.0f * y, x1 * (1.0f + x) - ay * ay) / 2.0f;
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
