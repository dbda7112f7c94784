/* backend_cuda.c - the CUDA backend's operations table, over the real driver
 * or the simulator.
 *
 * One implementation serves two backends: ufn_cuda_backend() calls
 * libcuda.so.1 through the table cudrv.c fills, ufn_sim_backend() the
 * simulator's table (sim.c).  Everything here is the same for both; only the
 * image handed to cuLibraryLoadData differs (the fatbin, or the ufn_module
 * whose sim_kernels the simulator runs).  Each operation receives its
 * backend (the ops table is the first member of a cuda_backend), so one table
 * serves both.
 *
 * This file is the top of the backend: the operations the runtime calls and
 * initialisation (once, thread-safe; UFN_DEVICE picks the default device).
 * Below it: cuda_stage.c (host memory through pinned buffers), cuda_launch.c
 * (plans over device arrays), cuda_alloc.c (the caching allocator), and
 * cuda_device.c (devices, contexts, modules, kernels, streams).
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cudrv.h"

static cuda_backend cuda_state = { .lock = PTHREAD_MUTEX_INITIALIZER };
static cuda_backend sim_state = { .lock = PTHREAD_MUTEX_INITIALIZER };
static ufn_cudrv real_driver;

cuda_backend *ufn_cuda_backend_state(void)
{
    return &cuda_state;
}

cuda_backend *ufn_sim_backend_state(void)
{
    return &sim_state;
}

/* The backend an operation was called on. */
static cuda_backend *self(const ufn_backend_ops *ops)
{
    return (cuda_backend *)((char *)ops - offsetof(cuda_backend, ops));
}

/* ---- streams ------------------------------------------------------------------------- */

static int op_stream_create(const ufn_backend_ops *ops, ufn_stream_impl *s)
{
    cuda_backend *b = self(ops);
    cuda_device *d;
    int status = cuda_enter_device(b, b->current, &d);
    if (status)
        return status;
    cuda_stream *cs = malloc(sizeof *cs);
    if (!cs) {
        cuda_leave(b);
        return ufn_fail(UFN_ERR_NOMEM, "out of memory creating a stream");
    }
    cs->cu = NULL;
    cs->borrowed = false;
    CUresult r = b->drv->cuStreamCreate(&cs->cu, CU_STREAM_DEFAULT);
    if (r == CUDA_SUCCESS && !cs->cu)
        r = UFN_CUDA_NO_RESULT;
    cuda_leave(b);
    if (r != CUDA_SUCCESS) {
        free(cs);
        return ufn_cudrv_fail(b->drv, r, "cuStreamCreate");
    }
    cs->device = d->ordinal;
    s->handle = cs;
    return 0;
}

static int op_stream_destroy(const ufn_backend_ops *ops, ufn_stream_impl *s)
{
    cuda_backend *b = self(ops);
    if (!s || !s->handle)
        return 0;
    if (s->backend != &b->ops)
        return ufn_fail(UFN_ERR_INVALID, "a stream of the %s backend destroyed by the %s backend",
                        s->backend ? s->backend->name : "(no)", b->drv->name);
    cuda_stream *cs = s->handle;
    if (cs->borrowed) {
        free(cs);
        s->handle = NULL;
        return 0;
    }
    cuda_device *d;
    int status = cuda_enter_device(b, cs->device, &d);
    if (status)
        return status;
    CUresult r = b->drv->cuStreamDestroy(cs->cu);
    cuda_leave(b);
    if (r != CUDA_SUCCESS)
        return ufn_cudrv_fail(b->drv, r, "cuStreamDestroy");
    free(cs);
    s->handle = NULL;
    return 0;
}

static int op_stream_synchronize(const ufn_backend_ops *ops, ufn_stream_impl *s)
{
    cuda_backend *b = self(ops);
    if (s && s->backend != &b->ops)
        return ufn_fail(UFN_ERR_INVALID, "a stream of the %s backend used with the %s backend",
                        s->backend ? s->backend->name : "(no)", b->drv->name);
    int device = s && s->handle ? ((cuda_stream *)s->handle)->device : b->current;
    cuda_device *d;
    int status = cuda_enter_device(b, device, &d);
    if (status)
        return status;
    CUstream cu;
    uint64_t t0 = ufn_trace_clock();
    status = cuda_stream_of(b, s, device, &cu);
    if (status == 0) {
        CUresult r = b->drv->cuStreamSynchronize(cu);
        if (r != CUDA_SUCCESS)
            status = ufn_cudrv_fail(b->drv, r, "cuStreamSynchronize");
    }
    cuda_leave(b);
    if (status == 0)
        cuda_trace_since(b, UFN_EV_SYNC, NULL, 0, device, t0);
    return status;
}

