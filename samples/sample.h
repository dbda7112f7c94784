/* sample.h - what the sample programs share, so that each NAME.c shows only
 * how it uses its module.
 *
 *   sample_rng ......... a small deterministic generator (the same numbers on
 *                        every machine and backend, unlike rand())
 *   SAMPLE_CALL ........ call an entry point; on failure print ufn_error()
 *                        and the status name, and exit 2
 *   sample_check ....... compare results with a reference computed with
 *                        libm in double precision; report the worst error
 *   --dump FILE ........ write the raw results, so that tests/e2e can compare
 *                        what two backends computed (tests/e2e/cmpdump.c)
 *
 * Exit status of every sample: 0 the numbers are right, 1 they are not,
 * 2 the runtime refused a call (the message says why).
 */
#ifndef SAMPLE_H
#define SAMPLE_H

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ufn.h>

#define SAMPLE_PI 3.14159265358979323846

/* ---- deterministic random numbers ---------------------------------------------------- */

/* splitmix64: tiny, good enough for test data, identical everywhere. */
typedef struct sample_rng { uint64_t state; } sample_rng;

static inline uint64_t sample_next(sample_rng *r)
{
    uint64_t z = (r->state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Uniform in [lo, hi). */
static inline double sample_uniform(sample_rng *r, double lo, double hi)
{
    return lo + (hi - lo) * ((double)(sample_next(r) >> 11) * 0x1p-53);
}

/* Standard normal (Box-Muller; one of the pair is thrown away for brevity). */
static inline double sample_normal(sample_rng *r)
{
    double u = sample_uniform(r, 0.0, 1.0), v = sample_uniform(r, 0.0, 1.0);
    return sqrt(-2.0 * log1p(-u)) * cos(2.0 * SAMPLE_PI * v);
}

/* ---- calling the runtime -------------------------------------------------------------- */

/* Every entry point returns 0 or a negative ufn_status, and ufn_error() says
 * what went wrong: a real program reports both.  Exit status 2 tells a
 * refused call from wrong numbers. */
#define SAMPLE_CALL(call)                                                             \
    do {                                                                              \
        int sample_status_ = (call);                                                  \
        if (sample_status_ != 0) {                                                    \
            fprintf(stderr, "%s:%d: %s failed: %s: %s\n", __FILE__, __LINE__, #call,  \
                    ufn_status_name(sample_status_), ufn_error());                    \
            exit(2);                                                                  \
        }                                                                             \
    } while (0)

/* ---- checking results ----------------------------------------------------------------- */

/* One array's comparison with its reference.  A result passes when
 * |got - ref| <= atol + rtol * |ref| (numpy.allclose's rule); atol = rtol = 0
 * asks for equality.  The worst element is remembered for the report. */
typedef struct sample_check {
    const char *what;       /* "theta" */
    double atol, rtol;
    long count, bad;
    long worst_i;           /* index of the largest error relative to the tolerance */
    double worst_got, worst_ref, worst_ratio;
} sample_check;

static inline sample_check sample_check_start(const char *what, double atol, double rtol)
{
    sample_check c;
    memset(&c, 0, sizeof c);
    c.what = what;
    c.atol = atol;
    c.rtol = rtol;
    c.worst_i = -1;
    return c;
}

static inline void sample_check_value(sample_check *c, long i, double got, double ref)
{
    double err = fabs(got - ref), tol = c->atol + c->rtol * fabs(ref), ratio;
    int same = got == ref || (isnan(got) && isnan(ref));
    if (same)
        err = 0.0;
    else if (isnan(err))
        err = INFINITY;    /* a NaN against a number, or infinities of opposite signs */
    ratio = same ? 0.0 : tol > 0.0 ? err / tol : INFINITY;
    c->count++;
    if (!same && !(err <= tol))
        c->bad++;
    if (c->worst_i < 0 || ratio > c->worst_ratio) {
        c->worst_i = i;
        c->worst_got = got;
        c->worst_ref = ref;
        c->worst_ratio = ratio;
    }
}

/* Print one line (how many values passed and the worst error as a share of
 * the tolerance, or what differed) and return 0 when every value passed, 1 otherwise. */
static inline int sample_check_report(const sample_check *c)
{
    if (c->bad == 0) {
        if (c->atol == 0.0 && c->rtol == 0.0)
            printf("  check %-22s %ld values equal to the reference: ok\n", c->what, c->count);
        else
            printf("  check %-22s %ld values within %.3g + %.3g*|ref| (worst: %.0f%% of that): ok\n",
                   c->what, c->count, c->atol, c->rtol, 100 * c->worst_ratio);
        return 0;
    }
    printf("  check %-22s MISMATCH: %ld of %ld values differ from the reference; worst at [%ld]: "
           "got %.17g, expected %.17g (tolerance %.3g + %.3g*|ref|)\n",
           c->what, c->bad, c->count, c->worst_i, c->worst_got, c->worst_ref, c->atol, c->rtol);
    return 1;
}

/* ---- --dump FILE: raw results for the end-to-end tests ---------------------------------- *
 *
 * Text header lines, each followed by the array's raw bytes:
 *
 *     ufn-dump 1
 *     NAME DTYPE COUNT exact
 *     NAME DTYPE COUNT close ATOL RTOL
 *
 * "exact" marks results of plain IEEE arithmetic (+ - * / sqrt, comparisons,
 * conversions), which every backend must reproduce bit for bit; "close"
 * marks results of transcendental functions, where the backends may use
 * different correct-to-a-few-ulp implementations (glibc's vector libmvec on
 * the host, scalar libm in the simulator, CUDA's libdevice on a GPU): each
 * is within ATOL + RTOL*|ref| of the libm reference, so two backends are
 * within twice that of each other.  tests/e2e/cmpdump.c reads this. */

static FILE *sample_dump_file;

/* Take `--dump FILE` from the command line; any other argument is an error. */
static inline void sample_args(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--dump") && i + 1 < argc) {
            sample_dump_file = fopen(argv[++i], "wb");
            if (!sample_dump_file) {
                perror(argv[i]);
                exit(2);
            }
            fputs("ufn-dump 1\n", sample_dump_file);
        } else {
            fprintf(stderr, "usage: %s [--dump FILE]\n", argv[0]);
            exit(2);
        }
    }
}

static inline void sample_dump_raw(const char *name, ufn_dtype dtype, const void *data,
                                   size_t count, const char *rule)
{
    if (!sample_dump_file)
        return;
    fprintf(sample_dump_file, "%s %s %zu %s\n", name, ufn_dtype_name(dtype), count, rule);
    fwrite(data, (size_t)ufn_dtype_size(dtype), count, sample_dump_file);
}

static inline void sample_dump_exact(const char *name, ufn_dtype dtype, const void *data,
                                     size_t count)
{
    sample_dump_raw(name, dtype, data, count, "exact");
}

/* The tolerance of the check `c` the results were held to. */
static inline void sample_dump_close(const char *name, ufn_dtype dtype, const void *data,
                                     size_t count, const sample_check *c)
{
    char rule[80];
    snprintf(rule, sizeof rule, "close %.17g %.17g", c->atol, c->rtol);
    sample_dump_raw(name, dtype, data, count, rule);
}

/* Close the dump and turn the number of failed checks into the exit status. */
static inline int sample_finish(const char *name, int failures)
{
    if (sample_dump_file && fclose(sample_dump_file) != 0) {
        perror("--dump");
        return 2;
    }
    if (failures) {
        printf("%s: %d check(s) FAILED\n", name, failures);
        return 1;
    }
    printf("%s: all checks passed\n", name);
    return 0;
}

#endif /* SAMPLE_H */
