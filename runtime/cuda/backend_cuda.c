/* backend_cuda.c - the CUDA backend, over the real driver or the simulator.
 *
 * One implementation serves two backends: ufn_cuda_backend() calls
 * libcuda.so.1 through the table cudrv.c fills, ufn_sim_backend() the
 * simulator's table (sim.c).  Everything here is the same for both; only the
 * image handed to cuLibraryLoadData differs (the fatbin, or the ufn_module
 * whose sim_kernels the simulator runs).
 *
 * This file holds the backend's state: initialisation (once, thread-safe),
 * devices and their primary contexts (UFN_DEVICE picks the default one),
 * modules loaded on first use and their kernels with the launch
 * configuration, streams, and the operations table the runtime calls.
 * Allocation is in cuda_alloc.c, launches in cuda_launch.c, staging of host
 * memory in cuda_stage.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cudrv.h"

static cuda_backend cuda_state = { .lock = PTHREAD_MUTEX_INITIALIZER };
static cuda_backend sim_state = { .lock = PTHREAD_MUTEX_INITIALIZER };
static ufn_cudrv real_driver;

/* Guards every module's state list (both backends share module->state). */
static pthread_mutex_t modules_lock = PTHREAD_MUTEX_INITIALIZER;

/* What a module's `state` points to: one entry per backend that loaded it. */
typedef struct cuda_modstate {
    struct cuda_modstate *next;
    const cuda_backend *backend;
    CUlibrary lib;
    cuda_kernel *kernels;       /* resolved per device, on first use */
} cuda_modstate;

/* A ufn_stream's handle. */
typedef struct cuda_stream {
    CUstream cu;
    int device;
} cuda_stream;

cuda_backend *ufn_cuda_backend_state(void)
{
    return &cuda_state;
}

cuda_backend *ufn_sim_backend_state(void)
{
    return &sim_state;
}

void cuda_trace(cuda_backend *b, ufn_event_kind kind, const char *name, size_t bytes, int device)
{
    ufn_event ev = { kind, b->drv->name, name, bytes, device };
    ufn_trace(&ev);
}

/* ---- devices and contexts ------------------------------------------------------ */

static int device_init(cuda_backend *b, cuda_device *d)
{
    const ufn_cudrv *drv = b->drv;
    CUresult r = drv->cuDeviceGet(&d->dev, d->ordinal);
    if (r != CUDA_SUCCESS)
        return ufn_cudrv_fail(drv, r, "cuDeviceGet(%d)", d->ordinal);
    r = drv->cuDevicePrimaryCtxRetain(&d->ctx, d->dev);
    if (r != CUDA_SUCCESS)
        return ufn_cudrv_fail(drv, r, "cuDevicePrimaryCtxRetain(device %d)", d->ordinal);
    if (drv->cuDeviceGetName(d->name, (int)sizeof d->name, d->dev) != CUDA_SUCCESS)
        snprintf(d->name, sizeof d->name, "device %d", d->ordinal);
    struct {
        CUdevice_attribute attr;
        int *value;
        const char *what;
    } attrs[] = {
        { CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, &d->sms, "MULTIPROCESSOR_COUNT" },
        { CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, &d->cc_major, "COMPUTE_CAPABILITY_MAJOR" },
        { CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, &d->cc_minor, "COMPUTE_CAPABILITY_MINOR" },
    };
    for (size_t i = 0; i < sizeof attrs / sizeof attrs[0]; i++) {
        r = drv->cuDeviceGetAttribute(attrs[i].value, attrs[i].attr, d->dev);
        if (r != CUDA_SUCCESS) {
            drv->cuDevicePrimaryCtxRelease(d->dev);
            return ufn_cudrv_fail(drv, r, "cuDeviceGetAttribute(%s, device %d)", attrs[i].what,
                                  d->ordinal);
        }
    }
    if (d->sms < 1)
        d->sms = 1;
    return 0;
}

