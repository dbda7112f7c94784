/* demo_polar.c - seed 000's showcase in C: ten million correlated 2-D Gaussian
 * points converted to polar coordinates by the gpu_polar gufunc of
 * samples/polar.ufn, on whatever backend the machine offers (a GPU when there
 * is one, else all CPU cores), with an ASCII histogram of theta.
 *
 *     demo_polar [N]          N points (default 10,000,000)
 *     UFN_BACKEND=sim demo_polar 100000     the same through the CUDA simulator
 *
 * The points are drawn as seed 000 draws them,
 *     np.random.multivariate_normal([0,0], [[1,0.9],[0.9,1]], N).astype(np.float32)
 * (with a fixed seed, by our own generator: the same numbers on every run,
 * not NumPy's).  Because x and y are correlated, theta piles up along the
 * diagonal: two peaks, at pi/4 and -3pi/4.
 *
 * The program checks what it prints: rho and theta against libm in double
 * precision, gpu_arctan2 against gpu_polar, and the peaks where they belong;
 * it exits 1 if any is wrong, so `make demo` is also a test. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "polar.h"

#define PI 3.14159265358979323846
#define BINS 36        /* 10-degree bins centred on ..., -135, ..., 45, ...: the peaks */
#define BAR 56         /* characters of the longest bar */
#define SEED 20190601u

/* --- the points ------------------------------------------------------------ */

/* xoshiro256** (Blackman and Vigna), seeded through splitmix64: small, fast
 * and good enough for a histogram. */
typedef struct { uint64_t s[4]; } rng;

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static uint64_t next(rng *r)
{
    uint64_t *s = r->s, out = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0], s[3] ^= s[1], s[1] ^= s[2], s[0] ^= s[3], s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return out;
}

/* A uniform double in (0, 1]: never 0, so log() below is finite. */
static double uniform(rng *r) { return ((next(r) >> 11) + 1) * 0x1.0p-53; }

/* points[2i], points[2i+1] = x, y drawn from N(0, [[1, c], [c, 1]]): two
 * standard normals by Box-Muller, correlated by the covariance's Cholesky
 * factor [[1, 0], [c, sqrt(1 - c^2)]]. */
static void correlated_gaussian(float *points, size_t n, double c, uint64_t seed)
{
    rng r;
    for (int i = 0; i < 4; i++)
        r.s[i] = splitmix64(&seed);
    double k = sqrt(1 - c * c);
    for (size_t i = 0; i < n; i++) {
        double rad = sqrt(-2 * log(uniform(&r))), phi = 2 * PI * uniform(&r);
        double z1 = rad * cos(phi), z2 = rad * sin(phi);
        points[2 * i] = (float)z1;
        points[2 * i + 1] = (float)(c * z1 + k * z2);
    }
}

/* --- timing and checks -------------------------------------------------------- */

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static int fail(const char *what, int status)
{
    fprintf(stderr, "demo_polar: %s failed (%s): %s\n", what, ufn_status_name(status), ufn_error());
    return 1;
}

/* The largest error of rho and theta against libm in double precision, in
 * units of the float32 result's own size (a relative error), and of
 * gpu_arctan2's theta against gpu_polar's. */
static int check(const float *points, const float *polar, const float *theta2, size_t n)
{
    double rho_err = 0, theta_err = 0, diff = 0;
    for (size_t i = 0; i < n; i++) {
        double x = points[2 * i], y = points[2 * i + 1];
        double rho = hypot(x, y), theta = atan2(y, x);
        rho_err = fmax(rho_err, fabs(polar[2 * i] - rho) / fmax(rho, 1e-30));
        theta_err = fmax(theta_err, fabs(polar[2 * i + 1] - theta));
        diff = fmax(diff, fabs((double)polar[2 * i + 1] - theta2[i]));
    }
    printf("check: largest error vs libm (double): rho %.1e (relative), theta %.1e rad;"
           " gpu_arctan2 vs gpu_polar %.1e rad\n", rho_err, theta_err, diff);
    /* float32 results: a few ulp.  The bound is loose on purpose: the point is
     * that every element was computed, by the right function. */
    if (rho_err > 1e-6 || theta_err > 4e-6 || diff > 4e-6) {
        fprintf(stderr, "demo_polar: results differ from libm's\n");
        return 1;
    }
    return 0;
}

/* --- the histogram -------------------------------------------------------------- */

static int bin_of(float theta)
{
    int b = (int)floor((theta + PI) / (2 * PI) * BINS);
    return b < 0 ? 0 : b >= BINS ? BINS - 1 : b;   /* theta == pi joins the last bin */
}

