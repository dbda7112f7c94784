/* test_cuda_backend.c - the CUDA backend, run through the simulator: the
 * operations table the runtime calls (alloc, copies, execute, streams), with
 * plans built by hand as call.c would build them.  The trace hook checks what
 * crossed between host and device, and how launches were cut.  What a GPU
 * would show and the CPU hides is in test_cuda_hardening.c. */
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cuda_test.h"

/* ---- the backend ------------------------------------------------------------------------ */

static void test_backend(void **state)
{
    (void)state;
    assert_string_equal(be->name, "sim");
    assert_int_equal(be->device_memory, UFN_MEM_DEVICE);
    assert_int_equal(be->device_count(be), 2);
    assert_int_equal(be->default_device(be), 0);
    assert_ptr_equal(ufn_sim_backend(), be);   /* initialised once */
}

static void test_size_classes(void **state)
{
    (void)state;
    assert_int_equal(cuda_cache_class_size(1), 512);
    assert_int_equal(cuda_cache_class_size(512), 512);
    assert_int_equal(cuda_cache_class_size(513), 640);
    assert_int_equal(cuda_cache_class_size(1000), 1024);
    assert_int_equal(cuda_cache_class_size(1025), 1280);
    assert_int_equal(cuda_cache_class_size(3 << 20), 3 << 20);
    assert_int_equal(cuda_cache_class_size((size_t)64 << 20), (size_t)64 << 20);
    assert_int_equal(cuda_cache_class_size(((size_t)64 << 20) + 1), (size_t)66 << 20);
}

static void test_allocator_reuses(void **state)
{
    (void)state;
    ufn_sim_stats before, after;
    ufn_sim_get_stats(0, &before);
    trace_start();
    void *a = dev_alloc(100000, 0);
    be->free(be, 0, a, NULL);
    void *b = dev_alloc(99000, 0);   /* the same class: the same block */
    assert_ptr_equal(a, b);
    be->free(be, 0, b, NULL);
    be->free(be, 0, b, NULL);                  /* unknown now: ignored */
    ufn_sim_get_stats(0, &after);
    assert_int_equal(after.mem_allocs, before.mem_allocs + 1);
    assert_int_equal(tlog.n, 4);
    assert_int_equal(tlog.ev[0].kind, UFN_EV_ALLOC);
    assert_null(tlog.ev[0].name);
    assert_int_equal(tlog.ev[0].bytes, 100000);
    assert_int_equal(tlog.ev[1].kind, UFN_EV_FREE);
    assert_int_equal(tlog.ev[1].bytes, 100000);   /* what was asked for, not the class */
    assert_int_equal(tlog.ev[2].kind, UFN_EV_ALLOC);
    assert_string_equal(tlog.ev[2].name, "cache");
    assert_string_equal(tlog.ev[2].backend, "sim");
    assert_int_equal(tlog.ev[2].bytes, 99000);
    assert_int_equal(tlog.ev[3].kind, UFN_EV_FREE);
    assert_int_equal(tlog.ev[3].bytes, 99000);
}

static void test_copies(void **state)
{
    (void)state;
    ufn_cuda_set_stage_bytes(256 << 10);
    size_t sizes[] = { 1, 4000, (size_t)3 << 20 };   /* direct, direct, staged in chunks */
    for (int i = 0; i < 3; i++) {
        size_t n = sizes[i];
        unsigned char *h = malloc(n), *back = malloc(n);
        for (size_t j = 0; j < n; j++)
            h[j] = (unsigned char)(j * 7 + i);
        trace_start();
        void *d = to_dev(h, n, 0);
        void *d2 = dev_alloc(n, 0);
        assert_int_equal(be->copy_d2d(be, 0, d2, d, n, NULL), 0);
        memset(back, 0, n);
        from_dev(back, d2, n, 0);
        assert_memory_equal(h, back, n);
        assert_int_equal(total(UFN_EV_H2D), n);
        assert_int_equal(total(UFN_EV_D2D), n);
        assert_int_equal(total(UFN_EV_D2H), n);
        int chunks = n >= (1 << 20) ? (int)((n + (256 << 10) - 1) / (256 << 10)) : 1;
        assert_int_equal(count(UFN_EV_H2D), chunks);
        assert_int_equal(count(UFN_EV_D2H), chunks);
        be->free(be, 0, d, NULL);
        be->free(be, 0, d2, NULL);
        free(h);
        free(back);
    }
}

/* ---- plans over device arrays ------------------------------------------------------------- */

