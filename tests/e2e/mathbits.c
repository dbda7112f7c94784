/* mathbits - one answer per input (mathbits.ufn): each math function, float32
 * and float64, gives the same bits as ufn_math.h's scalar function compiled
 * into this program, whichever way it is called: contiguous arrays long
 * enough for the host backend to split them across threads (and not a
 * multiple of any vector length: the remainder loop too), every other
 * element of a strided array, and one element at a time.  tests/e2e/run.sh
 * then runs the program on every host ISA, with one thread and several, and
 * on the simulator, and cmpdump requires the dumps to agree bit for bit.
 *
 * The inputs mix ordinary arguments with edge cases: zeros, subnormals,
 * the overflow limits of exp, huge trigonometric arguments, inf and nan.
 * A nan's sign and payload are not specified (ufn(7)): nans compare equal
 * here, and are dumped as the one quiet nan. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "e2e.h"
#include "mathbits.h"
#include "ufn_math.h"

#define N 40963         /* above the host backend's 32K threshold for threads */
#define ONE_BY_ONE 64   /* the elements also computed by calls of length 1 */

typedef int (*ufunc1)(const ufn_array *, ufn_array *);
typedef int (*ufunc2)(const ufn_array *, const ufn_array *, ufn_array *);

typedef struct fn {
    const char *name;
    ufunc1 u1;
    ufunc2 u2;
    float (*s1_f32)(float);
    double (*s1_f64)(double);
    float (*s2_f32)(float, float);
    double (*s2_f64)(double, double);
} fn;

#define F1(n) {#n, m_##n, NULL, ufn_##n##_f32, ufn_##n##_f64, NULL, NULL}
#define F2(n) {#n, NULL, m_##n, NULL, NULL, ufn_##n##_f32, ufn_##n##_f64}
static const fn fns[] = {
    F1(sin), F1(cos), F1(tan), F1(exp), F1(expm1), F1(log), F1(log1p), F1(asin), F1(atan),
    F1(tanh), F1(erf), F1(lgamma), F2(atan2), F2(pow), F2(hypot),
};

static double xs[2 * N], ys[2 * N];     /* every other element is the strided operand */
static float xf[2 * N], yf[2 * N];

static void fill(void)
{
    static const double edges[] = {
        0.0, -0.0, 0x1p-1074, 0x1p-1022, 0x1p-149, 0x1p-126, 1.0, -1.0, 0.5, 2.0, 88.72283935546875,
        -103.97208404541015625, 709.7827128933841, -745.1332191019412, 0x1p17, 0x1p45, 1e22, 0x1.8p1000,
        -0x1.5p60, 0x1.921fb54442d18p+0, 0x1.fffffep127, 0x1.fffffffffffffp1023, INFINITY, -INFINITY, NAN,
    };
    sample_rng r = {18};
    for (int i = 0; i < 2 * N; i++) {
        double x, y;
        int k = (i / 2) % 7;
        if (i / 2 < (int)(sizeof edges / sizeof edges[0])) {
            x = edges[i / 2];
            y = edges[(i / 2 + 3) % (sizeof edges / sizeof edges[0])];
        } else if (k == 0) {                  /* any exponent, either sign */
            x = ldexp(sample_uniform(&r, -1, 1), (int)sample_uniform(&r, -140, 140));
            y = ldexp(sample_uniform(&r, -1, 1), (int)sample_uniform(&r, -140, 140));
        } else if (k == 1) {                  /* huge trigonometric arguments */
            x = sample_uniform(&r, -1e6, 1e6) * 0x1p40;
            y = sample_uniform(&r, -4, 4);
        } else {
            x = sample_uniform(&r, -12, 12);
            y = sample_uniform(&r, -12, 12);
        }
        xs[i] = x, ys[i] = y;
        xf[i] = (float)x, yf[i] = (float)y;
    }
}

/* equal bits, or both nan */
static int same64(double a, double b) { return memcmp(&a, &b, 8) == 0 || (isnan(a) && isnan(b)); }
static int same32(float a, float b) { return memcmp(&a, &b, 4) == 0 || (isnan(a) && isnan(b)); }

static void canonical_nans(void *p, int f32, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (f32 && isnan(((float *)p)[i]))
            ((float *)p)[i] = NAN;
        else if (!f32 && isnan(((double *)p)[i]))
            ((double *)p)[i] = NAN;
    }
}

static double ref(const fn *f, int f32, long i)
{
    if (f32)
        return f->u1 ? f->s1_f32(xf[i]) : f->s2_f32(xf[i], yf[i]);
    return f->u1 ? f->s1_f64(xs[i]) : f->s2_f64(xs[i], ys[i]);
}

