/* engine.c - micro-benchmark of the thread engine that runs @cuda.jit
 * kernels on the CPU (runtime/sim): the context switch, the cost per
 * thread of running a block thread after thread and as fibers, of a
 * barrier, of a warp shuffle, of a block reduction with and without the
 * simulator's checks (against the same reduction written as loops split at
 * its barriers, what a host block runner does), and the seed's add kernel
 * through the public API on the sim backend.  `make bench-engine` runs it
 * and writes bench/engine.md.
 *
 * Built twice: against libufnrt, and with -DSWITCH_ONLY against fiber.c
 * alone compiled for the ucontext fallback, to compare the two switches.
 *
 * Usage: engine [NUMBA [UCONTEXT]]: the Numba simulator's cost per thread
 * on the same add kernel (bench/engine/numba_sim.py) and the ucontext
 * build's switch, both in ns, to print beside the measurements. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sim/simt.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

/* ---- the switch ---------------------------------------------------------------------- */

enum { SWITCHES = 2000000 };

static ufn_fiber main_fiber, other;

static void bounce(void *arg)
{
    (void)arg;
    for (;;)
        ufn_fiber_switch(&other, &main_fiber);
}

/* ns per switch (a round trip is two) */
static double switch_ns(void)
{
    ufn_stacks s;
    if (ufn_stacks_alloc(&s, 1, 64 << 10) != 0)
        return -1;
    ufn_fiber_make(&other, ufn_stack_at(&s, 0), s.size, bounce, NULL);
    double best = 1e30;
    for (int rep = 0; rep < 5; rep++) {
        double t0 = now();
        for (int i = 0; i < SWITCHES / 2; i++)
            ufn_fiber_switch(&main_fiber, &other);
        double t = (now() - t0) / SWITCHES * 1e9;
        best = t < best ? t : best;
    }
    return best;
}

#ifdef SWITCH_ONLY
int main(void)
{
    printf("%.1f\n", switch_ns());
    return 0;
}
#else

#include "ufn_sim.h"
#include "ufnrt.h"

/* ---- kernels written against ufn_sim.h ------------------------------------------------- */

enum { BLOCK = 256, BLOCKS = 512, BARRIERS = 64 };

static void k_empty(void **p)
{
    (void)p;
}

static void k_barriers(void **p)
{
    (void)p;
    for (int i = 0; i < BARRIERS; i++)
        ufn_syncthreads();
}

static void k_shuffles(void **p)
{
    float *out = *(float **)p;
    float v = (float)threadIdx.x;
    for (int d = 16; d > 0; d /= 2)
        v += ufn_shfl_down_sync_f32(0xffffffffu, v, (unsigned)d);
    if (threadIdx.x == 0)
        out[blockIdx.x] = v;
}

/* A 256-thread tree reduction in shared memory: 8 barriers per thread. */
static void k_reduce(void **p)
{
    float *out = *(float **)p;
    UFN_SHARED_ARRAY(float, s, BLOCK, 0);
    uint32_t t = threadIdx.x;
    UFN_STORE(float, &s[UFN_BOUNDS(t, BLOCK, 0, "s")], (float)(t + blockIdx.x));
    ufn_syncthreads();
    for (uint32_t half = BLOCK / 2; half > 0; half /= 2) {
        if (t < half) {
            float *a = &s[UFN_BOUNDS(t, BLOCK, 0, "s")];
            UFN_STORE(float, a, UFN_LOAD(float, a) + UFN_LOAD(float, &s[UFN_BOUNDS(t + half, BLOCK, 0, "s")]));
        }
        ufn_syncthreads();
    }
    if (t == 0)
        out[blockIdx.x] = UFN_LOAD(float, &s[0]);
}

/* The same reduction as a block runner: loops over the threads, split at
 * the barriers. */
static void reduce_loops(float *out, int blocks)
{
    static float s[BLOCK];
    for (int b = 0; b < blocks; b++) {
        for (int t = 0; t < BLOCK; t++)
            s[t] = (float)(t + b);
        for (int half = BLOCK / 2; half > 0; half /= 2)
            for (int t = 0; t < half; t++)
                s[t] += s[t + half];
        out[b] = s[0];
    }
}

static float results[BLOCKS];

