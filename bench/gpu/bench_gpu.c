/* bench_gpu.c - make bench-gpu: the cuda backend against the hardware's own
 * limits, each measured in the same process (perf.md section 2):
 *
 *   bandwidth  a contiguous kernel over device arrays (twice: 4 bytes read,
 *              4 written per element) against a device-to-device copy of
 *              the same bytes
 *   host       a call on host arrays (through the pinned staging ring, copy
 *              in, kernel, copy out overlapped) against max(H2D, D2H) of
 *              the same bytes through the same ring
 *   launch     a one-element call on device arrays: queued back to back, and
 *              each one waited for
 *   streams    small kernels on one stream, then spread over four streams:
 *              how much of their time overlaps
 *
 * Prints a Markdown report on stdout (mk/benchgpu.mk writes it to
 * bench/RESULTS-gpu.md).  BENCH_GPU_N elements (default 2^26, 256 MiB a
 * float32 array); BENCH_GPU_BACKEND=sim runs the harness on the simulator,
 * with small sizes, to test it, not to measure. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuda/cudrv.h"
#include "gpu.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void check(int status, const char *what)
{
    if (status != UFN_OK) {
        fprintf(stderr, "bench-gpu: %s%s%s\n", what, *ufn_error() ? ": " : "", ufn_error());
        exit(1);
    }
}

/* The best of `rounds` timings of `reps` repetitions of fn, per repetition. */
typedef void (*work_fn)(void *ctx);

static double best(work_fn fn, void *ctx, int rounds, int reps)
{
    fn(ctx);   /* warm-up: modules loaded, buffers allocated */
    check(ufn_synchronize(), "synchronize");
    double t = 1e30;
    for (int r = 0; r < rounds; r++) {
        double t0 = now();
        for (int i = 0; i < reps; i++)
            fn(ctx);
        check(ufn_synchronize(), "synchronize");
        double dt = (now() - t0) / reps;
        if (dt < t)
            t = dt;
    }
    return t;
}

typedef struct bench {
    const ufn_backend_ops *be;
    int64_t n;
    ufn_array hx, hy, dx, dy, one_x, one_y;
    float *host_x, *host_y;
    ufn_stream streams[4];
    ufn_array sx[4], sy[4];
    int64_t small;
} bench;

static void kernel_device(void *ctx)
{
    bench *b = ctx;
    check(twice(&b->dx, &b->dy), "twice on device arrays");
}

static void memcpy_device(void *ctx)
{
    bench *b = ctx;
    check(b->be->copy_d2d(b->be, b->dx.device, b->dy.data, b->dx.data, (size_t)b->n * 4, NULL),
          "device-to-device copy");
}

static void kernel_host(void *ctx)
{
    bench *b = ctx;
    check(twice(&b->hx, &b->hy), "twice on host arrays");
}

static void copy_h2d(void *ctx)
{
    bench *b = ctx;
    check(b->be->copy_h2d(b->be, b->dx.device, b->dx.data, b->host_x, (size_t)b->n * 4, NULL),
          "H2D");
}

static void copy_d2h(void *ctx)
{
    bench *b = ctx;
    check(b->be->copy_d2h(b->be, b->dy.device, b->host_y, b->dy.data, (size_t)b->n * 4, NULL),
          "D2H");
}

static void launch_queued(void *ctx)
{
    bench *b = ctx;
    check(twice(&b->one_x, &b->one_y), "one-element call");
}

static void launch_waited(void *ctx)
{
    bench *b = ctx;
    check(twice(&b->one_x, &b->one_y), "one-element call");
    check(ufn_synchronize(), "synchronize");
}

static void small_one_stream(void *ctx)
{
    bench *b = ctx;
    for (int s = 0; s < 4; s++)
        check(twice(&b->sx[s], &b->sy[s]), "small call");
}

static void small_four_streams(void *ctx)
{
    bench *b = ctx;
    for (int s = 0; s < 4; s++) {
        ufn_set_stream(b->streams[s]);
        check(twice(&b->sx[s], &b->sy[s]), "small call on a stream");
    }
    ufn_set_stream(NULL);
}

static void device_array(ufn_array *a, int64_t n)
{
    check(ufn_device_array(UFN_FLOAT32, 1, &n, a), "ufn_device_array");
}

