/* test_ufn_math.c - every helper of include/ufn_math.h against reference values.
 *
 * The tables in ufn_math_tables.h come from NumPy, Numba and Python's cmath
 * (gen_ufn_math_tables.py says which for what); the rest are cases worth
 * spelling out.  Floats are compared bit for bit where the header promises
 * an exact result (NaNs compare equal whatever their sign and payload), and
 * within a few ulp for the complex functions.  Needs no libufnc.a:
 *
 *     gcc -std=c11 -Iinclude -Icompiler tests/unit/compiler/test_ufn_math.c -lcmocka -lm
 *
 * and is meant to run clean under -fsanitize=address,undefined.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "ufn_math.h"
#include "ufn_math_calls.h"

struct idiv_case { int64_t a, b, q, r; };
struct udiv_case { uint64_t a, b, q, r; };
struct ipow_case { int64_t b, e, r; };
struct upow_case { uint64_t b, e, r; };
struct shift_case { int64_t a, n, shl, shr; uint64_t ushl, ushr; };
struct fdiv64_case { double a, b, q, r; };
struct fdiv32_case { float a, b, q, r; };
struct powi64_case { double x; int64_t e; double r; };
struct powi32_case { float x; int64_t e; float r; };
struct round_case { double x, r64; float r32; };
struct roundn_case { double x; int64_t n; double r64; float r32; };
/* target: 0..7 = i8 i16 i32 i64 u8 u16 u32 u64; the expected result for the
 * double input and for the float input, signed or unsigned by target */
struct f2i_case { int target; double x; float x32; int64_t sd, sf; uint64_t ud, uf; };
struct cfunc_case { int fn; double re, im, wre, wim, w32re, w32im; };
struct cspecial_case { int fn; double re, im, wre, wim; };
struct cbin_case { double are, aim, bre, bim, pre, pim, qre, qim; };

#include "ufn_math_tables.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* ---- comparison helpers ----------------------------------------------------------------- */

static int failures;

static void mismatch(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    if (++failures > 40)
        fail_msg("too many failures");
}

static void done(void)
{
    int n = failures;
    failures = 0;
    assert_int_equal(n, 0);
}

static int same64(double a, double b)
{
    return (ufn_isnan_f64(a) && ufn_isnan_f64(b)) || ufn_bits_f64(a) == ufn_bits_f64(b);
}

static int same32(float a, float b)
{
    return (ufn_isnan_f32(a) && ufn_isnan_f32(b)) || ufn_bits_f32(a) == ufn_bits_f32(b);
}

static double ulp64(double x)
{
    x = fabs(x);
    return nextafter(x, INFINITY) - x;
}

/* got is within tol ulp of want, measured against the larger of want's own
 * ulp and the ulp of the complex result's magnitude (norm-wise error, since
 * a tiny component of a big result cannot be better than that). */
static int near64(double got, double want, double norm, double tol)
{
    double bound;
    if (ufn_isnan_f64(want) || ufn_isnan_f64(got))
        return ufn_isnan_f64(want) && ufn_isnan_f64(got);
    if (ufn_isinf_f64(want) || ufn_isinf_f64(got))
        return got == want;
    bound = tol * (ulp64(want) > DBL_EPSILON * norm ? ulp64(want) : DBL_EPSILON * norm);
    return fabs(got - want) <= bound;
}

static int near32(float got, double want, double norm, double tol)
{
    float w = (float)want;
    double u, bound;
    if (ufn_isnan_f64(want) || ufn_isnan_f32(got))
        return ufn_isnan_f64(want) && ufn_isnan_f32(got);
    if (ufn_isinf_f32(w) || ufn_isinf_f32(got))
        return got == w;
    u = (double)nextafterf(fabsf(w), INFINITY) - fabs((double)w);
    bound = tol * (u > FLT_EPSILON * norm ? u : FLT_EPSILON * norm);
    return fabs((double)got - want) <= bound;
}

/* ---- integers ------------------------------------------------------------------------------ */

static void test_int_floordiv_mod(void **state)
{
    size_t i;
    (void)state;
    for (i = 0; i < N(idiv_cases); i++) {
        const struct idiv_case *c = &idiv_cases[i];
        int64_t q = ufn_floordiv_i64(c->a, c->b), r = ufn_mod_i64(c->a, c->b);
        if (q != c->q || r != c->r)
            mismatch("%lld // %lld = %lld, %% = %lld; want %lld, %lld\n", (long long)c->a,
                 (long long)c->b, (long long)q, (long long)r, (long long)c->q, (long long)c->r);
    }
    for (i = 0; i < N(udiv_cases); i++) {
        const struct udiv_case *c = &udiv_cases[i];
        uint64_t q = ufn_floordiv_u64(c->a, c->b), r = ufn_mod_u64(c->a, c->b);
        if (q != c->q || r != c->r)
            mismatch("u64 %llu // %llu = %llu, %% = %llu\n", (unsigned long long)c->a,
                 (unsigned long long)c->b, (unsigned long long)q, (unsigned long long)r);
    }
    /* the rules, spelled out */
    assert_true(ufn_floordiv_i64(-7, 2) == -4 && ufn_mod_i64(-7, 2) == 1);
    assert_true(ufn_floordiv_i64(7, -2) == -4 && ufn_mod_i64(7, -2) == -1);
    assert_true(ufn_floordiv_i64(5, 0) == 0 && ufn_mod_i64(5, 0) == 0);
    assert_true(ufn_floordiv_i64(INT64_MIN, -1) == INT64_MIN && ufn_mod_i64(INT64_MIN, -1) == 0);
    done();
}

