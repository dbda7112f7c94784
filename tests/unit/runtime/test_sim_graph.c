/* test_sim_graph.c - stream capture and CUDA graphs in the simulated driver
 * (runtime/sim/graph.c): captured work is recorded, not run, and counted
 * only when a launch of the graph runs it; what CUDA refuses during a
 * capture is refused with its error codes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cuda/cudrv.h"
#include "sim_module.h"

enum { N = 96 };

static const ufn_cudrv *drv;
static CUcontext ctx;
static CUlibrary lib;
static CUfunction coords;

static int setup(void **state)
{
    (void)state;
    drv = ufn_sim_driver();
    CUkernel k;
    if (drv->cuInit(0) != CUDA_SUCCESS || drv->cuDevicePrimaryCtxRetain(&ctx, 0) != CUDA_SUCCESS ||
        drv->cuCtxPushCurrent(ctx) != CUDA_SUCCESS ||
        drv->cuLibraryLoadData(&lib, &test_module, NULL, NULL, 0, NULL, NULL, 0) != CUDA_SUCCESS ||
        drv->cuLibraryGetKernel(&k, lib, TEST_COORDS_KERNEL) != CUDA_SUCCESS ||
        drv->cuKernelGetFunction(&coords, k) != CUDA_SUCCESS)
        return -1;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    CUcontext c;
    drv->cuLibraryUnload(lib);
    drv->cuCtxPopCurrent(&c);
    return 0;
}

static ufn_sim_stats stats(void)
{
    ufn_sim_stats st;
    assert_int_equal(ufn_sim_get_stats(0, &st), 0);
    return st;
}

/* out[i] += 1 + (i's thread index << 15), one block of N threads */
static CUresult launch(CUstream s, CUdeviceptr *out)
{
    static uint32_t n = N;
    void *args[] = { &n, out };
    return drv->cuLaunchKernel(coords, 1, 1, 1, N, 1, 1, 0, s, args, NULL);
}

static uint32_t expect(int i, int times)
{
    return (uint32_t)times * (1 + ((uint32_t)i << 15));
}

static CUdeviceptr zeros(void)
{
    CUdeviceptr p;
    uint32_t host[N] = { 0 };
    assert_int_equal(drv->cuMemAlloc(&p, sizeof host), CUDA_SUCCESS);
    assert_int_equal(drv->cuMemcpyHtoDAsync(p, host, sizeof host, NULL), CUDA_SUCCESS);
    /* before work on streams that do not wait for the legacy one */
    assert_int_equal(drv->cuStreamSynchronize(NULL), CUDA_SUCCESS);
    return p;
}

static void read_back(uint32_t *host, CUdeviceptr p)
{
    assert_int_equal(drv->cuMemcpyDtoHAsync(host, p, N * sizeof *host, NULL), CUDA_SUCCESS);
}