int cuda_device_get(cuda_backend *b, int ordinal, cuda_device **dev)
{
    if (ordinal < 0 || ordinal >= b->ndev)
        return ufn_fail(UFN_ERR_NO_DEVICE, "no %s device %d: there %s %d (0 to %d)",
                        b->drv->name, ordinal, b->ndev == 1 ? "is" : "are", b->ndev,
                        b->ndev - 1);
    cuda_device *d = &b->devs[ordinal];
    if (!__atomic_load_n(&d->ready, __ATOMIC_ACQUIRE)) {
        pthread_mutex_lock(&b->lock);
        int status = 0;
        if (!d->ready) {
            status = device_init(b, d);
            if (status == 0)
                __atomic_store_n(&d->ready, true, __ATOMIC_RELEASE);
        }
        pthread_mutex_unlock(&b->lock);
        if (status != 0)
            return status;
    }
    *dev = d;
    return 0;
}

int cuda_enter(cuda_backend *b, cuda_device *d)
{
    CUresult r = b->drv->cuCtxPushCurrent(d->ctx);
    if (r != CUDA_SUCCESS)
        return ufn_cudrv_fail(b->drv, r, "cuCtxPushCurrent(device %d)", d->ordinal);
    return 0;
}

void cuda_leave(cuda_backend *b)
{
    CUcontext ignored;
    b->drv->cuCtxPopCurrent(&ignored);
}

/* Look the device up and make its context current. */
static int enter_device(cuda_backend *b, int ordinal, cuda_device **dev)
{
    int status = cuda_device_get(b, ordinal, dev);
    return status ? status : cuda_enter(b, *dev);
}

/* ---- modules and kernels ------------------------------------------------------------ */

/* Is r the driver saying the module has no code for this GPU?  With lazy
 * loading (the default since CUDA 12.2) that shows when a kernel is first
 * resolved, not when the library is loaded. */
static bool no_binary(CUresult r)
{
    return r == CUDA_ERROR_NO_BINARY_FOR_GPU || r == CUDA_ERROR_UNSUPPORTED_PTX_VERSION ||
           r == CUDA_ERROR_INVALID_PTX;
}

static int no_binary_failure(cuda_backend *b, cuda_device *d, const ufn_module *m, CUresult r,
                             const char *call)
{
    const ufn_cudrv *drv = b->drv;
    return ufn_fail(UFN_ERR_NO_CODE,
                    "module '%s' has no code device %d (%s, sm_%d%d) can run: %s failed: %s "
                    "(%s); rebuild it with ufnc --arch=sm_%d%d, or update the driver so that "
                    "it can compile the module's PTX",
                    m->name ? m->name : "(unnamed)", d->ordinal, d->name, d->cc_major,
                    d->cc_minor, call, ufn_cudrv_error_name(drv, r), ufn_cudrv_error_text(drv, r),
                    d->cc_major, d->cc_minor);
}

static int load_module(cuda_backend *b, cuda_device *d, const ufn_module *m,
                       cuda_modstate **out)
{
    const ufn_cudrv *drv = b->drv;
    const char *name = m->name ? m->name : "(unnamed)";
    if (m->abi_version != UFN_ABI_VERSION)
        return ufn_fail(UFN_ERR_INVALID,
                        "module '%s' was built for runtime ABI %d, this libufnrt has ABI %d: "
                        "rebuild it with this version of ufnc",
                        name, m->abi_version, UFN_ABI_VERSION);
    const void *image = drv->sim ? (const void *)m : (const void *)m->fatbin;
    if (drv->sim ? !m->sim_kernels : !m->fatbin)
        return ufn_fail(UFN_ERR_NO_CODE,
                        "module '%s' was built without %s code: compile it with "
                        "ufnc --target=%s (the default, --target=cuda,host,sim, has it)",
                        name, drv->sim ? "simulator" : "CUDA device", drv->sim ? "sim" : "cuda");
    cuda_modstate *ms = calloc(1, sizeof *ms);
    if (!ms)
        return ufn_fail(UFN_ERR_NOMEM, "out of memory loading module '%s'", name);
    CUresult r = drv->cuLibraryLoadData(&ms->lib, image, NULL, NULL, 0, NULL, NULL, 0);
    if (r != CUDA_SUCCESS) {
        free(ms);
        if (no_binary(r))
            return no_binary_failure(b, d, m, r, "cuLibraryLoadData");
        return ufn_cudrv_fail(drv, r, "cuLibraryLoadData(module '%s')", name);
    }
    ms->backend = b;
    *out = ms;
    return 0;
}

