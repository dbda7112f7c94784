/* cdiv.c - ufn_div_const_f32 and ufn_div_const_f64 (include/ufn_math.h),
 * the division by an odd integer constant as a product and two fmas, give
 * the bits of IEEE division `x / d` on every input.
 *
 *   cdiv [-n SAMPLES]     make check-math: float32 and float64, each
 *                         divisor of the tables below (and its negation, as
 *                         the emitter spells it: -(x / |d|)) against the
 *                         special values, x drawn over every binade
 *                         (SAMPLES each, default 1e5), and the x beside
 *                         the quotients' rounding midpoints; the premise of
 *                         the odd-only rule (an even divisor misses an exact
 *                         subnormal midpoint); seconds
 *   cdiv -x [-j JOBS] [D...]  by hand (make math-cdiv-exhaustive): all 2^32
 *                         float32 x for each divisor D (default: the table
 *                         `exhaustive_divisors`), in the widest loop the CPU
 *                         runs; prints a Markdown table
 *                         (tests/math/RESULTS-cdiv.md)
 *
 * The loops have a host loop's shape (d and y fixed for the loop, which gcc
 * vectorises: no vdivps in them), compiled with ufnc's host flags
 * (mk/mathlib.mk), in the baseline, AVX2 and AVX-512 variants the CPU runs.
 * The reference is `/` through a volatile divisor, which the compiler
 * cannot turn into anything else.  NaNs compare as NaNs (any payload).
 * Exit status 1 on the first difference, printed. */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ufn_math.h"

#define BLOCK 4096

static uint32_t bits32(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static uint64_t bits64(double f) { uint64_t u; memcpy(&u, &f, 8); return u; }
static float from32(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static double from64(uint64_t u) { double f; memcpy(&f, &u, 8); return f; }

/* The helper's loops, as the host backend compiles its loop variants
 * (compiler/emit_host.c).  neg: the result negated, as the emitter spells a
 * negative divisor (-ufn_div_const_f32(x, |d|, y): gcc folds that negation
 * into the last fma, which must not change a zero's sign). */
#define LOOPS(isa, target)                                                                      \
    target __attribute__((noinline)) static void div32_##isa(const float *x, int n, float d,    \
                                                             float y, int neg, float *q)        \
    {                                                                                           \
        if (neg)                                                                                \
            for (int i = 0; i < n; i++)                                                         \
                q[i] = -ufn_div_const_f32(x[i], d, y);                                          \
        else                                                                                    \
            for (int i = 0; i < n; i++)                                                         \
                q[i] = ufn_div_const_f32(x[i], d, y);                                           \
    }                                                                                           \
    target __attribute__((noinline)) static void div64_##isa(const double *x, int n, double d,  \
                                                             double y, int neg, double *q)      \
    {                                                                                           \
        if (neg)                                                                                \
            for (int i = 0; i < n; i++)                                                         \
                q[i] = -ufn_div_const_f64(x[i], d, y);                                          \
        else                                                                                    \
            for (int i = 0; i < n; i++)                                                         \
                q[i] = ufn_div_const_f64(x[i], d, y);                                           \
    }
typedef void Loop32(const float *, int, float, float, int, float *);
typedef void Loop64(const double *, int, double, double, int, double *);
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
LOOPS(baseline, )
LOOPS(avx2, __attribute__((target("avx2,fma"))))
LOOPS(avx512, __attribute__((target("avx512f,avx512dq,avx512vl,avx512bw,avx2,fma"))))
#define NISA 3
static Loop32 *const loops32[NISA] = {div32_baseline, div32_avx2, div32_avx512};
static Loop64 *const loops64[NISA] = {div64_baseline, div64_avx2, div64_avx512};
static bool isa_ok[NISA];

static void find_isas(void)
{
    isa_ok[0] = true;
    isa_ok[1] = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    isa_ok[2] = isa_ok[1] && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq")
                && __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bw");
}
#else
LOOPS(baseline, )
#define NISA 1
static Loop32 *const loops32[NISA] = {div32_baseline};
static Loop64 *const loops64[NISA] = {div64_baseline};
static bool isa_ok[NISA] = {true};
static void find_isas(void) {}
#endif
static const char *const isa_names[] = {"baseline", "avx2", "avx512"};

/* x / d on one ISA: the helper's bits (negated for d < 0) against `/`'s. */
static int check32_isa(const float *x, int n, float d, int isa)
{
    float got[BLOCK];
    float ad = fabsf(d), y = 1.0f / ad;
    loops32[isa](x, n, ad, y, d < 0, got);
    volatile float vd = d;
    float dv = vd;
    for (int i = 0; i < n; i++) {
        float want = x[i] / dv;
        if (bits32(got[i]) != bits32(want) && !(isnan(got[i]) && isnan(want))) {
            printf("cdiv (%s): %a / %a (0x%08" PRIx32 "): 0x%08" PRIx32 " (%a), `/` gives 0x%08" PRIx32 " (%a)\n",
                   isa_names[isa], x[i], d, bits32(x[i]), bits32(got[i]), got[i], bits32(want), want);
            return 1;
        }
    }
    return 0;
}

