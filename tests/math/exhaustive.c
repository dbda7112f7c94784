/* exhaustive.c - every float32 input of every one-argument float32 function
 * of include/ufn_libm.h, against the correctly rounded result.
 *
 *     exhaustive [-j THREADS] [-r LO:HI] [FUNCTION...]
 *
 * 2^32 inputs a function.  MPFR for each would take hours (0.5-2.5 us an
 * input), so the function is evaluated in blocks by a loop compiled for
 * AVX2 and FMA where the CPU has them (as a host loop is: the same bits as
 * the scalar function, which tests/math/lanes.c and the mathbits tests
 * check; a baseline loop calls glibc's fma for every fused operation and
 * took more time than the rest), and each input is first measured against
 * glibc's float64 function, whose error (below 1 float64 ulp here, 2^-29 of a float32 ulp)
 * cannot move a float32 result across a rounding boundary unless the result
 * is within 2^-20 ulp of one.  MPFR then decides exactly, for those inputs
 * and for every input above 1/2 ulp that could be the largest error seen so
 * far; so the count of results that are not correctly rounded, and the
 * maximum with its input when it is above 1/2 ulp, are MPFR's.  Special results (nan, inf, zero) are checked with
 * MPFR too.  -r limits the bit patterns (hex, HI exclusive) for a quick
 * look.  `make math-exhaustive` runs it and writes tests/math/RESULTS.md.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ufn_math.h"
#include "ulp.h"


#define REF_PREC 128
#define MARGIN 0x1p-20              /* of a float32 ulp: well above glibc's error */

typedef int (*mpfr_fn1)(mpfr_ptr, mpfr_srcptr, mpfr_rnd_t);

typedef void (*block_fn)(const float *x, float *y, size_t n);

typedef struct func {
    const char *name;
    block_fn block[2];              /* baseline, AVX2 + FMA */
    double (*ref64)(double);        /* glibc's float64 function */
    mpfr_fn1 ref;
    double bound;
} func;

static int ref_lgamma_mpfr(mpfr_ptr r, mpfr_srcptr x, mpfr_rnd_t rnd)
{
    int sign;
    return mpfr_lgamma(r, &sign, x, rnd);
}

/* y = f(x) over a block, for the baseline and for AVX2 + FMA */
#if defined(__x86_64__) && defined(__GNUC__)
#define EXH_AVX2 __attribute__((target("avx2,fma")))
#define EXH_HAVE_AVX2() (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
#else
#define EXH_AVX2
#define EXH_HAVE_AVX2() 0
#endif
#define BLOCKS(n)                                                                             \
    static void block_##n(const float *x, float *y, size_t k)                                 \
    {                                                                                         \
        for (size_t i = 0; i < k; i++)                                                        \
            y[i] = ufn_##n##_f32(x[i]);                                                       \
    }                                                                                         \
    EXH_AVX2 static void block_##n##_avx2(const float *x, float *y, size_t k)                 \
    {                                                                                         \
        for (size_t i = 0; i < k; i++)                                                        \
            y[i] = ufn_##n##_f32(x[i]);                                                       \
    }
BLOCKS(sqrt) BLOCKS(exp) BLOCKS(exp2) BLOCKS(expm1) BLOCKS(log) BLOCKS(log2) BLOCKS(log10) BLOCKS(log1p)
BLOCKS(sin) BLOCKS(cos) BLOCKS(tan) BLOCKS(asin) BLOCKS(acos) BLOCKS(atan) BLOCKS(sinh) BLOCKS(cosh)
BLOCKS(tanh) BLOCKS(asinh) BLOCKS(acosh) BLOCKS(atanh) BLOCKS(erf) BLOCKS(erfc) BLOCKS(tgamma) BLOCKS(lgamma)
#undef BLOCKS

static int use_avx2;