int main(void)
{
    const char *backend = getenv("BENCH_GPU_BACKEND");
    bool sim = backend && strcmp(backend, "sim") == 0;
    check(ufn_init(sim ? "sim" : "cuda"), "no CUDA device");
    bench b;
    memset(&b, 0, sizeof b);
    b.be = ufn_active_backend();
    const char *env = getenv("BENCH_GPU_N");
    b.n = env ? atoll(env) : sim ? (int64_t)1 << 18 : (int64_t)1 << 26;
    b.small = sim ? 4096 : (int64_t)1 << 16;
    int rounds = sim ? 2 : 5, reps = sim ? 2 : 20, launches = sim ? 20 : 10000;

    b.host_x = malloc((size_t)b.n * 4);
    b.host_y = malloc((size_t)b.n * 4);
    if (!b.host_x || !b.host_y)
        check(UFN_ERR_NOMEM, "host memory");
    for (int64_t i = 0; i < b.n; i++)
        b.host_x[i] = (float)(i % 1000);
    b.hx = ufn_host(b.host_x, UFN_FLOAT32, 1, &b.n);
    b.hy = ufn_host(b.host_y, UFN_FLOAT32, 1, &b.n);
    check(ufn_to_device(&b.hx, &b.dx), "ufn_to_device");
    device_array(&b.dy, b.n);
    device_array(&b.one_x, 1);
    device_array(&b.one_y, 1);
    for (int s = 0; s < 4; s++) {
        check(ufn_stream_create(&b.streams[s]), "ufn_stream_create");
        device_array(&b.sx[s], b.small);
        device_array(&b.sy[s], b.small);
    }

    double mb = (double)b.n * 4 / 1e6;
    double t_kernel = best(kernel_device, &b, rounds, reps);
    double t_memcpy = best(memcpy_device, &b, rounds, reps);
    double t_host = best(kernel_host, &b, rounds, sim ? 1 : 3);
    for (int64_t i = 0; i < b.n; i += b.n / 64 + 1)   /* the timed calls computed */
        if (b.host_y[i] != 2 * b.host_x[i])
            check(UFN_ERR_INVALID, "the host-array call computed a wrong value");
    double t_h2d = best(copy_h2d, &b, rounds, sim ? 1 : 3);
    double t_d2h = best(copy_d2h, &b, rounds, sim ? 1 : 3);
    double t_queued = best(launch_queued, &b, rounds, launches);
    double t_waited = best(launch_waited, &b, rounds, launches / 5 + 1);
    double t_one = best(small_one_stream, &b, rounds, reps);
    double t_four = best(small_four_streams, &b, rounds, reps);

    cuda_backend *cb = sim ? ufn_sim_backend_state() : ufn_cuda_backend_state();
    const cuda_device *d = &cb->devs[cb->current];
    double t_xfer = t_h2d > t_d2h ? t_h2d : t_d2h;
    printf("# GPU benchmark results (make bench-gpu)\n\n");
    printf("Device %d: %s, sm_%d%d, %d SMs; driver %d.%d; backend %s.  ", d->ordinal, d->name,
           d->cc_major, d->cc_minor, d->sms, cb->drv->version / 1000, cb->drv->version % 1000 / 10,
           cb->drv->name);
    printf("%lld float32 elements (%.0f MB an array); best of %d rounds.%s\n\n", (long long)b.n,
           mb, rounds, sim ? "  **The simulator: a test of the harness, not a measurement.**" : "");
    printf("| what | time | rate | against |\n|---|---|---|---|\n");
    printf("| kernel on device arrays (4 B in, 4 B out per element) | %.3f ms | %.1f GB/s | "
           "%.0f%% of the device-to-device copy |\n", t_kernel * 1e3, 2 * mb / 1e3 / t_kernel,
           100 * t_memcpy / t_kernel);
    printf("| device-to-device copy of the same bytes | %.3f ms | %.1f GB/s | |\n", t_memcpy * 1e3,
           2 * mb / 1e3 / t_memcpy);
    printf("| call on host arrays (staged: copy in, kernel, copy out) | %.3f ms | %.1f GB/s each way"
           " | %.2fx max(H2D, D2H) |\n", t_host * 1e3, mb / 1e3 / t_host, t_host / t_xfer);
    printf("| H2D through the pinned ring | %.3f ms | %.1f GB/s | |\n", t_h2d * 1e3,
           mb / 1e3 / t_h2d);
    printf("| D2H through the pinned ring | %.3f ms | %.1f GB/s | |\n", t_d2h * 1e3,
           mb / 1e3 / t_d2h);
    printf("| one-element call on device arrays, queued | %.2f us | | per call, %d in a row |\n",
           t_queued * 1e6, launches);
    printf("| one-element call on device arrays, waited for | %.2f us | | call + ufn_synchronize |\n",
           t_waited * 1e6);
    printf("| 4 calls of %lld elements on one stream | %.3f ms | | |\n", (long long)b.small,
           t_one * 1e3);
    printf("| the same 4 calls on 4 streams | %.3f ms | | %.2fx faster: the overlap |\n",
           t_four * 1e3, t_one / t_four);

    for (int s = 0; s < 4; s++) {
        ufn_free(&b.sx[s]);
        ufn_free(&b.sy[s]);
        ufn_stream_destroy(b.streams[s]);
    }
    ufn_free(&b.dx);
    ufn_free(&b.dy);
    ufn_free(&b.one_x);
    ufn_free(&b.one_y);
    free(b.host_x);
    free(b.host_y);
    return 0;
}