/* f(x[i]) of the arrays x (and y) whose elements are `step` apart, n of them */
static int call(const fn *f, int f32, long first, int64_t n, int64_t step, void *out)
{
    ufn_dtype t = f32 ? UFN_FLOAT32 : UFN_FLOAT64;
    void *x = f32 ? (void *)&xf[first] : (void *)&xs[first], *y = f32 ? (void *)&yf[first] : (void *)&ys[first];
    ufn_array X = ufn_host_strided(x, t, 1, &n, &step), Y = ufn_host_strided(y, t, 1, &n, &step);
    ufn_array O = ufn_host(out, t, 1, &n);
    return f->u1 ? f->u1(&X, &O) : f->u2(&X, &Y, &O);
}

/* f(x[i], y[yi]) over the whole of x, y[yi] a broadcast operand (step 0):
 * the host loops' scalar path (ufn_abi.h) */
static int call_scalar(const fn *f, int f32, long yi, int64_t n, void *out)
{
    ufn_dtype t = f32 ? UFN_FLOAT32 : UFN_FLOAT64;
    int64_t one = 1, zero = 0;
    void *x = f32 ? (void *)xf : (void *)xs, *y = f32 ? (void *)&yf[yi] : (void *)&ys[yi];
    ufn_array X = ufn_host_strided(x, t, 1, &n, &one), Y = ufn_host_strided(y, t, 1, &n, &zero);
    ufn_array O = ufn_host(out, t, 1, &n);
    return f->u2(&X, &Y, &O);
}

static double ref_scalar(const fn *f, int f32, long i, long yi)
{
    return f32 ? f->s2_f32(xf[i], yf[yi]) : f->s2_f64(xs[i], ys[yi]);
}

static void check_scalar(const fn *f, int f32, void *out)
{
    static const long yis[] = {12, 13, 26, 4000};     /* 1.0, -1.0, an edge's neighbour, a sample */
    float *out32 = out;
    double *out64 = out;
    for (size_t k = 0; k < sizeof yis / sizeof yis[0]; k++) {
        long yi = yis[k];
        e2e_begin("%s %s, the second argument broadcast (y = %a)", f->name, f32 ? "float32" : "float64",
                  f32 ? yf[yi] : ys[yi]);
        E2E_CALL(call_scalar(f, f32, yi, 2 * N, out));
        for (long i = 0; i < 2 * N; i++) {
            double r = ref_scalar(f, f32, i, yi);
            E2E_CHECK(f32 ? same32(out32[i], (float)r) : same64(out64[i], r), "x = %a: %a, the scalar function %a",
                      f32 ? xf[i] : xs[i], f32 ? (double)out32[i] : out64[i], r);
        }
        e2e_end();
        canonical_nans(out, f32, 2 * N);
        char name[64];
        snprintf(name, sizeof name, "%s_by_y%ld", f->name, yi);
        sample_dump_exact(name, f32 ? UFN_FLOAT32 : UFN_FLOAT64, out, 2 * N);
    }
}

static void check(const fn *f, int f32)
{
    static double out64[2 * N];
    static float out32[2 * N];
    void *out = f32 ? (void *)out32 : (void *)out64;
    const char *type = f32 ? "float32" : "float64";
#define GOT(i) (f32 ? (double)out32[i] : out64[i])
#define SAME(i, r) (f32 ? same32(out32[i], (float)(r)) : same64(out64[i], (r)))

    e2e_begin("%s %s, contiguous, %d elements", f->name, type, 2 * N);
    E2E_CALL(call(f, f32, 0, 2 * N, 1, out));
    for (long i = 0; i < 2 * N; i++)
        E2E_CHECK(SAME(i, ref(f, f32, i)), "x = %a: %a, the scalar function %a", f32 ? xf[i] : xs[i], GOT(i),
                  ref(f, f32, i));
    e2e_end();
    canonical_nans(out, f32, 2 * N);
    sample_dump_exact(f->name, f32 ? UFN_FLOAT32 : UFN_FLOAT64, out, 2 * N);

    e2e_begin("%s %s, every other element (strided)", f->name, type);
    E2E_CALL(call(f, f32, 1, N, 2, out));
    for (long i = 0; i < N; i++)
        E2E_CHECK(SAME(i, ref(f, f32, 2 * i + 1)), "x = %a: %a, the scalar function %a",
                  f32 ? xf[2 * i + 1] : xs[2 * i + 1], GOT(i), ref(f, f32, 2 * i + 1));
    e2e_end();

    e2e_begin("%s %s, one element a call", f->name, type);
    for (long i = 0; i < ONE_BY_ONE; i++) {
        E2E_CALL(call(f, f32, i, 1, 1, out));
        E2E_CHECK(SAME(0, ref(f, f32, i)), "x = %a: %a, the scalar function %a", f32 ? xf[i] : xs[i], GOT(0),
                  ref(f, f32, i));
    }
    e2e_end();
#undef GOT
#undef SAME
    if (f->u2)
        check_scalar(f, f32, out);
}

int main(int argc, char **argv)
{
    e2e_start(argc, argv, "mathbits");
    fill();
    for (size_t k = 0; k < sizeof fns / sizeof fns[0]; k++)
        for (int f32 = 1; f32 >= 0; f32--)
            check(&fns[k], f32);
    return e2e_finish();
}
