/* jit_bench - @cuda.jit kernels on the host backend (make bench-kernels):
 *
 *   add      seed 002's add_kernel with a grid-stride loop over 1e7 float32
 *            (1024 blocks of 256 threads) against add_ufunc, the same
 *            addition as a @vectorize ufunc, on the same arrays
 *   matmul   the tiled shared-memory matmul (16x16 tiles, 1024x1024
 *            float32) against OpenBLAS's cblas_sgemm in the same run
 *   sim      add_kernel on the sim backend (n threads), for the comparison
 *            with Numba's CUDA simulator (bench/jit/numba_sim.py)
 *
 * Each time is the median of ROUNDS runs, in milliseconds. */
#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "jit_bench.h"

#define ROUNDS 7

static void check(int status, const char *what)
{
    if (status) {
        fprintf(stderr, "%s: %s\n", what, ufn_error());
        exit(1);
    }
}

int main(int argc, char **argv)
{
    const char *part = argc > 1 ? argv[1] : "host";
    if (!strcmp(part, "sim")) {
        /* seed 002's call on the simulator: n elements, 128 threads per block */
        int64_t n = argc > 2 ? atoll(argv[2]) : 10000;
        float *x = malloc(n * 4), *y = malloc(n * 4), *o = malloc(n * 4);
        for (int64_t i = 0; i < n; i++)
            x[i] = i, y[i] = 1;
        ufn_array X = ufn_host(x, UFN_FLOAT32, 1, &n), Y = ufn_host(y, UFN_FLOAT32, 1, &n);
        ufn_array O = ufn_host(o, UFN_FLOAT32, 1, &n);
        double t[ROUNDS];
        for (int r = 0; r < ROUNDS; r++) {
            double t0 = bench_now_ms();
            check(add_kernel(ufn_launch_1d((uint32_t)((n + 127) / 128), 128), &X, &Y, &O), "add_kernel");
            t[r] = bench_now_ms() - t0;
        }
        printf("sim add_kernel n=%lld: %.3f ms (%s backend)\n", (long long)n, bench_median(t, ROUNDS), ufn_backend());
        return 0;
    }
    int64_t n = 10000000;
    float *x = malloc(n * 4), *y = malloc(n * 4), *o1 = malloc(n * 4), *o2 = malloc(n * 4);
    for (int64_t i = 0; i < n; i++)
        x[i] = (float)(i % 1000), y[i] = 0.5f, o1[i] = o2[i] = 0;
    ufn_array X = ufn_host(x, UFN_FLOAT32, 1, &n), Y = ufn_host(y, UFN_FLOAT32, 1, &n);
    ufn_array O1 = ufn_host(o1, UFN_FLOAT32, 1, &n), O2 = ufn_host(o2, UFN_FLOAT32, 1, &n);
    /* two launches: a grid of one thread per element (each thread's loop
     * runs once), and 1024 blocks of 256 threads (each runs 38 times) */
    static const uint32_t blocks[2] = {(uint32_t)((10000000 + 255) / 256), 1024};
    for (int shape = 0; shape < 2; shape++) {
        double tk[ROUNDS], tu[ROUNDS];
        for (int r = 0; r < ROUNDS; r++) {   /* interleaved */
            double t0 = bench_now_ms();
            check(add_kernel(ufn_launch_1d(blocks[shape], 256), &X, &Y, &O1), "add_kernel");
            double t1 = bench_now_ms();
            check(add_ufunc(&X, &Y, &O2), "add_ufunc");
            tu[r] = bench_now_ms() - t1;
            tk[r] = t1 - t0;
        }
        if (memcmp(o1, o2, n * 4)) {
            fprintf(stderr, "add: the kernel and the ufunc disagree\n");
            return 1;
        }
        double k = bench_median(tk, ROUNDS), u = bench_median(tu, ROUNDS);
        printf("add 1e7 float32 (%s): add_kernel[%u, 256] %.2f ms, add_ufunc %.2f ms: kernel/ufunc %.2fx\n",
               ufn_backend(), blocks[shape], k, u, k / u);
    }
    if (!strcmp(part, "add"))
        return 0;

    enum { N = 1024 };
    float *a = malloc(N * N * 4), *b = malloc(N * N * 4), *c = malloc(N * N * 4), *ref = malloc(N * N * 4);
    for (int i = 0; i < N * N; i++)
        a[i] = (float)(i % 7 - 3), b[i] = (float)(i % 5 - 2);
    int64_t s[2] = {N, N};
    ufn_array A = ufn_host(a, UFN_FLOAT32, 2, s), B = ufn_host(b, UFN_FLOAT32, 2, s);
    ufn_array C = ufn_host(c, UFN_FLOAT32, 2, s);
    int mrounds = argc > 1 && !strcmp(part, "quick") ? 1 : 3;
    double tm[3], tb[3];
    for (int r = 0; r < mrounds; r++) {
        double t0 = bench_now_ms();
        check(matmul(ufn_launch_2d(N / 16, N / 16, 16, 16), &A, &B, &C), "matmul");
        double t1 = bench_now_ms();
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, N, N, N, 1.0f, a, N, b, N, 0.0f, ref, N);
        tb[r] = bench_now_ms() - t1;
        tm[r] = t1 - t0;
    }
    if (memcmp(c, ref, (size_t)N * N * 4)) {
        fprintf(stderr, "matmul: the kernel and sgemm disagree\n");
        return 1;
    }
    double m = bench_median(tm, mrounds), bl = bench_median(tb, mrounds), flop = 2.0 * N * N * N;
    printf("matmul 1024^2 float32 (%s): tiled kernel %.1f ms = %.2f GFLOP/s, OpenBLAS sgemm %.1f ms = %.1f "
           "GFLOP/s: %.1f%% of sgemm\n",
           ufn_backend(), m, flop / m / 1e6, bl, flop / bl / 1e6, 100 * bl / m);
    return 0;
}
