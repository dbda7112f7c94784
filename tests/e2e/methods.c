/* methods.c - reduce, accumulate and outer of methods.ufn against NumPy.
 *
 * Every case of methods_ref.h (gen_methods.py) views a base array of
 * METHODS_BASE elements, computed here as there (value()), with its shape,
 * strides and offset, calls the method with the case's arguments, and
 * compares the result with NumPy's bit for bit, or the refusal with
 * NumPy's words.  The results are dumped for the backend comparison. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "methods.h"

enum { M_REDUCE, M_ACCUMULATE, M_OUTER };

typedef struct methods_case {
    const char *name, *func;
    ufn_dtype dtype;
    int method;
    int ndim;
    int64_t shape[4], strides[4], offset;
    int ndim2;
    int64_t shape2[4], strides2[4], offset2;
    int naxes;
    int axes[4];
    int keepdims, has_initial;
    double initial;
    int where, axis, error;
    const char *message;
    int rndim;
    int64_t rshape[4];
    const void *expect;
} methods_case;

#include "e2e.h"
#include "methods_ref.h"

static float base_f32[METHODS_BASE], base_c64[2 * METHODS_BASE];
static double base_f64[METHODS_BASE], base_mul[METHODS_BASE], base_c128[2 * METHODS_BASE];
static int32_t base_i32[METHODS_BASE];

/* gen_methods.py's base(): v = (i * 7919) % 1999 - 999, then per dtype;
 * a complex one v / 7 + i w / 3, w = (i * 104729) % 1013 - 506. */
static void values(void)
{
    for (int64_t i = 0; i < METHODS_BASE; i++) {
        int64_t v = (i * 7919) % 1999 - 999, w = (i * 104729) % 1013 - 506;
        base_f32[i] = (float)v / 7.0f;
        base_f64[i] = (double)v / 7.0;
        base_mul[i] = 1.0 + (double)v / 8192.0;
        base_i32[i] = (int32_t)v;
        base_c64[2 * i] = base_f32[i];
        base_c64[2 * i + 1] = (float)w / 3.0f;
        base_c128[2 * i] = base_f64[i];
        base_c128[2 * i + 1] = (double)w / 3.0;
    }
}

static bool is_complex(ufn_dtype t)
{
    return t == UFN_COMPLEX64 || t == UFN_COMPLEX128;
}

/* Float scalar k of a result (a complex element is two: real, imaginary). */
static double scalar(ufn_dtype t, const void *data, int64_t k)
{
    return t == UFN_FLOAT32 || t == UFN_COMPLEX64 ? ((const float *)data)[k] : ((const double *)data)[k];
}

static float abs_f32[METHODS_BASE], abs_c64[2 * METHODS_BASE];
static double abs_f64[METHODS_BASE], abs_c128[2 * METHODS_BASE];

static void *base_of(const methods_case *c)
{
    if (c->dtype == UFN_INT32)
        return base_i32;
    if (c->dtype == UFN_FLOAT32)
        return base_f32;
    if (c->dtype == UFN_COMPLEX64)
        return base_c64;
    if (c->dtype == UFN_COMPLEX128)
        return base_c128;
    return strcmp(c->func, "mul") == 0 ? base_mul : base_f64;
}

/* The same values' magnitudes, for the bound of a device sum. */
static void abs_values(void)
{
    for (int64_t i = 0; i < METHODS_BASE; i++) {
        abs_f32[i] = fabsf(base_f32[i]);
        abs_f64[i] = fabs(base_f64[i]);
    }
    for (int64_t i = 0; i < 2 * METHODS_BASE; i++) {   /* each part's magnitude */
        abs_c64[i] = fabsf(base_c64[i]);
        abs_c128[i] = fabs(base_c128[i]);
    }
}

typedef int (*reduce_fn)(const ufn_array *, const ufn_reduce_opts *, ufn_array *);
typedef int (*accumulate_fn)(const ufn_array *, int, ufn_array *);
typedef int (*outer_fn)(const ufn_array *, const ufn_array *, ufn_array *);

