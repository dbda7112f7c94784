/* ufn_libm_log.h - log, log2, log10, log1p (included by ufn_libm.h).
 *
 * x = 2^k m with m in [sqrt(2)/2, sqrt(2)), f = m - 1 (exact), and
 * log(1 + f) = 2 atanh(s) = 2s + s z R(z) with s = f / (2 + f), z = s^2,
 * |s| <= 0.1716 (fdlibm's scheme, without its table-free branches).  The
 * rounding error of the division is recovered with fma: 1/(2+f) = (1-s)/2
 * exactly, so no second division is needed.  The logarithm of m comes out
 * as a double-word number, to about 2^-60 relative; each function adds k
 * times its constant (exactly: ln2 is split so that k*hi has no rounding)
 * and rounds once.  log2(2^k) and log(1) are exact.
 */
#ifndef UFN_LIBM_LOG_H
#define UFN_LIBM_LOG_H

/* ln 2 and log10 2 with 42 and 43 bits in hi, so k*hi is exact for |k| < 2^11 */
#define UFN_LIBM_LN2_HI42  0x1.62e42fefa3800p-1
#define UFN_LIBM_LN2_LO42  0x1.ef35793c76730p-45
#define UFN_LIBM_LG2_HI43  0x1.34413509f7800p-2
#define UFN_LIBM_LG2_LO43  0x1.fef311f12b358p-46
/* 1/ln 2 and 1/ln 10 as double words */
#define UFN_LIBM_INVLN2_HI  0x1.71547652b82fep+0
#define UFN_LIBM_INVLN2_LO  0x1.777d0ffda0d24p-56
#define UFN_LIBM_INVLN10_HI 0x1.bcb7b1526e50ep-2
#define UFN_LIBM_INVLN10_LO 0x1.95355baaafad3p-57

/* log(m) as hi + lo for x = 2^k m, x > 0 finite (subnormals included);
 * *k receives k as a double.  R: tools/libm/exp_log.sollya (2^-54). */
UFN_FN ufn_dd ufn_libm_log_core_f64(double x, double *k)
{
    int sub = x < 0x1p-1022;
    uint64_t b = ufn_bits_f64(sub ? x * 0x1p54 : x);
    /* the binade of x counted from [sqrt(2)/2, sqrt(2)), as an unsigned shift */
    uint64_t kb = (b - 0x3fe6a09e667f3bcdull + 0x8000000000000000ull) >> 52;
    double m = ufn_f64_from_bits(b - ((kb - 2048u) << 52));
    double f = m - 1.0, s, res, sl, z, r, two_s;
    ufn_dd u2 = ufn_dd_fast2sum(2.0, f);
    s = f / u2.hi;
    res = fma(-s, u2.hi, f) - s * u2.lo;                /* f - s (2 + f) */
    sl = res * (1.0 - s) * 0.5;                         /* res / (2 + f) */
    z = s * s;
    r = 0x1.102337ece3ebap-3;
    r = fma(r, z, 0x1.0f4a20b8dea3dp-3);
    r = fma(r, z, 0x1.3b2158d078d5ap-3);
    r = fma(r, z, 0x1.745cdb76b5db4p-3);
    r = fma(r, z, 0x1.c71c725c5bef7p-3);
    r = fma(r, z, 0x1.249249242ee2bp-2);
    r = fma(r, z, 0x1.9999999999d59p-2);
    r = fma(r, z, 0x1.5555555555555p-1);
    two_s = s + s;
    *k = (double)((int32_t)kb - 2048 - (sub ? 54 : 0));
    /* 2 atanh(s + sl) = 2s + 2 sl (1 + z) + s z R(z) */
    return ufn_dd_fast2sum(two_s, fma(s * z, r, fma(sl + sl, z, sl + sl)));
}

/* hi + k*c (c = chi + clo, k*chi exact) + lo, rounded once */
UFN_FN double ufn_libm_log_finish_f64(ufn_dd l, double k, double chi, double clo)
{
    ufn_dd a = ufn_dd_fast2sum(k * chi, l.hi);          /* |k chi| >= |l.hi| or k == 0 */
    return a.hi + (a.lo + fma(k, clo, l.lo));
}

/* log(w.hi + w.lo) as hi + lo, for w.hi > 0 finite and |w.lo| <= ulp(w.hi):
 * log(w.hi) + w.lo / w.hi (the next term is below 2^-106) */
