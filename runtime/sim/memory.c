/* memory.c - the simulator's memory and copies: device memory is host
 * memory (256-byte aligned, filled with 0xA5 when allocated, so that
 * uninitialised reads show), within each device's UFN_SIM_MEMORY; copies
 * are queued on their stream (queue.c) with the driver's rules for pageable
 * and page-locked host memory. */
#include <stdlib.h>
#include <string.h>

#include "simrt.h"

/* ---- memory ------------------------------------------------------------------------- */

CUresult sim_mem_alloc(CUdeviceptr *ptr, size_t bytes)
{
    REQUIRE_CONTEXT(dev);
    if (!ptr || bytes == 0)
        return CUDA_ERROR_INVALID_VALUE;
    INJECT("cuMemAlloc");
    if (bytes > SIZE_MAX - SIM_ALIGN)
        return CUDA_ERROR_OUT_OF_MEMORY;
    size_t rounded = (bytes + SIM_ALIGN - 1) / SIM_ALIGN * SIM_ALIGN;
    sim_device *sd = &ufn_sim.dev[dev];
    pthread_mutex_lock(&ufn_sim.lock);
    CUresult r = CUDA_ERROR_OUT_OF_MEMORY;
    void *p = NULL;
    if (sd->stats.mem_used <= sd->limit && rounded <= sd->limit - sd->stats.mem_used)
        p = aligned_alloc(SIM_ALIGN, rounded);
    if (p) {
        r = sim_add_alloc(p, rounded, dev);
        if (r == CUDA_SUCCESS) {
            sd->stats.mem_used += rounded;
            sd->stats.mem_allocs++;
        } else {
            free(p);
        }
    }
    pthread_mutex_unlock(&ufn_sim.lock);
    if (r != CUDA_SUCCESS)
        return r;
    memset(p, 0xA5, rounded);
    *ptr = (CUdeviceptr)(uintptr_t)p;
    return CUDA_SUCCESS;
}

CUresult sim_mem_free(CUdeviceptr ptr)
{
    REQUIRE_CONTEXT(dev);
    if (ptr == 0)
        return CUDA_SUCCESS;
    sq_device_sync(dev);   /* as the driver's: queued work may still use it */
    pthread_mutex_lock(&ufn_sim.lock);
    sim_alloc *a = sim_take_alloc((void *)(uintptr_t)ptr, true);
    if (a) {
        ufn_sim.dev[a->device].stats.mem_used -= a->bytes;
        ufn_sim.dev[a->device].stats.mem_frees++;
    }
    pthread_mutex_unlock(&ufn_sim.lock);
    if (!a)
        return CUDA_ERROR_INVALID_VALUE;
    free(a->base);
    free(a);
    return CUDA_SUCCESS;
}

CUresult sim_mem_alloc_host(void **ptr, size_t bytes)
{
    REQUIRE_CONTEXT(dev);
    (void)dev;
    if (!ptr || bytes == 0)
        return CUDA_ERROR_INVALID_VALUE;
    INJECT("cuMemAllocHost");
    void *p = NULL;
    if (posix_memalign(&p, 4096, bytes) != 0)
        return CUDA_ERROR_OUT_OF_MEMORY;
    pthread_mutex_lock(&ufn_sim.lock);
    CUresult r = sim_add_alloc(p, bytes, -1);
    if (r == CUDA_SUCCESS)
        ufn_sim.host_allocs++;
    pthread_mutex_unlock(&ufn_sim.lock);
    if (r != CUDA_SUCCESS) {
        free(p);
        return r;
    }
    *ptr = p;
    return CUDA_SUCCESS;
}

CUresult sim_mem_free_host(void *ptr)
{
    REQUIRE_INIT();
    sq_device_sync(-1);
    pthread_mutex_lock(&ufn_sim.lock);
    sim_alloc *a = ptr ? sim_take_alloc(ptr, false) : NULL;
    pthread_mutex_unlock(&ufn_sim.lock);
    if (!a)
        return CUDA_ERROR_INVALID_VALUE;
    free(a->base);
    free(a);
    return CUDA_SUCCESS;
}

