/* ufn_libm_special.h - erf, erfc, tgamma, lgamma (included by ufn_libm.h).
 *
 * erf(x) = x A(x^2) for |x| <= 3/4.  erfc(x) = e^(-x^2) g(x) above 1/2, with
 * g(x) = erfc(x) e^(x^2) smooth: a polynomial in x - 5/4 on [1/2, 2], in
 * x - 3 on [2, 4] (both arguments exact), and (1/(x sqrt(pi))) H(1/x^2)
 * beyond 4 (H's argument rounds, but H changes by w/2 per unit of w).  The
 * exponential takes -x^2 as an exact double-word and returns its mantissa
 * before rounding, and g's last step is a double-word too: one rounding at
 * the end.  On [-1, 1/2], erfc = 1 - erf with the product x a0 exact; erf
 * above 3/4 is 1 - erfc; negative arguments use erf(-x) = -erf(x), erfc(-x) =
 * 2 - erfc(x).  Every piece is computed and one chosen (select), so the
 * loops still vectorise.
 *
 * lgamma(x) = (x - 1/2) log x - x + log(2 pi)/2 + S(1/x) (Stirling, S from
 * the Bernoulli numbers) for x >= 12, the logarithm pow's (2^-66); below,
 * x is shifted up by the product (x)(x+1)...(x+n-1), a double-word.  Near
 * lgamma's zeros 1 and 2 a Taylor series about 2 (lgamma(2 + t) = t L(t),
 * |t| <= 1/4, L from zeta) avoids the cancellation, and near 0 lgamma(x) =
 * -log x - log1p(x) + x L(x).  Negative x = -a reflects, with a exact:
 * lgamma(x) = log(pi / |sin(pi x)|) - log(a) - lgamma(a) (sin(pi x) from an
 * exact reduction), which cancels near lgamma's negative zeros (x ~ -2.46,
 * -2.75, -3.14, ...): there the error is absolute (ufn(7) says how much).
 * tgamma is e^Stirling (a double-word, so that e^700 does not lose 10
 * bits) divided by the product, and pi / (sin(pi x) a Gamma(a)) for
 * negative x.  Poles: tgamma(+-0) = +-inf,
 * tgamma of a negative integer nan, lgamma of 0 or a negative integer inf.
 */
#ifndef UFN_LIBM_SPECIAL_H
#define UFN_LIBM_SPECIAL_H

#define UFN_LIBM_INVSQRTPI_HI 0x1.20dd750429b6dp-1      /* 1/sqrt(pi) */
#define UFN_LIBM_INVSQRTPI_LO 0x1.1ae3a914fed8p-57
#define UFN_LIBM_HL2PI_HI     0x1.d67f1c864beb5p-1      /* log(2 pi)/2 */
#define UFN_LIBM_HL2PI_LO     -0x1.65b5a1b7ff5dfp-55
#define UFN_LIBM_LOGPI_HI     0x1.250d048e7a1bdp+0      /* log(pi) */
#define UFN_LIBM_LOGPI_LO     0x1.7abf2ad8d5088p-57

/* ---- erf, erfc --------------------------------------------------------------------------- */

/* erf(x) for |x| <= 1 as hi + lo: x a0 exactly plus x z A1(z) (A from
 * tools/libm/special.sollya, 2^-56 on [0, 1]) */
UFN_FN ufn_dd ufn_libm_erf_small_f64(double x)
{
    double z = x * x, p;
    ufn_dd t;
    p = 0x1.bcc76750375a2p-35;
    p = fma(p, z, -0x1.290ef2ae1b7c8p-30);
    p = fma(p, z, 0x1.f253bae7bd7b4p-27);
    p = fma(p, z, -0x1.5e94fcc841835p-23);
    p = fma(p, z, 0x1.b9cd79977710dp-20);
    p = fma(p, z, -0x1.f4d05fc88779p-17);
    p = fma(p, z, 0x1.f9a30b576b8cdp-14);
    p = fma(p, z, -0x1.c02db2f9c2b97p-11);
    p = fma(p, z, 0x1.565bcd07fa605p-8);
    p = fma(p, z, -0x1.b82ce3125647ap-6);
    p = fma(p, z, 0x1.ce2f21a041df3p-4);
    p = fma(p, z, -0x1.812746b0379cap-2);
    t = ufn_dd_twoprod(x, 0x1.20dd750429b6dp0);
    return ufn_dd_fast2sum(t.hi, fma(x * z, p, t.lo));
}

