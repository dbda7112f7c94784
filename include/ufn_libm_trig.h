/* ufn_libm_trig.h - sin, cos, tan (included by ufn_libm.h).
 *
 * x = q (pi/2) + r with |r| <= pi/4, then a polynomial for sin(r) or cos(r)
 * chosen and signed by q mod 4.  The reduced argument is carried as a
 * double-word r + rl: x is often close to a multiple of pi/2 and r then has
 * few correct bits unless pi/2 has many more than the format.
 *
 * Two reductions, both computed in a vectorised loop and one chosen:
 *   - Cody-Waite: r = x - n P1 - n P2 - n P3 with pi/2 = P1 + P2 + P3 to
 *     three times the format's precision; fma makes x - n P1 exact and n P2
 *     an exact pair.  double: |x| < 2^45.  float: in float below 2^13
 *     (P2 short enough that n P2 is exact instead), in double by pi
 *     rather than pi/2 from 2^13 to 2^17 (below).
 *   - Payne-Hanek for the rest (up to 3.4e38 and 1.8e308): only the bits of
 *     2/pi that survive mod 4 are multiplied by x.  float: in double, with
 *     the bits for two exponent ranges as constants (no table); double: in
 *     32-bit integer limbs, with a window of the bits of 2/pi cut from a
 *     table at x's exponent.
 * The worst cases are x whose distance to the nearest multiple of pi/2 is
 * smallest: 2^-61 relative for double (6381956970095103 2^797, tested),
 * 2^-29 for float; both reductions keep r to the format's precision there.
 */
#ifndef UFN_LIBM_TRIG_H
#define UFN_LIBM_TRIG_H

#define UFN_LIBM_2_OVER_PI   0x1.45f306dc9c883p-1
#define UFN_LIBM_PIO2_1      0x1.921fb54442d18p+0
#define UFN_LIBM_PIO2_2      0x1.1a62633145c07p-54
#define UFN_LIBM_PIO2_3      -0x1.f1976b7ed8fbcp-110
#define UFN_LIBM_1_OVER_PI   0x1.45f306dc9c883p-2
#define UFN_LIBM_PI_1        0x1.921fb54442d18p+1
#define UFN_LIBM_PI_2        0x1.1a62633145c07p-53

/* The reduced argument: x = q pi/2 + r + rl (q is used mod 4). */
typedef struct { double r, rl; int64_t q; } ufn_libm_red_f64;
/* float: x = q pi/2 + r, r in double (Payne-Hanek only, below) */
typedef struct { double r; int32_t q; } ufn_libm_red_f32;

/* ---- float64 reductions -------------------------------------------------------------------- */

UFN_FN ufn_libm_red_f64 ufn_libm_reduce_cw_f64(double x)
{
    ufn_libm_red_f64 a;
    double t = fma(x, UFN_LIBM_2_OVER_PI, UFN_LIBM_SHIFT_F64);
    double n = t - UFN_LIBM_SHIFT_F64;
    double r1 = fma(-n, UFN_LIBM_PIO2_1, x);             /* exact */
    ufn_dd p2 = ufn_dd_twoprod(n, UFN_LIBM_PIO2_2);
    ufn_dd s = ufn_dd_twosum(r1, -p2.hi);
    ufn_dd r = ufn_dd_fast2sum(s.hi, fma(-n, UFN_LIBM_PIO2_3, s.lo - p2.lo));
    a.r = r.hi;
    a.rl = r.lo;
    a.q = (int64_t)(ufn_bits_f64(t) & 3u);
    return a;
}

/* The bits of 2/pi after the binary point, 32 a word, behind one zero word
 * (so that a window may start up to 31 bits before the point). */
#define UFN_LIBM_2OPI_BITS {                                                            \
    0x00000000u,                                                                        \
    0xa2f9836eu, 0x4e441529u, 0xfc2757d1u, 0xf534ddc0u, 0xdb629599u, 0x3c439041u,       \
    0xfe5163abu, 0xdebbc561u, 0xb7246e3au, 0x424dd2e0u, 0x06492eeau, 0x09d1921cu,       \
    0xfe1deb1cu, 0xb129a73eu, 0xe88235f5u, 0x2ebb4484u, 0xe99c7026u, 0xb45f7e41u,       \
    0x3991d639u, 0x835339f4u, 0x9c845f8bu, 0xbdf9283bu, 0x1ff897ffu, 0xde05980fu,       \
    0xef2f118bu, 0x5a0a6d1fu, 0x6d367ecfu, 0x27cb09b7u, 0x4f463f66u, 0x9e5fea2du,       \
    0x7527bac7u, 0xebe5f17bu, 0x3d0739f7u, 0x8a5292eau, 0x6bfb5fb1u, 0x1f8d5d08u,       \
    0x56033046u, 0xfc7b6babu}