static void test_int_wrapping(void **state)
{
    (void)state;
    assert_true(ufn_add_i64(INT64_MAX, 1) == INT64_MIN);
    assert_true(ufn_sub_i64(INT64_MIN, 1) == INT64_MAX);
    assert_true(ufn_mul_i64(INT64_MAX, 2) == -2);
    assert_true(ufn_mul_i64(INT64_MIN, -1) == INT64_MIN);
    assert_true(ufn_neg_i64(INT64_MIN) == INT64_MIN);
    assert_true(ufn_abs_i64(INT64_MIN) == INT64_MIN);
    assert_true(ufn_abs_i64(-5) == 5 && ufn_abs_i64(5) == 5 && ufn_abs_i64(0) == 0);
    assert_true(ufn_wrap_index(-1, 10) == 9 && ufn_wrap_index(3, 10) == 3 && ufn_wrap_index(-10, 10) == 0);
    assert_true(same32(ufn_abs_f32(-0.0f), 0.0f) && ufn_abs_f64(-2.5) == 2.5);
}

static void test_int_pow(void **state)
{
    size_t i;
    (void)state;
    for (i = 0; i < N(ipow_cases); i++) {
        const struct ipow_case *c = &ipow_cases[i];
        int64_t r = ufn_pow_i64(c->b, c->e);
        if (r != c->r)
            mismatch("%lld ** %lld = %lld, want %lld\n", (long long)c->b, (long long)c->e,
                 (long long)r, (long long)c->r);
    }
    for (i = 0; i < N(upow_cases); i++) {
        const struct upow_case *c = &upow_cases[i];
        uint64_t r = ufn_pow_u64(c->b, c->e);
        if (r != c->r)
            mismatch("u64 %llu ** %llu = %llu, want %llu\n", (unsigned long long)c->b,
                 (unsigned long long)c->e, (unsigned long long)r, (unsigned long long)c->r);
    }
    assert_true(ufn_pow_i64(2, -1) == 0 && ufn_pow_i64(-1, -3) == -1 && ufn_pow_i64(-1, -2) == 1);
    assert_true(ufn_pow_i64(0, -1) == INT64_MIN && ufn_pow_i64(0, 0) == 1);
    assert_true(ufn_pow_i64(1, INT64_MIN) == 1 && ufn_pow_i64(-1, INT64_MIN) == 1);
    done();
}

static void test_shifts(void **state)
{
    size_t i;
    (void)state;
    for (i = 0; i < N(shift_cases); i++) {
        const struct shift_case *c = &shift_cases[i];
        int64_t l = ufn_shl_i64(c->a, c->n), r = ufn_shr_i64(c->a, c->n);
        uint64_t ul = ufn_shl_u64((uint64_t)c->a, c->n), ur = ufn_shr_u64((uint64_t)c->a, c->n);
        if (l != c->shl || r != c->shr || ul != c->ushl || ur != c->ushr)
            mismatch("shift %lld by %lld: << %lld >> %lld (u: %llu %llu)\n", (long long)c->a,
                 (long long)c->n, (long long)l, (long long)r, (unsigned long long)ul,
                 (unsigned long long)ur);
    }
    assert_true(ufn_shl_i64(1, 64) == 0 && ufn_shr_i64(-8, 64) == -1 && ufn_shr_i64(-8, 1) == -4);
    assert_true(ufn_shr_i64(-1, 63) == -1 && ufn_shl_i64(-1, 63) == INT64_MIN);
    done();
}

/* ---- float // % ** ------------------------------------------------------------------------- */

