/* test_dtype.c - dtype sizes and names, NumPy's casting tables, signature
 * choice by dtype (exact, safe casting, weak scalars, none), conversions. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "reference.h"
#include "testfuncs.h"

static void test_sizes_and_names(void **state)
{
    (void)state;
    static const int sizes[] = {1, 1, 2, 4, 8, 1, 2, 4, 8, 4, 8, 8, 16};
    static const char *const names[] = {"bool", "int8", "int16", "int32", "int64", "uint8",
                                        "uint16", "uint32", "uint64", "float32", "float64",
                                        "complex64", "complex128"};
    for (int t = 0; t < UFN_NUM_DTYPES; t++) {
        assert_int_equal(ufn_dtype_size((ufn_dtype)t), sizes[t]);
        assert_string_equal(ufn_dtype_name((ufn_dtype)t), names[t]);
    }
    assert_int_equal(ufn_dtype_size((ufn_dtype)-1), -1);
    assert_int_equal(ufn_dtype_size(UFN_NUM_DTYPES), -1);
    assert_null(ufn_dtype_name((ufn_dtype)99));
    assert_int_equal(ufn_dtype_align(UFN_COMPLEX64), 4);
    assert_int_equal(ufn_dtype_align(UFN_COMPLEX128), 8);
}

static void test_casting_tables_match_numpy(void **state)
{
    (void)state;
    for (int a = 0; a < UFN_NUM_DTYPES; a++)
        for (int b = 0; b < UFN_NUM_DTYPES; b++) {
            if (ufn_can_cast_safe((ufn_dtype)a, (ufn_dtype)b) != ref_safe[a][b])
                fail_msg("safe %s -> %s", ufn_dtype_name((ufn_dtype)a), ufn_dtype_name((ufn_dtype)b));
            if (ufn_can_cast_same_kind((ufn_dtype)a, (ufn_dtype)b) != ref_same_kind[a][b])
                fail_msg("same_kind %s -> %s", ufn_dtype_name((ufn_dtype)a),
                         ufn_dtype_name((ufn_dtype)b));
        }
}

/* Every pair of input dtypes picks NumPy's loop of add (f32, f64, i64). */
static void test_dispatch_matches_numpy(void **state)
{
    (void)state;
    for (int a = 0; a < UFN_NUM_DTYPES; a++)
        for (int b = 0; b < UFN_NUM_DTYPES; b++) {
            ufn_array x = ufn_host(NULL, (ufn_dtype)a, 1, (int64_t[]){0});
            ufn_array y = ufn_host(NULL, (ufn_dtype)b, 1, (int64_t[]){0});
            const ufn_array *in[] = {&x, &y};
            int got = ufn_choose_loop(&add_func, in);
            int want = ref_add_loop[a][b];
            if (want < 0) {
                assert_int_equal(got, UFN_ERR_DTYPE);
            } else if (got != want) {
                fail_msg("add(%s, %s): loop %d, NumPy picks %d", ufn_dtype_name((ufn_dtype)a),
                         ufn_dtype_name((ufn_dtype)b), got, want);
            }
        }
}

static int chosen(const ufn_func *f, ufn_array a, ufn_array b)
{
    const ufn_array *in[] = {&a, &b};
    return ufn_choose_loop(f, in);
}

static ufn_array arr(ufn_dtype t)
{
    static char buf[64] __attribute__((aligned(16)));
    return ufn_host(buf, t, 1, (int64_t[]){1});
}