/* g(x) = erfc(x) e^(x^2) for 1/2 <= x <= 28, as hi + lo */
UFN_FN ufn_dd ufn_libm_erfc_g_f64(double x)
{
    double t, w, p, hi1, lo1, hi2, lo2, hi3, lo3;
    ufn_dd ix, s;
    /* [1/2, 2]: G1(x - 5/4) */
    t = x - 1.25;
    p = -0x1.d7fd93a88f8cdp-31;
    p = fma(p, t, 0x1.d30167d9ff608p-29);
    p = fma(p, t, -0x1.658e4d55f6797p-27);
    p = fma(p, t, 0x1.444e6d0ac5bbep-25);
    p = fma(p, t, -0x1.2759a9122f718p-23);
    p = fma(p, t, 0x1.01bed24d3597ap-21);
    p = fma(p, t, -0x1.b5bc56a517e99p-20);
    p = fma(p, t, 0x1.6a157df5b5457p-18);
    p = fma(p, t, -0x1.22fc3a4232f02p-16);
    p = fma(p, t, 0x1.c5704ef3fbbabp-15);
    p = fma(p, t, -0x1.55c07d6e7fd95p-13);
    p = fma(p, t, 0x1.f0fe6f3e72f1fp-12);
    p = fma(p, t, -0x1.5b8bc94ac571cp-10);
    p = fma(p, t, 0x1.d1b695abfb313p-9);
    p = fma(p, t, -0x1.299636d6c9df4p-7);
    p = fma(p, t, 0x1.68a25a66404e2p-6);
    p = fma(p, t, -0x1.9b635ac624a3p-5);
    p = fma(p, t, 0x1.b56f45eef7e7p-4);
    p = fma(p, t, -0x1.abaacdbfa8b07p-3);
    hi1 = fma(p, t, 0x1.78a692138767ap-2);
    lo1 = fma(p, t, 0x1.78a692138767ap-2 - hi1);
    /* [2, 4]: G2(x - 3) */
    t = x - 3.0;
    p = 0x1.b5e8735a4128ep-40;
    p = fma(p, t, -0x1.1e0acb5787858p-37);
    p = fma(p, t, 0x1.1adff67d31289p-35);
    p = fma(p, t, -0x1.4b99f94056fa4p-33);
    p = fma(p, t, 0x1.8ba2f8d56a13ep-31);
    p = fma(p, t, -0x1.c7c639a0c5fdp-29);
    p = fma(p, t, 0x1.0152b90626bf4p-26);
    p = fma(p, t, -0x1.1d76b51ed7753p-24);
    p = fma(p, t, 0x1.3698e72a085d5p-22);
    p = fma(p, t, -0x1.4b14716ef54cap-20);
    p = fma(p, t, 0x1.595f1c315157p-18);
    p = fma(p, t, -0x1.60251005492dcp-16);
    p = fma(p, t, 0x1.5e73930142faep-14);
    p = fma(p, t, -0x1.53dec9d0f5ef2p-12);
    p = fma(p, t, 0x1.409cc2ed46a0dp-10);
    p = fma(p, t, -0x1.259061ba85083p-8);
    p = fma(p, t, 0x1.043fe1a98c06cp-6);
    p = fma(p, t, -0x1.bd6ae4d14b172p-5);
    hi2 = fma(p, t, 0x1.6e9827d229d2dp-3);
    lo2 = fma(p, t, 0x1.6e9827d229d2dp-3 - hi2);
    /* [4, 28]: H(1/x^2) / (x sqrt(pi)) */
    w = 1.0 / (x * x);
    p = 0x1.e596ca8970fc4p26;
    p = fma(p, w, -0x1.11c5925e66653p26);
    p = fma(p, w, 0x1.2a4f4ea00a246p24);
    p = fma(p, w, -0x1.aed45f838aeadp21);
    p = fma(p, w, 0x1.e5f29f72ff685p18);
    p = fma(p, w, -0x1.e7777f0c42711p15);
    p = fma(p, w, 0x1.e6d328d203e18p12);
    p = fma(p, w, -0x1.074ee1f33587cp10);
    p = fma(p, w, 0x1.44c5edb4eb16bp7);
    p = fma(p, w, -0x1.d87e957ddce79p4);
    p = fma(p, w, 0x1.a3fff69f31ca5p2);
    p = fma(p, w, -0x1.dfffffda48e7dp0);
    p = fma(p, w, 0x1.7fffffffd8409p-1);
    p = fma(p, w, -0x1.fffffffffff04p-2);
    hi3 = fma(p, w, 1.0);
    lo3 = fma(p, w, 1.0 - hi3);
    ix = ufn_dd_make(1.0 / x, 0.0);
    ix.lo = fma(-ix.hi, x, 1.0) * ix.hi;
    s = ufn_dd_mul(ufn_dd_mul(ix, ufn_dd_make(UFN_LIBM_INVSQRTPI_HI, UFN_LIBM_INVSQRTPI_LO)),
                   ufn_dd_make(hi3, lo3));
    return ufn_dd_select(x < 2.0, ufn_dd_make(hi1, lo1), ufn_dd_select(x < 4.0, ufn_dd_make(hi2, lo2), s));
}

