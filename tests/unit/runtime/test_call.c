/* test_call.c - ufn_call and ufn_call_typed on the host backend: misuse
 * (each with its own status and message, outputs untouched), dtype
 * conversion of inputs and outputs, weak scalars, 0-size and 0-d arrays,
 * overlapping operands, gufunc layouts (two outputs, fixed sizes, output-only
 * core dimensions), the typed entry. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "testfuncs.h"

/* The out-of-memory tests ask for terabytes; a sanitizer must say NULL, not abort. */
#if defined(__SANITIZE_ADDRESS__)
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
    return "allocator_may_return_null=1";
}
#endif
#if defined(__SANITIZE_THREAD__)
const char *__tsan_default_options(void);
const char *__tsan_default_options(void)
{
    return "allocator_may_return_null=1";
}
#endif

#define SENTINEL -777.0

static void fill(double *p, int n)
{
    for (int i = 0; i < n; i++)
        p[i] = SENTINEL;
}

static void assert_untouched(const double *p, int n)
{
    for (int i = 0; i < n; i++)
        assert_true(p[i] == SENTINEL);
}

/* ---- misuse ------------------------------------------------------------------------------ */

typedef struct misuse {
    double x[6], y[6], out[6];
    ufn_array a, b, o;
} misuse;

static void misuse_setup(misuse *m)
{
    for (int i = 0; i < 6; i++) {
        m->x[i] = i;
        m->y[i] = 10 * i;
    }
    fill(m->out, 6);
    m->a = ufn_host(m->x, UFN_FLOAT64, 1, (int64_t[]){6});
    m->b = ufn_host(m->y, UFN_FLOAT64, 1, (int64_t[]){6});
    m->o = ufn_host(m->out, UFN_FLOAT64, 1, (int64_t[]){6});
}

/* Call add and expect `status` with `text` in the message, out untouched;
 * unless the misuse is the output itself, the same with an empty output. */
static void expect_refused_out(misuse *m, int status, const char *text, bool output_misuse)
{
    size_t live = ufn_registry_count();
    int st = call2(&add_func, &m->a, &m->b, &m->o);
    if (st != status)
        fail_msg("status %s, expected %s: %s", ufn_status_name(st), ufn_status_name(status),
                 ufn_error());
    if (!strstr(ufn_error(), text))
        fail_msg("message \"%s\" lacks \"%s\"", ufn_error(), text);
    assert_untouched(m->out, 6);
    assert_int_equal(ufn_registry_count(), live);
    if (output_misuse)
        return;
    /* and an empty output stays empty */
    ufn_array e = {0};
    assert_int_equal(call2(&add_func, &m->a, &m->b, &e), status);
    assert_int_equal(e.memory, UFN_MEM_NONE);
    assert_null(e.data);
    assert_int_equal(ufn_registry_count(), live);
}

static void expect_refused(misuse *m, int status, const char *text)
{
    expect_refused_out(m, status, text, false);
}

static void test_misuse_null_pointers(void **state)
{
    (void)state;
    misuse m;
    misuse_setup(&m);
    const ufn_array *in[] = {&m.a, &m.b};
    ufn_array *out[] = {&m.o};
    assert_int_equal(ufn_call(NULL, in, out), UFN_ERR_INVALID);
    assert_non_null(strstr(ufn_error(), "ufunc descriptor is NULL"));
    assert_int_equal(ufn_call(&add_func, NULL, out), UFN_ERR_INVALID);
    assert_string_equal(ufn_error(), "add: the input array list is NULL");
    assert_int_equal(ufn_call(&add_func, in, NULL), UFN_ERR_INVALID);
    assert_string_equal(ufn_error(), "add: the output array list is NULL");
    const ufn_array *in2[] = {&m.a, NULL};
    assert_int_equal(ufn_call(&add_func, in2, out), UFN_ERR_INVALID);
    assert_string_equal(ufn_error(), "add: input 1: the array pointer is NULL");
    ufn_array *out2[] = {NULL};
    assert_int_equal(ufn_call(&add_func, in, out2), UFN_ERR_INVALID);
    assert_string_equal(ufn_error(), "add: output 0: the array pointer is NULL");
    assert_untouched(m.out, 6);
    /* a NULL data pointer with elements */
    m.a.data = NULL;
    expect_refused(&m, UFN_ERR_INVALID, "add: input 0: the data pointer is NULL");
    /* a NULL shape pointer */
    misuse_setup(&m);
    m.b = ufn_host(m.y, UFN_FLOAT64, 1, NULL);
    expect_refused(&m, UFN_ERR_INVALID, "input 1: the shape pointer was NULL");
}