static void test_dispatch_exact_then_safe(void **state)
{
    (void)state;
    /* exact */
    assert_int_equal(chosen(&add_func, arr(UFN_FLOAT32), arr(UFN_FLOAT32)), 0);
    assert_int_equal(chosen(&add_func, arr(UFN_INT64), arr(UFN_INT64)), 2);
    /* safe casting, in declaration order, NumPy's direction */
    assert_int_equal(chosen(&add_func, arr(UFN_INT16), arr(UFN_INT8)), 0);      /* f32 holds i16 */
    assert_int_equal(chosen(&add_func, arr(UFN_INT32), arr(UFN_INT32)), 1);     /* i32 -> f64 */
    assert_int_equal(chosen(&add_func, arr(UFN_FLOAT64), arr(UFN_FLOAT32)), 1); /* never f32 */
    assert_int_equal(chosen(&add_func, arr(UFN_UINT64), arr(UFN_UINT64)), 1);
    assert_int_equal(chosen(&add_func, arr(UFN_BOOL), arr(UFN_BOOL)), 0);
    /* a float64 array is not accepted by a float32-only ufunc (Numba casts it down) */
    static const ufn_loop f32only[] = {{.signature = "float32(float32, float32)", .types = T_FFF, .host = {add_f32}}};
    ufn_func f = add_func;
    f.loops = f32only;
    f.nloops = 1;
    assert_int_equal(chosen(&f, arr(UFN_FLOAT64), arr(UFN_FLOAT32)), UFN_ERR_DTYPE);
    assert_int_equal(chosen(&f, arr(UFN_UINT8), arr(UFN_FLOAT32)), 0);
}

static void test_dispatch_weak_scalars(void **state)
{
    (void)state;
    /* A weak float does not pull a float32 array up to float64. */
    assert_int_equal(chosen(&add_func, arr(UFN_FLOAT32), ufn_scalar_float64(2.5)), 0);
    assert_int_equal(chosen(&add_func, ufn_scalar_float64(2.5), arr(UFN_FLOAT32)), 0);
    /* A weak int goes with float32 or int64 arrays. */
    assert_int_equal(chosen(&add_func, arr(UFN_FLOAT32), ufn_scalar_int64(7)), 0);
    assert_int_equal(chosen(&add_func, arr(UFN_INT64), ufn_scalar_int32(7)), 2);
    /* A weak float does not fit an integer loop: int64 array + 2.5 -> float64. */
    assert_int_equal(chosen(&add_func, arr(UFN_INT64), ufn_scalar_float64(2.5)), 1);
    /* int8 array + weak float: float32 holds int8 safely. */
    assert_int_equal(chosen(&add_func, arr(UFN_INT8), ufn_scalar_float32(1)), 0);
    /* weak bool fits anything */
    assert_int_equal(chosen(&add_func, arr(UFN_INT64), ufn_scalar_bool(1)), 2);
    /* a weak complex fits no loop here */
    assert_int_equal(chosen(&add_func, arr(UFN_FLOAT64), ufn_scalar_complex128(1, 2)),
                     UFN_ERR_DTYPE);
    assert_non_null(strstr(ufn_error(), "weak complex128"));
    /* all weak: by their own dtypes */
    assert_int_equal(chosen(&add_func, ufn_scalar_float64(1), ufn_scalar_float64(2)), 1);
    assert_int_equal(chosen(&add_func, ufn_scalar_int64(1), ufn_scalar_int64(2)), 2);
    assert_int_equal(chosen(&add_func, ufn_scalar_int32(1), ufn_scalar_float32(2)), 1);
    assert_int_equal(chosen(&add_func, ufn_scalar_float32(1), ufn_scalar_float32(2)), 0);
}

static void test_dispatch_weak_int_out_of_bounds(void **state)
{
    (void)state;
    static const ufn_dtype T_BBB[] = {UFN_UINT8, UFN_UINT8, UFN_UINT8};
    static const ufn_loop u8[] = {{.signature = "uint8(uint8, uint8)", .types = T_BBB, .host = {add_f32}}};
    ufn_func f = add_func;
    f.loops = u8;
    f.nloops = 1;
    assert_int_equal(chosen(&f, arr(UFN_UINT8), ufn_scalar_int64(255)), 0);
    assert_int_equal(chosen(&f, arr(UFN_UINT8), ufn_scalar_int64(300)), UFN_ERR_OVERFLOW);
    assert_non_null(strstr(ufn_error(), "Python integer 300 out of bounds for uint8"));
    assert_int_equal(chosen(&f, arr(UFN_UINT8), ufn_scalar_int32(-1)), UFN_ERR_OVERFLOW);
    assert_non_null(strstr(ufn_error(), "-1 out of bounds"));
    assert_int_equal(chosen(&add_func, arr(UFN_INT64), ufn_scalar_uint64(UINT64_MAX)),
                     UFN_ERR_OVERFLOW);
    assert_int_equal(chosen(&add_func, arr(UFN_INT64), ufn_scalar_int64(INT64_MIN)), 2);
}

