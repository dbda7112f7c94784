/* test_sim_driver.c - the simulated driver table (runtime/sim/sim.c), called the
 * way the backend calls libcuda: devices, contexts, memory, copies, streams,
 * events, libraries, launches and the errors of each. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cuda/cudrv.h"
#include "sim_module.h"

/* The vector types of ufn_sim.h have CUDA's sizes and alignments. */
#include "ufn_kernel.h"
_Static_assert(sizeof(float4) == 16 && _Alignof(float4) == 16, "float4");
_Static_assert(sizeof(uint4) == 16 && _Alignof(uint4) == 16, "uint4");
_Static_assert(sizeof(float2) == 8 && _Alignof(float2) == 8, "float2");
_Static_assert(sizeof(double2) == 16 && _Alignof(double2) == 16, "double2");
_Static_assert(sizeof(longlong2) == 16 && _Alignof(longlong2) == 16, "longlong2");
_Static_assert(sizeof(short4) == 8 && _Alignof(short4) == 8, "short4");
_Static_assert(sizeof(char4) == 4 && _Alignof(char4) == 4, "char4");
_Static_assert(sizeof(float3) == 12 && _Alignof(float3) == 4, "float3");
_Static_assert(sizeof(int2) == 8 && _Alignof(int2) == 8, "int2");
_Static_assert(sizeof(dim3) == 12, "dim3");

static const ufn_cudrv *drv;
static CUcontext ctx0, ctx1;

static int setup(void **state)
{
    (void)state;
    drv = ufn_sim_driver();
    if (drv->cuInit(0) != CUDA_SUCCESS)
        return -1;
    if (drv->cuDevicePrimaryCtxRetain(&ctx0, 0) != CUDA_SUCCESS ||
        drv->cuDevicePrimaryCtxRetain(&ctx1, 1) != CUDA_SUCCESS)
        return -1;
    return 0;
}

static void push(CUcontext c)
{
    assert_int_equal(drv->cuCtxPushCurrent(c), CUDA_SUCCESS);
}

static void pop(void)
{
    CUcontext c;
    assert_int_equal(drv->cuCtxPopCurrent(&c), CUDA_SUCCESS);
}

static void test_devices(void **state)
{
    (void)state;
    int n = -1, v = 0;
    assert_int_equal(drv->cuDriverGetVersion(&v), CUDA_SUCCESS);
    assert_true(v >= UFN_CUDA_MIN_DRIVER);
    assert_int_equal(drv->cuDeviceGetCount(&n), CUDA_SUCCESS);
    assert_int_equal(n, 2);   /* UFN_SIM_DEVICES unset */
    CUdevice dev;
    assert_int_equal(drv->cuDeviceGet(&dev, 1), CUDA_SUCCESS);
    assert_int_equal(dev, 1);
    assert_int_equal(drv->cuDeviceGet(&dev, 2), CUDA_ERROR_INVALID_DEVICE);
    int sms = 0, cc = 0, maxb = 0;
    assert_int_equal(drv->cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 0),
                     CUDA_SUCCESS);
    assert_int_equal(sms, 108);
    drv->cuDeviceGetAttribute(&cc, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, 0);
    assert_int_equal(cc, 8);
    drv->cuDeviceGetAttribute(&maxb, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, 1);
    assert_int_equal(maxb, 1024);
    char name[64];
    assert_int_equal(drv->cuDeviceGetName(name, sizeof name, 1), CUDA_SUCCESS);
    assert_string_equal(name, "ufn simulated GPU 1");
}

static void test_contexts(void **state)
{
    (void)state;
    CUdeviceptr p;
    /* No context current: calls that need one fail as the driver's do. */
    assert_int_equal(drv->cuMemAlloc(&p, 64), CUDA_ERROR_INVALID_CONTEXT);
    CUcontext c;
    assert_int_equal(drv->cuCtxPopCurrent(&c), CUDA_ERROR_INVALID_CONTEXT);
    push(ctx0);
    push(ctx1);
    assert_int_equal(drv->cuCtxPopCurrent(&c), CUDA_SUCCESS);
    assert_ptr_equal(c, ctx1);
    assert_int_equal(drv->cuCtxPopCurrent(&c), CUDA_SUCCESS);
    assert_ptr_equal(c, ctx0);
    assert_int_equal(drv->cuCtxPushCurrent(NULL), CUDA_ERROR_INVALID_CONTEXT);
}