static int resolve_kernel(cuda_backend *b, cuda_device *d, cuda_modstate *ms,
                          const ufn_module *m, const char *name, cuda_kernel **out)
{
    const ufn_cudrv *drv = b->drv;
    CUkernel kernel;
    CUresult r = drv->cuLibraryGetKernel(&kernel, ms->lib, name);
    if (no_binary(r))
        return no_binary_failure(b, d, m, r, "cuLibraryGetKernel");
    if (r == CUDA_ERROR_NOT_FOUND)
        return ufn_fail(UFN_ERR_NO_CODE, "module '%s' has no kernel %s in its %s code",
                        m->name ? m->name : "(unnamed)", name,
                        drv->sim ? "simulator" : "device");
    if (r != CUDA_SUCCESS)
        return ufn_cudrv_fail(drv, r, "cuLibraryGetKernel(%s)", name);
    cuda_kernel *k = calloc(1, sizeof *k);
    if (!k)
        return ufn_fail(UFN_ERR_NOMEM, "out of memory resolving kernel %s", name);
    k->name = name;
    k->device = d->ordinal;
    r = drv->cuKernelGetFunction(&k->fn, kernel);
    if (r != CUDA_SUCCESS) {
        free(k);
        if (no_binary(r))
            return no_binary_failure(b, d, m, r, "cuKernelGetFunction");
        return ufn_cudrv_fail(drv, r, "cuKernelGetFunction(%s, device %d)", name, d->ordinal);
    }
    /* Launch configuration, once per kernel and device: the block size that
     * maximises occupancy (generated kernels allow 256 at most), and a grid
     * of two waves of resident blocks for the grid-stride loops. */
    int min_grid = 0, block = 0, per_sm = 0;
    r = drv->cuOccupancyMaxPotentialBlockSize(&min_grid, &block, k->fn, NULL, 0, UFN_BLOCK_MAX);
    if (r == CUDA_SUCCESS) {
        if (block < 1 || block > UFN_BLOCK_MAX)
            block = UFN_BLOCK_MAX;
        r = drv->cuOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k->fn, block, 0);
    }
    if (r != CUDA_SUCCESS) {
        free(k);
        return ufn_cudrv_fail(drv, r, "occupancy query of %s (device %d)", name, d->ordinal);
    }
    k->block = block;
    uint64_t grid = (uint64_t)d->sms * (uint64_t)(per_sm > 0 ? per_sm : 1) * 2;
    k->max_grid = grid > 0x7fffffffu ? 0x7fffffffu : (unsigned)grid;
    *out = k;
    return 0;
}

int cuda_kernel_get(cuda_backend *b, cuda_device *d, const ufn_module *module,
                    const char *name, cuda_kernel **kernel)
{
    if (!module)
        return ufn_fail(UFN_ERR_INVALID, "a ufunc without a module");
    if (!name)
        return ufn_fail(UFN_ERR_NO_CODE,
                        "module '%s' has no %s kernel for this signature: compile it with "
                        "ufnc --target=%s",
                        module->name ? module->name : "(unnamed)", b->drv->name,
                        b->drv->sim ? "sim" : "cuda");
    pthread_mutex_lock(&modules_lock);
    int status = 0;
    cuda_modstate *ms = module->state;
    while (ms && ms->backend != b)
        ms = ms->next;
    if (!ms) {
        status = load_module(b, d, module, &ms);
        if (status == 0) {
            ms->next = module->state;
            ((ufn_module *)module)->state = ms;
        }
    }
    cuda_kernel *k = NULL;
    if (status == 0) {
        for (k = ms->kernels; k; k = k->next)
            if (k->device == d->ordinal && (k->name == name || strcmp(k->name, name) == 0))
                break;
        if (!k) {
            status = resolve_kernel(b, d, ms, module, name, &k);
            if (status == 0) {
                k->next = ms->kernels;
                ms->kernels = k;
            }
        }
    }
    pthread_mutex_unlock(&modules_lock);
    if (status == 0)
        *kernel = k;
    return status;
}

