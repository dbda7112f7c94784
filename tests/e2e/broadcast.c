/* broadcast - NumPy's broadcasting and array views through a compiled
 * module (broadcast.ufn: sub = a - b, non-commutative so that a swapped or
 * misplaced operand shows), including the rank-deficient cases Numba's CUDA
 * ufuncs get wrong, strided, transposed and reversed views, 0-size and 0-d
 * arrays, and the refusals.
 */
#include "broadcast.h"
#include "e2e.h"

/* The element of a view at a C-order index of its shape. */
static double at(const double *base, int ndim, const int64_t *shape, const int64_t *strides,
                 int64_t flat)
{
    int64_t off = 0;
    for (int d = ndim - 1; d >= 0; d--) {
        off += (flat % shape[d]) * strides[d];
        flat /= shape[d];
    }
    return base[off];
}

typedef struct view {
    double *data;
    int ndim;
    int64_t shape[4], strides[4];
} view;

static ufn_array as_array(const view *v)
{
    return ufn_host_strided(v->data, UFN_FLOAT64, v->ndim, v->shape, v->strides);
}

static int64_t count(int ndim, const int64_t *shape)
{
    int64_t n = 1;
    for (int d = 0; d < ndim; d++)
        n *= shape[d];
    return n;
}

/* sub(a, b) into an empty output: the shape NumPy gives and a - b at every
 * element, each operand read through its broadcast index. */
static void expect_sub(const char *what, const view *a, const view *b, int ndim,
                       const int64_t *shape, const char *dumpname)
{
    ufn_array A = as_array(a), B = as_array(b), out = {0};
    e2e_begin("%s", what);
    E2E_CALL(sub(&A, &B, &out));
    int same = out.ndim == ndim;
    for (int d = 0; same && d < ndim; d++)
        same = out.shape[d] == shape[d];
    E2E_CHECK(same, "the result has %d dimensions (%lld, %lld, ...), expected %d (%lld, %lld, ...)",
              out.ndim, (long long)out.shape[0], (long long)(out.ndim > 1 ? out.shape[1] : 0),
              ndim, (long long)(ndim ? shape[0] : 0), (long long)(ndim > 1 ? shape[1] : 0));
    if (same) {
        int64_t n = count(ndim, shape);
        for (int64_t i = 0; i < n; i++) {
            /* the broadcast index of each operand: the trailing dimensions */
            int64_t ia = 0, ib = 0, rest = i, mul_a = 1, mul_b = 1;
            for (int d = ndim - 1; d >= 0; d--) {
                int64_t k = rest % shape[d];
                int da = d - (ndim - a->ndim), db = d - (ndim - b->ndim);
                if (da >= 0) {
                    ia += (a->shape[da] == 1 ? 0 : k) * mul_a;
                    mul_a *= a->shape[da];
                }
                if (db >= 0) {
                    ib += (b->shape[db] == 1 ? 0 : k) * mul_b;
                    mul_b *= b->shape[db];
                }
                rest /= shape[d];
            }
            double w = at(a->data, a->ndim, a->shape, a->strides, ia) -
                       at(b->data, b->ndim, b->shape, b->strides, ib);
            E2E_CHECK(((double *)out.data)[i] == w, "element %lld: %g, expected %g", (long long)i,
                      ((double *)out.data)[i], w);
        }
        sample_dump_exact(dumpname, UFN_FLOAT64, out.data, (size_t)n);
    }
    e2e_end();
    ufn_free(&out);
}

static view contiguous(double *data, int ndim, const int64_t *shape)
{
    view v = {data, ndim, {0}, {0}};
    int64_t s = 1;
    for (int d = ndim - 1; d >= 0; d--) {
        v.shape[d] = shape[d];
        v.strides[d] = s;
        s *= shape[d];
    }
    return v;
}