static int op_synchronize(const ufn_backend_ops *ops)
{
    cuda_backend *b = self(ops);
    for (int i = 0; i < b->ndev; i++) {
        cuda_device *d = &b->devs[i];
        if (!__atomic_load_n(&d->ready, __ATOMIC_ACQUIRE))
            continue;
        int status = cuda_enter(b, d);
        if (status)
            return status;
        uint64_t t0 = ufn_trace_clock();
        CUresult r = b->drv->cuCtxSynchronize();
        cuda_leave(b);
        if (r != CUDA_SUCCESS)
            return ufn_cudrv_fail(b->drv, r, "cuCtxSynchronize(device %d)", i);
        cuda_trace_since(b, UFN_EV_SYNC, NULL, 0, i, t0);
    }
    return 0;
}

/* ---- memory operations ------------------------------------------------------------------ */

/* The CUstream that allocation and free order against: s's own, or the
 * legacy default stream when s is of another device. */
static CUstream order_of(cuda_backend *b, ufn_stream_impl *s, int device)
{
    CUstream cu = NULL;
    if (cuda_stream_of(b, s, device, &cu) != 0) {
        ufn_clear_error();
        cu = NULL;
    }
    return cu;
}

static int op_alloc(const ufn_backend_ops *ops, int device, size_t bytes, ufn_stream_impl *s,
                    void **ptr)
{
    cuda_backend *b = self(ops);
    cuda_device *d;
    int status = cuda_enter_device(b, device, &d);
    if (status)
        return status;
    CUdeviceptr p = 0;
    status = cuda_cache_alloc(b, d, bytes, order_of(b, s, device), &p);
    cuda_leave(b);
    if (status == 0)
        *ptr = (void *)(uintptr_t)p;
    return status;
}

static void op_free(const ufn_backend_ops *ops, int device, void *ptr, ufn_stream_impl *s)
{
    cuda_backend *b = self(ops);
    cuda_device *d;
    if (!ptr || cuda_enter_device(b, device, &d) != 0)
        return;
    cuda_cache_free(b, d, (CUdeviceptr)(uintptr_t)ptr, order_of(b, s, device));
    cuda_leave(b);
}

static int op_copy(cuda_backend *b, ufn_event_kind kind, int device, void *dst, const void *src,
                   size_t bytes, ufn_stream_impl *s)
{
    cuda_device *d;
    int status = cuda_enter_device(b, device, &d);
    if (status)
        return status;
    CUstream cu;
    status = cuda_stream_of(b, s, device, &cu);
    if (status == 0 && bytes > 0) {
        if (kind == UFN_EV_H2D) {
            status = cuda_stage_h2d(b, d, (CUdeviceptr)(uintptr_t)dst, src, bytes, cu);
        } else if (kind == UFN_EV_D2H) {
            status = cuda_stage_d2h(b, d, dst, (CUdeviceptr)(uintptr_t)src, bytes, cu);
        } else {
            uint64_t t0 = ufn_trace_clock();
            CUresult r = b->drv->cuMemcpyDtoDAsync((CUdeviceptr)(uintptr_t)dst,
                                                   (CUdeviceptr)(uintptr_t)src, bytes, cu);
            if (r != CUDA_SUCCESS)
                status = ufn_cudrv_fail(b->drv, r, "cuMemcpyDtoDAsync(%zu bytes)", bytes);
            else
                cuda_trace_since(b, UFN_EV_D2D, NULL, bytes, device, t0);
        }
    }
    cuda_leave(b);
    return status;
}

static int op_h2d(const ufn_backend_ops *ops, int device, void *dst, const void *src, size_t bytes,
                  ufn_stream_impl *s)
{
    return op_copy(self(ops), UFN_EV_H2D, device, dst, src, bytes, s);
}

static int op_d2h(const ufn_backend_ops *ops, int device, void *dst, const void *src, size_t bytes,
                  ufn_stream_impl *s)
{
    return op_copy(self(ops), UFN_EV_D2H, device, dst, src, bytes, s);
}

static int op_d2d(const ufn_backend_ops *ops, int device, void *dst, const void *src, size_t bytes,
                  ufn_stream_impl *s)
{
    return op_copy(self(ops), UFN_EV_D2D, device, dst, src, bytes, s);
}

/* The source's device finishes what its default stream holds, then the
 * destination's default stream copies; both waited for, so that neither
 * side's memory can be reused too early (the partial results of a
 * reduction over devices come this way: small, and few). */
