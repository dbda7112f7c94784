/* view.c - ufn_device_view and ufn_stream_wrap: a CUDA program's own memory
 * and stream.
 *
 * On sim the program is a CUDA program of its own: it allocates with
 * cuMemAlloc, makes a non-blocking stream and queues a copy on it through
 * the simulated driver (ufn_sim_driver(), what libcuda.so.1 is on a GPU);
 * that copy waits 50 ms before it runs (ufn_sim_set_latency) and what is
 * queued after it does not, so that work on another stream would overtake
 * it (and does: the test fails without ufn_set_stream).  The call on views of
 * that memory, queued on the wrapped stream, must see the copy's data, and
 * the program's copy back queued after it must see the call's results.
 * Then the checks: host memory, page-locked memory and a view beyond the
 * allocation are refused, views at an offset and reversed work, the view
 * takes the device of its memory (device 1 of two), a stream of device 1
 * is refused while device 0 is the default (and taken once it is not), ufn_free and
 * ufn_stream_destroy leave the memory and the stream to the program.
 * On the host backend both calls are refused.
 */
#include <string.h>

#include "check.h"
#include "cudrv.h"
#include "interop.h"

#define N 4096

static const ufn_cudrv *drv;

static CUcontext enter(int device)
{
    CUdevice dev;
    CUcontext ctx = NULL;
    CHECK(drv->cuDeviceGet(&dev, device) == CUDA_SUCCESS);
    CHECK(drv->cuDevicePrimaryCtxRetain(&ctx, dev) == CUDA_SUCCESS);
    CHECK(drv->cuCtxPushCurrent(ctx) == CUDA_SUCCESS);
    return ctx;
}

static void leave(int device)
{
    CUdevice dev;
    CHECK(drv->cuCtxPopCurrent(NULL) == CUDA_SUCCESS);
    CHECK(drv->cuDeviceGet(&dev, device) == CUDA_SUCCESS);
    CHECK(drv->cuDevicePrimaryCtxRelease(dev) == CUDA_SUCCESS);
}

/* The program's stream orders its copies and the ufunc call. */
static void ordered_on_program_stream(void)
{
    static double hx[N], hy[N];
    for (int i = 0; i < N; i++)
        hx[i] = i * 0.5;
    enter(0);
    CUdeviceptr dx, dy;
    CUstream cs;
    CHECK(drv->cuMemAlloc(&dx, sizeof hx) == CUDA_SUCCESS);
    CHECK(drv->cuMemAlloc(&dy, sizeof hy) == CUDA_SUCCESS);
    CHECK(drv->cuStreamCreate(&cs, CU_STREAM_NON_BLOCKING) == CUDA_SUCCESS);

    ufn_stream s;
    CHECK(ufn_stream_wrap(cs, &s) == UFN_OK);
    int64_t shape[1] = { N };
    ufn_array vx = { 0 }, vy = { 0 };
    CHECK(ufn_device_view((void *)(uintptr_t)dx, UFN_FLOAT64, 1, shape, NULL, &vx) == UFN_OK);
    CHECK(ufn_device_view((void *)(uintptr_t)dy, UFN_FLOAT64, 1, shape, NULL, &vy) == UFN_OK);
    CHECK(vx.memory == UFN_MEM_DEVICE && vx.device == 0 && vx.alloc_id == 0);

    ufn_sim_set_latency(50000);
    CHECK(drv->cuMemcpyHtoDAsync(dx, hx, sizeof hx, cs) == CUDA_SUCCESS);
    ufn_sim_set_latency(0);
    ufn_set_stream(s);
    ufn_array three = ufn_scalar_float64(3.0);
    CHECK(axpb(&vx, &three, &vy) == UFN_OK);
    ufn_set_stream(NULL);
    /* Into pageable memory: returns when the copy has run. */
    CHECK(drv->cuMemcpyDtoHAsync(hy, dy, sizeof hy, cs) == CUDA_SUCCESS);
    int wrong = 0;
    for (int i = 0; i < N; i++)
        wrong += hy[i] != 3.0 * hx[i] + 1.0;
    CHECK(wrong == 0);
    if (wrong)
        fprintf(stderr, "view: %d of %d results wrong (y[%d] = %g)\n", wrong, N, N - 1,
                hy[N - 1]);

    /* An offset view, and one reversed from the last element. */
    int64_t inner[1] = { N - 2 }, back[1] = { -1 };
    ufn_array part = { 0 }, rev = { 0 }, out = { 0 };
    CHECK(ufn_device_view((void *)(uintptr_t)(dx + 8), UFN_FLOAT64, 1, inner, NULL, &part) ==
          UFN_OK);
    CHECK(ufn_device_view((void *)(uintptr_t)(dy + sizeof hy - 8), UFN_FLOAT64, 1, shape, back,
                          &rev) == UFN_OK);
    CHECK(axpb(&rev, &three, &out) == UFN_OK);   /* out[i] = 3 y[N-1-i] + 1 */
    static double ho[N];
    ufn_array hout = ufn_host(ho, UFN_FLOAT64, 1, shape);
    CHECK(ufn_copy_to_host(&out, &hout) == UFN_OK);
    CHECK(ho[0] == 3.0 * hy[N - 1] + 1.0 && ho[N - 1] == 3.0 * hy[0] + 1.0);
    ufn_free(&out);

    /* Refused: beyond the allocation, host memory, page-locked memory. */
    int64_t more[1] = { N + 1 };
    ufn_array bad = { 0 };
    CHECK(ufn_device_view((void *)(uintptr_t)dx, UFN_FLOAT64, 1, more, NULL, &bad) ==
          UFN_ERR_INVALID);
    CHECK(strstr(ufn_error(), "outside its allocation") != NULL);
    CHECK(ufn_device_view(hx, UFN_FLOAT64, 1, shape, NULL, &bad) == UFN_ERR_WRONG_MEMORY);
    void *pinned;
    CHECK(drv->cuMemAllocHost(&pinned, sizeof hx) == CUDA_SUCCESS);
    CHECK(ufn_device_view(pinned, UFN_FLOAT64, 1, shape, NULL, &bad) == UFN_ERR_WRONG_MEMORY);
    CHECK(strstr(ufn_error(), "page-locked") != NULL);
    CHECK(drv->cuMemFreeHost(pinned) == CUDA_SUCCESS);
    CHECK(ufn_device_view((void *)(uintptr_t)(dx + 1), UFN_FLOAT64, 1, inner, NULL, &bad) ==
          UFN_ERR_ALIGN);

    /* Borrowed: ufn_free and ufn_stream_destroy leave them to the program. */
    ufn_free(&vx);
    ufn_free(&vy);
    CHECK(ufn_stream_destroy(s) == UFN_OK);
    CHECK(ufn_stream_synchronize(s) == UFN_ERR_INVALID);
    CHECK(drv->cuStreamSynchronize(cs) == CUDA_SUCCESS);
    CHECK(drv->cuStreamDestroy(cs) == CUDA_SUCCESS);
    CHECK(drv->cuMemFree(dx) == CUDA_SUCCESS);
    CHECK(drv->cuMemFree(dy) == CUDA_SUCCESS);
    ufn_stream def = (ufn_stream)1;
    CHECK(ufn_stream_wrap(NULL, &def) == UFN_OK && def == NULL);
    leave(0);
}

