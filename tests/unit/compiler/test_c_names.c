/* test_c_names.c - which DSL names the generated C cannot use as they are
 * (compiler/names.c: is_reserved_c_name), checked against the macros the C
 * compiler really defines for the headers involved. */
#include <ctype.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* The identifiers a header set defines as macros, in the C compiler's
 * standard and GNU modes (GNU C predefines linux and unix); NULL without a
 * compiler. */
static char *macros_of(const char *includes)
{
    const char *cc = getenv("CC") && *getenv("CC") ? getenv("CC") : "cc";
    char cmd[1024];
    snprintf(cmd, sizeof cmd,
             "for s in c11 gnu17; do printf '%%b' '%s' | %s -std=$s -Iinclude -dM -E -x c - 2>/dev/null; done", includes, cc);
    FILE *p = popen(cmd, "r");
    if (!p)
        return NULL;
    size_t cap = 1 << 16, len = 0;
    char *all = malloc(cap), line[4096];
    all[0] = '\0';
    while (fgets(line, sizeof line, p)) {
        char name[256];
        if (sscanf(line, "#define %255[A-Za-z0-9_]", name) != 1)
            continue;
        if (len + strlen(name) + 2 > cap)
            all = realloc(all, cap *= 2);
        len += (size_t)sprintf(all + len, "%s\n", name);
    }
    if (pclose(p) != 0 || len == 0) {
        free(all);
        return NULL;
    }
    return all;
}

/* Every macro of the headers that the host stub and the generated header
 * include, and of <complex.h> (a program may include it too), is refused
 * as a public name; and none starts with v_ or a_, the prefixes of the
 * bodies' variables (names.c). */
static void test_header_macros(void **state)
{
    (void)state;
    char *all = macros_of("#include <stddef.h>\\n#include <stdint.h>\\n#include <stdbool.h>\\n"
                          "#include <math.h>\\n#include <string.h>\\n#include <complex.h>\\n"
                          "#include <ufn_abi.h>\\n#include <ufn_math.h>\\n");
    if (!all)
        skip();
    int checked = 0, bad = 0;
    for (char *name = strtok(all, "\n"); name; name = strtok(NULL, "\n")) {
        if (!strncmp(name, "v_", 2) || !strncmp(name, "a_", 2)) {
            print_error("the headers define a macro %s: the prefix of the bodies' variables\n", name);
            bad++;
        }
        if (!is_reserved_c_name(name)) {
            print_error("the headers define a macro '%s', which a kernel could be named\n", name);
            bad++;
        }
        checked++;
    }
    free(all);
    assert_true(checked > 100);
    assert_int_equal(bad, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_keywords_and_libc),
        cmocka_unit_test(test_complex_h),
        cmocka_unit_test(test_long_double_math),
        cmocka_unit_test(test_ordinary_names),
        cmocka_unit_test(test_header_macros),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
