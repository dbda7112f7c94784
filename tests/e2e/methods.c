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

static float base_f32[METHODS_BASE];
static double base_f64[METHODS_BASE], base_mul[METHODS_BASE];
static int32_t base_i32[METHODS_BASE];

/* gen_methods.py's base(): v = (i * 7919) % 1999 - 999, then per dtype. */
static void values(void)
{
    for (int64_t i = 0; i < METHODS_BASE; i++) {
        int64_t v = (i * 7919) % 1999 - 999;
        base_f32[i] = (float)v / 7.0f;
        base_f64[i] = (double)v / 7.0;
        base_mul[i] = 1.0 + (double)v / 8192.0;
        base_i32[i] = (int32_t)v;
    }
}

static void *base_of(const methods_case *c)
{
    if (c->dtype == UFN_INT32)
        return base_i32;
    if (c->dtype == UFN_FLOAT32)
        return base_f32;
    return strcmp(c->func, "mul") == 0 ? base_mul : base_f64;
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

static int call(const methods_case *c, ufn_array *res)
{
    int k = 0;
    while (strcmp(funcs[k].name, c->func) != 0)
        k++;
    int es = ufn_dtype_size(c->dtype);
    char *base = base_of(c);
    ufn_array a = ufn_host_strided(base + c->offset * es, c->dtype, c->ndim, c->shape, c->strides);
    if (c->method == M_ACCUMULATE)
        return funcs[k].accumulate(&a, c->axis, res);
    if (c->method == M_OUTER) {
        ufn_array b = ufn_host_strided(base + c->offset2 * es, c->dtype, c->ndim2, c->shape2,
                                       c->strides2);
        return funcs[k].outer(&a, &b, res);
    }
    ufn_reduce_opts o = {.naxes = c->naxes, .keepdims = c->keepdims};
    memcpy(o.axes, c->axes, sizeof c->axes);
    float f32 = (float)c->initial;
    double f64 = c->initial;
    int32_t i32 = (int32_t)c->initial;
    if (c->has_initial)
        o.initial = c->dtype == UFN_FLOAT32 ? (const void *)&f32
                    : c->dtype == UFN_FLOAT64 ? (const void *)&f64 : (const void *)&i32;
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
    return funcs[k].reduce(&a, &o, res);
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
    int64_t n = ufn_size(&res);
    for (int64_t i = 0; same && i < n; i++) {
        if (c->dtype == UFN_INT32) {
            int32_t got = ((const int32_t *)res.data)[i], want = ((const int32_t *)c->expect)[i];
            E2E_CHECK(got == want, "[%lld] = %d, NumPy %d", (long long)i, got, want);
        } else {
            double got = c->dtype == UFN_FLOAT32 ? ((const float *)res.data)[i] : ((const double *)res.data)[i];
            double want = c->dtype == UFN_FLOAT32 ? ((const float *)c->expect)[i] : ((const double *)c->expect)[i];
            E2E_CHECK(e2e_same_f64(got, want), "[%lld] = %a, NumPy %a", (long long)i, got, want);
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

/* The methods on device arrays: the result stays on the input's device
 * (on sim and cuda: device memory), with the host's bits. */
static void check_device(void)
{
    e2e_begin("methods of device arrays");
    int64_t shape[2] = {37, 300}, vshape[1] = {7};
    ufn_array a = ufn_host(base_f32, UFN_FLOAT32, 2, shape), v = ufn_host(base_f32, UFN_FLOAT32, 1, vshape);
    ufn_array d = {0}, dv = {0}, dev[3] = {{0}}, host[3] = {{0}}, back[3] = {{0}};
    ufn_reduce_opts axis1 = {.naxes = 1, .axes = {1}};
    E2E_CALL(ufn_to_device(&a, &d));
    E2E_CALL(ufn_to_device(&v, &dv));
    E2E_CALL(add_reduce(&d, &axis1, &dev[0]));
    E2E_CALL(add_reduce(&a, &axis1, &host[0]));
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
    for (size_t i = 0; i < sizeof methods_cases / sizeof methods_cases[0]; i++)
        check(&methods_cases[i]);
    check_device();
    check_row_sum();
    return e2e_finish();
}