/* e^(-x^2) g(x) for 1/2 <= x <= 28, as hi + lo (subnormal beyond 26.5:
 * then it rounds twice) */
UFN_FN ufn_dd ufn_libm_erfc_big_f64(double x)
{
    ufn_dd x2 = ufn_dd_twoprod(x, x), g = ufn_libm_erfc_g_f64(x), m, p;
    double t = fma(-x2.hi, UFN_LIBM_LOG2E, UFN_LIBM_SHIFT_F64), n = t - UFN_LIBM_SHIFT_F64;
    /* e^(-x^2 - x2.lo) = 2^n (mantissa): the exp reduction with a low word */
    ufn_dd a = ufn_dd_twosum(fma(-n, UFN_LIBM_LN2_HI, -x2.hi), -x2.lo);
    double r = fma(-n, UFN_LIBM_LN2_LO, a.hi);
    double rl = fma(-n, UFN_LIBM_LN2_LO, a.hi - r) + a.lo;
    ufn_dd one_r = ufn_dd_fast2sum(1.0, r);
    m = ufn_dd_fast2sum(one_r.hi, one_r.lo + ufn_libm_expm1_tail_f64(r, rl));
    p = ufn_dd_mul(m, g);
    return ufn_dd_make(ufn_libm_exp_scale_f64(p.hi, n), ufn_libm_exp_scale_f64(p.lo, n));
}

UFN_FN double ufn_erfc_f64(double x)
{
    double a = ufn_libm_abs_f64(x), y;
    ufn_dd e = ufn_libm_erf_small_f64(a <= 1.0 ? x : 0.0), s, b;
    UFN_VENDOR(erfc(x));
    /* -1 <= x < 1/2: 1 - erf */
    s = ufn_dd_fast2sum(1.0, -e.hi);
    y = s.hi + (s.lo - e.lo);
    /* beyond: the exponential form, and 2 - it for x < -1 */
    b = ufn_libm_erfc_big_f64(a >= 0.5 && a < 28.0 ? a : 1.0);
    y = x >= 0.5 ? (a < 28.0 ? b.hi + b.lo : 0.0) : y;
    s = ufn_dd_fast2sum(2.0, -b.hi);
    y = x < -1.0 ? (a < 28.0 ? s.hi + (s.lo - b.lo) : 2.0) : y;
    return ufn_isnan_f64(x) ? x + x : y;
}