static void test_device_contiguous(void **state)
{
    (void)state;
    enum { N = 1003 };
    float *a = floats(N + 1, 1.0f), *b = floats(N + 1, 0.5f), out[N + 1];
    float *da = to_dev(a, sizeof(float) * (N + 1), 0);
    float *db = to_dev(b, sizeof(float) * (N + 1), 0);
    float *dout = dev_alloc(sizeof(float) * (N + 1), 0);
    /* Aligned (the kernel's 16-byte path), then one element off (its scalar path). */
    for (int shift = 0; shift < 2; shift++) {
        ufn_plan p;
        int64_t shape[] = { N };
        plan_init(&p, &test_add, UFN_MEM_DEVICE, 0, 1, shape);
        plan_arg(&p, 0, da + shift, NULL);
        plan_arg(&p, 1, db, NULL);
        plan_arg(&p, 2, dout, NULL);
        p.contiguous = true;
        trace_start();
        assert_int_equal(be->execute(be, &p, NULL), 0);
        assert_int_equal(count(UFN_EV_LAUNCH), 1);
        assert_string_equal(tlog.ev[0].name, "ufn_test_add_f32_contig");
        assert_int_equal(tlog.ev[0].bytes, N);
        trace_stop();
        from_dev(out, dout, sizeof(float) * N, 0);
        for (int i = 0; i < N; i++)
            assert_float_equal(out[i], a[i + shift] + b[i], 0);
    }
    be->free(be, 0, da, NULL);
    be->free(be, 0, db, NULL);
    be->free(be, 0, dout, NULL);
    free(a);
    free(b);
}

/* A transposed input, a broadcast row, and more dimensions than one launch takes. */
static void test_device_strided(void **state)
{
    (void)state;
    enum { R = 37, C = 53 };
    float *a = floats(R * C, 1.0f), *row = floats(C, -2.0f), *out = malloc(sizeof(float) * R * C);
    float *da = to_dev(a, sizeof(float) * R * C, 0), *drow = to_dev(row, sizeof(float) * C, 0);
    float *dout = dev_alloc(sizeof(float) * R * C, 0);
    ufn_plan p;
    int64_t shape[] = { R, C };
    plan_init(&p, &test_add, UFN_MEM_DEVICE, 0, 2, shape);
    plan_arg(&p, 0, da, (int64_t[]){ 1, R });   /* a is stored C x R: its transpose */
    plan_arg(&p, 1, drow, (int64_t[]){ 0, 1 });
    plan_arg(&p, 2, dout, NULL);
    assert_int_equal(be->execute(be, &p, NULL), 0);
    from_dev(out, dout, sizeof(float) * R * C, 0);
    for (int r = 0; r < R; r++)
        for (int c = 0; c < C; c++)
            assert_float_equal(out[r * C + c], a[c * R + r] + row[c], 0);

    /* 10 dimensions of 2, read in reverse (Fortran) order: two outer
     * dimensions are looped on the host, 4 launches of 256. */
    int64_t shape10[10], fstr[10];
    for (int d = 0; d < 10; d++) {
        shape10[d] = 2;
        fstr[d] = (int64_t)1 << d;
    }
    plan_init(&p, &test_add, UFN_MEM_DEVICE, 0, 10, shape10);
    plan_arg(&p, 0, da, fstr);
    plan_arg(&p, 1, da, NULL);
    plan_arg(&p, 2, dout, NULL);
    trace_start();
    assert_int_equal(be->execute(be, &p, NULL), 0);
    assert_int_equal(count(UFN_EV_LAUNCH), 4);
    assert_int_equal(largest_launch(), 256);
    trace_stop();
    from_dev(out, dout, sizeof(float) * 1024, 0);
    for (int i = 0; i < 1024; i++) {
        int f = 0;   /* i's index digits reversed */
        for (int d = 0; d < 10; d++)
            f |= ((i >> (9 - d)) & 1) << d;
        assert_float_equal(out[i], a[f] + a[i], 0);
    }
    be->free(be, 0, da, NULL);
    be->free(be, 0, drow, NULL);
    be->free(be, 0, dout, NULL);
    free(a);
    free(row);
    free(out);
}

