/* test_reduce.c - reduce.c and methods.c with testfuncs.h's add: the thread
 * count never changes a bit; the start (identity, initial, first element,
 * NumPy's +0.0 for an add with identity 0); pairwise against a plain
 * transcription of NumPy's pairwise_sum; accumulate and outer; device
 * arrays of the host backend; the refusals. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "testfuncs.h"

/* add as NumPy's add (sum = true, identity 0), and as a plain ufunc */
static ufn_func sum_func(void)
{
    ufn_func f = add_func;
    f.sum = true;
    f.identity = UFN_IDENTITY_ZERO;
    return f;
}

static float *random_f32(size_t n, unsigned seed)
{
    float *x = malloc(n * sizeof *x);
    srand(seed);
    for (size_t i = 0; i < n; i++)
        x[i] = (float)(rand() % 20001 - 10000) / 7.0f;
    return x;
}

/* NumPy's pairwise_sum, written out again (loops_utils.h's shape). */
static float numpy_pairwise(const float *a, long n)
{
    if (n < 8) {
        float res = 0.f;
        for (long i = 0; i < n; i++)
            res += a[i];
        return res;
    }
    if (n <= 128) {
        float r[8];
        for (int k = 0; k < 8; k++)
            r[k] = a[k];
        long i;
        for (i = 8; i < n - n % 8; i += 8)
            for (int k = 0; k < 8; k++)
                r[k] += a[i + k];
        float res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        for (; i < n; i++)
            res += a[i];
        return res;
    }
    long n2 = n / 2;
    n2 -= n2 % 8;
    return numpy_pairwise(a, n2) + numpy_pairwise(a + n2, n - n2);
}

static void test_pairwise_is_numpys(void **state)
{
    (void)state;
    ufn_func f = sum_func();
    float *x = random_f32(300000, 1);
    long sizes[] = {1, 7, 8, 9, 127, 128, 129, 1000, 65536, 65537, 300000};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        int64_t shape[1] = {sizes[k]};
        ufn_array a = ufn_host(x, UFN_FLOAT32, 1, shape), r = {0};
        assert_int_equal(ufn_reduce(&f, &a, NULL, &r), 0);
        float want = 0.f + numpy_pairwise(x, sizes[k]);
        assert_memory_equal(r.data, &want, sizeof want);
        ufn_free(&r);
    }
    free(x);
}

static void test_threads_never_change_bits(void **state)
{
    (void)state;
    ufn_func sum = sum_func(), plain = add_func;
    const ufn_func *fs[2] = {&sum, &plain};
    float *x = random_f32(1 << 20, 2);
    int64_t flat[1] = {1 << 20}, grid[2] = {1024, 1024};
    ufn_reduce_opts axis1 = {.naxes = 1, .axes = {1}};
    for (int fi = 0; fi < 2; fi++) {
        for (int c = 0; c < 3; c++) {
            ufn_array a = c == 0 ? ufn_host(x, UFN_FLOAT32, 1, flat) : ufn_host(x, UFN_FLOAT32, 2, grid);
            const ufn_reduce_opts *o = c == 2 ? &axis1 : NULL;
            float first[1024];
            int threads[] = {1, 2, 3, 7};
            for (int t = 0; t < 4; t++) {
                ufn_host_set_threads(threads[t]);
                ufn_array r = {0};
                assert_int_equal(ufn_reduce(fs[fi], &a, o, &r), 0);
                size_t bytes = (size_t)ufn_size(&r) * sizeof(float);
                if (t == 0)
                    memcpy(first, r.data, bytes);
                else
                    assert_memory_equal(first, r.data, bytes);
                ufn_free(&r);
            }
        }
    }
    ufn_host_set_threads(0);
    free(x);
}

