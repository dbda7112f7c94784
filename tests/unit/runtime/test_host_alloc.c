/* test_host_alloc.c - the host memory the runtime allocates for outputs and
 * for the host backend's device arrays: 64-byte aligned, large blocks 2 MiB
 * aligned (so they can be huge pages), and ufn_device_array / outputs that
 * the runtime allocates get it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ufnrt.h"

static void test_alignment(void **state)
{
    (void)state;
    static const size_t sizes[] = {1, 63, 64, 4096, (4u << 20) - 1, 4u << 20, (40u << 20) + 3};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        unsigned char *p = ufn_host_memalign(sizes[i]);
        assert_non_null(p);
        size_t want = sizes[i] >= (4u << 20) ? (2u << 20) : 64;
        assert_int_equal((uintptr_t)p % want, 0);
        memset(p, 0xab, sizes[i]);          /* all of it is ours (ASan checks) */
        assert_int_equal(p[sizes[i] - 1], 0xab);
        free(p);
    }
    assert_null(ufn_host_memalign(SIZE_MAX - 8));
}

static void test_device_arrays_use_it(void **state)
{
    (void)state;
    assert_int_equal(ufn_init("host"), 0);
    ufn_array d = {0};
    int64_t shape[1] = {3 << 20};           /* 12 MiB of float32 */
    assert_int_equal(ufn_device_array(UFN_FLOAT32, 1, shape, &d), 0);
    assert_int_equal((uintptr_t)d.data % (2u << 20), 0);
    ufn_free(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_alignment),
        cmocka_unit_test(test_device_arrays_use_it),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