#if defined(__CUDACC__)
static __device__ const uint32_t ufn_libm_2opi_bits_dev[] = UFN_LIBM_2OPI_BITS;
#endif
#if defined(__GNUC__)
__attribute__((unused))
#endif
static const uint32_t ufn_libm_2opi_bits_host[] = UFN_LIBM_2OPI_BITS;

UFN_FN uint32_t ufn_libm_2opi_word(uint32_t i)
{
#if defined(__CUDA_ARCH__)
    return ufn_libm_2opi_bits_dev[i];
#else
    return ufn_libm_2opi_bits_host[i];
#endif
}

/* 32 bits of 2/pi starting at bit s of the padded table (MSB first) */
UFN_FN uint64_t ufn_libm_2opi_window(uint32_t s)
{
    uint32_t w = s >> 5, o = s & 31u;
    uint64_t pair = ((uint64_t)ufn_libm_2opi_word(w) << 32) | ufn_libm_2opi_word(w + 1);
    return (uint32_t)((pair << o) >> 32);
}

/* Payne-Hanek for |x| >= 2^45 (finite): x = M 2^E, M < 2^53.  The bits
 * b_i of 2/pi (weight 2^-i) with i >= E - 1 are the ones that matter mod 4;
 * 192 of them (six words w0..w5) times M, in 32-bit limbs, give
 * x 2/pi mod 4 to 2^-124.  Of the 245-bit product only bits 32..191 are
 * formed (the lower ones change bit 64 by a carry at most). */
UFN_FN ufn_libm_red_f64 ufn_libm_reduce_ph_f64(double x)
{
    ufn_libm_red_f64 a;
    uint64_t b = ufn_bits_f64(x) & 0x7fffffffffffffffull;
    uint64_t m = (b & 0xfffffffffffffull) | 0x10000000000000ull, m0 = m & 0xffffffffu, m1 = m >> 32;
    /* bit i of 2/pi is bit i + 31 of the padded table; the window starts at
     * i0 = E - 1 = e - 1076 (e the biased exponent, 1068..2046 here), so at
     * s = e - 1045.  The mask keeps the loads in the table for the arguments
     * the other reduction serves, without a branch (a branch would make
     * them conditional loads, which gcc cannot vectorise). */
    uint32_t s = ((uint32_t)(b >> 52) - 1045u) & 1023u;
    uint64_t w0 = ufn_libm_2opi_window(s), w1 = ufn_libm_2opi_window(s + 32u);
    uint64_t w2 = ufn_libm_2opi_window(s + 64u), w3 = ufn_libm_2opi_window(s + 96u);
    uint64_t w4 = ufn_libm_2opi_window(s + 128u), w5 = ufn_libm_2opi_window(s + 160u);
    uint64_t p, c1, c2, c3, c4, c5, lo32 = 0xffffffffu;
    /* columns of 32 bits; c_t collects the products at 32 t and the carries */
    p = m0 * w5;  c1 = p >> 32;
    p = m0 * w4;  c1 += p & lo32;  c2 = p >> 32;
    p = m1 * w5;  c1 += p & lo32;  c2 += p >> 32;
    p = m0 * w3;  c2 += p & lo32;  c3 = p >> 32;
    p = m1 * w4;  c2 += p & lo32;  c3 += p >> 32;
    p = m0 * w2;  c3 += p & lo32;  c4 = p >> 32;
    p = m1 * w3;  c3 += p & lo32;  c4 += p >> 32;
    p = m0 * w1;  c4 += p & lo32;  c5 = p >> 32;
    p = m1 * w2;  c4 += p & lo32;  c5 += p >> 32;
    p = m0 * w0;  c5 += p;
    p = m1 * w1;  c5 += p;
    c2 += c1 >> 32;
    c3 += c2 >> 32;
    c4 += c3 >> 32;
    c5 += c4 >> 32;
    /* y = x 2/pi mod 4 = [c5 c4 c3 c2] 2^-126 (four 32-bit words, top 2 bits
     * the integer part).  Round to the nearest integer k and keep the
     * fraction F = y - k, two's complement, in the same words. */
    {
        uint64_t hi = ((c5 & lo32) << 32) | (c4 & lo32);       /* bits 127..64 of V */
        uint64_t lo = ((c3 & lo32) << 32) | (c2 & lo32);       /* bits 63..0 */
        uint64_t k = (hi + 0x2000000000000000ull) >> 62;       /* round half up, mod 4 */
        uint64_t fh = hi - (k << 62);                          /* F's top 64 bits, signed */
        /* F 2^-126 to double-word: four exact conversions, summed exactly enough */
        double f3 = (double)(int32_t)(uint32_t)(fh >> 32) * 0x1p-30;
        double f2 = (double)(uint32_t)fh * 0x1p-62;
        double f1 = (double)(uint32_t)(lo >> 32) * 0x1p-94;
        double f0 = (double)(uint32_t)lo * 0x1p-126;
        ufn_dd f = ufn_dd_fast2sum(f3, f2);
        f = ufn_dd_fast2sum(f.hi, f.lo + (f1 + f0));
        f = ufn_dd_mul(f, ufn_dd_make(UFN_LIBM_PIO2_1, UFN_LIBM_PIO2_2));
        a.r = f.hi;
        a.rl = f.lo;
        a.q = (int64_t)k;
    }
    a.r = x < 0.0 ? -a.r : a.r;
    a.rl = x < 0.0 ? -a.rl : a.rl;
    a.q = x < 0.0 ? -a.q : a.q;
    return a;
}