/* ---- streams ------------------------------------------------------------------------- */

int cuda_stream_of(cuda_backend *b, ufn_stream s, int device, CUstream *out)
{
    *out = NULL;
    if (!s)
        return 0;
    if (s->backend != &b->ops || !s->handle)
        return ufn_fail(UFN_ERR_INVALID, "a stream of the %s backend used with the %s backend",
                        s->backend ? s->backend->name : "(no)", b->drv->name);
    cuda_stream *cs = s->handle;
    if (cs->device != device)
        return ufn_fail(UFN_ERR_INVALID, "a stream of %s device %d used on device %d",
                        b->drv->name, cs->device, device);
    *out = cs->cu;
    return 0;
}

static int op_stream_create(cuda_backend *b, ufn_stream s)
{
    cuda_device *d;
    int status = enter_device(b, b->current, &d);
    if (status)
        return status;
    cuda_stream *cs = malloc(sizeof *cs);
    if (!cs) {
        cuda_leave(b);
        return ufn_fail(UFN_ERR_NOMEM, "out of memory creating a stream");
    }
    CUresult r = b->drv->cuStreamCreate(&cs->cu, CU_STREAM_DEFAULT);
    cuda_leave(b);
    if (r != CUDA_SUCCESS) {
        free(cs);
        return ufn_cudrv_fail(b->drv, r, "cuStreamCreate");
    }
    cs->device = d->ordinal;
    s->handle = cs;
    return 0;
}