static int check64_isa(const double *x, int n, double d, int isa)
{
    double got[BLOCK];
    double ad = fabs(d), y = 1.0 / ad;
    loops64[isa](x, n, ad, y, d < 0, got);
    volatile double vd = d;
    double dv = vd;
    for (int i = 0; i < n; i++) {
        double want = x[i] / dv;
        if (bits64(got[i]) != bits64(want) && !(isnan(got[i]) && isnan(want))) {
            printf("cdiv (%s): %a / %a (0x%016" PRIx64 "): %a, `/` gives %a\n", isa_names[isa], x[i], d,
                   bits64(x[i]), got[i], want);
            return 1;
        }
    }
    return 0;
}

static long checked;

/* One block against d and -d, on every ISA the CPU runs. */
static int check32(const float *x, int n, float d)
{
    for (int k = 0; k < NISA; k++) {
        if (isa_ok[k] && (check32_isa(x, n, d, k) || check32_isa(x, n, -d, k)))
            return 1;
    }
    checked += 2 * n;
    return 0;
}

static int check64(const double *x, int n, double d)
{
    for (int k = 0; k < NISA; k++) {
        if (isa_ok[k] && (check64_isa(x, n, d, k) || check64_isa(x, n, -d, k)))
            return 1;
    }
    checked += 2 * n;
    return 0;
}

static uint64_t rng_state = 0x2545f4914f6cdd1dull;

static uint64_t rng(void)                       /* splitmix64 */
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* The divisors the emitter takes: odd integers, 3 <= d < 2^22 (float32),
 * < 2^50 (float64); the largest ones are where the proof is tightest. */
static const double divisors32[] = {3, 5, 7, 9, 11, 15, 17, 51, 85, 255, 1001, 4095, 65535, 65537, 1234567,
                                    0x3ffffd, 0x3fffff};
static const double divisors64[] = {3, 5, 7, 9, 255, 1001, 65535, 4294967295.0, 4294967297.0, 1e15 + 1,
                                    1125899906842621.0 /* 2^50 - 3 */, 1125899906842623.0 /* 2^50 - 1 */};
#define N(a) ((int)(sizeof(a) / sizeof((a)[0])))

static const float specials32[] = {
    0.0f, -0.0f, 1.0f, -1.0f, 3.0f, 255.0f, 0x1p-149f, -0x1p-149f, 0x1p-148f, 3 * 0x1p-149f, 0x1.fffffcp-127f,
    0x1p-126f, -0x1p-126f, 0x1.fffffep+127f, -0x1.fffffep+127f, 0x1p+127f, (float)INFINITY, -(float)INFINITY,
    NAN, -NAN, 0x1.000002p+0f, 0x1.fffffep-1f, 1e-30f, 1e30f, 0x1.26p-142f,
};
static const double specials64[] = {
    0.0, -0.0, 1.0, -1.0, 3.0, 255.0, 0x1p-1074, -0x1p-1074, 0x1p-1073, 3 * 0x1p-1074, 0x1.ffffffffffffep-1023,
    0x1p-1022, -0x1p-1022, DBL_MAX, -DBL_MAX, 0x1p+1023, INFINITY, -INFINITY, NAN, -NAN, 0x1.0000000000001p+0,
    0x1.fffffffffffffp-1, 1e-300, 1e300,
};

/* float32: the specials, random x in every binade (subnormals included, by
 * bit pattern), and the x nearest d m for midpoints m of the quotients. */
static int sampled32(float d, long samples)
{
    float x[BLOCK];
    if (check32(specials32, N(specials32), d))
        return 1;
    for (long done = 0; done < samples; done += BLOCK) {
        for (int i = 0; i < BLOCK; i++) {
            uint64_t r = rng();
            if (i % 2 == 0) {                   /* exponent field uniform: every binade */
                x[i] = from32((uint32_t)r);
            } else {                            /* beside a midpoint of the quotient grid */
                float q = from32((uint32_t)(r >> 32) & 0x7f7fffffu);
                double mid = 0.5 * ((double)q + (double)nextafterf(q, INFINITY));
                float xm = (float)(mid * d);    /* mid d exact: 25 + 22 bits */
                for (int k = (int)(r % 5); k > 0; k--)
                    xm = nextafterf(xm, (r >> 3) & 1 ? INFINITY : -INFINITY);
                x[i] = (r >> 4) & 1 ? -xm : xm;
            }
        }
        if (check32(x, BLOCK, d))
            return 1;
    }
    return 0;
}

