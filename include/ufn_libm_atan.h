/* ufn_libm_atan.h - atan, atan2, asin, acos (included by ufn_libm.h).
 *
 * atan2(y, x) works on t = min(|x|,|y|) / max(|x|,|y|) in [0, 1]:
 * atan(t) = atan(c) + atan(u), u = (t - c) / (1 + c t), with c = 0, 1/2 or 1
 * by t's interval (fdlibm's breakpoints 7/16, 11/16), so |u| <= 7/16 and
 * a polynomial in u^2 does the rest.  Written with min and max rather than
 * t, the numerator min - c max is exact and the denominator max + c min is
 * a double-word: u is formed with one division and its residual, and only
 * the final sums round.  The octant then gives K +- atan(t) with K one of
 * 0, pi/2, pi (as double-words), and y's sign the result's.  atan(x) is the
 * same with 1 for |x|'s partner.
 *
 * float32 atan and atan2 are on the benchmark's hot path: two intervals
 * instead of three, the rest alike.
 *
 * asin(x) = x + x^3 Q(x^2) for |x| <= 1/2, and pi/2 - 2 asin(sqrt((1-|x|)/2))
 * above, the square root as a double-word; acos is built from the same
 * pieces (fdlibm's scheme).
 */
#ifndef UFN_LIBM_ATAN_H
#define UFN_LIBM_ATAN_H

#define UFN_LIBM_ATAN_HALF_HI  0x1.dac670561bb4fp-2      /* atan(1/2) */
#define UFN_LIBM_ATAN_HALF_LO  0x1.a2b7f222f65e2p-56
#define UFN_LIBM_PIO4_HI       0x1.921fb54442d18p-1
#define UFN_LIBM_PIO4_LO       0x1.1a62633145c07p-55
#define UFN_LIBM_PIO2_HI       0x1.921fb54442d18p+0
#define UFN_LIBM_PIO2_LO       0x1.1a62633145c07p-54
#define UFN_LIBM_PI_HI         0x1.921fb54442d18p+1
#define UFN_LIBM_PI_LO         0x1.1a62633145c07p-53

#define UFN_LIBM_ATAN_HALF_HI_F  0x1.dac670p-2f
#define UFN_LIBM_ATAN_HALF_LO_F  0x1.586ed4p-28f
#define UFN_LIBM_PIO4_HI_F       0x1.921fb6p-1f
#define UFN_LIBM_PIO4_LO_F       -0x1.777a5cp-26f
#define UFN_LIBM_PIO2_HI_F       0x1.921fb6p+0f
#define UFN_LIBM_PIO2_LO_F       -0x1.777a5cp-25f
#define UFN_LIBM_PI_HI_F         0x1.921fb6p+1f
#define UFN_LIBM_PI_LO_F         -0x1.777a5cp-24f

/* ---- float64 -------------------------------------------------------------------------------- */

/* atan(mn / mx) as hi + lo for 0 <= mn <= mx, 2^-900 < mx < 2^1000 */
UFN_FN ufn_dd ufn_libm_atan_core_f64(double mn, double mx)
{
    double t = mn / mx;
    double c = t < 0.4375 ? 0.0 : t < 0.6875 ? 0.5 : 1.0;
    double ah = t < 0.4375 ? 0.0 : t < 0.6875 ? UFN_LIBM_ATAN_HALF_HI : UFN_LIBM_PIO4_HI;
    double al = t < 0.4375 ? 0.0 : t < 0.6875 ? UFN_LIBM_ATAN_HALF_LO : UFN_LIBM_PIO4_LO;
    double num = mn - c * mx;                               /* exact (Sterbenz) */
    ufn_dd den = ufn_dd_fast2sum(mx, c * mn);
    double u = num / den.hi;
    double ul = (fma(-u, den.hi, num) - u * den.lo) / den.hi;
    double z = u * u, p = -0x1.f7e733b947e25p-8;
    ufn_dd s;
    p = fma(p, z, 0x1.7f18acdc9ee35p-6);
    p = fma(p, z, -0x1.31ba9eda5daa4p-5);
    p = fma(p, z, 0x1.79889aeef4a98p-5);
    p = fma(p, z, -0x1.ad01ac28113d5p-5);
    p = fma(p, z, 0x1.e1a047f8bce41p-5);
    p = fma(p, z, -0x1.110e5ac5c84ap-4);
    p = fma(p, z, 0x1.3b138a035fb1fp-4);
    p = fma(p, z, -0x1.745d15cf17809p-4);
    p = fma(p, z, 0x1.c71c71be64553p-4);
    p = fma(p, z, -0x1.2492492483a61p-3);
    p = fma(p, z, 0x1.999999999982bp-3);
    p = fma(p, z, -0x1.5555555555555p-2);
    /* atan(u + ul) = u + u z P(z) + ul (1 - z) */
    s = ufn_dd_twosum(ah, u);
    return ufn_dd_make(s.hi, s.lo + (al + fma(u * z, p, fma(-z, ul, ul))));
}

