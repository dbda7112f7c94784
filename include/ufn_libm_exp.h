/* ufn_libm_exp.h - exp, exp2, expm1 (included by ufn_libm.h).
 *
 * exp(x) = 2^n * exp(r) with n = rint(x / ln2) and r = x - n*ln2, so
 * |r| <= ln2/2: the reduction subtracts n*ln2 in two pieces with fma (the
 * first exactly) and keeps the rounding error of the second in rl.  Then
 * exp(r + rl) = 1 + r + r^2 P(r) + rl (1 + r), the 1 + r summed exactly
 * (Fast2Sum) so that only the last addition rounds, and 2^n is applied in
 * two steps, exact but for the final rounding of a subnormal result.
 * No table: see ufn_libm.h.
 */
#ifndef UFN_LIBM_EXP_H
#define UFN_LIBM_EXP_H

#define UFN_LIBM_LOG2E    0x1.71547652b82fep+0
#define UFN_LIBM_LN2_HI   0x1.62e42fefa39efp-1
#define UFN_LIBM_LN2_LO   0x1.abc9e3b39803fp-56
#define UFN_LIBM_LOG2E_F  0x1.715476p+0f
#define UFN_LIBM_LN2_HI_F 0x1.62e430p-1f
#define UFN_LIBM_LN2_LO_F -0x1.05c610p-29f

/* exp(x) rounds to inf above these, to 0 below the next */
#define UFN_LIBM_EXP_OVF     0x1.62e42fefa39efp+9     /* 709.78...  */
#define UFN_LIBM_EXP_UNF     -0x1.74910d52d3051p+9    /* -745.13... */
#define UFN_LIBM_EXP_OVF_F   0x1.62e42ep+6f           /* 88.722...  */
#define UFN_LIBM_EXP_UNF_F   -0x1.9fe368p+6f          /* -103.97... */

/* e^(r + rl) - 1 - r for |r| <= 0.3467, |rl| <= 2^-50: the part that
 * rounds little (|result| <= 0.07).  P from tools/libm/exp_log.sollya,
 * relative error 2^-58.8. */
UFN_FN double ufn_libm_expm1_tail_f64(double r, double rl)
{
    double p = 0x1.1f3305b8430a2p-29;
    p = fma(p, r, 0x1.af4ed2a30d5c5p-26);
    p = fma(p, r, 0x1.27e500d7e4a31p-22);
    p = fma(p, r, 0x1.71de01aa5e8a5p-19);
    p = fma(p, r, 0x1.a01a0197be222p-16);
    p = fma(p, r, 0x1.a01a01ac1e4dcp-13);
    p = fma(p, r, 0x1.6c16c16c18932p-10);
    p = fma(p, r, 0x1.1111111110051p-7);
    p = fma(p, r, 0x1.5555555555552p-5);
    p = fma(p, r, 0x1.5555555555557p-3);
    p = fma(p, r, 0.5);
    return fma(r * r, p, fma(rl, r, rl));
}

/* e^(r + rl) for |r| <= 0.3467: 1 + r exactly as hi + lo, then one rounding. */
UFN_FN double ufn_libm_exp_eval_f64(double r, double rl)
{
    ufn_dd one_r = ufn_dd_fast2sum(1.0, r);
    return one_r.hi + (one_r.lo + ufn_libm_expm1_tail_f64(r, rl));
}

/* m * 2^n for n in [-1100, 1100]: two factors 2^(n/2) and 2^(n - n/2), each
 * normal, so only the last product rounds (and only if it is subnormal).
 * n arrives as a double holding an integer. */
UFN_FN double ufn_libm_exp_scale_f64(double m, double n)
{
    int32_t k = (int32_t)(n > -1100.0 ? (n < 1100.0 ? n : 1100.0) : -1100.0);   /* nan -> -1100 */
    int32_t k1 = (k + 2048) / 2 - 1024;
    return (m * ufn_libm_pow2_f64(k1)) * ufn_libm_pow2_f64(k - k1);
}