CUresult sim_mem_info(size_t *free_bytes, size_t *total_bytes)
{
    REQUIRE_CONTEXT(dev);
    if (!free_bytes || !total_bytes)
        return CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&ufn_sim.lock);
    sim_device *sd = &ufn_sim.dev[dev];
    *total_bytes = sd->limit;
    *free_bytes = sd->stats.mem_used < sd->limit ? sd->limit - sd->stats.mem_used : 0;
    pthread_mutex_unlock(&ufn_sim.lock);
    return CUDA_SUCCESS;
}

/* What C interop asks of a pointer (ufn_device_view): its kind of memory,
 * and for device memory its device, context and allocation. */
CUresult sim_pointer_attribute(void *data, CUpointer_attribute attr, CUdeviceptr p)
{
    REQUIRE_INIT();
    if (!data)
        return CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&ufn_sim.lock);
    sim_alloc *a = sim_find_in(false, (uintptr_t)p, 1);
    if (!a)
        a = sim_find_range(p, 1);
    sim_alloc found = a ? *a : (sim_alloc){ 0 };
    pthread_mutex_unlock(&ufn_sim.lock);
    if (!a)
        return CUDA_ERROR_INVALID_VALUE;   /* pageable memory: unknown to the driver */
    switch (attr) {
    case CU_POINTER_ATTRIBUTE_MEMORY_TYPE:
        *(unsigned *)data = found.device < 0 ? CU_MEMORYTYPE_HOST : CU_MEMORYTYPE_DEVICE;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR:
        *(CUdeviceptr *)data = (CUdeviceptr)(uintptr_t)found.base;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_RANGE_SIZE:
        *(size_t *)data = found.bytes;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL:
    case CU_POINTER_ATTRIBUTE_CONTEXT:
        if (found.device < 0)
            return CUDA_ERROR_INVALID_VALUE;   /* pinned memory belongs to no device here */
        if (attr == CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL)
            *(int *)data = found.device;
        else
            *(CUcontext *)data = &ufn_sim.dev[found.device].ctx;
        return CUDA_SUCCESS;
    }
    return CUDA_ERROR_INVALID_VALUE;
}

/* ---- copies ---------------------------------------------------------------------------- */

enum copy_kind { H2D, D2H, D2D, PEER };

typedef struct copy_work {
    void *dst;
    const void *src;
    size_t bytes;
} copy_work;

static void run_copy(sim_op *op)
{
    copy_work *w = (copy_work *)op->data;
    memmove(w->dst, w->src, w->bytes);
}

/* Is [p, p+bytes) inside one allocation of `device`?  Lock held.  Stricter
 * than a driver with unified addressing, which would copy from any
 * device's memory: the backend means every copy's device memory to be the
 * current context's, and a peer copy to name both contexts. */
static bool on_device(const void *p, size_t bytes, int device)
{
    sim_alloc *a = sim_find_in(true, (uintptr_t)p, bytes);
    return a && a->device == device;
}

static const char *const copy_call[] = { "cuMemcpyHtoDAsync", "cuMemcpyDtoHAsync",
                                         "cuMemcpyDtoDAsync", "cuMemcpyPeerAsync" };

/* Queue a copy on s.  Host memory is read (H2D) when the copy runs if it is
 * page-locked, else now, into a snapshot, as the driver stages it; a copy
 * into pageable memory (D2H) returns when it has run.  dst_dev and src_dev
 * are the devices whose memory the device side(s) must be (-1: host). */