/* ---- float32 reductions ------------------------------------------------------------------------ */

/* h mod 4 (a remainder in (-2, 2]): below 2^54, h/4 rounds to an integer
 * by adding and subtracting 2^52 with its sign; from 2^54 on, every double
 * is a multiple of 4. */
UFN_FN double ufn_libm_mod4_f64(double h)
{
    double v = h * 0.25, c = ufn_libm_copysign_f64(0x1p52, v);
    double m = h - 4.0 * ((v + c) - c);
    return ufn_libm_abs_f64(h) < 0x1p54 ? m : 0.0;
}

/* Payne-Hanek for float |x| >= 2^17, in double: x = M 2^E with E >= -6.
 * Two exponent ranges, each with the bits of (2^Eb 2/pi) mod 4 as three
 * doubles (tools/libm/trig_constants.py); x 2^-Eb is an integer of at most
 * 24 + 55 bits, its products with the pieces exact pairs. */
UFN_FN ufn_libm_red_f32 ufn_libm_reduce_ph_f32(float xf)
{
    ufn_libm_red_f32 a;
    double x = (double)xf;
    int hi = ufn_libm_abs_f64(x) >= 0x1p73;              /* E >= 50 */
    double xb = x * (hi ? 0x1p-50 : 0x1p6);
    double c0 = hi ? 0x1.529fc2757d1f4p-2 : 0x1.45f306dc9c880p-7;
    double c1 = hi ? 0x1.34ddc0db62958p-54 : 0x1.529fc2757d1e0p-58;
    double c2 = hi ? 0x1.93c439041fe51p-106 : 0x1.534ddc0db6295p-106;
    ufn_dd p0 = ufn_dd_twoprod(xb, c0), p1 = ufn_dd_twoprod(xb, c1);
    ufn_dd s = ufn_dd_twosum(ufn_libm_mod4_f64(p0.hi), ufn_libm_mod4_f64(p1.hi));
    ufn_dd t = ufn_dd_twosum(s.hi, ufn_libm_mod4_f64(p0.lo));
    double k = ufn_libm_rint_small_f64(t.hi);
    double lo = (s.lo + t.lo) + (p1.lo + xb * c2);
    ufn_dd f = ufn_dd_fast2sum(t.hi - k, lo);           /* t.hi - k is exact */
    a.r = fma(f.hi, UFN_LIBM_PIO2_1, fma(f.hi, UFN_LIBM_PIO2_2, f.lo * UFN_LIBM_PIO2_1));
    a.q = (int32_t)k;
    return a;
}

/* ---- kernels on |r| <= pi/4 (a little more: n may round the other way) ---------------------- */

