/* ufn_libm_pow.h - pow, hypot (included by ufn_libm.h).
 *
 * pow(x, y) = e^(y log|x|): the logarithm to about 2^-66 relative as a
 * double-word (log's scheme, with the s^3 term exact and the division's
 * residual kept), the product with y a double-word, and the exp kernel
 * taking both words, so that an exponent near +-745 loses nothing to the
 * rounding of y log|x|.  The sign and the special values are C99's
 * (Annex F.9.4.4), which are Numba's and NumPy's.
 *
 * hypot(x, y) = sqrt(x^2 + y^2) with the squares and their sum exact
 * double-words, scaled by a power of two out of overflow and underflow;
 * the float version squares in double.
 */
#ifndef UFN_LIBM_POW_H
#define UFN_LIBM_POW_H

/* log(x) for x > 0 finite, to 2^-66, as hi + lo */
UFN_FN ufn_dd ufn_libm_log_pow_f64(double x)
{
    int sub = x < 0x1p-1022;
    uint64_t b = ufn_bits_f64(sub ? x * 0x1p54 : x);
    uint64_t kb = (b - 0x3fe6a09e667f3bcdull + 0x8000000000000000ull) >> 52;
    double m = ufn_f64_from_bits(b - ((kb - 2048u) << 52));
    double k = (double)((int32_t)kb - 2048 - (sub ? 54 : 0));
    double f = m - 1.0, s, sl, z, r;
    ufn_dd u2 = ufn_dd_fast2sum(2.0, f), s2, s3, c, a;
    s = f / u2.hi;
    sl = (fma(-s, u2.hi, f) - s * u2.lo) * (1.0 - s) * 0.5;  /* (f - s (2+f)) / (2+f) */
    z = s * s;
    r = 0x1.088cfc78365aap-3;
    r = fma(r, z, 0x1.1016ec8ad70eep-3);
    r = fma(r, z, 0x1.3b18c7951f1c6p-3);
    r = fma(r, z, 0x1.745d09b6e18c5p-3);
    r = fma(r, z, 0x1.c71c71d852fabp-3);
    r = fma(r, z, 0x1.249249248e2a2p-2);
    r = fma(r, z, 0x1.999999999999fp-2);
    /* 2 s^3 / 3 exactly enough: s^2 and s^3 as double-words */
    s2 = ufn_dd_twoprod(s, s);
    s3 = ufn_dd_mul_d(s2, s);
    c = ufn_dd_mul(s3, ufn_dd_make(0x1.5555555555555p-1, 0x1.5555555555555p-55));
    /* k ln2 + 2s + 2s^3/3 + (s^5 R5 + 2 sl (1 + z) + k ln2_lo) */
    a = ufn_dd_fast2sum(k * UFN_LIBM_LN2_HI42, s + s);
    s2 = ufn_dd_twosum(a.hi, c.hi);
    return ufn_dd_fast2sum(s2.hi, s2.lo + (a.lo + (c.lo + fma(k, UFN_LIBM_LN2_LO42,
                                                      fma(s3.hi * z, r, fma(sl + sl, z, sl + sl))))));
}

/* Is y an integer (1.0), an odd one (2.0), or neither (0.0)?  Doubles from
 * 2^52 on are integers (odd by their last bit below 2^53); below, adding
 * 2^52 rounds to one.  A double, not an int, so that the selects that use
 * it vectorise (gcc does not mix 32-bit and 64-bit lanes there). */
UFN_FN double ufn_libm_pow_yclass_f64(double y)
{
    double a = ufn_libm_abs_f64(y), t = a + 0x1p52;
    double integer = a >= 0x1p52 ? 1.0 : (t - 0x1p52) == a ? 1.0 : 0.0;
    uint64_t last = (a < 0x1p52 ? ufn_bits_f64(t) : ufn_bits_f64(a)) & 1u;
    double odd = last == 1u ? 2.0 : 1.0;
    return a < 0x1p53 ? integer * odd : integer;
}

