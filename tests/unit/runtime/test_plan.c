/* test_plan.c - dimension merging (plan.c): most calls become one
 * contiguous dimension; Fortran-ordered calls are reversed; broadcast
 * operands merge with anything; what cannot merge keeps its order. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "testfuncs.h"

/* A ufunc plan of nargs operands over `shape`, strides given per operand. */
static ufn_plan plan(int nargs, int ndim, const int64_t *shape, const int64_t (*strides)[4])
{
    ufn_plan p;
    memset(&p, 0, sizeof p);
    p.func = &add_func;
    p.nargs = nargs;
    p.ndim = ndim;
    for (int d = 0; d < ndim; d++)
        p.shape[d] = shape[d];
    for (int k = 0; k < nargs; k++) {
        p.elsize[k] = 8;
        for (int d = 0; d < ndim; d++)
            p.strides[k][d] = strides[k][d];
    }
    ufn_plan_simplify(&p);
    return p;
}

static void test_c_order_merges(void **state)
{
    (void)state;
    ufn_plan p = plan(3, 3, (int64_t[]){2, 3, 4},
                      (const int64_t[][4]){{12, 4, 1}, {12, 4, 1}, {12, 4, 1}});
    assert_true(p.ndim == 1 && p.shape[0] == 24 && p.n == 24 && p.contiguous);
}

static void test_fortran_order_reverses(void **state)
{
    (void)state;
    ufn_plan p = plan(3, 3, (int64_t[]){2, 3, 4},
                      (const int64_t[][4]){{1, 2, 6}, {1, 2, 6}, {1, 2, 6}});
    assert_true(p.ndim == 1 && p.shape[0] == 24 && p.contiguous);
    /* F inputs into a C output: the output's order wins nothing, no reordering */
    p = plan(2, 2, (int64_t[]){3, 4}, (const int64_t[][4]){{1, 3}, {4, 1}});
    assert_true(p.ndim == 2 && !p.contiguous);
}

static void test_size_one_dims_and_broadcast(void **state)
{
    (void)state;
    /* (2,1,3) + scalar, into (2,1,3) */
    ufn_plan p = plan(3, 3, (int64_t[]){2, 1, 3},
                      (const int64_t[][4]){{3, 99, 1}, {0, 0, 0}, {3, 3, 1}});
    assert_true(p.ndim == 1 && p.shape[0] == 6 && !p.contiguous);
    assert_true(p.strides[0][0] == 1 && p.strides[1][0] == 0 && p.strides[2][0] == 1);
    /* a row broadcast down a matrix does not merge the rows */
    p = plan(3, 2, (int64_t[]){4, 5}, (const int64_t[][4]){{5, 1}, {0, 1}, {5, 1}});
    assert_true(p.ndim == 2 && p.shape[0] == 4 && p.shape[1] == 5);
    /* all size 1: one iteration */
    p = plan(3, 2, (int64_t[]){1, 1}, (const int64_t[][4]){{7, 7}, {0, 0}, {1, 1}});
    assert_true(p.ndim == 0 && p.n == 1 && p.contiguous);
    /* no elements */
    p = plan(3, 2, (int64_t[]){3, 0}, (const int64_t[][4]){{1, 1}, {1, 1}, {1, 1}});
    assert_int_equal(p.n, 0);
}

static void test_transposed_mix_and_reversed(void **state)
{
    (void)state;
    /* a transposed input: the output's C order is kept */
    ufn_plan p = plan(2, 2, (int64_t[]){3, 4}, (const int64_t[][4]){{1, 3}, {4, 1}});
    assert_true(p.ndim == 2 && p.strides[1][1] == 1);
    /* reversed arrays merge with negative strides */
    p = plan(2, 2, (int64_t[]){3, 4}, (const int64_t[][4]){{-4, -1}, {-4, -1}});
    assert_true(p.ndim == 1 && p.shape[0] == 12 && p.strides[0][0] == -1 && !p.contiguous);
    /* an outer dimension with the smaller stride moves inward */
    p = plan(2, 3, (int64_t[]){5, 2, 3}, (const int64_t[][4]){{1, 15, 5}, {1, 15, 5}});
    assert_true(p.ndim == 1 && p.shape[0] == 30 && p.contiguous);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_c_order_merges),
        cmocka_unit_test(test_fortran_order_reverses),
        cmocka_unit_test(test_size_one_dims_and_broadcast),
        cmocka_unit_test(test_transposed_mix_and_reversed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
