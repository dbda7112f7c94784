/* warp_bench - what a warp shuffle costs per thread on the host backend
 * (make bench-warps): warp_bench.ufn's five-shuffle warp reduction over
 * 2^20 float32 (4096 blocks of 256 threads) in the split runner's
 * lock-step form and as fibers, and the copy kernel without the shuffles.
 * The three kernels run in interleaved rounds; each time is the median.
 * The cost of a shuffle per thread is (kernel - copy) / (2^20 * 5). */
#include <stdio.h>
#include <stdlib.h>

#include "bench.h"
#include "warp_bench.h"

#define ROUNDS 9
#define N (1 << 20)
#define TPB 256

static void check(int status, const char *what)
{
    if (status) {
        fprintf(stderr, "%s: %s\n", what, ufn_error());
        exit(1);
    }
}

int main(void)
{
    static float x[N], a[N], b[N];
    for (int i = 0; i < N; i++)
        x[i] = (float)(i % 7);
    int64_t n = N;
    ufn_array X = ufn_host(x, UFN_FLOAT32, 1, &n), A = ufn_host(a, UFN_FLOAT32, 1, &n);
    ufn_array B = ufn_host(b, UFN_FLOAT32, 1, &n);
    ufn_launch l = ufn_launch_1d(N / TPB, TPB);
    double t[3][ROUNDS];
    for (int r = 0; r < ROUNDS; r++) {
        double t0 = bench_now_ms();
        check(lockstep(l, &X, &A), "lockstep");
        double t1 = bench_now_ms();
        check(fibers(l, &X, &B), "fibers");
        double t2 = bench_now_ms();
        check(copy(l, &X, &B), "copy");
        t[0][r] = t1 - t0, t[1][r] = t2 - t1, t[2][r] = bench_now_ms() - t2;
    }
    check(fibers(l, &X, &B), "fibers");
    for (int i = 0; i < N; i++)
        if (a[i] != b[i]) {
            fprintf(stderr, "warp_bench: the two forms disagree at %d: %g and %g\n", i, a[i], b[i]);
            return 1;
        }
    double lock = bench_median(t[0], ROUNDS), fib = bench_median(t[1], ROUNDS), cp = bench_median(t[2], ROUNDS);
    printf("warp reduction, 5 shfl_down_sync, 2^20 float32 threads (%s backend): lock-step %.2f ms, fibers %.2f ms,"
           " copy %.2f ms\n", ufn_backend(), lock, fib, cp);
    printf("per thread and shuffle: lock-step %.2f ns, fibers %.2f ns (%.1fx)\n", (lock - cp) * 1e6 / N / 5,
           (fib - cp) * 1e6 / N / 5, (fib - cp) / (lock - cp));
    return 0;
}
