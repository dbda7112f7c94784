/* test_multi.c - several devices in one process, on four simulated GPUs:
 * which device a host-array call runs on, the device set (UFN_DEVICES,
 * ufn_set_devices), host-array calls split into one slab per device, and
 * sharded device arrays.  Calls go through ufn_call, as generated entries
 * do; the trace hook and the simulator's statistics say which device did
 * what and which bytes crossed. */
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

/* cuda_test.h's plan helpers serve the backend's own tests, not all of them these */
#pragma GCC diagnostic ignored "-Wunused-function"
#include "cuda_test.h"

#define NDEV 4

static int call2(const ufn_func *f, const ufn_array *a, const ufn_array *b, ufn_array *out)
{
    const ufn_array *in[2] = { a, b };
    ufn_array *o[1] = { out };
    return ufn_call(f, in, o);
}

/* Events of one kind on one device in the log. */
static int count_on(ufn_event_kind kind, int device)
{
    int c = 0;
    for (int i = 0; i < tlog.n; i++)
        c += tlog.ev[i].kind == kind && tlog.ev[i].device == device;
    return c;
}

/* ---- which device ------------------------------------------------------------------------ */

/* A call on host arrays runs on the default device, UFN_DEVICE=1 here (it
 * went to device 0 whatever UFN_DEVICE said). */
static void test_host_call_on_default_device(void **state)
{
    (void)state;
    enum { N = 1000 };
    float *a = floats(N, 1.0f), out[N];
    int64_t n = N;
    ufn_array x = ufn_host(a, UFN_FLOAT32, 1, &n), r = ufn_host(out, UFN_FLOAT32, 1, &n);
    trace_start();
    assert_int_equal(call2(&test_add, &x, &x, &r), 0);
    trace_stop();
    assert_int_equal(count_on(UFN_EV_LAUNCH, 1), 1);
    assert_int_equal(count(UFN_EV_LAUNCH), 1);
    for (int i = 0; i < N; i++)
        assert_float_equal(out[i], 2 * a[i], 0);
    free(a);
}

/* ---- the device set ---------------------------------------------------------------------- */

static void test_device_set(void **state)
{
    (void)state;
    int d[8];
    assert_int_equal(ufn_get_devices(d, 8), 1);       /* none set: the default device */
    assert_int_equal(d[0], 1);
    assert_int_equal(ufn_set_devices((int[]){ 3, 0, 3 }, 3), 0);
    assert_int_equal(ufn_get_devices(d, 8), 2);
    assert_int_equal(d[0], 0);
    assert_int_equal(d[1], 3);
    assert_int_equal(ufn_get_devices(d, 1), 2);       /* the count, whatever fits */
    assert_int_equal(ufn_set_devices((int[]){ 0, 4 }, 2), UFN_ERR_NO_DEVICE);
    assert_non_null(strstr(ufn_error(), "no sim device 4: there are 4 (0 to 3)"));
    assert_int_equal(ufn_set_devices((int[]){ -1 }, 1), UFN_ERR_INVALID);
    assert_int_equal(ufn_set_devices(NULL, 2), UFN_ERR_INVALID);
    assert_int_equal(ufn_set_devices(d, -1), UFN_ERR_INVALID);
    assert_int_equal(ufn_get_devices(NULL, 2), UFN_ERR_INVALID);
    assert_int_equal(ufn_get_devices(d, 8), 2);       /* a refused set changes nothing */
    assert_int_equal(ufn_set_devices(NULL, 0), 0);
    assert_int_equal(ufn_get_devices(d, 8), 1);
    assert_int_equal(d[0], 1);
}

/* UFN_DEVICES, as backend.c reads it when it chooses the backend. */
static void test_devices_variable(void **state)
{
    (void)state;
    const ufn_backend_ops *sim = ufn_active_backend();
    int d[8];
    setenv("UFN_DEVICES", "all", 1);
    assert_int_equal(ufn_devices_configure(sim), 0);
    assert_int_equal(ufn_get_devices(d, 8), 4);
    setenv("UFN_DEVICES", "2,0", 1);
    assert_int_equal(ufn_devices_configure(sim), 0);
    assert_int_equal(ufn_get_devices(d, 8), 2);
    assert_int_equal(d[0] * 10 + d[1], 2);
    setenv("UFN_DEVICES", "1,,2", 1);
    assert_int_equal(ufn_devices_configure(sim), UFN_ERR_INVALID);
    assert_non_null(strstr(ufn_error(), "UFN_DEVICES=1,,2 is neither \"all\" nor a list"));
    setenv("UFN_DEVICES", "0,9", 1);
    assert_int_equal(ufn_devices_configure(sim), UFN_ERR_NO_DEVICE);
    assert_non_null(strstr(ufn_error(), "UFN_DEVICES=0,9: no sim device 9"));
    /* the host backend has one device: a list is accepted, the set stays empty */
    assert_int_equal(ufn_devices_configure(&ufn_backend_host), 0);
    assert_int_equal(ufn_device_mask(), 0);
    unsetenv("UFN_DEVICES");
    assert_int_equal(ufn_devices_configure(sim), 0);
    assert_int_equal(ufn_device_mask(), 0);
}

