/* test_cuda_hardening.c - the CUDA backend over the simulator, where a GPU
 * would show what the CPU hides: copies from page-locked memory, failures
 * half-way through a staged call, a driver that returns nothing, threads
 * racing in the allocator, stream-ordered frees, scalars passed by value,
 * and modules with recursive helpers.  The simulator runs behind the host
 * (ufn_sim_set_latency) where the order of things matters. */
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

#include "cuda_test.h"

/* Page-locked memory of the simulated driver (a DLPack kDLCUDAHost tensor,
 * or a program's own cuMemAllocHost buffer). */
static void *pinned_alloc(size_t bytes)
{
    cuda_backend *b = ufn_sim_backend_state();
    void *p = NULL;
    assert_int_equal(b->drv->cuCtxPushCurrent(b->devs[0].ctx), CUDA_SUCCESS);
    assert_int_equal(b->drv->cuMemAllocHost(&p, bytes), CUDA_SUCCESS);
    cuda_leave(b);
    return p;
}

static void pinned_free(void *p)
{
    assert_int_equal(ufn_sim_backend_state()->drv->cuMemFreeHost(p), CUDA_SUCCESS);
}

/* copy_h2d returns when the source may be reused: also from page-locked
 * memory, which the driver reads when the copy runs, not when it is queued
 * (ufn_to_device of a pinned buffer under 1 MiB returned too early). */
static void test_h2d_from_pinned_memory(void **state)
{
    (void)state;
    size_t sizes[] = { 4000, (size_t)2 << 20 };   /* direct, staged */
    for (int i = 0; i < 2; i++) {
        size_t n = sizes[i];
        unsigned char *src = pinned_alloc(n), *back = malloc(n);
        memset(src, 1, n);
        void *d = dev_alloc(n, 0);
        ufn_sim_set_latency(20000);   /* the device is 20 ms behind */
        assert_int_equal(be->copy_h2d(be, 0, d, src, n, NULL), 0);
        memset(src, 2, n);            /* the caller reuses its buffer */
        ufn_sim_set_latency(0);
        from_dev(back, d, n, 0);
        for (size_t j = 0; j < n; j++)
            if (back[j] != 1)
                fail_msg("%zu bytes: byte %zu is %d: the copy read the buffer after it returned",
                         n, j, back[j]);
        be->free(be, 0, d, NULL);
        pinned_free(src);
        free(back);
    }
}

/* Scalars go to strided ufunc kernels by value: no device memory, no copy.
 * Every element type's value survives the trip (the kernel reads it back
 * from its 32-bit pieces); also for one iteration (a 0-d plan), whose
 * contiguous kernel cannot take a value, and through the staging ring. */
static void test_scalars_by_value(void **state)
{
    (void)state;
    enum { N = 300 };
    float *a = floats(N, 1.0f), out[N], two = 2.5f;
    float *da = to_dev(a, sizeof(float) * N, 0), *dout = dev_alloc(sizeof out, 0);
    ufn_plan p;
    int64_t shape[] = { N };
    plan_init(&p, &test_add, UFN_MEM_DEVICE, 0, 1, shape);
    plan_arg(&p, 0, da, NULL);
    plan_arg(&p, 1, &two, (int64_t[]){ 0 });
    plan_arg(&p, 2, dout, NULL);
    p.by_value[1] = true;
    trace_start();
    assert_int_equal(be->execute(be, &p, NULL), 0);
    assert_int_equal(tlog.n, 1);
    assert_string_equal(tlog.ev[0].name, "ufn_test_add_f32_strided");
    trace_stop();
    from_dev(out, dout, sizeof out, 0);
    for (int i = 0; i < N; i++)
        assert_float_equal(out[i], a[i] + 2.5f, 0);

    /* int16 and int32 values, negative ones too: the low bytes of a piece */
    int16_t x = -12345;
    double h = 0;
    double *dh = dev_alloc(sizeof h, 0);
    plan_init(&p, &test_half, UFN_MEM_DEVICE, 0, 0, NULL);
    plan_arg(&p, 0, &x, NULL);
    plan_arg(&p, 1, dh, NULL);
    p.by_value[0] = true;
    p.contiguous = true;   /* one iteration: still the strided kernel */
    assert_int_equal(be->execute(be, &p, NULL), 0);
    from_dev(&h, dh, sizeof h, 0);
    assert_float_equal(h, -6172.5, 0);
    int32_t num = -7, den = 2, q = 0, r = 0;
    int32_t *dq = dev_alloc(4, 0), *dr = dev_alloc(4, 0);
    plan_init(&p, &test_divmod, UFN_MEM_DEVICE, 0, 0, NULL);
    plan_arg(&p, 0, &num, NULL);
    plan_arg(&p, 1, &den, NULL);
    plan_arg(&p, 2, dq, NULL);
    plan_arg(&p, 3, dr, NULL);
    p.by_value[0] = p.by_value[1] = true;
    assert_int_equal(be->execute(be, &p, NULL), 0);
    from_dev(&q, dq, 4, 0);
    from_dev(&r, dr, 4, 0);
    assert_int_equal(q, -4);
    assert_int_equal(r, 1);

    /* host arrays: the scalar does not cross the bus */
    ufn_cuda_set_stage_bytes(64 << 10);
    plan_init(&p, &test_add, UFN_MEM_HOST, 0, 1, shape);
    plan_arg(&p, 0, a, NULL);
    plan_arg(&p, 1, &two, (int64_t[]){ 0 });
    plan_arg(&p, 2, out, NULL);
    trace_start();
    assert_int_equal(be->execute(be, &p, NULL), 0);
    trace_stop();
    assert_int_equal(total(UFN_EV_H2D), sizeof(float) * N);
    for (int i = 0; i < N; i++)
        assert_float_equal(out[i], a[i] + 2.5f, 0);

    void *all[] = { da, dout, dh, dq, dr };
    for (int i = 0; i < 5; i++)
        be->free(be, 0, all[i], NULL);
    free(a);
}

