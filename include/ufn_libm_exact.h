/* ufn_libm_exact.h - the functions whose result is exact: rounding to an
 * integer, fmod, remainder, nextafter, ldexp, fabs, copysign, sqrt (included
 * by ufn_libm.h).
 *
 * Any correct implementation gives the same bits for these, so the point of
 * writing them here is the special values (one nan, one rule for signed
 * zeros) and needing no library: floor() is a libm call in gcc's SSE2 code,
 * and CUDA's ldexp rounds subnormal results twice.  Bound: 0 ulp.
 */
#ifndef UFN_LIBM_EXACT_H
#define UFN_LIBM_EXACT_H

/* ---- fabs, copysign, sqrt ----------------------------------------------------------------- */

UFN_FN float  ufn_fabs_f32(float x)                { return ufn_libm_abs_f32(x); }
UFN_FN double ufn_fabs_f64(double x)               { return ufn_libm_abs_f64(x); }
UFN_FN float  ufn_copysign_f32(float x, float s)   { return ufn_libm_copysign_f32(x, s); }
UFN_FN double ufn_copysign_f64(double x, double s) { return ufn_libm_copysign_f64(x, s); }

/* sqrt is correctly rounded everywhere (sqrtss, sqrt.rn); only the nan of a
 * negative argument differs between targets, so it is spelled out. */
UFN_FN float ufn_sqrt_f32(float x)
{
    UFN_VENDOR(sqrtf(x));
    return x < 0.0f ? UFN_LIBM_NAN_F32 : sqrtf(x);
}

UFN_FN double ufn_sqrt_f64(double x)
{
    UFN_VENDOR(sqrt(x));
    return x < 0.0 ? UFN_LIBM_NAN_F64 : sqrt(x);
}

/* ---- floor, ceil, trunc, rint --------------------------------------------------------------- */

/* |x| >= 2^52 (2^23) is an integer already, or inf, or nan, and is
 * returned as it is (a nan keeps its bits); below, adding and subtracting
 * 2^52 rounds |x| to nearest and one comparison corrects to the direction
 * asked for.  The result always has x's sign (floor(-0.0) and ceil(-0.5)
 * are -0.0). */
UFN_FN double ufn_rint_f64(double x)
{
    double a = ufn_libm_abs_f64(x);
    double r = ufn_libm_copysign_f64((a + 0x1p52) - 0x1p52, x);
    return a < 0x1p52 ? r : x;
}

UFN_FN float ufn_rint_f32(float x)
{
    float a = ufn_libm_abs_f32(x);
    float r = ufn_libm_copysign_f32((a + 0x1p23f) - 0x1p23f, x);
    return a < 0x1p23f ? r : x;
}

UFN_FN double ufn_floor_f64(double x)
{
    double r = ufn_rint_f64(x);
    return ufn_libm_copysign_f64(r > x ? r - 1.0 : r, x);
}

UFN_FN float ufn_floor_f32(float x)
{
    float r = ufn_rint_f32(x);
    return ufn_libm_copysign_f32(r > x ? r - 1.0f : r, x);
}

UFN_FN double ufn_ceil_f64(double x)
{
    double r = ufn_rint_f64(x);
    return ufn_libm_copysign_f64(r < x ? r + 1.0 : r, x);
}

UFN_FN float ufn_ceil_f32(float x)
{
    float r = ufn_rint_f32(x);
    return ufn_libm_copysign_f32(r < x ? r + 1.0f : r, x);
}

UFN_FN double ufn_trunc_f64(double x)
{
    return ufn_libm_copysign_f64(ufn_floor_f64(ufn_libm_abs_f64(x)), x);
}

UFN_FN float ufn_trunc_f32(float x)
{
    return ufn_libm_copysign_f32(ufn_floor_f32(ufn_libm_abs_f32(x)), x);
}

/* ---- ldexp -------------------------------------------------------------------------------------- */

/* x * 2^n rounded once.  Up to two big steps bring n into the range where
 * 2^n is a normal number; a big step down is 2^-969 (= 2^-1022 * 2^53), so
 * that a step never makes x subnormal while more scaling remains (musl's
 * scalbn does the same).  |n| above 2200 over- or underflows every x. */