/* The reduction: n = rint(x / ln2) as a double, r + *rl = x - n ln2.
 * Valid for |x| < 2^40 (the caller clamps). */
UFN_FN double ufn_libm_exp_reduce_f64(double x, double *n, double *rl)
{
    double t = fma(x, UFN_LIBM_LOG2E, UFN_LIBM_SHIFT_F64);
    double k = t - UFN_LIBM_SHIFT_F64;
    double r1 = fma(-k, UFN_LIBM_LN2_HI, x);            /* exact */
    double r = fma(-k, UFN_LIBM_LN2_LO, r1);
    *rl = fma(-k, UFN_LIBM_LN2_LO, r1 - r);
    *n = k;
    return r;
}

/* e^(x + xl) for |xl| <= 2^-40 |x|, without the special cases: pow's
 * kernel.  xl joins r exactly (TwoSum) before the second piece of ln 2, so
 * that only the small residual goes through the first-order term. */
UFN_FN double ufn_libm_exp_dd_f64(double x, double xl)
{
    double xc = x < -1000.0 ? -1000.0 : x > 1000.0 ? 1000.0 : x;
    double t = fma(xc, UFN_LIBM_LOG2E, UFN_LIBM_SHIFT_F64);
    double k = t - UFN_LIBM_SHIFT_F64;
    ufn_dd a = ufn_dd_twosum(fma(-k, UFN_LIBM_LN2_HI, xc), xl);
    double r = fma(-k, UFN_LIBM_LN2_LO, a.hi);
    double rl = fma(-k, UFN_LIBM_LN2_LO, a.hi - r) + a.lo;
    return ufn_libm_exp_scale_f64(ufn_libm_exp_eval_f64(r, rl), k);
}

/* 2^n as two factors 2^(n/2) and 2^(n - n/2), read from the bits of t =
 * x/ln2 + 1.5*2^52 (which hold n below 2^51: no float-to-integer
 * conversion, so nothing to clamp; a huge x gives garbage, replaced by the
 * caller's special cases).  Each factor is normal for n in [-1100, 1100]. */
UFN_FN double ufn_libm_exp_mul_pow2_f64(double m, double t)
{
    uint64_t kb = ufn_bits_f64(t) - (ufn_bits_f64(UFN_LIBM_SHIFT_F64) - 2048u);   /* n + 2048 */
    uint64_t k1 = kb >> 1;
    return (m * ufn_f64_from_bits((k1 - 1u) << 52)) * ufn_f64_from_bits((kb - k1 - 1u) << 52);
}

/* exp itself, on the hot path (the Gaussian of the benchmark): the same
 * reduction without its low word (r's rounding is at most 2^-53 |r|), and
 * 1 + r exactly (Fast2Sum) so that r^2 P(r) joins the low word and only the
 * last addition rounds.  m = e^r in [0.7, 1.42]; t holds n. */
UFN_FN double ufn_libm_exp_core_f64(double x, double *t)
{
    double n, r, p;
    ufn_dd one_r;
    *t = fma(x, UFN_LIBM_LOG2E, UFN_LIBM_SHIFT_F64);
    n = *t - UFN_LIBM_SHIFT_F64;
    r = fma(-n, UFN_LIBM_LN2_HI, x);                     /* exact */
    r = fma(-n, UFN_LIBM_LN2_LO, r);
    p = 0x1.1f3305b8430a2p-29;
    p = fma(p, r, 0x1.af4ed2a30d5c5p-26);
    p = fma(p, r, 0x1.27e500d7e4a31p-22);
    p = fma(p, r, 0x1.71de01aa5e8a5p-19);
    p = fma(p, r, 0x1.a01a0197be222p-16);
    p = fma(p, r, 0x1.a01a01ac1e4dcp-13);
    p = fma(p, r, 0x1.6c16c16c18932p-10);
    p = fma(p, r, 0x1.1111111110051p-7);
    p = fma(p, r, 0x1.5555555555552p-5);
    p = fma(p, r, 0x1.5555555555557p-3);
    p = fma(p, r, 0.5);
    one_r = ufn_dd_fast2sum(1.0, r);
    return one_r.hi + fma(r * r, p, one_r.lo);
}

