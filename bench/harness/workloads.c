/* workloads.c - the seeds' workloads, each as a ufnc call on the host backend.
 *
 * Every workload makes its inputs once (the seeds' distributions), then each
 * implementation is one call into the generated module.  "ufnc" writes into
 * a preallocated output (or device arrays, where the seed uses them);
 * "ufnc-alloc" passes an empty output that the runtime allocates, the way a
 * NumPy user calls np.sqrt(a), and frees it again. */
#include "bench.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gaussian.h"
#include "gaussian_lit.h"
#include "hidden_layer.h"
#include "l2_norm.h"
#include "polar.h"
#include "pulses.h"
#include "sqrt.h"
#include "zero_suppress.h"

/* Scalars the seeds pass, known to the Python side by the same names. */
#define GAUSS_MEAN 0.0f
#define GAUSS_SIGMA 1.0f
#define PULSE_AMPLITUDE 100.0f
#define ZS_THRESHOLD 15

typedef struct st {
    int64_t n;
    int core;
    float *in[2];                       /* host inputs */
    void *out;                          /* host output */
    int16_t *wave;                      /* zero_suppress input */
    ufn_array dev[5];                   /* device arrays of the pipelines */
    ufn_array x, y, o;                  /* host views for general entries */
    ufn_array s1, s2;                   /* scalars */
    float period;
} st;

static st *new_state(int64_t n, int core)
{
    st *s = calloc(1, sizeof *s);
    if (s) {
        s->n = n;
        s->core = core;
    }
    return s;
}

static void teardown(void *state)
{
    st *s = state;
    if (!s)
        return;
    free(s->in[0]);
    free(s->in[1]);
    free(s->out);
    free(s->wave);
    for (int i = 0; i < 5; i++)
        ufn_free(&s->dev[i]);
    free(s);
}

static float *floats(int64_t count)
{
    return bench_alloc((size_t)count * sizeof(float));
}

/* A fresh host view of the (n x core) output, for calls that write it. */
static ufn_array out_view(st *s, ufn_dtype dt)
{
    int64_t shape[2] = {s->n, s->core};
    return ufn_host(s->out, dt, s->core > 1 ? 2 : 1, shape);
}

static void fill_output(wl_output *o, const void *data, const char *dtype, int64_t n, int64_t core)
{
    o->data = data;
    o->dtype = dtype;
    o->shape[0] = n;
    o->shape[1] = core;
    o->ndim = core > 1 ? 2 : 1;
}

static int host_inputs(void *state, wl_output *in, int max)
{
    st *s = state;
    int k = 0;
    for (; k < 2 && k < max && s->in[k]; k++)
        fill_output(&in[k], s->in[k], "float32", s->n, s->core);
    return k;
}

static void float_output(void *state, wl_output *out)
{
    st *s = state;
    fill_output(out, s->out, "float32", s->n, 1);
}

/* ---- sqrt: gpu_sqrt over 1e7 float32 (seed 000) ------------------------------------ */

static int sqrt_setup(void **state, int64_t n)
{
    st *s = new_state(n, 1);
    if (!s || !(s->in[0] = floats(n)) || !(s->out = floats(n)))
        return teardown(s), -1;
    rng r = rng_seed(1);
    for (int64_t i = 0; i < n; i++)
        s->in[0][i] = (float)rng_uniform(&r, 0.0, 100.0);
    int64_t shape[1] = {n};
    s->x = ufn_host(s->in[0], UFN_FLOAT32, 1, shape);
    *state = s;
    return 0;
}

static int sqrt_run(void *state)
{
    st *s = state;
    return gpu_sqrt_float32((size_t)s->n, s->in[0], s->out);
}

static int sqrt_alloc(void *state)
{
    st *s = state;
    ufn_array o = {0};
    int rc = gpu_sqrt(&s->x, &o);
    ufn_free(&o);
    return rc;
}

static int sqrt_impls(void *state, bench_impl *out, int max)
{
    (void)max;
    out[0] = (bench_impl){"ufnc", sqrt_run, state};
    out[1] = (bench_impl){"ufnc-alloc", sqrt_alloc, state};
    return 2;
}

/* ---- arctan2: gpu_arctan2 over 1e7 float32 pairs (seed 000) ------------------------- */

static int atan2_setup(void **state, int64_t n)
{
    st *s = new_state(n, 1);
    if (!s || !(s->in[0] = floats(n)) || !(s->in[1] = floats(n)) || !(s->out = floats(n)))
        return teardown(s), -1;
    rng r = rng_seed(2);
    for (int64_t i = 0; i < n; i++) {
        s->in[0][i] = (float)rng_uniform(&r, -1.0, 1.0);
        s->in[1][i] = (float)rng_uniform(&r, -1.0, 1.0);
    }
    int64_t shape[1] = {n};
    s->x = ufn_host(s->in[0], UFN_FLOAT32, 1, shape);
    s->y = ufn_host(s->in[1], UFN_FLOAT32, 1, shape);
    *state = s;
    return 0;
}