UFN_FN double ufn_libm_ldexp_f64(double x, int64_t n)
{
    n = n < -2200 ? -2200 : n > 2200 ? 2200 : n;
    x *= n > 1023 ? 0x1p1023 : 1.0;
    n -= n > 1023 ? 1023 : 0;
    x *= n > 1023 ? 0x1p1023 : 1.0;
    n -= n > 1023 ? 1023 : 0;
    x *= n < -1022 ? 0x1p-969 : 1.0;
    n += n < -1022 ? 969 : 0;
    x *= n < -1022 ? 0x1p-969 : 1.0;
    n += n < -1022 ? 969 : 0;
    n = n > 1023 ? 1023 : n < -1022 ? -1022 : n;
    return x * ufn_libm_pow2_f64(n);
}

/* float: the exact product in double, rounded once to float. */
UFN_FN float ufn_libm_ldexp_f32(float x, int64_t n)
{
    n = n < -300 ? -300 : n > 300 ? 300 : n;
    return (float)((double)x * ufn_libm_pow2_f64(n));
}

/* ---- fmod, remainder -------------------------------------------------------------------------- */

/* fmod(x, y) = x - n*y with n = trunc(x/y), exactly, with x's sign: long
 * division of the significands, 11 bits a step (shifted into a uint64 that
 * holds a 53-bit divisor).  A loop: like glibc's fmod it does not vectorise.
 * fmod(x, 0), fmod(inf, y) and a nan argument give nan; fmod(x, inf) is x. */
UFN_FN double ufn_fmod_f64(double x, double y)
{
    uint64_t ux = ufn_bits_f64(x), uy = ufn_bits_f64(y);
    uint64_t ax = ux & 0x7fffffffffffffffull, ay = uy & 0x7fffffffffffffffull;
    int64_t ex, ey, d;
    uint64_t mx, my;
    if (ax >= 0x7ff0000000000000ull || ay > 0x7ff0000000000000ull || ay == 0)
        return ufn_isnan_f64(x) || ufn_isnan_f64(y) ? x + y : UFN_LIBM_NAN_F64;
    if (ax < ay)
        return x;
    /* significands as integers, exponents of their lowest bits */
    ex = (int64_t)(ax >> 52);
    ey = (int64_t)(ay >> 52);
    mx = ex ? (ax & 0xfffffffffffffull) | 0x10000000000000ull : ax;
    my = ey ? (ay & 0xfffffffffffffull) | 0x10000000000000ull : ay;
    ex = ex ? ex : 1;
    ey = ey ? ey : 1;
    d = ex - ey;
    mx %= my;
    while (d > 0 && mx != 0) {
        int s = d > 11 ? 11 : (int)d;
        mx = (mx << s) % my;
        d -= s;
    }
    /* mx * 2^(ey - 1075) is representable: ldexp is exact here */
    return ufn_libm_copysign_f64(ufn_libm_ldexp_f64((double)mx, ey - 1075), x);
}

UFN_FN float ufn_fmod_f32(float x, float y)
{
    uint32_t ux = ufn_bits_f32(x), uy = ufn_bits_f32(y);
    uint32_t ax = ux & 0x7fffffffu, ay = uy & 0x7fffffffu;
    int32_t ex, ey, d;
    uint64_t mx, my;
    if (ax >= 0x7f800000u || ay > 0x7f800000u || ay == 0)
        return ufn_isnan_f32(x) || ufn_isnan_f32(y) ? x + y : UFN_LIBM_NAN_F32;
    if (ax < ay)
        return x;
    ex = (int32_t)(ax >> 23);
    ey = (int32_t)(ay >> 23);
    mx = ex ? (ax & 0x7fffffu) | 0x800000u : ax;
    my = ey ? (ay & 0x7fffffu) | 0x800000u : ay;
    ex = ex ? ex : 1;
    ey = ey ? ey : 1;
    d = ex - ey;
    mx %= my;
    while (d > 0 && mx != 0) {
        int s = d > 40 ? 40 : (int)d;
        mx = (mx << s) % my;
        d -= s;
    }
    /* mx * 2^(ey - 150): exact in double, then exact in float */
    return ufn_libm_copysign_f32((float)((double)mx * ufn_libm_pow2_f64(ey - 150)), x);
}