static void test_device_mixed_and_two_outputs(void **state)
{
    (void)state;
    enum { N = 500 };
    int16_t x[N];
    int32_t a[N], b[N], q[N], r[N];
    double h[N];
    for (int i = 0; i < N; i++) {
        x[i] = (int16_t)(i * 37 - 9000);
        a[i] = i * 13 - 3000;
        b[i] = i % 7 - 3;
    }
    int16_t *dx = to_dev(x, sizeof x, 0);
    double *dh = dev_alloc(sizeof h, 0);
    ufn_plan p;
    int64_t shape[] = { N };
    plan_init(&p, &test_half, UFN_MEM_DEVICE, 0, 1, shape);
    plan_arg(&p, 0, dx, NULL);
    plan_arg(&p, 1, dh, NULL);
    p.contiguous = true;
    assert_int_equal(be->execute(be, &p, NULL), 0);
    from_dev(h, dh, sizeof h, 0);
    for (int i = 0; i < N; i++)
        assert_float_equal(h[i], x[i] * 0.5, 0);

    /* divmod has no contiguous kernel: the strided one runs instead. */
    int32_t *da = to_dev(a, sizeof a, 0), *db = to_dev(b, sizeof b, 0);
    int32_t *dq = dev_alloc(sizeof q, 0), *dr = dev_alloc(sizeof r, 0);
    plan_init(&p, &test_divmod, UFN_MEM_DEVICE, 0, 1, shape);
    plan_arg(&p, 0, da, NULL);
    plan_arg(&p, 1, db, NULL);
    plan_arg(&p, 2, dq, NULL);
    plan_arg(&p, 3, dr, NULL);
    p.contiguous = true;
    trace_start();
    assert_int_equal(be->execute(be, &p, NULL), 0);
    assert_string_equal(tlog.ev[0].name, "ufn_test_divmod_i32_strided");
    trace_stop();
    from_dev(q, dq, sizeof q, 0);
    from_dev(r, dr, sizeof r, 0);
    for (int i = 0; i < N; i++) {
        if (b[i] == 0) {
            assert_int_equal(q[i], 0);
            continue;
        }
        assert_int_equal(q[i] * b[i] + r[i], a[i]);
        assert_true(r[i] == 0 || (r[i] < 0) == (b[i] < 0));
    }
    void *all[] = { dx, dh, da, db, dq, dr };
    for (int i = 0; i < 6; i++)
        be->free(be, 0, all[i], NULL);
}

/* l2_norm '(i)->()' over vectors stored column-wise; cumsum '(n)->(n)'
 * writing a transposed output. */
static void test_device_gufuncs(void **state)
{
    (void)state;
    enum { A = 6, B = 5, I = 9 };
    float *v = floats(A * B * I, 0.1f), norms[A * B];
    float *dv = to_dev(v, sizeof(float) * A * B * I, 0), *dn = dev_alloc(sizeof norms, 0);
    ufn_plan p;
    int64_t shape[] = { A, B };
    plan_init(&p, &test_l2_norm, UFN_MEM_DEVICE, 0, 2, shape);
    plan_arg(&p, 0, dv, (int64_t[]){ B, 1 });   /* v is stored [I][A][B] */
    plan_arg(&p, 1, dn, NULL);
    p.ncore = 1;
    p.core_size[0] = I;
    p.core_ndim[0] = 1;
    p.core_strides[0][0] = A * B;
    assert_int_equal(be->execute(be, &p, NULL), 0);
    from_dev(norms, dn, sizeof norms, 0);
    for (int a = 0; a < A; a++)
        for (int b = 0; b < B; b++) {
            float acc = 0;
            for (int i = 0; i < I; i++) {
                float x = v[i * A * B + a * B + b];
                acc += x * x;
            }
            assert_float_equal(norms[a * B + b], sqrtf(acc), 1e-5f * sqrtf(acc));
        }

    enum { M = 7, K = 25 };
    double x[M * K], y[M * K];
    for (int i = 0; i < M * K; i++)
        x[i] = i % 11 - 5;
    double *dx = to_dev(x, sizeof x, 0), *dy = dev_alloc(sizeof y, 0);
    int64_t mshape[] = { M };
    plan_init(&p, &test_cumsum, UFN_MEM_DEVICE, 0, 1, mshape);
    plan_arg(&p, 0, dx, (int64_t[]){ K });
    plan_arg(&p, 1, dy, (int64_t[]){ 1 });      /* y is stored [K][M] */
    p.ncore = 1;
    p.core_size[0] = K;
    p.core_ndim[0] = p.core_ndim[1] = 1;
    p.core_strides[0][0] = 1;
    p.core_strides[1][0] = M;
    assert_int_equal(be->execute(be, &p, NULL), 0);
    from_dev(y, dy, sizeof y, 0);
    for (int m = 0; m < M; m++) {
        double acc = 0;
        for (int k = 0; k < K; k++) {
            acc += x[m * K + k];
            assert_float_equal(y[k * M + m], acc, 0);
        }
    }
    be->free(be, 0, dv, NULL);
    be->free(be, 0, dn, NULL);
    be->free(be, 0, dx, NULL);
    be->free(be, 0, dy, NULL);
    free(v);
}