static void broadcasting(double *x, double *y)
{
    view a23 = contiguous(x, 2, (int64_t[]){2, 3}), b3 = contiguous(y, 1, (int64_t[]){3});
    view a21 = contiguous(x, 2, (int64_t[]){2, 1}), b13 = contiguous(y, 2, (int64_t[]){1, 3});
    view a413 = contiguous(x, 3, (int64_t[]){4, 1, 3}), b21 = contiguous(y, 2, (int64_t[]){2, 1});
    view a0d = contiguous(x, 0, NULL);
    expect_sub("(2,3) - (3,): the row is subtracted from each row", &a23, &b3, 2,
               (int64_t[]){2, 3}, "b23_3");
    expect_sub("(2,1) - (3,) -> (2,3): rank-deficient, Numba's CUDA ufunc fails", &a21, &b3, 2,
               (int64_t[]){2, 3}, "b21_3");
    expect_sub("(3,) - (2,1) -> (2,3)", &b3, &a21, 2, (int64_t[]){2, 3}, "b3_21");
    expect_sub("(2,1) - (1,3) -> (2,3)", &a21, &b13, 2, (int64_t[]){2, 3}, "b21_13");
    expect_sub("(4,1,3) - (2,1) -> (4,2,3)", &a413, &b21, 3, (int64_t[]){4, 2, 3}, "b413_21");
    expect_sub("0-d array - (2,3)", &a0d, &a23, 2, (int64_t[]){2, 3}, "b0_23");
    expect_sub("0-d - 0-d -> 0-d", &a0d, &a0d, 0, NULL, "b0_0");

    /* C scalars broadcast the same way. */
    ufn_array A = as_array(&a23), s = ufn_scalar_float64(0.5), out = {0};
    e2e_begin("scalar 0.5 - (2,3)");
    E2E_CALL(sub(&s, &A, &out));
    for (int i = 0; out.data && i < 6; i++)
        E2E_CHECK(((double *)out.data)[i] == 0.5 - x[i], "[%d] = %g, expected %g", i,
                  ((double *)out.data)[i], 0.5 - x[i]);
    e2e_end();
    ufn_free(&out);

    /* The int64 loop with NumPy's example from seed 001: (4,) + (4,4). */
    int64_t b[4] = {10, 20, 30, 40}, c[16], r[16], s4 = 4, s44[2] = {4, 4};
    for (int i = 0; i < 16; i++)
        c[i] = i;
    ufn_array B = ufn_host(b, UFN_INT64, 1, &s4), C = ufn_host(c, UFN_INT64, 2, s44);
    ufn_array R = ufn_host(r, UFN_INT64, 2, s44);
    e2e_begin("int64 (4,4) - (4,)");
    E2E_CALL(sub(&C, &B, &R));
    for (int i = 0; i < 16; i++)
        E2E_CHECK(r[i] == c[i] - b[i % 4], "[%d][%d] = %lld, expected %lld", i / 4, i % 4,
                  (long long)r[i], (long long)(c[i] - b[i % 4]));
    e2e_end();
    sample_dump_exact("i64_44_4", UFN_INT64, r, 16);
}

static void views(double *x, double *y)
{
    /* x holds 24 values: a (4,6) C array */
    view t = {x, 2, {6, 4}, {1, 6}};                           /* x.T */
    view rev = {x + 23, 1, {24}, {-1}};                         /* x[::-1] */
    view step = {x + 1, 2, {2, 3}, {12, 2}};                    /* x[::2, 1::2] */
    view rev2 = {x + 23, 2, {4, 6}, {-6, -1}};                  /* x[::-1, ::-1] */
    view col = {y, 2, {6, 1}, {1, 0}};                          /* y[:6, None] */
    view zero = {y, 2, {6, 4}, {0, 1}};                          /* a stride-0 view */
    view c24 = contiguous(y, 1, (int64_t[]){24});
    view c64 = contiguous(y, 2, (int64_t[]){6, 4});
    view c23 = contiguous(y, 2, (int64_t[]){2, 3});
    expect_sub("transposed (6,4) - (6,4)", &t, &c64, 2, (int64_t[]){6, 4}, "v_t");
    expect_sub("reversed (24,) - (24,)", &rev, &c24, 1, (int64_t[]){24}, "v_rev");
    expect_sub("x[::2, 1::2] - (2,3)", &step, &c23, 2, (int64_t[]){2, 3}, "v_step");
    expect_sub("x[::-1, ::-1] - itself", &rev2, &rev2, 2,
               (int64_t[]){4, 6}, "v_rev2");
    expect_sub("transposed (6,4) - column (6,1)", &t, &col, 2, (int64_t[]){6, 4}, "v_col");
    expect_sub("stride-0 rows (6,4) - transposed (6,4)", &zero, &t, 2, (int64_t[]){6, 4}, "v_zero");

    /* A strided output: every other element of a buffer, the rest untouched. */
    double buf[12];
    for (int i = 0; i < 12; i++)
        buf[i] = -99;
    int64_t n6 = 6, s2 = 2;
    ufn_array A = ufn_host(x, UFN_FLOAT64, 1, &n6), B = ufn_host(y, UFN_FLOAT64, 1, &n6);
    ufn_array O = ufn_host_strided(buf, UFN_FLOAT64, 1, &n6, &s2);
    e2e_begin("a strided output writes every other element only");
    E2E_CALL(sub(&A, &B, &O));
    for (int i = 0; i < 12; i++) {
        double w = i % 2 ? -99 : x[i / 2] - y[i / 2];
        E2E_CHECK(buf[i] == w, "buf[%d] = %g, expected %g", i, buf[i], w);
    }
    e2e_end();

    /* In place: out is a (same data and strides), as NumPy allows. */
    double inplace[6];
    memcpy(inplace, x, sizeof inplace);
    ufn_array IP = ufn_host(inplace, UFN_FLOAT64, 1, &n6);
    e2e_begin("in place: sub(a, b, out=a)");
    E2E_CALL(sub(&IP, &B, &IP));
    for (int i = 0; i < 6; i++)
        E2E_CHECK(inplace[i] == x[i] - y[i], "[%d] = %g, expected %g", i, inplace[i], x[i] - y[i]);
    e2e_end();
}

