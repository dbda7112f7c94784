/* cdiv - division by an integer constant (cdiv.ufn) gives the bits of C's
 * IEEE division by the same divisor, on special inputs and random ones:
 * +-0, subnormals (3 2^-150 d: the quotient an exact subnormal midpoint
 * for even d, hence 98, which ufnc leaves to `/`), the limits, +-inf, nan,
 * x beside a midpoint of the quotient's grid, random bit patterns.
 * tests/e2e/run.sh runs it on every host ISA, thread count and the
 * simulator, and cmpdump compares the dumps.  NaNs compare as NaNs.  The
 * composed functions (*_beside_exp) call the dividing bodies' divider
 * copies, spelled `/`: the same bits again. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cdiv.h"
#include "e2e.h"

#define N 40963         /* above the host backend's threshold for threads */

static float xf[N];
static double xd[N];

static void fill(void)
{
    static const float edges[] = {
        0.0f, -0.0f, 1.0f, -1.0f, 255.0f, -765.0f, 0x1p-149f, -0x1p-149f, 3 * 0x1p-149f, 0x1.26p-142f,
        -0x1.26p-142f, 0x1p-126f, 0x1.fffffcp-127f, FLT_MAX, -FLT_MAX, INFINITY, -INFINITY, NAN, 4194303.0f,
        0x1.000002p+0f, 0x1.fffffep-1f,
    };
    sample_rng r = {26};
    for (int i = 0; i < N; i++) {
        uint64_t u = sample_next(&r);
        if (i < (int)(sizeof edges / sizeof edges[0]))
            xf[i] = edges[i];
        else if (i % 3 == 0) {                 /* beside d m, m a midpoint of the float32 grid */
            float q = (float)ldexp(sample_uniform(&r, 1, 2), (int)sample_uniform(&r, -150, 120));
            float x = (float)((double)q * 255.0 + 127.5 * (double)(nextafterf(q, INFINITY) - q));
            xf[i] = (u & 1) ? nextafterf(x, INFINITY) : x;
        } else {                                /* any bit pattern */
            uint32_t b = (uint32_t)u;
            memcpy(&xf[i], &b, 4);
        }
        if (i < (int)(sizeof edges / sizeof edges[0]) || i % 3 == 0)
            xd[i] = xf[i];
        else
            memcpy(&xd[i], &u, 8);
    }
}

static int same32(float a, float b) { return memcmp(&a, &b, 4) == 0 || (isnan(a) && isnan(b)); }
static int same64(double a, double b) { return memcmp(&a, &b, 8) == 0 || (isnan(a) && isnan(b)); }

/* the dumps compare a nan as the one quiet nan */
static void canonical(float *f, double *d)
{
    for (int i = 0; i < N; i++) {
        if (f && isnan(f[i]))
            f[i] = NAN;
        if (d && isnan(d[i]))
            d[i] = NAN;
    }
}

typedef int (*ufunc)(const ufn_array *, ufn_array *);
typedef int (*ufunc2)(const ufn_array *, const ufn_array *, ufn_array *);

/* f(x), or (f2) a composed function's f2(x, 0) = f(x) exp(0) = f(x): the
 * dividing body inlined into a loop that evaluates exp, where it is called
 * as its divider copy (cdiv.ufn) */
static void check32(const char *name, ufunc f, ufunc2 f2, float d)
{
    static float out[N], zero[N];
    int64_t n = N;
    volatile float vd = d;
    ufn_array X = ufn_host(xf, UFN_FLOAT32, 1, &n), O = ufn_host(out, UFN_FLOAT32, 1, &n);
    ufn_array Y = ufn_host(zero, UFN_FLOAT32, 1, &n);
    if (f2) {
        e2e_begin("%s: float32 x / %g beside exp", name, (double)d);
        E2E_CALL(f2(&X, &Y, &O));
    } else {
        e2e_begin("%s: float32 x / %g", name, (double)d);
        E2E_CALL(f(&X, &O));
    }
    for (int i = 0; i < N; i++) {
        float want = xf[i] / vd;
        E2E_CHECK(same32(out[i], want), "x = %a: %a, IEEE x / d = %a", (double)xf[i], (double)out[i], (double)want);
    }
    e2e_end();
    canonical(out, NULL);
    sample_dump_exact(name, UFN_FLOAT32, out, N);
}

static void check64(const char *name, ufunc f, const void *x, ufn_dtype in, double d)
{
    static double out[N];
    int64_t n = N;
    volatile double vd = d;
    ufn_array X = ufn_host((void *)x, in, 1, &n), O = ufn_host(out, UFN_FLOAT64, 1, &n);
    e2e_begin("%s: float64 x / %g (x %s)", name, d, in == UFN_FLOAT32 ? "float32" : "float64");
    E2E_CALL(f(&X, &O));
    for (int i = 0; i < N; i++) {
        double xi = in == UFN_FLOAT32 ? (double)xf[i] : xd[i], want = xi / vd;
        E2E_CHECK(same64(out[i], want), "x = %a: %a, IEEE x / d = %a", xi, out[i], want);
    }
    e2e_end();
    canonical(NULL, out);
    sample_dump_exact(name, UFN_FLOAT64, out, N);
}

int main(int argc, char **argv)
{
    e2e_start(argc, argv, "cdiv");
    fill();
    check32("by255", by255, NULL, 255.0f);
    check64("by255_f64", by255, xd, UFN_FLOAT64, 255.0);
    check32("by_minus3", by_minus3, NULL, -3.0f);
    check32("by_big", by_big, NULL, 4194303.0f);
    check64("wide7", wide7, xf, UFN_FLOAT32, 7.0);
    check32("by98", by98, NULL, 98.0f);
    check32("third", third, NULL, 3.0f);
    check32("by255_beside_exp", NULL, by255_beside_exp, 255.0f);
    check32("third_beside_exp", NULL, third_beside_exp, 3.0f);
    return e2e_finish();
}
