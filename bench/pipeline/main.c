/* bench-pipeline - the hidden layer (normalize -> weigh -> activate) on the
 * host backend, four ways, at each size given on the command line:
 *
 *   three     three calls, two full intermediates written and read back
 *   composed  hidden(g, w): one kernel (ufn(7), Composition)
 *   pipeline  the three calls deferred (ufn_pipeline_begin/run), the
 *             intermediates ufn_pipeline_temp: chunk by chunk, in cache
 *   floor     one threaded pass c[i] = a[i] + b[i]: the bytes every way
 *             must move at least (2 inputs in, 1 output out)
 *   cached    hidden() over the first CACHED elements again and again, n in
 *             all: the arithmetic alone, its operands in cache (the other
 *             floor: no way is faster than its arithmetic)
 *
 * Rounds interleave the five; each prints its best (minimum) time in ms,
 * as one JSON line per size.  The three results are checked bit for bit
 * against each other first.
 *
 * BENCH_CLOCK=cpu with UFN_NUM_THREADS=1 times the calling thread's CPU
 * time instead of the wall clock: every way then runs on that thread, and
 * time the machine gives to other programs does not count (a shared
 * machine under load; the memory they use still competes).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "bench.h"
#include "hidden.h"

typedef struct arrays {
    ufn_array g, w, t1, t2, out;
    float *pg, *pw, *pt1, *pt2, *pout;
    int64_t n;
} arrays;

static int three(arrays *a)
{
    int st = normalize(&a->g, &a->t1);
    if (!st) st = weigh(&a->t1, &a->w, &a->t2);
    if (!st) st = activate(&a->t2, &a->out);
    return st;
}

static int composed(arrays *a)
{
    return hidden(&a->g, &a->w, &a->out);
}

static int pipeline(arrays *a)
{
    int st = ufn_pipeline_begin();
    if (!st) st = ufn_pipeline_temp(&a->t1);
    if (!st) st = ufn_pipeline_temp(&a->t2);
    if (!st) st = normalize(&a->g, &a->t1);
    if (!st) st = weigh(&a->t1, &a->w, &a->t2);
    if (!st) st = activate(&a->t2, &a->out);
    if (st) {
        ufn_pipeline_abort();
        return st;
    }
    return ufn_pipeline_run();
}

/* 256K elements: 3 MB of operands, 1.5 MB in each of two threads' L2 caches */
#define CACHED 262144

static int cached(arrays *a)
{
    for (int64_t done = 0; done < a->n; done += CACHED) {
        int64_t m = a->n - done < CACHED ? a->n - done : CACHED;
        ufn_array g = ufn_host(a->pg, UFN_FLOAT32, 1, &m), w = ufn_host(a->pw, UFN_FLOAT32, 1, &m),
                  out = ufn_host(a->pout, UFN_FLOAT32, 1, &m);
        int st = hidden(&g, &w, &out);
        if (st)
            return st;
    }
    return 0;
}

static int floor_pass(arrays *a)
{
    return floor_add(a->pout, a->pg, a->pw, (size_t)a->n);
}

/* 2 MiB aligned and advised as huge pages, as the runtime's own arrays
 * are, so that no way pays page-table walks the others do not. */
static float *fresh(int64_t n)
{
    void *p = NULL;
    size_t bytes = ((size_t)n * sizeof(float) + (2u << 20) - 1) & ~(size_t)((2u << 20) - 1);
    if (posix_memalign(&p, 2u << 20, bytes))
        return NULL;
    madvise(p, bytes, MADV_HUGEPAGE);
    return p;
}

int main(int argc, char **argv)
{
    int rounds = getenv("BENCH_ROUNDS") ? atoi(getenv("BENCH_ROUNDS")) : 5;
    const char *clock_name = getenv("BENCH_CLOCK") ? getenv("BENCH_CLOCK") : "wall";
    if (strcmp(clock_name, "cpu") == 0 && floor_threads() == 1)
        bench_use_thread_cpu_clock();
    else if (strcmp(clock_name, "wall") != 0) {
        fprintf(stderr, "BENCH_CLOCK=%s: wall, or cpu with UFN_NUM_THREADS=1\n", clock_name);
        return 1;
    }
    ufn_init("host");
    for (int s = 1; s < argc; s++) {
        arrays a;
        a.n = (int64_t)atof(argv[s]);
        float **bufs[5] = {&a.pg, &a.pw, &a.pt1, &a.pt2, &a.pout};
        for (int b = 0; b < 5; b++) {
            *bufs[b] = fresh(a.n);
            if (!*bufs[b]) {
                fprintf(stderr, "out of memory at n = %lld\n", (long long)a.n);
                return 1;
            }
            memset(*bufs[b], 0, (size_t)a.n * sizeof(float));      /* touch every page */
        }
        for (int64_t i = 0; i < a.n; i++) {
            a.pg[i] = (float)(i % 256);
            a.pw[i] = 0.5f + (float)(i % 7) * 0.01f;
        }
        a.g = ufn_host(a.pg, UFN_FLOAT32, 1, &a.n);
        a.w = ufn_host(a.pw, UFN_FLOAT32, 1, &a.n);
        a.t1 = ufn_host(a.pt1, UFN_FLOAT32, 1, &a.n);
        a.t2 = ufn_host(a.pt2, UFN_FLOAT32, 1, &a.n);
        a.out = ufn_host(a.pout, UFN_FLOAT32, 1, &a.n);

        /* the three ways agree bit for bit */
        float *ref = malloc((size_t)a.n * sizeof(float));
        int (*ways[3])(arrays *) = {three, composed, pipeline};
        for (int k = 0; k < 3; k++) {
            if (ways[k](&a)) {
                fprintf(stderr, "way %d: %s\n", k, ufn_error());
                return 1;
            }
            if (k == 0)
                memcpy(ref, a.pout, (size_t)a.n * sizeof(float));
            else if (memcmp(ref, a.pout, (size_t)a.n * sizeof(float)) != 0) {
                fprintf(stderr, "way %d differs from three calls\n", k);
                return 1;
            }
        }
        free(ref);

        const char *names[5] = {"three", "composed", "pipeline", "floor", "cached"};
        int (*all[5])(arrays *) = {three, composed, pipeline, floor_pass, cached};
        double best[5] = {INFINITY, INFINITY, INFINITY, INFINITY, INFINITY};
        for (int r = 0; r < rounds; r++)
            for (int k = 0; k < 5; k++) {
                double t0 = bench_now_ms();
                if (all[k](&a)) {
                    fprintf(stderr, "%s: %s\n", names[k], ufn_error());
                    return 1;
                }
                double t = bench_now_ms() - t0;
                best[k] = t < best[k] ? t : best[k];
            }
        printf("{\"n\": %lld, \"threads\": %d, \"clock\": \"%s\"", (long long)a.n, floor_threads(), clock_name);
        for (int k = 0; k < 5; k++)
            printf(", \"%s\": %.3f", names[k], best[k]);
        printf("}\n");
        fflush(stdout);
        for (int b = 0; b < 5; b++)
            free(*bufs[b]);
    }
    return 0;
}