static void empty_and_errors(double *x, double *y)
{
    /* 0-size: results of the broadcast shape, no element computed */
    view e0 = contiguous(x, 1, (int64_t[]){0}), e20 = contiguous(x, 2, (int64_t[]){2, 0});
    view e1 = contiguous(y, 1, (int64_t[]){1}), e0b = contiguous(y, 2, (int64_t[]){0, 1});
    expect_sub("(0,) - (1,) -> (0,)", &e0, &e1, 1, (int64_t[]){0}, "e0");
    expect_sub("(2,0) - (1,) -> (2,0)", &e20, &e1, 2, (int64_t[]){2, 0}, "e20");
    expect_sub("(0,1) - (1,) -> (0,1)", &e0b, &e1, 2, (int64_t[]){0, 1}, "e01");

    /* gufunc: no loop items, and an empty core (a sum of nothing is 0.0) */
    int64_t s05[2] = {0, 5}, s30[2] = {3, 0};
    ufn_array G0 = ufn_host(x, UFN_FLOAT64, 2, s05), G30 = ufn_host(x, UFN_FLOAT64, 2, s30);
    ufn_array r0 = {0}, r3 = {0};
    e2e_begin("gufunc total over (0,5) and (3,0)");
    E2E_CALL(total(&G0, &r0));
    E2E_CALL(total(&G30, &r3));
    E2E_CHECK(r0.ndim == 1 && r0.shape[0] == 0, "total((0,5)) has %d dims, shape[0] %lld",
              r0.ndim, (long long)r0.shape[0]);
    E2E_CHECK(r3.ndim == 1 && r3.shape[0] == 3, "total((3,0)) has %d dims, shape[0] %lld",
              r3.ndim, (long long)r3.shape[0]);
    for (int i = 0; r3.data && r3.shape[0] == 3 && i < 3; i++)
        E2E_CHECK(((double *)r3.data)[i] == 0.0, "total of an empty row = %g, expected 0",
                  ((double *)r3.data)[i]);
    e2e_end();
    ufn_free(&r0);
    ufn_free(&r3);

    /* Refusals leave the output as it was. */
    double out[4] = {7, 7, 7, 7};
    int64_t s3 = 3, s4 = 4, s22[2] = {2, 2};
    ufn_array A3 = ufn_host(x, UFN_FLOAT64, 1, &s3), B4 = ufn_host(y, UFN_FLOAT64, 1, &s4);
    ufn_array O4 = ufn_host(out, UFN_FLOAT64, 1, &s4), O22 = ufn_host(out, UFN_FLOAT64, 2, s22);
    ufn_array bad_ndim = A3;
    bad_ndim.ndim = UFN_MAXDIMS + 1;
    e2e_begin("refusals, with the output untouched");
    E2E_REFUSED(sub(&A3, &B4, &O4), UFN_ERR_SHAPE, "could not be broadcast together with shapes (3,) (4,)");
    E2E_REFUSED(sub(&B4, &B4, &O22), UFN_ERR_OUTPUT, "(4,) (4,) (2,2)");
    E2E_REFUSED(sub(&bad_ndim, &B4, &O4), UFN_ERR_NDIM, "input 0");
    E2E_REFUSED(sub(NULL, &B4, &O4), UFN_ERR_INVALID, "");
    E2E_CHECK(out[0] == 7 && out[1] == 7 && out[2] == 7 && out[3] == 7,
              "a refused call wrote its output: %g %g %g %g", out[0], out[1], out[2], out[3]);
    e2e_end();
}

int main(int argc, char **argv)
{
    double x[24], y[24];
    for (int i = 0; i < 24; i++) {
        x[i] = 100 + i * i;
        y[i] = 0.25 * i - 3;
    }
    e2e_start(argc, argv, "broadcast");
    broadcasting(x, y);
    views(x, y);
    empty_and_errors(x, y);
    return e2e_finish();
}