static int op_copy_peer(const ufn_backend_ops *ops, int dst_device, void *dst, int src_device,
                        const void *src, size_t bytes)
{
    cuda_backend *b = self(ops);
    cuda_device *sd, *dd;
    int status = cuda_device_get(b, src_device, &sd);
    if (status == 0)
        status = cuda_device_get(b, dst_device, &dd);
    if (status == 0)
        status = cuda_enter(b, sd);
    if (status)
        return status;
    CUresult r = b->drv->cuStreamSynchronize(NULL);
    cuda_leave(b);
    if (r != CUDA_SUCCESS)
        return ufn_cudrv_fail(b->drv, r, "cuStreamSynchronize(device %d)", src_device);
    if (bytes == 0)
        return 0;
    if ((status = cuda_enter(b, dd)) != 0)
        return status;
    uint64_t t0 = ufn_trace_clock();
    r = b->drv->cuMemcpyPeerAsync((CUdeviceptr)(uintptr_t)dst, dd->ctx,
                                  (CUdeviceptr)(uintptr_t)src, sd->ctx, bytes, NULL);
    if (r == CUDA_SUCCESS)
        r = b->drv->cuStreamSynchronize(NULL);
    cuda_leave(b);
    if (r != CUDA_SUCCESS)
        return ufn_cudrv_fail(b->drv, r, "cuMemcpyPeerAsync(%zu bytes, device %d to %d)", bytes,
                              src_device, dst_device);
    ufn_event ev = { UFN_EV_PEER, b->drv->name, NULL, bytes, dst_device, src_device, t0 };
    ufn_trace(&ev);
    return 0;
}

static int op_execute(const ufn_backend_ops *ops, const ufn_plan *plan, ufn_stream_impl *s)
{
    cuda_backend *b = self(ops);
    if (!plan)
        return ufn_fail(UFN_ERR_INVALID, "no plan");
    if (plan->memory == UFN_MEM_DEVICE)
        return cuda_execute_device(b, plan, s);
    if (plan->memory == UFN_MEM_HOST)
        return cuda_execute_host(b, plan);
    return ufn_fail(UFN_ERR_WRONG_MEMORY, "%s: operands in no known memory",
                    plan->func && plan->func->name ? plan->func->name : "ufunc");
}

static int op_run_pipeline(const ufn_backend_ops *ops, const ufn_pipe *pipe, ufn_stream_impl *s)
{
    return cuda_run_pipeline(self(ops), pipe, s);
}

static int op_device_count(const ufn_backend_ops *ops)
{
    return self(ops)->ndev;
}

static int op_default_device(const ufn_backend_ops *ops)
{
    return self(ops)->current;
}

/* ufn_set_device: the device is started now, so that a broken one fails
 * here and not in the next call. */
static int op_set_default_device(const ufn_backend_ops *ops, int device)
{
    cuda_backend *b = self(ops);
    cuda_device *d;
    int status = cuda_device_get(b, device, &d);
    if (status)
        return status;
    b->current = device;
    return 0;
}

static int op_device_pointer(const ufn_backend_ops *ops, const void *ptr, int64_t lo,
                             int64_t hi, int *device)
{
    return cuda_pointer_device(self(ops), ptr, lo, hi, device);
}

static int op_stream_wrap(const ufn_backend_ops *ops, void *cu, ufn_stream_impl *s)
{
    return cuda_stream_wrap(self(ops), cu, s);
}

static int op_kernel_limits(const ufn_backend_ops *ops, int device, ufn_klimits *out)
{
    return cuda_kernel_limits(self(ops), device, out);
}

static int op_launch_kernel(const ufn_backend_ops *ops, const ufn_kplan *plan,
                            ufn_stream_impl *s)
{
    return cuda_launch_kernel(self(ops), plan, s);
}

/* ---- the operations table ------------------------------------------------------------------
 * One for both backends: start() copies it into the backend and names it. */

static const ufn_backend_ops cuda_ops = {
    .name = "cuda",
    .device_memory = UFN_MEM_DEVICE,
    .device_count = op_device_count,
    .default_device = op_default_device,
    .alloc = op_alloc,
    .free = op_free,
    .copy_h2d = op_h2d,
    .copy_d2h = op_d2h,
    .copy_d2d = op_d2d,
    .copy_peer = op_copy_peer,
    .execute = op_execute,
    .run_pipeline = op_run_pipeline,
    .stream_create = op_stream_create,
    .stream_destroy = op_stream_destroy,
    .stream_synchronize = op_stream_synchronize,
    .synchronize = op_synchronize,
    .kernel_limits = op_kernel_limits,
    .launch_kernel = op_launch_kernel,
    .set_default_device = op_set_default_device,
    .device_pointer = op_device_pointer,
    .stream_wrap = op_stream_wrap,
};

/* ---- initialisation ---------------------------------------------------------------------- */