/* sin(r + rl) = r + (r^3 S(r^2) + rl (1 - r^2/2)), as hi + lo */
UFN_FN ufn_dd ufn_libm_sin_kernel_f64(double r, double rl)
{
    double z = r * r, s = -0x1.8fb8b471b50eap-41;
    s = fma(s, z, 0x1.60e9eb3b6c9ddp-33);
    s = fma(s, z, -0x1.ae63fd3e5c09ap-26);
    s = fma(s, z, 0x1.71de3a133d40dp-19);
    s = fma(s, z, -0x1.a01a019fea0b7p-13);
    s = fma(s, z, 0x1.1111111111022p-7);
    s = fma(s, z, -0x1.5555555555555p-3);
    return ufn_dd_fast2sum(r, fma(r * z, s, fma(-0.5 * z, rl, rl)));
}

/* cos(r + rl) = (1 - r^2/2) + (r^4 C(r^2) - r rl), r^2 exact, 1 - r^2/2 as
 * hi + lo: the big terms never round before the end */
UFN_FN ufn_dd ufn_libm_cos_kernel_f64(double r, double rl)
{
    ufn_dd z = ufn_dd_twoprod(r, r), h = ufn_dd_fast2sum(1.0, -0.5 * z.hi);
    double c = 0x1.3d5d682e39a04p-45;
    c = fma(c, z.hi, -0x1.92b5392940101p-37);
    c = fma(c, z.hi, 0x1.1eecdf6521ac1p-29);
    c = fma(c, z.hi, -0x1.27e4faf4376cap-22);
    c = fma(c, z.hi, 0x1.a01a019fba65cp-16);
    c = fma(c, z.hi, -0x1.6c16c16c16a39p-10);
    c = fma(c, z.hi, 0x1.5555555555555p-5);
    return ufn_dd_fast2sum(h.hi, h.lo + fma(z.hi * z.hi, c, fma(-0.5, z.lo, -r * rl)));
}

/* ---- the functions ----------------------------------------------------------------------------- */

/* sin(r + rl) or cos(r + rl), one kernel per element: the two kernels
 * above have the same shape (a leading term a, a Horner polynomial p in
 * r^2 of seven coefficients, then a + (b + fma(m, p, t))), so each step
 * selects its operands and only one polynomial is evaluated.  A vector loop
 * computed both and selected (twice the work); each step here is the
 * operation the chosen kernel performs, so the bits are that kernel's
 * (sin's lacking b adds -0.0, which leaves every value as it is; tests/math
 * lanes.c compares the two).  cosine is nonzero for cos. */
UFN_FN double ufn_libm_sin_or_cos_f64(double r, double rl, int64_t cosine)
{
    ufn_dd z = ufn_dd_twoprod(r, r), h = ufn_dd_fast2sum(1.0, -0.5 * z.hi);
    double p = cosine ? 0x1.3d5d682e39a04p-45 : -0x1.8fb8b471b50eap-41;
    double a, b, t;
    ufn_dd y;
    p = fma(p, z.hi, cosine ? -0x1.92b5392940101p-37 : 0x1.60e9eb3b6c9ddp-33);
    p = fma(p, z.hi, cosine ? 0x1.1eecdf6521ac1p-29 : -0x1.ae63fd3e5c09ap-26);
    p = fma(p, z.hi, cosine ? -0x1.27e4faf4376cap-22 : 0x1.71de3a133d40dp-19);
    p = fma(p, z.hi, cosine ? 0x1.a01a019fba65cp-16 : -0x1.a01a019fea0b7p-13);
    p = fma(p, z.hi, cosine ? -0x1.6c16c16c16a39p-10 : 0x1.1111111111022p-7);
    p = fma(p, z.hi, cosine ? 0x1.5555555555555p-5 : -0x1.5555555555555p-3);
    /* sin: r + (r^3 S + rl (1 - r^2/2)); cos: h + (hl + (r^4 C - z.lo/2 - r rl)) */
    a = cosine ? h.hi : r;
    b = cosine ? h.lo : -0.0;
    t = fma(cosine ? -0.5 : -0.5 * z.hi, cosine ? z.lo : rl, cosine ? -r * rl : rl);
    y = ufn_dd_fast2sum(a, b + fma((cosine ? z.hi : r) * z.hi, p, t));
    return y.hi + y.lo;
}

/* sin(x) (shift 0) or cos(x) (shift 1) from the reduced argument: sin(r),
 * cos(r), -sin(r), -cos(r) for (q + shift) mod 4 = 0..3. */
UFN_FN double ufn_libm_sincos_eval_f64(ufn_libm_red_f64 a, int64_t shift)
{
    int64_t q = a.q + shift;
    double y = ufn_libm_sin_or_cos_f64(a.r, a.rl, q & 1);
    return (q & 2) ? -y : y;
}