UFN_FN double ufn_erf_f64(double x)
{
    double a = ufn_libm_abs_f64(x), y;
    ufn_dd e = ufn_libm_erf_small_f64(a <= 0.75 ? x : 0.0), b, s;
    UFN_VENDOR(erf(x));
    y = e.hi + e.lo;
    /* |x| > 3/4: 1 - erfc, erfc below 0.29 */
    b = ufn_libm_erfc_big_f64(a > 0.75 && a < 6.0 ? a : 2.0);
    s = ufn_dd_fast2sum(1.0, -b.hi);
    y = a > 0.75 ? ufn_libm_copysign_f64(a < 6.0 ? s.hi + (s.lo - b.lo) : 1.0, x) : y;
    y = x == 0.0 ? x : y;
    return ufn_isnan_f64(x) ? x + x : y;
}

/* ---- lgamma, tgamma ---------------------------------------------------------------------- */

/* lgamma(2 + t) / t for |t| <= 1/4: Taylor about 2, c1 = 1 - Euler's
 * constant, c_k = (-1)^k (zeta(k) - 1) / k (tools/libm/gamma_constants.py);
 * the rest after t^21 is below 2^-67 */
UFN_FN double ufn_libm_lgamma_l_f64(double t)
{
    double p;
    p = 0x1.7469daccfadcdp-27;
    p = fma(p, t, -0x1.862c734df3eacp-26);
    p = fma(p, t, 0x1.99b93c2070b0fp-25);
    p = fma(p, t, -0x1.af5a6cbbf8a97p-24);
    p = fma(p, t, 0x1.c76bbb3f07a4dp-23);
    p = fma(p, t, -0x1.e2600d93cfd2fp-22);
    p = fma(p, t, 0x1.0064cdeb22f0fp-20);
    p = fma(p, t, -0x1.11b2eb7679541p-19);
    p = fma(p, t, 0x1.2597a39f34aacp-18);
    p = fma(p, t, -0x1.3cbc963ce2243p-17);
    p = fma(p, t, 0x1.580dcee66eb02p-16);
    p = fma(p, t, -0x1.78de5bd7c81efp-15);
    p = fma(p, t, 0x1.a127b0f17d65ap-14);
    p = fma(p, t, -0x1.d3fd4c76d2fc8p-13);
    p = fma(p, t, 0x1.0b36af86396e9p-11);
    p = fma(p, t, -0x1.38ac5c2bf8e08p-10);
    p = fma(p, t, 0x1.7add6eadb6c30p-9);
    p = fma(p, t, -0x1.e404fc218f5f2p-8);
    p = fma(p, t, 0x1.51322ac7d8483p-6);
    p = fma(p, t, -0x1.13e001a557607p-4);
    p = fma(p, t, 0x1.4a34cc4a60fa6p-2);
    p = fma(p, t, 0x1.b0ee6072093cep-2);
    return p;
}

/* Stirling's lgamma(x) for x >= 12, as hi + lo, to about 2^-64 absolute:
 * (x - 1/2) log x - x + log(2 pi)/2 + S(1/x), S from the Bernoulli numbers
 * (tools/libm/gamma_constants.py) */
UFN_FN ufn_dd ufn_libm_stirling_f64(double x)
{
    ufn_dd l = ufn_libm_log_pow_f64(x), a, b;
    double u = 1.0 / x, w = u * u, p;
    p = -0x1.e4286cb0f5398p-6;
    p = fma(p, w, 0x1.a41a41a41a41ap-8);
    p = fma(p, w, -0x1.f6ab0d9993c7dp-10);
    p = fma(p, w, 0x1.b951e2b18ff23p-11);
    p = fma(p, w, -0x1.3813813813814p-11);
    p = fma(p, w, 0x1.a01a01a01a01ap-11);
    p = fma(p, w, -0x1.6c16c16c16c17p-9);
    p = fma(p, w, 0x1.5555555555555p-4);

    a = ufn_dd_mul_d(l, x - 0.5);                          /* x - 1/2 exact below 2^52 */
    b = ufn_dd_twosum(a.hi, -x);
    b = ufn_dd_fast2sum(b.hi, b.lo + a.lo);
    a = ufn_dd_twosum(b.hi, UFN_LIBM_HL2PI_HI);
    return ufn_dd_fast2sum(a.hi, a.lo + (b.lo + (UFN_LIBM_HL2PI_LO + u * p)));
}

