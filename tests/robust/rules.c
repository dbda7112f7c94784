/* rules.c - the numeric rules ufnc chose where Python, NumPy, Numba and the
 * hardware disagree (include/ufn_math.h "Rule:", numba-semantics.md 3.3 and
 * 3.5), checked on whatever backend UFN_BACKEND chose: run on host and on
 * sim, the same expectations hold.  (rules-cuda.sh checks that the CUDA
 * kernels are built from the same bodies.)
 *
 *   x // 0 == x % 0 == 0; INT64_MIN // -1 wraps to INT64_MIN; narrower ints
 *   compute in int64 and wrap on the way back
 *   x / 0 (ints) and x // 0.0, x % 0.0 (floats): IEEE inf and nan
 *   a shift by a count outside 0..63 gives 0, or -1 for a negative >>
 *   float -> int truncates, saturates at the type's range, NaN -> 0
 *   int ** negative int: 0, 1, +-1, INT64_MIN for 0 ** -n; overflow wraps
 *
 * Every case goes through the general entry (host arrays: on sim they are
 * staged to the device and back) and the typed entry. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rules.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* One binary kernel over a table of {a, b, want}: general and typed entry. */
#define BINARY_CHECK(NAME, TA, DTA, TR, DTR)                                                            \
    typedef struct { TA a, b; TR want; } NAME##_case;                                                    \
    static void NAME##_check(const char *what, int (*general)(const ufn_array *, const ufn_array *,   \
                             ufn_array *), int (*typed)(size_t, const TA *, const TA *, TR *),         \
                             const NAME##_case *c, size_t n)                                          \
    {                                                                                                 \
        TA a[64], b[64];                                                                              \
        TR out[64], out2[64];                                                                         \
        for (size_t i = 0; i < n; i++) {                                                              \
            a[i] = c[i].a;                                                                            \
            b[i] = c[i].b;                                                                            \
        }                                                                                             \
        ufn_array A = ufn_host(a, DTA, 1, (int64_t[]){(int64_t)n});                                   \
        ufn_array B = ufn_host(b, DTA, 1, (int64_t[]){(int64_t)n});                                   \
        ufn_array O = ufn_host(out, DTR, 1, (int64_t[]){(int64_t)n});                                 \
        if (general(&A, &B, &O))                                                                      \
            fail_msg("%s: %s", what, ufn_error());                                                    \
        if (typed(n, a, b, out2))                                                                     \
            fail_msg("%s (typed): %s", what, ufn_error());                                            \
        for (size_t i = 0; i < n; i++) {                                                              \
            if (!same_##NAME(out[i], c[i].want) || !same_##NAME(out2[i], c[i].want))                  \
                fail_msg("%s case %zu: got %.17g (typed %.17g), want %.17g", what, i, (double)out[i], \
                         (double)out2[i], (double)c[i].want);                                         \
        }                                                                                             \
    }

/* One unary kernel: {x, want}. */
#define UNARY_CHECK(NAME, TA, DTA, TR, DTR)                                                             \
    typedef struct { TA x; TR want; } NAME##_case;                                                       \
    static void NAME##_check(const char *what, int (*general)(const ufn_array *, ufn_array *),        \
                             int (*typed)(size_t, const TA *, TR *), const NAME##_case *c, size_t n)  \
    {                                                                                                 \
        TA x[64];                                                                                     \
        TR out[64], out2[64];                                                                         \
        for (size_t i = 0; i < n; i++)                                                                \
            x[i] = c[i].x;                                                                            \
        ufn_array X = ufn_host(x, DTA, 1, (int64_t[]){(int64_t)n});                                   \
        ufn_array O = ufn_host(out, DTR, 1, (int64_t[]){(int64_t)n});                                 \
        if (general(&X, &O))                                                                          \
            fail_msg("%s: %s", what, ufn_error());                                                    \
        if (typed(n, x, out2))                                                                        \
            fail_msg("%s (typed): %s", what, ufn_error());                                            \
        for (size_t i = 0; i < n; i++)                                                                \
            if (out[i] != c[i].want || out2[i] != c[i].want)                                          \
                fail_msg("%s case %zu (%.17g): got %lld (typed %lld), want %lld", what, i, (double)x[i], \
                         (long long)out[i], (long long)out2[i], (long long)c[i].want);                \
    }

static int same_i64(int64_t a, int64_t b) { return a == b; }
static int same_i32(int32_t a, int32_t b) { return a == b; }
static int same_i8(int8_t a, int8_t b) { return a == b; }
static int same_u64(uint64_t a, uint64_t b) { return a == b; }
/* floats: NaN equals NaN, zeros keep their sign */
static int same_f64(double a, double b) { return (isnan(a) && isnan(b)) || (a == b && signbit(a) == signbit(b)); }
static int same_f32(float a, float b) { return (isnan(a) && isnan(b)) || (a == b && signbit(a) == signbit(b)); }
static int same_i64f(double a, double b) { return same_f64(a, b); }

BINARY_CHECK(i64, int64_t, UFN_INT64, int64_t, UFN_INT64)
BINARY_CHECK(i32, int32_t, UFN_INT32, int32_t, UFN_INT32)
BINARY_CHECK(i8, int8_t, UFN_INT8, int8_t, UFN_INT8)
BINARY_CHECK(u64, uint64_t, UFN_UINT64, uint64_t, UFN_UINT64)
BINARY_CHECK(f64, double, UFN_FLOAT64, double, UFN_FLOAT64)
BINARY_CHECK(f32, float, UFN_FLOAT32, float, UFN_FLOAT32)
BINARY_CHECK(i64f, int64_t, UFN_INT64, double, UFN_FLOAT64)

UNARY_CHECK(d2i64, double, UFN_FLOAT64, int64_t, UFN_INT64)
UNARY_CHECK(d2i32, double, UFN_FLOAT64, int32_t, UFN_INT32)
UNARY_CHECK(f2i16, float, UFN_FLOAT32, int16_t, UFN_INT16)
UNARY_CHECK(f2i8, float, UFN_FLOAT32, int8_t, UFN_INT8)
UNARY_CHECK(d2u64, double, UFN_FLOAT64, uint64_t, UFN_UINT64)
UNARY_CHECK(f2u32, float, UFN_FLOAT32, uint32_t, UFN_UINT32)
UNARY_CHECK(d2u8, double, UFN_FLOAT64, uint8_t, UFN_UINT8)
UNARY_CHECK(f2i64, float, UFN_FLOAT32, int64_t, UFN_INT64)

/* ---- integer // and % -------------------------------------------------------------------- */

static void test_integer_division_by_zero(void **state)
{
    (void)state;
    static const i64_case fd[] = {
        {7, 2, 3}, {-7, 2, -4}, {7, -2, -4}, {-7, -2, 3}, {5, 0, 0}, {-5, 0, 0}, {0, 0, 0},
        {INT64_MIN, 0, 0}, {INT64_MIN, -1, INT64_MIN}, {INT64_MIN, 1, INT64_MIN}, {INT64_MAX, -1, -INT64_MAX},
    };
    i64_check("int64 //", floordiv, floordiv_int64, fd, COUNT(fd));
    static const i64_case md[] = {
        {7, 2, 1}, {-7, 2, 1}, {7, -2, -1}, {-7, -2, -1}, {5, 0, 0}, {-5, 0, 0}, {0, 0, 0},
        {INT64_MIN, -1, 0}, {INT64_MIN, 3, 1}, {INT64_MAX, 0, 0},
    };
    i64_check("int64 %", mod, mod_int64, md, COUNT(md));
    /* int32 computes in int64: INT32_MIN // -1 is 2**31, which wraps back */
    static const i32_case fd32[] = {{7, 0, 0}, {-7, 2, -4}, {INT32_MIN, -1, INT32_MIN}, {INT32_MIN, 0, 0}};
    i32_check("int32 //", floordiv, floordiv_int32, fd32, COUNT(fd32));
    static const i32_case md32[] = {{7, 0, 0}, {-7, 2, 1}, {INT32_MIN, -1, 0}};
    i32_check("int32 %", mod, mod_int32, md32, COUNT(md32));
    static const i8_case fd8[] = {{-128, -1, -128}, {100, 0, 0}, {-7, 2, -4}};
    i8_check("int8 //", floordiv, floordiv_int8, fd8, COUNT(fd8));
    static const u64_case fdu[] = {{7, 0, 0}, {UINT64_MAX, 2, UINT64_MAX / 2}, {0, 0, 0}};
    u64_check("uint64 //", floordiv, floordiv_uint64, fdu, COUNT(fdu));
    static const u64_case mdu[] = {{7, 0, 0}, {UINT64_MAX, 10, 5}};
    u64_check("uint64 %", mod, mod_uint64, mdu, COUNT(mdu));
}

static void test_float_division_by_zero(void **state)
{
    (void)state;
    static const i64f_case td[] = {{1, 0, INFINITY}, {-1, 0, -INFINITY}, {0, 0, NAN}, {7, 2, 3.5}};
    i64f_check("int / int", truediv, truediv_int64, td, COUNT(td));
    /* np.floor_divide and np.remainder (numba-semantics.md 3.3) */
    static const f64_case fd[] = {
        {7.5, 2, 3}, {-7.5, 2, -4}, {1, 0, INFINITY}, {-1, 0, -INFINITY}, {0, 0, NAN}, {1, -INFINITY, -1},
    };
    f64_check("float64 //", ffloordiv, ffloordiv_float64, fd, COUNT(fd));
    static const f64_case md[] = {
        {7.5, 2, 1.5}, {-7.5, 2, 0.5}, {1, 0, NAN}, {-1, 0, NAN}, {0, 0, NAN}, {1, -INFINITY, -INFINITY},
    };
    f64_check("float64 %", fmodulo, fmodulo_float64, md, COUNT(md));
    static const f32_case fd32[] = {{7.5f, 2, 3}, {1, 0, INFINITY}, {0, 0, NAN}, {-7.5f, 2, -4}};
    f32_check("float32 //", ffloordiv, ffloordiv_float32, fd32, COUNT(fd32));
    static const f32_case md32[] = {{-7.5f, 2, 0.5f}, {1, 0, NAN}, {4, -2, -0.0f}};
    f32_check("float32 %", fmodulo, fmodulo_float32, md32, COUNT(md32));
}

/* ---- shifts ------------------------------------------------------------------------------------ */

static void test_shifts_past_the_width(void **state)
{
    (void)state;
    static const i64_case l[] = {
        {1, 0, 1}, {1, 62, 1ll << 62}, {1, 63, INT64_MIN}, {1, 64, 0}, {1, 65, 0}, {-1, 64, 0},
        {1, -1, 0}, {5, INT64_MAX, 0}, {5, INT64_MIN, 0}, {-3, 1, -6},
    };
    i64_check("int64 <<", shl, shl_int64, l, COUNT(l));
    static const i64_case r[] = {
        {8, 1, 4}, {-8, 1, -4}, {-1, 63, -1}, {INT64_MIN, 63, -1}, {INT64_MAX, 63, 0}, {8, 64, 0},
        {-8, 64, -1}, {8, -1, 0}, {-8, -1, -1}, {-8, 1000, -1},
    };
    i64_check("int64 >>", shr, shr_int64, r, COUNT(r));
    /* int32 shifts in int64 and wraps to int32 */
    static const i32_case l32[] = {{1, 31, INT32_MIN}, {1, 32, 0}, {3, 31, INT32_MIN}, {1, 64, 0}, {1, -1, 0}};
    i32_check("int32 <<", shl, shl_int32, l32, COUNT(l32));
    static const i32_case r32[] = {{-1, 31, -1}, {-1, 32, -1}, {-1, 64, -1}, {8, 64, 0}, {INT32_MIN, 31, -1}};
    i32_check("int32 >>", shr, shr_int32, r32, COUNT(r32));
    /* a uint64 count past INT64_MAX is "too far" too */
    static const u64_case lu[] = {{1, 63, 1ull << 63}, {1, 64, 0}, {1, UINT64_MAX, 0}};
    u64_check("uint64 <<", shl, shl_uint64, lu, COUNT(lu));
    static const u64_case ru[] = {{UINT64_MAX, 63, 1}, {UINT64_MAX, 64, 0}, {UINT64_MAX, 1ull << 63, 0}};
    u64_check("uint64 >>", shr, shr_uint64, ru, COUNT(ru));
}

/* ---- float -> int ----------------------------------------------------------------------------------- */

static void test_float_to_int_saturates(void **state)
{
    (void)state;
    static const d2i64_case i64[] = {
        {3.7, 3}, {-3.7, -3}, {-0.5, 0}, {1e300, INT64_MAX}, {-1e300, INT64_MIN}, {INFINITY, INT64_MAX},
        {-INFINITY, INT64_MIN}, {NAN, 0}, {9223372036854775808.0, INT64_MAX},
        {-9223372036854775808.0, INT64_MIN}, {9223372036854774784.0, 9223372036854774784ll},
    };
    d2i64_check("int64 <- float64", to_int64, to_int64_float64, i64, COUNT(i64));
    d2i64_check("int(float64)", int_of, int_of_float64, i64, COUNT(i64));
    static const f2i64_case i64f[] = {{3.5f, 3}, {1e30f, INT64_MAX}, {-1e30f, INT64_MIN}, {NAN, 0}};
    f2i64_check("int(float32)", int_of, int_of_float32, i64f, COUNT(i64f));
    static const d2i32_case i32[] = {
        {2147483647.9, INT32_MAX}, {2147483648.0, INT32_MAX}, {-2147483648.9, INT32_MIN},
        {-2147483649.0, INT32_MIN}, {1e10, INT32_MAX}, {-1e10, INT32_MIN}, {NAN, 0}, {-7.9, -7},
    };
    d2i32_check("int32 <- float64", to_int32, to_int32_float64, i32, COUNT(i32));
    d2i32_check("np.int32(float64)", int32_of, int32_of_float64, i32, COUNT(i32));
    static const f2i16_case i16[] = {{32767.5f, 32767}, {32768, 32767}, {-32769, -32768}, {NAN, 0}, {INFINITY, 32767}};
    f2i16_check("int16 <- float32", to_int16, to_int16_float32, i16, COUNT(i16));
    static const f2i8_case i8[] = {
        {127.9f, 127}, {128, 127}, {-128.9f, -128}, {-129, -128}, {NAN, 0}, {INFINITY, 127}, {-INFINITY, -128},
        {300.7f, 127},
    };
    f2i8_check("int8 <- float32", to_int8, to_int8_float32, i8, COUNT(i8));
    static const d2u64_case u64[] = {
        {-1, 0}, {18446744073709551616.0, UINT64_MAX}, {18446744073709549568.0, 18446744073709549568ull},
        {NAN, 0}, {INFINITY, UINT64_MAX}, {1e300, UINT64_MAX}, {0.9, 0},
    };
    d2u64_check("uint64 <- float64", to_uint64, to_uint64_float64, u64, COUNT(u64));
    static const f2u32_case u32[] = {{-1.0f, 0}, {4294967296.0f, UINT32_MAX}, {NAN, 0}, {4294967040.0f, 4294967040u}};
    f2u32_check("uint32 <- float32", to_uint32, to_uint32_float32, u32, COUNT(u32));
    static const d2u8_case u8[] = {{-1, 0}, {-0.9, 0}, {255.9, 255}, {256, 255}, {NAN, 0}, {1e300, 255}};
    d2u8_check("uint8 <- float64", to_uint8, to_uint8_float64, u8, COUNT(u8));
}

/* ---- int ** int ------------------------------------------------------------------------------------ */

static void test_integer_powers(void **state)
{
    (void)state;
    static const i64_case p[] = {
        {2, -1, 0}, {1, -5, 1}, {-1, -3, -1}, {-1, -2, 1}, {0, -1, INT64_MIN}, {0, 0, 1}, {2, 62, 1ll << 62},
        {2, 63, INT64_MIN}, {2, 64, 0}, {3, 40, -6289078614652622815ll}, {-2, 63, INT64_MIN},
    };
    i64_check("int64 **", ipow, ipow_int64, p, COUNT(p));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_integer_division_by_zero),
        cmocka_unit_test(test_float_division_by_zero),
        cmocka_unit_test(test_shifts_past_the_width),
        cmocka_unit_test(test_float_to_int_saturates),
        cmocka_unit_test(test_integer_powers),
    };
    const char *be = getenv("UFN_BACKEND");
    return cmocka_run_group_tests_name(be ? be : "rules", tests, NULL, NULL);
}