static void test_float_floordiv_mod(void **state)
{
    size_t i;
    (void)state;
    for (i = 0; i < N(fdiv64_cases); i++) {
        const struct fdiv64_case *c = &fdiv64_cases[i];
        double q = ufn_floordiv_f64(c->a, c->b), r = ufn_mod_f64(c->a, c->b);
        if (!same64(q, c->q) || !same64(r, c->r))
            mismatch("f64 %a // %a = %a, %% = %a; NumPy %a, %a\n", c->a, c->b, q, r, c->q, c->r);
    }
    for (i = 0; i < N(fdiv32_cases); i++) {
        const struct fdiv32_case *c = &fdiv32_cases[i];
        float q = ufn_floordiv_f32(c->a, c->b), r = ufn_mod_f32(c->a, c->b);
        if (!same32(q, c->q) || !same32(r, c->r))
            mismatch("f32 %a // %a = %a, %% = %a; NumPy %a, %a\n", (double)c->a, (double)c->b,
                 (double)q, (double)r, (double)c->q, (double)c->r);
    }
    assert_true(ufn_floordiv_f64(-7.5, 2) == -4.0 && ufn_mod_f64(-7.5, 2) == 0.5);
    assert_true(ufn_mod_f64(1, -INFINITY) == -INFINITY && ufn_floordiv_f64(1, -INFINITY) == -1.0);
    done();
}

/* Division by an odd integer constant without the divider (tests/math/cdiv.c
 * checks millions of quotients and every float32 x for some divisors; these
 * are the cases to remember).  y = RN(1/d), as the emitter writes it. */
static void test_div_const(void **state)
{
    static const struct { float x, d, q; } cases[] = {
        {1.0f, 3.0f, 0x1.555556p-2f},
        {0.0f, 3.0f, 0.0f},
        {-0.0f, 255.0f, -0.0f},                /* the negated remainder keeps the sign */
        {0x1p-149f, 3.0f, 0.0f},
        {0x1p-148f, 3.0f, 0x1p-149f},
        {0x1.fffffep+127f, 3.0f, 0x1.555554p+126f},
        {(float)INFINITY, 255.0f, (float)INFINITY},
        {-(float)INFINITY, 7.0f, -(float)INFINITY},
        {255.0f, 255.0f, 1.0f},
        {4194303.0f, 4194303.0f, 1.0f},
        {-0x1.fffffep+127f, 4194303.0f, -0x1.000004p+106f},
    };
    (void)state;
    for (size_t i = 0; i < N(cases); i++) {
        float q = ufn_div_const_f32(cases[i].x, cases[i].d, 1.0f / cases[i].d);
        if (!same32(q, cases[i].q) || !same32(q, cases[i].x / cases[i].d))
            mismatch("div_const %a / %a = %a, want %a\n", (double)cases[i].x, (double)cases[i].d, (double)q,
                     (double)cases[i].q);
    }
    assert_true(isnan(ufn_div_const_f32(NAN, 3.0f, 1.0f / 3.0f)));
    assert_true(same64(ufn_div_const_f64(-0.0, 3.0, 1.0 / 3.0), -0.0));
    assert_true(same64(ufn_div_const_f64(1.0, 3.0, 1.0 / 3.0), 1.0 / 3.0));
    assert_true(same64(ufn_div_const_f64(0x1p-1073, 3.0, 1.0 / 3.0), 0x1p-1074));
    assert_true(ufn_div_const_f64(-INFINITY, 3.0, 1.0 / 3.0) == -INFINITY);
    assert_true(isnan(ufn_div_const_f64(NAN, 3.0, 1.0 / 3.0)));
    done();
}

static void test_float_pow(void **state)
{
    size_t i;
    (void)state;
    for (i = 0; i < N(powi64_cases); i++) {
        const struct powi64_case *c = &powi64_cases[i];
        double r = ufn_powi_f64(c->x, c->e);
        if (!same64(r, c->r))
            mismatch("f64 %a ** %lld = %a, Numba %a\n", c->x, (long long)c->e, r, c->r);
    }
    for (i = 0; i < N(powi32_cases); i++) {
        const struct powi32_case *c = &powi32_cases[i];
        float r = ufn_powi_f32(c->x, c->e);
        if (!same32(r, c->r))
            mismatch("f32 %a ** %lld = %a, Numba %a\n", (double)c->x, (long long)c->e, (double)r,
                 (double)c->r);
    }
    assert_true(ufn_powi_f64(1.1, 2) == 1.1 * 1.1);
    assert_true(ufn_pow_f64(2.0, 0.5) == sqrt(2.0) && ufn_pow_f32(4.0f, 0.5f) == 2.0f);
    assert_true(ufn_isnan_f64(ufn_pow_f64(-8.0, 1.0 / 3.0)));
    done();
}

/* The written-out small exponents of ufn_powi_* must give exactly what the
 * repeated-squaring loop gives (they exist only so that constant exponents
 * leave no loop behind). */
static float loop_powi_f32(float x, int64_t e)
{
    uint64_t n = e < 0 ? 0u - (uint64_t)e : (uint64_t)e;
    float r = 1.0f;
    for (; n; n >>= 1, x *= x)
        if (n & 1)
            r *= x;
    return e < 0 ? 1.0f / r : r;
}

