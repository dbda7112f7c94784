/* ulp.h - the error of a float32 or float64 result in ulp, against MPFR.
 *
 * The error of y as an approximation of the exact value z is
 * |y - z| / ulp(z), with ulp(z) = 2^(max(e, emin) - p + 1) where 2^e <= |z|
 * < 2^(e+1): the spacing of the floats around z, so that a subnormal result
 * is measured in subnormal steps (tests/math/README.md says why).  A result
 * within 0.5 ulp is the correctly rounded one.  Beyond the largest float
 * the exact value rounds to infinity, and infinity is then exact.  A zero
 * must have the exact zero's sign; a nan must be a nan.  Errors that are
 * not a number of ulp at all (a wrong nan, inf or sign) are UFN_ULP_WRONG.
 */
#ifndef UFN_TEST_ULP_H
#define UFN_TEST_ULP_H

#include <limits.h>
#include <math.h>
#include <mpfr.h>

#define UFN_ULP_WRONG 1e300

/* p and emin of the two formats */
typedef struct ulp_format {
    int p;          /* 24 or 53 */
    int emin;       /* -126 or -1022 */
    double max;     /* FLT_MAX or DBL_MAX */
} ulp_format;

static const ulp_format ulp_f32 = {24, -126, 0x1.fffffep127};
static const ulp_format ulp_f64 = {53, -1022, 0x1.fffffffffffffp1023};

/* The error of y against z (computed to enough precision by the caller),
 * in ulp of z, or in ulp of 2^efloor where |z| is smaller (LONG_MIN: none;
 * ufn(7) states lgamma's bound for x < 0 so, where its zeros make any
 * relative bound meaningless). */
static inline double ulp_error_floor(const ulp_format *fmt, double y, mpfr_srcptr z, long efloor)
{
    if (mpfr_nan_p(z))
        return isnan(y) ? 0.0 : UFN_ULP_WRONG;
    if (isnan(y))
        return UFN_ULP_WRONG;
    if (mpfr_zero_p(z)) {
        if (y != 0.0)
            return UFN_ULP_WRONG;
        return (signbit(y) != 0) == (mpfr_signbit(z) != 0) ? 0.0 : UFN_ULP_WRONG;
    }
    /* beyond max + ulp(max)/2 the correctly rounded result is inf */
    mpfr_t lim, d;
    mpfr_inits2(mpfr_get_prec(z) + 64, lim, d, (mpfr_ptr)0);
    mpfr_set_d(lim, fmt->max, MPFR_RNDN);
    mpfr_mul_2si(d, lim, -fmt->p, MPFR_RNDN);      /* ulp(max) / 2 */
    mpfr_add(lim, lim, d, MPFR_RNDN);
    int over = mpfr_cmpabs(z, lim) >= 0;
    double err;
    if (isinf(y)) {
        err = over && (y > 0) == (mpfr_sgn(z) > 0) ? 0.0 : UFN_ULP_WRONG;
    } else if (over) {
        err = UFN_ULP_WRONG;
    } else {
        long e = mpfr_get_exp(z) - 1;               /* 2^e <= |z| < 2^(e+1) */
        if (e < fmt->emin)
            e = fmt->emin;
        if (e < efloor)
            e = efloor;
        mpfr_set_d(d, y, MPFR_RNDN);
        mpfr_sub(d, d, z, MPFR_RNDN);
        mpfr_mul_2si(d, d, -(e - fmt->p + 1), MPFR_RNDN);
        err = fabs(mpfr_get_d(d, MPFR_RNDN));
    }
    mpfr_clears(lim, d, (mpfr_ptr)0);
    return err;
}

static inline double ulp_error(const ulp_format *fmt, double y, mpfr_srcptr z)
{
    return ulp_error_floor(fmt, y, z, LONG_MIN);
}

#endif /* UFN_TEST_ULP_H */
