/* transfers.c - bench-transfers: what the seeds' pipelines move between host
 * and device, counted through the runtime's trace hook on the sim backend
 * (the real CUDA code path against the simulated driver), next to the least
 * any implementation must move: each input once in, the result once out.
 *
 *   bench-transfers [N]      one JSON line per pipeline (default N = 100000)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gaussian.h"
#include "hidden_layer.h"
#include "polar.h"
#include "pulses.h"
#include "sqrt.h"
#include "ufnrt.h"

typedef struct tally {
    size_t h2d, d2h, d2d, alloc_bytes;
    int nh2d, nd2h, nd2d, launches, allocs;
} tally;

static void hook(const ufn_event *ev, void *ctx)
{
    tally *t = ctx;
    switch (ev->kind) {
    case UFN_EV_H2D: t->h2d += ev->bytes, t->nh2d++; break;
    case UFN_EV_D2H: t->d2h += ev->bytes, t->nd2h++; break;
    case UFN_EV_D2D: t->d2d += ev->bytes, t->nd2d++; break;
    case UFN_EV_LAUNCH: t->launches++; break;
    case UFN_EV_ALLOC: t->alloc_bytes += ev->bytes, t->allocs++; break;
    default: break;
    }
}

typedef struct pipe {
    const char *name, *what;
    int (*run)(int64_t n, float *in0, float *in1, float *out);
    int inputs;                         /* float32 arrays of n in, one out */
} pipe;

static ufn_array view(float *p, int64_t n)
{
    return ufn_host(p, UFN_FLOAT32, 1, (int64_t[1]){n});
}

/* make_pulses -> add_ufunc over device arrays (seed 001's solution) */
static int pulses_dev(int64_t n, float *t, float *noise, float *out)
{
    ufn_array ht = view(t, n), hn = view(noise, n), ho = view(out, n);
    ufn_array dt = {0}, dn = {0}, dp = {0}, dw = {0};
    ufn_array period = ufn_scalar_float64((double)n / 23), amp = ufn_scalar_float64(100.0);
    int rc = ufn_to_device(&ht, &dt);
    if (!rc) rc = ufn_to_device(&hn, &dn);
    if (!rc) rc = ufn_device_array(UFN_FLOAT32, 1, (int64_t[1]){n}, &dp);
    if (!rc) rc = ufn_device_array(UFN_FLOAT32, 1, (int64_t[1]){n}, &dw);
    if (!rc) rc = make_pulses(&dt, &period, &amp, &dp);
    if (!rc) rc = add_ufunc(&dp, &dn, &dw);
    if (!rc) rc = ufn_copy_to_host(&dw, &ho);
    ufn_free(&dt), ufn_free(&dn), ufn_free(&dp), ufn_free(&dw);
    return rc;
}

/* make_pulses -> add_ufunc on host arrays: the round trip the seed removes */
static int pulses_host(int64_t n, float *t, float *noise, float *out)
{
    ufn_array ht = view(t, n), hn = view(noise, n), ho = view(out, n), hp = {0};
    ufn_array period = ufn_scalar_float64((double)n / 23), amp = ufn_scalar_float64(100.0);
    int rc = make_pulses(&ht, &period, &amp, &hp);
    if (!rc) rc = add_ufunc(&hp, &hn, &ho);
    ufn_free(&hp);
    return rc;
}

/* normalize -> weigh -> activate over device arrays (seed 001's assessment) */
static int hidden_dev(int64_t n, float *g, float *w, float *out)
{
    ufn_array hg = view(g, n), hw = view(w, n), ho = view(out, n);
    ufn_array dg = {0}, dw = {0}, t1 = {0}, t2 = {0}, t3 = {0};
    int rc = ufn_to_device(&hg, &dg);
    if (!rc) rc = ufn_to_device(&hw, &dw);
    if (!rc) rc = gpu_normalize(&dg, &t1);
    if (!rc) rc = gpu_weigh(&t1, &dw, &t2);
    if (!rc) rc = gpu_activate(&t2, &t3);
    if (!rc) rc = ufn_copy_to_host(&t3, &ho);
    ufn_free(&dg), ufn_free(&dw), ufn_free(&t1), ufn_free(&t2), ufn_free(&t3);
    return rc;
}