/* tan = sin/cos (q even) or -cos/sin (q odd), both as double words, the
 * quotient corrected once with its fma residual: one rounding at the end. */
UFN_FN double ufn_libm_tan_eval_f64(ufn_libm_red_f64 a)
{
    ufn_dd s = ufn_libm_sin_kernel_f64(a.r, a.rl), c = ufn_libm_cos_kernel_f64(a.r, a.rl);
    ufn_dd num = ufn_dd_select(a.q & 1, ufn_dd_make(-c.hi, -c.lo), s);
    ufn_dd den = ufn_dd_select(a.q & 1, s, c);
    double t = num.hi / den.hi;
    return t + (fma(-t, den.hi, num.hi) + fma(-t, den.lo, num.lo)) / den.hi;
}

/* ---- float32 from 2^13 on: in double, rounded once ----------------------------------------- */

/* A float32 sine or cosine of |x| >= 2^13 (below, a float kernel serves:
 * further down) is computed in double from the exact double of
 * x and rounded to float once at the end: double has the bits to spare
 * that float needed double-word arithmetic for, and one polynomial without
 * selects serves both functions.  x = n pi + r with |r| <= pi/2 (sin) or
 * x = (n + 1/2) pi + r (cos), then sin(x) or cos(x) = +-sin(r):
 *   - n is x/pi rounded (x/pi - 1/2 for cos), pi = PI_1 + PI_2 to 107
 *     bits.  r1 = x - m PI_1 is exact (m = n or n + 1/2): x is a multiple
 *     of 2^-52 for |x| >= 2^-29, so is m PI_1, and |r1| < 2; below 2^-29,
 *     n = 0 and r1 = x (sin) or r1 is about -+pi/2, without cancellation
 *     (cos).  r = r1 - m PI_2 is one rounding from x - m pi, the rest of pi
 *     (m 2^-107 < 2^-92) far below r's ulp for |x| < 2^17.
 *   - sin(r) = r (1 + r^2 S(r^2)), S of degree 6, 2^-50 relative on
 *     |r| <= 1.5708 (tools/libm/trig.sollya); the product form keeps the
 *     sign of a zero.
 * The whole error is near 2^-50 relative: the float result is the
 * correctly rounded one unless the exact value lies about that close to a
 * midpoint between two floats (tests/math/RESULTS.md).  These arguments
 * are rare; the float kernel's 1 ulp is the bound (ufn(7)). */
UFN_FN double ufn_libm_sin_kernel_f32(double r)
{
    double z = r * r, s = -0x1.a0f9e151081d8p-41;
    s = fma(s, z, 0x1.60f67d964db02p-33);
    s = fma(s, z, -0x1.ae63bb733edcep-26);
    s = fma(s, z, 0x1.71de3947c332fp-19);
    s = fma(s, z, -0x1.a01a019e59e78p-13);
    s = fma(s, z, 0x1.111111110ff85p-7);
    s = fma(s, z, -0x1.555555555554ep-3);
    return r * fma(s, z, 1.0);          /* r (1 + z S): sin(-0.0) is -0.0 */
}

/* y with its sign flipped where bit 0 of u is set: the parity of n */
UFN_FN double ufn_libm_flip_f64(double y, uint64_t u)
{
    return ufn_f64_from_bits(ufn_bits_f64(y) ^ (u << 63));
}

/* The Payne-Hanek reduction gives x = q pi/2 + r, |r| <= pi/4: for q odd
 * the sine of x is +-cos(r) = +-sin(pi/2 - |r|) (pi/2 - |r| is at least
 * pi/4: no cancellation), and the sign comes from q mod 4. */
UFN_FN float ufn_libm_sincos_eval_f32(ufn_libm_red_f32 a, int32_t shift)
{
    int32_t q = a.q + shift;
    double r = (q & 1) ? (UFN_LIBM_PIO2_1 - ufn_libm_abs_f64(a.r)) + UFN_LIBM_PIO2_2 : a.r;
    double y = ufn_libm_sin_kernel_f32(r);
    return (float)((q & 2) ? -y : y);
}

