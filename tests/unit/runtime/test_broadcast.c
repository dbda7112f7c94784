/* test_broadcast.c - broadcasting and strides against NumPy's results.
 *
 * Every case of reference.h (made once by gen_reference.py with NumPy) is
 * run through ufn_call: operands are views (shape, strides, offset) of the
 * three base arrays, exactly as NumPy saw them.  An accepted case must give
 * NumPy's shape and values - into a new output, into a given C-contiguous
 * output and into a given output with negative strides; a refused one its
 * status (and NumPy's message where we share it), without writing.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "reference.h"
#include "testfuncs.h"

static double base[3][REF_BASE_N];

static const ufn_func *func_of(int f)
{
    switch (f) {
    case REF_ADD: return &add_func;
    case REF_MULADD: return &muladd_func;
    case REF_MATRIX_MULTIPLY: return &matmul_func;
    case REF_INNER1D: return &inner_func;
    case REF_CROSS1D: return &cross_func;
    }
    return NULL;
}

static ufn_array view(const ref_view *v)
{
    return ufn_host_strided(base[v->base] + v->offset, UFN_FLOAT64, v->ndim, v->shape, v->strides);
}

static void reset_bases(void)
{
    memcpy(base[0], ref_base0, sizeof base[0]);
    memcpy(base[1], ref_base1, sizeof base[1]);
    memcpy(base[2], ref_base2, sizeof base[2]);
}

/* How the output is passed. */
enum { OUT_EMPTY, OUT_C, OUT_REVERSED };

static void run_case(const ref_case *rc, int how)
{
    reset_bases();
    if (rc->status && !rc->has_out)
        how = OUT_EMPTY;    /* no result shape to give an output of */
    const ufn_func *f = func_of(rc->func);
    ufn_array in[3];
    const ufn_array *inp[3];
    for (int k = 0; k < rc->nin; k++) {
        in[k] = view(&rc->in[k]);
        inp[k] = &in[k];
    }
    /* A given output: the case's own, or one of the result's shape. */
    int ondim = rc->has_out ? rc->out.ndim : rc->ndim;
    const int64_t *oshape = rc->has_out ? rc->out.shape : rc->shape;
    int64_t n = 1;
    for (int d = 0; d < ondim; d++)
        n *= oshape[d];
    double *buf = malloc((size_t)(n > 0 ? n : 1) * sizeof *buf);
    for (int64_t i = 0; i < n; i++)
        buf[i] = -12345.0;
    ufn_array out = {0};
    if (rc->has_out || how == OUT_C) {
        out = ufn_host(buf, UFN_FLOAT64, ondim, oshape);
    } else if (how == OUT_REVERSED) {
        /* every stride negated: the last element of buf comes first */
        int64_t st[6], s = -1;
        for (int d = ondim - 1; d >= 0; d--) {
            st[d] = s;
            s *= oshape[d];
        }
        out = ufn_host_strided(n > 0 ? buf + n - 1 : buf, UFN_FLOAT64, ondim, oshape, st);
    }
    ufn_array *outp[] = {&out};
    int st = ufn_call(f, inp, outp);
    if (rc->status) {
        if (st != rc->status)
            fail_msg("%s: status %s, expected %s (%s)", rc->what, ufn_status_name(st),
                     ufn_status_name(rc->status), ufn_error());
        if (rc->message && !strstr(ufn_error(), rc->message))
            fail_msg("%s: message \"%s\" lacks NumPy's \"%s\"", rc->what, ufn_error(), rc->message);
        for (int64_t i = 0; i < n; i++)
            assert_true(buf[i] == -12345.0);
        if (how == OUT_EMPTY && !rc->has_out)
            assert_int_equal(out.memory, UFN_MEM_NONE);
        free(buf);
        return;
    }
    if (st != 0)
        fail_msg("%s: failed with %s: %s", rc->what, ufn_status_name(st), ufn_error());
    assert_int_equal(out.ndim, rc->ndim);
    for (int d = 0; d < rc->ndim; d++)
        assert_int_equal(out.shape[d], rc->shape[d]);
    /* Compare in C order through the output's strides. */
    int64_t idx[6] = {0};
    for (int i = 0; i < rc->nvalues; i++) {
        int64_t off = 0;
        for (int d = 0; d < rc->ndim; d++)
            off += idx[d] * out.strides[d];
        double got = ((double *)out.data)[off];
        if (got != rc->values[i])
            fail_msg("%s (output %d): element %d is %g, NumPy says %g", rc->what, how, i, got,
                     rc->values[i]);
        for (int d = rc->ndim - 1; d >= 0; d--) {
            if (++idx[d] < rc->shape[d])
                break;
            idx[d] = 0;
        }
    }
    /* Inputs are never written. */
    assert_memory_equal(base[0], ref_base0, sizeof base[0]);
    assert_memory_equal(base[1], ref_base1, sizeof base[1]);
    assert_memory_equal(base[2], ref_base2, sizeof base[2]);
    if (how == OUT_EMPTY && !rc->has_out) {
        assert_int_equal(out.memory, UFN_MEM_HOST);
        assert_true(out.alloc_id != 0);
        ufn_free(&out);
    }
    free(buf);
}

static void test_reference_new_output(void **state)
{
    (void)state;
    int n = (int)(sizeof ref_cases / sizeof ref_cases[0]);
    assert_true(n >= 30);
    for (int i = 0; i < n; i++)
        run_case(&ref_cases[i], OUT_EMPTY);
}

static void test_reference_given_output(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof ref_cases / sizeof ref_cases[0]; i++)
        run_case(&ref_cases[i], OUT_C);
}

static void test_reference_reversed_output(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof ref_cases / sizeof ref_cases[0]; i++)
        run_case(&ref_cases[i], OUT_REVERSED);
}

static void test_reference_counts(void **state)
{
    (void)state;
    int ufunc = 0, gufunc = 0, errors = 0;
    for (size_t i = 0; i < sizeof ref_cases / sizeof ref_cases[0]; i++) {
        if (ref_cases[i].func == REF_ADD || ref_cases[i].func == REF_MULADD)
            ufunc++;
        else
            gufunc++;
        errors += ref_cases[i].status != 0;
    }
    assert_true(ufunc >= 30);
    assert_true(gufunc >= 10);
    assert_true(errors >= 10);
    assert_int_equal(ufn_registry_count(), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reference_new_output),
        cmocka_unit_test(test_reference_given_output),
        cmocka_unit_test(test_reference_reversed_output),
        cmocka_unit_test(test_reference_counts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
