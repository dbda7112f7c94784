/* test_archs.c - driver.c's architecture lists: the spellings --arch
 * accepts, all-major, and the -gencode arguments nvcc gets (one PTX per
 * nvcc front end, the newest from its own PTX, which is embedded). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ufnc.h"

/* the -gencode values joined by spaces */
static const char *gencode_text(const int *archs, int n)
{
    int count = 0;
    const char **args = gencode_args(archs, n, &count);
    Buf b = {0};
    for (int i = 0; i < count; i += 2) {
        assert_string_equal(args[i], "-gencode");
        buf_printf(&b, "%s%s", i ? " " : "", args[i + 1]);
    }
    const char *text = arena_printf("%s", b.data ? b.data : "");
    free(b.data);
    return text;
}

static void test_default_list_three_front_end_runs(void **state)
{
    (void)state;
    const int all[] = {75, 80, 86, 87, 88, 89, 90, 100, 110, 103, 120, 121};
    assert_string_equal(gencode_text(all, 12), "arch=compute_75,code=[sm_75,sm_80,sm_86,sm_87,sm_88,sm_89,sm_90] "
                                               "arch=compute_100,code=[sm_100,sm_110,sm_103,sm_120] "
                                               "arch=compute_121,code=[sm_121,compute_121]");
}

static void test_one_per_front_end_keeps_own_ptx(void **state)
{
    (void)state;
    const int pair[] = {80, 86};
    assert_string_equal(gencode_text(pair, 2), "arch=compute_80,code=sm_80 arch=compute_86,code=[sm_86,compute_86]");
    const int one[] = {90};
    assert_string_equal(gencode_text(one, 1), "arch=compute_90,code=[sm_90,compute_90]");
    const int mixed[] = {120, 90, 80, 100};
    assert_string_equal(gencode_text(mixed, 4),
                        "arch=compute_120,code=[sm_120,compute_120] arch=compute_80,code=[sm_90,sm_80] "
                        "arch=compute_100,code=sm_100");
}

static void test_parse_spellings(void **state)
{
    (void)state;
    int archs[MAX_ARCHS];
    const char *err = NULL;
    assert_int_equal(parse_archs("sm_80,compute_90,100-real,120", archs, &err), 4);
    assert_int_equal(archs[0], 80);
    assert_int_equal(archs[1], 90);
    assert_int_equal(archs[2], 100);
    assert_int_equal(archs[3], 120);
    assert_int_equal(parse_archs("sm_70", archs, &err), 0);
    assert_non_null(strstr(err, "older than sm_75"));
    assert_int_equal(parse_archs("volta", archs, &err), 0);
    assert_non_null(strstr(err, "not a GPU architecture"));
}

static void test_major(void **state)
{
    (void)state;
    int archs[] = {75, 80, 86, 87, 88, 89, 90, 100, 110, 103, 120, 121};
    int n = major_archs(archs, 12);
    assert_int_equal(n, 6);
    assert_string_equal(gencode_text(archs, n), "arch=compute_75,code=[sm_75,sm_80,sm_90] "
                                                "arch=compute_100,code=[sm_100,sm_110] "
                                                "arch=compute_120,code=[sm_120,compute_120]");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_default_list_three_front_end_runs),
        cmocka_unit_test(test_one_per_front_end_keeps_own_ptx),
        cmocka_unit_test(test_parse_spellings),
        cmocka_unit_test(test_major),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
