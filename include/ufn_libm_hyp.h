/* ufn_libm_hyp.h - sinh, cosh, tanh, asinh, acosh, atanh (included by
 * ufn_libm.h).
 *
 * Built on the exp and log kernels, with the intermediate values as
 * double-words so that only the last operation rounds:
 *   sinh, cosh   (E -+ 1/E) / 2 with E = e^|x| = 2^n (h + l); 1/E through
 *                one division and its fma residual.  For small |x| the
 *                difference cancels, but E's error is proportional to x^2
 *                there (the reduction leaves r = x exact), so sinh keeps its
 *                relative accuracy; below 2^-26 sinh(x) is x.
 *   tanh         E / (E + 2) with E = expm1(2|x|) (fdlibm's form, no
 *                cancellation); 1 from |x| = 20 on, x below 2^-27.
 *   asinh        log(|x| + sqrt(x^2 + 1)), the argument a double-word
 *                (its log adds lo/hi); log|x| + ln 2 above 2^28.
 *   acosh        log(x + sqrt(x^2 - 1)), likewise.
 *   atanh        log((1 + x) / (1 - x)) / 2, the quotient a double-word.
 * float32 computes in float64 and rounds once.
 */
#ifndef UFN_LIBM_HYP_H
#define UFN_LIBM_HYP_H

/* (n, hi + lo) -> 2^n (hi + lo) reciprocal: 2^-n (ih + il) */
UFN_FN ufn_dd ufn_libm_recip_dd_f64(ufn_dd m)
{
    double ih = 1.0 / m.hi;
    return ufn_dd_make(ih, (fma(-ih, m.hi, 1.0) - ih * m.lo) * ih);
}

/* (e^|x| + sign e^-|x|) / 2 for |x| <= 711, sign = +1 (cosh) or -1 (sinh) */
UFN_FN double ufn_libm_coshsinh_f64(double ax, double sign)
{
    double n;
    ufn_dd m = ufn_libm_exp_parts_f64(ax, &n), im = ufn_libm_recip_dd_f64(m), s;
    /* 2^(n-1) m + sign 2^(-n-1) im: the second term vanishes from |x| = 40 */
    double a = ufn_libm_exp_scale_f64(m.hi, n - 1.0), al = ufn_libm_exp_scale_f64(m.lo, n - 1.0);
    double b = sign * ufn_libm_exp_scale_f64(im.hi, -n - 1.0), bl = sign * ufn_libm_exp_scale_f64(im.lo, -n - 1.0);
    s = ufn_dd_twosum(a, b);
    return s.hi + (s.lo + (al + bl));
}

UFN_FN double ufn_sinh_f64(double x)
{
    double ax = ufn_libm_abs_f64(x), y;
    UFN_VENDOR(sinh(x));
    y = ufn_libm_coshsinh_f64(ax < 711.0 ? ax : 711.0, -1.0);
    y = ax > 0x1.633ce8fb9f87dp+9 ? (double)INFINITY : y;    /* sinh overflows above 710.475... */
    y = ax < 0x1p-26 ? ax : y;
    y = ufn_libm_copysign_f64(y, x);
    return ufn_isnan_f64(x) ? x + x : y;
}

UFN_FN double ufn_cosh_f64(double x)
{
    double ax = ufn_libm_abs_f64(x), y;
    UFN_VENDOR(cosh(x));
    y = ufn_libm_coshsinh_f64(ax < 711.0 ? ax : 711.0, 1.0);
    y = ax > 0x1.633ce8fb9f87dp+9 ? (double)INFINITY : y;
    return ufn_isnan_f64(x) ? x + x : y;
}

UFN_FN double ufn_tanh_f64(double x)
{
    double ax = ufn_libm_abs_f64(x), t, y;
    ufn_dd e, d;
    UFN_VENDOR(tanh(x));
    e = ufn_libm_expm1_dd_f64(2.0 * (ax < 20.0 ? ax : 20.0));
    d = ufn_dd_fast2sum(2.0, e.hi);                        /* e.hi >= 0 */
    d.lo += e.lo;
    t = e.hi / d.hi;
    y = t + (fma(-t, d.hi, e.hi) + fma(-t, d.lo, e.lo)) / d.hi;
    y = ax >= 20.0 ? 1.0 : y;
    y = ax < 0x1p-27 ? ax : y;
    y = ufn_libm_copysign_f64(y, x);
    return ufn_isnan_f64(x) ? x + x : y;
}

/* sqrt(w.hi + w.lo) as a double-word (one Newton correction) */
UFN_FN ufn_dd ufn_libm_sqrt_dd_f64(ufn_dd w)
{
    double s = sqrt(w.hi);
    return ufn_dd_make(s, s > 0.0 ? (fma(-s, s, w.hi) + w.lo) / (s + s) : 0.0);
}