static double loop_powi_f64(double x, int64_t e)
{
    uint64_t n = e < 0 ? 0u - (uint64_t)e : (uint64_t)e;
    double r = 1.0;
    for (; n; n >>= 1, x *= x)
        if (n & 1)
            r *= x;
    return e < 0 ? 1.0 / r : r;
}

static void test_powi_small_exponents(void **state)
{
    (void)state;
    static const double xs[] = {0.0, -0.0, 1.0, -1.5, 3.0000002, 1e-20, -7.25e15, 1e30, 1e200,
                                0.1, 2.5066282746310002, INFINITY, -INFINITY, NAN};
    for (size_t i = 0; i < N(xs); i++)
        for (int64_t e = -3; e <= 5; e++) {
            volatile int64_t ev = e;    /* the general path too, not only folded constants */
            float x32 = (float)xs[i];
            if (!same32(ufn_powi_f32(x32, ev), loop_powi_f32(x32, e)))
                mismatch("f32 %a ** %lld\n", (double)x32, (long long)e);
            if (!same64(ufn_powi_f64(xs[i], ev), loop_powi_f64(xs[i], e)))
                mismatch("f64 %a ** %lld\n", xs[i], (long long)e);
        }
    done();
}

/* ---- float -> int ------------------------------------------------------------------------ */

static int64_t to_signed(int target, double x)
{
    switch (target) {
    case 0: return ufn_f64_to_i8(x);
    case 1: return ufn_f64_to_i16(x);
    case 2: return ufn_f64_to_i32(x);
    default: return ufn_f64_to_i64(x);
    }
}

static int64_t to_signed32(int target, float x)
{
    switch (target) {
    case 0: return ufn_f32_to_i8(x);
    case 1: return ufn_f32_to_i16(x);
    case 2: return ufn_f32_to_i32(x);
    default: return ufn_f32_to_i64(x);
    }
}

static uint64_t to_unsigned(int target, double x)
{
    switch (target) {
    case 4: return ufn_f64_to_u8(x);
    case 5: return ufn_f64_to_u16(x);
    case 6: return ufn_f64_to_u32(x);
    default: return ufn_f64_to_u64(x);
    }
}

static uint64_t to_unsigned32(int target, float x)
{
    switch (target) {
    case 4: return ufn_f32_to_u8(x);
    case 5: return ufn_f32_to_u16(x);
    case 6: return ufn_f32_to_u32(x);
    default: return ufn_f32_to_u64(x);
    }
}

static void test_float_to_int(void **state)
{
    static const char *const names[] = {"i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64"};
    size_t i;
    (void)state;
    for (i = 0; i < N(f2i_cases); i++) {
        const struct f2i_case *c = &f2i_cases[i];
        if (c->target < 4) {
            int64_t d = to_signed(c->target, c->x), f = to_signed32(c->target, c->x32);
            if (d != c->sd || f != c->sf)
                mismatch("%s(%a) = %lld, (float)%a -> %lld; want %lld, %lld\n", names[c->target],
                     c->x, (long long)d, (double)c->x32, (long long)f, (long long)c->sd,
                     (long long)c->sf);
        } else {
            uint64_t d = to_unsigned(c->target, c->x), f = to_unsigned32(c->target, c->x32);
            if (d != c->ud || f != c->uf)
                mismatch("%s(%a) = %llu, (float)%a -> %llu; want %llu, %llu\n", names[c->target],
                     c->x, (unsigned long long)d, (double)c->x32, (unsigned long long)f,
                     (unsigned long long)c->ud, (unsigned long long)c->uf);
        }
    }
    /* the boundaries named in the design */
    assert_true(ufn_f32_to_i32(2147483647.5f) == INT32_MAX);
    assert_true(ufn_f64_to_i32(-2147483648.9) == INT32_MIN);
    assert_true(ufn_f64_to_i32(2147483647.9) == INT32_MAX && ufn_f64_to_i32(-2147483647.9) == -2147483647);
    assert_true(ufn_f64_to_i64(9.2233720368547758e18) == INT64_MAX);
    assert_true(ufn_f64_to_u64(18446744073709551615.0) == UINT64_MAX);
    assert_true(ufn_f64_to_u32(-1.0) == 0 && ufn_f64_to_u8(-0.5) == 0 && ufn_f64_to_i8(-0.5) == 0);
    assert_true(ufn_f64_to_i64(INFINITY) == INT64_MAX && ufn_f64_to_i64(-INFINITY) == INT64_MIN);
    assert_true(ufn_f64_to_i64(NAN) == 0 && ufn_f32_to_u64(NAN) == 0);
    assert_true(ufn_f64_to_i8(300.7) == 127 && ufn_f64_to_i8(-3.7) == -3);
    done();
}

/* ---- builtins --------------------------------------------------------------------------- */