static int atan2_run(void *state)
{
    st *s = state;
    return gpu_arctan2_float32((size_t)s->n, s->in[0], s->in[1], s->out);
}

static int atan2_alloc(void *state)
{
    st *s = state;
    ufn_array o = {0};
    int rc = gpu_arctan2(&s->x, &s->y, &o);
    ufn_free(&o);
    return rc;
}

static int atan2_impls(void *state, bench_impl *out, int max)
{
    (void)max;
    out[0] = (bench_impl){"ufnc", atan2_run, state};
    out[1] = (bench_impl){"ufnc-alloc", atan2_alloc, state};
    return 2;
}

/* ---- Gaussian pdf: gaussian_pdf(x, 0.0, 1.0) over uniform(-3, 3) (seed 001) ---------- */

static int gauss_setup(void **state, int64_t n)
{
    st *s = new_state(n, 1);
    if (!s || !(s->in[0] = floats(n)) || !(s->out = floats(n)))
        return teardown(s), -1;
    rng r = rng_seed(3);
    for (int64_t i = 0; i < n; i++)
        s->in[0][i] = (float)rng_uniform(&r, -3.0, 3.0);
    int64_t shape[1] = {n};
    s->x = ufn_host(s->in[0], UFN_FLOAT32, 1, shape);
    /* Python floats in the seed: weak scalars */
    s->s1 = ufn_scalar_float64(GAUSS_MEAN);
    s->s2 = ufn_scalar_float64(GAUSS_SIGMA);
    *state = s;
    return 0;
}

static int gauss_run(void *state)
{
    st *s = state;
    ufn_array o = out_view(s, UFN_FLOAT32);
    return gaussian_pdf(&s->x, &s->s1, &s->s2, &o);
}

static int gauss_alloc(void *state)
{
    st *s = state;
    ufn_array o = {0};
    int rc = gaussian_pdf(&s->x, &s->s1, &s->s2, &o);
    ufn_free(&o);
    return rc;
}

static int gauss_impls(void *state, bench_impl *out, int max)
{
    (void)max;
    out[0] = (bench_impl){"ufnc", gauss_run, state};
    out[1] = (bench_impl){"ufnc-alloc", gauss_alloc, state};
    return 2;
}

static int gauss_lit_run(void *state)
{
    st *s = state;
    ufn_array o = out_view(s, UFN_FLOAT32);
    return lit_gaussian_pdf(&s->x, &s->s1, &s->s2, &o);
}

static int gauss_lit_alloc(void *state)
{
    st *s = state;
    ufn_array o = {0};
    int rc = lit_gaussian_pdf(&s->x, &s->s1, &s->s2, &o);
    ufn_free(&o);
    return rc;
}

static int gauss_lit_impls(void *state, bench_impl *out, int max)
{
    (void)max;
    out[0] = (bench_impl){"ufnc", gauss_lit_run, state};
    out[1] = (bench_impl){"ufnc-alloc", gauss_lit_alloc, state};
    return 2;
}

/* ---- polar: gpu_polar '(i)->(i)' over n points of 2 (seed 000) ------------------------- */

static int polar_setup(void **state, int64_t n)
{
    st *s = new_state(n, 2);
    if (!s || !(s->in[0] = floats(2 * n)) || !(s->out = floats(2 * n)))
        return teardown(s), -1;
    rng r = rng_seed(4);
    for (int64_t i = 0; i < 2 * n; i++)
        s->in[0][i] = (float)rng_normal(&r, 0.0, 1.0);
    *state = s;
    return 0;
}

static int polar_run(void *state)
{
    st *s = state;
    return gpu_polar_float32((size_t)s->n, 2, s->in[0], s->out);
}

static int polar_impls(void *state, bench_impl *out, int max)
{
    (void)max;
    out[0] = (bench_impl){"ufnc", polar_run, state};
    return 1;
}

static void polar_output(void *state, wl_output *out)
{
    st *s = state;
    fill_output(out, s->out, "float32", s->n, 2);
}

/* ---- l2_norm: '(i)->()' over n rows of 16 (seed 001) -------------------------------- */

static int l2_setup(void **state, int64_t n)
{
    st *s = new_state(n, 16);
    if (!s || !(s->in[0] = floats(16 * n)) || !(s->out = floats(n)))
        return teardown(s), -1;
    rng r = rng_seed(5);
    for (int64_t i = 0; i < 16 * n; i++)
        s->in[0][i] = (float)rng_uniform(&r, -1.0, 1.0);
    *state = s;
    return 0;
}

