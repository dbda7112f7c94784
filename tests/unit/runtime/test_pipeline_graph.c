/* test_pipeline_graph.c - a deferred pipeline on device arrays as one CUDA
 * graph (runtime/cuda/cuda_graph.c), on the simulator: chunk by chunk
 * through every call, temporaries in a chunk-sized scratch, one graph
 * launch, and what the simulator counted proves it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cuda_test.h"

enum { N = 4500, CHUNK = 1024 };   /* 5 chunks, the last one ragged */
#define SENTINEL -7.25f

/* t = x + y (t temporary); out = t + c, c one element broadcast from device memory */
typedef struct two_calls {
    ufn_plan plan[2];
    int temp[2][UFN_MAXARGS];
    ufn_pipe pipe;
    float *x, *y, *t, *c, *out;    /* device */
} two_calls;

static void build(two_calls *w, const float *x, const float *y, float c)
{
    int64_t n = N;
    float *sentinel = malloc(N * sizeof *sentinel);
    for (int i = 0; i < N; i++)
        sentinel[i] = SENTINEL;
    w->x = to_dev(x, N * 4, 0);
    w->y = to_dev(y, N * 4, 0);
    w->t = to_dev(sentinel, N * 4, 0);
    w->out = to_dev(sentinel, N * 4, 0);
    w->c = to_dev(&c, 4, 0);
    free(sentinel);
    ufn_plan *p = &w->plan[0];
    plan_init(p, &test_add, UFN_MEM_DEVICE, 0, 1, &n);
    plan_arg(p, 0, w->x, NULL);
    plan_arg(p, 1, w->y, NULL);
    plan_arg(p, 2, w->t, NULL);
    p->contiguous = true;
    p = &w->plan[1];
    plan_init(p, &test_add, UFN_MEM_DEVICE, 0, 1, &n);
    const int64_t zero = 0;
    plan_arg(p, 0, w->t, NULL);
    plan_arg(p, 1, w->c, &zero);
    plan_arg(p, 2, w->out, NULL);
    int temp[2][3] = { { -1, -1, 0 }, { 0, -1, -1 } };
    for (int i = 0; i < 2; i++) {
        for (int k = 0; k < UFN_MAXARGS; k++)
            w->temp[i][k] = k < 3 ? temp[i][k] : -1;
        w->pipe.plan[i] = &w->plan[i];
        w->pipe.temp[i] = w->temp[i];
    }
    w->pipe.ncalls = 2;
    w->pipe.ntemps = 1;
    w->pipe.temp_elsize[0] = 4;
}

static void release(two_calls *w)
{
    float *all[] = { w->x, w->y, w->t, w->c, w->out };
    for (int i = 0; i < 5; i++)
        be->free(be, 0, all[i], NULL);
}

static void test_one_graph(void **state)
{
    (void)state;
    float *x = floats(N, 0.5f), *y = floats(N, -0.125f), *got = malloc(N * 4);
    two_calls *w = calloc(1, sizeof *w);
    build(w, x, y, 3.0f);
    ufn_cuda_set_pipeline_chunk(CHUNK);
    assert_int_equal(be->synchronize(be), 0);
    ufn_sim_stats before, after;
    ufn_sim_get_stats(0, &before);
    trace_start();
    assert_int_equal(be->run_pipeline(be, &w->pipe, NULL), 0);
    assert_int_equal(be->synchronize(be), 0);
    trace_stop();
    ufn_sim_get_stats(0, &after);
    /* one graph of 5 chunks x 2 calls, nothing launched or copied besides */
    assert_int_equal(after.graph_launches - before.graph_launches, 1);
    assert_int_equal(after.launches - before.launches, 10);
    assert_int_equal(after.h2d - before.h2d, 0);
    assert_int_equal(after.d2h - before.d2h, 0);
    assert_int_equal(after.d2d - before.d2d, 0);
    assert_int_equal(count(UFN_EV_GRAPH), 1);
    assert_int_equal(total(UFN_EV_GRAPH), 10);
    assert_int_equal(count(UFN_EV_LAUNCH), 0);
    from_dev(got, w->out, N * 4, 0);
    for (int i = 0; i < N; i++)
        assert_true(got[i] == (x[i] + y[i]) + 3.0f);
    from_dev(got, w->t, N * 4, 0);
    for (int i = 0; i < N; i++)
        assert_true(got[i] == SENTINEL);   /* the temporary: never written */
    ufn_cuda_set_pipeline_chunk(0);
    release(w);
    free(w);
    free(x);
    free(y);
    free(got);
}

/* After failures: the next run is one graph and gives (x + y) + 1 (the
 * pipeline build() made with c = 1); then everything is freed. */