/* Launches are cut so that each has fewer than `limit` iterations. */
static void test_split_launches(void **state)
{
    (void)state;
    ufn_cuda_set_split_limit(100);
    enum { N = 1000 };
    float *a = floats(N * 8, 1.0f), *out = malloc(sizeof(float) * N * 8);
    float *da = to_dev(a, sizeof(float) * N * 8, 0), *dout = dev_alloc(sizeof(float) * N * 8, 0);

    ufn_plan p;
    int64_t shape[] = { N };
    plan_init(&p, &test_add, UFN_MEM_DEVICE, 0, 1, shape);
    plan_arg(&p, 0, da, NULL);
    plan_arg(&p, 1, da, NULL);
    plan_arg(&p, 2, dout, NULL);
    p.contiguous = true;
    trace_start();
    assert_int_equal(be->execute(be, &p, NULL), 0);
    assert_int_equal(count(UFN_EV_LAUNCH), 11);    /* 10 x 96 + 40 */
    assert_int_equal(total(UFN_EV_LAUNCH), N);
    assert_int_equal(largest_launch(), 96);
    /* pieces of a multiple of 16 elements: each starts 16-byte aligned, and
     * the kernel keeps its 16-byte path (not 99, as once) */
    for (int i = 0; i < tlog.n - 1; i++)
        assert_int_equal(tlog.ev[i].bytes % 16, 0);
    from_dev(out, dout, sizeof(float) * N, 0);
    for (int i = 0; i < N; i++)
        assert_float_equal(out[i], 2 * a[i], 0);

    /* Rows too long for one launch: each row in pieces of 96. */
    int64_t shape2[] = { 30, 250 };
    plan_init(&p, &test_add, UFN_MEM_DEVICE, 0, 2, shape2);
    plan_arg(&p, 0, da, (int64_t[]){ 250, 1 });
    plan_arg(&p, 1, da, (int64_t[]){ 0, 2 });
    plan_arg(&p, 2, dout, NULL);
    trace_start();
    assert_int_equal(be->execute(be, &p, NULL), 0);
    assert_int_equal(count(UFN_EV_LAUNCH), 90);
    assert_int_equal(largest_launch(), 96);
    from_dev(out, dout, sizeof(float) * 7500, 0);
    for (int r = 0; r < 30; r++)
        for (int c = 0; c < 250; c++)
            assert_float_equal(out[r * 250 + c], a[r * 250 + c] + a[2 * c], 0);

    /* Short rows: whole rows per launch, 3 of 33 (99 iterations). */
    int64_t shape3[] = { 40, 33 };
    plan_init(&p, &test_add, UFN_MEM_DEVICE, 0, 2, shape3);
    plan_arg(&p, 0, da, NULL);
    plan_arg(&p, 1, da, (int64_t[]){ 1, 40 });
    plan_arg(&p, 2, dout, NULL);
    trace_start();
    assert_int_equal(be->execute(be, &p, NULL), 0);
    assert_int_equal(count(UFN_EV_LAUNCH), 14);    /* ceil(40 / 3) */
    assert_int_equal(largest_launch(), 99);
    from_dev(out, dout, sizeof(float) * 40 * 33, 0);
    for (int r = 0; r < 40; r++)
        for (int c = 0; c < 33; c++)
            assert_float_equal(out[r * 33 + c], a[r * 33 + c] + a[c * 40 + r], 0);

    /* A gufunc too. */
    float norms[N];
    int64_t gshape[] = { N };
    plan_init(&p, &test_l2_norm, UFN_MEM_DEVICE, 0, 1, gshape);
    plan_arg(&p, 0, da, (int64_t[]){ 8 });
    plan_arg(&p, 1, dout, NULL);
    p.ncore = 1;
    p.core_size[0] = 8;
    p.core_ndim[0] = 1;
    p.core_strides[0][0] = 1;
    trace_start();
    assert_int_equal(be->execute(be, &p, NULL), 0);
    assert_int_equal(count(UFN_EV_LAUNCH), 11);
    from_dev(norms, dout, sizeof norms, 0);
    for (int i = 0; i < N; i++) {
        float acc = 0;
        for (int j = 0; j < 8; j++)
            acc += a[i * 8 + j] * a[i * 8 + j];
        assert_float_equal(norms[i], sqrtf(acc), 1e-5f * sqrtf(acc));
    }
    be->free(be, 0, da, NULL);
    be->free(be, 0, dout, NULL);
    free(a);
    free(out);
}

static void test_empty_and_scalar(void **state)
{
    (void)state;
    float a = 1.5f, b = 2.25f, out = 0;
    ufn_plan p;
    int64_t shape[] = { 0, 5 };
    plan_init(&p, &test_add, UFN_MEM_HOST, 0, 2, shape);
    plan_arg(&p, 0, &a, NULL);
    plan_arg(&p, 1, &b, NULL);
    plan_arg(&p, 2, &out, NULL);
    trace_start();
    assert_int_equal(be->execute(be, &p, NULL), 0);
    p.memory = UFN_MEM_DEVICE;
    assert_int_equal(be->execute(be, &p, NULL), 0);
    assert_int_equal(tlog.n, 0);   /* nothing at all */

    /* 0-d: one iteration, on the host and on the device. */
    plan_init(&p, &test_add, UFN_MEM_HOST, 0, 0, NULL);
    plan_arg(&p, 0, &a, NULL);
    plan_arg(&p, 1, &b, NULL);
    plan_arg(&p, 2, &out, NULL);
    assert_int_equal(be->execute(be, &p, NULL), 0);
    assert_float_equal(out, 3.75f, 0);
    float *da = to_dev(&a, 4, 0), *dout = dev_alloc(4, 0);
    plan_arg(&p, 0, da, NULL);
    plan_arg(&p, 1, da, NULL);
    plan_arg(&p, 2, dout, NULL);
    p.memory = UFN_MEM_DEVICE;
    assert_int_equal(be->execute(be, &p, NULL), 0);
    from_dev(&out, dout, 4, 0);
    assert_float_equal(out, 3.0f, 0);
    be->free(be, 0, da, NULL);
    be->free(be, 0, dout, NULL);
}