/* the same three calls on host arrays */
static int hidden_host(int64_t n, float *g, float *w, float *out)
{
    ufn_array hg = view(g, n), hw = view(w, n), ho = view(out, n), t1 = {0}, t2 = {0};
    int rc = gpu_normalize(&hg, &t1);
    if (!rc) rc = gpu_weigh(&t1, &hw, &t2);
    if (!rc) rc = gpu_activate(&t2, &ho);
    ufn_free(&t1), ufn_free(&t2);
    return rc;
}

static int sqrt_host(int64_t n, float *a, float *unused, float *out)
{
    (void)unused;
    return gpu_sqrt_float32((size_t)n, a, out);
}

static int atan2_host(int64_t n, float *y, float *x, float *out)
{
    return gpu_arctan2_float32((size_t)n, y, x, out);
}

/* gaussian_pdf(x, 0.0, 1.0) on a host array: two broadcast scalars */
static int gauss_host(int64_t n, float *x, float *unused, float *out)
{
    (void)unused;
    ufn_array hx = view(x, n), ho = view(out, n);
    ufn_array mean = ufn_scalar_float64(0.0), sigma = ufn_scalar_float64(1.0);
    return gaussian_pdf(&hx, &mean, &sigma, &ho);
}

static const pipe pipes[] = {
    {"pulses-device", "make_pulses -> add_ufunc, device arrays", pulses_dev, 2},
    {"pulses-host", "make_pulses -> add_ufunc, host arrays", pulses_host, 2},
    {"hidden-device", "normalize -> weigh -> activate, device arrays", hidden_dev, 2},
    {"hidden-host", "normalize -> weigh -> activate, host arrays", hidden_host, 2},
    {"sqrt-host", "gpu_sqrt_float32 on host arrays", sqrt_host, 1},
    {"arctan2-host", "gpu_arctan2_float32 on host arrays", atan2_host, 2},
    {"gauss-host", "gaussian_pdf(x, 0.0, 1.0) on host arrays", gauss_host, 1},
};

int main(int argc, char **argv)
{
    int64_t n = argc > 1 ? (int64_t)strtod(argv[1], NULL) : 100000;
    if (n < 1 || ufn_init("sim") != 0) {
        fprintf(stderr, "bench-transfers: %s\n", n < 1 ? "bad N" : ufn_error());
        return 1;
    }
    float *a = calloc((size_t)n, 4), *b = calloc((size_t)n, 4), *o = calloc((size_t)n, 4);
    if (!a || !b || !o)
        return 1;
    for (int64_t i = 0; i < n; i++)
        a[i] = (float)i, b[i] = 0.5f;
    int failed = 0;
    for (size_t i = 0; i < sizeof pipes / sizeof pipes[0]; i++) {
        tally t = {0};
        ufn_set_trace_hook(hook, &t);
        int rc = pipes[i].run(n, a, b, o);
        ufn_synchronize();
        ufn_set_trace_hook(NULL, NULL);
        if (rc) {
            fprintf(stderr, "bench-transfers: %s: %s\n", pipes[i].name, ufn_error());
            failed = 1;
            continue;
        }
        printf("{\"pipeline\": \"%s\", \"what\": \"%s\", \"backend\": \"%s\", \"n\": %lld, "
               "\"h2d_bytes\": %zu, \"h2d_copies\": %d, \"d2h_bytes\": %zu, \"d2h_copies\": %d, "
               "\"d2d_bytes\": %zu, \"launches\": %d, \"allocs\": %d, \"alloc_bytes\": %zu, "
               "\"min_h2d_bytes\": %lld, \"min_d2h_bytes\": %lld}\n",
               pipes[i].name, pipes[i].what, ufn_backend(), (long long)n, t.h2d, t.nh2d, t.d2h,
               t.nd2h, t.d2d, t.launches, t.allocs, t.alloc_bytes,
               (long long)(4 * n * pipes[i].inputs), (long long)(4 * n));
    }
    free(a), free(b), free(o);
    return failed;
}
