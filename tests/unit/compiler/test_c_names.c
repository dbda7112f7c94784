/* test_c_names.c - which DSL names the generated C cannot use as they are
 * (compiler/check.c: is_reserved_c_name). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "ufnc.h"

static void test_keywords_and_libc(void **state)
{
    (void)state;
    assert_true(is_reserved_c_name("double"));
    assert_true(is_reserved_c_name("exp"));
    assert_true(is_reserved_c_name("expf"));
    assert_true(is_reserved_c_name("threadIdx"));
    assert_true(is_reserved_c_name("malloc"));
}

/* A ufunc named cexp or csqrt clashed with <complex.h> in the host stub and
 * in any program that includes both headers. */
static void test_complex_h(void **state)
{
    (void)state;
    const char *names[] = {"cexp", "csqrt", "cabs", "carg", "conj", "creal", "cimag", "cpow",
                           "cexpf", "csqrtl", "conjf", "cabsl", "I"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (!is_reserved_c_name(names[i]))
            fail_msg("'%s' is a <complex.h> name but is not reserved", names[i]);
    }
}

/* The long double spellings of <math.h>: expl, sqrtl, atan2l. */
static void test_long_double_math(void **state)
{
    (void)state;
    assert_true(is_reserved_c_name("expl"));
    assert_true(is_reserved_c_name("sqrtl"));
    assert_true(is_reserved_c_name("atan2l"));
}

/* Ordinary ufunc names stay as they are, including ones that merely end in
 * f or l or start like a complex function. */
static void test_ordinary_names(void **state)
{
    (void)state;
    const char *names[] = {"polar", "gpu_polar", "cexp_z", "half", "total", "model", "cell",
                           "conjugate", "l2_norm", "add_ufunc", "lerp", "f", "l"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (is_reserved_c_name(names[i]))
            fail_msg("'%s' should not be reserved", names[i]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_keywords_and_libc),
        cmocka_unit_test(test_complex_h),
        cmocka_unit_test(test_long_double_math),
        cmocka_unit_test(test_ordinary_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