/* Each function comes in three parts:
 *   _fast  |x| below the Cody-Waite limit (2^45, 2^17), no special values;
 *   _big   every other x: Payne-Hanek, and inf and nan;
 *   the whole function, which branches between them.
 * On the GPU the branch is a branch; where a host loop vectorises, gcc's
 * if-conversion computes both parts for every element, which makes the
 * rare part the expensive one, so ufn_libm_simd.h gives gcc vector
 * variants that run _fast on all lanes and _big only on the lanes that
 * need it (libmvec's design).  sin(-0.0) and tan(-0.0) are -0.0. */
#define UFN_LIBM_CW_LIMIT_F64 0x1p45
#define UFN_LIBM_CW_LIMIT_F32 0x1p17f

UFN_FN double ufn_libm_sin_fast_f64(double x)
{
    double y = ufn_libm_sincos_eval_f64(ufn_libm_reduce_cw_f64(x), 0);
    return x == 0.0 ? x : y;
}

UFN_FN double ufn_libm_cos_fast_f64(double x)
{
    return ufn_libm_sincos_eval_f64(ufn_libm_reduce_cw_f64(x), 1);
}

UFN_FN double ufn_libm_tan_fast_f64(double x)
{
    double y = ufn_libm_tan_eval_f64(ufn_libm_reduce_cw_f64(x));
    return x == 0.0 ? x : y;
}

/* ---- float32 below 2^13: in float, 8 or 16 lanes a vector --------------------------------- */

/* The common arguments (|x| < 2^13) take a float kernel, twice the lanes
 * of a double one; the double one below serves 2^13 <= |x| < 2^17 and
 * Payne-Hanek the rest (ufn_libm_sin_f32 below; the vector variants run the
 * float kernel on every lane and the others only on the lanes that need
 * them).  x = n pi/2 + r + rl, |r| <= pi/4 (a hair more where n rounds the
 * other way):
 *   - n is x 2/pi rounded by the shift (|n| < 2^13); pi/2 = P1 + P2 + P3
 *     to 2^-63, P1 the float below pi/2, P2 of 11 bits.  r1 = x - n P1 is
 *     exact (fma; both are multiples of 2^-24 where n != 0, |r1| < 1).
 *     r = r1 - n P2 rounded; d = r - r1 is exact: r1, n P2 and so r are
 *     multiples of 2^-34 (P2's last bit) and |d| <= |n P2| + ulp(r)/2 <
 *     2^-10.  (With a P2 of 24 bits d rounded where r1 and n P2 cancel,
 *     near multiples of pi/2: 8 ulp at 3 pi.)  The fma d + n P2 then gives
 *     what r lost, rounded once, negated: nl = -rl, and nl + n P3.
 *   - sin(r + rl) = r - (nl - r z S(z)) and cos(r + rl) = 1 + z C(z) with
 *     z = r^2 - 2 r nl (the rl term of cos is up to 0.35 ulp);
 *     S and C of degree 3, 2^-30 and 2^-31 relative on |r| <= pi/4 + 2^-18
 *     (tools/libm/trig.sollya).  Both are evaluated and the quadrant's one
 *     kept (a select, not a branch); its sign comes from bit 1 of the
 *     quadrant.
 *   - sin(-0.0) is -0.0 without a select: n = +0.0, r = -0.0 - (+0.0 P2)
 *     is -0.0 because P2 > 0 (P1 below pi/2), nl = +0.0, and r - (+0.0) is
 *     -0.0 (r + rl would be +0.0).
 * Bound: 1 ulp (ufn(7)); tests/math/exhaustive verifies every input
 * (tests/math/RESULTS.md).  The fma's are written out: one instruction
 * with FMA hardware, glibc's exact fmaf() in the SSE2 baseline loops. */
#define UFN_LIBM_FLOAT_LIMIT_F32 0x1p13f
#define UFN_LIBM_2_OVER_PI_F32   0x1.45f306p-1f
#define UFN_LIBM_PIO2_1_F32      0x1.921fb4p+0f
#define UFN_LIBM_PIO2_2_F32      0x1.444p-24f
#define UFN_LIBM_PIO2_3_F32      0x1.68c234p-39f

