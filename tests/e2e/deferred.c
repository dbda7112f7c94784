/* deferred - deferred pipelines (deferred.ufn): the hidden layer recorded
 * as three calls and run at ufn_pipeline_run gives, bit for bit, what the
 * three calls give one by one; intermediates marked ufn_pipeline_temp are
 * never written on the host backend; calls that cannot join are refused at
 * the call, and then the run reports it and runs nothing.  On device
 * arrays the pipeline is one CUDA graph on sim (one graph launch, no kernel
 * launched on its own, no copy to or from the host, temporaries never
 * written), and calls on two streams run one by one.
 */
#include <string.h>

#include "e2e.h"
#include "deferred.h"

enum { N = 300007 };       /* several threads' tasks, many chunks, a ragged end */
#define SENTINEL -7.25f

static void fill(float *a, long n, float v)
{
    for (long i = 0; i < n; i++)
        a[i] = v;
}

static long count_not(const float *a, long n, float v)
{
    long c = 0;
    for (long i = 0; i < n; i++)
        c += a[i] != v;
    return c;
}

/* What the runtime reported while a pipeline ran (the trace callback). */
typedef struct seen {
    int graphs, launches, host_loops, h2d, d2h;
    uint64_t graph_kernels;
} seen;

static void count_event(const ufn_trace_event *ev, void *ctx)
{
    seen *s = ctx;
    switch (ev->kind) {
    case UFN_TRACE_GRAPH: s->graphs++, s->graph_kernels += ev->amount; break;
    case UFN_TRACE_LAUNCH: s->launches++; break;
    case UFN_TRACE_HOST_LOOP: s->host_loops++; break;
    case UFN_TRACE_H2D: s->h2d++; break;
    case UFN_TRACE_D2H: s->d2h++; break;
    default: break;
    }
}

static int run_seen(seen *s)
{
    memset(s, 0, sizeof *s);
    ufn_set_trace_callback(count_event, s);
    int st = ufn_pipeline_run();
    ufn_set_trace_callback(NULL, NULL);
    return st;
}

/* The hidden layer on device arrays: one graph on sim, chunks on the host. */
static void device_pipeline(const float *g, const float *w, const float *want, bool sim)
{
    static float t1[N], t2[N], got[N], shifted[N];
    int64_t n = N;
    ufn_array G = ufn_host((float *)g, UFN_FLOAT32, 1, &n), W = ufn_host((float *)w, UFN_FLOAT32, 1, &n);
    ufn_array T1 = ufn_host(t1, UFN_FLOAT32, 1, &n), T2 = ufn_host(t2, UFN_FLOAT32, 1, &n);
    ufn_array GOT = ufn_host(got, UFN_FLOAT32, 1, &n), S = ufn_host(shifted, UFN_FLOAT32, 1, &n);
    ufn_array Gd = {0}, Wd = {0}, T1d = {0}, T2d = {0}, OUTd = {0}, Sd = {0};
    ufn_array quarter = ufn_scalar_float32(0.25f);
    seen s;

    e2e_begin("the hidden layer on device arrays, intermediates temporary: one graph");
    fill(t1, N, SENTINEL);
    fill(t2, N, SENTINEL);
    E2E_CALL(ufn_to_device(&G, &Gd));
    E2E_CALL(ufn_to_device(&W, &Wd));
    E2E_CALL(ufn_to_device(&T1, &T1d));
    E2E_CALL(ufn_to_device(&T2, &T2d));
    E2E_CALL(ufn_to_device(&T1, &OUTd));
    E2E_CALL(ufn_pipeline_begin());
    E2E_CALL(ufn_pipeline_temp(&T1d));
    E2E_CALL(ufn_pipeline_temp(&T2d));
    E2E_CALL(normalize(&Gd, &T1d));
    E2E_CALL(weigh(&T1d, &Wd, &T2d));
    E2E_CALL(activate(&T2d, &OUTd));
    E2E_CALL(run_seen(&s));
    if (sim) {
        E2E_CHECK(s.graphs == 1 && s.graph_kernels == 3, "%d graph launches of %llu kernels, expected 1 of 3", s.graphs,
                  (unsigned long long)s.graph_kernels);
        E2E_CHECK(s.launches == 0, "%d kernels launched on their own", s.launches);
        E2E_CHECK(s.h2d == 0 && s.d2h == 0, "the pipeline copied to (%d) or from (%d) the host", s.h2d, s.d2h);
    }
    E2E_CALL(ufn_copy_to_host(&OUTd, &GOT));
    E2E_CALL(ufn_copy_to_host(&T1d, &T1));
    E2E_CALL(ufn_copy_to_host(&T2d, &T2));
    for (long i = 0; i < N; i++)
        E2E_CHECK(e2e_same_f64(got[i], want[i]), "element %ld: pipeline %.9g, three calls %.9g", i, got[i], want[i]);
    E2E_CHECK(count_not(t1, N, SENTINEL) == 0, "the temporary t1 was written");
    E2E_CHECK(count_not(t2, N, SENTINEL) == 0, "the temporary t2 was written");
    e2e_end();
    sample_dump_exact("device_pipeline", UFN_FLOAT32, got, N);

    e2e_begin("calls on two streams: one by one, each on its own stream");
    ufn_stream a = NULL, b = NULL;
    E2E_CALL(ufn_stream_create(&a));
    E2E_CALL(ufn_stream_create(&b));
    E2E_CALL(ufn_pipeline_begin());
    ufn_set_stream(a);
    E2E_CALL(normalize(&Gd, &T1d));
    E2E_CALL(weigh(&T1d, &Wd, &T2d));
    E2E_CALL(activate(&T2d, &OUTd));
    ufn_set_stream(b);
    E2E_CALL(shift(&Gd, &quarter, &Sd));   /* reads nothing stream a writes */
    ufn_set_stream(NULL);
    E2E_CALL(run_seen(&s));
    E2E_CALL(ufn_stream_synchronize(a));
    E2E_CALL(ufn_stream_synchronize(b));
    if (sim)
        E2E_CHECK(s.graphs == 0 && s.launches == 4, "%d graph launches and %d launches, expected 0 and 4", s.graphs,
                  s.launches);
    E2E_CALL(ufn_copy_to_host(&OUTd, &GOT));
    E2E_CALL(ufn_copy_to_host(&Sd, &S));
    E2E_CALL(ufn_copy_to_host(&T1d, &T1));
    for (long i = 0; i < N; i++) {
        E2E_CHECK(e2e_same_f64(got[i], want[i]), "element %ld: %.9g, expected %.9g", i, got[i], want[i]);
        E2E_CHECK(shifted[i] == g[i] + 0.25f, "element %ld: shifted %.9g, expected %.9g", i, shifted[i], g[i] + 0.25f);
        E2E_CHECK(t1[i] == (float)((double)g[i] / 255), "element %ld: t1 %g", i, t1[i]);
    }
    E2E_CALL(ufn_stream_destroy(a));
    E2E_CALL(ufn_stream_destroy(b));
    ufn_array *all[] = {&Gd, &Wd, &T1d, &T2d, &OUTd, &Sd};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        ufn_free(all[i]);
    e2e_end();
}