/* A view takes the device of its memory. */
static void second_device(void)
{
    if (ufn_device_count() < 2)
        return;
    enter(1);
    CUdeviceptr d;
    CHECK(drv->cuMemAlloc(&d, 64) == CUDA_SUCCESS);
    int64_t shape[1] = { 8 };
    ufn_array v = { 0 };
    CHECK(ufn_device_view((void *)(uintptr_t)d, UFN_FLOAT64, 1, shape, NULL, &v) == UFN_OK);
    CHECK(v.device == 1);
    CHECK(drv->cuMemFree(d) == CUDA_SUCCESS);
    /* A stream of device 1 is refused while device 0 is the default. */
    CUstream cs;
    ufn_stream s = NULL;
    CHECK(drv->cuStreamCreate(&cs, CU_STREAM_NON_BLOCKING) == CUDA_SUCCESS);
    CHECK(ufn_stream_wrap(cs, &s) == UFN_ERR_INVALID);
    CHECK(strstr(ufn_error(), "belongs to device 1, not to the default device 0") != NULL);
    CHECK(ufn_set_device(1) == UFN_OK);
    CHECK(ufn_stream_wrap(cs, &s) == UFN_OK);
    CHECK(ufn_stream_destroy(s) == UFN_OK);
    CHECK(ufn_set_device(0) == UFN_OK);
    CHECK(drv->cuStreamDestroy(cs) == CUDA_SUCCESS);
    leave(1);
}

int main(void)
{
    if (strcmp(ufn_backend(), "host") == 0) {
        double x[4];
        int64_t shape[1] = { 4 };
        ufn_array v = { 0 };
        ufn_stream s;
        CHECK(ufn_device_view(x, UFN_FLOAT64, 1, shape, NULL, &v) == UFN_ERR_WRONG_MEMORY);
        CHECK(ufn_stream_wrap((void *)x, &s) == UFN_ERR_INVALID);
        return done("view");
    }
    drv = ufn_sim_driver();
    ordered_on_program_stream();
    second_device();
    return done("view");
}