/* A pipeline over device arrays moves data once each way. */
static void test_pipeline_trace(void **state)
{
    (void)state;
    enum { N = 1000 };
    float *a = floats(N, 1.0f), *b = floats(N, 3.0f), out[N];
    ufn_plan p;
    int64_t shape[] = { N };
    trace_start();
    float *da = to_dev(a, sizeof(float) * N, 0);
    float *db = to_dev(b, sizeof(float) * N, 0);
    float *dt = dev_alloc(sizeof(float) * N, 0);
    plan_init(&p, &test_add, UFN_MEM_DEVICE, 0, 1, shape);
    plan_arg(&p, 0, da, NULL);
    plan_arg(&p, 1, db, NULL);
    plan_arg(&p, 2, dt, NULL);
    p.contiguous = true;
    assert_int_equal(be->execute(be, &p, NULL), 0);
    float *dr = dev_alloc(sizeof(float) * N, 0);
    plan_arg(&p, 0, dt, NULL);
    plan_arg(&p, 1, da, NULL);
    plan_arg(&p, 2, dr, NULL);
    assert_int_equal(be->execute(be, &p, NULL), 0);
    from_dev(out, dr, sizeof(float) * N, 0);
    trace_stop();
    const ufn_event_kind expected[] = { UFN_EV_ALLOC, UFN_EV_H2D, UFN_EV_ALLOC, UFN_EV_H2D,
                                        UFN_EV_ALLOC, UFN_EV_LAUNCH, UFN_EV_ALLOC,
                                        UFN_EV_LAUNCH, UFN_EV_D2H };
    assert_int_equal(tlog.n, 9);
    for (int i = 0; i < 9; i++) {
        assert_int_equal(tlog.ev[i].kind, expected[i]);
        assert_string_equal(tlog.ev[i].backend, "sim");
        assert_int_equal(tlog.ev[i].device, 0);
    }
    assert_int_equal(total(UFN_EV_H2D), 2 * sizeof(float) * N);
    assert_int_equal(total(UFN_EV_D2H), sizeof(float) * N);
    assert_int_equal(tlog.ev[5].bytes, N);
    for (int i = 0; i < N; i++)
        assert_float_equal(out[i], 2 * a[i] + b[i], 0);
    void *all[] = { da, db, dt, dr };
    for (int i = 0; i < 4; i++)
        be->free(be, 0, all[i], NULL);
    free(a);
    free(b);
}

/* ---- plans over host arrays: the staging ring ------------------------------------------------- */

static void test_host_staging(void **state)
{
    (void)state;
    ufn_cuda_set_stage_bytes(64 << 10);   /* 5461 iterations of 12 bytes a chunk */
    enum { R = 300, C = 1000 };
    float *a = floats((size_t)R * C, 0.5f), *row = floats(C, 2.0f);
    float *out = malloc(sizeof(float) * R * C);
    ufn_plan p;
    int64_t shape[] = { R, C };
    plan_init(&p, &test_add, UFN_MEM_HOST, 0, 2, shape);
    plan_arg(&p, 0, a, (int64_t[]){ 1, R });     /* transposed */
    plan_arg(&p, 1, row, (int64_t[]){ 0, 1 });   /* broadcast */
    plan_arg(&p, 2, out, NULL);
    ufn_sim_stats before, after;
    ufn_sim_get_stats(0, &before);
    trace_start();
    assert_int_equal(be->execute(be, &p, NULL), 0);
    trace_stop();
    ufn_sim_get_stats(0, &after);
    int chunks = (R * C + 5460) / 5461;
    assert_int_equal(count(UFN_EV_LAUNCH), chunks);
    assert_int_equal(total(UFN_EV_LAUNCH), R * C);
    assert_int_equal(total(UFN_EV_H2D), 2 * sizeof(float) * R * C);
    assert_int_equal(total(UFN_EV_D2H), sizeof(float) * R * C);
    assert_int_equal(after.launches - before.launches, (uint64_t)chunks);
    for (int r = 0; r < R; r++)
        for (int c = 0; c < C; c++)
            assert_float_equal(out[r * C + c], a[c * R + r] + row[c], 0);

    /* A second call reuses the ring: no new pinned memory. */
    ufn_sim_get_stats(0, &before);
    assert_int_equal(be->execute(be, &p, NULL), 0);
    ufn_sim_get_stats(0, &after);
    assert_int_equal(after.host_allocs, before.host_allocs);
    assert_int_equal(after.mem_allocs, before.mem_allocs);

    /* Mixed sizes, an input read backwards. */
    enum { N = 20000 };
    int16_t *x = malloc(sizeof(int16_t) * N);
    double *h = malloc(sizeof(double) * N);
    for (int i = 0; i < N; i++)
        x[i] = (int16_t)(i - 10000);
    int64_t shape1[] = { N };
    plan_init(&p, &test_half, UFN_MEM_HOST, 0, 1, shape1);
    plan_arg(&p, 0, x + N - 1, (int64_t[]){ -1 });
    plan_arg(&p, 1, h, NULL);
    assert_int_equal(be->execute(be, &p, NULL), 0);
    for (int i = 0; i < N; i++)
        assert_float_equal(h[i], x[N - 1 - i] * 0.5, 0);

    /* Two outputs, no contiguous kernel. */
    int32_t *ia = malloc(4 * N), *ib = malloc(4 * N), *q = malloc(4 * N), *r = malloc(4 * N);
    for (int i = 0; i < N; i++) {
        ia[i] = i * 7 - 50000;
        ib[i] = i % 9 - 4;
    }
    plan_init(&p, &test_divmod, UFN_MEM_HOST, 0, 1, shape1);
    plan_arg(&p, 0, ia, NULL);
    plan_arg(&p, 1, ib, NULL);
    plan_arg(&p, 2, q, NULL);
    plan_arg(&p, 3, r, NULL);
    p.contiguous = true;
    assert_int_equal(be->execute(be, &p, NULL), 0);
    for (int i = 0; i < N; i++)
        if (ib[i] != 0)
            assert_int_equal(q[i] * ib[i] + r[i], ia[i]);
    free(ia);
    free(ib);
    free(q);
    free(r);
    free(x);
    free(h);
    free(a);
    free(row);
    free(out);
}