static void test_block_range(void **state)
{
    (void)state;
    int64_t first, count, next = 0;
    for (int i = 0; i < 3; i++) {     /* 100 rows on 3: 34, 33, 33 */
        ufn_block_range(100, 3, i, &first, &count);
        assert_int_equal(first, next);
        assert_int_equal(count, i == 0 ? 34 : 33);
        next += count;
    }
    ufn_block_range(2, 4, 3, &first, &count);   /* fewer rows than parts */
    assert_int_equal(count, 0);
    assert_int_equal(first, 2);
    ufn_block_range(10, 2, 2, &first, &count);  /* no such part */
    assert_int_equal(count, 0);
}

/* ---- host-array calls split over the devices ------------------------------------------------ */

static void stats_all(ufn_sim_stats *s)
{
    for (int d = 0; d < NDEV; d++)
        assert_int_equal(ufn_sim_get_stats(d, &s[d]), 0);
}

/* One slab per device, each moving its share of the bytes and no more. */
static void test_split_host_call(void **state)
{
    (void)state;
    enum { N = 100003 };
    float *a = floats(N, 1.0f), *b = floats(N, -0.5f), *out = malloc(sizeof(float) * N);
    int64_t n = N;
    ufn_array x = ufn_host(a, UFN_FLOAT32, 1, &n), y = ufn_host(b, UFN_FLOAT32, 1, &n);
    ufn_array r = ufn_host(out, UFN_FLOAT32, 1, &n);
    assert_int_equal(ufn_set_devices((int[]){ 0, 1, 2, 3 }, 4), 0);
    ufn_multi_set_min_slab(1024);
    ufn_sim_stats before[NDEV], after[NDEV];
    stats_all(before);
    trace_start();
    assert_int_equal(call2(&test_add, &x, &y, &r), 0);
    trace_stop();
    stats_all(after);
    for (int d = 0; d < NDEV; d++) {
        int64_t first, rows;
        ufn_block_range(N, NDEV, d, &first, &rows);
        assert_int_equal(count_on(UFN_EV_LAUNCH, d), 1);
        assert_int_equal(after[d].h2d_bytes - before[d].h2d_bytes, 2 * sizeof(float) * rows);
        assert_int_equal(after[d].d2h_bytes - before[d].d2h_bytes, sizeof(float) * rows);
        assert_int_equal(after[d].d2d_bytes, before[d].d2d_bytes);
    }
    assert_int_equal(total(UFN_EV_LAUNCH), N);
    for (int i = 0; i < N; i++)
        assert_float_equal(out[i], a[i] + b[i], 0);

    /* Below the threshold: whole, on the set's first device. */
    ufn_multi_set_min_slab(0);
    trace_start();
    assert_int_equal(call2(&test_add, &x, &y, &r), 0);
    trace_stop();
    assert_int_equal(count(UFN_EV_LAUNCH), 1);
    assert_int_equal(count_on(UFN_EV_LAUNCH, 0), 1);
    free(a);
    free(b);
    free(out);
}

/* Strided and broadcast operands, an outer dimension of 7 rows over 4
 * devices, and a gufunc, whose core dimension stays whole. */