static void test_dispatch_none_lists_signatures(void **state)
{
    (void)state;
    assert_int_equal(chosen(&atan2_func, arr(UFN_COMPLEX64), arr(UFN_FLOAT32)), UFN_ERR_DTYPE);
    assert_string_equal(ufn_error(),
                        "no signature matches the input types (complex64, float32); the signatures "
                        "are: float32(float32, float32), float64(float64, float64)");
    /* and through ufn_call, with the ufunc's name */
    float c[4] = {0}, y[2] = {0}, out[2] = {7, 7};
    ufn_array a = ufn_host(c, UFN_COMPLEX64, 1, (int64_t[]){2});
    ufn_array b = ufn_host(y, UFN_FLOAT32, 1, (int64_t[]){2});
    ufn_array o = ufn_host(out, UFN_FLOAT32, 1, (int64_t[]){2});
    assert_int_equal(call2(&atan2_func, &a, &b, &o), UFN_ERR_DTYPE);
    assert_non_null(strstr(ufn_error(), "gpu_arctan2: no signature matches"));
    assert_true(out[0] == 7 && out[1] == 7);
}

/* ---- conversions ------------------------------------------------------------------------- */

static void test_convert_float_to_int_saturates(void **state)
{
    (void)state;
    double src[] = {1.9, -1.9, 300.0, -300.0, NAN, INFINITY, -INFINITY, 127.0, -128.0, 1e300};
    int8_t i8[10];
    ufn_convert(i8, UFN_INT8, 1, src, UFN_FLOAT64, 8, 10);
    int8_t want8[] = {1, -1, 127, -128, 0, 127, -128, 127, -128, 127};
    assert_memory_equal(i8, want8, sizeof want8);
    uint16_t u16[10];
    ufn_convert(u16, UFN_UINT16, 2, src, UFN_FLOAT64, 8, 10);
    uint16_t want16[] = {1, 0, 300, 0, 0, 65535, 0, 127, 0, 65535};
    assert_memory_equal(u16, want16, sizeof want16);
    int64_t i64[4];
    double big[] = {9.3e18, -9.3e18, 9223372036854775807.0, -9223372036854775808.0};
    ufn_convert(i64, UFN_INT64, 8, big, UFN_FLOAT64, 8, 4);
    assert_true(i64[0] == INT64_MAX && i64[1] == INT64_MIN && i64[2] == INT64_MAX &&
                i64[3] == INT64_MIN);
    uint64_t u64[3];
    double ub[] = {1.8e19, 2e19, -0.5};
    ufn_convert(u64, UFN_UINT64, 8, ub, UFN_FLOAT64, 8, 3);
    assert_true(u64[0] == 18000000000000000000ull && u64[1] == UINT64_MAX && u64[2] == 0);
    float f[] = {2.5f, NAN};
    int32_t i32[2];
    ufn_convert(i32, UFN_INT32, 4, f, UFN_FLOAT32, 4, 2);
    assert_true(i32[0] == 2 && i32[1] == 0);
}

