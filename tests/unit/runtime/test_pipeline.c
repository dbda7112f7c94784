/* test_pipeline.c - deferred pipelines on the host backend (pipeline.c):
 * chunks and tasks over a ragged loop, a temporary never written, in-place
 * steps, and each reason a call cannot join - refused at the call, then at
 * the run, with nothing run and nothing leaked. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "testfuncs.h"

#define SENTINEL -777.0
enum { N = 3 * 4096 + 5 };      /* three whole chunks and a ragged one */

typedef struct data {
    double a[N], b[N], t[2 * N], o[N];
    ufn_array A, B, T, O;
} data;

static data *setup(void)
{
    data *d = malloc(sizeof *d);
    assert_non_null(d);
    int64_t n = N, n2 = 2 * N;
    for (int i = 0; i < N; i++) {
        d->a[i] = i;
        d->b[i] = 0.5 * i;
        d->o[i] = SENTINEL;
    }
    for (int i = 0; i < 2 * N; i++)
        d->t[i] = SENTINEL;
    d->A = ufn_host(d->a, UFN_FLOAT64, 1, &n);
    d->B = ufn_host(d->b, UFN_FLOAT64, 1, &n);
    d->T = ufn_host(d->t, UFN_FLOAT64, 1, &n);      /* the first half of t */
    d->O = ufn_host(d->o, UFN_FLOAT64, 1, &n);
    (void)n2;
    return d;
}

static bool all(const double *p, int n, double v)
{
    for (int i = 0; i < n; i++)
        if (p[i] != v)
            return false;
    return true;
}

static void expect(int st, int status, const char *text)
{
    if (st != status)
        fail_msg("status %s, expected %s: %s", ufn_status_name(st), ufn_status_name(status), ufn_error());
    if (!strstr(ufn_error(), text))
        fail_msg("message \"%s\" lacks \"%s\"", ufn_error(), text);
}

static void test_chunks_and_temporary(void **state)
{
    (void)state;
    for (int threads = 1; threads <= 3; threads += 2) {
        ufn_host_set_threads(threads);
        data *d = setup();
        size_t live = ufn_registry_count();
        assert_int_equal(ufn_pipeline_begin(), UFN_OK);
        assert_int_equal(ufn_pipeline_temp(&d->T), UFN_OK);
        assert_int_equal(call2(&add_func, &d->A, &d->B, &d->T), UFN_OK);   /* t = a + b */
        assert_int_equal(call2(&add_func, &d->T, &d->A, &d->O), UFN_OK);   /* o = t + a */
        assert_int_equal(call2(&add_func, &d->O, &d->O, &d->O), UFN_OK);   /* o += o, in place */
        assert_true(all(d->o, N, SENTINEL));                                /* recorded, not run */
        assert_int_equal(ufn_pipeline_run(), UFN_OK);
        for (int i = 0; i < N; i++)
            assert_true(d->o[i] == 2 * (2.5 * i));
        assert_true(all(d->t, 2 * N, SENTINEL));                            /* the scratch stood in */
        assert_int_equal(ufn_registry_count(), live);
        free(d);
    }
    ufn_host_set_threads(0);
}

static void test_scalar_kept_by_value(void **state)
{
    (void)state;
    data *d = setup();
    ufn_array two = ufn_scalar_float64(2.0);
    assert_int_equal(ufn_pipeline_begin(), UFN_OK);
    assert_int_equal(call2(&add_func, &d->A, &two, &d->O), UFN_OK);
    two.value.f64 = 100;       /* the call took the value when it was made */
    assert_int_equal(ufn_pipeline_run(), UFN_OK);
    for (int i = 0; i < N; i++)
        assert_true(d->o[i] == i + 2.0);
    free(d);
}

static void test_cannot_join(void **state)
{
    (void)state;
    data *d = setup();
    int64_t n = N, half = N / 2, stride2 = 2;
    /* a strided view */
    ufn_array S = ufn_host_strided(d->t, UFN_FLOAT64, 1, &half, &stride2), H = ufn_host(d->b, UFN_FLOAT64, 1, &half);
    assert_int_equal(ufn_pipeline_begin(), UFN_OK);
    expect(call2(&add_func, &S, &H, &H), UFN_ERR_INVALID, "operand 0 is strided");
    expect(ufn_pipeline_run(), UFN_ERR_INVALID, "nothing ran");
    /* a broadcast element an earlier call writes */
    ufn_array o0 = ufn_host(d->o, UFN_FLOAT64, 0, NULL);
    assert_int_equal(ufn_pipeline_begin(), UFN_OK);
    assert_int_equal(call2(&add_func, &d->A, &d->B, &d->O), UFN_OK);
    expect(call2(&add_func, &d->A, &o0, &d->B), UFN_ERR_INVALID, "broadcast element that call 1");
    ufn_pipeline_abort();
    /* part of a temporary */
    ufn_array T2 = ufn_host(d->t, UFN_FLOAT64, 1, (int64_t[]){2 * N});
    assert_int_equal(ufn_pipeline_begin(), UFN_OK);
    assert_int_equal(ufn_pipeline_temp(&T2), UFN_OK);
    assert_int_equal(call2(&add_func, &d->A, &d->B, &d->T), UFN_OK);
    expect(ufn_pipeline_run(), UFN_ERR_INVALID, "uses part of a temporary");
    /* another backend's memory than the first call's is caught by the
     * memory check; a temporary must be contiguous */
    assert_int_equal(ufn_pipeline_begin(), UFN_OK);
    expect(ufn_pipeline_temp(&S), UFN_ERR_INVALID, "whole C-contiguous array");
    expect(ufn_pipeline_run(), UFN_ERR_INVALID, "nothing ran");
    assert_true(all(d->o, N, SENTINEL) && all(d->t, 2 * N, SENTINEL));
    (void)n;
    free(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_chunks_and_temporary),
        cmocka_unit_test(test_scalar_kept_by_value),
        cmocka_unit_test(test_cannot_join),
    };
    ufn_init("host");
    return cmocka_run_group_tests(tests, NULL, NULL);
}