/* k + sign * a (k one of 0, pi/2, pi) rounded once */
UFN_FN double ufn_libm_atan_octant_f64(ufn_dd a, double khi, double klo, double sign)
{
    ufn_dd s = ufn_dd_twosum(khi, sign * a.hi);
    return s.hi + (s.lo + (klo + sign * a.lo));
}

UFN_FN double ufn_atan2_f64(double y, double x)
{
    double ay = ufn_libm_abs_f64(y), ax = ufn_libm_abs_f64(x), mn, mx, scale, r, t;
    int swap = ay > ax, neg = ufn_bits_f64(x) >> 63 != 0;
    ufn_dd core;
    UFN_VENDOR(atan2(y, x));
    mn = swap ? ax : ay;
    mx = swap ? ay : ax;
    scale = mx >= 0x1p1000 ? 0x1p-200 : mx < 0x1p-900 ? 0x1p200 : 1.0;
    core = ufn_libm_atan_core_f64(mn * scale, mx * scale);
    /* a ratio below 2^-60 is its own atan, and the correctly rounded
     * quotient beats the core, whose residual would be subnormal */
    t = mn / mx;
    core = ufn_dd_select(t < 0x1p-60, ufn_dd_make(t, 0.0), core);
    r = ufn_libm_atan_octant_f64(core,
                                 swap ? UFN_LIBM_PIO2_HI : neg ? UFN_LIBM_PI_HI : 0.0,
                                 swap ? UFN_LIBM_PIO2_LO : neg ? UFN_LIBM_PI_LO : 0.0,
                                 swap == neg ? 1.0 : -1.0);
    /* both zero: +-0 or +-pi by x's sign; both infinite: +-pi/4, +-3pi/4 */
    r = mx == 0.0 ? (neg ? UFN_LIBM_PI_HI : 0.0) : r;
    r = ax == (double)INFINITY && ay == (double)INFINITY ? (neg ? 0x1.2d97c7f3321d2p+1 : UFN_LIBM_PIO4_HI) : r;
    r = ax == (double)INFINITY && ay < (double)INFINITY ? (neg ? UFN_LIBM_PI_HI : 0.0) : r;
    r = ay == (double)INFINITY && ax < (double)INFINITY ? UFN_LIBM_PIO2_HI : r;
    r = ufn_libm_copysign_f64(r, y);
    return ufn_isnan_f64(x) || ufn_isnan_f64(y) ? (ufn_isnan_f64(x) ? x + x : y + y) : r;
}

UFN_FN double ufn_atan_f64(double x)
{
    double a = ufn_libm_abs_f64(x), r;
    int big = a > 1.0;
    UFN_VENDOR(atan(x));
    r = ufn_libm_atan_octant_f64(ufn_libm_atan_core_f64(big ? 1.0 : a, big ? (a < 0x1p1000 ? a : 0x1p1000) : 1.0),
                                 big ? UFN_LIBM_PIO2_HI : 0.0, big ? UFN_LIBM_PIO2_LO : 0.0, big ? -1.0 : 1.0);
    r = ufn_libm_copysign_f64(r, x);
    return ufn_isnan_f64(x) ? x + x : r;
}

