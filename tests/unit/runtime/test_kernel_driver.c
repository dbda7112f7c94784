/* test_kernel_driver.c - what the simulated driver does for @cuda.jit
 * kernels, through its table as the cuda backend calls it: the dynamic
 * shared memory limit per function (cuFuncGetAttribute/SetAttribute), the
 * launch attributes, a failed check's fault returned by the next call that
 * waits for the device and its report taken once through ufn_cudrv_fail, and how kernel faults become UFN_ERR_KERNEL for a driver
 * without reports (the real one). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cuda/cudrv.h"
#include "kernel_module.h"

static const ufn_cudrv *drv;
static CUcontext ctx;
static CUlibrary lib;

static int setup(void **state)
{
    (void)state;
    drv = ufn_sim_driver();
    if (drv->cuInit(0) != CUDA_SUCCESS || drv->cuDevicePrimaryCtxRetain(&ctx, 0) != CUDA_SUCCESS ||
        drv->cuCtxPushCurrent(ctx) != CUDA_SUCCESS)
        return -1;
    return drv->cuLibraryLoadData(&lib, &ktest_module, NULL, NULL, 0, NULL, NULL, 0);
}

static int teardown(void **state)
{
    (void)state;
    drv->cuLibraryUnload(lib);
    CUcontext c;
    drv->cuCtxPopCurrent(&c);
    return 0;
}

static CUfunction function(const char *name)
{
    CUkernel k;
    CUfunction f;
    assert_int_equal(drv->cuLibraryGetKernel(&k, lib, name), CUDA_SUCCESS);
    assert_int_equal(drv->cuKernelGetFunction(&f, k), CUDA_SUCCESS);
    return f;
}

static void test_device_limits(void **state)
{
    (void)state;
    struct {
        CUdevice_attribute attr;
        int want;
    } cases[] = {
        { CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y, 1024 },
        { CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z, 64 },
        { CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y, 65535 },
        { CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z, 65535 },
        { CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, 49152 },
        { CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, 166912 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int v = -1;
        assert_int_equal(drv->cuDeviceGetAttribute(&v, cases[i].attr, 0), CUDA_SUCCESS);
        assert_int_equal(v, cases[i].want);
    }
}

/* As on a GPU: 48 KiB less the static shared memory by default, up to the
 * opt-in maximum less it after cuFuncSetAttribute, never beyond. */
static void test_dynamic_shared_limit(void **state)
{
    (void)state;
    CUfunction f = function("ktest__matmul__f32");      /* 2048 static bytes */
    int v = 0;
    assert_int_equal(drv->cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, f),
                     CUDA_SUCCESS);
    assert_int_equal(v, 2048);
    assert_int_equal(drv->cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                             f), CUDA_SUCCESS);
    assert_int_equal(v, 49152 - 2048);
    int64_t n = 16;
    float a[16 * 16] = { 0 };
    CUdeviceptr d;
    assert_int_equal(drv->cuMemAlloc(&d, sizeof a), CUDA_SUCCESS);
    assert_int_equal(drv->cuMemcpyHtoDAsync(d, a, sizeof a, NULL), CUDA_SUCCESS);
    ufn_view_f32_2 m = { (float *)(uintptr_t)d, { n, n }, { n, 1 } };
    void *params[3] = { &m, &m, &m };
    assert_int_equal(drv->cuLaunchKernel(f, 1, 1, 1, 16, 16, 1, 49152 - 2048 + 1, NULL, params,
                                         NULL), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(drv->cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                             166912 - 2048 + 1), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(drv->cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                             100000), CUDA_SUCCESS);
    assert_int_equal(drv->cuLaunchKernel(f, 1, 1, 1, 16, 16, 1, 100000, NULL, params, NULL),
                     CUDA_SUCCESS);
    assert_int_equal(drv->cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, 1),
                     CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(drv->cuMemFree(d), CUDA_SUCCESS);
}

/* A failed check: the launch runs after cuLaunchKernel returned, so the
 * next call that waits for the device returns the GPU's code, once, and
 * ufn_cudrv_fail turns it into UFN_ERR_KERNEL with the report, once. */
static void test_report_taken_once(void **state)
{
    (void)state;
    CUfunction f = function("ktest__oob__f32");
    CUdeviceptr d;
    assert_int_equal(drv->cuMemAlloc(&d, 8 * sizeof(float)), CUDA_SUCCESS);
    ufn_view_f32_1 x = { (float *)(uintptr_t)d, { 8 }, { 1 } };
    void *params[2] = { &x, &x };
    assert_int_equal(drv->cuLaunchKernel(f, 1, 1, 1, 9, 1, 1, 0, NULL, params, NULL),
                     CUDA_SUCCESS);
    CUresult r = drv->cuStreamSynchronize(NULL);
    assert_int_equal(r, CUDA_ERROR_ILLEGAL_ADDRESS);
    assert_int_equal(ufn_cudrv_fail(drv, r, "cuStreamSynchronize"), UFN_ERR_KERNEL);
    assert_string_equal(ufn_error(), "index 8 is out of bounds for axis 0 of x with size 8, in "
                                     "thread (8,0,0) of block (0,0,0) at kernels.ufn:86");
    assert_int_equal(drv->cuStreamSynchronize(NULL), CUDA_SUCCESS);
    assert_int_equal(ufn_cudrv_fail(drv, r, "cuStreamSynchronize"), UFN_ERR_KERNEL);
    assert_string_equal(ufn_error(), "cuStreamSynchronize failed: CUDA_ERROR_ILLEGAL_ADDRESS "
                                     "(an illegal memory access was encountered)");
    assert_int_equal(drv->cuMemFree(d), CUDA_SUCCESS);
}