/* remainder(x, y) = x - n*y with n the integer nearest x/y, ties to even:
 * fmod by 2y brings x below 2|y|, then at most two subtractions of |y|
 * (each exact) bring it into [-|y|/2, |y|/2].  The sign is x's when the
 * result is zero.  (2y overflows only if |y| >= 2^1023, and then |x| < 2|y|
 * already.)  remainder(x, 0), remainder(inf, y) and nan give nan. */
UFN_FN double ufn_remainder_f64(double x, double y)
{
    double ay = ufn_libm_abs_f64(y), ax, h;
    if (ufn_isnan_f64(x) || ufn_isnan_f64(y))
        return x + y;
    if (ay == 0.0 || ufn_isinf_f64(x))
        return UFN_LIBM_NAN_F64;
    if (ufn_isinf_f64(y))
        return x;
    ax = ufn_libm_abs_f64(ay < 0x1p1023 ? ufn_fmod_f64(x, ay + ay) : x);
    if (ay < 0x1p-1021) {
        if (ax + ax > ay) {
            ax -= ay;
            if (ax + ax >= ay)
                ax -= ay;
        }
    } else {
        h = 0.5 * ay;
        if (ax > h) {
            ax -= ay;
            if (ax >= h)
                ax -= ay;
        }
    }
    return ufn_f64_from_bits(ufn_bits_f64(ax) ^ (ufn_bits_f64(x) & 0x8000000000000000ull));
}

UFN_FN float ufn_remainder_f32(float x, float y)
{
    float ay = ufn_libm_abs_f32(y), ax, h;
    if (ufn_isnan_f32(x) || ufn_isnan_f32(y))
        return x + y;
    if (ay == 0.0f || ufn_isinf_f32(x))
        return UFN_LIBM_NAN_F32;
    if (ufn_isinf_f32(y))
        return x;
    ax = ufn_libm_abs_f32(ay < 0x1p127f ? ufn_fmod_f32(x, ay + ay) : x);
    if (ay < 0x1p-125f) {
        if (ax + ax > ay) {
            ax -= ay;
            if (ax + ax >= ay)
                ax -= ay;
        }
    } else {
        h = 0.5f * ay;
        if (ax > h) {
            ax -= ay;
            if (ax >= h)
                ax -= ay;
        }
    }
    return ufn_f32_from_bits(ufn_bits_f32(ax) ^ (ufn_bits_f32(x) & 0x80000000u));
}

/* ---- nextafter ---------------------------------------------------------------------------------- */

/* The neighbour of x toward y: one step of the integer that orders the
 * bits (sign-magnitude).  nextafter(x, x) is x; from 0 the first step is
 * the smallest subnormal with y's sign. */
UFN_FN double ufn_nextafter_f64(double x, double y)
{
    uint64_t ux = ufn_bits_f64(x);
    if (ufn_isnan_f64(x) || ufn_isnan_f64(y))
        return x + y;
    if (x == y)
        return y;
    if (x == 0.0)
        return ufn_f64_from_bits((ufn_bits_f64(y) & 0x8000000000000000ull) | 1u);
    /* away from zero when x and y - x have the same sign */
    ux += ((x < y) == (x > 0.0)) ? 1u : (uint64_t)-1;
    return ufn_f64_from_bits(ux);
}

UFN_FN float ufn_nextafter_f32(float x, float y)
{
    uint32_t ux = ufn_bits_f32(x);
    if (ufn_isnan_f32(x) || ufn_isnan_f32(y))
        return x + y;
    if (x == y)
        return y;
    if (x == 0.0f)
        return ufn_f32_from_bits((ufn_bits_f32(y) & 0x80000000u) | 1u);
    ux += ((x < y) == (x > 0.0f)) ? 1u : (uint32_t)-1;
    return ufn_f32_from_bits(ux);
}

#endif /* UFN_LIBM_EXACT_H */