static CUresult copy(enum copy_kind kind, void *dst, int dst_dev, const void *src, int src_dev,
                     size_t bytes, CUstream s)
{
    REQUIRE_CONTEXT(dev);
    CUresult r = sim_check_stream(s, dev);
    if (r != CUDA_SUCCESS)
        return r;
    INJECT(copy_call[kind]);
    if (bytes == 0)
        return CUDA_SUCCESS;
    if (!dst || !src)
        return CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&ufn_sim.lock);
    bool ok = (dst_dev < 0 || on_device(dst, bytes, dst_dev)) &&
              (src_dev < 0 || on_device(src, bytes, src_dev));
    bool pinned = (kind == H2D || kind == D2H) &&
                  sim_find_in(false, (uintptr_t)(kind == H2D ? src : dst), bytes);
    pthread_mutex_unlock(&ufn_sim.lock);
    if (!ok)
        return CUDA_ERROR_INVALID_VALUE;
    /* Pageable memory is read or written when the call is made, which a
     * capture cannot replay: CUDA refuses it. */
    if ((kind == H2D || kind == D2H) && !pinned && (r = sq_capture_refuse(s)) != CUDA_SUCCESS)
        return r;
    sim_op *op = sq_op_new(sizeof(copy_work));
    if (!op)
        return CUDA_ERROR_OUT_OF_MEMORY;
    op->run = run_copy;
    *(copy_work *)op->data = (copy_work){ dst, src, bytes };
    sim_tally *t = &op->tally;
    t->device = kind == PEER ? dst_dev : dev;
    switch (kind) {
    case H2D: t->h2d = 1, t->h2d_bytes = bytes; break;
    case D2H: t->d2h = 1, t->d2h_bytes = bytes; break;
    case D2D: t->d2d = 1, t->d2d_bytes = bytes; break;
    case PEER: t->peer = 1, t->peer_bytes = bytes; break;
    }
    if (kind == H2D && !pinned) {
        if (!(op->heap = malloc(bytes))) {
            free(op);
            return CUDA_ERROR_OUT_OF_MEMORY;
        }
        memcpy(op->heap, src, bytes);
        ((copy_work *)op->data)->src = op->heap;
    }
    uint64_t seq;
    r = sim_submit(s, dev, op, &seq);
    if (r == CUDA_SUCCESS && kind == D2H && !pinned) {
        sq_wait_op(s, dev, seq);
        r = sim_fault_take(dev);   /* it waited: a kernel's fault shows here */
    }
    return r;
}

CUresult sim_copy_h2d(CUdeviceptr dst, const void *src, size_t bytes, CUstream s)
{
    int dev = sim_current_device();
    return copy(H2D, (void *)(uintptr_t)dst, dev, src, -1, bytes, s);
}

CUresult sim_copy_d2h(void *dst, CUdeviceptr src, size_t bytes, CUstream s)
{
    int dev = sim_current_device();
    return copy(D2H, dst, -1, (const void *)(uintptr_t)src, dev, bytes, s);
}

CUresult sim_copy_d2d(CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream s)
{
    int dev = sim_current_device();
    return copy(D2D, (void *)(uintptr_t)dst, dev, (const void *)(uintptr_t)src, dev, bytes, s);
}

/* A copy between the memory of two contexts' devices, queued on s (a
 * stream of the current context's device, or its legacy stream). */
CUresult sim_copy_peer(CUdeviceptr dst, CUcontext dst_ctx, CUdeviceptr src, CUcontext src_ctx,
                       size_t bytes, CUstream s)
{
    REQUIRE_INIT();
    if (!dst_ctx || !src_ctx || dst_ctx->device < 0 || dst_ctx->device >= ufn_sim.ndev ||
        src_ctx->device < 0 || src_ctx->device >= ufn_sim.ndev ||
        dst_ctx != &ufn_sim.dev[dst_ctx->device].ctx || src_ctx != &ufn_sim.dev[src_ctx->device].ctx)
        return CUDA_ERROR_INVALID_CONTEXT;
    return copy(PEER, (void *)(uintptr_t)dst, dst_ctx->device, (const void *)(uintptr_t)src,
                src_ctx->device, bytes, s);
}