static void test_host_staging_gufuncs(void **state)
{
    (void)state;
    ufn_cuda_set_stage_bytes(4 << 10);    /* 30 iterations of 136 bytes a chunk */
    enum { A = 50, B = 40, I = 33 };
    float *v = floats((size_t)A * B * I, 0.01f), *norms = malloc(sizeof(float) * A * B);
    ufn_plan p;
    int64_t shape[] = { A, B };
    plan_init(&p, &test_l2_norm, UFN_MEM_HOST, 0, 2, shape);
    plan_arg(&p, 0, v, (int64_t[]){ B, 1 });   /* v is stored [I][A][B] */
    plan_arg(&p, 1, norms, NULL);
    p.ncore = 1;
    p.core_size[0] = I;
    p.core_ndim[0] = 1;
    p.core_strides[0][0] = A * B;
    trace_start();
    assert_int_equal(be->execute(be, &p, NULL), 0);
    trace_stop();
    assert_int_equal(count(UFN_EV_LAUNCH), (A * B + 29) / 30);
    assert_int_equal(total(UFN_EV_H2D), sizeof(float) * A * B * I);
    assert_int_equal(total(UFN_EV_D2H), sizeof(float) * A * B);
    for (int a = 0; a < A; a++)
        for (int b = 0; b < B; b++) {
            float acc = 0;
            for (int i = 0; i < I; i++) {
                float x = v[i * A * B + a * B + b];
                acc += x * x;
            }
            assert_float_equal(norms[a * B + b], sqrtf(acc), 1e-5f * sqrtf(acc));
        }

    /* Output core blocks scattered back with strides. */
    enum { M = 70, K = 25 };
    double *x = malloc(sizeof(double) * M * K), *y = malloc(sizeof(double) * M * K);
    for (int i = 0; i < M * K; i++)
        x[i] = (i * 31) % 17 - 8;
    int64_t mshape[] = { M };
    plan_init(&p, &test_cumsum, UFN_MEM_HOST, 0, 1, mshape);
    plan_arg(&p, 0, x, (int64_t[]){ K });
    plan_arg(&p, 1, y, (int64_t[]){ 1 });   /* y is stored [K][M] */
    p.ncore = 1;
    p.core_size[0] = K;
    p.core_ndim[0] = p.core_ndim[1] = 1;
    p.core_strides[0][0] = 1;
    p.core_strides[1][0] = M;
    trace_start();
    assert_int_equal(be->execute(be, &p, NULL), 0);
    trace_stop();
    assert_true(count(UFN_EV_LAUNCH) > 1);
    for (int m = 0; m < M; m++) {
        double acc = 0;
        for (int k = 0; k < K; k++) {
            acc += x[m * K + k];
            assert_float_equal(y[k * M + m], acc, 0);
        }
    }
    free(x);
    free(y);
    free(v);
    free(norms);
}

/* Several threads stage host calls at once, each through its own ring. */
typedef struct worker {
    int id;
    int failures;
} worker;