/* Best of 5 runs: ns per simulated thread. */
static double per_thread(ufn_sim_entry k, bool fibers, bool checks, size_t shared)
{
    void *params[1] = { results };
    double best = 1e30;
    for (int rep = 0; rep < 5; rep++) {
        ufn_simt_launch l = { .kernel = "bench", .entry = k, .params = params,
                              .grid = { BLOCKS, 1, 1 }, .block = { BLOCK, 1, 1 },
                              .static_shared = shared, .fibers = fibers, .checks = checks,
                              .first = 0, .end = BLOCKS };
        double t0 = now();
        if (ufn_simt_run(&l) != 0) {
            fprintf(stderr, "engine: %s\n", l.report);
            exit(1);
        }
        double t = (now() - t0) / ((double)BLOCKS * BLOCK) * 1e9;
        best = t < best ? t : best;
    }
    return best;
}

/* ---- the seed's add kernel on the sim backend ------------------------------------------ */

#include "kernel_module.h"

static double sim_add_ns(int64_t n)
{
    float *x = calloc((size_t)n, 4), *y = calloc((size_t)n, 4), *o = calloc((size_t)n, 4);
    ufn_array ax = ufn_host(x, UFN_FLOAT32, 1, &n), ay = ufn_host(y, UFN_FLOAT32, 1, &n);
    ufn_array ao = ufn_host(o, UFN_FLOAT32, 1, &n);
    ufn_array *args[3] = { &ax, &ay, &ao };
    ufn_launch l = ufn_launch_1d((uint32_t)((n + 255) / 256), 256);
    double best = 1e30;
    for (int rep = 0; rep < 5; rep++) {
        double t0 = now();
        if (ufn_launch_kernel(&ktest_add, &l, args) != 0) {
            fprintf(stderr, "engine: %s\n", ufn_error());
            exit(1);
        }
        double t = (now() - t0) / (double)n * 1e9;
        best = t < best ? t : best;
    }
    free(x), free(y), free(o);
    return best;
}

int main(int argc, char **argv)
{
    double numba = argc > 1 ? atof(argv[1]) : 0, uc = argc > 2 ? atof(argv[2]) : 0;
    double sw = switch_ns();
    double empty_loop = per_thread(k_empty, false, true, 0);
    double empty_fib = per_thread(k_empty, true, false, 0);
    double bar_off = per_thread(k_barriers, true, false, 0);
    double bar_on = per_thread(k_barriers, true, true, 0);
    double shfl = per_thread(k_shuffles, true, false, 0);
    double red_off = per_thread(k_reduce, true, false, BLOCK * 4);
    double red_on = per_thread(k_reduce, true, true, BLOCK * 4);
    double best = 1e30;
    for (int rep = 0; rep < 5; rep++) {
        double t0 = now();
        reduce_loops(results, BLOCKS);
        double t = (now() - t0) / ((double)BLOCKS * BLOCK) * 1e9;
        best = t < best ? t : best;
    }
    if (ufn_init("sim") != 0) {
        fprintf(stderr, "engine: %s\n", ufn_error());
        return 1;
    }
    double add = sim_add_ns(1000000);

    printf("| measure | cost |\n|---|---|\n");
    printf("| context switch, hand-written (%s) | %.1f ns |\n", ufn_fiber_kind(), sw);
    if (uc > 0)
        printf("| context switch, ucontext (the fallback) | %.1f ns |\n", uc);
    printf("| a block's thread, thread after thread (empty kernel) | %.1f ns |\n", empty_loop);
    printf("| a block's thread as a fiber (made, started, exited) | %.1f ns |\n", empty_fib);
    printf("| a barrier, per thread (%d barriers, 256 threads) | %.1f ns |\n", BARRIERS,
           (bar_off - empty_fib) / BARRIERS);
    printf("| ... with the checks on (barrier sites) | %.1f ns |\n",
           (bar_on - empty_fib) / BARRIERS);
    printf("| a warp shuffle, per thread (5 shfl_down_sync) | %.1f ns |\n",
           (shfl - empty_fib) / 5);
    printf("| 256-thread tree reduction in shared memory, per thread: loops split at barriers "
           "(the block runner's way) | %.1f ns |\n", best);
    printf("| ... as fibers, no checks (the host backend's thread entry) | %.1f ns |\n", red_off);
    printf("| ... as fibers, with bounds, race and barrier checks (sim) | %.1f ns |\n", red_on);
    printf("| seed 002 add kernel, 1e6 float32, sim backend, copies included, per element | "
           "%.1f ns |\n", add);
    if (numba > 0)
        printf("| the same kernel in Numba's CUDA simulator (1e4 elements), per element | "
               "%.0f ns (%.0fx slower) |\n", numba, numba / add);
    return 0;
}
#endif