UFN_FN double ufn_pow_f64(double x, double y)
{
    double ax = ufn_libm_abs_f64(x), ay = ufn_libm_abs_f64(y), r, zh;
    double yc = ufn_libm_pow_yclass_f64(y), xsign = ufn_libm_copysign_f64(1.0, x);
    ufn_dd l, z;
    UFN_VENDOR(pow(x, y));
    l = ufn_libm_log_pow_f64(ax > 0.0 && ax < (double)INFINITY ? ax : 1.0);
    z = ufn_dd_mul_d(l, y < 0x1p1000 && y > -0x1p1000 ? y : 0.0);
    zh = z.hi;
    r = ufn_libm_exp_dd_f64(zh, z.lo);
    r = zh > UFN_LIBM_EXP_OVF + 1.0 ? (double)INFINITY : r;
    r = zh < UFN_LIBM_EXP_UNF - 1.0 ? 0.0 : r;
    /* huge |y|: the sign of log|x| decides */
    r = ay >= 0x1p1000 ? ((ax > 1.0) == (y > 0.0) ? (double)INFINITY : 0.0) : r;
    r = ay >= 0x1p1000 && ax == 1.0 ? 1.0 : r;
    /* x = 0 or inf: 0 or inf by the signs, before the sign of x */
    r = ax == 0.0 ? (y < 0.0 ? (double)INFINITY : 0.0) : r;
    r = ax == (double)INFINITY ? (y < 0.0 ? 0.0 : (double)INFINITY) : r;
    /* a negative x: odd integer y gives a negative result, a non-integer nan */
    r = xsign < 0.0 && yc == 2.0 ? -r : r;
    r = xsign < 0.0 && yc == 0.0 && ax > 0.0 && ax < (double)INFINITY && ay < (double)INFINITY ? UFN_LIBM_NAN_F64 : r;
    /* the ones C99 (and Numba) fix whatever else: pow(-1, +-inf), pow(1, y), pow(x, 0) */
    r = x == -1.0 && ay == (double)INFINITY ? 1.0 : r;
    r = ufn_isnan_f64(x) || ufn_isnan_f64(y) ? x + y : r;
    r = x == 1.0 || y == 0.0 ? 1.0 : r;
    return r;
}

UFN_FN float ufn_pow_f32(float x, float y)
{
    UFN_VENDOR(powf(x, y));
    return (float)ufn_pow_f64((double)x, (double)y);
}

/* ---- hypot ---------------------------------------------------------------------------------- */

UFN_FN double ufn_hypot_f64(double x, double y)
{
    double ax = ufn_libm_abs_f64(x), ay = ufn_libm_abs_f64(y);
    double mx = ax > ay ? ax : ay, up, down, s, r;
    ufn_dd x2, y2, t;
    UFN_VENDOR(hypot(x, y));
    /* bring the larger into [2^-500, 2^500]: the squares neither overflow nor
     * lose bits to underflow (the smaller one's may vanish: then it is below
     * 2^-54 of the larger and changes no rounding) */
    up = mx > 0x1p500 ? 0x1p-600 : mx < 0x1p-500 ? 0x1p600 : 1.0;
    down = mx > 0x1p500 ? 0x1p600 : mx < 0x1p-500 ? 0x1p-600 : 1.0;
    x2 = ufn_dd_twoprod(ax * up, ax * up);
    y2 = ufn_dd_twoprod(ay * up, ay * up);
    t = ufn_dd_twosum(x2.hi, y2.hi);
    t = ufn_dd_fast2sum(t.hi, t.lo + (x2.lo + y2.lo));
    s = sqrt(t.hi);
    /* the square root's residual, then back to scale with one rounding (fma:
     * a subnormal result rounds once) */
    r = fma(s, down, (fma(-s, s, t.hi) + t.lo) / (s + s) * down);
    r = mx == 0.0 ? 0.0 : r;
    r = ax == (double)INFINITY || ay == (double)INFINITY ? (double)INFINITY : r;
    return (ufn_isnan_f64(x) || ufn_isnan_f64(y)) && r != (double)INFINITY ? x + y : r;
}

/* float: the squares and their sum are exact in double, then two double
 * roundings (sum, sqrt) far below float's */
UFN_FN float ufn_hypot_f32(float x, float y)
{
    double dx = (double)x, dy = (double)y;
    float r;
    UFN_VENDOR(hypotf(x, y));
    r = (float)sqrt(dx * dx + dy * dy);
    return ufn_isinf_f32(x) || ufn_isinf_f32(y) ? (float)INFINITY : r;
}

#endif /* UFN_LIBM_POW_H */