static void *work(void *arg)
{
    worker *w = arg;
    enum { N = 30000 };
    float *a = malloc(sizeof(float) * N), *out = malloc(sizeof(float) * N);
    for (int round = 0; round < 5; round++) {
        for (int i = 0; i < N; i++)
            a[i] = (float)(i + w->id * 1000 + round);
        ufn_plan p;
        int64_t shape[] = { N };
        plan_init(&p, &test_add, UFN_MEM_HOST, w->id % 2, 1, shape);
        plan_arg(&p, 0, a, NULL);
        plan_arg(&p, 1, a, NULL);
        plan_arg(&p, 2, out, NULL);
        p.contiguous = true;
        if (be->execute(be, &p, NULL) != 0)
            w->failures++;
        for (int i = 0; i < N; i++)
            if (out[i] != 2 * a[i])
                w->failures++;
    }
    free(a);
    free(out);
    return NULL;
}

static void test_concurrent_calls(void **state)
{
    (void)state;
    ufn_cuda_set_stage_bytes(32 << 10);
    pthread_t t[4];
    worker w[4];
    for (int i = 0; i < 4; i++) {
        w[i] = (worker){ i, 0 };
        assert_int_equal(pthread_create(&t[i], NULL, work, &w[i]), 0);
    }
    for (int i = 0; i < 4; i++) {
        pthread_join(t[i], NULL);
        assert_int_equal(w[i].failures, 0);
    }
}

/* ---- devices, streams, failures ------------------------------------------------------------- */

static void test_second_device(void **state)
{
    (void)state;
    enum { N = 100 };
    float *a = floats(N, 1.0f), out[N];
    ufn_sim_stats d0, d1, d0b, d1b;
    ufn_sim_get_stats(0, &d0);
    ufn_sim_get_stats(1, &d1);
    float *da = to_dev(a, sizeof(float) * N, 1), *dout = dev_alloc(sizeof(float) * N, 1);
    ufn_plan p;
    int64_t shape[] = { N };
    plan_init(&p, &test_add, UFN_MEM_DEVICE, 1, 1, shape);
    plan_arg(&p, 0, da, NULL);
    plan_arg(&p, 1, da, NULL);
    plan_arg(&p, 2, dout, NULL);
    p.contiguous = true;
    trace_start();
    assert_int_equal(be->execute(be, &p, NULL), 0);
    assert_int_equal(tlog.ev[0].device, 1);
    trace_stop();
    from_dev(out, dout, sizeof out, 1);
    for (int i = 0; i < N; i++)
        assert_float_equal(out[i], 2 * a[i], 0);
    ufn_sim_get_stats(0, &d0b);
    ufn_sim_get_stats(1, &d1b);
    assert_int_equal(d0b.launches, d0.launches);
    assert_int_equal(d1b.launches, d1.launches + 1);

    void *x;
    assert_int_equal(be->alloc(be, 2, 16, NULL, &x), UFN_ERR_NO_DEVICE);
    assert_non_null(strstr(ufn_error(), "no sim device 2"));
    p.device = 5;
    assert_int_equal(be->execute(be, &p, NULL), UFN_ERR_NO_DEVICE);
    be->free(be, 1, da, NULL);
    be->free(be, 1, dout, NULL);
    free(a);
}

static void test_streams(void **state)
{
    (void)state;
    ufn_stream_impl s = { be, NULL };
    assert_int_equal(be->stream_create(be, &s), 0);
    assert_non_null(s.handle);
    enum { N = 64 };
    float *a = floats(N, 1.0f), out[N];
    float *da = dev_alloc(sizeof(float) * N, 0), *dout = dev_alloc(sizeof(float) * N, 0);
    assert_int_equal(be->copy_h2d(be, 0, da, a, sizeof(float) * N, &s), 0);
    ufn_plan p;
    int64_t shape[] = { N };
    plan_init(&p, &test_add, UFN_MEM_DEVICE, 0, 1, shape);
    plan_arg(&p, 0, da, NULL);
    plan_arg(&p, 1, da, NULL);
    plan_arg(&p, 2, dout, NULL);
    p.contiguous = true;
    assert_int_equal(be->execute(be, &p, &s), 0);
    assert_int_equal(be->copy_d2h(be, 0, out, dout, sizeof out, &s), 0);
    assert_int_equal(be->stream_synchronize(be, &s), 0);
    assert_int_equal(be->stream_synchronize(be, NULL), 0);
    assert_int_equal(be->synchronize(be), 0);
    for (int i = 0; i < N; i++)
        assert_float_equal(out[i], 2 * a[i], 0);

    /* The stream belongs to device 0. */
    p.device = 1;
    assert_int_equal(be->execute(be, &p, &s), UFN_ERR_INVALID);
    assert_non_null(strstr(ufn_error(), "device 0 used on device 1"));
    /* A stream of another backend. */
    ufn_stream_impl other = { NULL, s.handle };
    p.device = 0;
    assert_int_equal(be->execute(be, &p, &other), UFN_ERR_INVALID);

    assert_int_equal(be->stream_destroy(be, &s), 0);
    assert_null(s.handle);
    be->free(be, 0, da, NULL);
    be->free(be, 0, dout, NULL);
    free(a);
}