static void test_start_values(void **state)
{
    (void)state;
    ufn_func sum = sum_func(), plain = add_func;
    double negzero = -0.0, three[3] = {1, 2, 3};
    int64_t one[1] = {1}, n3[1] = {3};
    ufn_array z = ufn_host(&negzero, UFN_FLOAT64, 1, one), r = {0};
    /* NumPy's add starts from its identity 0: 0.0 + -0.0 is +0.0 */
    assert_int_equal(ufn_reduce(&sum, &z, NULL, &r), 0);
    assert_false(signbit(*(double *)r.data));
    ufn_free(&r);
    /* without an identity the first element is the start */
    assert_int_equal(ufn_reduce(&plain, &z, NULL, &r), 0);
    assert_true(signbit(*(double *)r.data));
    ufn_free(&r);
    double init = 10;
    ufn_reduce_opts o = {.initial = &init};
    ufn_array a = ufn_host(three, UFN_FLOAT64, 1, n3);
    assert_int_equal(ufn_reduce(&plain, &a, &o, &r), 0);
    assert_true(*(double *)r.data == 16);
    ufn_free(&r);
    /* an empty reduction gives the identity, or fails without one */
    int64_t none[1] = {0};
    ufn_array e = ufn_host(three, UFN_FLOAT64, 1, none);
    assert_int_equal(ufn_reduce(&sum, &e, NULL, &r), 0);
    assert_true(*(double *)r.data == 0);
    ufn_free(&r);
    assert_int_equal(ufn_reduce(&plain, &e, NULL, &r), UFN_ERR_SHAPE);
    assert_non_null(strstr(ufn_error(), "zero-size array to reduction operation add which has no identity"));
}

static void test_accumulate_and_outer(void **state)
{
    (void)state;
    int64_t m[2][3] = {{1, 2, 3}, {4, 5, 6}}, v[2] = {10, 20};
    int64_t shape[2] = {2, 3}, vshape[1] = {2};
    ufn_array a = ufn_host(m, UFN_INT64, 2, shape), b = ufn_host(v, UFN_INT64, 1, vshape), r = {0};
    assert_int_equal(ufn_accumulate(&add_func, &a, -1, &r), 0);
    int64_t want[6] = {1, 3, 6, 4, 9, 15};
    assert_memory_equal(r.data, want, sizeof want);
    ufn_free(&r);
    assert_int_equal(ufn_accumulate(&add_func, &a, 0, &r), 0);
    int64_t want0[6] = {1, 2, 3, 5, 7, 9};
    assert_memory_equal(r.data, want0, sizeof want0);
    ufn_free(&r);
    assert_int_equal(ufn_outer(&add_func, &a, &b, &r), 0);
    assert_int_equal(r.ndim, 3);
    assert_int_equal(r.shape[2], 2);
    int64_t *o = r.data;
    assert_true(o[0] == 11 && o[1] == 21 && o[10] == 16 && o[11] == 26);
    ufn_free(&r);
    assert_int_equal(ufn_accumulate(&add_func, &a, 2, &r), UFN_ERR_INVALID);
    assert_non_null(strstr(ufn_error(), "axis 2 is out of bounds for array of dimension 2"));
}

static void test_device_arrays_stay(void **state)
{
    (void)state;
    assert_int_equal(ufn_init("host"), 0);
    double x[4] = {1, 2, 3, 4};
    int64_t shape[1] = {4};
    ufn_array h = ufn_host(x, UFN_FLOAT64, 1, shape), d = {0}, r = {0}, acc = {0};
    assert_int_equal(ufn_to_device(&h, &d), 0);
    assert_int_equal(ufn_reduce(&add_func, &d, NULL, &r), 0);
    assert_int_equal(r.memory, d.memory);   /* the host backend's device memory is host memory */
    assert_true(*(double *)r.data == 10);
    assert_int_equal(ufn_accumulate(&add_func, &d, 0, &acc), 0);
    assert_int_equal(acc.memory, d.memory);
    assert_true(((double *)acc.data)[3] == 10);
    ufn_free(&r);
    ufn_free(&acc);
    ufn_free(&d);
}