static const func funcs[] = {
#define E(n, g, m) {#n, {block_##n, block_##n##_avx2}, g, m, 0.0},
    E(sqrt, sqrt, mpfr_sqrt) E(exp, exp, mpfr_exp) E(exp2, exp2, mpfr_exp2) E(expm1, expm1, mpfr_expm1)
    E(log, log, mpfr_log) E(log2, log2, mpfr_log2) E(log10, log10, mpfr_log10) E(log1p, log1p, mpfr_log1p)
    E(sin, sin, mpfr_sin) E(cos, cos, mpfr_cos) E(tan, tan, mpfr_tan)
    E(asin, asin, mpfr_asin) E(acos, acos, mpfr_acos) E(atan, atan, mpfr_atan)
    E(sinh, sinh, mpfr_sinh) E(cosh, cosh, mpfr_cosh) E(tanh, tanh, mpfr_tanh)
    E(asinh, asinh, mpfr_asinh) E(acosh, acosh, mpfr_acosh) E(atanh, atanh, mpfr_atanh)
    E(erf, erf, mpfr_erf) E(erfc, erfc, mpfr_erfc) E(tgamma, tgamma, mpfr_gamma)
    E(lgamma, lgamma, ref_lgamma_mpfr)
#undef E
};
#define NFUNCS (sizeof funcs / sizeof funcs[0])

typedef struct job {
    const func *f;
    uint64_t lo, hi;                /* bit patterns [lo, hi) */
    double max;
    uint32_t at;
    uint64_t not_cr, wrong, mpfr_calls;
} job;

static double exact_error(const func *f, float x, float y, mpfr_ptr a, mpfr_ptr z, job *j)
{
    j->mpfr_calls++;
    mpfr_set_d(a, (double)x, MPFR_RNDN);
    f->ref(z, a, MPFR_RNDN);
    return ulp_error(&ulp_f32, (double)y, z);
}

/* the float32 ulp of the value v (a float64 approximation) */
static double ulp32(double v)
{
    /* from the exponent bits (frexp and ldexp were a tenth of the time);
     * v is a normal double here: |v| > 2^-150 */
    int e = (int)((ufn_bits_f64(v) >> 52) & 0x7ff) - 1023;
    return ufn_f64_from_bits((uint64_t)((e < -126 ? -126 : e) - 23 + 1023) << 52);
}

/* beyond these the correctly rounded float32 is inf, or zero */
#define OVERFLOW_AT  (0x1.fffffep127 * (1.0 + 0x1p-25))
#define UNDERFLOW_AT 0x1p-150

/* The error of y estimated from glibc's r, or -1 when only MPFR can tell
 * (near a rounding boundary, the overflow or underflow threshold, or for a
 * special value that does not match). */
static double estimate(float x, float y, double r)
{
    double a = fabs(r);
    if (isnan(x))
        return isnan(y) ? 0.0 : UFN_ULP_WRONG;
    /* a nan from both (sqrt, log, acosh... outside their domain: half of
     * all inputs, each an MPFR call before) is right; one nan is MPFR's
     * to judge */
    if (isnan(r) && isnan(y) && !isinf(x))
        return 0.0;
    if (isinf(x) || isnan(r) || isnan(y))
        return -1.0;
    if (isinf(r) || a >= OVERFLOW_AT * (1.0 + 0x1p-40))
        return isinf(y) && (y > 0) == (r > 0) ? 0.0 : -1.0;
    if (a <= UNDERFLOW_AT * (1.0 - 0x1p-40))
        return y == 0.0f && (signbit(y) != 0) == (signbit(r) != 0) ? 0.0 : -1.0;
    if (a >= OVERFLOW_AT * (1.0 - 0x1p-40) || (a >= UNDERFLOW_AT * (1.0 - 0x1p-40) && a <= UNDERFLOW_AT * (1.0 + 0x1p-40)))
        return -1.0;
    if (isinf(y))
        return -1.0;
    double e = fabs((double)y - r) / ulp32(r);
    return fabs(e - 0.5) < MARGIN ? -1.0 : e;
}