static int sampled64(double d, long samples)
{
    double x[BLOCK];
    if (check64(specials64, N(specials64), d))
        return 1;
    for (long done = 0; done < samples; done += BLOCK) {
        for (int i = 0; i < BLOCK; i++) {
            uint64_t r = rng();
            if (i % 2 == 0) {
                x[i] = from64(r);
            } else {                            /* d m, m a midpoint, to 2^-106 (two products) */
                double q = from64(r & 0x7fefffffffffffffull), u = nextafter(q, INFINITY) - q;
                double hi = q * d, lo = fma(q, d, -hi) + 0.5 * u * d;
                double xm = hi + lo;
                for (int k = (int)((r >> 56) % 5); k > 0; k--)
                    xm = nextafter(xm, (r >> 61) & 1 ? INFINITY : -INFINITY);
                x[i] = (r >> 62) & 1 ? -xm : xm;
            }
        }
        if (check64(x, BLOCK, d))
            return 1;
    }
    return 0;
}

/* Why the emitter declines even divisors (the helper's comment, step 5):
 * 0x1.26p-142 / 98 is the subnormal midpoint 3 2^-150, which `/` rounds to
 * even (2^-148); the sequence does not. */
static int even_premise(void)
{
    volatile float vx = 0x1.26p-142f, vd = 98.0f;
    float q = ufn_div_const_f32(vx, 98.0f, 1.0f / 98.0f);
    if (vx / vd != 0x1p-148f || q == 0x1p-148f) {
        printf("cdiv: 0x1.26p-142 / 98 no longer separates even divisors (%a)\n", q);
        return 1;
    }
    return 0;
}

static int sampled(long samples)
{
    for (int k = 0; k < N(divisors32); k++) {
        if (sampled32((float)divisors32[k], samples))
            return 1;
    }
    for (int k = 0; k < N(divisors64); k++) {
        if (sampled64(divisors64[k], samples))
            return 1;
    }
    if (even_premise())
        return 1;
    printf("cdiv: %ld quotients (%d float32 and %d float64 divisors, each sign), the bits of `/` in every one\n",
           checked, N(divisors32), N(divisors64));
    return 0;
}

/* ---- exhaustive over float32 x: cdiv -x ---- */

static const float exhaustive_divisors[] = {255, 3, 0x3fffff, 7, 1001, 65535, -255};

static int best_isa(void)
{
    int k = 0;
    while (k + 1 < NISA && isa_ok[k + 1])
        k++;
    return k;
}

typedef struct Job {
    float d;
    uint64_t lo, hi;             /* bit patterns [lo, hi) */
    int failed;
} Job;

static void *exhaustive_job(void *arg)
{
    Job *job = arg;
    float x[BLOCK];
    for (uint64_t u = job->lo; u < job->hi && !job->failed; u += BLOCK) {
        for (int i = 0; i < BLOCK; i++)
            x[i] = from32((uint32_t)(u + (uint64_t)i));
        job->failed = check32_isa(x, BLOCK, job->d, best_isa());
    }
    return NULL;
}

static int exhaustive(int jobs, const float *ds, int nd)
{
    pthread_t tid[64];
    Job job[64];
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    printf("| divisor | x | differences from `/` |\n|---|---|---|\n");
    for (int k = 0; k < nd; k++) {
        uint64_t part = (1ull << 32) / (uint64_t)jobs;
        for (int j = 0; j < jobs; j++) {
            job[j] = (Job){.d = ds[k], .lo = j * part, .hi = j + 1 == jobs ? 1ull << 32 : (j + 1) * part};
            pthread_create(&tid[j], NULL, exhaustive_job, &job[j]);
        }
        int failed = 0;
        for (int j = 0; j < jobs; j++) {
            pthread_join(tid[j], NULL);
            failed |= job[j].failed;
        }
        if (failed)
            return 1;
        printf("| %.0f | all 2^32 | 0 |\n", (double)ds[k]);
        fflush(stdout);
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    printf("\n%d divisors x 2^32 numerators, %s loop, in %.0f s, %d threads\n", nd, isa_names[best_isa()],
           (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec), jobs);
    return 0;
}

int main(int argc, char **argv)
{
    find_isas();
    long samples = 100000;
    int jobs = 1, nd = 0;
    bool all = false;
    float ds[64];
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-n") && i + 1 < argc)
            samples = (long)strtod(argv[++i], NULL);
        else if (!strcmp(argv[i], "-j") && i + 1 < argc)
            jobs = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-x"))
            all = true;
        else if (all && nd < 64 && strtod(argv[i], NULL) != 0)
            ds[nd++] = (float)strtod(argv[i], NULL);
        else {
            fprintf(stderr, "usage: cdiv [-n SAMPLES] | cdiv -x [-j JOBS] [DIVISOR...]\n");
            return 2;
        }
    }
    if (jobs < 1 || jobs > 64)
        jobs = 1;
    if (!all)
        return sampled(samples);
    if (nd == 0)
        return exhaustive(jobs, exhaustive_divisors, N(exhaustive_divisors));
    return exhaustive(jobs, ds, nd);
}
