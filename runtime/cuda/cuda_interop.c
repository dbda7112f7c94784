/* cuda_interop.c - memory and streams the program made with the CUDA driver
 * or runtime API, handed to the backend (ufn_device_view, ufn_stream_wrap).
 *
 * Both are borrowed: the runtime never frees the memory nor destroys the
 * stream.  A pointer is checked with the driver, which knows every
 * allocation: it must be device memory, the view's elements must lie in
 * one allocation, and the allocation must belong to its device's primary
 * context - the one the runtime's kernels run in, and the one CUDA's
 * runtime API (cudaMalloc) uses.  A stream cannot be asked its device
 * through the driver entries the backend loads; it is taken to be of the
 * default device (ufn_set_device), as ufn(3) says.
 */
#include <stdlib.h>

#include "cudrv.h"

/* A pointer attribute, or fail naming the call. */
static int attribute(cuda_backend *b, void *value, CUpointer_attribute attr, CUdeviceptr p,
                     const char *what)
{
    CUresult r = b->drv->cuPointerGetAttribute(value, attr, p);
    return r == CUDA_SUCCESS ? 0 : ufn_cudrv_fail(b->drv, r, "cuPointerGetAttribute(%s)", what);
}

int cuda_pointer_device(cuda_backend *b, const void *ptr, int64_t lo, int64_t hi, int *device)
{
    CUdeviceptr p = (CUdeviceptr)(uintptr_t)ptr;
    cuda_device *d;
    int status = cuda_enter_device(b, b->current, &d);
    if (status)
        return status;
    unsigned type = 0;
    int ordinal = -1;
    CUcontext ctx = NULL;
    CUdeviceptr start = 0;
    size_t size = 0;
    /* Pageable host memory is unknown to the driver: the call fails. */
    if (b->drv->cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, p) != CUDA_SUCCESS ||
        type != CU_MEMORYTYPE_DEVICE) {
        cuda_leave(b);
        return ufn_fail(UFN_ERR_WRONG_MEMORY, "%p is not device memory of the %s driver (%s)",
                        ptr, b->drv->name, type == CU_MEMORYTYPE_HOST
                            ? "page-locked host memory: wrap it with ufn_host"
                            : "host memory? wrap it with ufn_host");
    }
    status = attribute(b, &ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, p, "DEVICE_ORDINAL");
    if (!status)
        status = attribute(b, &ctx, CU_POINTER_ATTRIBUTE_CONTEXT, p, "CONTEXT");
    if (!status)
        status = attribute(b, &start, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, p, "RANGE_START_ADDR");
    if (!status)
        status = attribute(b, &size, CU_POINTER_ATTRIBUTE_RANGE_SIZE, p, "RANGE_SIZE");
    cuda_leave(b);
    if (status)
        return status;
    cuda_device *owner;
    if ((status = cuda_device_get(b, ordinal, &owner)) != 0)
        return status;
    /* Memory of a pool (cudaMallocAsync) names no context; that is fine. */
    if (ctx && ctx != owner->ctx)
        return ufn_fail(UFN_ERR_INVALID, "%p is device memory of another context than device "
                        "%d's primary context (the one the runtime and cudaMalloc use)", ptr,
                        ordinal);
    int64_t off = (int64_t)(p - start);
    if (off + lo < 0 || off + hi > (int64_t)size)
        return ufn_fail(UFN_ERR_INVALID, "the view's elements, bytes %lld to %lld from %p, lie "
                        "outside its allocation of %zu bytes from %p", (long long)lo,
                        (long long)hi, ptr, size, (void *)(uintptr_t)start);
    *device = ordinal;
    return 0;
}

/* The stream's context must be the default device's primary context: work
 * the runtime queues on it runs in that context, on that device's memory.
 * (A driver without cuStreamGetCtx cannot tell: the stream is trusted.) */
static int check_stream_device(cuda_backend *b, CUstream cu)
{
    if (!b->drv->cuStreamGetCtx)
        return 0;
    int current = b->current;
    cuda_device *d;
    int status = cuda_enter_device(b, current, &d);
    if (status)
        return status;
    CUcontext ctx = NULL;
    CUresult r = b->drv->cuStreamGetCtx(cu, &ctx);
    cuda_leave(b);
    if (r != CUDA_SUCCESS)
        return ufn_cudrv_fail(b->drv, r, "cuStreamGetCtx(%p)", (void *)cu);
    if (ctx == d->ctx)
        return 0;
    for (int i = 0; i < b->ndev; i++) {
        cuda_device *other;
        if (i != current && cuda_device_get(b, i, &other) == 0 && other->ctx == ctx)
            return ufn_fail(UFN_ERR_INVALID, "the stream %p belongs to device %d, not to the "
                            "default device %d: call ufn_set_device(%d) before wrapping it",
                            (void *)cu, i, current, i);
    }
    return ufn_fail(UFN_ERR_INVALID, "the stream %p belongs to another context than device %d's "
                    "primary context (the one the runtime and the CUDA runtime API use)",
                    (void *)cu, current);
}

int cuda_stream_wrap(cuda_backend *b, void *cu, ufn_stream_impl *s)
{
    int status = check_stream_device(b, (CUstream)cu);
    if (status)
        return status;
    cuda_stream *cs = malloc(sizeof *cs);
    if (!cs)
        return ufn_fail(UFN_ERR_NOMEM, "out of memory wrapping a stream");
    cs->cu = (CUstream)cu;
    cs->device = b->current;
    cs->borrowed = true;
    s->handle = cs;
    return 0;
}