/* Every call that waits for the device reports a fault: the first one
 * since the last report, whichever stream it ran on. */
static void test_fault_waiters(void **state)
{
    (void)state;
    CUfunction oob = function("ktest__oob__f32"), race = function("ktest__race__f32");
    CUdeviceptr d;
    assert_int_equal(drv->cuMemAlloc(&d, 64 * sizeof(float)), CUDA_SUCCESS);
    ufn_view_f32_1 x = { (float *)(uintptr_t)d, { 8 }, { 1 } };
    void *params[2] = { &x, &x };
    CUstream s;
    assert_int_equal(drv->cuStreamCreate(&s, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
    /* two faults, one report: the first (as a GPU keeps its first error) */
    ufn_view_f32_1 x64 = { (float *)(uintptr_t)d, { 64 }, { 1 } };
    void *race_params[2] = { &x64, &x64 };
    assert_int_equal(drv->cuLaunchKernel(race, 1, 1, 1, 64, 1, 1, 0, s, race_params, NULL),
                     CUDA_SUCCESS);
    assert_int_equal(drv->cuLaunchKernel(oob, 1, 1, 1, 9, 1, 1, 0, s, params, NULL),
                     CUDA_SUCCESS);
    assert_int_equal(drv->cuStreamSynchronize(s), CUDA_ERROR_LAUNCH_FAILED);
    assert_int_equal(drv->cuStreamSynchronize(s), CUDA_SUCCESS);
    /* a fault on another stream: the context's synchronisation reports it */
    assert_int_equal(drv->cuLaunchKernel(oob, 1, 1, 1, 9, 1, 1, 0, s, params, NULL),
                     CUDA_SUCCESS);
    assert_int_equal(drv->cuCtxSynchronize(), CUDA_ERROR_ILLEGAL_ADDRESS);
    assert_int_equal(drv->cuCtxSynchronize(), CUDA_SUCCESS);
    /* a copy into pageable memory waits, so it reports one too */
    float back[8];
    assert_int_equal(drv->cuLaunchKernel(oob, 1, 1, 1, 9, 1, 1, 0, s, params, NULL),
                     CUDA_SUCCESS);
    assert_int_equal(drv->cuMemcpyDtoHAsync(back, d, sizeof back, s), CUDA_ERROR_ILLEGAL_ADDRESS);
    /* and an event's synchronisation */
    CUevent e;
    assert_int_equal(drv->cuEventCreate(&e, 0), CUDA_SUCCESS);
    assert_int_equal(drv->cuLaunchKernel(oob, 1, 1, 1, 9, 1, 1, 0, s, params, NULL),
                     CUDA_SUCCESS);
    assert_int_equal(drv->cuEventRecord(e, s), CUDA_SUCCESS);
    assert_int_equal(drv->cuEventSynchronize(e), CUDA_ERROR_ILLEGAL_ADDRESS);
    assert_int_equal(drv->cuEventSynchronize(e), CUDA_SUCCESS);
    assert_int_equal(drv->cuEventDestroy(e), CUDA_SUCCESS);
    assert_int_equal(drv->cuStreamDestroy(s), CUDA_SUCCESS);
    assert_int_equal(drv->cuMemFree(d), CUDA_SUCCESS);
}

/* The real driver has no reports: its faults are UFN_ERR_KERNEL in its
 * own words, its other failures UFN_ERR_DRIVER. */
static void test_fault_statuses(void **state)
{
    (void)state;
    static const CUresult faults[] = { CUDA_ERROR_ILLEGAL_ADDRESS, CUDA_ERROR_LAUNCH_TIMEOUT,
                                       CUDA_ERROR_ASSERT, CUDA_ERROR_HARDWARE_STACK_ERROR,
                                       CUDA_ERROR_ILLEGAL_INSTRUCTION,
                                       CUDA_ERROR_MISALIGNED_ADDRESS, CUDA_ERROR_INVALID_PC,
                                       CUDA_ERROR_LAUNCH_FAILED };
    for (size_t i = 0; i < sizeof faults / sizeof faults[0]; i++)
        assert_int_equal(ufn_cudrv_fail(NULL, faults[i], "cuLaunchKernel"), UFN_ERR_KERNEL);
    assert_string_equal(ufn_error(), "cuLaunchKernel failed: CUDA_ERROR_LAUNCH_FAILED "
                                     "(unspecified launch failure)");
    assert_int_equal(ufn_cudrv_fail(NULL, CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, "cuLaunchKernel"),
                     UFN_ERR_DRIVER);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_device_limits),
        cmocka_unit_test(test_dynamic_shared_limit),
        cmocka_unit_test(test_report_taken_once),
        cmocka_unit_test(test_fault_waiters),
        cmocka_unit_test(test_fault_statuses),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