static void one_graph_then_free(two_calls *w, float *x, float *y, float *got)
{
    assert_int_equal(be->synchronize(be), 0);
    ufn_sim_stats before, after;
    ufn_sim_get_stats(0, &before);
    assert_int_equal(be->run_pipeline(be, &w->pipe, NULL), 0);
    assert_int_equal(be->synchronize(be), 0);
    ufn_sim_get_stats(0, &after);
    assert_int_equal(after.graph_launches - before.graph_launches, 1);
    from_dev(got, w->out, N * 4, 0);
    for (int i = 0; i < N; i++)
        assert_true(got[i] == (x[i] + y[i]) + 1.0f);
    release(w);
    free(w);
    free(x);
    free(y);
    free(got);
}

/* A failing driver call: the status names it, and nothing is left capturing. */
static void test_driver_failures(void **state)
{
    (void)state;
    static const char *const calls[] = { "cuStreamBeginCapture", "cuLaunchKernel", "cuGraphInstantiate",
                                         "cuGraphLaunch" };
    float *x = floats(N, 1.0f), *y = floats(N, 2.0f), *got = malloc(N * 4);
    two_calls *w = calloc(1, sizeof *w);
    build(w, x, y, 1.0f);
    for (size_t c = 0; c < sizeof calls / sizeof calls[0]; c++) {
        ufn_sim_inject_failure(calls[c], 0, CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES);
        int st = be->run_pipeline(be, &w->pipe, NULL);
        assert_int_equal(st, UFN_ERR_DRIVER);
        if (!strstr(ufn_error(), calls[c]))
            fail_msg("%s: %s", calls[c], ufn_error());
        ufn_sim_inject_failure(NULL, 0, 0);
    }
    /* nothing left capturing: the next run is one graph that works */
    one_graph_then_free(w, x, y, got);
}

/* A driver that has the graph calls but cannot capture or instantiate here
 * ("not supported"): the backend declines, having run nothing, so that
 * pipeline.c runs the calls one by one; any other failure stays an error
 * (test_driver_failures). */
static void test_unsupported_declines(void **state)
{
    (void)state;
    static const struct { const char *call; int result; } cases[] = {
        { "cuStreamBeginCapture", CUDA_ERROR_NOT_SUPPORTED },
        { "cuStreamBeginCapture", CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED },
        { "cuGraphInstantiate", CUDA_ERROR_NOT_SUPPORTED },
    };
    float *x = floats(N, 1.0f), *y = floats(N, 2.0f), *got = malloc(N * 4);
    two_calls *w = calloc(1, sizeof *w);
    build(w, x, y, 1.0f);
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        assert_int_equal(be->synchronize(be), 0);
        ufn_sim_stats before, after;
        ufn_sim_get_stats(0, &before);
        ufn_sim_inject_failure(cases[c].call, 0, cases[c].result);
        int st = be->run_pipeline(be, &w->pipe, NULL);
        ufn_sim_inject_failure(NULL, 0, 0);
        if (st != UFN_PIPE_DECLINED)
            fail_msg("%s -> %d: %d (%s)", cases[c].call, cases[c].result, st, ufn_error());
        assert_int_equal(be->synchronize(be), 0);
        ufn_sim_get_stats(0, &after);
        assert_int_equal(after.graph_launches - before.graph_launches, 0);
        assert_int_equal(after.launches - before.launches, 0);
        from_dev(got, w->out, N * 4, 0);
        for (int i = 0; i < N; i++)
            assert_true(got[i] == SENTINEL);   /* nothing ran */
    }
    /* nothing left capturing: the next run is one graph that works */
    one_graph_then_free(w, x, y, got);
}

/* The chunk follows the device's L2: one chunk for a pipeline this small. */
static void test_chunk_from_l2(void **state)
{
    (void)state;
    float *x = floats(N, 1.0f), *y = floats(N, 2.0f);
    two_calls *w = calloc(1, sizeof *w);
    build(w, x, y, 1.0f);
    trace_start();
    assert_int_equal(be->run_pipeline(be, &w->pipe, NULL), 0);
    trace_stop();
    assert_int_equal(count(UFN_EV_GRAPH), 1);
    assert_int_equal(total(UFN_EV_GRAPH), 2);
    release(w);
    free(w);
    free(x);
    free(y);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_one_graph, teardown_each),
        cmocka_unit_test_teardown(test_driver_failures, teardown_each),
        cmocka_unit_test_teardown(test_unsupported_declines, teardown_each),
        cmocka_unit_test_teardown(test_chunk_from_l2, teardown_each),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
