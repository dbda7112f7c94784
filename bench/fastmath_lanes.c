/* fastmath_lanes.c - ufnc's math functions against libmvec's, one function
 * at a time, in loops of the host backend's shape (bench/fastmath.sh builds
 * and runs it after the workloads).
 *
 * The workloads of fastmath.sh measure what a user gets, but their default
 * and --fast-math builds differ in more than the math functions (-ffast-math
 * also turns divisions into reciprocal multiplications), and on a shared
 * machine their wall-clock times carry the neighbours.  Here both sides are
 * compiled with ufnc's default flags (-O3 -ffp-contract=off -fno-math-errno
 * -fno-trapping-math -fopenmp-simd), the loop bodies are one call each, and
 * the time is the thread's CPU time: the fastest of 7 runs of 300 passes
 * over 4096 elements (in the L1 cache), per element, for the AVX2 and the
 * AVX-512 loop where the CPU has them.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <time.h>

#include "ufn_math.h"

/* libmvec's vector variants, as the generated host code declares them */
__attribute__((simd("notinbranch"))) float expf(float);
__attribute__((simd("notinbranch"))) double exp(double);
__attribute__((simd("notinbranch"))) float sinf(float);
__attribute__((simd("notinbranch"))) double sin(double);
__attribute__((simd("notinbranch"))) double cos(double);
__attribute__((simd("notinbranch"))) float atan2f(float, float);

#define N 4096
float xf[N], yf[N], of[N];
double xd[N], od[N];

#define AVX2   __attribute__((noinline, target("avx2,fma")))
#define AVX512 __attribute__((noinline, target("avx512f,avx512dq,avx512vl,avx512bw,avx2,fma")))

#define LOOP(name, isa, out, expr) \
    isa static void name(void) { _Pragma("omp simd") for (int i = 0; i < N; i++) out[i] = (expr); }
#define PAIR(fn, isa, sfx, out, ufn_expr, vendor_expr) \
    LOOP(u_##fn##_##sfx, isa, out, ufn_expr) LOOP(v_##fn##_##sfx, isa, out, vendor_expr)
#define LOOPS(isa, sfx)                                                             \
    PAIR(atan2f, isa, sfx, of, ufn_atan2_f32(yf[i], xf[i]), atan2f(yf[i], xf[i])) \
    PAIR(expf, isa, sfx, of, ufn_exp_f32(xf[i]), expf(xf[i]))                     \
    PAIR(exp, isa, sfx, od, ufn_exp_f64(xd[i]), exp(xd[i]))                       \
    PAIR(sinf, isa, sfx, of, ufn_sin_f32(xf[i]), sinf(xf[i]))                     \
    PAIR(sin, isa, sfx, od, ufn_sin_f64(xd[i]), sin(xd[i]))                       \
    PAIR(cos, isa, sfx, od, ufn_cos_f64(xd[i]), cos(xd[i]))
LOOPS(AVX2, avx2)
LOOPS(AVX512, avx512)

static double cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* ns an element, the fastest of 7 runs */
static double time_loop(void (*f)(void))
{
    double best = 1e30;
    for (int r = 0; r < 7; r++) {
        double t = cpu_now();
        for (int k = 0; k < 300; k++)
            f();
        t = cpu_now() - t;
        best = t < best ? t : best;
    }
    return best / (300.0 * N) * 1e9;
}

typedef struct row {
    const char *name;
    void (*u[2])(void), (*v[2])(void);      /* [avx2, avx512] */
} row;

#define ROW(fn, label) {label, {u_##fn##_avx2, u_##fn##_avx512}, {v_##fn##_avx2, v_##fn##_avx512}}

int main(void)
{
    static const row rows[] = {
        ROW(atan2f, "atan2 float32"), ROW(expf, "exp float32"), ROW(exp, "exp float64"),
        ROW(sinf, "sin float32"), ROW(sin, "sin float64"), ROW(cos, "cos float64"),
    };
    int have[2];
    __builtin_cpu_init();
    have[0] = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    have[1] = have[0] && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq")
              && __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bw");
    /* ordinary arguments: float32 in [-48, 48] (atan2 in all four
     * quadrants), float64 in [-10, 10] */
    for (int i = 0; i < N; i++) {
        xf[i] = (float)(i % 97) - 48.0f + 0.3f;
        yf[i] = (float)(i % 89) - 44.0f + 0.7f;
        xd[i] = (double)((i * 7919) % 10000) * 0.002 - 10.0;
    }
    printf("one thread, CPU time per element in ns (ufnc's / libmvec's: their ratio)\n\n");
    printf("| function | AVX2 ufnc | AVX2 libmvec | ratio | AVX-512 ufnc | AVX-512 libmvec | ratio |\n");
    printf("|---|---|---|---|---|---|---|\n");
    for (size_t k = 0; k < sizeof rows / sizeof rows[0]; k++) {
        printf("| %s ", rows[k].name);
        for (int isa = 0; isa < 2; isa++) {
            if (!have[isa]) {
                printf("| - | - | - ");
                continue;
            }
            double u = time_loop(rows[k].u[isa]), v = time_loop(rows[k].v[isa]);
            printf("| %.2f | %.2f | %.2fx ", u, v, u / v);
        }
        printf("|\n");
    }
    return 0;
}
