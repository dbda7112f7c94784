/* cuda_device.c - the CUDA backend's bottom layer: devices, their primary
 * contexts, modules and kernels, streams, and the trace helper.
 *
 * Everything the operations above (cuda_alloc.c, cuda_launch.c,
 * cuda_stage.c, backend_cuda.c) share about the driver's objects lives here,
 * and calls nothing above it:
 *   devices   initialised on first use (the primary context retained, the
 *             attributes read), thread-safe
 *   contexts  entered (pushed) around every group of driver calls
 *   modules   loaded once per backend on first use; their kernels resolved
 *             once per device, with the launch configuration
 *   streams   a ufn_stream's CUstream, checked against the device
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cudrv.h"

/* Guards every module's state list (both backends share module->state). */
static pthread_mutex_t modules_lock = PTHREAD_MUTEX_INITIALIZER;

/* What a module's `state` points to: one entry per backend that loaded it. */
typedef struct cuda_modstate {
    struct cuda_modstate *next;
    const cuda_backend *backend;
    CUlibrary lib;
    cuda_kernel *kernels;       /* resolved per device, on first use */
} cuda_modstate;

void cuda_trace_since(cuda_backend *b, ufn_event_kind kind, const char *name, size_t bytes,
                      int device, uint64_t start_ns)
{
    ufn_emit_since(kind, b->drv->name, name, bytes, device, start_ns);
}

void cuda_trace(cuda_backend *b, ufn_event_kind kind, const char *name, size_t bytes, int device)
{
    cuda_trace_since(b, kind, name, bytes, device, 0);
}

/* ---- devices and contexts ------------------------------------------------------ */

static int device_init(cuda_backend *b, cuda_device *d)
{
    const ufn_cudrv *drv = b->drv;
    CUresult r = drv->cuDeviceGet(&d->dev, d->ordinal);
    if (r != CUDA_SUCCESS)
        return ufn_cudrv_fail(drv, r, "cuDeviceGet(%d)", d->ordinal);
    d->ctx = NULL;
    r = drv->cuDevicePrimaryCtxRetain(&d->ctx, d->dev);
    if (r == CUDA_SUCCESS && !d->ctx)
        r = UFN_CUDA_NO_RESULT;
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

int cuda_enter_device(cuda_backend *b, int ordinal, cuda_device **dev)
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

void cuda_modules_fork(ufn_fork_phase phase)
{
    if (phase == UFN_FORK_PREPARE)
        pthread_mutex_lock(&modules_lock);
    else
        pthread_mutex_unlock(&modules_lock);
}

int cuda_module_check(cuda_backend *b, const ufn_module *m)
{
    const ufn_cudrv *drv = b->drv;
    if (drv->sim || !m || !m->fatbin)
        return 0;
    int built = ufn_fatbin_toolkit(m->fatbin, m->fatbin_size);
    if (built == 0 || drv->version / 1000 >= built / 1000)
        return 0;
    return ufn_fail(UFN_ERR_NO_DRIVER,
                    "module '%s' was built by CUDA %d.%d, and the CUDA driver is %d.%d, which runs "
                    "code of CUDA %d and older: update the NVIDIA driver, or build the module "
                    "with a CUDA %d toolkit",
                    m->name ? m->name : "(unnamed)", built / 1000, built % 1000 / 10,
                    drv->version / 1000, drv->version % 1000 / 10, drv->version / 1000,
                    drv->version / 1000);
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
    int status = cuda_module_check(b, m);
    if (status)
        return status;
    cuda_modstate *ms = calloc(1, sizeof *ms);
    if (!ms)
        return ufn_fail(UFN_ERR_NOMEM, "out of memory loading module '%s'", name);
    CUresult r = drv->cuLibraryLoadData(&ms->lib, image, NULL, NULL, 0, NULL, NULL, 0);
    if (r == CUDA_SUCCESS && !ms->lib)
        r = UFN_CUDA_NO_RESULT;
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
    CUkernel kernel = NULL;
    CUresult r = drv->cuLibraryGetKernel(&kernel, ms->lib, name);
    if (r == CUDA_SUCCESS && !kernel)
        r = UFN_CUDA_NO_RESULT;
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
    if (r == CUDA_SUCCESS && !k->fn)
        r = UFN_CUDA_NO_RESULT;
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

/* A module with recursive helpers (ufn_abi.h, "recursion"): a stack deep
 * enough for UFN_MAX_DEPTH calls on this device (raised, never lowered; the
 * driver reserves it for every thread that can be resident), and the
 * module's ufn_depth_flag, which launches of k report a call too deep in. */
static int prepare_recursion(cuda_backend *b, cuda_device *d, cuda_modstate *ms,
                             const ufn_module *m, cuda_kernel *k)
{
    const ufn_cudrv *drv = b->drv;
    size_t need = (size_t)UFN_MAX_DEPTH * m->recursion_frame + 1024, have = 0;
    CUresult r = drv->cuCtxGetLimit(&have, CU_LIMIT_STACK_SIZE);
    if (r == CUDA_SUCCESS && have < need)
        r = drv->cuCtxSetLimit(CU_LIMIT_STACK_SIZE, need);
    if (r != CUDA_SUCCESS)
        return ufn_cudrv_fail(drv, r, "cuCtxSetLimit(CU_LIMIT_STACK_SIZE, %zu bytes) for the "
                              "recursive helpers of module '%s' on device %d", need,
                              m->name ? m->name : "(unnamed)", d->ordinal);
    size_t bytes = 0;
    r = drv->cuLibraryGetGlobal(&k->depth_flag, &bytes, ms->lib, "ufn_depth_flag");
    if (r == CUDA_SUCCESS && (!k->depth_flag || bytes < sizeof(unsigned)))
        r = UFN_CUDA_NO_RESULT;
    if (r != CUDA_SUCCESS)
        return ufn_cudrv_fail(drv, r, "cuLibraryGetGlobal(ufn_depth_flag) of module '%s'",
                              m->name ? m->name : "(unnamed)");
    return 0;
}

int cuda_depth_check(cuda_backend *b, const cuda_kernel *k, CUstream stream, const char *name)
{
    if (!k->depth_flag)
        return 0;
    const ufn_cudrv *drv = b->drv;
    unsigned flag = 0;
    /* into pageable memory: the copy returns when done */
    CUresult r = drv->cuStreamSynchronize(stream);
    if (r == CUDA_SUCCESS)
        r = drv->cuMemcpyDtoHAsync(&flag, k->depth_flag, sizeof flag, stream);
    if (r == CUDA_SUCCESS && flag) {
        /* From pageable memory the copy returns once the driver holds the
         * value, not once it is written: wait for it, or a launch queued
         * next on a stream that does not wait for this one (the staging
         * ring's) may set the flag before the clear lands, and lose it. */
        const unsigned zero = 0;
        r = drv->cuMemcpyHtoDAsync(k->depth_flag, &zero, sizeof zero, stream);
        if (r == CUDA_SUCCESS)
            r = drv->cuStreamSynchronize(stream);
    }
    if (r != CUDA_SUCCESS)
        return ufn_cudrv_fail(drv, r, "reading ufn_depth_flag after %s", name);
    if (flag)
        return ufn_fail(UFN_ERR_RECURSION, "%s: a recursive helper went deeper than %d calls",
                        name, UFN_MAX_DEPTH);
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
            if (status == 0 && module->recursion_frame &&
                (status = prepare_recursion(b, d, ms, module, k)) != 0)
                free(k);
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

int cuda_stream_of(cuda_backend *b, ufn_stream_impl *s, int device, CUstream *out)
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

