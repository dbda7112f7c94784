/* agree.c - ufnc agrees with Numba's CPU target where it once did not.
 * Each table holds inputs and what Numba 0.56 answers for them (run on the
 * CPU: njit(lambda a, b: a < b)(np.uint64(2**63), np.int64(1)) and so on);
 * agree.ufn says what each kernel checks.  Run on host and on sim. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "agree.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

typedef struct { uint64_t a; int64_t b; bool lt, eq; } u64_i64_case;

static void test_uint64_against_int64(void **state)
{
    (void)state;
    static const u64_i64_case c[] = {
        {1ull << 63, 1, false, false},                  /* 2**63 is not negative */
        {UINT64_MAX, -1, false, false},                 /* nor is 2**64 - 1 minus one */
        {0, -1, false, false},
        {5, 7, true, false},
        {7, 7, false, true},
        {(1ull << 53) + 1, 1ll << 53, false, true},     /* in float64, as Numba */
        {1ull << 63, INT64_MIN, false, false},
    };
    enum { N = COUNT(c) };
    uint64_t a[N];
    int64_t b[N];
    bool lt[N], eq[N];
    for (size_t i = 0; i < N; i++) {
        a[i] = c[i].a;
        b[i] = c[i].b;
    }
    assert_int_equal(lt_u64_i64_uint64_int64(N, a, b, lt), 0);
    assert_int_equal(eq_u64_i64_uint64_int64(N, a, b, eq), 0);
    for (size_t i = 0; i < N; i++) {
        if (lt[i] != c[i].lt || eq[i] != c[i].eq)
            fail_msg("case %zu: %llu < %lld is %d, == is %d; Numba says %d, %d", i,
                     (unsigned long long)a[i], (long long)b[i], lt[i], eq[i], c[i].lt, c[i].eq);
    }
}

static void test_int8_against_uint64(void **state)
{
    (void)state;
    int8_t a[] = {-1, 5, -128};
    uint64_t b[] = {1ull << 63, 4, UINT64_MAX};
    bool want[] = {false, true, false}, gt[3];
    assert_int_equal(gt_i8_u64_int8_uint64(3, a, b, gt), 0);
    for (int i = 0; i < 3; i++)
        if (gt[i] != want[i])
            fail_msg("case %d: %d > %llu is %d, Numba says %d", i, a[i], (unsigned long long)b[i], gt[i], want[i]);
}

static void test_uint64_chain(void **state)
{
    (void)state;
    uint64_t a[] = {1, 1ull << 63, 3};
    uint64_t b[] = {2, 1ull << 63, 3};
    int64_t c[] = {3, -1, 4};
    bool want[] = {true, false, true}, got[3];
    ufn_array A = ufn_host(a, UFN_UINT64, 1, (int64_t[]){3});
    ufn_array B = ufn_host(b, UFN_UINT64, 1, (int64_t[]){3});
    ufn_array C = ufn_host(c, UFN_INT64, 1, (int64_t[]){3});
    ufn_array O = ufn_host(got, UFN_BOOL, 1, (int64_t[]){3});
    assert_int_equal(chain_u64(&A, &B, &C, &O), 0);
    for (int i = 0; i < 3; i++)
        if (got[i] != want[i])
            fail_msg("case %d: %d, Numba says %d", i, got[i], want[i]);
}

static void test_comparison_sides(void **state)
{
    (void)state;
    double x[] = {1, -1, 1, 0}, y[] = {-1, 1, 1, 0};
    bool want_and[] = {true, true, false, true}, got[4];
    assert_int_equal(and_eq_and_float64(4, x, y, got), 0);
    for (int i = 0; i < 4; i++)
        if (got[i] != want_and[i])
            fail_msg("(%g > 0 and %g > 0) == (... < 0 and ... < 0) is %d, Numba says %d", x[i], y[i], got[i],
                     want_and[i]);
    int64_t a[] = {1, 3, 6, -1}, b[] = {2, 1, 3, 0};
    bool want_eq[] = {true, false, false, true}, want_lt[] = {true, false, false, true};
    bool eq[4], lt[4];
    assert_int_equal(bits_eq_int64(4, a, b, eq), 0);
    assert_int_equal(bits_lt_int64(4, a, b, lt), 0);
    for (int i = 0; i < 4; i++)
        if (eq[i] != want_eq[i] || lt[i] != want_lt[i])
            fail_msg("a = %lld, b = %lld: (a & b) == 0 is %d, (a | b) < (a ^ b) + 1 is %d; Numba says %d, %d",
                     (long long)a[i], (long long)b[i], eq[i], lt[i], want_eq[i], want_lt[i]);
}