static void test_refusals(void **state)
{
    (void)state;
    float x[6] = {0};
    int32_t ix[6] = {0};
    int64_t shape[2] = {2, 3}, bad[1] = {4};
    ufn_array a = ufn_host(x, UFN_FLOAT32, 2, shape), ia = ufn_host(ix, UFN_INT32, 2, shape);
    ufn_array r = {0};
    assert_int_equal(ufn_reduce(&add_func, &ia, NULL, &r), UFN_ERR_DTYPE);
    assert_non_null(strstr(ufn_error(), "add.reduce: add has no signature int32(int32, int32)"));
    assert_int_equal(ufn_reduce(&muladd_func, &a, NULL, &r), UFN_ERR_INVALID);
    assert_non_null(strstr(ufn_error(), "is not a binary ufunc"));
    ufn_array wrong = ufn_host(x, UFN_FLOAT32, 1, bad);
    assert_int_equal(ufn_reduce(&add_func, &a, NULL, &wrong), UFN_ERR_OUTPUT);
    ufn_reduce_opts o = {.naxes = 2, .axes = {0, 1}};
    assert_int_equal(ufn_reduce(&add_func, &a, &o, &r), UFN_ERR_INVALID);
    assert_non_null(strstr(ufn_error(), "is not reorderable"));
    float init = 0;
    ufn_reduce_opts w = {.initial = &init, .where = &a};
    assert_int_equal(ufn_reduce(&add_func, &a, &w, &r), UFN_ERR_INVALID);
    assert_non_null(strstr(ufn_error(), "where= must be a bool host array"));
    assert_int_equal(ufn_registry_count(), 0);
}

/* reduce_device.c's rules: which device reductions its kernel takes. */
static void test_device_kernel_takes(void **state)
{
    (void)state;
    ufn_func f = sum_func();
    ufn_loop lp = add_loops[0];
    lp.kernel_reduce = "add__f32__reduce";
    ufn_backend_ops be = {.name = "fake"};
    be.launch_kernel = ufn_backend_host.launch_kernel;
    float x[24] = {0};
    int64_t shape[3] = {2, 3, 4}, strides[3] = {12, 4, 2};
    ufn_array a = ufn_host(x, UFN_FLOAT32, 3, shape);
    ufn_array gaps = ufn_host_strided(x, UFN_FLOAT32, 3, shape, strides);
    bool last[3] = {false, false, true}, two[3] = {false, true, true}, all[3] = {true, true, true};
    bool first[3] = {true, false, false};
    assert_null(ufn_reduce_device_refusal(&f, &lp, &be, &a, last, false, 4, 6));
    assert_null(ufn_reduce_device_refusal(&f, &lp, &be, &a, two, false, 12, 2));
    assert_null(ufn_reduce_device_refusal(&f, &lp, &be, &a, all, false, 24, 1));
    assert_string_equal(ufn_reduce_device_refusal(&f, &lp, &be, &a, first, false, 2, 12),
                        "a reduced axis before a kept one");
    assert_string_equal(ufn_reduce_device_refusal(&f, &lp, &be, &gaps, last, false, 4, 6),
                        "a non-contiguous array");
    assert_string_equal(ufn_reduce_device_refusal(&f, &lp, &be, &a, last, true, 4, 6), "where=");
    assert_string_equal(ufn_reduce_device_refusal(&f, &lp, &be, &a, last, false, 0, 6),
                        "an empty reduction");
    f.identity = UFN_IDENTITY_NONE;
    assert_string_equal(ufn_reduce_device_refusal(&f, &lp, &be, &a, last, false, 4, 6),
                        "identity=None, so NumPy's order");
    f.identity = UFN_IDENTITY_REORDERABLE;
    lp.kernel_reduce = NULL;
    assert_string_equal(ufn_reduce_device_refusal(&f, &lp, &be, &a, last, false, 4, 6),
                        "the module has no reduce kernel");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pairwise_is_numpys),
        cmocka_unit_test(test_threads_never_change_bits),
        cmocka_unit_test(test_start_values),
        cmocka_unit_test(test_accumulate_and_outer),
        cmocka_unit_test(test_device_arrays_stay),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_device_kernel_takes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