UFN_FN ufn_dd ufn_libm_log_dd_f64(ufn_dd w)
{
    double k;
    ufn_dd l = ufn_libm_log_core_f64(w.hi, &k), a;
    a = ufn_dd_fast2sum(k * UFN_LIBM_LN2_HI42, l.hi);
    return ufn_dd_fast2sum(a.hi, a.lo + (fma(k, UFN_LIBM_LN2_LO42, l.lo) + w.lo / w.hi));
}

/* the special values shared by the logarithms: 0 -> -inf, < 0 -> nan,
 * inf -> inf, nan -> nan */
UFN_FN double ufn_libm_log_special_f64(double x, double y)
{
    y = x == 0.0 ? -(double)INFINITY : y;
    y = x < 0.0 ? UFN_LIBM_NAN_F64 : y;
    y = x == (double)INFINITY ? x : y;
    return ufn_isnan_f64(x) ? x + x : y;
}

UFN_FN double ufn_log_f64(double x)
{
    double k;
    ufn_dd l;
    UFN_VENDOR(log(x));
    l = ufn_libm_log_core_f64(x, &k);
    return ufn_libm_log_special_f64(x, ufn_libm_log_finish_f64(l, k, UFN_LIBM_LN2_HI42, UFN_LIBM_LN2_LO42));
}

/* log2 = k + log(m)/ln2: k is exact, so powers of two give integers */
UFN_FN double ufn_log2_f64(double x)
{
    double k;
    ufn_dd l, a;
    UFN_VENDOR(log2(x));
    l = ufn_dd_mul(ufn_libm_log_core_f64(x, &k), ufn_dd_make(UFN_LIBM_INVLN2_HI, UFN_LIBM_INVLN2_LO));
    a = ufn_dd_fast2sum(k, l.hi);
    return ufn_libm_log_special_f64(x, a.hi + (a.lo + l.lo));
}

UFN_FN double ufn_log10_f64(double x)
{
    double k;
    ufn_dd l;
    UFN_VENDOR(log10(x));
    l = ufn_dd_mul(ufn_libm_log_core_f64(x, &k), ufn_dd_make(UFN_LIBM_INVLN10_HI, UFN_LIBM_INVLN10_LO));
    return ufn_libm_log_special_f64(x, ufn_libm_log_finish_f64(l, k, UFN_LIBM_LG2_HI43, UFN_LIBM_LG2_LO43));
}

/* log(1 + x) = log(u) + c/u with u = 1 + x rounded and c its exact error
 * (TwoSum); c/u < 2^-53, so one division of it is plenty.  x = -1 gives
 * -inf, x < -1 nan, and tiny x (-0.0 included) x itself. */
UFN_FN double ufn_log1p_f64(double x)
{
    double k, y;
    ufn_dd u = ufn_dd_twosum(1.0, x), l;
    UFN_VENDOR(log1p(x));
    l = ufn_libm_log_core_f64(u.hi > 0.0 ? u.hi : 1.0, &k);
    l.lo += u.lo / u.hi;
    y = ufn_libm_log_finish_f64(l, k, UFN_LIBM_LN2_HI42, UFN_LIBM_LN2_LO42);
    y = x == -1.0 ? -(double)INFINITY : y;
    y = x < -1.0 ? UFN_LIBM_NAN_F64 : y;
    y = x == (double)INFINITY ? x : y;
    y = x == 0.0 ? x : y;
    return ufn_isnan_f64(x) ? x + x : y;
}

/* ---- float32: in float64, rounded once ------------------------------------------------- */

UFN_FN float ufn_log_f32(float x)
{
    UFN_VENDOR(logf(x));
    return (float)ufn_log_f64((double)x);
}

UFN_FN float ufn_log2_f32(float x)
{
    UFN_VENDOR(log2f(x));
    return (float)ufn_log2_f64((double)x);
}

UFN_FN float ufn_log10_f32(float x)
{
    UFN_VENDOR(log10f(x));
    return (float)ufn_log10_f64((double)x);
}

UFN_FN float ufn_log1p_f32(float x)
{
    UFN_VENDOR(log1pf(x));
    return (float)ufn_log1p_f64((double)x);
}

#endif /* UFN_LIBM_LOG_H */