/* The whole function: 2^n in two factors, so that a subnormal result
 * rounds once, and the special cases. */
UFN_FN double ufn_libm_exp_f64(double x)
{
    double t, y = ufn_libm_exp_core_f64(x, &t);
    y = ufn_libm_exp_mul_pow2_f64(y, t);
    y = x > UFN_LIBM_EXP_OVF ? (double)INFINITY : y;
    y = x < UFN_LIBM_EXP_UNF ? 0.0 : y;
    return ufn_isnan_f64(x) ? x + x : y;
}

/* |x| < 708: the result is normal and n <= 1021, so 2^n goes into the
 * exponent bits with one integer addition, exact as the two factors are:
 * the bits of the whole function, without its nine operations of scaling
 * and six of special cases (a fifth of its time in a vector loop).  The
 * vector variants (ufn_libm_simd.h) run this on every lane and the whole
 * function on the others; tests/math/lanes.c compares. */
UFN_FN int ufn_libm_exp_ok_f64(double x) { return ufn_libm_abs_f64(x) < 708.0; }

UFN_FN double ufn_libm_exp_fast_f64(double x)
{
    double t, y = ufn_libm_exp_core_f64(x, &t);
    return ufn_f64_from_bits(ufn_bits_f64(y) + (ufn_bits_f64(t) << 52));
}

#if defined(UFN_LIBM_SIMD)
UFN_LIBM_SIMD_F64(ufn_exp_f64, ufn_libm_exp_f64, ufn_libm_exp_fast_f64, ufn_libm_exp_f64, ufn_libm_exp_ok_f64)
#else
UFN_FN double ufn_exp_f64(double x)
{
    UFN_VENDOR(exp(x));
    return ufn_libm_exp_f64(x);
}
#endif

/* 2^x = 2^n * e^(f ln2) with n = rint(x), f = x - n exact, f*ln2 as hi + lo. */
UFN_FN double ufn_exp2_f64(double x)
{
    double xc, n, f, y;
    ufn_dd r;
    UFN_VENDOR(exp2(x));
    xc = x < -1100.0 ? -1100.0 : x > 1100.0 ? 1100.0 : x;
    n = ufn_libm_rint_small_f64(xc);
    f = xc - n;
    r = ufn_dd_twoprod(f, UFN_LIBM_LN2_HI);
    y = ufn_libm_exp_scale_f64(ufn_libm_exp_eval_f64(r.hi, fma(f, UFN_LIBM_LN2_LO, r.lo)), n);
    y = x >= 1024.0 ? (double)INFINITY : y;
    y = x < -1075.0 ? 0.0 : y;
    return ufn_isnan_f64(x) ? x + x : y;
}

/* e^(x + xl) = 2^n (hi + lo) with n returned: the kernel of exp before
 * its final rounding, for the hyperbolic functions.  |x| <= 1000. */
UFN_FN ufn_dd ufn_libm_exp_parts_f64(double x, double *n)
{
    double rl, r = ufn_libm_exp_reduce_f64(x, n, &rl);
    ufn_dd one_r = ufn_dd_fast2sum(1.0, r);
    return ufn_dd_fast2sum(one_r.hi, one_r.lo + ufn_libm_expm1_tail_f64(r, rl));
}

/* e^x - 1 as hi + lo for -40 <= x <= 700 (tanh uses it below 40).
 * e^x - 1 = 2^n (1 + u + v) - 1 with u = r, v the tail, 1 + u = h + l.
 * n >= 1: the -1 becomes -2^-n inside the bracket, and h - 2^-n is exact
 * for n <= 52 (beyond, 2^-n is below the rounding anyway); n <= 0: the
 * scaled bracket is below 1.5 and -1 + it is a Fast2Sum.  n = 0, tiny x
 * included, gives u + v exactly as x + (tail). */