static void test_misuse_ndim_shape_dtype(void **state)
{
    (void)state;
    misuse m;
    misuse_setup(&m);
    m.a = ufn_host(m.x, UFN_FLOAT64, 33, (int64_t[33]){0});
    expect_refused(&m, UFN_ERR_NDIM, "add: input 0: ndim 33 is outside 0..32");
    misuse_setup(&m);
    m.b.ndim = -1;
    expect_refused(&m, UFN_ERR_NDIM, "input 1: ndim -1");
    misuse_setup(&m);
    m.a.shape[0] = -6;
    expect_refused(&m, UFN_ERR_SHAPE, "input 0: negative dimensions are not allowed");
    misuse_setup(&m);
    m.b = ufn_host(m.y, UFN_FLOAT64, 1, (int64_t[]){5});
    expect_refused(&m, UFN_ERR_SHAPE,
                   "add: operands could not be broadcast together with shapes (6,) (5,) (6,)");
    misuse_setup(&m);
    m.a.dtype = (ufn_dtype)42;
    expect_refused(&m, UFN_ERR_DTYPE, "input 0: invalid dtype 42");
    misuse_setup(&m);
    m.a.memory = (ufn_memory)7;
    expect_refused(&m, UFN_ERR_INVALID, "input 0: invalid memory kind 7");
    misuse_setup(&m);
    m.a.memory = UFN_MEM_NONE;
    expect_refused(&m, UFN_ERR_INVALID, "input 0: the array is empty");
}

static void test_misuse_output(void **state)
{
    (void)state;
    misuse m;
    misuse_setup(&m);
    int32_t iout[6] = {5, 5, 5, 5, 5, 5};
    ufn_array io = ufn_host(iout, UFN_INT32, 1, (int64_t[]){6});
    assert_int_equal(call2(&add_func, &m.a, &m.b, &io), UFN_ERR_OUTPUT);
    assert_string_equal(ufn_error(), "add: Cannot cast ufunc 'add' output 0 from float64 to int32 "
                                     "with casting rule 'same_kind'");
    for (int i = 0; i < 6; i++)
        assert_int_equal(iout[i], 5);
    /* wrong shape */
    m.o = ufn_host(m.out, UFN_FLOAT64, 2, (int64_t[]){2, 3});
    expect_refused_out(&m, UFN_ERR_OUTPUT, "operands could not be broadcast together with "
                       "shapes (6,) (6,) (2,3)", true);
    m.o = ufn_host(m.out, UFN_FLOAT64, 1, (int64_t[]){1});
    expect_refused_out(&m, UFN_ERR_OUTPUT, "non-broadcastable output operand with shape (1,) "
                       "doesn't match the broadcast shape (6,)", true);
    /* a scalar value is no place to write */
    misuse_setup(&m);
    m.o = ufn_scalar_float64(1);
    expect_refused_out(&m, UFN_ERR_OUTPUT, "output 0: a scalar value", true);
    /* nor is a broadcast view */
    misuse_setup(&m);
    m.o = ufn_host_strided(m.out, UFN_FLOAT64, 1, (int64_t[]){6}, (int64_t[]){0});
    expect_refused_out(&m, UFN_ERR_OUTPUT, "output 0: a broadcast view (stride 0 in dimension 0) "
                       "cannot be written", true);
}

static void test_misuse_overflow(void **state)
{
    (void)state;
    misuse m;
    misuse_setup(&m);
    /* the product of the shape overflows */
    m.a = ufn_host_strided(m.x, UFN_FLOAT64, 2, (int64_t[]){1ll << 40, 1ll << 40},
                           (int64_t[]){0, 0});
    expect_refused(&m, UFN_ERR_OVERFLOW, "input 0: the number of elements overflows int64");
    /* the size in bytes overflows */
    misuse_setup(&m);
    m.a = ufn_host_strided(m.x, UFN_FLOAT64, 1, (int64_t[]){1ll << 61}, (int64_t[]){0});
    expect_refused(&m, UFN_ERR_OVERFLOW, "input 0: the array's size in bytes overflows");
    /* strides that reach beyond the address space */
    misuse_setup(&m);
    m.a = ufn_host_strided(m.x, UFN_FLOAT64, 1, (int64_t[]){6}, (int64_t[]){1ll << 62});
    expect_refused(&m, UFN_ERR_OVERFLOW, "strides reach beyond the address space");
    /* each operand is fine, the broadcast shape is not */
    misuse_setup(&m);
    m.a = ufn_host_strided(m.x, UFN_FLOAT64, 2, (int64_t[]){1ll << 32, 1}, (int64_t[]){0, 0});
    m.b = ufn_host_strided(m.y, UFN_FLOAT64, 2, (int64_t[]){1, 1ll << 32}, (int64_t[]){0, 0});
    m.o = (ufn_array){0};
    assert_int_equal(call2(&add_func, &m.a, &m.b, &m.o), UFN_ERR_OVERFLOW);
    assert_non_null(strstr(ufn_error(), "add: the broadcast shape (4294967296,4294967296) has more "
                                        "elements than int64 can count"));
    assert_int_equal(m.o.memory, UFN_MEM_NONE);
}