/* A staged call or copy that fails after a chunk's copies were queued waits
 * for them before it returns: the ring's pinned buffers go back to the
 * device's idle list, and the next call packs into them. */
static void test_staging_failure_waits(void **state)
{
    (void)state;
    ufn_cuda_set_stage_bytes(64 << 10);
    enum { N = 50000 };
    float *a = floats(N, 1.0f), *b = floats(N, 2.0f), *out = malloc(sizeof(float) * N);
    ufn_plan p;
    int64_t shape[] = { N };
    plan_init(&p, &test_add, UFN_MEM_HOST, 0, 1, shape);
    plan_arg(&p, 0, a, NULL);
    plan_arg(&p, 1, b, NULL);
    plan_arg(&p, 2, out, NULL);
    p.contiguous = true;
    ufn_sim_stats st;
    assert_int_equal(be->execute(be, &p, NULL), 0);   /* the ring's memory, allocated */

    /* the first chunk's launch fails after its inputs were queued (a
     * launch failure is a fault of the kernel: UFN_ERR_KERNEL) */
    ufn_sim_set_latency(20000);
    ufn_sim_inject_failure("cuLaunchKernel", 0, CUDA_ERROR_LAUNCH_FAILED);
    assert_int_equal(be->execute(be, &p, NULL), UFN_ERR_KERNEL);
    assert_non_null(strstr(ufn_error(), "cuLaunchKernel"));
    ufn_sim_get_stats(0, &st);
    assert_int_equal(st.pending, 0);

    /* a staged copy whose first chunk cannot record its event */
    size_t n = (size_t)2 << 20;
    unsigned char *h = malloc(n);
    memset(h, 3, n);
    void *d = dev_alloc(n, 0);
    ufn_sim_set_latency(0);
    assert_int_equal(be->copy_h2d(be, 0, d, h, n, NULL), 0);
    ufn_sim_set_latency(20000);
    ufn_sim_inject_failure("cuEventRecord", 1, CUDA_ERROR_LAUNCH_FAILED);
    assert_int_equal(be->copy_h2d(be, 0, d, h, n, NULL), UFN_ERR_KERNEL);
    ufn_sim_get_stats(0, &st);
    assert_int_equal(st.pending, 0);

    /* and the ring works again */
    ufn_sim_set_latency(0);
    assert_int_equal(be->execute(be, &p, NULL), 0);
    for (int i = 0; i < N; i++)
        assert_float_equal(out[i], a[i] + b[i], 0);
    be->free(be, 0, d, NULL);
    free(h);
    free(a);
    free(b);
    free(out);
}

/* Threads allocating and freeing blocks of one size class: one thread's
 * free and another's allocation of the same block race unless every field
 * of the block is read under the device's lock (make check-tsan sees a
 * free that traced blk->bytes after unlocking). */
static void *churn(void *arg)
{
    (void)arg;
    for (int i = 0; i < 2000; i++) {
        void *p = NULL;
        if (be->alloc(be, 0, 1000 + (size_t)(i % 7), NULL, &p) != 0)
            return (void *)1;
        be->free(be, 0, p, NULL);
    }
    return NULL;
}

static void test_allocator_threads(void **state)
{
    (void)state;
    enum { T = 4 };
    pthread_t t[T];
    for (int i = 0; i < T; i++)
        assert_int_equal(pthread_create(&t[i], NULL, churn, NULL), 0);
    for (int i = 0; i < T; i++) {
        void *r;
        pthread_join(t[i], &r);
        assert_null(r);
    }
}