static const struct {
    const char *name;
    reduce_fn reduce;
    accumulate_fn accumulate;
    outer_fn outer;
} funcs[] = {
    {"add", add_reduce, add_accumulate, add_outer},
    {"sub", sub_reduce, sub_accumulate, sub_outer},
    {"mul", mul_reduce, mul_accumulate, mul_outer},
    {"biggest", biggest_reduce, biggest_accumulate, biggest_outer},
};

/* The case's call; with on_device, of a device copy of its array (reduce
 * only), and with base, over those values instead of the case's. */
static int call_on(const methods_case *c, ufn_array *res, ufn_memory *on_device, void *values)
{
    int k = 0;
    while (strcmp(funcs[k].name, c->func) != 0)
        k++;
    int es = ufn_dtype_size(c->dtype);
    char *base = values ? values : base_of(c);
    ufn_array a = ufn_host_strided(base + c->offset * es, c->dtype, c->ndim, c->shape, c->strides);
    ufn_array dev = {0};
    if (on_device) {   /* reduce only */
        int st = ufn_to_device(&a, &dev);
        if (st != 0)
            return st;
        a = dev;
        *on_device = dev.memory;
    }
    if (c->method == M_ACCUMULATE)
        return funcs[k].accumulate(&a, c->axis, res);
    if (c->method == M_OUTER) {
        ufn_array b = ufn_host_strided(base + c->offset2 * es, c->dtype, c->ndim2, c->shape2,
                                       c->strides2);
        return funcs[k].outer(&a, &b, res);
    }
    ufn_reduce_opts o = {.naxes = c->naxes, .keepdims = c->keepdims};
    memcpy(o.axes, c->axes, sizeof c->axes);
    float f32[2] = {(float)c->initial, 0};
    double f64[2] = {c->initial, 0};
    int32_t i32 = (int32_t)c->initial;
    if (c->has_initial)
        o.initial = c->dtype == UFN_FLOAT32 || c->dtype == UFN_COMPLEX64 ? (const void *)f32
                    : c->dtype == UFN_FLOAT64 || c->dtype == UFN_COMPLEX128 ? (const void *)f64
                                                                            : (const void *)&i32;
    /* where=: the flat (C-order) index % 3 != 0, as gen_methods.py's */
    static bool mask[METHODS_BASE];
    int64_t n = 1;
    for (int d = 0; d < c->ndim; d++)
        n *= c->shape[d];
    for (int64_t i = 0; i < n; i++)
        mask[i] = i % 3 != 0;
    ufn_array w = ufn_host(mask, UFN_BOOL, c->ndim, c->shape);
    if (c->where)
        o.where = &w;
    int st = funcs[k].reduce(&a, &o, res);
    ufn_free(&dev);
    return st;
}

static int call(const methods_case *c, ufn_array *res)
{
    return call_on(c, res, NULL, NULL);
}

static void check(const methods_case *c)
{
    e2e_begin("%s.%s: %s", c->func,
              c->method == M_REDUCE ? "reduce" : c->method == M_ACCUMULATE ? "accumulate" : "outer",
              c->name);
    ufn_array res = {0};
    int st = call(c, &res);
    if (c->error) {
        E2E_CHECK(st == c->error && strstr(ufn_error(), c->message),
                  "returned %s (\"%s\"), expected %s with \"%s\"", ufn_status_name(st), ufn_error(),
                  ufn_status_name(c->error), c->message);
        e2e_end();
        return;
    }
    E2E_CHECK(st == 0, "failed: %s", ufn_error());
    if (st != 0) {
        e2e_end();
        return;
    }
    int same = res.ndim == c->rndim && res.dtype == c->dtype;
    for (int d = 0; same && d < c->rndim; d++)
        same = res.shape[d] == c->rshape[d];
    E2E_CHECK(same, "result of ndim %d, expected %d", res.ndim, c->rndim);
    int64_t n = ufn_size(&res), parts = is_complex(c->dtype) ? 2 : 1;
    for (int64_t i = 0; same && i < n * parts; i++) {
        if (c->dtype == UFN_INT32) {
            int32_t got = ((const int32_t *)res.data)[i], want = ((const int32_t *)c->expect)[i];
            E2E_CHECK(got == want, "[%lld] = %d, NumPy %d", (long long)i, got, want);
        } else {
            double got = scalar(c->dtype, res.data, i), want = scalar(c->dtype, c->expect, i);
            E2E_CHECK(e2e_same_f64(got, want), "[%lld]%s = %a, NumPy %a", (long long)(i / parts),
                      parts == 2 ? (i % 2 ? ".imag" : ".real") : "", got, want);
        }
    }
    if (n > 0) {
        char tag[96];   /* the dump's names are one word */
        snprintf(tag, sizeof tag, "%s", c->name);
        for (char *p = tag; *p; p++)
            if (!isalnum((unsigned char)*p))
                *p = '_';
        sample_dump_exact(tag, c->dtype, res.data, (size_t)n);
    }
    ufn_free(&res);
    e2e_end();
}