static void test_misuse_out_of_memory(void **state)
{
    (void)state;
    double x = 1, y = 2;
    size_t live = ufn_registry_count();
    /* broadcast views of one element each; the result would need 8 TiB */
    ufn_array a = ufn_host_strided(&x, UFN_FLOAT64, 2, (int64_t[]){1 << 20, 1}, (int64_t[]){0, 0});
    ufn_array b = ufn_host_strided(&y, UFN_FLOAT64, 2, (int64_t[]){1, 1 << 20}, (int64_t[]){0, 0});
    ufn_array o = {0};
    assert_int_equal(call2(&add_func, &a, &b, &o), UFN_ERR_NOMEM);
    assert_non_null(strstr(ufn_error(), "add: out of host memory allocating 8796093022208 bytes"));
    assert_int_equal(o.memory, UFN_MEM_NONE);
    assert_int_equal(ufn_registry_count(), live);
    ufn_array d;
    memset(&d, 0x5a, sizeof d);
    ufn_array before = d;
    assert_int_equal(ufn_device_array(UFN_FLOAT64, 2, (int64_t[]){1 << 21, 1 << 21}, &d),
                     UFN_ERR_NOMEM);
    assert_memory_equal(&d, &before, sizeof d);
}

static void test_misuse_alignment_and_abi(void **state)
{
    (void)state;
    misuse m;
    misuse_setup(&m);
    m.a.data = (char *)m.x + 4;
    expect_refused(&m, UFN_ERR_ALIGN, "input 0: the data pointer");
    misuse_setup(&m);
    ufn_module old = test_module;
    old.abi_version = UFN_ABI_VERSION + 1;
    ufn_func f = add_func;
    f.module = &old;
    const ufn_array *in[] = {&m.a, &m.b};
    ufn_array *out[] = {&m.o};
    assert_int_equal(ufn_call(&f, in, out), UFN_ERR_INVALID);
    char want[64];
    snprintf(want, sizeof want, "built for ABI version %d", UFN_ABI_VERSION + 1);
    assert_non_null(strstr(ufn_error(), want));
    /* a device array on the host backend */
    misuse_setup(&m);
    m.a.memory = UFN_MEM_DEVICE;
    expect_refused(&m, UFN_ERR_WRONG_MEMORY, "input 0: a device array, but the host backend");
}

static void test_misuse_stale_array(void **state)
{
    (void)state;
    misuse m;
    misuse_setup(&m);
    ufn_array d;
    assert_int_equal(ufn_to_device(&m.a, &d), 0);
    ufn_array copy = d;
    ufn_free(&d);
    assert_int_equal(d.memory, UFN_MEM_NONE);
    ufn_free(&d);                   /* twice is fine */
    m.a = copy;
    expect_refused(&m, UFN_ERR_FREED, "add: input 0: the array was freed");
    ufn_free(&copy);                /* a stale copy is ignored */
    /* a descriptor claiming an id the runtime never gave */
    misuse_setup(&m);
    m.b.alloc_id = 987654321;
    expect_refused(&m, UFN_ERR_FREED, "input 1: the array was freed or was never allocated");
    /* a view that reaches past its allocation */
    misuse_setup(&m);
    assert_int_equal(ufn_to_device(&m.a, &d), 0);
    ufn_array big = d;
    big.shape[0] = 7;
    m.a = big;
    expect_refused(&m, UFN_ERR_INVALID, "lie outside its allocation");
    ufn_free(&d);
}