static int l2_run(void *state)
{
    st *s = state;
    return l2_norm_float32((size_t)s->n, 16, s->in[0], s->out);
}

static int l2_impls(void *state, bench_impl *out, int max)
{
    (void)max;
    out[0] = (bench_impl){"ufnc", l2_run, state};
    return 1;
}

/* ---- hidden layer: normalize -> weigh -> activate (seed 001's assessment) ------------ */

static int hidden_setup(void **state, int64_t n)
{
    st *s = new_state(n, 1);
    if (!s || !(s->in[0] = floats(n)) || !(s->in[1] = floats(n)) || !(s->out = floats(n)))
        return teardown(s), -1;
    rng r = rng_seed(6);
    for (int64_t i = 0; i < n; i++) {
        s->in[0][i] = floorf((float)rng_uniform(&r, 0.0, 255.0));
        s->in[1][i] = (float)rng_normal(&r, 0.5, 0.1);
    }
    int64_t shape[1] = {n};
    s->x = ufn_host(s->in[0], UFN_FLOAT32, 1, shape);
    s->y = ufn_host(s->in[1], UFN_FLOAT32, 1, shape);
    s->o = ufn_host(s->out, UFN_FLOAT32, 1, shape);
    /* the seed's solution: inputs copied once, intermediates stay on the device */
    int rc = ufn_to_device(&s->x, &s->dev[0]);
    if (!rc)
        rc = ufn_to_device(&s->y, &s->dev[1]);
    for (int k = 2; !rc && k < 5; k++)
        rc = ufn_device_array(UFN_FLOAT32, 1, shape, &s->dev[k]);
    if (rc)
        return teardown(s), rc;
    *state = s;
    return 0;
}

/* Device arrays in, device arrays out: what the GPU would run per call. */
static int hidden_run(void *state)
{
    st *s = state;
    int rc = gpu_normalize(&s->dev[0], &s->dev[2]);
    if (!rc)
        rc = gpu_weigh(&s->dev[2], &s->dev[1], &s->dev[3]);
    if (!rc)
        rc = gpu_activate(&s->dev[3], &s->dev[4]);
    return rc;
}

/* The seed's whole create_hidden_layer: copy in, three calls, copy out. */
static int hidden_e2e(void *state)
{
    st *s = state;
    ufn_array dg = {0}, dw = {0}, t1 = {0}, t2 = {0}, t3 = {0};
    int rc = ufn_to_device(&s->x, &dg);
    if (!rc)
        rc = ufn_to_device(&s->y, &dw);
    if (!rc)
        rc = gpu_normalize(&dg, &t1);
    if (!rc)
        rc = gpu_weigh(&t1, &dw, &t2);
    if (!rc)
        rc = gpu_activate(&t2, &t3);
    if (!rc)
        rc = ufn_copy_to_host(&t3, &s->o);
    ufn_free(&dg), ufn_free(&dw), ufn_free(&t1), ufn_free(&t2), ufn_free(&t3);
    return rc;
}

static int hidden_impls(void *state, bench_impl *out, int max)
{
    (void)max;
    out[0] = (bench_impl){"ufnc", hidden_run, state};
    out[1] = (bench_impl){"ufnc-e2e", hidden_e2e, state};
    return 2;
}

static void hidden_output(void *state, wl_output *out)
{
    st *s = state;
    ufn_copy_to_host(&s->dev[4], &s->o);
    float_output(state, out);
}

/* ---- make_pulses + add over device arrays (seed 001) ----------------------------------- */

static int pulses_setup(void **state, int64_t n)
{
    st *s = new_state(n, 1);
    if (!s || !(s->in[0] = floats(n)) || !(s->in[1] = floats(n)) || !(s->out = floats(n)))
        return teardown(s), -1;
    rng r = rng_seed(7);
    for (int64_t i = 0; i < n; i++) {
        s->in[0][i] = (float)i;
        s->in[1][i] = (float)(rng_normal(&r, 0.0, 1.0) * 3.0);
    }
    s->period = (float)((double)n / 23.0);
    int64_t shape[1] = {n};
    s->x = ufn_host(s->in[0], UFN_FLOAT32, 1, shape);
    s->y = ufn_host(s->in[1], UFN_FLOAT32, 1, shape);
    s->o = ufn_host(s->out, UFN_FLOAT32, 1, shape);
    s->s1 = ufn_scalar_float64((double)n / 23.0);   /* period = n / 23, a Python float */
    s->s2 = ufn_scalar_float64(PULSE_AMPLITUDE);
    int rc = ufn_to_device(&s->x, &s->dev[0]);
    if (!rc)
        rc = ufn_to_device(&s->y, &s->dev[1]);
    for (int k = 2; !rc && k < 4; k++)
        rc = ufn_device_array(UFN_FLOAT32, 1, shape, &s->dev[k]);
    if (rc)
        return teardown(s), rc;
    *state = s;
    return 0;
}