/* For 0 < x < 12: the product x (x+1) ... (x+n-1) with x + n >= 12, as
 * hi + lo, and x + n exactly as *xs; every factor is formed (those past
 * 12 are 1), written out so that the loops calling this stay straight-line
 * code. */
#define UFN_LIBM_GAMMA_FACTOR(i)                                   \
    do {                                                           \
        ufn_dd f = ufn_dd_twosum(x, (double)(i));                  \
        int use = f.hi < 12.0;                                     \
        p = ufn_dd_mul(p, ufn_dd_select(use, f, ufn_dd_make(1.0, 0.0))); \
        n += use ? 1.0 : 0.0;                                      \
    } while (0)

UFN_FN ufn_dd ufn_libm_gamma_shift_f64(double x, ufn_dd *xs)
{
    ufn_dd p = ufn_dd_make(1.0, 0.0);
    double n = 0.0;
    UFN_LIBM_GAMMA_FACTOR(0);
    UFN_LIBM_GAMMA_FACTOR(1);
    UFN_LIBM_GAMMA_FACTOR(2);
    UFN_LIBM_GAMMA_FACTOR(3);
    UFN_LIBM_GAMMA_FACTOR(4);
    UFN_LIBM_GAMMA_FACTOR(5);
    UFN_LIBM_GAMMA_FACTOR(6);
    UFN_LIBM_GAMMA_FACTOR(7);
    UFN_LIBM_GAMMA_FACTOR(8);
    UFN_LIBM_GAMMA_FACTOR(9);
    UFN_LIBM_GAMMA_FACTOR(10);
    UFN_LIBM_GAMMA_FACTOR(11);
    *xs = ufn_dd_twosum(x, n);
    return p;
}

#undef UFN_LIBM_GAMMA_FACTOR

/* Stirling at xs.hi + xs.lo: the low word through the derivative,
 * digamma(x) ~ log x - 1/(2x) (xs.lo is below 2^-52 xs.hi) */
UFN_FN ufn_dd ufn_libm_stirling_dd_f64(ufn_dd xs)
{
    ufn_dd s = ufn_libm_stirling_f64(xs.hi);
    double k, psi;
    ufn_dd l = ufn_libm_log_core_f64(xs.hi, &k);
    psi = fma(k, UFN_LIBM_LN2_HI, l.hi) - 0.5 / xs.hi;
    return ufn_dd_fast2sum(s.hi, s.lo + xs.lo * psi);
}

/* lgamma(x) for x > 0 finite, as hi + lo */
UFN_FN ufn_dd ufn_libm_lgamma_pos_f64(double x)
{
    double t, big;
    ufn_dd xs, p = ufn_libm_gamma_shift_f64(x < 12.0 ? x : 12.0, &xs), s, l, r, near1, near2, near0;
    s = ufn_libm_stirling_dd_f64(x < 12.0 ? xs : ufn_dd_make(x, 0.0));
    /* shifted: Stirling(x + n) - log(product) */
    l = ufn_libm_log_dd_f64(p);
    r = ufn_dd_twosum(s.hi, -l.hi);
    r = ufn_dd_fast2sum(r.hi, r.lo + (s.lo - l.lo));
    r = ufn_dd_select(x >= 12.0, s, r);
    /* near 2: t L(t); near 1: t L(t) - log1p(t); near 0: -log x - log1p(x) + x L(x) */
    t = x - 2.0;
    near2 = ufn_dd_twoprod(t, ufn_libm_lgamma_l_f64(ufn_libm_abs_f64(t) <= 0.25 ? t : 0.0));
    t = x - 1.0;
    near1 = ufn_dd_twoprod(t, ufn_libm_lgamma_l_f64(ufn_libm_abs_f64(t) <= 0.25 ? t : 0.0));
    near1 = ufn_dd_fast2sum(near1.hi, near1.lo - ufn_log1p_f64(t));
    l = ufn_libm_log_dd_f64(ufn_dd_make(x, 0.0));
    near0 = ufn_dd_twoprod(x, ufn_libm_lgamma_l_f64(x <= 0.25 ? x : 0.0));
    near0 = ufn_dd_twosum(-l.hi, near0.hi - ufn_log1p_f64(x <= 0.25 ? x : 0.0));
    near0.lo -= l.lo;
    big = ufn_libm_abs_f64(x - 2.0) <= 0.25 ? 2.0 : ufn_libm_abs_f64(x - 1.0) <= 0.25 ? 1.0 : x <= 0.25 ? 0.0 : -1.0;
    return ufn_dd_select(big == 2.0, near2, ufn_dd_select(big == 1.0, near1, ufn_dd_select(big == 0.0, near0, r)));
}