static void test_memory(void **state)
{
    (void)state;
    push(ctx1);
    ufn_sim_stats before, after;
    assert_int_equal(ufn_sim_get_stats(1, &before), 0);
    CUdeviceptr p = 0;
    assert_int_equal(drv->cuMemAlloc(&p, 1000), CUDA_SUCCESS);
    assert_true(p != 0 && p % 256 == 0);
    assert_int_equal(drv->cuMemAlloc(&p, 0), CUDA_ERROR_INVALID_VALUE);
    size_t free_b = 0, total = 0;
    assert_int_equal(drv->cuMemGetInfo(&free_b, &total), CUDA_SUCCESS);
    assert_true(total >= free_b + 1024);
    assert_int_equal(ufn_sim_get_stats(1, &after), 0);
    assert_int_equal(after.mem_allocs, before.mem_allocs + 1);
    assert_int_equal(after.mem_used, before.mem_used + 1024);   /* 256-byte granules */

    /* Copies must stay inside one allocation. */
    unsigned char host[1000], back[1000];
    for (int i = 0; i < 1000; i++)
        host[i] = (unsigned char)i;
    assert_int_equal(drv->cuMemcpyHtoDAsync(p, host, 1000, NULL), CUDA_SUCCESS);
    assert_int_equal(drv->cuMemcpyDtoHAsync(back, p, 1000, NULL), CUDA_SUCCESS);
    assert_memory_equal(host, back, 1000);
    assert_int_equal(drv->cuMemcpyHtoDAsync(p + 100, host, 1000, NULL), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(drv->cuMemcpyDtoHAsync(back, (CUdeviceptr)(uintptr_t)host, 10, NULL),
                     CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(drv->cuMemcpyDtoDAsync(p + 500, p, 500, NULL), CUDA_SUCCESS);
    assert_int_equal(drv->cuMemcpyDtoHAsync(back, p + 500, 500, NULL), CUDA_SUCCESS);
    assert_memory_equal(back, host, 500);

    /* What ufn_device_view asks of a pointer inside the allocation. */
    int ordinal = -1;
    CUcontext owner = NULL;
    CUdeviceptr start = 0;
    size_t size = 0;
    assert_int_equal(drv->cuPointerGetAttribute(&ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
                                                p + 999), CUDA_SUCCESS);
    assert_int_equal(ordinal, 1);
    assert_int_equal(drv->cuPointerGetAttribute(&owner, CU_POINTER_ATTRIBUTE_CONTEXT, p + 10),
                     CUDA_SUCCESS);
    assert_ptr_equal(owner, ctx1);
    assert_int_equal(drv->cuPointerGetAttribute(&start, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR,
                                                p + 500), CUDA_SUCCESS);
    assert_true(start == p);
    assert_int_equal(drv->cuPointerGetAttribute(&size, CU_POINTER_ATTRIBUTE_RANGE_SIZE, p + 500),
                     CUDA_SUCCESS);
    assert_true(size >= 1000);
    assert_int_equal(drv->cuPointerGetAttribute(&size, CU_POINTER_ATTRIBUTE_RANGE_SIZE,
                                                (CUdeviceptr)(uintptr_t)host),
                     CUDA_ERROR_INVALID_VALUE);   /* pageable */

    assert_int_equal(drv->cuMemFree(p), CUDA_SUCCESS);
    assert_int_equal(drv->cuMemFree(p), CUDA_ERROR_INVALID_VALUE);   /* twice */
    assert_int_equal(ufn_sim_get_stats(1, &after), 0);
    assert_int_equal(after.mem_used, before.mem_used);

    void *pinned = NULL;
    assert_int_equal(drv->cuMemAllocHost(&pinned, 5000), CUDA_SUCCESS);
    unsigned type = 0;
    assert_int_equal(drv->cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                                (CUdeviceptr)(uintptr_t)pinned + 4999),
                     CUDA_SUCCESS);
    assert_int_equal(type, CU_MEMORYTYPE_HOST);
    assert_int_equal(drv->cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                                (CUdeviceptr)(uintptr_t)host),
                     CUDA_ERROR_INVALID_VALUE);   /* pageable */
    assert_int_equal(drv->cuMemFreeHost(pinned), CUDA_SUCCESS);
    assert_int_equal(drv->cuMemFreeHost(host), CUDA_ERROR_INVALID_VALUE);
    pop();
}