/* sin(x) (shift 0) or cos(x) (shift 1) for |x| < 2^13 */
UFN_FN float ufn_libm_sincos_fast_f32(float x, uint32_t shift)
{
    float t = fmaf(x, UFN_LIBM_2_OVER_PI_F32, UFN_LIBM_SHIFT_F32), n = t - UFN_LIBM_SHIFT_F32;
    float r1 = fmaf(-n, UFN_LIBM_PIO2_1_F32, x);                     /* exact */
    float r = fmaf(-n, UFN_LIBM_PIO2_2_F32, r1);
    float nl = fmaf(n, UFN_LIBM_PIO2_3_F32, fmaf(n, UFN_LIBM_PIO2_2_F32, r - r1));
    float z = fmaf(r, r, -((r + r) * nl));
    float s = fmaf(fmaf(fmaf(0x1.877a08p-19f, z, -0x1.a08316p-13f), z, 0x1.111198p-7f), z, -0x1.555556p-3f);
    float c = fmaf(fmaf(fmaf(0x1.9a7f1ep-16f, z, -0x1.6c0e64p-10f), z, 0x1.55554ep-5f), z, -0.5f);
    float ys = r - fmaf(-(r * z), s, nl), yc = fmaf(z, c, 1.0f);
    uint32_t q = ufn_bits_f32(t) + shift;
    /* bit 0 of q picks the polynomial, bit 1 the sign (as the sign bit:
     * one blend on x86, no compare) */
    float y = (int32_t)(q << 31) < 0 ? yc : ys;
    return ufn_f32_from_bits(ufn_bits_f32(y) ^ ((q << 30) & 0x80000000u));
}

UFN_FN float ufn_libm_sin_fast_f32(float x) { return ufn_libm_sincos_fast_f32(x, 0u); }
UFN_FN float ufn_libm_cos_fast_f32(float x) { return ufn_libm_sincos_fast_f32(x, 1u); }

/* ---- float32 from 2^13 to 2^17: in double, rounded once ---------------------------------- */

/* sin(x) = (-1)^n sin(x - n pi); the parity of n is the low bit of t */
UFN_FN float ufn_libm_sin_mid_f32(float xf)
{
    double x = (double)xf, t = fma(x, UFN_LIBM_1_OVER_PI, UFN_LIBM_SHIFT_F64), n = t - UFN_LIBM_SHIFT_F64;
    double y = ufn_libm_sin_kernel_f32(fma(-n, UFN_LIBM_PI_2, fma(-n, UFN_LIBM_PI_1, x)));
    return (float)ufn_libm_flip_f64(y, ufn_bits_f64(t));
}

/* cos(x) = (-1)^(n+1) sin(x - (n + 1/2) pi) = (-1)^n sin((n + 1/2) pi - x) */
UFN_FN float ufn_libm_cos_mid_f32(float xf)
{
    double x = (double)xf, t = fma(x, UFN_LIBM_1_OVER_PI, -0.5) + UFN_LIBM_SHIFT_F64;
    double m = (t - UFN_LIBM_SHIFT_F64) + 0.5;
    double y = ufn_libm_sin_kernel_f32(fma(m, UFN_LIBM_PI_2, fma(m, UFN_LIBM_PI_1, -x)));
    return (float)ufn_libm_flip_f64(y, ufn_bits_f64(t));
}

/* inf gives nan, nan itself */
UFN_FN double ufn_libm_trig_special_f64(double x, double y)
{
    y = ufn_isinf_f64(x) ? UFN_LIBM_NAN_F64 : y;
    return ufn_isnan_f64(x) ? x + x : y;
}

UFN_FN float ufn_libm_trig_special_f32(float x, float y)
{
    y = ufn_isinf_f32(x) ? UFN_LIBM_NAN_F32 : y;
    return ufn_isnan_f32(x) ? x + x : y;
}

UFN_FN double ufn_libm_sin_big_f64(double x)
{
    return ufn_libm_trig_special_f64(x, ufn_libm_sincos_eval_f64(ufn_libm_reduce_ph_f64(ufn_libm_finite_or_zero_f64(x)), 0));
}

UFN_FN double ufn_libm_cos_big_f64(double x)
{
    return ufn_libm_trig_special_f64(x, ufn_libm_sincos_eval_f64(ufn_libm_reduce_ph_f64(ufn_libm_finite_or_zero_f64(x)), 1));
}

UFN_FN double ufn_libm_tan_big_f64(double x)
{
    return ufn_libm_trig_special_f64(x, ufn_libm_tan_eval_f64(ufn_libm_reduce_ph_f64(ufn_libm_finite_or_zero_f64(x))));
}

UFN_FN float ufn_libm_sin_big_f32(float x)
{
    return ufn_libm_trig_special_f32(x, ufn_libm_sincos_eval_f32(ufn_libm_reduce_ph_f32(ufn_libm_finite_or_zero_f32(x)), 0));
}