/* The bound of ufn(7) METHODS for a float reduce of a device array: the
 * kernel's fold and trees and NumPy's pairwise sum each err by at most
 * their depth times the unit roundoff u times the sum of magnitudes, so
 * the two results differ by at most the sum of both depths (k elements per
 * thread, the kernel's 2 x 8 tree levels, the second stage's fold of at
 * most 4 and the initial; NumPy's leaf of 16 + 3 + 7 and a level per split). */
static double device_bound(int64_t count, double u, double magnitude)
{
    double k = ceil((double)count / (1024.0 * 256.0)), depth = k + 16 + 4 + 1;
    double numpy = 26 + ceil(log2((double)count + 1));
    return (depth + numpy) * u * magnitude;
}

/* A reduce case on a device copy of its array (ufn_to_device: contiguous,
 * so trailing axes run on the device's reduce kernel, others through the
 * host): integers and max exactly NumPy's, float sums and products within
 * the bound above, identity=None (sub) NumPy's bits (its sequential order
 * is kept: on the host). */
static void check_device_reduce(const methods_case *c)
{
    e2e_begin("%s.reduce of a device array: %s", c->func, c->name);
    ufn_array res = {0}, back = {0}, mag = {0};
    ufn_memory memory = UFN_MEM_NONE;
    int st = call_on(c, &res, &memory, NULL);
    if (c->error) {
        E2E_CHECK(st == c->error && strstr(ufn_error(), c->message),
                  "returned %s (\"%s\"), expected %s with \"%s\"", ufn_status_name(st), ufn_error(),
                  ufn_status_name(c->error), c->message);
        e2e_end();
        return;
    }
    E2E_CHECK(st == 0, "failed: %s", ufn_error());
    E2E_CHECK(st != 0 || res.memory == memory, "the result is in memory %d, the input's in %d",
              (int)res.memory, (int)memory);
    if (st == 0)
        E2E_CALL(ufn_copy_to_host(&res, &back));
    bool exact = c->dtype == UFN_INT32 || strcmp(c->func, "biggest") == 0 || strcmp(c->func, "sub") == 0;
    bool sum = strcmp(c->func, "add") == 0;
    void *magnitudes = c->dtype == UFN_FLOAT32     ? (void *)abs_f32
                       : c->dtype == UFN_FLOAT64   ? (void *)abs_f64
                       : c->dtype == UFN_COMPLEX64 ? (void *)abs_c64
                                                   : (void *)abs_c128;
    if (!exact && sum)   /* the sum of magnitudes of each result's elements (each part's) */
        E2E_CALL(call_on(c, &mag, NULL, magnitudes));
    int64_t n = back.data ? ufn_size(&back) : 0, elements = 1, results = 1;
    for (int d = 0; d < c->ndim; d++)
        elements *= c->shape[d];
    for (int d = 0; d < c->rndim; d++)
        results *= c->rshape[d];
    int64_t count = results ? elements / results : 0;   /* reduced elements per result */
    E2E_CHECK(n == ufn_size(&res), "%lld elements came back", (long long)n);
    int64_t parts = is_complex(c->dtype) ? 2 : 1;
    for (int64_t i = 0; i < n * parts; i++) {
        if (c->dtype == UFN_INT32) {
            int32_t got = ((const int32_t *)back.data)[i], want = ((const int32_t *)c->expect)[i];
            E2E_CHECK(got == want, "[%lld] = %d, NumPy %d", (long long)i, got, want);
            continue;
        }
        bool f32 = c->dtype == UFN_FLOAT32 || c->dtype == UFN_COMPLEX64;
        double got = scalar(c->dtype, back.data, i), want = scalar(c->dtype, c->expect, i);
        double u = f32 ? 0x1p-24 : 0x1p-53, tol = 0;
        if (!exact && sum)
            tol = device_bound(count, u, scalar(c->dtype, mag.data, i) + fabs(c->initial));
        else if (!exact)   /* a product: each rounding is relative */
            tol = 2.0 * (double)count * u * fabs(want);
        E2E_CHECK(exact ? e2e_same_f64(got, want) : fabs(got - want) <= tol,
                  "[%lld] = %a, NumPy %a (bound %g)", (long long)i, got, want, tol);
    }
    ufn_free(&res);
    ufn_free(&back);
    ufn_free(&mag);
    e2e_end();
}