static void test_min_max(void **state)
{
    (void)state;
    assert_true(ufn_isnan_f64(ufn_min_f64(NAN, 1.0)) && ufn_min_f64(1.0, NAN) == 1.0);
    assert_true(ufn_isnan_f64(ufn_max_f64(NAN, 1.0)) && ufn_max_f64(1.0, NAN) == 1.0);
    assert_true(ufn_isnan_f32(ufn_min_f32(NAN, 1.0f)) && ufn_min_f32(1.0f, NAN) == 1.0f);
    assert_true(ufn_isnan_f32(ufn_max_f32(NAN, 1.0f)) && ufn_max_f32(1.0f, NAN) == 1.0f);
    assert_true(same64(ufn_min_f64(0.0, -0.0), 0.0) && same64(ufn_max_f64(-0.0, 0.0), -0.0));
    assert_true(ufn_min_f64(-INFINITY, 3.0) == -INFINITY && ufn_max_f32(2.0f, 3.0f) == 3.0f);
    assert_true(ufn_min_i64(INT64_MIN, 0) == INT64_MIN && ufn_max_i64(-1, INT64_MAX) == INT64_MAX);
    assert_true(ufn_min_u64(UINT64_MAX, 1) == 1 && ufn_max_u64(0, UINT64_MAX) == UINT64_MAX);
}

static void test_round(void **state)
{
    size_t i;
    (void)state;
    for (i = 0; i < N(round_cases); i++) {
        const struct round_case *c = &round_cases[i];
        double r = ufn_round_f64(c->x);
        float f = ufn_round_f32((float)c->x);
        if (!same64(r, c->r64) || !same32(f, c->r32))
            mismatch("round(%a) = %a, f32 %a; want %a, %a\n", c->x, r, (double)f, c->r64,
                 (double)c->r32);
    }
    for (i = 0; i < N(roundn_cases); i++) {
        const struct roundn_case *c = &roundn_cases[i];
        double r = ufn_round_ndigits_f64(c->x, c->n);
        float f = ufn_round_ndigits_f32((float)c->x, c->n);
        if (!same64(r, c->r64) || !same32(f, c->r32))
            mismatch("round(%.17g, %lld) = %.17g, f32 %.9g; NumPy %.17g, %.9g\n", c->x,
                 (long long)c->n, r, (double)f, c->r64, (double)c->r32);
    }
    /* the cases named in the design */
    assert_true(ufn_round_f64(0.5) == 0.0 && ufn_round_f64(1.5) == 2.0 && ufn_round_f64(2.5) == 2.0);
    assert_true(ufn_round_f64(-0.5) == 0.0 && ufn_round_f64(-1.5) == -2.0);
    assert_true(ufn_round_ndigits_f64(0.35, 1) == 0.4 && ufn_round_ndigits_f64(0.25, 1) == 0.2);
    assert_true(ufn_round_ndigits_f64(2.675, 1) == 2.7 && ufn_round_ndigits_f64(1234.5, -2) == 1200.0);
    assert_true(ufn_round_ndigits_f32(0.35f, 1) == 0.4f);
    /* the decided rules at the edges */
    assert_true(ufn_round_ndigits_f64(1e300, 30) == 1e300 && ufn_round_ndigits_f64(0.0, 400) == 0.0);
    assert_true(same64(ufn_round_ndigits_f64(-5.0, -400), -0.0));
    assert_true(same32(ufn_round_ndigits_f32(5.0f, -50), 0.0f) && ufn_round_ndigits_f32(1e30f, 20) == 1e30f);
    assert_true(ufn_f64_to_i64(ufn_round_f64(INFINITY)) == INT64_MAX);
    done();
}

static void test_predicates(void **state)
{
    (void)state;
    assert_true(ufn_isnan_f32(NAN) && !ufn_isnan_f32(INFINITY) && !ufn_isnan_f32(0.0f));
    assert_true(ufn_isinf_f32(-INFINITY) && !ufn_isinf_f32(NAN) && !ufn_isinf_f32(FLT_MAX));
    assert_true(ufn_isfinite_f32(FLT_MAX) && !ufn_isfinite_f32(NAN) && !ufn_isfinite_f32(INFINITY));
    assert_true(ufn_isnan_f64(-UFN_NAN_F64) && !ufn_isnan_f64(UFN_INF_F64) && !ufn_isnan_f64(DBL_MIN));
    assert_true(ufn_isinf_f64(-UFN_INF_F64) && !ufn_isinf_f64(DBL_MAX));
    assert_true(ufn_isfinite_f64(-DBL_MAX) && ufn_isfinite_f64(4.9e-324) && !ufn_isfinite_f64(UFN_NAN_F64));
    assert_int_equal(ufn_isnan_f64(UFN_NAN_F64), 1);
}