static void test_misuse_core_dims(void **state)
{
    (void)state;
    double a[12], b[12], out[4];
    for (int i = 0; i < 12; i++)
        a[i] = b[i] = i;
    fill(out, 4);
    ufn_array A = ufn_host(a, UFN_FLOAT64, 2, (int64_t[]){4, 3});
    ufn_array B = ufn_host(b, UFN_FLOAT64, 2, (int64_t[]){3, 4});
    ufn_array O = ufn_host(out, UFN_FLOAT64, 1, (int64_t[]){4});
    assert_int_equal(call2(&inner_func, &A, &B, &O), UFN_ERR_CORE_DIM);
    assert_string_equal(ufn_error(), "inner1d: Input operand 1 has a mismatch in its core "
                                     "dimension 0, with gufunc signature (i),(i)->() (size 4 is "
                                     "different from 3)");
    assert_untouched(out, 4);
    /* output core dimension of the wrong size */
    double mo[4];
    fill(mo, 4);
    ufn_array M = ufn_host(mo, UFN_FLOAT64, 2, (int64_t[]){2, 2});
    ufn_array A2 = ufn_host(a, UFN_FLOAT64, 2, (int64_t[]){2, 3});
    ufn_array B2 = ufn_host(b, UFN_FLOAT64, 2, (int64_t[]){3, 4});
    assert_int_equal(call2(&matmul_func, &A2, &B2, &M), UFN_ERR_OUTPUT);
    assert_string_equal(ufn_error(), "matrix_multiply: Output operand 0 has a mismatch in its core "
                                     "dimension 1, with gufunc signature (m,n),(n,p)->(m,p) (size "
                                     "2 is different from 4)");
    assert_untouched(mo, 4);
    /* too few dimensions */
    ufn_array v = ufn_scalar_float64(3);
    ufn_array e = {0};
    assert_int_equal(call1(&l2_func, &v, &e), UFN_ERR_CORE_DIM);
    assert_string_equal(ufn_error(), "l2_norm: Input operand 0 does not have enough dimensions "
                                     "(has 0, gufunc core with signature (i)->() requires 1)");
    /* an output-only core dimension needs a given output */
    ufn_array vec = ufn_host(a, UFN_FLOAT64, 1, (int64_t[]){3});
    assert_int_equal(call1(&spread_func, &vec, &e), UFN_ERR_CORE_DIM);
    assert_string_equal(ufn_error(), "spread: Output operand 0 has core dimension 0 unspecified, "
                                     "with gufunc signature (i)->(j)");
    assert_int_equal(e.memory, UFN_MEM_NONE);
}

/* ---- dtypes through calls ------------------------------------------------------------------ */

static void test_input_conversion_and_output_cast(void **state)
{
    (void)state;
    int32_t xi[5] = {1, 2, 3, 4, 5}, yi[5] = {10, 20, 30, 40, 50};
    ufn_array a = ufn_host(xi, UFN_INT32, 1, (int64_t[]){5});
    ufn_array b = ufn_host(yi, UFN_INT32, 1, (int64_t[]){5});
    ufn_array o = {0};
    assert_int_equal(call2(&add_func, &a, &b, &o), 0);       /* int32 -> the float64 loop */
    assert_int_equal(o.dtype, UFN_FLOAT64);
    for (int i = 0; i < 5; i++)
        assert_true(((double *)o.data)[i] == 11.0 * (i + 1));
    ufn_free(&o);
    /* float32 inputs, a float64 output: through a temporary, upcast */
    float xf[4] = {0.5f, 1.5f, 2.5f, 3.5f};
    double od[4];
    ufn_array f = ufn_host(xf, UFN_FLOAT32, 1, (int64_t[]){4});
    ufn_array fd = ufn_host(od, UFN_FLOAT64, 1, (int64_t[]){4});
    assert_int_equal(call2(&add_func, &f, &f, &fd), 0);
    for (int i = 0; i < 4; i++)
        assert_true(od[i] == 2.0 * xf[i]);
    /* float64 loop into a strided float32 output (same kind) */
    double xd[6] = {1, 2, 3, 4, 5, 6};
    float of[12];
    for (int i = 0; i < 12; i++)
        of[i] = -1;
    ufn_array d = ufn_host(xd, UFN_FLOAT64, 2, (int64_t[]){2, 3});
    ufn_array ot = ufn_host_strided(of, UFN_FLOAT32, 2, (int64_t[]){2, 3}, (int64_t[]){1, 4});
    assert_int_equal(call2(&add_func, &d, &d, &ot), 0);
    for (int r = 0; r < 2; r++)
        for (int c = 0; c < 3; c++)
            assert_true(of[r + 4 * c] == 2 * xd[3 * r + c]);
    assert_true(of[2] == -1 && of[3] == -1);
    /* int64 loop into an int8 output wraps (same kind) */
    int64_t big[2] = {100, 200};
    int8_t o8[2];
    ufn_array l = ufn_host(big, UFN_INT64, 1, (int64_t[]){2});
    ufn_array l8 = ufn_host(o8, UFN_INT8, 1, (int64_t[]){2});
    assert_int_equal(call2(&add_func, &l, &l, &l8), 0);
    assert_true(o8[0] == (int8_t)200 && o8[1] == (int8_t)400);
    assert_int_equal(ufn_registry_count(), 0);
}