static void test_convert_int_narrowing_wraps(void **state)
{
    (void)state;
    int64_t src[] = {256 + 5, -1, 40000, INT64_MIN};
    uint8_t u8[4];
    ufn_convert(u8, UFN_UINT8, 1, src, UFN_INT64, 8, 4);
    assert_true(u8[0] == 5 && u8[1] == 255 && u8[2] == (uint8_t)40000 && u8[3] == 0);
    int16_t i16[4];
    ufn_convert(i16, UFN_INT16, 2, src, UFN_INT64, 8, 4);
    assert_true(i16[0] == 261 && i16[1] == -1 && i16[2] == (int16_t)(40000 - 65536) && i16[3] == 0);
    uint64_t big[] = {UINT64_MAX};
    int32_t i32;
    ufn_convert(&i32, UFN_INT32, 4, big, UFN_UINT64, 8, 1);
    assert_int_equal(i32, -1);
    int64_t back;
    ufn_convert(&back, UFN_INT64, 8, big, UFN_UINT64, 8, 1);
    assert_true(back == -1);
    /* int64 to double rounds, exact where representable */
    int64_t v = (1ll << 53) + 1;
    double d;
    ufn_convert(&d, UFN_FLOAT64, 8, &v, UFN_INT64, 8, 1);
    assert_true(d == 9007199254740992.0);
}

static void test_convert_bool_and_complex(void **state)
{
    (void)state;
    double src[] = {0.0, -0.0, 0.5, NAN, -3};
    uint8_t b[5];
    ufn_convert(b, UFN_BOOL, 1, src, UFN_FLOAT64, 8, 5);
    uint8_t want[] = {0, 0, 1, 1, 1};
    assert_memory_equal(b, want, 5);
    uint8_t raw[] = {0, 2, 255};       /* odd bool bytes read as true */
    int32_t i[3];
    ufn_convert(i, UFN_INT32, 4, raw, UFN_BOOL, 1, 3);
    assert_true(i[0] == 0 && i[1] == 1 && i[2] == 1);
    double c[] = {1.5, 2.5, 0.0, 3.0, 0.0, 0.0};   /* 1.5+2.5i, 0+3i, 0 */
    float re[3];
    ufn_convert(re, UFN_FLOAT32, 4, c, UFN_COMPLEX128, 16, 3);
    assert_true(re[0] == 1.5f && re[1] == 0.0f && re[2] == 0.0f);
    uint8_t cb[3];
    ufn_convert(cb, UFN_BOOL, 1, c, UFN_COMPLEX128, 16, 3);
    assert_true(cb[0] == 1 && cb[1] == 1 && cb[2] == 0);
    int16_t ci[3];
    ufn_convert(ci, UFN_INT16, 2, c, UFN_COMPLEX128, 16, 3);
    assert_true(ci[0] == 1 && ci[1] == 0 && ci[2] == 0);
    float r[] = {4.0f};
    double z[2];
    ufn_convert(z, UFN_COMPLEX128, 16, r, UFN_FLOAT32, 4, 1);
    assert_true(z[0] == 4.0 && z[1] == 0.0);
    float zc[2];
    ufn_convert(zc, UFN_COMPLEX64, 8, c, UFN_COMPLEX128, 16, 1);
    assert_true(zc[0] == 1.5f && zc[1] == 2.5f);
}

static void test_convert_strided_and_many(void **state)
{
    (void)state;
    enum { N = 1000 };
    static int32_t src[2 * N];
    static double dst[N];
    for (int i = 0; i < 2 * N; i++)
        src[i] = i;
    /* every other element, written backwards */
    ufn_convert(dst + N - 1, UFN_FLOAT64, -8, src, UFN_INT32, 8, N);
    for (int i = 0; i < N; i++)
        assert_true(dst[N - 1 - i] == 2.0 * i);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sizes_and_names),
        cmocka_unit_test(test_casting_tables_match_numpy),
        cmocka_unit_test(test_dispatch_matches_numpy),
        cmocka_unit_test(test_dispatch_exact_then_safe),
        cmocka_unit_test(test_dispatch_weak_scalars),
        cmocka_unit_test(test_dispatch_weak_int_out_of_bounds),
        cmocka_unit_test(test_dispatch_none_lists_signatures),
        cmocka_unit_test(test_convert_float_to_int_saturates),
        cmocka_unit_test(test_convert_int_narrowing_wraps),
        cmocka_unit_test(test_convert_bool_and_complex),
        cmocka_unit_test(test_convert_strided_and_many),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