UFN_FN float ufn_libm_cos_big_f32(float x)
{
    return ufn_libm_trig_special_f32(x, ufn_libm_sincos_eval_f32(ufn_libm_reduce_ph_f32(ufn_libm_finite_or_zero_f32(x)), 1));
}

UFN_FN int ufn_libm_cw_ok_f64(double x) { return ufn_libm_abs_f64(x) < UFN_LIBM_CW_LIMIT_F64; }
UFN_FN int ufn_libm_cw_ok_f32(float x)  { return ufn_libm_abs_f32(x) < UFN_LIBM_CW_LIMIT_F32; }

UFN_FN double ufn_libm_sin_f64(double x) { return ufn_libm_cw_ok_f64(x) ? ufn_libm_sin_fast_f64(x) : ufn_libm_sin_big_f64(x); }
UFN_FN double ufn_libm_cos_f64(double x) { return ufn_libm_cw_ok_f64(x) ? ufn_libm_cos_fast_f64(x) : ufn_libm_cos_big_f64(x); }
UFN_FN double ufn_libm_tan_f64(double x) { return ufn_libm_cw_ok_f64(x) ? ufn_libm_tan_fast_f64(x) : ufn_libm_tan_big_f64(x); }
/* float32: the float kernel, else the double one, else Payne-Hanek */
UFN_FN int ufn_libm_float_ok_f32(float x) { return ufn_libm_abs_f32(x) < UFN_LIBM_FLOAT_LIMIT_F32; }
UFN_FN float ufn_libm_sin_rest_f32(float x) { return ufn_libm_cw_ok_f32(x) ? ufn_libm_sin_mid_f32(x) : ufn_libm_sin_big_f32(x); }
UFN_FN float ufn_libm_cos_rest_f32(float x) { return ufn_libm_cw_ok_f32(x) ? ufn_libm_cos_mid_f32(x) : ufn_libm_cos_big_f32(x); }
UFN_FN float  ufn_libm_sin_f32(float x)  { return ufn_libm_float_ok_f32(x) ? ufn_libm_sin_fast_f32(x) : ufn_libm_sin_rest_f32(x); }
UFN_FN float  ufn_libm_cos_f32(float x)  { return ufn_libm_float_ok_f32(x) ? ufn_libm_cos_fast_f32(x) : ufn_libm_cos_rest_f32(x); }

#if defined(UFN_LIBM_SIMD)
UFN_LIBM_SIMD_F64(ufn_sin_f64, ufn_libm_sin_f64, ufn_libm_sin_fast_f64, ufn_libm_sin_big_f64, ufn_libm_cw_ok_f64)
UFN_LIBM_SIMD_F64(ufn_cos_f64, ufn_libm_cos_f64, ufn_libm_cos_fast_f64, ufn_libm_cos_big_f64, ufn_libm_cw_ok_f64)
UFN_LIBM_SIMD_F64(ufn_tan_f64, ufn_libm_tan_f64, ufn_libm_tan_fast_f64, ufn_libm_tan_big_f64, ufn_libm_cw_ok_f64)
UFN_LIBM_SIMD_F32(ufn_sin_f32, ufn_libm_sin_f32, ufn_libm_sin_fast_f32, ufn_libm_sin_rest_f32, ufn_libm_float_ok_f32)
UFN_LIBM_SIMD_F32(ufn_cos_f32, ufn_libm_cos_f32, ufn_libm_cos_fast_f32, ufn_libm_cos_rest_f32, ufn_libm_float_ok_f32)
#else
UFN_FN double ufn_sin_f64(double x) { UFN_VENDOR(sin(x)); return ufn_libm_sin_f64(x); }
UFN_FN double ufn_cos_f64(double x) { UFN_VENDOR(cos(x)); return ufn_libm_cos_f64(x); }
UFN_FN double ufn_tan_f64(double x) { UFN_VENDOR(tan(x)); return ufn_libm_tan_f64(x); }
UFN_FN float  ufn_sin_f32(float x)  { UFN_VENDOR(sinf(x)); return ufn_libm_sin_f32(x); }
UFN_FN float  ufn_cos_f32(float x)  { UFN_VENDOR(cosf(x)); return ufn_libm_cos_f32(x); }
#endif

/* tan is not on a hot path: the double quotient, rounded once */
UFN_FN float ufn_tan_f32(float x)
{
    UFN_VENDOR(tanf(x));
    return (float)ufn_tan_f64((double)x);
}

#endif /* UFN_LIBM_TRIG_H */