static void test_weak_scalars_in_calls(void **state)
{
    (void)state;
    float x[3] = {1, 2, 3};
    ufn_array a = ufn_host(x, UFN_FLOAT32, 1, (int64_t[]){3});
    ufn_array s = ufn_scalar_float64(0.25);
    ufn_array o = {0};
    assert_int_equal(call2(&add_func, &a, &s, &o), 0);
    assert_int_equal(o.dtype, UFN_FLOAT32);                  /* NEP 50: stays float32 */
    for (int i = 0; i < 3; i++)
        assert_true(((float *)o.data)[i] == x[i] + 0.25f);
    ufn_free(&o);
    int64_t xi[3] = {1, 2, 3};
    ufn_array ai = ufn_host(xi, UFN_INT64, 1, (int64_t[]){3});
    ufn_array half = ufn_scalar_float32(0.5f);
    assert_int_equal(call2(&add_func, &half, &ai, &o), 0);
    assert_int_equal(o.dtype, UFN_FLOAT64);
    for (int i = 0; i < 3; i++)
        assert_true(((double *)o.data)[i] == xi[i] + 0.5);
    ufn_free(&o);
    ufn_array seven = ufn_scalar_int8(7);
    assert_int_equal(call2(&add_func, &ai, &seven, &o), 0);
    assert_int_equal(o.dtype, UFN_INT64);
    assert_true(((int64_t *)o.data)[2] == 10);
    ufn_free(&o);
    /* scalars only: a 0-d result */
    ufn_array p = ufn_scalar_float64(1.5), q = ufn_scalar_float64(2);
    assert_int_equal(call2(&add_func, &p, &q, &o), 0);
    assert_int_equal(o.ndim, 0);
    assert_true(*(double *)o.data == 3.5);
    ufn_free(&o);
    /* three inputs, two of them scalars */
    double c[4] = {1, 2, 3, 4};
    ufn_array cc = ufn_host(c, UFN_FLOAT64, 2, (int64_t[]){2, 2});
    ufn_array two = ufn_scalar_int32(2), ten = ufn_scalar_float64(10);
    const ufn_array *in[] = {&two, &cc, &ten};
    ufn_array *out[] = {&o};
    assert_int_equal(ufn_call(&muladd_func, in, out), 0);
    for (int i = 0; i < 4; i++)
        assert_true(((double *)o.data)[i] == 2 * c[i] + 10);
    ufn_free(&o);
}

/* ---- 0-size and 0-d -------------------------------------------------------------------------- */

static void test_zero_size(void **state)
{
    (void)state;
    double x[1] = {1};
    ufn_array a = ufn_host(x, UFN_FLOAT64, 2, (int64_t[]){0, 3});
    ufn_array b = ufn_host(x, UFN_FLOAT64, 1, (int64_t[]){3});
    ufn_array o = {0};
    assert_int_equal(call2(&add_func, &a, &b, &o), 0);
    assert_int_equal(o.ndim, 2);
    assert_true(o.shape[0] == 0 && o.shape[1] == 3);
    assert_non_null(o.data);
    assert_int_equal(ufn_size(&o), 0);
    ufn_free(&o);
    /* NULL data is fine when there are no elements */
    ufn_array z = ufn_host(NULL, UFN_FLOAT64, 1, (int64_t[]){0});
    ufn_array zo = ufn_host(NULL, UFN_FLOAT64, 1, (int64_t[]){0});
    assert_int_equal(call2(&add_func, &z, &z, &zo), 0);
    /* gufunc with no loop iterations: outputs allocated, nothing run */
    ufn_array v = ufn_host(x, UFN_FLOAT64, 2, (int64_t[]){0, 5});
    assert_int_equal(call1(&l2_func, &v, &o), 0);
    assert_int_equal(o.ndim, 1);
    assert_int_equal(o.shape[0], 0);
    ufn_free(&o);
    /* gufunc with an empty core: the loop runs with i = 0 */
    ufn_array e = ufn_host(x, UFN_FLOAT64, 2, (int64_t[]){3, 0});
    assert_int_equal(call1(&l2_func, &e, &o), 0);
    assert_int_equal(o.shape[0], 3);
    for (int i = 0; i < 3; i++)
        assert_true(((double *)o.data)[i] == 0.0);
    ufn_free(&o);
    /* (m,0) @ (0,p) = zeros */
    ufn_array A = ufn_host(x, UFN_FLOAT64, 2, (int64_t[]){2, 0});
    ufn_array B = ufn_host(x, UFN_FLOAT64, 2, (int64_t[]){0, 3});
    assert_int_equal(call2(&matmul_func, &A, &B, &o), 0);
    assert_true(o.ndim == 2 && o.shape[0] == 2 && o.shape[1] == 3);
    for (int i = 0; i < 6; i++)
        assert_true(((double *)o.data)[i] == 0.0);
    ufn_free(&o);
    assert_int_equal(ufn_registry_count(), 0);
}