static void test_capture_and_replay(void **state)
{
    (void)state;
    CUstream s;
    assert_int_equal(drv->cuStreamCreate(&s, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
    CUdeviceptr out = zeros(), copy = zeros();
    ufn_sim_stats before = stats();

    assert_int_equal(drv->cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL), CUDA_SUCCESS);
    assert_int_equal(launch(s, &out), CUDA_SUCCESS);
    assert_int_equal(drv->cuMemcpyDtoDAsync(copy, out, N * 4, s), CUDA_SUCCESS);
    CUgraph g;
    assert_int_equal(drv->cuStreamEndCapture(s, &g), CUDA_SUCCESS);
    assert_non_null(g);

    /* Recorded, not run, not counted. */
    uint32_t host[N];
    read_back(host, out);
    for (int i = 0; i < N; i++)
        assert_int_equal(host[i], 0);
    ufn_sim_stats mid = stats();
    assert_int_equal(mid.launches, before.launches);
    assert_int_equal(mid.d2d, before.d2d);
    assert_int_equal(mid.pending, 0);

    CUgraphExec e;
    assert_int_equal(drv->cuGraphInstantiate(&e, g, 0), CUDA_SUCCESS);
    assert_int_equal(drv->cuGraphDestroy(g), CUDA_SUCCESS);   /* the exec keeps its work */
    assert_int_equal(drv->cuGraphLaunch(e, NULL), CUDA_SUCCESS);
    /* s is non-blocking: without this the two launches would run at once
     * on the same memory, a race on CUDA as in the simulator (TSan) */
    assert_int_equal(drv->cuStreamSynchronize(NULL), CUDA_SUCCESS);
    assert_int_equal(drv->cuGraphLaunch(e, s), CUDA_SUCCESS);
    assert_int_equal(drv->cuStreamSynchronize(s), CUDA_SUCCESS);
    read_back(host, out);
    for (int i = 0; i < N; i++)
        assert_int_equal(host[i], expect(i, 2));
    read_back(host, copy);
    for (int i = 0; i < N; i++)
        assert_int_equal(host[i], expect(i, 2));   /* the copy ran after the launch, twice */
    ufn_sim_stats after = stats();
    assert_int_equal(after.launches - mid.launches, 2);
    assert_int_equal(after.threads - mid.threads, 2 * N);
    assert_int_equal(after.d2d - mid.d2d, 2);
    assert_int_equal(after.d2d_bytes - mid.d2d_bytes, 2 * N * 4);
    assert_int_equal(after.graph_launches - mid.graph_launches, 2);
    assert_int_equal(after.h2d - mid.h2d, 0);

    /* A launch queued before the exec is destroyed still runs. */
    ufn_sim_set_latency(20000);
    assert_int_equal(drv->cuGraphLaunch(e, s), CUDA_SUCCESS);
    assert_int_equal(drv->cuGraphExecDestroy(e), CUDA_SUCCESS);
    ufn_sim_set_latency(0);
    assert_int_equal(drv->cuStreamSynchronize(s), CUDA_SUCCESS);
    read_back(host, out);
    assert_int_equal(host[N - 1], expect(N - 1, 3));

    assert_int_equal(drv->cuMemFree(out), CUDA_SUCCESS);
    assert_int_equal(drv->cuMemFree(copy), CUDA_SUCCESS);
    assert_int_equal(drv->cuStreamDestroy(s), CUDA_SUCCESS);
}

static void test_handles_and_states(void **state)
{
    (void)state;
    CUstream s;
    CUgraph g = NULL;
    CUgraphExec e;
    assert_int_equal(drv->cuStreamCreate(&s, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
    /* not capturing; the legacy stream never captures */
    assert_int_equal(drv->cuStreamEndCapture(s, &g), CUDA_ERROR_ILLEGAL_STATE);
    assert_null(g);
    assert_int_equal(drv->cuStreamBeginCapture(NULL, CU_STREAM_CAPTURE_MODE_GLOBAL),
                     CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
    assert_int_equal(drv->cuStreamBeginCapture(s, (CUstreamCaptureMode)7), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(drv->cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL), CUDA_SUCCESS);
    assert_int_equal(drv->cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL), CUDA_ERROR_ILLEGAL_STATE);
    assert_int_equal(drv->cuStreamEndCapture(s, &g), CUDA_SUCCESS);   /* an empty graph */
    /* a graph is not launchable before it is instantiated */
    assert_int_equal(drv->cuGraphLaunch((CUgraphExec)(void *)g, s), CUDA_ERROR_INVALID_HANDLE);
    assert_int_equal(drv->cuGraphLaunch(NULL, s), CUDA_ERROR_INVALID_HANDLE);
    assert_int_equal(drv->cuGraphInstantiate(&e, g, 1), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(drv->cuGraphInstantiate(&e, (CUgraph)(void *)s, 0), CUDA_ERROR_INVALID_HANDLE);
    assert_int_equal(drv->cuGraphInstantiate(&e, g, 0), CUDA_SUCCESS);
    assert_int_equal(drv->cuGraphDestroy((CUgraph)(void *)e), CUDA_ERROR_INVALID_HANDLE);
    ufn_sim_stats before = stats();
    assert_int_equal(drv->cuGraphLaunch(e, s), CUDA_SUCCESS);
    assert_int_equal(drv->cuStreamSynchronize(s), CUDA_SUCCESS);
    ufn_sim_stats after = stats();
    assert_int_equal(after.graph_launches - before.graph_launches, 1);
    assert_int_equal(after.launches, before.launches);
    /* injected failures */
    ufn_sim_inject_failure("cuGraphLaunch", 0, CUDA_ERROR_LAUNCH_FAILED);
    assert_int_equal(drv->cuGraphLaunch(e, s), CUDA_ERROR_LAUNCH_FAILED);
    assert_int_equal(drv->cuGraphExecDestroy(e), CUDA_SUCCESS);
    assert_int_equal(drv->cuGraphDestroy(g), CUDA_SUCCESS);
    assert_int_equal(drv->cuStreamDestroy(s), CUDA_SUCCESS);
}

/* A refused call invalidates the capture: later work on the stream and
 * cuStreamEndCapture say so, and the stream works again afterwards. */
static void refused(CUresult (*call)(CUstream s, CUdeviceptr p), CUresult why)
{
    CUstream s;
    CUdeviceptr out = zeros();
    assert_int_equal(drv->cuStreamCreate(&s, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
    assert_int_equal(drv->cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL), CUDA_SUCCESS);
    assert_int_equal(launch(s, &out), CUDA_SUCCESS);
    assert_int_equal(call(s, out), why);
    assert_int_equal(launch(s, &out), CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
    CUgraph g = (CUgraph)(void *)&g;
    assert_int_equal(drv->cuStreamEndCapture(s, &g), CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
    assert_null(g);
    assert_int_equal(launch(s, &out), CUDA_SUCCESS);   /* not capturing: runs */
    assert_int_equal(drv->cuStreamSynchronize(s), CUDA_SUCCESS);
    uint32_t host[N];
    read_back(host, out);
    assert_int_equal(host[5], expect(5, 1));   /* the captured launch never ran */
    assert_int_equal(drv->cuMemFree(out), CUDA_SUCCESS);
    assert_int_equal(drv->cuStreamDestroy(s), CUDA_SUCCESS);
}

static CUresult stream_sync(CUstream s, CUdeviceptr p)
{
    (void)p;
    return drv->cuStreamSynchronize(s);
}

static CUresult ctx_sync(CUstream s, CUdeviceptr p)
{
    (void)s, (void)p;
    return drv->cuCtxSynchronize();
}

static CUresult pageable_d2h(CUstream s, CUdeviceptr p)
{
    uint32_t host[N];
    return drv->cuMemcpyDtoHAsync(host, p, sizeof host, s);
}

static CUresult pageable_h2d(CUstream s, CUdeviceptr p)
{
    uint32_t host[N] = { 0 };
    return drv->cuMemcpyHtoDAsync(p, host, sizeof host, s);
}

static CUresult event_record(CUstream s, CUdeviceptr p)
{
    (void)p;
    CUevent ev;
    assert_int_equal(drv->cuEventCreate(&ev, 0), CUDA_SUCCESS);
    CUresult r = drv->cuEventRecord(ev, s);
    assert_int_equal(drv->cuEventDestroy(ev), CUDA_SUCCESS);
    return r;
}

static void test_synchronous_calls_refused(void **state)
{
    (void)state;
    refused(stream_sync, CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
    refused(ctx_sync, CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
    refused(pageable_d2h, CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
    refused(pageable_h2d, CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
    refused(event_record, CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
}

/* Page-locked memory is read when the copy runs: it may be captured. */
static void test_pinned_copy_captured(void **state)
{
    (void)state;
    CUstream s;
    uint32_t *pinned;
    CUdeviceptr out = zeros();
    assert_int_equal(drv->cuStreamCreate(&s, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
    assert_int_equal(drv->cuMemAllocHost((void **)&pinned, N * 4), CUDA_SUCCESS);
    assert_int_equal(drv->cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_RELAXED), CUDA_SUCCESS);
    assert_int_equal(drv->cuMemcpyHtoDAsync(out, pinned, N * 4, s), CUDA_SUCCESS);
    assert_int_equal(launch(s, &out), CUDA_SUCCESS);
    assert_int_equal(drv->cuMemcpyDtoHAsync(pinned, out, N * 4, s), CUDA_SUCCESS);
    CUgraph g;
    CUgraphExec e;
    assert_int_equal(drv->cuStreamEndCapture(s, &g), CUDA_SUCCESS);
    assert_int_equal(drv->cuGraphInstantiate(&e, g, 0), CUDA_SUCCESS);
    for (int i = 0; i < N; i++)
        pinned[i] = 7;   /* after the capture: the replay reads this */
    ufn_sim_stats before = stats();
    assert_int_equal(drv->cuGraphLaunch(e, s), CUDA_SUCCESS);
    assert_int_equal(drv->cuStreamSynchronize(s), CUDA_SUCCESS);
    for (int i = 0; i < N; i++)
        assert_int_equal(pinned[i], 7 + expect(i, 1));
    ufn_sim_stats after = stats();
    assert_int_equal(after.h2d - before.h2d, 1);
    assert_int_equal(after.d2h - before.d2h, 1);
    assert_int_equal(after.h2d_bytes - before.h2d_bytes, N * 4);
    assert_int_equal(drv->cuGraphExecDestroy(e), CUDA_SUCCESS);
    assert_int_equal(drv->cuGraphDestroy(g), CUDA_SUCCESS);
    assert_int_equal(drv->cuMemFreeHost(pinned), CUDA_SUCCESS);
    assert_int_equal(drv->cuMemFree(out), CUDA_SUCCESS);
    assert_int_equal(drv->cuStreamDestroy(s), CUDA_SUCCESS);
}

/* The legacy stream would wait for a capturing blocking stream: refused. */
static void test_legacy_stream_during_capture(void **state)
{
    (void)state;
    CUstream s;
    CUdeviceptr out = zeros();
    assert_int_equal(drv->cuStreamCreate(&s, CU_STREAM_DEFAULT), CUDA_SUCCESS);
    assert_int_equal(drv->cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL), CUDA_SUCCESS);
    assert_int_equal(launch(NULL, &out), CUDA_ERROR_STREAM_CAPTURE_IMPLICIT);
    CUgraph g;
    assert_int_equal(drv->cuStreamEndCapture(s, &g), CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
    /* a stream destroyed while capturing drops what it recorded */
    assert_int_equal(drv->cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL), CUDA_SUCCESS);
    assert_int_equal(launch(s, &out), CUDA_SUCCESS);
    assert_int_equal(drv->cuStreamDestroy(s), CUDA_SUCCESS);
    assert_int_equal(drv->cuMemFree(out), CUDA_SUCCESS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_capture_and_replay),
        cmocka_unit_test(test_handles_and_states),
        cmocka_unit_test(test_synchronous_calls_refused),
        cmocka_unit_test(test_pinned_copy_captured),
        cmocka_unit_test(test_legacy_stream_during_capture),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