/* A driver that answers CUDA_SUCCESS without writing its result (a pointer,
 * a handle) is refused with a status: the program does not crash on the
 * empty result (the simulator plays such a driver, UFN_SIM_LAZY). */
static void expect_no_result(int status, const char *call)
{
    if (status != UFN_ERR_DRIVER || !strstr(ufn_error(), call) ||
        !strstr(ufn_error(), "CUDA_SUCCESS without a result"))
        fail_msg("%s: status %s, \"%s\"", call, ufn_status_name(status), ufn_error());
}

static void test_success_without_result(void **state)
{
    (void)state;
    cuda_backend *b = ufn_sim_backend_state();
    void *p = NULL;
    ufn_sim_inject_failure("cuMemAlloc", 0, UFN_SIM_LAZY);
    expect_no_result(be->alloc(be, 1, 123456789, NULL, &p), "cuMemAlloc");

    ufn_stream_impl s = { be, NULL };
    ufn_sim_inject_failure("cuStreamCreate", 0, UFN_SIM_LAZY);
    expect_no_result(be->stream_create(be, &s), "cuStreamCreate");

    /* a staged copy on device 1 with no staging ring yet: the ring's event,
     * then its pinned memory */
    size_t n = (size_t)2 << 20;
    unsigned char *h = calloc(1, n);
    void *d = dev_alloc(n, 1);
    cuda_device *dev = &b->devs[1];
    assert_int_equal(cuda_enter(b, dev), 0);
    cuda_stage_release(b, dev);
    cuda_leave(b);
    ufn_sim_inject_failure("cuEventCreate", 0, UFN_SIM_LAZY);
    expect_no_result(be->copy_h2d(be, 1, d, h, n, NULL), "cuEventCreate");
    assert_int_equal(cuda_enter(b, dev), 0);
    cuda_stage_release(b, dev);
    cuda_leave(b);
    ufn_sim_inject_failure("cuMemAllocHost", 0, UFN_SIM_LAZY);
    expect_no_result(be->copy_h2d(be, 1, d, h, n, NULL), "cuMemAllocHost");
    assert_int_equal(be->copy_h2d(be, 1, d, h, n, NULL), 0);   /* and then it works */

    /* loading a module, resolving a kernel */
    static const char *const calls[] = { "cuLibraryLoadData", "cuLibraryGetKernel",
                                         "cuKernelGetFunction" };
    for (int i = 0; i < 3; i++) {
        static ufn_module fresh[3];
        static ufn_func f[3];
        fresh[i] = test_module;
        fresh[i].state = NULL;
        f[i] = test_add;
        f[i].module = &fresh[i];
        float a = 1, out = 0;
        float *da = to_dev(&a, 4, 1), *dout = dev_alloc(4, 1);
        ufn_plan plan;
        plan_init(&plan, &f[i], UFN_MEM_DEVICE, 1, 0, NULL);
        plan_arg(&plan, 0, da, NULL);
        plan_arg(&plan, 1, da, NULL);
        plan_arg(&plan, 2, dout, NULL);
        ufn_sim_inject_failure(calls[i], 0, UFN_SIM_LAZY);
        expect_no_result(be->execute(be, &plan, NULL), calls[i]);
        assert_int_equal(be->execute(be, &plan, NULL), 0);   /* the next call works */
        from_dev(&out, dout, 4, 1);
        assert_float_equal(out, 2, 0);
        be->free(be, 1, da, NULL);
        be->free(be, 1, dout, NULL);
    }
    be->free(be, 1, d, NULL);
    free(h);
}

/* A module with recursive helpers gets a GPU stack for UFN_MAX_DEPTH calls
 * of its frame, and its launches are waited for and their depth flag read
 * (here never set: the test kernels do not recurse). */
static void test_recursive_module(void **state)
{
    (void)state;
    static ufn_module rec;
    static ufn_func f;
    rec = test_module;
    rec.state = NULL;
    rec.recursion_frame = UFN_RECURSION_FRAME;
    f = test_add;
    f.module = &rec;
    float a[3] = { 1, 2, 3 }, out[3];
    float *da = to_dev(a, sizeof a, 1), *dout = dev_alloc(sizeof out, 1);
    ufn_plan p;
    int64_t shape[] = { 3 };
    plan_init(&p, &f, UFN_MEM_DEVICE, 1, 1, shape);
    plan_arg(&p, 0, da, NULL);
    plan_arg(&p, 1, da, NULL);
    plan_arg(&p, 2, dout, NULL);
    p.contiguous = true;
    ufn_sim_set_latency(20000);
    assert_int_equal(be->execute(be, &p, NULL), 0);
    ufn_sim_stats st;
    ufn_sim_get_stats(1, &st);
    assert_int_equal(st.pending, 0);   /* waited for */
    ufn_sim_set_latency(0);
    from_dev(out, dout, sizeof out, 1);
    assert_float_equal(out[2], 6, 0);
    cuda_backend *b = ufn_sim_backend_state();
    size_t stack = 0;
    assert_int_equal(cuda_enter(b, &b->devs[1]), 0);
    assert_int_equal(b->drv->cuCtxGetLimit(&stack, CU_LIMIT_STACK_SIZE), CUDA_SUCCESS);
    cuda_leave(b);
    assert_true(stack >= (size_t)UFN_MAX_DEPTH * UFN_RECURSION_FRAME);
    be->free(be, 1, da, NULL);
    be->free(be, 1, dout, NULL);
}