/* log(a + sqrt(a^2 + sign)) for a >= 1 (sign -1) or a >= 0 (sign +1),
 * a < 2^28, rounded once */
UFN_FN double ufn_libm_asinh_acosh_f64(double a, double sign)
{
    ufn_dd a2 = ufn_dd_twoprod(a, a), w = ufn_dd_twosum(a2.hi, sign), s, t;
    w.lo += a2.lo;
    s = ufn_libm_sqrt_dd_f64(ufn_dd_fast2sum(w.hi, w.lo));
    t = ufn_dd_twosum(a, s.hi);
    t = ufn_libm_log_dd_f64(ufn_dd_fast2sum(t.hi, t.lo + s.lo));
    return t.hi + t.lo;
}

/* log(a) + ln 2 for large a: asinh and acosh beyond 2^28 */
UFN_FN double ufn_libm_log2x_f64(double a)
{
    ufn_dd l = ufn_libm_log_dd_f64(ufn_dd_make(a, 0.0));
    ufn_dd s = ufn_dd_fast2sum(l.hi, UFN_LIBM_LN2_HI);
    return s.hi + (s.lo + (l.lo + UFN_LIBM_LN2_LO));
}

UFN_FN double ufn_asinh_f64(double x)
{
    double a = ufn_libm_abs_f64(x), y, big;
    UFN_VENDOR(asinh(x));
    y = ufn_libm_asinh_acosh_f64(a < 0x1p28 ? a : 1.0, 1.0);
    big = ufn_libm_log2x_f64(a < (double)INFINITY ? a : 1.0);
    y = a >= 0x1p28 ? big : y;
    y = a < 0x1p-26 ? a : y;
    y = a == (double)INFINITY ? a : y;
    y = ufn_libm_copysign_f64(y, x);
    return ufn_isnan_f64(x) ? x + x : y;
}

UFN_FN double ufn_acosh_f64(double x)
{
    double y, big;
    UFN_VENDOR(acosh(x));
    y = ufn_libm_asinh_acosh_f64(x >= 1.0 && x < 0x1p28 ? x : 1.0, -1.0);
    big = ufn_libm_log2x_f64(x >= 0x1p28 && x < (double)INFINITY ? x : 1.0);
    y = x >= 0x1p28 ? big : y;
    y = x == (double)INFINITY ? x : y;
    y = x < 1.0 ? UFN_LIBM_NAN_F64 : y;
    return ufn_isnan_f64(x) ? x + x : y;
}

/* atanh(x) = log((1 + a) / (1 - a)) / 2 with the quotient a double-word:
 * 1 + a and 1 - a are exact pairs (TwoSum), one division and its residual */
UFN_FN double ufn_atanh_f64(double x)
{
    double a = ufn_libm_abs_f64(x), ac = a < 1.0 ? a : 0.5, q, y;
    ufn_dd p = ufn_dd_twosum(1.0, ac), m = ufn_dd_twosum(1.0, -ac), l;
    UFN_VENDOR(atanh(x));
    q = p.hi / m.hi;
    l = ufn_libm_log_dd_f64(ufn_dd_fast2sum(q, (fma(-q, m.hi, p.hi) + fma(-q, m.lo, p.lo)) / m.hi));
    y = 0.5 * (l.hi + l.lo);
    y = a < 0x1p-27 ? a : y;
    y = a == 1.0 ? (double)INFINITY : y;
    y = a > 1.0 ? UFN_LIBM_NAN_F64 : y;
    y = ufn_libm_copysign_f64(y, x);
    return ufn_isnan_f64(x) ? x + x : y;
}

/* ---- float32: in float64, rounded once ------------------------------------------------- */

UFN_FN float ufn_sinh_f32(float x)  { UFN_VENDOR(sinhf(x));  return (float)ufn_sinh_f64((double)x); }
UFN_FN float ufn_cosh_f32(float x)  { UFN_VENDOR(coshf(x));  return (float)ufn_cosh_f64((double)x); }
UFN_FN float ufn_tanh_f32(float x)  { UFN_VENDOR(tanhf(x));  return (float)ufn_tanh_f64((double)x); }
UFN_FN float ufn_asinh_f32(float x) { UFN_VENDOR(asinhf(x)); return (float)ufn_asinh_f64((double)x); }
UFN_FN float ufn_acosh_f32(float x) { UFN_VENDOR(acoshf(x)); return (float)ufn_acosh_f64((double)x); }
UFN_FN float ufn_atanh_f32(float x) { UFN_VENDOR(atanhf(x)); return (float)ufn_atanh_f64((double)x); }

#endif /* UFN_LIBM_HYP_H */
