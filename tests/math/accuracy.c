/* accuracy.c - every math function of include/ufn_libm.h against MPFR, on
 * sampled inputs: the edge cases (zeros, subnormals, the limits, inf, nan,
 * each function's own), random bit patterns over every exponent, and
 * uniform inputs in the function's usual range.  Each result's error in
 * ulp (tests/math/ulp.h) must be within the bound of tests/math/functions.h,
 * which is the bound ufn(7) documents; special values must be the right
 * ones (a nan, an infinity, a signed zero).  `make check-math` runs it.
 *
 *     accuracy [-n SAMPLES] [FUNCTION...]
 *
 * Prints one line per function and format: the largest error seen, at
 * which input, and how many results were not correctly rounded.  Exit
 * status 1 if any bound is exceeded.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ufn_math.h"
#include "ulp.h"
#include "functions.h"

#define REF_PREC 256

typedef int (*mpfr_fn1)(mpfr_ptr, mpfr_srcptr, mpfr_rnd_t);
typedef int (*mpfr_fn2)(mpfr_ptr, mpfr_srcptr, mpfr_srcptr, mpfr_rnd_t);

typedef struct func {
    const char *name;
    int nargs;
    float (*f32_1)(float);
    double (*f64_1)(double);
    float (*f32_2)(float, float);
    double (*f64_2)(double, double);
    mpfr_fn1 ref1;
    mpfr_fn2 ref2;
    double bound32, bound64, lo, hi;
} func;

#define ENTRY1(n, ref, b32, b64, lo, hi) {#n, 1, ufn_##n##_f32, ufn_##n##_f64, NULL, NULL, ref, NULL, b32, b64, lo, hi},
#define ENTRY2(n, ref, b32, b64, lo, hi) {#n, 2, NULL, NULL, ufn_##n##_f32, ufn_##n##_f64, NULL, ref, b32, b64, lo, hi},
static const func funcs[] = {UFN_LIBM_FUNCTIONS(ENTRY1, ENTRY2)};
#define NFUNCS (sizeof funcs / sizeof funcs[0])

/* ---- inputs ------------------------------------------------------------------------------ */

static uint64_t rng_state = 0x243f6a8885a308d3ull;

static uint64_t rng(void)                       /* splitmix64 */
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static double uniform(double lo, double hi) { return lo + (hi - lo) * (double)(rng() >> 11) * 0x1p-53; }

static const double edges[] = {
    0.0, 0x1p-1074, 0x1p-1022, 0x1.fffffffffffffp-1023, 0x1p-149, 0x1p-126, 0x1.fffffcp-127,
    0x1p-60, 0x1p-30, 0x1p-27, 0x1p-12, 0.1, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 10.0, 100.0,
    0x1p24, 0x1p53, 0x1p100, 0x1.fffffep127, 0x1.fffffffffffffp1023, INFINITY,
    /* near the limits of exp and friends */
    88.72283172607421875, 88.72283935546875, 103.97207641601562, 103.97208404541015625,
    709.782712893384, 709.7827128933841, 745.1332191019411, 745.1332191019412, 1024.0, 1075.0,
    /* near multiples of pi/2, and huge trig arguments */
    0x1.921fb6p+0, 0x1.921fb54442d18p+0, 0x1.921fb54442d18p+1, 0x1.2d97c7f3321d2p+2,
    6381956970095103.0 * 0x1p797, 1e22, 0x1.8p1000, 0x1.5p60,
};
#define NEDGES (sizeof edges / sizeof edges[0])

/* input number i of n: edge cases (with both signs) and nan first, then
 * random bits and uniform values alternately */
static double input(const func *f, int f32, long i)
{
    if (i < (long)(2 * NEDGES))
        return i & 1 ? -edges[i / 2] : edges[i / 2];
    if (i == (long)(2 * NEDGES))
        return NAN;
    if (i & 1) {
        if (f32) {
            uint32_t b = (uint32_t)rng();
            float x;
            memcpy(&x, &b, 4);
            return x;
        }
        uint64_t b = rng();
        double x;
        memcpy(&x, &b, 8);
        return x;
    }
    return uniform(f->lo, f->hi);
}

/* ---- one function, one format ------------------------------------------------------------- */

typedef struct result {
    double max;            /* largest error */
    double at[2];          /* its input */
    long n, not_cr, wrong;
} result;