static void test_zero_d(void **state)
{
    (void)state;
    double x = 3, y = 4, r = 0;
    ufn_array a = ufn_host(&x, UFN_FLOAT64, 0, NULL);
    ufn_array b = ufn_host(&y, UFN_FLOAT64, 0, NULL);
    ufn_array o = ufn_host(&r, UFN_FLOAT64, 0, NULL);
    assert_int_equal(call2(&add_func, &a, &b, &o), 0);
    assert_true(r == 7);
    ufn_array n = {0};
    assert_int_equal(call2(&atan2_func, &a, &b, &n), 0);
    assert_int_equal(n.ndim, 0);
    assert_true(*(double *)n.data == atan2(3, 4));
    ufn_free(&n);
    /* a 0-d array is not weak: float64 0-d + float32 array -> float64 */
    float f[2] = {1, 2};
    ufn_array fa = ufn_host(f, UFN_FLOAT32, 1, (int64_t[]){2});
    assert_int_equal(call2(&add_func, &fa, &a, &n), 0);
    assert_int_equal(n.dtype, UFN_FLOAT64);
    ufn_free(&n);
    /* gufuncs with no loop dimensions give 0-d outputs */
    double v[3] = {1, 2, 2}, w[3] = {3, 4, 5};
    ufn_array V = ufn_host(v, UFN_FLOAT64, 1, (int64_t[]){3});
    ufn_array W = ufn_host(w, UFN_FLOAT64, 1, (int64_t[]){3});
    assert_int_equal(call1(&l2_func, &V, &n), 0);
    assert_int_equal(n.ndim, 0);
    assert_true(*(double *)n.data == 3.0);
    ufn_free(&n);
    assert_int_equal(call2(&inner_func, &V, &W, &n), 0);
    assert_true(n.ndim == 0 && *(double *)n.data == 3 + 8 + 10);
    ufn_free(&n);
}

/* ---- overlap ----------------------------------------------------------------------------- */

static void test_overlap_in_place(void **state)
{
    (void)state;
    double x[5] = {1, 2, 3, 4, 5}, y[5] = {10, 20, 30, 40, 50};
    ufn_array a = ufn_host(x, UFN_FLOAT64, 1, (int64_t[]){5});
    ufn_array b = ufn_host(y, UFN_FLOAT64, 1, (int64_t[]){5});
    assert_int_equal(call2(&add_func, &a, &b, &a), 0);      /* x += y */
    for (int i = 0; i < 5; i++)
        assert_true(x[i] == 11.0 * (i + 1));
    assert_int_equal(call2(&add_func, &a, &a, &a), 0);      /* x = x + x */
    assert_true(x[4] == 110);
}