static void test_math_extras(void **state)
{
    (void)state;
    assert_true(ufn_degrees_f64(UFN_PI) == 180.0 && ufn_radians_f64(180.0) == UFN_PI);
    assert_true(ufn_degrees_f32(1.0f) == 1.0f * (float)(180.0 / UFN_PI));
    assert_true(ufn_radians_f32(90.0f) == 90.0f * (float)(UFN_PI / 180.0));
    assert_true(ufn_log_base_f64(8.0, 2.0) == log(8.0) / log(2.0));
    assert_true(ufn_log_base_f32(100.0f, 10.0f) == logf(100.0f) / logf(10.0f));
    assert_true(ufn_ldexp_f64(1.0, 10) == 1024.0 && ufn_ldexp_f64(1.0, INT64_C(1) << 32) == INFINITY);
    assert_true(ufn_ldexp_f64(1.0, INT64_MIN) == 0.0 && ufn_ldexp_f32(3.0f, -1) == 1.5f);
}

/* ---- complex ---------------------------------------------------------------------------- */

typedef ufn_c128 (*cfn128)(ufn_c128);
typedef ufn_c64 (*cfn64)(ufn_c64);

/* in the order of cfunc_names[] */
static const cfn128 cfns128[] = {
    ufn_cexp_c128, ufn_clog_c128, ufn_clog10_c128, ufn_csqrt_c128, ufn_csin_c128,
    ufn_ccos_c128, ufn_ctan_c128, ufn_casin_c128, ufn_cacos_c128, ufn_catan_c128,
    ufn_csinh_c128, ufn_ccosh_c128, ufn_ctanh_c128, ufn_casinh_c128, ufn_cacosh_c128,
    ufn_catanh_c128,
};
static const cfn64 cfns64[] = {
    ufn_cexp_c64, ufn_clog_c64, ufn_clog10_c64, ufn_csqrt_c64, ufn_csin_c64,
    ufn_ccos_c64, ufn_ctan_c64, ufn_casin_c64, ufn_cacos_c64, ufn_catan_c64,
    ufn_csinh_c64, ufn_ccosh_c64, ufn_ctanh_c64, ufn_casinh_c64, ufn_cacosh_c64,
    ufn_catanh_c64,
};

static void test_cmath_c128(void **state)
{
    size_t i;
    (void)state;
    assert_int_equal(N(cfns128), N(cfunc_names));
    for (i = 0; i < N(cfunc_cases); i++) {
        const struct cfunc_case *c = &cfunc_cases[i];
        ufn_c128 w = cfns128[c->fn](ufn_c128_make(c->re, c->im));
        double norm = hypot(c->wre, c->wim);
        if (!near64(w.re, c->wre, norm, 4) || !near64(w.im, c->wim, norm, 4))
            mismatch("cmath.%s(%.17g%+.17gj) = %.17g%+.17gj, Python %.17g%+.17gj\n",
                 cfunc_names[c->fn], c->re, c->im, w.re, w.im, c->wre, c->wim);
        /* branch cuts: the sign of a zero part matches wherever Python's is */
        else if ((c->wre == 0.0 && signbit(w.re) != signbit(c->wre)) ||
                 (c->wim == 0.0 && signbit(w.im) != signbit(c->wim)))
            mismatch("cmath.%s(%g%+gj): zero sign %g%+gj, Python %g%+gj\n", cfunc_names[c->fn],
                 c->re, c->im, w.re, w.im, c->wre, c->wim);
    }
    for (i = 0; i < N(cspecial_cases); i++) {
        const struct cspecial_case *c = &cspecial_cases[i];
        ufn_c128 w = cfns128[c->fn](ufn_c128_make(c->re, c->im));
        if (!same64(w.re, c->wre) || !same64(w.im, c->wim))
            mismatch("cmath.%s(%g%+gj) = %g%+gj, Python %g%+gj\n", cfunc_names[c->fn], c->re, c->im,
                 w.re, w.im, c->wre, c->wim);
    }
    done();
}

static void test_cmath_c64(void **state)
{
    size_t i;
    (void)state;
    for (i = 0; i < N(cfunc_cases); i++) {
        const struct cfunc_case *c = &cfunc_cases[i];
        ufn_c64 w;
        double norm = hypot(c->w32re, c->w32im);
        if (ufn_isinf_f32((float)norm) || ufn_isnan_f64(norm))
            continue;       /* overflows float: compared exactly in the c128 test */
        w = cfns64[c->fn](ufn_c64_make((float)c->re, (float)c->im));
        if (!near32(w.re, c->w32re, norm, 8) || !near32(w.im, c->w32im, norm, 8))
            mismatch("c64 cmath.%s(%.9g%+.9gj) = %.9g%+.9gj, Python %.9g%+.9gj\n",
                 cfunc_names[c->fn], (double)(float)c->re, (double)(float)c->im, (double)w.re,
                 (double)w.im, c->w32re, c->w32im);
    }
    done();
}