static int pulses_run(void *state)
{
    st *s = state;
    int rc = make_pulses(&s->dev[0], &s->s1, &s->s2, &s->dev[2]);
    if (!rc)
        rc = add_ufunc(&s->dev[2], &s->dev[1], &s->dev[3]);
    return rc;
}

static int pulses_impls(void *state, bench_impl *out, int max)
{
    (void)max;
    out[0] = (bench_impl){"ufnc", pulses_run, state};
    return 1;
}

static void pulses_output(void *state, wl_output *out)
{
    st *s = state;
    ufn_copy_to_host(&s->dev[3], &s->o);
    float_output(state, out);
}

/* ---- zero_suppress(waveform, 15) over an int16 pulse train (seed 001) ------------------ */

static int zs_setup(void **state, int64_t n)
{
    st *s = new_state(n, 1);
    if (!s || !(s->wave = bench_alloc((size_t)n * 2)) || !(s->out = bench_alloc((size_t)n * 2)))
        return teardown(s), -1;
    rng r = rng_seed(8);
    double period = (double)n / 23.0;
    for (int64_t i = 0; i < n; i++) {
        double p = fmax(sin((double)i / period) - 0.3, 0.0);
        s->wave[i] = (int16_t)(p * 300.0 + rng_normal(&r, 0.0, 1.0) * 3.0);
    }
    int64_t shape[1] = {n};
    s->x = ufn_host(s->wave, UFN_INT16, 1, shape);
    s->o = ufn_host(s->out, UFN_INT16, 1, shape);
    s->s1 = ufn_scalar_int64(ZS_THRESHOLD);          /* a Python int */
    *state = s;
    return 0;
}

static int zs_run(void *state)
{
    st *s = state;
    return zero_suppress(&s->x, &s->s1, &s->o);
}

static int zs_impls(void *state, bench_impl *out, int max)
{
    (void)max;
    out[0] = (bench_impl){"ufnc", zs_run, state};
    return 1;
}

static int zs_inputs(void *state, wl_output *in, int max)
{
    st *s = state;
    if (max < 1)
        return 0;
    fill_output(&in[0], s->wave, "int16", s->n, 1);
    return 1;
}

static void zs_output(void *state, wl_output *out)
{
    st *s = state;
    fill_output(out, s->out, "int16", s->n, 1);
}

/* ---- the table ------------------------------------------------------------------------ */

#define E7 10000000
const workload bench_workloads[] = {
    {"sqrt", "gpu_sqrt(a), float32", 1, 4, 4, 4, 0, 0, E7,
     sqrt_setup, sqrt_impls, host_inputs, float_output, teardown},
    {"arctan2", "gpu_arctan2(y, x), float32", 1, 8, 4, 0, 1, 0, E7,
     atan2_setup, atan2_impls, host_inputs, float_output, teardown},
    {"gauss", "gaussian_pdf(x, 0.0, 1.0), seed source (float64 inside)", 1, 4, 4, 4, 0, 0, E7,
     gauss_setup, gauss_impls, host_inputs, float_output, teardown},
    {"gauss_f32", "gaussian_pdf(x, 0.0, 1.0), float32 literals", 1, 4, 4, 4, 0, 0, E7,
     gauss_setup, gauss_lit_impls, host_inputs, float_output, teardown},
    {"polar", "gpu_polar '(i)->(i)' on (n, 2) float32", 2, 8, 8, 8, 0, 0, E7,
     polar_setup, polar_impls, host_inputs, polar_output, teardown},
    {"l2_norm", "l2_norm '(i)->()' on (n, 16) float32", 16, 64, 4, 0, 0, 64, E7 / 10,
     l2_setup, l2_impls, host_inputs, float_output, teardown},
    {"hidden", "normalize -> weigh -> activate over device arrays", 1, 16, 12, 8, 1, 0, E7,
     hidden_setup, hidden_impls, host_inputs, hidden_output, teardown},
    {"pulses", "make_pulses -> add_ufunc over device arrays", 1, 12, 8, 4, 1, 0, E7,
     pulses_setup, pulses_impls, host_inputs, pulses_output, teardown},
    {"zero_suppress", "zero_suppress(waveform, 15), int16", 1, 2, 2, 2, 0, 0, E7,
     zs_setup, zs_impls, zs_inputs, zs_output, teardown},
};
const int bench_nworkloads = sizeof bench_workloads / sizeof bench_workloads[0];

const workload *bench_find_workload(const char *name)
{
    for (int i = 0; i < bench_nworkloads; i++)
        if (!strcmp(bench_workloads[i].name, name))
            return &bench_workloads[i];
    return NULL;
}