static int op_stream_destroy(cuda_backend *b, ufn_stream s)
{
    if (!s || !s->handle)
        return 0;
    if (s->backend != &b->ops)
        return ufn_fail(UFN_ERR_INVALID, "a stream of the %s backend destroyed by the %s backend",
                        s->backend ? s->backend->name : "(no)", b->drv->name);
    cuda_stream *cs = s->handle;
    cuda_device *d;
    int status = enter_device(b, cs->device, &d);
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

static int op_stream_synchronize(cuda_backend *b, ufn_stream s)
{
    if (s && s->backend != &b->ops)
        return ufn_fail(UFN_ERR_INVALID, "a stream of the %s backend used with the %s backend",
                        s->backend ? s->backend->name : "(no)", b->drv->name);
    int device = s && s->handle ? ((cuda_stream *)s->handle)->device : b->current;
    cuda_device *d;
    int status = enter_device(b, device, &d);
    if (status)
        return status;
    CUstream cu;
    status = cuda_stream_of(b, s, device, &cu);
    if (status == 0) {
        CUresult r = b->drv->cuStreamSynchronize(cu);
        if (r != CUDA_SUCCESS)
            status = ufn_cudrv_fail(b->drv, r, "cuStreamSynchronize");
    }
    cuda_leave(b);
    if (status == 0)
        cuda_trace(b, UFN_EV_SYNC, NULL, 0, device);
    return status;
}

static int op_synchronize(cuda_backend *b)
{
    for (int i = 0; i < b->ndev; i++) {
        cuda_device *d = &b->devs[i];
        if (!__atomic_load_n(&d->ready, __ATOMIC_ACQUIRE))
            continue;
        int status = cuda_enter(b, d);
        if (status)
            return status;
        CUresult r = b->drv->cuCtxSynchronize();
        cuda_leave(b);
        if (r != CUDA_SUCCESS)
            return ufn_cudrv_fail(b->drv, r, "cuCtxSynchronize(device %d)", i);
        cuda_trace(b, UFN_EV_SYNC, NULL, 0, i);
    }
    return 0;
}

/* ---- memory operations ------------------------------------------------------------------ */

static int op_alloc(cuda_backend *b, int device, size_t bytes, void **ptr)
{
    cuda_device *d;
    int status = enter_device(b, device, &d);
    if (status)
        return status;
    CUdeviceptr p = 0;
    status = cuda_cache_alloc(b, d, bytes, &p);
    cuda_leave(b);
    if (status == 0)
        *ptr = (void *)(uintptr_t)p;
    return status;
}

static void op_free(cuda_backend *b, int device, void *ptr)
{
    cuda_device *d;
    if (!ptr || enter_device(b, device, &d) != 0)
        return;
    cuda_cache_free(b, d, (CUdeviceptr)(uintptr_t)ptr);
    cuda_leave(b);
}

static int op_copy(cuda_backend *b, ufn_event_kind kind, int device, void *dst, const void *src,
                   size_t bytes, ufn_stream s)
{
    cuda_device *d;
    int status = enter_device(b, device, &d);
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
            CUresult r = b->drv->cuMemcpyDtoDAsync((CUdeviceptr)(uintptr_t)dst,
                                                   (CUdeviceptr)(uintptr_t)src, bytes, cu);
            if (r != CUDA_SUCCESS)
                status = ufn_cudrv_fail(b->drv, r, "cuMemcpyDtoDAsync(%zu bytes)", bytes);
            else
                cuda_trace(b, UFN_EV_D2D, NULL, bytes, device);
        }
    }
    cuda_leave(b);
    return status;
}

static int op_execute(cuda_backend *b, const ufn_plan *plan, ufn_stream s)
{
    if (!plan)
        return ufn_fail(UFN_ERR_INVALID, "no plan");
    if (plan->memory == UFN_MEM_DEVICE)
        return cuda_execute_device(b, plan, s);
    if (plan->memory == UFN_MEM_HOST)
        return cuda_execute_host(b, plan);
    return ufn_fail(UFN_ERR_WRONG_MEMORY, "%s: operands in no known memory",
                    plan->func && plan->func->name ? plan->func->name : "ufunc");
}

/* ---- the operations tables ----------------------------------------------------------------
 * The table's functions take no backend argument, so each backend gets its
 * own small forwarding functions. */

static int cuda_count(void) { return cuda_state.ndev; }
static int cuda_default(void) { return cuda_state.current; }
static int cuda_alloc(int dev, size_t n, void **p) { return op_alloc(&cuda_state, dev, n, p); }
static void cuda_free(int dev, void *p) { op_free(&cuda_state, dev, p); }
static int cuda_h2d(int dev, void *dst, const void *src, size_t n, ufn_stream s)
{
    return op_copy(&cuda_state, UFN_EV_H2D, dev, dst, src, n, s);
}
static int cuda_d2h(int dev, void *dst, const void *src, size_t n, ufn_stream s)
{
    return op_copy(&cuda_state, UFN_EV_D2H, dev, dst, src, n, s);
}
static int cuda_d2d(int dev, void *dst, const void *src, size_t n, ufn_stream s)
{
    return op_copy(&cuda_state, UFN_EV_D2D, dev, dst, src, n, s);
}
static int cuda_execute(const ufn_plan *p, ufn_stream s) { return op_execute(&cuda_state, p, s); }
static int cuda_screate(ufn_stream s) { return op_stream_create(&cuda_state, s); }
static int cuda_sdestroy(ufn_stream s) { return op_stream_destroy(&cuda_state, s); }
static int cuda_ssync(ufn_stream s) { return op_stream_synchronize(&cuda_state, s); }
static int cuda_sync(void) { return op_synchronize(&cuda_state); }