/* sin(pi x) for |x| < 2^52 as hi + lo, exact reduction: x - rint(2x)/2 is
 * exact */
UFN_FN ufn_dd ufn_libm_sinpi_f64(double x)
{
    double q = ufn_rint_f64(2.0 * x), f = x - 0.5 * q;
    ufn_dd r = ufn_dd_mul_d(ufn_dd_make(UFN_LIBM_PI_HI, UFN_LIBM_PI_LO), f), s, c, y;
    int32_t k = (int32_t)ufn_libm_mod4_f64(q);
    s = ufn_libm_sin_kernel_f64(r.hi, r.lo);
    c = ufn_libm_cos_kernel_f64(r.hi, r.lo);
    y = ufn_dd_select(k & 1, c, s);
    return ufn_dd_select(k & 2, ufn_dd_make(-y.hi, -y.lo), y);
}

/* lgamma overflows from here on */
#define UFN_LIBM_LGAMMA_OVF 0x1.754d9278b51a7p+1014

UFN_FN double ufn_lgamma_f64(double x)
{
    double a = ufn_libm_abs_f64(x), y, sp, pole;
    ufn_dd pos, neg, n1, n2, lsp, la, spd;
    UFN_VENDOR(lgamma(x));
    pos = ufn_libm_lgamma_pos_f64(a > 0.0 && a < UFN_LIBM_LGAMMA_OVF ? a : 1.0);
    y = pos.hi + pos.lo;
    /* x < 0, with a = -x exact: Gamma(x) Gamma(1 - x) = pi / sin(pi x) and
     * Gamma(1 - x) = a Gamma(a), so
     * lgamma(x) = log(pi) - log|sin(pi x)| - log(a) - lgamma(a).
     * From 2^52 on x is an integer, a pole. */
    spd = ufn_libm_sinpi_f64(x < 0.0 && a < 0x1p52 ? x : 0.5);
    spd = ufn_dd_select(spd.hi < 0.0, ufn_dd_make(-spd.hi, -spd.lo), spd);
    sp = spd.hi;
    pole = x < 0.0 && (sp == 0.0 || a >= 0x1p52) ? 1.0 : 0.0;
    lsp = ufn_libm_log_dd_f64(ufn_dd_select(pole != 0.0, ufn_dd_make(1.0, 0.0), spd));
    la = ufn_libm_log_dd_f64(ufn_dd_make(a > 0.0 && a < UFN_LIBM_LGAMMA_OVF ? a : 1.0, 0.0));
    /* the sum of the four double-words, keeping each step's error */
    n1 = ufn_dd_twosum(UFN_LIBM_LOGPI_HI, -lsp.hi);
    n2 = ufn_dd_twosum(n1.hi, -pos.hi);
    neg = ufn_dd_twosum(n2.hi, -la.hi);
    y = x < 0.0 ? neg.hi + ((neg.lo + (n2.lo + n1.lo)) + (UFN_LIBM_LOGPI_LO - lsp.lo - pos.lo - la.lo))
                : y;
    /* tiny |x|: -log|x| (the next term, Euler's constant times x, is below
     * the rounding, and sin(pi x) would be subnormal) */
    y = a < 0x1p-60 ? -(la.hi + la.lo) : y;
    y = pole != 0.0 || x == 0.0 || a >= UFN_LIBM_LGAMMA_OVF ? (double)INFINITY : y;
    return ufn_isnan_f64(x) ? x + x : y;
}