static void test_complex_arith(void **state)
{
    size_t i;
    ufn_c128 a, b, z;
    ufn_c64 f;
    (void)state;
    for (i = 0; i < N(cbin_cases); i++) {
        const struct cbin_case *c = &cbin_cases[i];
        ufn_c128 p, q;
        double pn = hypot(c->pre, c->pim), qn = hypot(c->qre, c->qim);
        a = ufn_c128_make(c->are, c->aim);
        b = ufn_c128_make(c->bre, c->bim);
        p = ufn_c128_pow(a, b);
        q = ufn_c128_div(a, b);
        /* the polar form amplifies rounding by |b| log|a|: FMA contraction (the
         * GPU's default) moves (3+4j) ** (10-20j) by 13 ulp */
        if (!near64(p.re, c->pre, pn, 32) || !near64(p.im, c->pim, pn, 32))
            mismatch("(%g%+gj) ** (%g%+gj) = %.17g%+.17gj, Python %.17g%+.17gj\n", c->are, c->aim,
                 c->bre, c->bim, p.re, p.im, c->pre, c->pim);
        if (!near64(q.re, c->qre, qn, 2) || !near64(q.im, c->qim, qn, 2))
            mismatch("(%g%+gj) / (%g%+gj) = %.17g%+.17gj, Python %.17g%+.17gj\n", c->are, c->aim,
                 c->bre, c->bim, q.re, q.im, c->qre, c->qim);
        if (c->bim == 0.0 && c->bre == floor(c->bre) && fabs(c->bre) <= 100) {
            ufn_c128 pi = ufn_c128_powi(a, (int64_t)c->bre);
            if (!same64(pi.re, p.re) || !same64(pi.im, p.im))
                mismatch("powi and pow differ for (%g%+gj) ** %g\n", c->are, c->aim, c->bre);
        }
    }
    /* exact small powers, as Python computes them */
    z = ufn_c128_make(1.5, -2.25);
    a = ufn_c128_pow(z, ufn_c128_make(2.0, 0.0));
    assert_true(a.re == 1.5 * 1.5 - 2.25 * 2.25 && a.im == 2 * 1.5 * -2.25);
    a = ufn_c128_powi(ufn_c128_make(1.0, 1.0), 8);
    assert_true(a.re == 16.0 && a.im == 0.0);
    a = ufn_c128_powi(ufn_c128_make(0.0, 1.0), 3);
    assert_true(a.re == 0.0 && a.im == -1.0);
    f = ufn_c64_pow(ufn_c64_make(3.0f, 4.0f), ufn_c64_make(2.0f, 0.0f));
    assert_true(f.re == -7.0f && f.im == 24.0f);
    f = ufn_c64_powi(ufn_c64_make(0.0f, 0.0f), -1);
    assert_true(ufn_cisnan_c64(f));
    a = ufn_c128_pow(ufn_c128_make(0.0, 0.0), ufn_c128_make(0.0, 0.0));
    assert_true(a.re == 1.0 && a.im == 0.0);

    /* the basic operations */
    a = ufn_c128_make(1.0, 2.0);
    b = ufn_c128_make(3.0, -4.0);
    z = ufn_c128_add(a, b);
    assert_true(z.re == 4.0 && z.im == -2.0);
    z = ufn_c128_sub(a, b);
    assert_true(z.re == -2.0 && z.im == 6.0);
    z = ufn_c128_mul(a, b);
    assert_true(z.re == 11.0 && z.im == 2.0);
    z = ufn_c128_div(ufn_c128_make(11.0, 2.0), b);
    assert_true(z.re == 1.0 && z.im == 2.0);
    z = ufn_c128_neg(a);
    assert_true(z.re == -1.0 && z.im == -2.0);
    z = ufn_c128_conj(a);
    assert_true(z.re == 1.0 && z.im == -2.0);
    assert_true(ufn_c128_abs(b) == 5.0 && ufn_c64_abs(ufn_c64_make(3.0f, 4.0f)) == 5.0f);
    assert_true(ufn_c128_eq(a, a) && !ufn_c128_ne(a, a) && ufn_c128_ne(a, b));
    assert_true(!ufn_c128_eq(ufn_c128_make(NAN, 0), ufn_c128_make(NAN, 0)));
    z = ufn_c128_div(ufn_c128_make(1.0, 1.0), ufn_c128_make(0.0, 0.0));
    assert_true(z.re == INFINITY && z.im == INFINITY);
    z = ufn_c128_from_f64(2.5);
    assert_true(z.re == 2.5 && z.im == 0.0);
    f = ufn_c64_from_c128(ufn_c128_make(0.1, 1e40));
    assert_true(f.re == 0.1f && f.im == INFINITY);
    z = ufn_c128_from_c64(ufn_c64_make(0.1f, -2.0f));
    assert_true(z.re == (double)0.1f && z.im == -2.0);
    f = ufn_c64_div(ufn_c64_make(11.0f, 2.0f), ufn_c64_make(3.0f, -4.0f));
    assert_true(f.re == 1.0f && f.im == 2.0f);
    f = ufn_c64_from_f32(1.5f);
    assert_true(f.re == 1.5f && f.im == 0.0f);
    done();
}