static void *run(void *arg)
{
    job *j = arg;
    const func *f = j->f;
    mpfr_t a, z;
    mpfr_inits2(REF_PREC, a, z, (mpfr_ptr)0);
    enum { BLOCK = 4096 };
    float xs[BLOCK], ys[BLOCK];
    block_fn block = f->block[use_avx2];
    for (uint64_t b = j->lo; b < j->hi; b++) {
        size_t i = (size_t)((b - j->lo) % BLOCK);
        if (i == 0) {
            size_t n = j->hi - b < BLOCK ? (size_t)(j->hi - b) : BLOCK;
            for (size_t k = 0; k < n; k++)
                xs[k] = ufn_f32_from_bits((uint32_t)(b + k));
            block(xs, ys, n);
        }
        float x = xs[i], y = ys[i];
        double est = estimate(x, y, f->ref64((double)x));
        /* MPFR's word where the estimate could decide wrongly: a boundary
         * case, or a candidate for the largest error above 1/2 (below 1/2
         * the estimate is within 2^-29 ulp, and correctly rounded) */
        if (est < 0.0 || (est > 0.5 && est > j->max - MARGIN))
            est = exact_error(f, x, y, a, z, j);
        if (est >= UFN_ULP_WRONG)
            j->wrong++;
        if (est > 0.5)
            j->not_cr++;
        if (est > j->max) {
            j->max = est;
            j->at = (uint32_t)b;
        }
    }
    mpfr_clears(a, z, (mpfr_ptr)0);
    return NULL;
}

int main(int argc, char **argv)
{
    int threads = (int)sysconf(_SC_NPROCESSORS_ONLN), argi = 1;
    uint64_t lo = 0, hi = 1ull << 32;
    for (; argi < argc && argv[argi][0] == '-'; argi++) {
        if (!strcmp(argv[argi], "-j") && argi + 1 < argc)
            threads = atoi(argv[++argi]);
        else if (!strcmp(argv[argi], "-r") && argi + 1 < argc &&
                 sscanf(argv[argi + 1], "%" SCNx64 ":%" SCNx64, &lo, &hi) == 2)
            argi++;
        else {
            fprintf(stderr, "usage: exhaustive [-j THREADS] [-r LO:HI] [FUNCTION...]\n");
            return 2;
        }
    }
    if (threads < 1 || threads > 256)
        threads = 1;
    __builtin_cpu_init();
    use_avx2 = EXH_HAVE_AVX2();
    printf("| function | max error (ulp) | at | not correctly rounded | wrong special values |\n");
    printf("|---|---|---|---|---|\n");
    fflush(stdout);
    for (size_t k = 0; k < NFUNCS; k++) {
        int chosen = argi == argc;
        for (int i = argi; i < argc; i++)
            chosen |= !strcmp(argv[i], funcs[k].name);
        if (!chosen)
            continue;
        job jobs[256];
        pthread_t tids[256];
        uint64_t step = (hi - lo + (uint64_t)threads - 1) / (uint64_t)threads;
        for (int t = 0; t < threads; t++) {
            uint64_t a = lo + step * (uint64_t)t, b = a + step > hi ? hi : a + step;
            jobs[t] = (job){&funcs[k], a, b < a ? a : b, 0.0, 0, 0, 0, 0};
            pthread_create(&tids[t], NULL, run, &jobs[t]);
        }
        job total = {&funcs[k], lo, hi, 0.0, 0, 0, 0, 0};
        for (int t = 0; t < threads; t++) {
            pthread_join(tids[t], NULL);
            total.not_cr += jobs[t].not_cr;
            total.wrong += jobs[t].wrong;
            if (jobs[t].max > total.max) {
                total.max = jobs[t].max;
                total.at = jobs[t].at;
            }
        }
        printf("| %s | %.4f | %a | %" PRIu64 " | %" PRIu64 " |\n", funcs[k].name,
               total.max >= UFN_ULP_WRONG ? INFINITY : total.max, (double)ufn_f32_from_bits(total.at),
               total.not_cr, total.wrong);
        fflush(stdout);
    }
    return 0;
}