/* UFN_DEVICE: the default device, checked against the device count. */
static int choose_device(cuda_backend *b)
{
    const char *env = getenv("UFN_DEVICE");
    b->current = 0;
    if (!env || !*env)
        return 0;
    char *end;
    long n = strtol(env, &end, 10);
    if (*end || end == env || n < 0 || n >= b->ndev)
        return ufn_fail(UFN_ERR_NO_DEVICE,
                        "UFN_DEVICE=%s names no %s device: there %s %d (0 to %d)", env,
                        b->drv->name, b->ndev == 1 ? "is" : "are", b->ndev, b->ndev - 1);
    b->current = (int)n;
    return 0;
}

static int start(cuda_backend *b, const ufn_cudrv *drv)
{
    b->drv = drv;
    b->ops = cuda_ops;
    b->ops.name = drv->name;
    int status = 0;
    if (drv->sim) {
        CUresult r = drv->cuInit(0);
        if (r != CUDA_SUCCESS && ufn_sim_config_error())
            return ufn_fail(UFN_ERR_INVALID, "%s", ufn_sim_config_error());
        if (r != CUDA_SUCCESS)
            return ufn_cudrv_fail(drv, r, "cuInit(0)");
    }
    CUresult r = drv->cuDeviceGetCount(&b->ndev);
    if (r != CUDA_SUCCESS)
        return ufn_cudrv_fail(drv, r, "cuDeviceGetCount");
    if (b->ndev <= 0)
        return ufn_fail(UFN_ERR_NO_DEVICE, "the %s driver reports no device%s", drv->name,
                        drv->sim ? " (UFN_SIM_DEVICES=0)" : "");
    status = choose_device(b);
    if (status)
        return status;
    b->devs = calloc((size_t)b->ndev, sizeof *b->devs);
    if (!b->devs)
        return ufn_fail(UFN_ERR_NOMEM, "out of memory starting the %s backend", drv->name);
    for (int i = 0; i < b->ndev; i++) {
        b->devs[i].ordinal = i;
        pthread_mutex_init(&b->devs[i].lock, NULL);
    }
    /* The default device now, so that a broken one shows at backend choice. */
    cuda_device *d;
    return cuda_device_get(b, b->current, &d);
}

static void finish(cuda_backend *b, int status)
{
    b->status = status;
    if (status)
        snprintf(b->message, sizeof b->message, "%s", ufn_error());
    else
        __atomic_store_n(&b->started, true, __ATOMIC_RELEASE);
}

/* The locks of one backend: its own, then each device's (those of a
 * backend that has started: the number is kept for after the fork). */
static void backend_fork(cuda_backend *b, ufn_fork_phase phase)
{
    if (phase == UFN_FORK_PREPARE) {
        pthread_mutex_lock(&b->lock);
        b->fork_locked = __atomic_load_n(&b->started, __ATOMIC_ACQUIRE) ? b->ndev : 0;
        for (int i = 0; i < b->fork_locked; i++)
            pthread_mutex_lock(&b->devs[i].lock);
    } else {
        for (int i = b->fork_locked - 1; i >= 0; i--)
            pthread_mutex_unlock(&b->devs[i].lock);
        pthread_mutex_unlock(&b->lock);
    }
}

void ufn_cuda_fork(ufn_fork_phase phase)
{
    if (phase == UFN_FORK_PREPARE) {
        backend_fork(&cuda_state, phase);
        backend_fork(&sim_state, phase);
        cuda_modules_fork(phase);
        ufn_sim_fork(phase);
    } else {
        ufn_sim_fork(phase);
        cuda_modules_fork(phase);
        backend_fork(&sim_state, phase);
        backend_fork(&cuda_state, phase);
    }
}

static void start_cuda(void)
{
    int status = ufn_cudrv_load(&real_driver);
    if (status == 0)
        status = start(&cuda_state, &real_driver);
    finish(&cuda_state, status);
}

static void start_sim(void)
{
    finish(&sim_state, start(&sim_state, ufn_sim_driver()));
}

static pthread_once_t cuda_once = PTHREAD_ONCE_INIT;
static pthread_once_t sim_once = PTHREAD_ONCE_INIT;

const ufn_backend_ops *ufn_cuda_backend(void)
{
    pthread_once(&cuda_once, start_cuda);
    if (cuda_state.status)
        return ufn_fail(cuda_state.status, "%s", cuda_state.message), NULL;
    return &cuda_state.ops;
}

int ufn_cuda_check_module(const ufn_module *m)
{
    return cuda_module_check(&cuda_state, m);
}

const ufn_backend_ops *ufn_sim_backend(void)
{
    pthread_once(&sim_once, start_sim);
    if (sim_state.status)
        return ufn_fail(sim_state.status, "%s", sim_state.message), NULL;
    return &sim_state.ops;
}
