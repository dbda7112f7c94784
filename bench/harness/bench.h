/* bench.h - the benchmark harness (bench/harness): ufnc's host backend on the
 * seeds' workloads, the memory floors, and the outputs the baselines check.
 *
 *   timing.c     the clock, interleaved adaptive repetitions, min/median/p90
 *   floor.c      the memory floors: memcpy and a 2-in-1-out add loop, threaded
 *                like the host backend (UFN_NUM_THREADS)
 *   data.c       reproducible inputs (the seeds' distributions)
 *   workloads.c  the workloads: inputs, one ufnc call, the output to check
 *   main.c       the command line: time or check, JSON lines out
 *
 * Sections below are in that order.
 */
#ifndef BENCH_H
#define BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* ==== timing.c ====================================================================== */

double bench_now(void);                 /* seconds, CLOCK_MONOTONIC unless switched */
/* bench_now reads this thread's CPU time from now on (the programs that time
 * one thread with BENCH_CLOCK=cpu, which a loaded machine does not inflate). */
void bench_use_thread_cpu_clock(void);
double bench_now_ms(void);              /* the same clock in milliseconds */
/* The median of n values (sorts them in place). */
double bench_median(double *t, int n);

/* One implementation under test: `run` does one call and returns 0 or a
 * negative status (then the measurement stops with that status). */
typedef struct bench_impl {
    const char *name;
    int (*run)(void *ctx);
    void *ctx;
} bench_impl;

typedef struct bench_stats {
    double min, median, p90;            /* seconds per call */
    int reps;
    double total;                       /* seconds spent in timed calls */
} bench_stats;

typedef struct bench_policy {
    int warmup;                         /* untimed calls of each implementation first */
    int min_reps;                       /* at least this many timed calls ... */
    double min_seconds;                 /* ... and at least this long in total ... */
    int max_reps;                       /* ... but never more calls than this */
} bench_policy;

/* The policy: 3 warm-ups, >= 11 reps and >= 0.3 s, <= 1000 reps. */
extern const bench_policy bench_default_policy;

/* Time `n` implementations interleaved (A B A B ...) so that a noisy
 * neighbour hurts all of them alike; stats[i] for impls[i].  Returns 0 or
 * the first failing call's status. */
int bench_measure(int n, const bench_impl *impls, const bench_policy *p, bench_stats *stats);

/* ==== floor.c ======================================================================= */

/* The threads the floors use: UFN_NUM_THREADS, else every online CPU,
 * and one thread below the host backend's threshold (32768 elements). */
int floor_threads(void);
/* One threaded memcpy of `bytes` bytes. */
int floor_memcpy(void *dst, const void *src, size_t bytes);
/* One threaded c[i] = a[i] + b[i] over n floats. */
int floor_add(float *c, const float *a, const float *b, size_t n);
/* One threaded read of n floats (summed, so that it cannot be skipped). */
int floor_read(const float *a, size_t n, float *sum);

/* ==== data.c ======================================================================== */

typedef struct rng { uint64_t s; } rng;
rng rng_seed(uint64_t seed);
double rng_uniform(rng *r, double lo, double hi);
double rng_normal(rng *r, double mean, double sd);
/* Page-aligned memory, touched (so no timed call pays first-touch faults);
 * NULL on failure. */
void *bench_alloc(size_t bytes);

/* ==== workloads.c =================================================================== */

/* A workload: the seed's call at `n` loop items.  setup() makes the inputs
 * and the outputs (device arrays where the seed uses them), impls() lists the
 * ufnc variants to time, output() says where the checked result is. */
typedef struct workload workload;

typedef struct wl_output {
    const void *data;
    const char *dtype;                  /* NumPy's name: "float32", "int16" */
    int64_t shape[2];
    int ndim;
} wl_output;

struct workload {
    const char *name;                   /* as in results and the report */
    const char *what;                   /* one line for the report */
    int core;                           /* elements per loop item (gufunc core), else 1 */
    double read_bytes, write_bytes;     /* algorithmic bytes per loop item */
    /* The floor: the kernels of floor.c that move the same bytes, per loop
     * item: a memcpy of copy_bytes, an add over add_floats, a read-only sum
     * over read_bytes (run one after the other). */
    int floor_copy_bytes, floor_add_floats, floor_read_bytes;
    int64_t max_n;                      /* largest n in the default sweep */
    int (*setup)(void **state, int64_t n);
    int (*impls)(void *state, bench_impl *out, int max);   /* number filled */
    /* The inputs and the output to check, after one call. */
    int (*inputs)(void *state, wl_output *in, int max);
    void (*output)(void *state, wl_output *out);
    void (*teardown)(void *state);
};

extern const workload bench_workloads[];
extern const int bench_nworkloads;
const workload *bench_find_workload(const char *name);
/* How the float32 Gaussian module was built: "--literals=numpy" or the
 * float32-constants source (bench/kernels); set by the Makefile. */
extern const char bench_gauss_f32_how[];

#endif