/* One function each for both tables: the table is the first member of its
 * cuda_backend (cuda_kernel.c checks). */
static int klimits(const ufn_backend_ops *be, int dev, ufn_klimits *out)
{
    return cuda_kernel_limits((cuda_backend *)be, dev, out);
}
static int klaunch(const ufn_backend_ops *be, const ufn_kplan *p, ufn_stream s)
{
    return cuda_launch_kernel((cuda_backend *)be, p, s);
}

static int sim_count(void) { return sim_state.ndev; }
static int sim_default(void) { return sim_state.current; }
static int sim_alloc(int dev, size_t n, void **p) { return op_alloc(&sim_state, dev, n, p); }
static void sim_free(int dev, void *p) { op_free(&sim_state, dev, p); }
static int sim_h2d(int dev, void *dst, const void *src, size_t n, ufn_stream s)
{
    return op_copy(&sim_state, UFN_EV_H2D, dev, dst, src, n, s);
}
static int sim_d2h(int dev, void *dst, const void *src, size_t n, ufn_stream s)
{
    return op_copy(&sim_state, UFN_EV_D2H, dev, dst, src, n, s);
}
static int sim_d2d(int dev, void *dst, const void *src, size_t n, ufn_stream s)
{
    return op_copy(&sim_state, UFN_EV_D2D, dev, dst, src, n, s);
}
static int sim_execute(const ufn_plan *p, ufn_stream s) { return op_execute(&sim_state, p, s); }
static int sim_screate(ufn_stream s) { return op_stream_create(&sim_state, s); }
static int sim_sdestroy(ufn_stream s) { return op_stream_destroy(&sim_state, s); }
static int sim_ssync(ufn_stream s) { return op_stream_synchronize(&sim_state, s); }
static int sim_sync(void) { return op_synchronize(&sim_state); }

static const ufn_backend_ops cuda_ops = {
    .name = "cuda",
    .device_memory = UFN_MEM_DEVICE,
    .device_count = cuda_count,
    .default_device = cuda_default,
    .alloc = cuda_alloc,
    .free = cuda_free,
    .copy_h2d = cuda_h2d,
    .copy_d2h = cuda_d2h,
    .copy_d2d = cuda_d2d,
    .execute = cuda_execute,
    .stream_create = cuda_screate,
    .stream_destroy = cuda_sdestroy,
    .stream_synchronize = cuda_ssync,
    .synchronize = cuda_sync,
    .kernel_limits = klimits,
    .launch_kernel = klaunch,
};

static const ufn_backend_ops sim_ops = {
    .name = "sim",
    .device_memory = UFN_MEM_DEVICE,
    .device_count = sim_count,
    .default_device = sim_default,
    .alloc = sim_alloc,
    .free = sim_free,
    .copy_h2d = sim_h2d,
    .copy_d2h = sim_d2h,
    .copy_d2d = sim_d2d,
    .execute = sim_execute,
    .stream_create = sim_screate,
    .stream_destroy = sim_sdestroy,
    .stream_synchronize = sim_ssync,
    .synchronize = sim_sync,
    .kernel_limits = klimits,
    .launch_kernel = klaunch,
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

static int start(cuda_backend *b, const ufn_cudrv *drv, const ufn_backend_ops *ops)
{
    b->drv = drv;
    b->ops = *ops;
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
}

static void start_cuda(void)
{
    int status = ufn_cudrv_load(&real_driver);
    if (status == 0)
        status = start(&cuda_state, &real_driver, &cuda_ops);
    finish(&cuda_state, status);
}

static void start_sim(void)
{
    finish(&sim_state, start(&sim_state, ufn_sim_driver(), &sim_ops));
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

const ufn_backend_ops *ufn_sim_backend(void)
{
    pthread_once(&sim_once, start_sim);
    if (sim_state.status)
        return ufn_fail(sim_state.status, "%s", sim_state.message), NULL;
    return &sim_state.ops;
}