/* Print the histogram of theta and check that its two highest bins hold pi/4
 * and -3pi/4 (with fewer points noise may win, so only from 100,000 on). */
static int histogram(const float *polar, size_t n)
{
    size_t count[BINS] = {0}, top = 1;
    for (size_t i = 0; i < n; i++)
        count[bin_of(polar[2 * i + 1])]++;
    for (int b = 0; b < BINS; b++)
        top = count[b] > top ? count[b] : top;

    int peak1 = bin_of((float)(PI / 4)), peak2 = bin_of((float)(-3 * PI / 4));
    printf("\ntheta (degrees), %zu points, one # = %.0f points\n", n, (double)top / BAR);
    for (int b = 0; b < BINS; b++) {
        char bar[BAR + 1];
        int len = (int)((double)count[b] / top * BAR + 0.5);
        memset(bar, '#', (size_t)len);
        bar[len] = '\0';
        printf(" %+5.0f |%-*s%s\n", -180 + (b + 0.5) * 360.0 / BINS, BAR, bar,
               b == peak1 ? " <- pi/4" : b == peak2 ? " <- -3pi/4" : "");
    }

    int first = 0, second = -1;
    for (int b = 1; b < BINS; b++)
        if (count[b] > count[first])
            first = b;
    for (int b = 0; b < BINS; b++)
        if (b != first && (second < 0 || count[b] > count[second]))
            second = b;
    int ok = (first == peak1 && second == peak2) || (first == peak2 && second == peak1);
    if (!ok && n >= 100000) {
        fprintf(stderr, "demo_polar: the peaks are not at pi/4 and -3pi/4\n");
        return 1;
    }
    return 0;
}

/* --- main ------------------------------------------------------------------------- */

int main(int argc, char **argv)
{
    size_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 10000000;
    if (n == 0) {
        fprintf(stderr, "usage: demo_polar [N]   (N points, at least 1)\n");
        return 2;
    }
    float *points = malloc(n * 2 * sizeof *points);
    float *polar = malloc(n * 2 * sizeof *polar);
    float *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y), *theta = malloc(n * sizeof *theta);
    if (!points || !polar || !x || !y || !theta) {
        fprintf(stderr, "demo_polar: out of memory for %zu points\n", n);
        return 1;
    }

    const char *backend = ufn_backend();
    if (!backend)
        return fail("ufn_backend", UFN_ERR_BACKEND);
    printf("ufn backend: %s%s\n", backend,
           strcmp(backend, "cuda") == 0 ? " (a GPU)"
           : strcmp(backend, "host") == 0 ? " (no GPU here: all CPU cores)"
           : " (the CUDA simulator: the GPU path, run on the CPU)");

    double t = now();
    correlated_gaussian(points, n, 0.9, SEED);
    printf("%zu points from N(0, [[1, 0.9], [0.9, 1]]) in %.0f ms\n", n, (now() - t) * 1e3);

    /* The general entry: points as an (n, 2) array, the gufunc's (i)->(i)
     * applied to each row.  The first call also starts the backend (threads,
     * or the GPU's context and module); the best of the next ones is the
     * steady speed. */
    int64_t shape[2] = {(int64_t)n, 2};
    ufn_array in = ufn_host(points, UFN_FLOAT32, 2, shape);
    ufn_array out = ufn_host(polar, UFN_FLOAT32, 2, shape);
    double first = 0, best = INFINITY;
    for (int rep = 0; rep < 4; rep++) {
        t = now();
        int st = gpu_polar(&in, &out);
        if (st < 0)
            return fail("gpu_polar", st);
        t = now() - t;
        if (rep == 0)
            first = t;
        else
            best = fmin(best, t);
    }
    printf("gpu_polar((%zu, 2) float32): first call %.1f ms, then %.1f ms"
           " (%.0f Mpoints/s%s)\n", n, first * 1e3, best * 1e3, n / best * 1e-6,
           strcmp(backend, "host") ? ", copies to and from the device included" : "");

    /* Seed 000 first computes theta alone, from contiguous x and y. */
    for (size_t i = 0; i < n; i++)
        x[i] = points[2 * i], y[i] = points[2 * i + 1];
    best = INFINITY;
    for (int rep = 0; rep < 3; rep++) {
        t = now();
        int st = gpu_arctan2_float32(n, y, x, theta);
        if (st < 0)
            return fail("gpu_arctan2_float32", st);
        best = fmin(best, now() - t);
    }
    printf("gpu_arctan2(y, x), %zu float32: %.1f ms\n", n, best * 1e3);

    int bad = check(points, polar, theta, n) | histogram(polar, n);
    free(points), free(polar), free(x), free(y), free(theta);
    return bad;
}