static void test_cmath_misc(void **state)
{
    ufn_c128 z;
    ufn_c64 f;
    (void)state;
    assert_true(ufn_cphase_c128(ufn_c128_make(-1.0, 0.0)) == UFN_PI);
    assert_true(ufn_cphase_c128(ufn_c128_make(-1.0, -0.0)) == -UFN_PI);
    assert_true(ufn_cphase_c64(ufn_c64_make(0.0f, 1.0f)) == (float)(UFN_PI / 2));
    z = ufn_crect_c128(2.0, 0.0);
    assert_true(z.re == 2.0 && z.im == 0.0);
    z = ufn_crect_c128(2.0, UFN_PI / 2);
    assert_true(fabs(z.re) < 1e-15 && z.im == 2.0);
    z = ufn_crect_c128(INFINITY, 0.0);
    assert_true(z.re == INFINITY && z.im == 0.0);
    z = ufn_crect_c128(0.0, INFINITY);
    assert_true(z.re == 0.0 && z.im == 0.0);
    f = ufn_crect_c64(1.0f, 0.5f);
    assert_true(f.re == cosf(0.5f) && f.im == sinf(0.5f));
    assert_true(ufn_cisnan_c128(ufn_c128_make(0.0, NAN)) && !ufn_cisnan_c128(ufn_c128_make(INFINITY, 0)));
    assert_true(ufn_cisinf_c128(ufn_c128_make(0.0, -INFINITY)) && !ufn_cisinf_c128(ufn_c128_make(NAN, 0)));
    assert_true(ufn_cisfinite_c128(ufn_c128_make(1.0, 2.0)) && !ufn_cisfinite_c128(ufn_c128_make(NAN, 0)));
    assert_true(ufn_cisnan_c64(ufn_c64_make(NAN, 0.0f)) && ufn_cisinf_c64(ufn_c64_make(INFINITY, 0.0f)));
    assert_true(ufn_cisfinite_c64(ufn_c64_make(1.0f, 2.0f)));
    /* sqrt's branch cut follows the sign of zero */
    z = ufn_csqrt_c128(ufn_c128_make(-4.0, 0.0));
    assert_true(z.re == 0.0 && z.im == 2.0);
    z = ufn_csqrt_c128(ufn_c128_make(-4.0, -0.0));
    assert_true(z.re == 0.0 && z.im == -2.0);
    /* log(z, base) */
    z = ufn_clog_base_c128(ufn_c128_make(8.0, 0.0), ufn_c128_make(2.0, 0.0));
    assert_true(fabs(z.re - 3.0) < 1e-15 && z.im == 0.0);
    f = ufn_clog_base_c64(ufn_c64_make(100.0f, 0.0f), ufn_c64_make(10.0f, 0.0f));
    assert_true(fabsf(f.re - 2.0f) < 1e-6f && f.im == 0.0f);
    /* log(0) is -inf (Python raises) */
    z = ufn_clog_c128(ufn_c128_make(0.0, 0.0));
    assert_true(z.re == -INFINITY && z.im == 0.0);
}

/* every math.def row compiles with its kind's argument types and runs */
static void test_math_def_rows(void **state)
{
    double r;
    (void)state;
    r = ufn_test_math_def(0.5f, 0.25, 3, ufn_c64_make(0.5f, 0.5f), ufn_c128_make(0.5, -0.5));
    assert_true(ufn_isnan_f64(r));      /* the nan constant is in the sum */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_int_floordiv_mod),
        cmocka_unit_test(test_int_wrapping),
        cmocka_unit_test(test_int_pow),
        cmocka_unit_test(test_shifts),
        cmocka_unit_test(test_float_floordiv_mod),
        cmocka_unit_test(test_div_const),
        cmocka_unit_test(test_float_pow),
        cmocka_unit_test(test_powi_small_exponents),
        cmocka_unit_test(test_float_to_int),
        cmocka_unit_test(test_min_max),
        cmocka_unit_test(test_round),
        cmocka_unit_test(test_predicates),
        cmocka_unit_test(test_math_extras),
        cmocka_unit_test(test_cmath_c128),
        cmocka_unit_test(test_cmath_c64),
        cmocka_unit_test(test_complex_arith),
        cmocka_unit_test(test_cmath_misc),
        cmocka_unit_test(test_math_def_rows),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