static void test_overlap_shifted_and_reversed(void **state)
{
    (void)state;
    /* x[1:] = x[:-1] + 1 must read the old values (NumPy semantics) */
    double x[6] = {0, 1, 2, 3, 4, 5};
    ufn_array src = ufn_host(x, UFN_FLOAT64, 1, (int64_t[]){5});
    ufn_array dst = ufn_host(x + 1, UFN_FLOAT64, 1, (int64_t[]){5});
    ufn_array one = ufn_scalar_float64(1);
    assert_int_equal(call2(&add_func, &src, &one, &dst), 0);
    double want[6] = {0, 1, 2, 3, 4, 5};
    assert_memory_equal(x, want, sizeof x);
    /* x = x[::-1] + 0 */
    double r[5] = {1, 2, 3, 4, 5};
    ufn_array rv = ufn_host_strided(r + 4, UFN_FLOAT64, 1, (int64_t[]){5}, (int64_t[]){-1});
    ufn_array rr = ufn_host(r, UFN_FLOAT64, 1, (int64_t[]){5});
    ufn_array zero = ufn_scalar_float64(0);
    assert_int_equal(call2(&add_func, &rv, &zero, &rr), 0);
    double wr[5] = {5, 4, 3, 2, 1};
    assert_memory_equal(r, wr, sizeof r);
    /* a broadcast input overlapping the output: x = x[0] + y */
    double z[4] = {100, 1, 2, 3}, y[4] = {1, 2, 3, 4};
    ufn_array z0 = ufn_host(z, UFN_FLOAT64, 1, (int64_t[]){1});
    ufn_array zz = ufn_host(z, UFN_FLOAT64, 1, (int64_t[]){4});
    ufn_array yy = ufn_host(y, UFN_FLOAT64, 1, (int64_t[]){4});
    assert_int_equal(call2(&add_func, &z0, &yy, &zz), 0);
    double wz[4] = {101, 102, 103, 104};
    assert_memory_equal(z, wz, sizeof z);
    /* transposed in place: m = m.T + 0 */
    double m[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    ufn_array mt = ufn_host_strided(m, UFN_FLOAT64, 2, (int64_t[]){3, 3}, (int64_t[]){1, 3});
    ufn_array mm = ufn_host(m, UFN_FLOAT64, 2, (int64_t[]){3, 3});
    assert_int_equal(call2(&add_func, &mt, &zero, &mm), 0);
    double wm[9] = {1, 4, 7, 2, 5, 8, 3, 6, 9};
    assert_memory_equal(m, wm, sizeof m);
    assert_int_equal(ufn_registry_count(), 0);
}

static void test_overlap_gufunc(void **state)
{
    (void)state;
    /* A = A @ B: the loop writes A while reading it, unless the runtime copies */
    double A[4] = {1, 2, 3, 4}, B[4] = {0, 1, 1, 0};
    ufn_array a = ufn_host(A, UFN_FLOAT64, 2, (int64_t[]){2, 2});
    ufn_array b = ufn_host(B, UFN_FLOAT64, 2, (int64_t[]){2, 2});
    assert_int_equal(call2(&matmul_func, &a, &b, &a), 0);
    double want[4] = {2, 1, 4, 3};
    assert_memory_equal(A, want, sizeof A);
    /* cross(a, b, out=b) */
    double u[3] = {1, 0, 0}, v[3] = {0, 1, 0};
    ufn_array U = ufn_host(u, UFN_FLOAT64, 1, (int64_t[]){3});
    ufn_array V = ufn_host(v, UFN_FLOAT64, 1, (int64_t[]){3});
    assert_int_equal(call2(&cross_func, &U, &V, &V), 0);
    assert_true(v[0] == 0 && v[1] == 0 && v[2] == 1);
}

/* ---- gufunc layouts ----------------------------------------------------------------------- */

static void test_two_outputs(void **state)
{
    (void)state;
    double v[8] = {3, -1, 4, 1, -5, 9, 2, 6};
    ufn_array V = ufn_host(v, UFN_FLOAT64, 2, (int64_t[]){2, 4});
    ufn_array lo = {0}, hi = {0};
    const ufn_array *in[] = {&V};
    ufn_array *out[] = {&lo, &hi};
    assert_int_equal(ufn_call(&minmax_func, in, out), 0);
    assert_true(lo.ndim == 1 && lo.shape[0] == 2 && hi.shape[0] == 2);
    assert_true(((double *)lo.data)[0] == -1 && ((double *)lo.data)[1] == -5);
    assert_true(((double *)hi.data)[0] == 4 && ((double *)hi.data)[1] == 9);
    ufn_free(&lo);
    /* one given (strided), one new */
    double given[4] = {0, 0, 0, 0};
    lo = ufn_host_strided(given, UFN_FLOAT64, 1, (int64_t[]){2}, (int64_t[]){2});
    ufn_free(&hi);
    assert_int_equal(ufn_call(&minmax_func, in, out), 0);
    assert_true(given[0] == -1 && given[2] == -5 && given[1] == 0);
    assert_true(((double *)hi.data)[1] == 9);
    ufn_free(&hi);
}

static void test_fixed_and_output_only_dims(void **state)
{
    (void)state;
    double a[6] = {1, 0, 0, 0, 1, 0}, b[3] = {0, 0, 1};
    ufn_array A = ufn_host(a, UFN_FLOAT64, 2, (int64_t[]){2, 3});
    ufn_array B = ufn_host(b, UFN_FLOAT64, 1, (int64_t[]){3});
    ufn_array o = {0};
    assert_int_equal(call2(&cross_func, &A, &B, &o), 0);
    assert_true(o.ndim == 2 && o.shape[0] == 2 && o.shape[1] == 3);
    double want[6] = {0, -1, 0, 1, 0, 0};
    assert_memory_equal(o.data, want, sizeof want);
    ufn_free(&o);
    /* (i)->(j): j comes from the given output */
    double v[6] = {1, 2, 3, 4, 5, 6}, r[8];
    ufn_array Vv = ufn_host(v, UFN_FLOAT64, 2, (int64_t[]){2, 3});
    ufn_array R = ufn_host(r, UFN_FLOAT64, 2, (int64_t[]){2, 4});
    assert_int_equal(call1(&spread_func, &Vv, &R), 0);
    double wr[8] = {6, 7, 8, 9, 15, 16, 17, 18};
    assert_memory_equal(r, wr, sizeof r);
}

/* ---- the typed entry ------------------------------------------------------------------------ */

static void test_typed_entry(void **state)
{
    (void)state;
    enum { N = 1000 };
    static float y[N], x[N], out[N];
    for (int i = 0; i < N; i++) {
        y[i] = (float)i - 500;
        x[i] = (float)(i % 7) - 3;
    }
    void *ptrs[] = {y, x, out};
    assert_int_equal(ufn_call_typed(&atan2_func, 0, N, NULL, ptrs), 0);
    for (int i = 0; i < N; i++)
        assert_true(out[i] == atan2f(y[i], x[i]));
    /* in place */
    void *inplace[] = {y, x, y};
    assert_int_equal(ufn_call_typed(&atan2_func, 0, N, NULL, inplace), 0);
    assert_memory_equal(y, out, sizeof out);
    /* n = 0, NULL pointers are fine then */
    void *none[] = {NULL, NULL, NULL};
    assert_int_equal(ufn_call_typed(&atan2_func, 1, 0, NULL, none), 0);
    /* gufunc: n loop items, then core sizes by name */
    double A[2 * 2 * 3], B[3 * 2], C[2 * 2 * 2];
    for (int i = 0; i < 12; i++)
        A[i] = i;
    for (int i = 0; i < 6; i++)
        B[i] = 1;
    /* B has n = 2 items too in a typed call: give two copies */
    double B2[12];
    for (int i = 0; i < 12; i++)
        B2[i] = 1;
    size_t core[] = {2, 3, 2};
    void *mp[] = {A, B2, C};
    assert_int_equal(ufn_call_typed(&matmul_func, 0, 2, core, mp), 0);
    double wc[8] = {3, 3, 12, 12, 21, 21, 30, 30};
    assert_memory_equal(C, wc, sizeof C);
    (void)B;
    /* misuse */
    assert_int_equal(ufn_call_typed(&atan2_func, 2, N, NULL, ptrs), UFN_ERR_INVALID);
    assert_string_equal(ufn_error(), "gpu_arctan2: signature 2 does not exist (2 signatures)");
    assert_int_equal(ufn_call_typed(&atan2_func, 0, N, NULL, NULL), UFN_ERR_INVALID);
    void *bad[] = {y, NULL, out};
    assert_int_equal(ufn_call_typed(&atan2_func, 0, N, NULL, bad), UFN_ERR_INVALID);
    assert_string_equal(ufn_error(), "gpu_arctan2: input 1: the data pointer is NULL");
    assert_int_equal(ufn_call_typed(&matmul_func, 0, 2, NULL, mp), UFN_ERR_INVALID);
    assert_int_equal(ufn_call_typed(&atan2_func, 0, (size_t)1 << 63, NULL, ptrs), UFN_ERR_OVERFLOW);
    void *unaligned[] = {(char *)y + 1, x, out};
    assert_int_equal(ufn_call_typed(&atan2_func, 0, N, NULL, unaligned), UFN_ERR_ALIGN);
    /* fixed sizes are checked */
    double c3[6];
    void *cp[] = {c3, c3, c3};
    size_t four[] = {4};
    assert_int_equal(ufn_call_typed(&cross_func, 0, 1, four, cp), UFN_ERR_CORE_DIM);
    assert_int_equal(ufn_registry_count(), 0);
}

static void test_status_names(void **state)
{
    (void)state;
    assert_string_equal(ufn_status_name(0), "UFN_OK");
    assert_string_equal(ufn_status_name(UFN_ERR_SHAPE), "UFN_ERR_SHAPE");
    assert_string_equal(ufn_status_name(UFN_ERR_ALIGN), "UFN_ERR_ALIGN");
    assert_string_equal(ufn_status_name(-99), "UFN_ERR_UNKNOWN");
    assert_string_equal(ufn_status_name(UFN_ERR_MPI), "UFN_ERR_MPI");
    /* a library on libufnrt (libufnmpi) reports through ufn_error() too */
    assert_int_equal(ufn_set_error(UFN_ERR_MPI, "lib: %s failed", "MPI_Allreduce"), UFN_ERR_MPI);
    assert_string_equal(ufn_error(), "lib: MPI_Allreduce failed");
    /* every status has its own name */
    for (int a = UFN_ERR_ALIGN; a <= 0; a++)
        for (int b = a + 1; b <= 0; b++)
            assert_string_not_equal(ufn_status_name(a), ufn_status_name(b));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_misuse_null_pointers),
        cmocka_unit_test(test_misuse_ndim_shape_dtype),
        cmocka_unit_test(test_misuse_output),
        cmocka_unit_test(test_misuse_overflow),
        cmocka_unit_test(test_misuse_out_of_memory),
        cmocka_unit_test(test_misuse_alignment_and_abi),
        cmocka_unit_test(test_misuse_stale_array),
        cmocka_unit_test(test_misuse_core_dims),
        cmocka_unit_test(test_input_conversion_and_output_cast),
        cmocka_unit_test(test_weak_scalars_in_calls),
        cmocka_unit_test(test_zero_size),
        cmocka_unit_test(test_zero_d),
        cmocka_unit_test(test_overlap_in_place),
        cmocka_unit_test(test_overlap_shifted_and_reversed),
        cmocka_unit_test(test_overlap_gufunc),
        cmocka_unit_test(test_two_outputs),
        cmocka_unit_test(test_fixed_and_output_only_dims),
        cmocka_unit_test(test_typed_entry),
        cmocka_unit_test(test_status_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