/* Reductions longer than the kernel's first stage covers at one element
 * per thread (1024 blocks of 256): every axis of 300001 int32 (exactly,
 * wrapping as NumPy's) and float32 (within the bound, of the exact sum), and
 * the last axis of 3 rows of 100000 int32 with an initial value. */
static void check_device_long(void)
{
    e2e_begin("reduce of long device arrays");
    enum { N = 300001, ROW = 100000 };
    static int32_t xi[N];
    static float xf[N];
    uint32_t want = 0, rows[3] = {7, 7, 7};
    double exact = 0, magnitude = 0;
    for (int64_t i = 0; i < N; i++) {
        xi[i] = (int32_t)((i * 7919) % 1999 - 999) * 4099;
        xf[i] = (float)((i * 7919) % 1999 - 999) / 7.0f;
        want += (uint32_t)xi[i];
        exact += xf[i];
        magnitude += fabs(xf[i]);
        if (i < 3 * ROW)
            rows[i / ROW] += (uint32_t)xi[i];
    }
    int64_t shape[1] = {N}, shape2[2] = {3, ROW};
    ufn_array hi = ufn_host(xi, UFN_INT32, 1, shape), hf = ufn_host(xf, UFN_FLOAT32, 1, shape);
    ufn_array h2 = ufn_host(xi, UFN_INT32, 2, shape2);
    ufn_array di = {0}, df = {0}, d2 = {0}, ri = {0}, rf = {0}, r2 = {0}, bi = {0}, bf = {0}, b2 = {0};
    ufn_reduce_opts all = {.naxes = UFN_AXES_ALL}, last = {.naxes = 1, .axes = {-1}};
    int32_t seven = 7;
    last.initial = &seven;
    E2E_CALL(ufn_to_device(&hi, &di));
    E2E_CALL(ufn_to_device(&hf, &df));
    E2E_CALL(ufn_to_device(&h2, &d2));
    E2E_CALL(add_reduce(&di, &all, &ri));
    E2E_CALL(add_reduce(&df, &all, &rf));
    E2E_CALL(add_reduce(&d2, &last, &r2));
    E2E_CALL(ufn_copy_to_host(&ri, &bi));
    E2E_CALL(ufn_copy_to_host(&rf, &bf));
    E2E_CALL(ufn_copy_to_host(&r2, &b2));
    if (bi.data && bf.data && b2.data) {
        int32_t got = *(const int32_t *)bi.data;
        E2E_CHECK(got == (int32_t)want, "int32 sum %d, expected %d", got, (int32_t)want);
        double f = *(const float *)bf.data, tol = device_bound(N, 0x1p-24, magnitude);
        E2E_CHECK(fabs(f - exact) <= tol, "float32 sum %a, exact %a (bound %g)", f, exact, tol);
        for (int r = 0; r < 3; r++) {
            int32_t g = ((const int32_t *)b2.data)[r];
            E2E_CHECK(g == (int32_t)rows[r], "row %d: %d, expected %d", r, g, (int32_t)rows[r]);
        }
    }
    ufn_array *all_arrays[] = {&di, &df, &d2, &ri, &rf, &r2, &bi, &bf, &b2};
    for (size_t k = 0; k < sizeof all_arrays / sizeof all_arrays[0]; k++)
        ufn_free(all_arrays[k]);
    e2e_end();
}