static void test_calls_that_vanish(void **state)
{
    (void)state;
    uint64_t a[] = {2, 0, UINT64_MAX}, b[] = {5, 0, 1}, r[3];
    uint64_t want[] = {49, 0, 7 * (UINT64_MAX ^ 1)};
    assert_int_equal(mul_abs_xor_uint64(3, a, b, r), 0);
    for (int i = 0; i < 3; i++)
        if (r[i] != want[i])
            fail_msg("7 * abs(%llu ^ %llu) is %llu, Numba says %llu", (unsigned long long)a[i],
                     (unsigned long long)b[i], (unsigned long long)r[i], (unsigned long long)want[i]);
    double x[] = {1, 0.5}, y[] = {4, 0.25}, c[2], cwant[] = {-9, 0.75};
    assert_int_equal(mul_conj_float64(2, x, y, c), 0);
    for (int i = 0; i < 2; i++)
        if (c[i] != cwant[i])
            fail_msg("3.0 * (%g - %g).conjugate() is %g, Numba says %g", x[i], y[i], c[i], cwant[i]);
}

static void test_unification_and_shifts(void **state)
{
    (void)state;
    int64_t a[] = {5, -5};
    uint64_t u[] = {UINT64_MAX, UINT64_MAX};
    double x[2], want_x[] = {18446744073709551616.0, -5};
    assert_int_equal(unify_i64_u64_int64_uint64(2, a, u, x), 0);
    for (int i = 0; i < 2; i++)
        if (x[i] != want_x[i])
            fail_msg("x = %lld, then maybe x = 2**64 - 1: %.17g, Numba says %.17g", (long long)a[i], x[i],
                     want_x[i]);
    bool c[] = {false, true};
    int64_t three[] = {3, 3};
    double y[2], want_y[] = {9223372036854775808.0, 1.5};
    ufn_array C = ufn_host(c, UFN_BOOL, 1, (int64_t[]){2});
    ufn_array A = ufn_host(three, UFN_INT64, 1, (int64_t[]){2});
    ufn_array U = ufn_host(u, UFN_UINT64, 1, (int64_t[]){2});
    ufn_array Y = ufn_host(y, UFN_FLOAT64, 1, (int64_t[]){2});
    assert_int_equal(choose_i64_u64(&C, &A, &U, &Y), 0);
    for (int i = 0; i < 2; i++)
        if (y[i] != want_y[i])
            fail_msg("(3 if %d else 2**64 - 1) / 2 is %.17g, Numba says %.17g", c[i], y[i], want_y[i]);
    uint64_t v[] = {UINT64_MAX, 4};
    bool neg[2];
    assert_int_equal(shr_u64_negative_uint64(2, v, neg), 0);
    if (neg[0] || neg[1])
        fail_msg("(u >> 1) < 0 for a uint64 u: %d %d, Numba says 0 0", neg[0], neg[1]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_uint64_against_int64),
        cmocka_unit_test(test_int8_against_uint64),
        cmocka_unit_test(test_uint64_chain),
        cmocka_unit_test(test_comparison_sides),
        cmocka_unit_test(test_calls_that_vanish),
        cmocka_unit_test(test_unification_and_shifts),
    };
    const char *be = getenv("UFN_BACKEND");
    return cmocka_run_group_tests_name(be ? be : "agree", tests, NULL, NULL);
}