/* asin(s + sl) - s - sl for 0 <= s <= 1/2: s^3 Q(s^2) + sl s^2/2 (sl
 * times the derivative's excess over 1) */
UFN_FN double ufn_libm_asin_tail_f64(double s, double sl)
{
    double z = s * s, q = 0x1.ffbe4a99c14acp-6;
    q = fma(q, z, -0x1.67de4244d39ecp-6);
    q = fma(q, z, 0x1.61a54295339e6p-6);
    q = fma(q, z, 0x1.1af3bc8ddbb63p-9);
    q = fma(q, z, 0x1.399c678d5476p-7);
    q = fma(q, z, 0x1.39b3af816c40dp-7);
    q = fma(q, z, 0x1.7b38d75aea111p-7);
    q = fma(q, z, 0x1.c98ba0f745c46p-7);
    q = fma(q, z, 0x1.1c4f25e7d100cp-6);
    q = fma(q, z, 0x1.6e8b9f6b519e4p-6);
    q = fma(q, z, 0x1.f1c71c85d5e59p-6);
    q = fma(q, z, 0x1.6db6db6d96755p-5);
    q = fma(q, z, 0x1.33333333334b7p-4);
    q = fma(q, z, 0x1.5555555555555p-3);
    return fma(s * z, q, sl * (0.5 * z));
}

/* sqrt((1 - a)/2) as s + sl for 1/2 <= a <= 1 (1 - a is exact) */
UFN_FN ufn_dd ufn_libm_asin_sqrt_f64(double a)
{
    double w = (1.0 - a) * 0.5, s = sqrt(w);
    return ufn_dd_make(s, s > 0.0 ? fma(-s, s, w) / (s + s) : 0.0);
}

UFN_FN double ufn_asin_f64(double x)
{
    double a = ufn_libm_abs_f64(x), small, big;
    ufn_dd s;
    UFN_VENDOR(asin(x));
    small = a + ufn_libm_asin_tail_f64(a, 0.0);
    /* pi/2 - 2 asin(s + sl) */
    s = ufn_libm_asin_sqrt_f64(a > 0.5 ? a : 0.5);
    big = ufn_libm_atan_octant_f64(ufn_dd_make(s.hi + s.hi, 2.0 * (s.lo + ufn_libm_asin_tail_f64(s.hi, s.lo))),
                                   UFN_LIBM_PIO2_HI, UFN_LIBM_PIO2_LO, -1.0);
    big = ufn_libm_copysign_f64(a > 0.5 ? big : small, x);
    big = a > 1.0 ? UFN_LIBM_NAN_F64 : big;
    return ufn_isnan_f64(x) ? x + x : big;
}

UFN_FN double ufn_acos_f64(double x)
{
    double a = ufn_libm_abs_f64(x), r, big;
    ufn_dd s, t;
    UFN_VENDOR(acos(x));
    /* |x| <= 1/2: pi/2 - asin(x) */
    r = ufn_libm_atan_octant_f64(ufn_dd_make(x, ufn_libm_copysign_f64(ufn_libm_asin_tail_f64(a, 0.0), x)),
                                 UFN_LIBM_PIO2_HI, UFN_LIBM_PIO2_LO, -1.0);
    /* |x| > 1/2: 2 asin(s) for x > 0, pi - 2 asin(s) for x < 0 */
    s = ufn_libm_asin_sqrt_f64(a > 0.5 ? a : 0.5);
    t = ufn_dd_make(s.hi + s.hi, 2.0 * (s.lo + ufn_libm_asin_tail_f64(s.hi, s.lo)));
    big = ufn_libm_atan_octant_f64(t, x > 0.0 ? 0.0 : UFN_LIBM_PI_HI, x > 0.0 ? 0.0 : UFN_LIBM_PI_LO,
                                   x > 0.0 ? 1.0 : -1.0);
    r = a <= 0.5 ? r : big;
    r = a > 1.0 ? UFN_LIBM_NAN_F64 : r;
    return ufn_isnan_f64(x) ? x + x : r;
}