static void test_split_views_and_gufuncs(void **state)
{
    (void)state;
    enum { R = 7, C = 3001 };
    float *a = floats((size_t)R * C, 0.5f), *row = floats(C, 2.0f);
    float *out = malloc(sizeof(float) * R * C);
    ufn_array x = ufn_host_strided(a, UFN_FLOAT32, 2, (int64_t[]){ R, C }, (int64_t[]){ 1, R });
    ufn_array y = ufn_host(row, UFN_FLOAT32, 1, (int64_t[]){ C });
    ufn_array r = ufn_host(out, UFN_FLOAT32, 2, (int64_t[]){ R, C });
    assert_int_equal(ufn_set_devices((int[]){ 0, 1, 2, 3 }, 4), 0);
    ufn_multi_set_min_slab(1024);
    trace_start();
    assert_int_equal(call2(&test_add, &x, &y, &r), 0);
    trace_stop();
    for (int d = 0; d < NDEV; d++)   /* rows 2, 2, 2, 1: one slab each */
        assert_int_equal(count_on(UFN_EV_LAUNCH, d), 1);
    for (int i = 0; i < R; i++)
        for (int j = 0; j < C; j++)
            assert_float_equal(out[i * C + j], a[j * R + i] + row[j], 0);

    enum { M = 999, I = 17 };
    float *v = floats((size_t)M * I, 0.01f), norms[M];
    ufn_array vec = ufn_host(v, UFN_FLOAT32, 2, (int64_t[]){ M, I });
    ufn_array nr = ufn_host(norms, UFN_FLOAT32, 1, (int64_t[]){ M });
    const ufn_array *in[1] = { &vec };
    ufn_array *o[1] = { &nr };
    trace_start();
    assert_int_equal(ufn_call(&test_l2_norm, in, o), 0);
    trace_stop();
    for (int d = 0; d < NDEV; d++)
        assert_int_equal(count_on(UFN_EV_LAUNCH, d), 1);
    for (int i = 0; i < M; i++) {
        float acc = 0;
        for (int k = 0; k < I; k++)
            acc += v[i * I + k] * v[i * I + k];
        assert_float_equal(norms[i], sqrtf(acc), 1e-3 * sqrtf(acc));
    }
    free(v);
    free(a);
    free(row);
    free(out);
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The slabs run at once: each device's work waits 100 ms on the
 * simulator before it starts, and four devices take about as long as one
 * (one after another they would take 400 ms at least). */
static void test_split_overlaps(void **state)
{
    (void)state;
    enum { N = 40000 };
    float *a = floats(N, 1.0f), *out = malloc(sizeof(float) * N);
    int64_t n = N;
    ufn_array x = ufn_host(a, UFN_FLOAT32, 1, &n), r = ufn_host(out, UFN_FLOAT32, 1, &n);
    assert_int_equal(ufn_set_devices((int[]){ 0, 1, 2, 3 }, 4), 0);
    ufn_multi_set_min_slab(1024);
    ufn_sim_set_latency(100000);
    double t0 = now_s();
    assert_int_equal(call2(&test_add, &x, &x, &r), 0);
    double t = now_s() - t0;
    ufn_sim_set_latency(0);
    assert_true(t >= 0.1);
    assert_true(t < 0.3);
    for (int i = 0; i < N; i++)
        assert_float_equal(out[i], 2 * a[i], 0);
    free(a);
    free(out);
}

/* A slab that fails is the call's failure, naming its device; the others
 * finish, and the next call works. */
static void test_split_failure(void **state)
{
    (void)state;
    enum { N = 40000 };
    float *a = floats(N, 1.0f), *out = malloc(sizeof(float) * N);
    int64_t n = N;
    ufn_array x = ufn_host(a, UFN_FLOAT32, 1, &n), r = ufn_host(out, UFN_FLOAT32, 1, &n);
    assert_int_equal(ufn_set_devices((int[]){ 0, 1, 2, 3 }, 4), 0);
    ufn_multi_set_min_slab(1024);
    ufn_sim_inject_failure("cuLaunchKernel", 2, CUDA_ERROR_LAUNCH_FAILED);
    assert_int_equal(call2(&test_add, &x, &x, &r), UFN_ERR_KERNEL);
    assert_non_null(strstr(ufn_error(), "add: device "));
    assert_non_null(strstr(ufn_error(), "cuLaunchKernel"));
    assert_int_equal(call2(&test_add, &x, &x, &r), 0);
    for (int i = 0; i < N; i++)
        assert_float_equal(out[i], 2 * a[i], 0);
    free(a);
    free(out);
}

/* ---- copies between devices ------------------------------------------------------------------ */

/* copy_peer waits for the source device's default stream, copies, and is
 * done when it returns; the trace names both devices. */
static void test_copy_peer(void **state)
{
    (void)state;
    enum { N = 3000 };
    float *a = floats(N, 1.0f), back[N];
    ufn_sim_set_latency(2000);   /* the source's copy-in is still queued when asked */
    float *src = to_dev(a, sizeof back, 2), *dst = dev_alloc(sizeof back, 0);
    ufn_sim_stats before, after;
    ufn_sim_get_stats(0, &before);
    trace_start();
    assert_int_equal(be->copy_peer(be, 0, dst, 2, src, sizeof back), 0);
    trace_stop();
    ufn_sim_get_stats(0, &after);
    assert_int_equal(after.peer_bytes - before.peer_bytes, sizeof back);
    assert_int_equal(count(UFN_EV_PEER), 1);
    assert_int_equal(tlog.ev[0].from, 2);
    assert_int_equal(tlog.ev[0].device, 0);
    from_dev(back, dst, sizeof back, 0);
    assert_memory_equal(back, a, sizeof back);
    assert_int_equal(be->copy_peer(be, 4, dst, 2, src, 4), UFN_ERR_NO_DEVICE);
    be->free(be, 2, src, NULL);
    be->free(be, 0, dst, NULL);
    free(a);
}

/* ---- sharded arrays ------------------------------------------------------------------------- */

static int64_t rows_of(int64_t n, int part)
{
    int64_t first, rows;
    ufn_block_range(n, NDEV, part, &first, &rows);
    return rows;
}

/* One part per device, each crossing to its own device and back. */
static void test_sharded_arrays(void **state)
{
    (void)state;
    enum { R = 10, C = 7 };
    float *a = floats(R * C, 1.0f), back[R * C], strided[C][R];
    ufn_array h = ufn_host(a, UFN_FLOAT32, 2, (int64_t[]){ R, C });
    assert_int_equal(ufn_set_devices((int[]){ 0, 1, 2, 3 }, 4), 0);
    ufn_sim_stats before[NDEV], after[NDEV];
    stats_all(before);
    ufn_array s;
    assert_int_equal(ufn_to_device_sharded(&h, &s), 0);
    stats_all(after);
    assert_int_equal(s.memory, UFN_MEM_SHARDED);
    assert_int_equal(ufn_shard_count(&s), NDEV);
    int64_t next = 0;
    for (int d = 0; d < NDEV; d++) {
        ufn_array part;
        int64_t first;
        assert_int_equal(ufn_shard_part(&s, d, &first, &part), 0);
        assert_int_equal(first, next);
        assert_int_equal(part.memory, UFN_MEM_DEVICE);
        assert_int_equal(part.device, d);
        assert_int_equal(part.shape[0], rows_of(R, d));   /* 3, 3, 2, 2 */
        assert_int_equal(part.shape[1], C);
        assert_int_equal(after[d].h2d_bytes - before[d].h2d_bytes,
                         sizeof(float) * C * rows_of(R, d));
        next += part.shape[0];
    }
    assert_int_equal(ufn_shard_part(&s, 4, NULL, &(ufn_array){ 0 }), UFN_ERR_INVALID);

    ufn_array hb = ufn_host(back, UFN_FLOAT32, 2, (int64_t[]){ R, C });
    assert_int_equal(ufn_copy_to_host(&s, &hb), 0);
    assert_memory_equal(back, a, sizeof back);
    ufn_array hs = ufn_host_strided(strided, UFN_FLOAT32, 2, (int64_t[]){ R, C },
                                    (int64_t[]){ 1, R });
    assert_int_equal(ufn_copy_to_host(&s, &hs), 0);
    for (int i = 0; i < R; i++)
        for (int j = 0; j < C; j++)
            assert_float_equal(strided[j][i], a[i * C + j], 0);
    ufn_array fresh = { 0 };
    assert_int_equal(ufn_copy_to_host(&s, &fresh), 0);
    assert_memory_equal(fresh.data, a, sizeof back);
    ufn_free(&fresh);

    /* Used whole only: not as a view, not where one device's array goes. */
    ufn_array view = s;
    view.shape[0] = 4;
    assert_int_equal(ufn_copy_to_host(&view, &hb), UFN_ERR_INVALID);
    assert_non_null(strstr(ufn_error(), "a sharded array is used whole"));
    ufn_array dev = { 0 };
    assert_int_equal(ufn_to_device(&s, &dev), UFN_ERR_WRONG_MEMORY);
    assert_non_null(strstr(ufn_error(), "a sharded array cannot be used here"));
    assert_int_equal(ufn_shard_count(&h), UFN_ERR_WRONG_MEMORY);

    ufn_array stale = s;
    size_t live = ufn_registry_count();
    ufn_free(&s);
    assert_int_equal(ufn_registry_count(), live - 1);
    assert_int_equal(ufn_copy_to_host(&stale, &hb), UFN_ERR_FREED);
    assert_int_equal(ufn_shard_count(&stale), UFN_ERR_FREED);

    /* Made empty; a scalar has no rows to spread. */
    assert_int_equal(ufn_device_array_sharded(UFN_FLOAT64, 1, (int64_t[]){ 3 }, &s), 0);
    assert_int_equal(ufn_shard_count(&s), NDEV);   /* 1, 1, 1 and 0 rows */
    ufn_array last;
    assert_int_equal(ufn_shard_part(&s, 3, NULL, &last), 0);
    assert_int_equal(last.shape[0], 0);
    ufn_free(&s);
    assert_int_equal(ufn_device_array_sharded(UFN_FLOAT64, 0, NULL, &s), UFN_ERR_NDIM);
    ufn_array one = ufn_scalar_float32(1);
    assert_int_equal(ufn_to_device_sharded(&one, &s), UFN_ERR_NDIM);
    free(a);
}

/* A pipeline of calls on sharded arrays moves no data between devices:
 * every launch on the device that holds its rows, no copy at all. */
static void test_sharded_pipeline(void **state)
{
    (void)state;
    enum { N = 1001 };
    float *a = floats(N, 1.0f), *b = floats(N, 0.25f), out[N];
    ufn_array ha = ufn_host(a, UFN_FLOAT32, 1, (int64_t[]){ N });
    ufn_array hb = ufn_host(b, UFN_FLOAT32, 1, (int64_t[]){ N });
    assert_int_equal(ufn_set_devices((int[]){ 0, 1, 2, 3 }, 4), 0);
    ufn_array x, y, sum = { 0 }, twice = { 0 };
    assert_int_equal(ufn_to_device_sharded(&ha, &x), 0);
    assert_int_equal(ufn_to_device_sharded(&hb, &y), 0);
    ufn_sim_stats before[NDEV], after[NDEV];
    stats_all(before);
    trace_start();
    assert_int_equal(call2(&test_add, &x, &y, &sum), 0);
    assert_int_equal(sum.memory, UFN_MEM_SHARDED);
    assert_int_equal(call2(&test_add, &sum, &x, &twice), 0);
    trace_stop();
    stats_all(after);
    for (int d = 0; d < NDEV; d++) {
        assert_int_equal(count_on(UFN_EV_LAUNCH, d), 2);
        assert_int_equal(after[d].h2d + after[d].d2h + after[d].d2d,
                         before[d].h2d + before[d].d2h + before[d].d2d);
    }
    assert_int_equal(count(UFN_EV_LAUNCH), 2 * NDEV);
    ufn_array ho = ufn_host(out, UFN_FLOAT32, 1, (int64_t[]){ N });
    assert_int_equal(ufn_copy_to_host(&twice, &ho), 0);
    for (int i = 0; i < N; i++)
        assert_float_equal(out[i], (a[i] + b[i]) + a[i], 0);

    /* An output given: written in place, part by part. */
    assert_int_equal(call2(&test_add, &x, &x, &twice), 0);
    assert_int_equal(ufn_copy_to_host(&twice, &ho), 0);
    for (int i = 0; i < N; i++)
        assert_float_equal(out[i], 2 * a[i], 0);

    /* A gufunc: its core dimension stays whole on each device. */
    enum { M = 50, I = 9 };
    float *v = floats(M * I, 0.1f), norms[M];
    ufn_array hv = ufn_host(v, UFN_FLOAT32, 2, (int64_t[]){ M, I }), sv, sn = { 0 };
    assert_int_equal(ufn_to_device_sharded(&hv, &sv), 0);
    const ufn_array *in[1] = { &sv };
    ufn_array *o[1] = { &sn };
    assert_int_equal(ufn_call(&test_l2_norm, in, o), 0);
    assert_int_equal(sn.memory, UFN_MEM_SHARDED);
    assert_int_equal(sn.ndim, 1);
    ufn_array hn = ufn_host(norms, UFN_FLOAT32, 1, (int64_t[]){ M });
    assert_int_equal(ufn_copy_to_host(&sn, &hn), 0);
    for (int i = 0; i < M; i++) {
        float acc = 0;
        for (int k = 0; k < I; k++)
            acc += v[i * I + k] * v[i * I + k];
        assert_float_equal(norms[i], sqrtf(acc), 1e-3 * sqrtf(acc));
    }
    ufn_free(&sv);
    ufn_free(&sn);
    ufn_free(&x);
    ufn_free(&y);
    ufn_free(&sum);
    ufn_free(&twice);
    free(v);
    free(a);
    free(b);
}

/* Host operands with sharded ones: the rows each device needs cross to
 * it, a broadcast row and a scalar whole; a host output is written part
 * by part, and one that overlaps a host input reads a copy of it. */
static void test_sharded_with_host_operands(void **state)
{
    (void)state;
    enum { R = 9, C = 64 };
    float *a = floats(R * C, 1.0f), *row = floats(C, 3.0f), *out = malloc(sizeof(float) * R * C);
    ufn_array ha = ufn_host(a, UFN_FLOAT32, 2, (int64_t[]){ R, C });
    ufn_array hrow = ufn_host(row, UFN_FLOAT32, 1, (int64_t[]){ C });
    ufn_array hout = ufn_host(out, UFN_FLOAT32, 2, (int64_t[]){ R, C });
    assert_int_equal(ufn_set_devices((int[]){ 0, 1, 2, 3 }, 4), 0);
    ufn_array s, t = { 0 };
    assert_int_equal(ufn_to_device_sharded(&ha, &s), 0);
    ufn_sim_stats before[NDEV], after[NDEV];
    stats_all(before);
    assert_int_equal(call2(&test_add, &s, &ha, &hout), 0);   /* rows of a host array */
    stats_all(after);
    for (int d = 0; d < NDEV; d++) {
        assert_int_equal(after[d].h2d_bytes - before[d].h2d_bytes,
                         sizeof(float) * C * rows_of(R, d));
        assert_int_equal(after[d].d2h_bytes - before[d].d2h_bytes,
                         sizeof(float) * C * rows_of(R, d));
    }
    for (int i = 0; i < R * C; i++)
        assert_float_equal(out[i], 2 * a[i], 0);
    assert_int_equal(call2(&test_add, &s, &hrow, &t), 0);    /* a row broadcast to all */
    ufn_array scalar = ufn_scalar_float32(0.5f), u = { 0 };
    assert_int_equal(call2(&test_add, &t, &scalar, &u), 0);
    assert_int_equal(ufn_copy_to_host(&u, &hout), 0);
    for (int i = 0; i < R; i++)
        for (int j = 0; j < C; j++)
            assert_float_equal(out[i * C + j], a[i * C + j] + row[j] + 0.5f, 0);

    /* out = reversed(a) + s, with out the memory of a: every part reads
     * the rows another part writes, so they read a copy. */
    float *copy = malloc(sizeof(float) * R * C);
    memcpy(copy, a, sizeof(float) * R * C);
    ufn_array rev = ufn_host_strided(a + (R - 1) * C, UFN_FLOAT32, 2, (int64_t[]){ R, C },
                                     (int64_t[]){ -C, 1 });
    ufn_array inplace = ufn_host(a, UFN_FLOAT32, 2, (int64_t[]){ R, C });
    assert_int_equal(call2(&test_add, &rev, &s, &inplace), 0);
    for (int i = 0; i < R; i++)
        for (int j = 0; j < C; j++)
            assert_float_equal(a[i * C + j], copy[(R - 1 - i) * C + j] + copy[i * C + j], 0);
    ufn_free(&s);
    ufn_free(&t);
    ufn_free(&u);
    free(copy);
    free(a);
    free(row);
    free(out);
}

static void test_sharded_refused(void **state)
{
    (void)state;
    enum { R = 8, C = 4 };
    float *a = floats(R * C, 1.0f), out[R * C];
    ufn_array ha = ufn_host(a, UFN_FLOAT32, 2, (int64_t[]){ R, C });
    ufn_array hout = ufn_host(out, UFN_FLOAT32, 2, (int64_t[]){ R, C });
    assert_int_equal(ufn_set_devices((int[]){ 0, 1, 2, 3 }, 4), 0);
    ufn_array s4, s2, dev, row, none = { 0 };
    assert_int_equal(ufn_to_device_sharded(&ha, &s4), 0);
    assert_int_equal(ufn_set_devices((int[]){ 2, 3 }, 2), 0);
    assert_int_equal(ufn_to_device_sharded(&ha, &s2), 0);
    assert_int_equal(ufn_to_device(&ha, &dev), 0);
    ufn_array hrow = ufn_host(a, UFN_FLOAT32, 1, (int64_t[]){ C });
    assert_int_equal(ufn_to_device_sharded(&hrow, &row), 0);

    assert_int_equal(call2(&test_add, &s4, &dev, &hout), UFN_ERR_WRONG_MEMORY);
    assert_non_null(strstr(ufn_error(), "add: a sharded array and an array of one device"));
    assert_int_equal(call2(&test_add, &s4, &s2, &hout), UFN_ERR_SHAPE);
    assert_non_null(strstr(ufn_error(), "add: input 1: its rows are spread over other devices"));
    assert_int_equal(call2(&test_add, &ha, &row, &hout), UFN_ERR_SHAPE);  /* broadcast rows */
    assert_non_null(strstr(ufn_error(), "input 1: a sharded array must span the call's first"));
    ufn_array flt = ufn_host(a, UFN_FLOAT64, 2, (int64_t[]){ R, C / 2 });
    assert_int_equal(call2(&test_add, &s4, &flt, &none), UFN_ERR_SHAPE);
    assert_int_equal(ufn_registry_count(), ufn_registry_count());
    size_t live = ufn_registry_count();
    ufn_sim_inject_failure("cuLaunchKernel", 1, CUDA_ERROR_LAUNCH_FAILED);
    assert_int_equal(call2(&test_add, &s4, &s4, &none), UFN_ERR_KERNEL);
    assert_non_null(strstr(ufn_error(), "add: device 1: "));
    assert_int_equal(ufn_registry_count(), live);   /* the new output went back */
    assert_int_equal(none.memory, UFN_MEM_NONE);
    ufn_free(&s4);
    ufn_free(&s2);
    ufn_free(&dev);
    ufn_free(&row);
    free(a);
}

/* ---- reductions ------------------------------------------------------------------------------ */

/* Generated general entries of test_add and test_half, as ufnc writes them. */
static int add_entry(const ufn_array *a, const ufn_array *b, ufn_array *out)
{
    return call2(&test_add, a, b, out);
}

static int half_entry(const ufn_array *a, const ufn_array *b, ufn_array *out)
{
    (void)b;
    const ufn_array *in[1] = { a };
    ufn_array *o[1] = { out };
    return ufn_call(&test_half, in, o);
}

static int not_an_entry(const ufn_array *a, const ufn_array *b, ufn_array *out)
{
    (void)a, (void)b, (void)out;
    return 0;
}

/* ufn_fold's order on the host: neighbours pairwise, an odd last one
 * joining the pair before it; column by column of rows of `width`. */
static void ref_fold(const float *v, int64_t n, int64_t width, float *res)
{
    float *cur = malloc(sizeof(float) * (size_t)(n * width));
    memcpy(cur, v, sizeof(float) * (size_t)(n * width));
    for (int64_t m = n; m > 1; m /= 2) {
        int64_t h = m / 2;
        for (int64_t i = 0; i < h; i++)
            for (int64_t j = 0; j < width; j++)
                cur[i * width + j] = cur[2 * i * width + j] + cur[(2 * i + 1) * width + j];
        if (m % 2)
            for (int64_t j = 0; j < width; j++)
                cur[(h - 1) * width + j] += cur[(m - 1) * width + j];
    }
    memcpy(res, cur, sizeof(float) * (size_t)width);
    free(cur);
}

static float fget(const ufn_array *host, int64_t i)
{
    return ((const float *)host->data)[i];
}

/* One device array: the result on its device, in ufn_fold's order to the
 * bit; 1 row and 2-d arrays too. */
static void test_fold(void **state)
{
    (void)state;
    enum { N = 1001, R = 7, C = 5 };
    float *a = floats(N, 0.37f), want[C];
    ufn_array h = ufn_host(a, UFN_FLOAT32, 1, (int64_t[]){ N }), d, sum = { 0 }, back = { 0 };
    assert_int_equal(ufn_to_device(&h, &d), 0);
    assert_int_equal(ufn_fold(add_entry, &d, &sum), 0);
    assert_int_equal(sum.memory, UFN_MEM_DEVICE);
    assert_int_equal(sum.device, d.device);
    assert_int_equal(sum.ndim, 0);
    assert_int_equal(ufn_copy_to_host(&sum, &back), 0);
    ref_fold(a, N, 1, want);
    assert_memory_equal(back.data, want, sizeof(float));
    ufn_free(&sum);
    ufn_free(&back);

    /* rows of a 2-d array, every other one (a strided view), on the host */
    ufn_array rows = ufn_host_strided(a, UFN_FLOAT32, 2, (int64_t[]){ R, C },
                                      (int64_t[]){ 2 * C, 1 });
    float picked[R * C];
    for (int i = 0; i < R; i++)
        memcpy(picked + i * C, a + 2 * i * C, sizeof(float) * C);
    ref_fold(picked, R, C, want);
    assert_int_equal(ufn_fold(add_entry, &rows, &sum), 0);
    assert_int_equal(sum.memory, UFN_MEM_HOST);
    assert_int_equal(sum.ndim, 1);
    assert_int_equal(sum.shape[0], C);
    assert_memory_equal(sum.data, want, sizeof want);
    ufn_free(&sum);

    /* one row: itself; a strided device row goes through the host */
    ufn_array one = ufn_host(a, UFN_FLOAT32, 2, (int64_t[]){ 1, C }), done, col;
    assert_int_equal(ufn_fold(add_entry, &one, &sum), 0);
    assert_memory_equal(sum.data, a, sizeof(float) * C);
    ufn_free(&sum);
    ufn_array grid = ufn_host(a, UFN_FLOAT32, 2, (int64_t[]){ C, 3 });
    assert_int_equal(ufn_to_device(&grid, &done), 0);
    col = done;                  /* column 1 as a (1, 5) view */
    col.ndim = 2;
    col.shape[0] = 1, col.shape[1] = C;
    col.strides[0] = 1, col.strides[1] = 3;
    col.data = (float *)done.data + 1;
    assert_int_equal(ufn_fold(add_entry, &col, &sum), 0);
    assert_int_equal(ufn_copy_to_host(&sum, &back), 0);
    for (int i = 0; i < C; i++)
        assert_float_equal(fget(&back, i), a[i * 3 + 1], 0);
    ufn_free(&sum);
    ufn_free(&back);
    ufn_free(&done);
    ufn_free(&d);
    free(a);
}

static void test_fold_refused(void **state)
{
    (void)state;
    float a[6] = { 1, 2, 3, 4, 5, 6 };
    int32_t ints[3] = { 1, 2, 3 };
    ufn_array h = ufn_host(a, UFN_FLOAT32, 1, (int64_t[]){ 6 }), r = { 0 };
    ufn_array empty = ufn_host(a, UFN_FLOAT32, 2, (int64_t[]){ 0, 3 });
    assert_int_equal(ufn_fold(add_entry, &empty, &r), UFN_ERR_SHAPE);
    assert_string_equal(ufn_error(), "ufn_fold: zero-size array to reduction operation add "
                                     "which has no identity");
    ufn_array scalar = ufn_scalar_float32(1);
    assert_int_equal(ufn_fold(add_entry, &scalar, &r), UFN_ERR_NDIM);
    ufn_array hi = ufn_host(ints, UFN_INT32, 1, (int64_t[]){ 3 });
    assert_int_equal(ufn_fold(add_entry, &hi, &r), UFN_ERR_DTYPE);
    assert_non_null(strstr(ufn_error(), "add has no signature int32(int32, int32)"));
    assert_int_equal(ufn_fold(half_entry, &h, &r), UFN_ERR_INVALID);
    assert_non_null(strstr(ufn_error(), "half is not a binary ufunc"));
    assert_int_equal(ufn_fold(not_an_entry, &h, &r), UFN_ERR_INVALID);
    assert_non_null(strstr(ufn_error(), "not the general entry of a ufunc"));
    assert_int_equal(ufn_fold(NULL, &h, &r), UFN_ERR_INVALID);
    assert_int_equal(ufn_fold(add_entry, &h, NULL), UFN_ERR_INVALID);
    assert_int_equal(ufn_fold(add_entry, &h, &h), UFN_ERR_OUTPUT);
    assert_int_equal(r.memory, UFN_MEM_NONE);
    /* test_add has no host loops: an MPI operator cannot be made of it */
    assert_int_equal(ufn_combine_host(add_entry, UFN_FLOAT32, a, a + 3, 3), UFN_ERR_NO_CODE);
    assert_non_null(strstr(ufn_error(), "ufn_combine_host: add: the module has no host code"));
    assert_int_equal(ufn_combine_host(add_entry, UFN_FLOAT32, a, a, 0), UFN_ERR_NO_CODE);
    /* and a call after all these describes as usual */
    assert_int_equal(add_entry(&h, &h, &r), 0);
    ufn_free(&r);
}

/* A sharded array: each device folds its rows, the partial results meet
 * on the first device, in device order. */
static void test_fold_sharded(void **state)
{
    (void)state;
    enum { N = 1003, C = 3 };
    float *a = floats(N * C, 0.11f), want[C], part[NDEV][C];
    ufn_array h = ufn_host(a, UFN_FLOAT32, 2, (int64_t[]){ N, C }), s, sum = { 0 };
    assert_int_equal(ufn_set_devices((int[]){ 0, 1, 2, 3 }, 4), 0);
    assert_int_equal(ufn_to_device_sharded(&h, &s), 0);
    for (int d = 0; d < NDEV; d++) {
        int64_t first, rows;
        ufn_block_range(N, NDEV, d, &first, &rows);
        ref_fold(a + first * C, rows, C, part[d]);
    }
    for (int j = 0; j < C; j++) {
        want[j] = part[0][j];
        for (int d = 1; d < NDEV; d++)
            want[j] = want[j] + part[d][j];
    }
    ufn_stream stream;   /* a stream of one device must not get in the way */
    assert_int_equal(ufn_stream_create(&stream), 0);
    ufn_set_stream(stream);
    trace_start();
    assert_int_equal(ufn_fold(add_entry, &s, &sum), 0);
    trace_stop();
    ufn_set_stream(NULL);
    assert_int_equal(sum.memory, UFN_MEM_DEVICE);
    assert_int_equal(sum.device, 0);
    assert_int_equal(count(UFN_EV_PEER), NDEV - 1);
    assert_int_equal(total(UFN_EV_PEER), (NDEV - 1) * C * sizeof(float));
    for (int d = 0; d < NDEV; d++)
        assert_true(count_on(UFN_EV_LAUNCH, d) >= 8);   /* every device folds its own */
    ufn_array back = { 0 };
    assert_int_equal(ufn_copy_to_host(&sum, &back), 0);
    assert_memory_equal(back.data, want, sizeof want);
    ufn_free(&back);
    ufn_free(&sum);
    ufn_free(&s);
    assert_int_equal(ufn_stream_destroy(stream), 0);

    /* fewer rows than devices: the empty parts take no part */
    ufn_array two = ufn_host(a, UFN_FLOAT32, 2, (int64_t[]){ 2, C });
    assert_int_equal(ufn_to_device_sharded(&two, &s), 0);
    trace_start();
    assert_int_equal(ufn_fold(add_entry, &s, &sum), 0);
    trace_stop();
    assert_int_equal(count(UFN_EV_PEER), 1);
    assert_int_equal(ufn_copy_to_host(&sum, &back), 0);
    for (int j = 0; j < C; j++)
        assert_float_equal(fget(&back, j), a[j] + a[C + j], 0);
    ufn_free(&back);
    ufn_free(&sum);
    ufn_free(&s);
    free(a);
}

static int teardown_multi(void **state)
{
    ufn_set_devices(NULL, 0);
    ufn_multi_set_min_slab(0);
    return teardown_each(state);
}

static int setup_multi(void **state)
{
    if (setup(state) != 0)
        return -1;
    return ufn_init("sim") == 0 ? 0 : -1;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_host_call_on_default_device, teardown_each),
        cmocka_unit_test_teardown(test_device_set, teardown_multi),
        cmocka_unit_test_teardown(test_devices_variable, teardown_multi),
        cmocka_unit_test_teardown(test_block_range, teardown_multi),
        cmocka_unit_test_teardown(test_split_host_call, teardown_multi),
        cmocka_unit_test_teardown(test_split_views_and_gufuncs, teardown_multi),
        cmocka_unit_test_teardown(test_split_overlaps, teardown_multi),
        cmocka_unit_test_teardown(test_split_failure, teardown_multi),
        cmocka_unit_test_teardown(test_copy_peer, teardown_multi),
        cmocka_unit_test_teardown(test_sharded_arrays, teardown_multi),
        cmocka_unit_test_teardown(test_sharded_pipeline, teardown_multi),
        cmocka_unit_test_teardown(test_sharded_with_host_operands, teardown_multi),
        cmocka_unit_test_teardown(test_sharded_refused, teardown_multi),
        cmocka_unit_test_teardown(test_fold, teardown_multi),
        cmocka_unit_test_teardown(test_fold_refused, teardown_multi),
        cmocka_unit_test_teardown(test_fold_sharded, teardown_multi),
    };
    unsetenv("UFN_SIM_MEMORY");
    unsetenv("UFN_SIM_LATENCY");
    unsetenv("UFN_STAGE_BYTES");
    unsetenv("UFN_DEVICES");
    setenv("UFN_SIM_DEVICES", "4", 1);
    setenv("UFN_DEVICE", "1", 1);
    return cmocka_run_group_tests(tests, setup_multi, NULL);
}
