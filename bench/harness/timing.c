/* timing.c - interleaved, adaptive repetitions and their statistics.
 *
 * Why interleave: this machine is a shared 2-vCPU VM whose timings drift by
 * tens of percent over seconds.  Calling A, B, A, B ... spreads the drift
 * over every implementation instead of punishing whichever ran during it. */
#include "bench.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

const bench_policy bench_default_policy = {
    .warmup = 3, .min_reps = 11, .min_seconds = 0.3, .max_reps = 1000,
};

static clockid_t bench_clock = CLOCK_MONOTONIC;

double bench_now(void)
{
    struct timespec t;
    clock_gettime(bench_clock, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

double bench_now_ms(void)
{
    return bench_now() * 1e3;
}

void bench_use_thread_cpu_clock(void)
{
    bench_clock = CLOCK_THREAD_CPUTIME_ID;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Nearest-rank percentile of sorted values. */
static double percentile(const double *v, int n, double p)
{
    int k = (int)(p * n + 0.999999) - 1;
    if (k < 0)
        k = 0;
    if (k >= n)
        k = n - 1;
    return v[k];
}

double bench_median(double *t, int n)
{
    qsort(t, (size_t)n, sizeof *t, cmp_double);
    return n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
}

static void summarise(double *t, int n, bench_stats *s)
{
    s->median = bench_median(t, n);
    s->reps = n;
    s->min = t[0];
    s->p90 = percentile(t, n, 0.9);
}

static bool done(const bench_policy *p, const bench_stats *s)
{
    return s->reps >= p->max_reps || (s->reps >= p->min_reps && s->total >= p->min_seconds);
}

int bench_measure(int n, const bench_impl *impls, const bench_policy *p, bench_stats *stats)
{
    double **times = calloc((size_t)n, sizeof *times);
    if (!times)
        return -1;
    int rc = 0;
    for (int i = 0; i < n; i++) {
        memset(&stats[i], 0, sizeof stats[i]);
        times[i] = malloc((size_t)p->max_reps * sizeof **times);
        if (!times[i])
            rc = -1;
    }
    for (int w = 0; rc == 0 && w < p->warmup; w++)
        for (int i = 0; rc == 0 && i < n; i++)
            rc = impls[i].run(impls[i].ctx);
    for (bool more = true; rc == 0 && more;) {
        more = false;
        for (int i = 0; rc == 0 && i < n; i++) {
            if (done(p, &stats[i]))
                continue;
            double t0 = bench_now();
            rc = impls[i].run(impls[i].ctx);
            double dt = bench_now() - t0;
            times[i][stats[i].reps++] = dt;
            stats[i].total += dt;
            more |= !done(p, &stats[i]);
        }
    }
    for (int i = 0; i < n; i++) {
        if (rc == 0)
            summarise(times[i], stats[i].reps, &stats[i]);
        free(times[i]);
    }
    free(times);
    return rc;
}