/* ---- float32 -------------------------------------------------------------------------------- */

/* The float core (atan2f is on the benchmark's hot path): two intervals
 * instead of three.  For t = mn/mx in [0, 1/2], u = t; above,
 * atan(t) = pi/4 + atan(u) with u = (mn - mx)/(mx + mn) in (-1/3, 0], the
 * numerator exact and the denominator a double-word.  u comes from one
 * reciprocal and its residual ul; atan(u + ul) = u + u z P(z) + ul (1 - z)
 * with P of degree 5 in u^2 (tools/libm/atan.sollya).  Then
 * k + sign (c pi/4 + u + tail) with k one of 0, pi/2, pi, each step a
 * Fast2Sum, one rounding.  mn <= mx, both finite, scaled by the callers
 * so that 1/mx, u and ul are normal.
 *
 * The result is (k + sign v - ksub) g: atan2 passes g = 2^-64 and t 2^64
 * for a small t, else g = 1.  A subnormal result would be rounded twice
 * (u itself is rounded to the subnormal grid): for it atan2 passes
 * t 2^64 < 2^-62 and k = ksub = 2^-62, else ksub = 0.  k + v then lies
 * in [2^-62, 2^-61], whose grid 2^-85 is the subnormals' grid times 2^64:
 * the one rounding of the sum is the right one, and (sum - k) g is
 * exact. */
/* P(z) of atan(u) = u + u z P(z), |u| <= 1/2 (tools/libm/atan.sollya),
 * Horner: both float kernels below share it */
UFN_FN float ufn_libm_atan_poly_f32(float z)
{
    float p = 0x1.651436p-5f;
    p = fmaf(p, z, -0x1.551572p-4f);
    p = fmaf(p, z, 0x1.c3c88ep-4f);
    p = fmaf(p, z, -0x1.248082p-3f);
    p = fmaf(p, z, 0x1.99998ap-3f);
    return fmaf(p, z, -0x1.555556p-2f);
}

UFN_FN float ufn_libm_atan_octant_f32(float mn, float mx, float khi, float klo, float sign,
                                      float ksub, float g)
{
    int half = mn > 0.5f * mx;
    float num = half ? mn - mx : mn, den = half ? mx + mn : mx;
    float denl = half ? (mx - den) + mn : 0.0f;
    float q = 1.0f / den, u = num * q;
    float ul = (fmaf(-u, den, num) - u * denl) * q;
    float z = u * u, p = ufn_libm_atan_poly_f32(z), tail, ch, vh, vl, sv, h;
    tail = fmaf(u * z, p, fmaf(-z, ul, ul));
    /* v = c pi/4 + u + tail: pi/4 >= |u|, so Fast2Sum */
    ch = half ? UFN_LIBM_PIO4_HI_F : 0.0f;
    vh = ch + u;
    vl = ((ch - vh) + u) + ((half ? UFN_LIBM_PIO4_LO_F : 0.0f) + tail);
    /* k + sign v: |k| >= |v| or k == 0 */
    sv = sign * vh;
    h = khi + sv;
    h = h + (((khi - h) + sv) + (klo + sign * vl));
    return (h - ksub) * g;
}

/* pi/4 to 22 bits, so that m pi/4 is exact for m = 0..4, and the rest */
#define UFN_LIBM_PIO4_HI22_F  0x1.921fb8p-1f
#define UFN_LIBM_PIO4_LO22_F  -0x1.5dde98p-24f