/* The exponent below which errors are measured in ulp of 2^e, not of the
 * result (ulp.h): lgamma's float64 bound for x < 0 is in ulp of
 * max(|lgamma(x)|, 1), as ufn(7) says, since near its zeros there (-2.457...,
 * -2.747..., ...) no relative bound holds. */
static long efloor(const func *f, int f32, double x)
{
    return !f32 && x < 0.0 && !strcmp(f->name, "lgamma") ? 0 : LONG_MIN;
}

static void check_one(const func *f, int f32, const double *x, result *res, mpfr_ptr a, mpfr_ptr b, mpfr_ptr z)
{
    double y;
    mpfr_set_d(a, x[0], MPFR_RNDN);
    if (f->nargs == 1) {
        y = f32 ? (double)f->f32_1((float)x[0]) : f->f64_1(x[0]);
        f->ref1(z, a, MPFR_RNDN);
    } else {
        mpfr_set_d(b, x[1], MPFR_RNDN);
        y = f32 ? (double)f->f32_2((float)x[0], (float)x[1]) : f->f64_2(x[0], x[1]);
        f->ref2(z, a, b, MPFR_RNDN);
    }
    double err = ulp_error_floor(f32 ? &ulp_f32 : &ulp_f64, y, z, efloor(f, f32, x[0]));
    res->n++;
    if (err > 0.5)
        res->not_cr++;
    if (err >= UFN_ULP_WRONG)
        res->wrong++;
    if (err > res->max || res->n == 1) {
        res->max = err;
        res->at[0] = x[0];
        res->at[1] = x[1];
    }
}

static void check_func(const func *f, int f32, long samples, result *res)
{
    mpfr_t a, b, z;
    mpfr_inits2(REF_PREC, a, b, z, (mpfr_ptr)0);
    memset(res, 0, sizeof *res);
    for (long i = 0; i < samples; i++) {
        double x[2];
        x[0] = input(f, f32, i);
        x[1] = 0.0;
        if (f->nargs == 2) {
            /* every pair of edge cases, then random pairs */
            long ne = 2 * NEDGES + 1;
            if (i < ne * ne) {
                x[0] = input(f, f32, i / ne);
                x[1] = input(f, f32, i % ne);
            } else {
                x[1] = input(f, f32, ne + (long)(rng() % 1000));
            }
        }
        if (f32) {
            x[0] = (float)x[0];
            x[1] = (float)x[1];
        }
        if (f->ref2 == mpfr_copysign && isnan(x[1]))
            continue;                           /* MPFR gives a nan no sign */
        check_one(f, f32, x, res, a, b, z);
    }
    mpfr_clears(a, b, z, (mpfr_ptr)0);
}

int main(int argc, char **argv)
{
    long samples = 20000;
    int failed = 0, argi = 1;
    for (; argi < argc && argv[argi][0] == '-'; argi++) {
        if (!strcmp(argv[argi], "-n") && argi + 1 < argc)
            samples = atol(argv[++argi]);
        else {
            fprintf(stderr, "usage: accuracy [-n SAMPLES] [FUNCTION...]\n");
            return 2;
        }
    }
    printf("%-10s %-7s %10s %10s %9s  %s\n", "function", "format", "max ulp", "bound", "not CR", "worst input");
    for (size_t k = 0; k < NFUNCS; k++) {
        const func *f = &funcs[k];
        int chosen = argi == argc;
        for (int i = argi; i < argc; i++)
            chosen |= !strcmp(argv[i], f->name);
        if (!chosen)
            continue;
        for (int f32 = 1; f32 >= 0; f32--) {
            result r;
            double bound = f32 ? f->bound32 : f->bound64;
            long n = f->nargs == 2 ? samples + (2 * (long)NEDGES + 1) * (2 * (long)NEDGES + 1) : samples;
            check_func(f, f32, n, &r);
            int bad = r.max > bound;
            failed |= bad;
            char at[80];
            if (f->nargs == 1)
                snprintf(at, sizeof at, "%a", r.at[0]);
            else
                snprintf(at, sizeof at, "%a, %a", r.at[0], r.at[1]);
            printf("%-10s %-7s %10.4g %10.4g %9ld  %s%s\n", f->name, f32 ? "float32" : "float64",
                   r.max >= UFN_ULP_WRONG ? INFINITY : r.max, bound, r.not_cr, at,
                   r.wrong ? "  WRONG SPECIAL VALUE" : bad ? "  OVER THE BOUND" : "");
        }
    }
    return failed;
}