UFN_FN double ufn_tgamma_f64(double x)
{
    double a = ufn_libm_abs_f64(x), xp, y, sp, q, g, n;
    ufn_dd p, s, m, xs;
    UFN_VENDOR(tgamma(x));
    /* Gamma(|x|) = e^Stirling(|x| + n) / product */
    xp = a > 0.0 && a < 180.0 ? a : 180.0;
    p = ufn_libm_gamma_shift_f64(xp < 12.0 ? xp : 12.0, &xs);
    s = ufn_libm_stirling_dd_f64(xp < 12.0 ? xs : ufn_dd_make(xp, 0.0));
    {
        double t = fma(s.hi, UFN_LIBM_LOG2E, UFN_LIBM_SHIFT_F64), r, rl;
        ufn_dd c;
        n = t - UFN_LIBM_SHIFT_F64;
        c = ufn_dd_twosum(fma(-n, UFN_LIBM_LN2_HI, s.hi), s.lo);
        r = fma(-n, UFN_LIBM_LN2_LO, c.hi);
        rl = fma(-n, UFN_LIBM_LN2_LO, c.hi - r) + c.lo;
        m = ufn_dd_fast2sum(1.0, r);
        m = ufn_dd_fast2sum(m.hi, m.lo + ufn_libm_expm1_tail_f64(r, rl));
    }
    /* mantissa / product (the product is 1 from 12 on) */
    q = m.hi / p.hi;
    m = ufn_dd_make(q, (fma(-q, p.hi, m.hi) + fma(-q, p.lo, m.lo)) / p.hi);
    g = ufn_libm_exp_scale_f64(m.hi + m.lo, n);
    /* x < 0, a = -x: Gamma(x) = pi / (sin(pi x) a Gamma(a)) */
    {
        ufn_dd spd = ufn_libm_sinpi_f64(x < 0.0 && a < 0x1p52 ? x : 0.5);
        ufn_dd d = ufn_dd_mul(ufn_dd_mul_d(spd, xp), m);
        double qh = UFN_LIBM_PI_HI / d.hi;
        y = qh + (fma(-qh, d.hi, UFN_LIBM_PI_HI) + UFN_LIBM_PI_LO - qh * d.lo) / d.hi;
        y = ufn_libm_exp_scale_f64(y, -n);
        sp = spd.hi;
    }
    y = x > 0.0 ? g : y;
    /* below -190 the result underflows, with the sign of sin(pi x); from
     * 2^52 on x is an integer, a pole */
    y = x < -190.0 ? ufn_libm_copysign_f64(0.0, sp) : y;
    y = x < 0.0 && (sp == 0.0 || a >= 0x1p52) ? UFN_LIBM_NAN_F64 : y;
    y = x > 171.62437695630272 ? (double)INFINITY : y;
    y = x == 0.0 ? ufn_libm_copysign_f64((double)INFINITY, x) : y;
    y = x == -(double)INFINITY ? UFN_LIBM_NAN_F64 : y;
    y = a < 0x1p-54 && x != 0.0 ? 1.0 / x : y;
    return ufn_isnan_f64(x) ? x + x : y;
}

/* ---- float32: in float64, rounded once ------------------------------------------------- */

UFN_FN float ufn_erf_f32(float x)    { UFN_VENDOR(erff(x));    return (float)ufn_erf_f64((double)x); }
UFN_FN float ufn_erfc_f32(float x)   { UFN_VENDOR(erfcf(x));   return (float)ufn_erfc_f64((double)x); }
UFN_FN float ufn_lgamma_f32(float x) { UFN_VENDOR(lgammaf(x)); return (float)ufn_lgamma_f64((double)x); }
UFN_FN float ufn_tgamma_f32(float x) { UFN_VENDOR(tgammaf(x)); return (float)ufn_tgamma_f64((double)x); }

#endif /* UFN_LIBM_SPECIAL_H */