int main(int argc, char **argv)
{
    static float g[N], w[N], t1[N], t2[N], want[N], got[N], shifted[N], small[N / 2];
    sample_rng rng = {23};
    int64_t n = N, half = N / 2;
    bool host = strcmp(ufn_backend(), "host") == 0;

    e2e_start(argc, argv, "deferred");
    for (long i = 0; i < N; i++) {
        g[i] = floorf((float)sample_uniform(&rng, 0, 255));
        w[i] = (float)sample_uniform(&rng, -3, 3);
    }
    ufn_array G = ufn_host(g, UFN_FLOAT32, 1, &n), W = ufn_host(w, UFN_FLOAT32, 1, &n);
    ufn_array T1 = ufn_host(t1, UFN_FLOAT32, 1, &n), T2 = ufn_host(t2, UFN_FLOAT32, 1, &n);
    ufn_array WANT = ufn_host(want, UFN_FLOAT32, 1, &n), GOT = ufn_host(got, UFN_FLOAT32, 1, &n);

    /* the reference: three calls, one after the other */
    E2E_CALL(normalize(&G, &T1));
    E2E_CALL(weigh(&T1, &W, &T2));
    E2E_CALL(activate(&T2, &WANT));

    e2e_begin("the hidden layer as a pipeline, intermediates temporary");
    fill(t1, N, SENTINEL);
    fill(t2, N, SENTINEL);
    fill(got, N, SENTINEL);
    E2E_CALL(ufn_pipeline_begin());
    E2E_CALL(ufn_pipeline_temp(&T1));
    E2E_CALL(ufn_pipeline_temp(&T2));
    E2E_CALL(normalize(&G, &T1));
    E2E_CALL(weigh(&T1, &W, &T2));
    E2E_CALL(activate(&T2, &GOT));
    E2E_CHECK(count_not(got, N, SENTINEL) == 0, "a recorded call wrote its output before ufn_pipeline_run");
    E2E_CALL(ufn_pipeline_run());
    for (long i = 0; i < N; i++)
        E2E_CHECK(e2e_same_f64(got[i], want[i]), "element %ld: pipeline %.9g, three calls %.9g", i, got[i], want[i]);
    if (host) {     /* the host runs chunk by chunk through a scratch */
        E2E_CHECK(count_not(t1, N, SENTINEL) == 0, "the temporary t1 was written on the host backend");
        E2E_CHECK(count_not(t2, N, SENTINEL) == 0, "the temporary t2 was written on the host backend");
    }
    e2e_end();
    sample_dump_exact("pipeline", UFN_FLOAT32, got, N);

    e2e_begin("intermediates kept, an output allocated by the call, a scalar by value");
    ufn_array S = ufn_host(shifted, UFN_FLOAT32, 1, &n), NEW = {0};
    ufn_array quarter = ufn_scalar_float32(0.25f);
    E2E_CALL(ufn_pipeline_begin());
    E2E_CALL(normalize(&G, &T1));
    E2E_CALL(weigh(&T1, &W, &T2));
    E2E_CALL(activate(&T2, &NEW));
    E2E_CALL(shift(&NEW, &quarter, &S));
    E2E_CALL(ufn_pipeline_run());
    ufn_array NEW_H = ufn_host(got, UFN_FLOAT32, 1, &n);
    E2E_CALL(ufn_copy_to_host(&NEW, &NEW_H));
    for (long i = 0; i < N; i++) {
        float t1w = (float)((double)g[i] / 255), t2w = t1w * w[i];
        E2E_CHECK(t1[i] == t1w && t2[i] == t2w, "element %ld: intermediates %g %g, expected %g %g", i, t1[i], t2[i],
                  t1w, t2w);
        E2E_CHECK(e2e_same_f64(got[i], want[i]), "element %ld: %.9g, expected %.9g", i, got[i], want[i]);
        E2E_CHECK(shifted[i] == want[i] + 0.25f, "element %ld: shifted %.9g, expected %.9g", i, shifted[i],
                  want[i] + 0.25f);
    }
    ufn_free(&NEW);
    e2e_end();

    e2e_begin("a call that cannot join: refused at the call, then nothing runs");
    ufn_array SMALL = ufn_host(small, UFN_FLOAT32, 1, &half);
    fill(got, N, SENTINEL);
    fill(small, N / 2, SENTINEL);
    E2E_CALL(ufn_pipeline_begin());
    E2E_CALL(normalize(&G, &GOT));
    E2E_REFUSED(normalize(&SMALL, &SMALL), UFN_ERR_SHAPE, "its loop has 150003 elements, the pipeline's 300007");
    E2E_REFUSED(ufn_pipeline_run(), UFN_ERR_SHAPE, "nothing ran");
    E2E_CHECK(count_not(got, N, SENTINEL) == 0 && count_not(small, N / 2, SENTINEL) == 0,
              "a call of a refused pipeline ran");
    /* a dtype to convert needs a temporary of the call's own */
    int16_t d[4] = {1, 2, 3, 4};
    float f4[4];
    int64_t four = 4;
    ufn_array D = ufn_host(d, UFN_INT16, 1, &four), F4 = ufn_host(f4, UFN_FLOAT32, 1, &four);
    E2E_CALL(ufn_pipeline_begin());
    E2E_REFUSED(normalize(&D, &F4), UFN_ERR_INVALID, "input 0 needs a temporary");
    E2E_REFUSED(ufn_pipeline_run(), UFN_ERR_INVALID, "nothing ran");
    /* a gufunc runs on its own */
    int64_t shape2[2] = {4, 1};
    float out4[4];
    ufn_array M = ufn_host(f4, UFN_FLOAT32, 2, shape2), O = ufn_host(out4, UFN_FLOAT32, 1, &four);
    E2E_CALL(ufn_pipeline_begin());
    E2E_REFUSED(total(&M, &O), UFN_ERR_INVALID, "a gufunc call runs on its own");
    ufn_pipeline_abort();
    /* a temporary read before anything writes it */
    E2E_CALL(ufn_pipeline_begin());
    E2E_CALL(ufn_pipeline_temp(&T1));
    E2E_CALL(weigh(&T1, &W, &GOT));
    E2E_REFUSED(ufn_pipeline_run(), UFN_ERR_INVALID, "reads a temporary that no earlier call of the pipeline writes");
    E2E_CHECK(count_not(got, N, SENTINEL) == 0, "a refused pipeline ran");
    /* misuse */
    E2E_REFUSED(ufn_pipeline_run(), UFN_ERR_INVALID, "no pipeline is being recorded");
    E2E_REFUSED(ufn_pipeline_temp(&T1), UFN_ERR_INVALID, "no pipeline is being recorded");
    E2E_CALL(ufn_pipeline_begin());
    E2E_REFUSED(ufn_pipeline_begin(), UFN_ERR_INVALID, "already being recorded");
    E2E_CALL(ufn_pipeline_run());     /* empty: nothing to do */
    e2e_end();

    device_pipeline(g, w, want, strcmp(ufn_backend(), "sim") == 0);

    e2e_begin("after the pipeline, calls run at once again");
    fill(got, N, SENTINEL);
    E2E_CALL(activate(&T2, &GOT));
    for (long i = 0; i < N; i++)
        E2E_CHECK(e2e_same_f64(got[i], want[i]), "element %ld: %.9g, expected %.9g", i, got[i], want[i]);
    e2e_end();
    return e2e_finish();
}