/* atan2(y, x) for x and y finite with max(|x|, |y|) <= 2^60 and
 * min(|x|, |y|) >= 2^-60 (the pairs ufn_libm_atan2_rare_f32 does not
 * take), and for the scaled pairs that ufn_libm_atan2_f32 passes.  The
 * vector variants run it on every lane, and they are bound by the vector
 * ports: it has no select of two floats (a three-micro-op blend on
 * AVX2), and the choices are masks on the bits.  With mn = min(|x|, |y|),
 * mx = the max and c = 1 for mn > mx/2, else 0 (the octant function's
 * reduction above, in two intervals):
 *
 *   u + ul = (mn - c mx) / (mx + c mn), the numerator exact, the
 *            denominator a double-word, u from one reciprocal, ul its
 *            residual (|u| <= 1/2; |u| < 1/3 when c = 1)
 *   atan(u + ul) = u + tail, tail = u z P(z) + ul (1 - z), z = u^2
 *   atan2(|y|, x) = m pi/4 + s (u + tail)
 *
 * with s = -1 when the octant mirrors (|y| > |x| and x >= 0, or the
 * reverse; put on the numerator, since u, ul and tail are odd in it) and
 * m = 2 (|y| > |x|), 4 (x < 0) or 0, plus s c.  m pi/4 is exact as
 * m hi + m lo (hi has 22 bits): one Fast2Sum (|m pi/4| >= pi/4 > |u|, or
 * m = 0) and the result rounds once.  The ratio mn/mx is at least 2^-120:
 * u, its residual and the result are normal. */
UFN_FN float ufn_libm_atan2_kernel_f32(float y, float x)
{
    /* |y|, |x|, their min and max and which is which, on the bits (the
     * integer order of nonnegative floats is theirs) */
    int32_t by = (int32_t)(ufn_bits_f32(y) & 0x7fffffffu), bx = (int32_t)(ufn_bits_f32(x) & 0x7fffffffu);
    int32_t bmn = by < bx ? by : bx, bmx = by < bx ? bx : by;
    uint32_t sw = 0u - (uint32_t)(by > bx), neg = 0u - (ufn_bits_f32(x) >> 31);
    float mn = ufn_f32_from_bits((uint32_t)bmn), mx = ufn_f32_from_bits((uint32_t)bmx);
    float c = ufn_f32_from_bits((0u - (uint32_t)(mn + mn > mx)) & 0x3f800000u);
    /* the sign of s, put on the numerator: u, ul and tail are odd in it */
    uint32_t flip = (sw ^ neg) << 31;
    float num = ufn_f32_from_bits(ufn_bits_f32(fmaf(-c, mx, mn)) ^ flip);
    float den = fmaf(c, mn, mx), denl = fmaf(c, mn, mx - den);
    float q = 1.0f / den, u = num * q;
    float ul = fmaf(-u, denl, fmaf(-u, den, num)) * q;
    float z = u * u, p = ufn_libm_atan_poly_f32(z), tail, m, kh, h, r;
    tail = fmaf(u * z, p, fmaf(-z, ul, ul));
    /* m = 2 (swap), 4 (x < 0) or 0, from the bits of 2.0f and 4.0f, + s c */
    m = ufn_f32_from_bits((sw & 0x40000000u) | (~sw & neg & 0x40800000u)) + ufn_f32_from_bits(ufn_bits_f32(c) ^ flip);
    kh = m * UFN_LIBM_PIO4_HI22_F;
    h = kh + u;
    r = h + (fmaf(m, UFN_LIBM_PIO4_LO22_F, (kh - h) + u) + tail);
    /* r >= +0: y's sign by one or */
    return ufn_f32_from_bits(ufn_bits_f32(r) | (ufn_bits_f32(y) & 0x80000000u));
}

/* The pairs the kernel cannot take as they are: a nan, an infinity, a
 * zero, or a magnitude outside [2^-60, 2^60].  The vector variants
 * (ufn_libm_simd.h) run the kernel on every lane and the whole function
 * on these.  A nan is mn or mx (the integer order puts it above inf) and
 * fails its comparison. */