/* The methods on device arrays: the result stays on the input's device
 * (on sim and cuda: device memory); accumulate and outer with the host's
 * bits, reduce within its bound (check_device_reduce), which a reduce over
 * every axis of a long array checks across the kernel's block limit. */
static void check_device(void)
{
    e2e_begin("methods of device arrays");
    int64_t shape[2] = {37, 300}, vshape[1] = {7};
    ufn_array a = ufn_host(base_f32, UFN_FLOAT32, 2, shape), v = ufn_host(base_f32, UFN_FLOAT32, 1, vshape);
    ufn_array d = {0}, dv = {0}, dev[3] = {{0}}, host[3] = {{0}}, back[3] = {{0}};
    ufn_reduce_opts axis0 = {.naxes = 1, .axes = {0}};
    E2E_CALL(ufn_to_device(&a, &d));
    E2E_CALL(ufn_to_device(&v, &dv));
    E2E_CALL(add_reduce(&d, &axis0, &dev[0]));   /* through the host: NumPy's bits */
    E2E_CALL(add_reduce(&a, &axis0, &host[0]));
    E2E_CALL(sub_accumulate(&d, 0, &dev[1]));
    E2E_CALL(sub_accumulate(&a, 0, &host[1]));
    E2E_CALL(add_outer(&dv, &dv, &dev[2]));
    E2E_CALL(add_outer(&v, &v, &host[2]));
    for (int k = 0; k < 3; k++) {
        E2E_CHECK(dev[k].memory == d.memory, "result %d in memory %d, the input's is %d", k,
                  (int)dev[k].memory, (int)d.memory);
        E2E_CALL(ufn_copy_to_host(&dev[k], &back[k]));
        int64_t n = ufn_size(&host[k]);
        E2E_CHECK(back[k].data && ufn_size(&back[k]) == n
                  && memcmp(back[k].data, host[k].data, (size_t)n * sizeof(float)) == 0,
                  "result %d differs from the host array's", k);
        ufn_free(&dev[k]);
        ufn_free(&host[k]);
        ufn_free(&back[k]);
    }
    ufn_free(&d);
    ufn_free(&dv);
    e2e_end();
}

/* row_sum: a core loop, run on 16 rows at a time by the host; each row's
 * sum in the body's order (float64, element after element), for row
 * counts around the lane count and strided, reversed rows. */
static void check_row_sum(void)
{
    e2e_begin("row_sum '(i)->()': rows in lanes");
    int64_t counts[] = {0, 1, 15, 16, 17, 37};
    for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
        int64_t rows = counts[c];
        /* every other row of a (2 rows, 50) grid, its columns reversed */
        int64_t shape[2] = {rows, 50}, strides[2] = {100, -1};
        ufn_array x = ufn_host_strided(base_f32 + 49, UFN_FLOAT32, 2, shape, strides), out = {0};
        E2E_CALL(row_sum(&x, &out));
        for (int64_t r = 0; r < rows && out.data; r++) {
            double acc = 0.0;
            for (int64_t k = 0; k < 50; k++)
                acc += (double)base_f32[49 + r * 100 - k];
            double got = ((const double *)out.data)[r];
            E2E_CHECK(e2e_same_f64(got, acc), "%lld rows: row %lld = %a, expected %a", (long long)rows,
                      (long long)r, got, acc);
        }
        if (rows == 37)
            sample_dump_exact("row_sum", UFN_FLOAT64, out.data, (size_t)rows);
        ufn_free(&out);
    }
    e2e_end();
}

int main(int argc, char **argv)
{
    e2e_start(argc, argv, "methods");
    values();
    abs_values();
    for (size_t i = 0; i < sizeof methods_cases / sizeof methods_cases[0]; i++)
        check(&methods_cases[i]);
    for (size_t i = 0; i < sizeof methods_cases / sizeof methods_cases[0]; i++)
        if (methods_cases[i].method == M_REDUCE)
            check_device_reduce(&methods_cases[i]);
    check_device_long();
    check_device();
    check_row_sum();
    return e2e_finish();
}