/* Copies touch the current context's device memory only; between two
 * devices, a peer copy names both contexts. */
static void test_peer_copies(void **state)
{
    (void)state;
    unsigned char host[256], back[256];
    for (int i = 0; i < 256; i++)
        host[i] = (unsigned char)(i * 7);
    CUdeviceptr p0 = 0, p1 = 0;
    push(ctx0);
    assert_int_equal(drv->cuMemAlloc(&p0, 256), CUDA_SUCCESS);
    assert_int_equal(drv->cuMemcpyHtoDAsync(p0, host, 256, NULL), CUDA_SUCCESS);
    assert_int_equal(drv->cuCtxSynchronize(), CUDA_SUCCESS);   /* the peer copy will not wait */
    pop();
    push(ctx1);
    assert_int_equal(drv->cuMemAlloc(&p1, 256), CUDA_SUCCESS);
    ufn_sim_stats before, after;
    assert_int_equal(ufn_sim_get_stats(1, &before), 0);
    /* device 0's memory from device 1's context: refused */
    assert_int_equal(drv->cuMemcpyDtoDAsync(p1, p0, 256, NULL), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(drv->cuMemcpyDtoHAsync(back, p0, 256, NULL), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(drv->cuMemcpyHtoDAsync(p0, host, 256, NULL), CUDA_ERROR_INVALID_VALUE);
    /* the contexts named the wrong way round */
    assert_int_equal(drv->cuMemcpyPeerAsync(p1, ctx0, p0, ctx1, 256, NULL),
                     CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(drv->cuMemcpyPeerAsync(p1, NULL, p0, ctx0, 256, NULL),
                     CUDA_ERROR_INVALID_CONTEXT);
    assert_int_equal(drv->cuMemcpyPeerAsync(p1, ctx1, p0, ctx0, 256, NULL), CUDA_SUCCESS);
    assert_int_equal(drv->cuMemcpyDtoHAsync(back, p1, 256, NULL), CUDA_SUCCESS);
    assert_memory_equal(back, host, 256);
    assert_int_equal(ufn_sim_get_stats(1, &after), 0);
    assert_int_equal(after.peer, before.peer + 1);
    assert_int_equal(after.peer_bytes, before.peer_bytes + 256);
    assert_int_equal(drv->cuMemFree(p1), CUDA_SUCCESS);
    pop();
    push(ctx0);
    assert_int_equal(drv->cuMemFree(p0), CUDA_SUCCESS);
    pop();
}

static void test_out_of_memory(void **state)
{
    (void)state;
    push(ctx1);
    assert_int_equal(ufn_sim_set_memory_limit(1, 1 << 20), 0);
    CUdeviceptr a, b;
    assert_int_equal(drv->cuMemAlloc(&a, 768 << 10), CUDA_SUCCESS);
    assert_int_equal(drv->cuMemAlloc(&b, 512 << 10), CUDA_ERROR_OUT_OF_MEMORY);
    size_t free_b, total;
    drv->cuMemGetInfo(&free_b, &total);
    assert_int_equal(total, 1 << 20);
    assert_int_equal(free_b, 256 << 10);
    assert_int_equal(drv->cuMemFree(a), CUDA_SUCCESS);
    assert_int_equal(drv->cuMemAlloc(&b, 512 << 10), CUDA_SUCCESS);
    assert_int_equal(drv->cuMemFree(b), CUDA_SUCCESS);
    assert_int_equal(ufn_sim_set_memory_limit(1, (size_t)4 << 30), 0);
    pop();
}

static void test_streams_and_events(void **state)
{
    (void)state;
    CUstream s0, s1;
    CUevent e;
    assert_int_equal(drv->cuStreamCreate(&s0, 0), CUDA_ERROR_INVALID_CONTEXT);
    push(ctx0);
    assert_int_equal(drv->cuStreamCreate(&s0, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
    assert_int_equal(drv->cuEventCreate(&e, CU_EVENT_DISABLE_TIMING), CUDA_SUCCESS);
    assert_int_equal(drv->cuEventRecord(e, s0), CUDA_SUCCESS);
    assert_int_equal(drv->cuStreamWaitEvent(NULL, e, 0), CUDA_SUCCESS);
    assert_int_equal(drv->cuEventSynchronize(e), CUDA_SUCCESS);
    assert_int_equal(drv->cuStreamSynchronize(s0), CUDA_SUCCESS);
    pop();
    /* A stream of device 0 is not usable from device 1's context. */
    push(ctx1);
    assert_int_equal(drv->cuStreamCreate(&s1, 0), CUDA_SUCCESS);
    CUdeviceptr p;
    char buf[16] = { 0 };
    assert_int_equal(drv->cuMemAlloc(&p, 16), CUDA_SUCCESS);
    assert_int_equal(drv->cuMemcpyHtoDAsync(p, buf, 16, s0), CUDA_ERROR_INVALID_HANDLE);
    assert_int_equal(drv->cuMemcpyHtoDAsync(p, buf, 16, s1), CUDA_SUCCESS);
    assert_int_equal(drv->cuEventRecord(e, s0), CUDA_ERROR_INVALID_HANDLE);
    /* ... but says which context it is of (ufn_stream_wrap's check) */
    CUcontext c = NULL;
    assert_int_equal(drv->cuStreamGetCtx(s0, &c), CUDA_SUCCESS);
    assert_ptr_equal(c, ctx0);
    assert_int_equal(drv->cuStreamGetCtx(s1, &c), CUDA_SUCCESS);
    assert_ptr_equal(c, ctx1);
    assert_int_equal(drv->cuStreamGetCtx(NULL, &c), CUDA_SUCCESS);   /* the current one */
    assert_ptr_equal(c, ctx1);
    assert_int_equal(drv->cuStreamGetCtx((CUstream)(void *)e, &c), CUDA_ERROR_INVALID_HANDLE);
    assert_int_equal(drv->cuMemFree(p), CUDA_SUCCESS);
    assert_int_equal(drv->cuStreamDestroy(s1), CUDA_SUCCESS);
    pop();
    assert_int_equal(drv->cuStreamDestroy(s0), CUDA_SUCCESS);
    assert_int_equal(drv->cuEventDestroy(e), CUDA_SUCCESS);
}

/* The fatbin nvcc made of sim_kernels.cu: the simulator refuses it. */
static void test_library_images(void **state)
{
    (void)state;
    CUlibrary lib;
    ufn_module wrong = test_module;
    wrong.abi_version = UFN_ABI_VERSION + 1;
    assert_int_equal(drv->cuLibraryLoadData(&lib, &wrong, NULL, NULL, 0, NULL, NULL, 0),
                     CUDA_ERROR_INVALID_IMAGE);
    assert_int_equal(drv->cuLibraryLoadData(&lib, &test_module_host_only, NULL, NULL, 0, NULL,
                                            NULL, 0),
                     CUDA_ERROR_INVALID_IMAGE);
    if (SIM_KERNELS_FATBIN[0]) {
        FILE *f = fopen(SIM_KERNELS_FATBIN, "rb");
        assert_non_null(f);
        static unsigned char image[1 << 20];
        size_t n = fread(image, 1, sizeof image, f);
        fclose(f);
        assert_true(n > 16);
        uint32_t magic;
        memcpy(&magic, image, 4);
        assert_int_equal(magic, 0xBA55ED50u);   /* a real fatbin */
        assert_int_equal(drv->cuLibraryLoadData(&lib, image, NULL, NULL, 0, NULL, NULL, 0),
                         CUDA_ERROR_INVALID_IMAGE);
    }
    assert_int_equal(drv->cuLibraryLoadData(&lib, &test_module, NULL, NULL, 0, NULL, NULL, 0),
                     CUDA_SUCCESS);
    CUkernel k;
    assert_int_equal(drv->cuLibraryGetKernel(&k, lib, "nope"), CUDA_ERROR_NOT_FOUND);
    assert_int_equal(drv->cuLibraryGetKernel(&k, lib, TEST_COORDS_KERNEL), CUDA_SUCCESS);
    CUfunction f;
    assert_int_equal(drv->cuKernelGetFunction(&f, k), CUDA_ERROR_INVALID_CONTEXT);
    assert_int_equal(drv->cuLibraryUnload(lib), CUDA_SUCCESS);
}

static void test_launch(void **state)
{
    (void)state;
    CUlibrary lib;
    CUkernel k;
    CUfunction f, f1;
    assert_int_equal(drv->cuLibraryLoadData(&lib, &test_module, NULL, NULL, 0, NULL, NULL, 0),
                     CUDA_SUCCESS);
    assert_int_equal(drv->cuLibraryGetKernel(&k, lib, TEST_COORDS_KERNEL), CUDA_SUCCESS);
    push(ctx1);
    assert_int_equal(drv->cuKernelGetFunction(&f1, k), CUDA_SUCCESS);
    pop();
    push(ctx0);
    assert_int_equal(drv->cuKernelGetFunction(&f, k), CUDA_SUCCESS);

    /* A 3-d grid of 3-d blocks: every thread runs once, with its coordinates. */
    enum { GX = 3, GY = 2, GZ = 2, BX = 4, BY = 3, BZ = 2 };
    uint32_t n = GX * GY * GZ * BX * BY * BZ;
    CUdeviceptr out;
    assert_int_equal(drv->cuMemAlloc(&out, n * 4), CUDA_SUCCESS);
    uint32_t *host = calloc(n, 4);
    assert_int_equal(drv->cuMemcpyHtoDAsync(out, host, n * 4, NULL), CUDA_SUCCESS);
    void *args[] = { &n, &out };
    assert_int_equal(drv->cuLaunchKernel(f, GX, GY, GZ, BX, BY, BZ, 0, NULL, args, NULL),
                     CUDA_SUCCESS);
    assert_int_equal(drv->cuMemcpyDtoHAsync(host, out, n * 4, NULL), CUDA_SUCCESS);
    uint32_t id = 0;
    for (uint32_t bz = 0; bz < GZ; bz++)
        for (uint32_t by = 0; by < GY; by++)
            for (uint32_t bx = 0; bx < GX; bx++)
                for (uint32_t tz = 0; tz < BZ; tz++)
                    for (uint32_t ty = 0; ty < BY; ty++)
                        for (uint32_t tx = 0; tx < BX; tx++, id++)
                            assert_int_equal(host[id], 1 + (bx | by << 5 | bz << 10 | tx << 15 |
                                                            ty << 20 | tz << 25));
    assert_int_equal(id, n);

    /* What the driver refuses. */
    assert_int_equal(drv->cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 49153, NULL, args, NULL),
                     CUDA_ERROR_INVALID_VALUE);   /* shared memory beyond 48 KiB */
    assert_int_equal(drv->cuLaunchKernel(f, 1, 1, 1, 1025, 1, 1, 0, NULL, args, NULL),
                     CUDA_ERROR_INVALID_VALUE);   /* > 1024 threads */
    assert_int_equal(drv->cuLaunchKernel(f, 1, 1, 1, 64, 32, 1, 0, NULL, args, NULL),
                     CUDA_ERROR_INVALID_VALUE);   /* 2048 threads */
    assert_int_equal(drv->cuLaunchKernel(f, 1, 1, 1, 1, 1, 65, 0, NULL, args, NULL),
                     CUDA_ERROR_INVALID_VALUE);   /* blockDim.z > 64 */
    assert_int_equal(drv->cuLaunchKernel(f, 0, 1, 1, 1, 1, 1, 0, NULL, args, NULL),
                     CUDA_ERROR_INVALID_VALUE);   /* empty grid */
    assert_int_equal(drv->cuLaunchKernel(f, 1, 70000, 1, 1, 1, 1, 0, NULL, args, NULL),
                     CUDA_ERROR_INVALID_VALUE);   /* gridDim.y > 65535 */
    assert_int_equal(drv->cuLaunchKernel(f1, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL),
                     CUDA_ERROR_INVALID_HANDLE);  /* device 1's function */

    /* Occupancy: 256 threads, 8 blocks of them per multiprocessor. */
    int min_grid = 0, block = 0, blocks = 0;
    assert_int_equal(drv->cuOccupancyMaxPotentialBlockSize(&min_grid, &block, f, NULL, 0, 0),
                     CUDA_SUCCESS);
    assert_int_equal(block, 256);
    assert_int_equal(min_grid, 108 * 8);
    assert_int_equal(drv->cuOccupancyMaxPotentialBlockSize(&min_grid, &block, f, NULL, 0, 128),
                     CUDA_SUCCESS);
    assert_int_equal(block, 128);
    assert_int_equal(drv->cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, f, 256, 0),
                     CUDA_SUCCESS);
    assert_int_equal(blocks, 8);

    ufn_sim_stats st;
    ufn_sim_get_stats(0, &st);
    assert_true(st.launches >= 1 && st.threads >= n);
    free(host);
    assert_int_equal(drv->cuMemFree(out), CUDA_SUCCESS);
    pop();
    assert_int_equal(drv->cuLibraryUnload(lib), CUDA_SUCCESS);
}

/* ---- asynchrony: the device runs behind the host ------------------------------------ */

static void fill(unsigned char *p, int v, size_t n)
{
    memset(p, v, n);
}

static void all_equal(const unsigned char *p, int v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != v)
            fail_msg("byte %zu is %d, expected %d", i, p[i], v);
}

static uint64_t pending(int device)
{
    ufn_sim_stats st;
    assert_int_equal(ufn_sim_get_stats(device, &st), 0);
    return st.pending;
}

/* Copies: pageable memory is read when the copy is queued and written before
 * it returns; page-locked memory when the copy runs. */
static void test_async_copies(void **state)
{
    (void)state;
    enum { N = 64 };
    push(ctx0);
    CUdeviceptr d;
    unsigned char *pinned, page[N];
    assert_int_equal(drv->cuMemAlloc(&d, N), CUDA_SUCCESS);
    assert_int_equal(drv->cuMemAllocHost((void **)&pinned, N), CUDA_SUCCESS);
    ufn_sim_set_latency(20000);   /* 20 ms: every copy runs well after its call */

    fill(page, 1, N);
    assert_int_equal(drv->cuMemcpyHtoDAsync(d, page, N, NULL), CUDA_SUCCESS);
    fill(page, 2, N);             /* too late: the driver took a copy */
    assert_int_equal(drv->cuMemcpyDtoHAsync(page, d, N, NULL), CUDA_SUCCESS);
    all_equal(page, 1, N);        /* into pageable memory: done on return */

    fill(pinned, 3, N);
    assert_int_equal(drv->cuMemcpyHtoDAsync(d, pinned, N, NULL), CUDA_SUCCESS);
    fill(pinned, 4, N);           /* still in time: the copy has not run */
    assert_int_equal(drv->cuMemcpyDtoHAsync(page, d, N, NULL), CUDA_SUCCESS);
    all_equal(page, 4, N);

    fill(pinned, 0, N);
    assert_int_equal(drv->cuMemcpyDtoHAsync(pinned, d, N, NULL), CUDA_SUCCESS);
    all_equal(pinned, 0, N);      /* into page-locked memory: queued */
    assert_true(pending(0) >= 1);
    assert_int_equal(drv->cuStreamSynchronize(NULL), CUDA_SUCCESS);
    all_equal(pinned, 4, N);
    assert_int_equal(pending(0), 0);

    ufn_sim_set_latency(0);
    assert_int_equal(drv->cuMemFreeHost(pinned), CUDA_SUCCESS);
    assert_int_equal(drv->cuMemFree(d), CUDA_SUCCESS);
    pop();
}

/* Who waits for whom: a blocking stream's work before the legacy stream's,
 * a non-blocking stream's not; an event between two streams. */
static void test_async_streams(void **state)
{
    (void)state;
    enum { N = 32, SLOW = 200000, FAST = 0 };
    push(ctx0);
    CUdeviceptr d;
    unsigned char *in, *out;
    CUstream blocking, nonblocking;
    CUevent e;
    assert_int_equal(drv->cuMemAlloc(&d, N), CUDA_SUCCESS);
    assert_int_equal(drv->cuMemAllocHost((void **)&in, N), CUDA_SUCCESS);
    assert_int_equal(drv->cuMemAllocHost((void **)&out, N), CUDA_SUCCESS);
    assert_int_equal(drv->cuStreamCreate(&blocking, CU_STREAM_DEFAULT), CUDA_SUCCESS);
    assert_int_equal(drv->cuStreamCreate(&nonblocking, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
    assert_int_equal(drv->cuEventCreate(&e, CU_EVENT_DISABLE_TIMING), CUDA_SUCCESS);

    /* the legacy stream waits for a slow copy on a blocking stream */
    fill(in, 5, N);
    ufn_sim_set_latency(SLOW);
    assert_int_equal(drv->cuMemcpyHtoDAsync(d, in, N, blocking), CUDA_SUCCESS);
    ufn_sim_set_latency(FAST);
    assert_int_equal(drv->cuMemcpyDtoHAsync(out, d, N, NULL), CUDA_SUCCESS);
    assert_int_equal(drv->cuStreamSynchronize(NULL), CUDA_SUCCESS);
    all_equal(out, 5, N);

    /* but not for one on a non-blocking stream */
    fill(in, 6, N);
    ufn_sim_set_latency(SLOW);
    assert_int_equal(drv->cuMemcpyHtoDAsync(d, in, N, nonblocking), CUDA_SUCCESS);
    ufn_sim_set_latency(FAST);
    assert_int_equal(drv->cuMemcpyDtoHAsync(out, d, N, NULL), CUDA_SUCCESS);
    assert_int_equal(drv->cuStreamSynchronize(NULL), CUDA_SUCCESS);
    all_equal(out, 5, N);
    assert_int_equal(drv->cuStreamSynchronize(nonblocking), CUDA_SUCCESS);

    /* an event makes the non-blocking stream wait */
    fill(in, 7, N);
    ufn_sim_set_latency(SLOW);
    assert_int_equal(drv->cuMemcpyHtoDAsync(d, in, N, blocking), CUDA_SUCCESS);
    assert_int_equal(drv->cuEventRecord(e, blocking), CUDA_SUCCESS);
    ufn_sim_set_latency(FAST);
    assert_int_equal(drv->cuStreamWaitEvent(nonblocking, e, 0), CUDA_SUCCESS);
    assert_int_equal(drv->cuMemcpyDtoHAsync(out, d, N, nonblocking), CUDA_SUCCESS);
    assert_int_equal(drv->cuStreamSynchronize(nonblocking), CUDA_SUCCESS);
    all_equal(out, 7, N);
    assert_int_equal(drv->cuEventSynchronize(e), CUDA_SUCCESS);

    /* a destroyed stream still runs what was queued on it */
    fill(in, 8, N);
    ufn_sim_set_latency(20000);
    assert_int_equal(drv->cuMemcpyHtoDAsync(d, in, N, blocking), CUDA_SUCCESS);
    assert_int_equal(drv->cuStreamDestroy(blocking), CUDA_SUCCESS);
    assert_int_equal(drv->cuEventDestroy(e), CUDA_SUCCESS);
    assert_int_equal(drv->cuCtxSynchronize(), CUDA_SUCCESS);
    ufn_sim_set_latency(0);
    assert_int_equal(drv->cuMemcpyDtoHAsync(out, d, N, NULL), CUDA_SUCCESS);
    assert_int_equal(drv->cuCtxSynchronize(), CUDA_SUCCESS);
    all_equal(out, 8, N);

    assert_int_equal(drv->cuStreamDestroy(nonblocking), CUDA_SUCCESS);
    assert_int_equal(drv->cuMemFreeHost(in), CUDA_SUCCESS);
    assert_int_equal(drv->cuMemFreeHost(out), CUDA_SUCCESS);
    assert_int_equal(drv->cuMemFree(d), CUDA_SUCCESS);
    pop();
}

/* A launch takes its parameters when it is queued, as the driver does. */
static void test_async_launch(void **state)
{
    (void)state;
    CUlibrary lib;
    CUkernel k;
    CUfunction f;
    assert_int_equal(drv->cuLibraryLoadData(&lib, &test_module, NULL, NULL, 0, NULL, NULL, 0),
                     CUDA_SUCCESS);
    assert_int_equal(drv->cuLibraryGetKernel(&k, lib, TEST_COORDS_KERNEL), CUDA_SUCCESS);
    push(ctx0);
    assert_int_equal(drv->cuKernelGetFunction(&f, k), CUDA_SUCCESS);
    enum { N = 64 };
    CUdeviceptr out, arg;
    uint32_t host[N] = { 0 }, n = N / 2;
    assert_int_equal(drv->cuMemAlloc(&out, sizeof host), CUDA_SUCCESS);
    assert_int_equal(drv->cuMemcpyHtoDAsync(out, host, sizeof host, NULL), CUDA_SUCCESS);
    ufn_sim_set_latency(20000);
    arg = out;
    void *args[] = { &n, &arg };
    assert_int_equal(drv->cuLaunchKernel(f, 1, 1, 1, N, 1, 1, 0, NULL, args, NULL),
                     CUDA_SUCCESS);
    n = N;                        /* after the call: not seen by the launch */
    arg = 0;
    assert_true(pending(0) >= 1);
    ufn_sim_set_latency(0);
    assert_int_equal(drv->cuMemcpyDtoHAsync(host, out, sizeof host, NULL), CUDA_SUCCESS);
    for (int i = 0; i < N; i++)
        assert_int_equal(host[i] != 0, i < N / 2);
    assert_int_equal(drv->cuMemFree(out), CUDA_SUCCESS);
    pop();
    assert_int_equal(drv->cuLibraryUnload(lib), CUDA_SUCCESS);
}

/* A scalar passed by value to a strided kernel: what the backend packs into
 * the strides (cuda_params_by_value), the kernel's readers give back. */
static void test_scalars_by_value(void **state)
{
    (void)state;
    cuda_params a;
    cuda_params_init(&a, CUDA_STRIDED, 1);
#define ROUNDTRIP(T, suffix, v)                                   \
    do {                                                          \
        T in_ = (v);                                              \
        cuda_params_by_value(&a, 0, &in_, (int)sizeof in_);       \
        assert_null(a.ptr[0]);                                    \
        T out_ = ufn_kscalar_##suffix(a.loop[0]);                 \
        assert_memory_equal(&in_, &out_, sizeof in_);             \
        for (int j = 0; j < UFN_KMAXDIM; j++)                     \
            assert_true(a.loop[0].s[j] >= 0 && a.loop[0].s[j] <= 0xffffffffll); \
    } while (0)
    ROUNDTRIP(bool, b1, true);
    ROUNDTRIP(int8_t, i8, -128);
    ROUNDTRIP(int16_t, i16, -2);
    ROUNDTRIP(int32_t, i32, INT32_MIN);
    ROUNDTRIP(int64_t, i64, INT64_MIN + 12345);
    ROUNDTRIP(uint8_t, u8, 255);
    ROUNDTRIP(uint16_t, u16, 65535);
    ROUNDTRIP(uint32_t, u32, 0xdeadbeefu);
    ROUNDTRIP(uint64_t, u64, 0xfedcba9876543210ull);
    ROUNDTRIP(float, f32, -0.1f);
    ROUNDTRIP(double, f64, 1e300);
    ROUNDTRIP(ufn_c64, c64, ufn_c64_make(1.5f, -2.5f));
    ROUNDTRIP(ufn_c128, c128, ufn_c128_make(-1e-300, 3.25));
#undef ROUNDTRIP
}

static void test_error_names(void **state)
{
    (void)state;
    const char *s = NULL;
    assert_int_equal(drv->cuGetErrorName(CUDA_ERROR_OUT_OF_MEMORY, &s), CUDA_SUCCESS);
    assert_string_equal(s, "CUDA_ERROR_OUT_OF_MEMORY");
    assert_int_equal(drv->cuGetErrorString(CUDA_ERROR_OUT_OF_MEMORY, &s), CUDA_SUCCESS);
    assert_string_equal(s, "out of memory");
    assert_int_equal(drv->cuGetErrorName(12345, &s), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(ufn_cudrv_fail(drv, CUDA_ERROR_OUT_OF_MEMORY, "cuMemAlloc(%zu bytes)",
                                    (size_t)400000000),
                     UFN_ERR_DEVICE_NOMEM);
    assert_string_equal(ufn_error(),
                        "cuMemAlloc(400000000 bytes) failed: CUDA_ERROR_OUT_OF_MEMORY "
                        "(out of memory)");
    assert_int_equal(ufn_cudrv_fail(drv, CUDA_ERROR_INVALID_HANDLE, "cuStreamDestroy"),
                     UFN_ERR_DRIVER);
    assert_string_equal(ufn_error(),
                        "cuStreamDestroy failed: CUDA_ERROR_INVALID_HANDLE "
                        "(invalid resource handle)");
    assert_int_equal(ufn_cudrv_fail(drv, 4242, "cuInit(0)"), UFN_ERR_DRIVER);
    assert_string_equal(ufn_error(), "cuInit(0) failed: CUDA error 4242 (unrecognized error code)");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_devices),
        cmocka_unit_test(test_contexts),
        cmocka_unit_test(test_memory),
        cmocka_unit_test(test_peer_copies),
        cmocka_unit_test(test_out_of_memory),
        cmocka_unit_test(test_streams_and_events),
        cmocka_unit_test(test_library_images),
        cmocka_unit_test(test_launch),
        cmocka_unit_test(test_async_copies),
        cmocka_unit_test(test_async_streams),
        cmocka_unit_test(test_async_launch),
        cmocka_unit_test(test_scalars_by_value),
        cmocka_unit_test(test_error_names),
    };
    unsetenv("UFN_SIM_DEVICES");
    unsetenv("UFN_SIM_MEMORY");
    return cmocka_run_group_tests(tests, setup, NULL);
}