static void test_out_of_memory(void **state)
{
    (void)state;
    /* Start from an empty device 1: no staging rings, nothing cached. */
    cuda_backend *b = ufn_sim_backend_state();
    assert_int_equal(cuda_enter(b, &b->devs[1]), 0);
    cuda_stage_release(b, &b->devs[1]);
    cuda_cache_release(b, &b->devs[1]);
    cuda_leave(b);
    ufn_sim_stats st;
    ufn_sim_get_stats(1, &st);
    assert_int_equal(st.mem_used, 0);
    assert_int_equal(ufn_sim_set_memory_limit(1, 1 << 20), 0);

    void *p = NULL, *q = NULL;
    assert_int_equal(be->alloc(be, 1, 2 << 20, NULL, &p), UFN_ERR_DEVICE_NOMEM);
    assert_non_null(strstr(ufn_error(), "cuMemAlloc(2097152 bytes) failed: "
                                        "CUDA_ERROR_OUT_OF_MEMORY (out of memory) on sim device 1"));

    /* A cached block is given back, and the allocation retried. */
    assert_int_equal(be->alloc(be, 1, 600 << 10, NULL, &p), 0);
    be->free(be, 1, p, NULL);
    ufn_sim_get_stats(1, &st);
    uint64_t frees = st.mem_frees;
    assert_int_equal(be->alloc(be, 1, 700 << 10, NULL, &q), 0);
    ufn_sim_get_stats(1, &st);
    assert_int_equal(st.mem_frees, frees + 1);
    be->free(be, 1, q, NULL);

    /* Host staging runs out too, with the same status. */
    enum { N = 300000 };
    float *a = calloc(N, sizeof(float));
    ufn_plan plan;
    int64_t shape[] = { N };
    plan_init(&plan, &test_add, UFN_MEM_HOST, 1, 1, shape);
    plan_arg(&plan, 0, a, NULL);
    plan_arg(&plan, 1, a, NULL);
    plan_arg(&plan, 2, a, NULL);
    plan.contiguous = true;
    ufn_cuda_set_stage_bytes(16 << 20);
    assert_int_equal(be->execute(be, &plan, NULL), UFN_ERR_DEVICE_NOMEM);
    free(a);
    assert_int_equal(ufn_sim_set_memory_limit(1, (size_t)4 << 30), 0);
}

static void test_no_code(void **state)
{
    (void)state;
    float a = 1, out = 0;
    ufn_plan p;
    int64_t shape[] = { 1 };
    plan_init(&p, &test_add_host_only, UFN_MEM_HOST, 0, 1, shape);
    plan_arg(&p, 0, &a, NULL);
    plan_arg(&p, 1, &a, NULL);
    plan_arg(&p, 2, &out, NULL);
    assert_int_equal(be->execute(be, &p, NULL), UFN_ERR_NO_CODE);
    assert_non_null(strstr(ufn_error(), "module 'host_only' was built without simulator code"));
    assert_non_null(strstr(ufn_error(), "--target=sim"));
    p.func = &test_missing;
    p.loop = &test_missing.loops[0];
    assert_int_equal(be->execute(be, &p, NULL), UFN_ERR_NO_CODE);
    assert_non_null(strstr(ufn_error(), "has no kernel no_such_contig"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_backend, teardown_each),
        cmocka_unit_test_teardown(test_size_classes, teardown_each),
        cmocka_unit_test_teardown(test_allocator_reuses, teardown_each),
        cmocka_unit_test_teardown(test_copies, teardown_each),
        cmocka_unit_test_teardown(test_device_contiguous, teardown_each),
        cmocka_unit_test_teardown(test_device_strided, teardown_each),
        cmocka_unit_test_teardown(test_device_mixed_and_two_outputs, teardown_each),
        cmocka_unit_test_teardown(test_device_gufuncs, teardown_each),
        cmocka_unit_test_teardown(test_split_launches, teardown_each),
        cmocka_unit_test_teardown(test_empty_and_scalar, teardown_each),
        cmocka_unit_test_teardown(test_pipeline_trace, teardown_each),
        cmocka_unit_test_teardown(test_host_staging, teardown_each),
        cmocka_unit_test_teardown(test_host_staging_gufuncs, teardown_each),
        cmocka_unit_test_teardown(test_concurrent_calls, teardown_each),
        cmocka_unit_test_teardown(test_second_device, teardown_each),
        cmocka_unit_test_teardown(test_streams, teardown_each),
        cmocka_unit_test_teardown(test_out_of_memory, teardown_each),
        cmocka_unit_test_teardown(test_no_code, teardown_each),
    };
    unsetenv("UFN_SIM_DEVICES");
    unsetenv("UFN_SIM_MEMORY");
    unsetenv("UFN_SIM_LATENCY");
    unsetenv("UFN_DEVICE");
    unsetenv("UFN_STAGE_BYTES");
    return cmocka_run_group_tests(tests, setup, NULL);
}
