/* functions.h - every math function of include/ufn_libm.h, its MPFR
 * reference and its error bound: the one list tests/math reads.
 *
 * BOUND32 and BOUND64 are the documented bounds of ufn(7), in ulp as ulp.h
 * measures them (0.5 = correctly rounded).  LO and HI give the range of the
 * "typical" inputs the sampled test draws besides random bit patterns and
 * the edge cases; for two arguments both are drawn from it.
 *
 *   F1(name, mpfr function, BOUND32, BOUND64, LO, HI)   one argument
 *   F2(name, mpfr function, BOUND32, BOUND64, LO, HI)   two arguments
 *
 * lgamma's float64 bound is larger: near its zeros 1 and 2 the relative
 * error of the float64 evaluation reaches 2.04 ulp (measured); for x < 0
 * it is measured in ulp of max(|lgamma(x)|, 1) (accuracy.c, efloor).
 */
#ifndef UFN_TEST_FUNCTIONS_H
#define UFN_TEST_FUNCTIONS_H

#include <mpfr.h>

/* MPFR functions without the (rop, op, rnd) shape */
static int ref_lgamma(mpfr_ptr r, mpfr_srcptr x, mpfr_rnd_t rnd)
{
    int sign;
    return mpfr_lgamma(r, &sign, x, rnd);
}
static int ref_floor(mpfr_ptr r, mpfr_srcptr x, mpfr_rnd_t rnd) { (void)rnd; return mpfr_floor(r, x); }
static int ref_ceil(mpfr_ptr r, mpfr_srcptr x, mpfr_rnd_t rnd)  { (void)rnd; return mpfr_ceil(r, x); }
static int ref_trunc(mpfr_ptr r, mpfr_srcptr x, mpfr_rnd_t rnd) { (void)rnd; return mpfr_trunc(r, x); }
static int ref_degrees(mpfr_ptr r, mpfr_srcptr x, mpfr_rnd_t rnd)
{
    mpfr_const_pi(r, rnd);
    mpfr_div(r, x, r, rnd);
    return mpfr_mul_ui(r, r, 180, rnd);
}
static int ref_radians(mpfr_ptr r, mpfr_srcptr x, mpfr_rnd_t rnd)
{
    mpfr_const_pi(r, rnd);
    mpfr_mul(r, x, r, rnd);
    return mpfr_div_ui(r, r, 180, rnd);
}
static int ref_rint(mpfr_ptr r, mpfr_srcptr x, mpfr_rnd_t rnd)  { (void)rnd; return mpfr_rint(r, x, MPFR_RNDN); }

#define UFN_LIBM_FUNCTIONS(F1, F2)                                        \
    F1(sqrt,      mpfr_sqrt,      0.5,  0.5,   0.0, 1e4)                 \
    F1(fabs,      mpfr_abs,       0.5,  0.5,  -1e4, 1e4)                 \
    F1(floor,     ref_floor,      0.5,  0.5,  -1e4, 1e4)                 \
    F1(ceil,      ref_ceil,       0.5,  0.5,  -1e4, 1e4)                 \
    F1(trunc,     ref_trunc,      0.5,  0.5,  -1e4, 1e4)                 \
    F1(rint,      ref_rint,       0.5,  0.5,  -1e4, 1e4)                 \
    F2(copysign,  mpfr_copysign,  0.5,  0.5,  -1e4, 1e4)                 \
    F2(fmod,      mpfr_fmod,      0.5,  0.5,  -1e4, 1e4)                 \
    F2(remainder, mpfr_remainder, 0.5,  0.5,  -1e4, 1e4)                 \
    F1(degrees,   ref_degrees,    1.0,  1.0,  -1e4, 1e4)                 \
    F1(radians,   ref_radians,    1.0,  1.0,  -1e4, 1e4)                 \
    F1(exp,       mpfr_exp,       1.0,  1.0,  -100, 100)                 \
    F1(exp2,      mpfr_exp2,      1.0,  1.0,  -140, 140)                 \
    F1(expm1,     mpfr_expm1,     1.0,  1.0,  -2.0, 2.0)                 \
    F1(log,       mpfr_log,       1.0,  1.0,   0.0, 1e4)                 \
    F1(log2,      mpfr_log2,      1.0,  1.0,   0.0, 1e4)                 \
    F1(log10,     mpfr_log10,     1.0,  1.0,   0.0, 1e4)                 \
    F1(log1p,     mpfr_log1p,     1.0,  1.0,  -1.0, 10.0)                \
    F1(sin,       mpfr_sin,       1.0,  1.0,  -10., 10.)                 \
    F1(cos,       mpfr_cos,       1.0,  1.0,  -10., 10.)                 \
    F1(tan,       mpfr_tan,       1.0,  1.0,  -10., 10.)                 \
    F1(asin,      mpfr_asin,      1.0,  1.0,  -1.0, 1.0)                 \
    F1(acos,      mpfr_acos,      1.0,  1.0,  -1.0, 1.0)                 \
    F1(atan,      mpfr_atan,      1.0,  1.0,  -10., 10.)                 \
    F2(atan2,     mpfr_atan2,     1.0,  1.0,  -10., 10.)                 \
    F1(sinh,      mpfr_sinh,      1.0,  1.0,  -10., 10.)                 \
    F1(cosh,      mpfr_cosh,      1.0,  1.0,  -10., 10.)                 \
    F1(tanh,      mpfr_tanh,      1.0,  1.0,  -5.0, 5.0)                 \
    F1(asinh,     mpfr_asinh,     1.0,  1.0,  -10., 10.)                 \
    F1(acosh,     mpfr_acosh,     1.0,  1.0,   1.0, 10.)                 \
    F1(atanh,     mpfr_atanh,     1.0,  1.0,  -1.0, 1.0)                 \
    F2(pow,       mpfr_pow,       1.0,  1.0,   0.0, 10.)                 \
    F2(hypot,     mpfr_hypot,     1.0,  1.0,  -10., 10.)                 \
    F1(erf,       mpfr_erf,       1.0,  1.0,  -5.0, 5.0)                 \
    F1(erfc,      mpfr_erfc,      1.0,  1.0,  -5.0, 30.)                 \
    F1(tgamma,    mpfr_gamma,     1.0,  1.0,  -20., 30.)                 \
    F1(lgamma,    ref_lgamma,     1.0,  2.5,  -20., 30.)

#endif /* UFN_TEST_FUNCTIONS_H */