UFN_FN int ufn_libm_atan2_rare_f32(float y, float x)
{
    int32_t by = (int32_t)(ufn_bits_f32(y) & 0x7fffffffu), bx = (int32_t)(ufn_bits_f32(x) & 0x7fffffffu);
    float mn = ufn_f32_from_bits((uint32_t)(by < bx ? by : bx)), mx = ufn_f32_from_bits((uint32_t)(by < bx ? bx : by));
    return !(mx <= 0x1p60f) | !(mn >= 0x1p-60f);
}

/* The whole function: the kernel on the pair scaled by a power of two s
 * (1 for the pairs that are not rare, so that they get the kernel's bits
 * exactly, whatever the loop), then the cases the kernel cannot take.  s brings mx
 * into [2^-49, 2^64]: then for a ratio mn/mx >= 2^-40 the kernel's
 * operands are normal, and for a smaller one with m >= 1 the result is
 * m pi/4 to far below its grid.  A smaller ratio with m = 0 (x > 0) is
 * atan(t) = t (1 - t^2/3 + ...): the correctly rounded quotient |y| / x,
 * subnormal or not, is within 0.5 + 2^-80 ulp of it. */
UFN_FN float ufn_libm_atan2_f32(float y, float x)
{
    float ay = ufn_libm_abs_f32(y), ax = ufn_libm_abs_f32(x), s, r;
    int swap = ay > ax, neg = ufn_bits_f32(x) >> 31 != 0;
    float mx = swap ? ay : ax;
    s = mx > 0x1p60f ? 0x1p-64f : mx < 0x1p-60f ? 0x1p100f : 1.0f;
    r = ufn_libm_atan2_kernel_f32(y * s, x * s);
    r = ufn_libm_atan2_rare_f32(y, x) && ay * 0x1p40f < x ? ufn_libm_copysign_f32(ay / x, y) : r;
    /* both zero: +-0 or +-pi by x's sign; infinities */
    r = mx == 0.0f ? (neg ? UFN_LIBM_PI_HI_F : 0.0f) : r;
    r = ax == (float)INFINITY ? (ay == (float)INFINITY ? (neg ? 0x1.2d97c8p+1f : UFN_LIBM_PIO4_HI_F)
                                                        : (neg ? UFN_LIBM_PI_HI_F : 0.0f)) : r;
    r = ay == (float)INFINITY && ax < (float)INFINITY ? UFN_LIBM_PIO2_HI_F : r;
    r = ufn_libm_copysign_f32(r, y);
    return ufn_isnan_f32(x) || ufn_isnan_f32(y) ? (ufn_isnan_f32(x) ? x + x : y + y) : r;
}

#if defined(UFN_LIBM_SIMD)
UFN_LIBM_SIMD_F32_2(ufn_atan2_f32, ufn_libm_atan2_f32, ufn_libm_atan2_kernel_f32, ufn_libm_atan2_f32,
                    ufn_libm_atan2_rare_f32)
#else
UFN_FN float ufn_atan2_f32(float y, float x)
{
    UFN_VENDOR(atan2f(y, x));
    return ufn_libm_atan2_f32(y, x);
}
#endif

UFN_FN float ufn_atan_f32(float x)
{
    float a = ufn_libm_abs_f32(x), r;
    int big = a > 1.0f;
    UFN_VENDOR(atanf(x));
    r = ufn_libm_atan_octant_f32(big ? 1.0f : a, big ? (a < 0x1p64f ? a : 0x1p64f) : 1.0f,
                                 big ? UFN_LIBM_PIO2_HI_F : 0.0f, big ? UFN_LIBM_PIO2_LO_F : 0.0f,
                                 big ? -1.0f : 1.0f, 0.0f, 1.0f);
    r = ufn_libm_copysign_f32(r, x);
    return ufn_isnan_f32(x) ? x + x : r;
}

/* not hot: float64, rounded once */
UFN_FN float ufn_asin_f32(float x)
{
    UFN_VENDOR(asinf(x));
    return (float)ufn_asin_f64((double)x);
}

UFN_FN float ufn_acos_f32(float x)
{
    UFN_VENDOR(acosf(x));
    return (float)ufn_acos_f64((double)x);
}

#endif /* UFN_LIBM_ATAN_H */