UFN_FN ufn_dd ufn_libm_expm1_dd_f64(double x)
{
    double n, rl, u, v, s, sc;
    ufn_dd one_u, big, small, b;
    u = ufn_libm_exp_reduce_f64(x, &n, &rl);
    v = ufn_libm_expm1_tail_f64(u, rl);
    one_u = ufn_dd_fast2sum(1.0, u);
    sc = ufn_libm_exp_scale_f64(1.0, n);                  /* 2^n: n <= 1010 here */
    s = ufn_libm_exp_scale_f64(1.0, -n);
    big = ufn_dd_fast2sum(one_u.hi - s, one_u.lo + v);
    big = ufn_dd_make(big.hi * sc, big.lo * sc);
    b = ufn_dd_fast2sum(-1.0, one_u.hi * sc);
    small = ufn_dd_fast2sum(b.hi, b.lo + (one_u.lo + v) * sc);
    return ufn_dd_select(n >= 1.0, big, small);
}

UFN_FN double ufn_expm1_f64(double x)
{
    double y;
    ufn_dd e;
    UFN_VENDOR(expm1(x));
    e = ufn_libm_expm1_dd_f64(x < -40.0 ? -40.0 : x > 700.0 ? 700.0 : x);
    /* above 700 the -1 is far below the rounding: e^x itself */
    y = ufn_libm_exp_dd_f64(x, 0.0);
    y = x > 700.0 ? y : e.hi + e.lo;
    y = x > UFN_LIBM_EXP_OVF ? (double)INFINITY : y;
    y = x < -40.0 ? -1.0 : y;
    y = x == 0.0 ? x : y;
    return ufn_isnan_f64(x) ? x + x : y;
}

/* ---- float32 ---------------------------------------------------------------------------- */

/* expf is on the hot path of many kernels: float arithmetic, 16 lanes on
 * AVX-512, exp's scheme without the double-word refinements (they took a
 * sixth of the time for 0.2 ulp: the bound is 1 ulp either way, measured
 * over every float).  P: tools/libm/exp_log.sollya. */
UFN_FN float ufn_exp_f32(float x)
{
    float t, n, r, p, y;
    uint32_t kb, k1;
    UFN_VENDOR(expf(x));
    t = fmaf(x, UFN_LIBM_LOG2E_F, UFN_LIBM_SHIFT_F32);
    n = t - UFN_LIBM_SHIFT_F32;
    r = fmaf(-n, UFN_LIBM_LN2_HI_F, x);                  /* exact */
    r = fmaf(-n, UFN_LIBM_LN2_LO_F, r);
    p = 0x1.a262bp-13f;
    p = fmaf(p, r, 0x1.6d2e0ep-10f);
    p = fmaf(p, r, 0x1.110ff4p-7f);
    p = fmaf(p, r, 0x1.555502p-5f);
    p = fmaf(p, r, 0x1.555556p-3f);
    p = fmaf(p, r, 0.5f);
    /* 2^n in two normal factors, from the bits of t (see exp_mul_pow2_f64) */
    kb = ufn_bits_f32(t) - (ufn_bits_f32(UFN_LIBM_SHIFT_F32) - 256u);      /* n + 256 */
    k1 = kb >> 1;
    y = ((fmaf(r * r, p, r) + 1.0f) * ufn_f32_from_bits((k1 - 1u) << 23)) * ufn_f32_from_bits((kb - k1 - 1u) << 23);
    y = x > UFN_LIBM_EXP_OVF_F ? (float)INFINITY : y;
    y = x < UFN_LIBM_EXP_UNF_F ? 0.0f : y;
    return ufn_isnan_f32(x) ? x + x : y;
}

/* Not hot: float64 and one rounding (the float64 error is below 2^-52). */
UFN_FN float ufn_exp2_f32(float x)
{
    UFN_VENDOR(exp2f(x));
    return (float)ufn_exp2_f64((double)x);
}

UFN_FN float ufn_expm1_f32(float x)
{
    UFN_VENDOR(expm1f(x));
    return (float)ufn_expm1_f64((double)x);
}

#endif /* UFN_LIBM_EXP_H */