/* A helper that went too deep is reported once: the flag is cleared, and
 * the clear has landed when the check returns.  Queued behind the host, it
 * landed after the next call's launch on a staging stream (which does not
 * wait for the default stream) and wiped that launch's report: hostile's
 * test_recursion_limit failed now and then. */
static void test_depth_clear_lands(void **state)
{
    (void)state;
    static ufn_module rec;
    rec = test_module;
    rec.state = NULL;
    rec.recursion_frame = UFN_RECURSION_FRAME;
    cuda_backend *b = ufn_sim_backend_state();
    cuda_kernel *k;
    assert_int_equal(cuda_enter(b, &b->devs[0]), 0);
    assert_int_equal(cuda_kernel_get(b, &b->devs[0], &rec, "ufn_test_add_f32_contig", &k), 0);
    volatile unsigned *flag = (unsigned *)(uintptr_t)k->depth_flag;
    *flag = 1;                        /* what a launch that went too deep leaves */
    ufn_sim_set_latency(20000);
    assert_int_equal(cuda_depth_check(b, k, NULL, "add"), UFN_ERR_RECURSION);
    assert_int_equal(*flag, 0);
    ufn_sim_stats st;
    ufn_sim_get_stats(0, &st);
    assert_int_equal(st.pending, 0);
    ufn_sim_set_latency(0);
    assert_int_equal(cuda_depth_check(b, k, NULL, "add"), 0);
    cuda_leave(b);
}

static double seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Frees are stream-ordered: a block freed on one stream is taken back for
 * that stream at once, whatever other streams have queued (a free once
 * recorded its event on the legacy stream, which waits for every stream). */
static void test_free_is_stream_ordered(void **state)
{
    (void)state;
    ufn_stream_impl busy = { be, NULL }, mine = { be, NULL };
    assert_int_equal(be->stream_create(be, &busy), 0);
    assert_int_equal(be->stream_create(be, &mine), 0);
    enum { N = 1000 };
    unsigned char buf[N] = { 0 };
    void *x = dev_alloc(N, 0);
    ufn_sim_set_latency(400000);   /* 400 ms of work on the busy stream */
    assert_int_equal(be->copy_h2d(be, 0, x, buf, N, &busy), 0);
    ufn_sim_set_latency(0);
    double t0 = seconds();
    void *y = NULL, *z = NULL;
    assert_int_equal(be->alloc(be, 0, 5000, &mine, &y), 0);
    be->free(be, 0, y, &mine);
    assert_int_equal(be->alloc(be, 0, 5000, &mine, &z), 0);
    double waited = seconds() - t0;
    assert_ptr_equal(y, z);
    if (waited > 0.2)
        fail_msg("reusing a block freed on its own stream waited %.3f s for another stream",
                 waited);
    /* for another stream, the block is ready too: it waits for the free */
    be->free(be, 0, z, &mine);
    assert_int_equal(be->alloc(be, 0, 5000, &busy, &y), 0);
    assert_ptr_equal(y, z);
    be->free(be, 0, y, &busy);
    be->free(be, 0, x, &busy);
    assert_int_equal(be->stream_destroy(be, &busy), 0);
    assert_int_equal(be->stream_destroy(be, &mine), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_h2d_from_pinned_memory, teardown_each),
        cmocka_unit_test_teardown(test_scalars_by_value, teardown_each),
        cmocka_unit_test_teardown(test_staging_failure_waits, teardown_each),
        cmocka_unit_test_teardown(test_allocator_threads, teardown_each),
        cmocka_unit_test_teardown(test_success_without_result, teardown_each),
        cmocka_unit_test_teardown(test_recursive_module, teardown_each),
        cmocka_unit_test_teardown(test_depth_clear_lands, teardown_each),
        cmocka_unit_test_teardown(test_free_is_stream_ordered, teardown_each),
    };
    unsetenv("UFN_SIM_DEVICES");
    unsetenv("UFN_SIM_MEMORY");
    unsetenv("UFN_SIM_LATENCY");
    unsetenv("UFN_DEVICE");
    unsetenv("UFN_STAGE_BYTES");
    return cmocka_run_group_tests(tests, setup, NULL);
}
