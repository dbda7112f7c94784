/* sim.c - the CUDA simulator: the driver table implemented on the CPU.
 *
 * The backend above cannot tell it from libcuda.so.1, so a machine without a
 * GPU runs, debugs and tests the GPU path: allocations, copies, streams,
 * launch configuration.  The simulator is strict where a bug in the backend
 * would go unnoticed on the CPU: calls that need a context fail without one,
 * copies must stay inside device allocations, handles are checked, and
 * launches the real driver would refuse are refused with its error codes.
 *
 *   devices    UFN_SIM_DEVICES of them (default 2), each with UFN_SIM_MEMORY
 *              bytes (default 4G) and the attributes of an A100-like GPU
 *   memory     device memory is host memory, 256-byte aligned, filled with
 *              0xA5 when allocated (uninitialised reads show up in tests)
 *   streams    as asynchronous as a GPU (queue.c): each stream's copies,
 *              launches and event records run on a thread of its own, in
 *              order, after the call that queued them has returned; a copy
 *              from pageable host memory reads it when queued (the driver
 *              stages it), one from or to page-locked memory (cuMemAllocHost)
 *              when it runs, and a copy to pageable memory returns when done
 *   kernels    the image of cuLibraryLoadData is the ufn_module itself; a
 *              launch copies its parameters (their sizes are in the module's
 *              kernel table) and, when its turn comes, runs the grid block by
 *              block through the thread engine (grid.c, simt.c): thread after
 *              thread, or as fibers for kernels with barriers or warp
 *              functions, with shared memory per block and the checks of
 *              compute-sanitizer unless UFN_SIM_CHECK=0.  A check that fails
 *              stops the launch; the next call that waits for the device
 *              returns CUDA_ERROR_ILLEGAL_ADDRESS (an index out of bounds) or
 *              CUDA_ERROR_LAUNCH_FAILED (a race, a barrier), once, and leaves
 *              the check's report for the backend (the table's sim_report).
 *              Unlike a GPU's, the context survives the fault.
 *
 * Files: state.c (the state, what every entry checks), memory.c (memory and
 * copies), library.c (libraries, kernels, launches), queue.c (streams and
 * events), grid.c (running a grid), graph.c (stream capture, graphs); this one has the configuration,
 * devices, contexts, streams and events, errors, the table and the hooks.
 *
 * Test hooks (cudrv.h): statistics, a memory limit, a latency that holds
 * every operation back (so that a missing synchronisation shows), and a
 * failure injected into one driver call.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simrt.h"

/* ---- configuration ---------------------------------------------------------------- */

static bool parse_size(const char *s, size_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (end == s || errno || *s == '-')
        return false;
    unsigned shift = 0;
    switch (*end) {
    case 'k': case 'K': shift = 10; end++; break;
    case 'm': case 'M': shift = 20; end++; break;
    case 'g': case 'G': shift = 30; end++; break;
    case 't': case 'T': shift = 40; end++; break;
    default: break;
    }
    if (*end == 'B' || *end == 'b')
        end++;
    if (*end || v > (SIZE_MAX >> shift))
        return false;
    *out = (size_t)v << shift;
    return true;
}

static void configure(void)
{
    ufn_sim.init = CUDA_SUCCESS;
    ufn_sim.ndev = 2;
    size_t memory = SIM_DEFAULT_MEMORY;
    const char *env = getenv("UFN_SIM_DEVICES");
    if (env && *env) {
        char *end;
        long n = strtol(env, &end, 10);
        if (*end || n < 0 || n > SIM_MAX_DEVICES) {
            snprintf(ufn_sim.config_error, sizeof ufn_sim.config_error,
                     "UFN_SIM_DEVICES=%s is not a number of simulated devices (0 to %d)", env,
                     SIM_MAX_DEVICES);
            ufn_sim.init = CUDA_ERROR_INVALID_VALUE;
            return;
        }
        ufn_sim.ndev = (int)n;
    }
    env = getenv("UFN_SIM_CHECK");
    ufn_sim.checks = true;
    if (env && *env) {
        if (strcmp(env, "0") != 0 && strcmp(env, "1") != 0) {
            snprintf(ufn_sim.config_error, sizeof ufn_sim.config_error,
                     "UFN_SIM_CHECK=%s is neither 1 (check kernels, the default) nor 0", env);
            ufn_sim.init = CUDA_ERROR_INVALID_VALUE;
            return;
        }
        ufn_sim.checks = env[0] == '1';
    }
    env = getenv("UFN_SIM_MEMORY");
    if (env && *env && !parse_size(env, &memory)) {
        snprintf(ufn_sim.config_error, sizeof ufn_sim.config_error,
                 "UFN_SIM_MEMORY=%s is not a number of bytes (e.g. 1048576, 512M, 4G)", env);
        ufn_sim.init = CUDA_ERROR_INVALID_VALUE;
        return;
    }
    env = getenv("UFN_SIM_LATENCY");
    if (env && *env) {
        char *end;
        errno = 0;
        unsigned long long us = strtoull(env, &end, 10);
        if (*end || errno || *env == '-' || us > 10000000) {
            snprintf(ufn_sim.config_error, sizeof ufn_sim.config_error,
                     "UFN_SIM_LATENCY=%s is not a number of microseconds (0 to 10000000)", env);
            ufn_sim.init = CUDA_ERROR_INVALID_VALUE;
            return;
        }
        sq_set_latency_ns((uint64_t)us * 1000);
    }
    for (int i = 0; i < ufn_sim.ndev; i++) {
        ufn_sim.dev[i].ctx.device = i;
        ufn_sim.dev[i].limit = memory;
        ufn_sim.dev[i].stack = 1024;   /* the driver's default */
    }
    ufn_sim.ready = true;
}

const char *ufn_sim_config_error(void)
{
    return ufn_sim.config_error[0] ? ufn_sim.config_error : NULL;
}

/* ---- initialisation and devices ------------------------------------------------------ */

static CUresult sim_init(unsigned flags)
{
    if (flags != 0)
        return CUDA_ERROR_INVALID_VALUE;
    pthread_once(&ufn_sim.once, configure);
    return ufn_sim.init;
}

static CUresult sim_driver_version(int *version)
{
    if (!version)
        return CUDA_ERROR_INVALID_VALUE;
    *version = 13000;
    return CUDA_SUCCESS;
}

static CUresult sim_device_count(int *count)
{
    REQUIRE_INIT();
    if (!count)
        return CUDA_ERROR_INVALID_VALUE;
    *count = ufn_sim.ndev;
    return CUDA_SUCCESS;
}

static CUresult sim_device_get(CUdevice *dev, int ordinal)
{
    REQUIRE_INIT();
    if (!dev)
        return CUDA_ERROR_INVALID_VALUE;
    if (ordinal < 0 || ordinal >= ufn_sim.ndev)
        return CUDA_ERROR_INVALID_DEVICE;
    *dev = ordinal;
    return CUDA_SUCCESS;
}

static CUresult sim_device_attribute(int *value, CUdevice_attribute attr, CUdevice dev)
{
    REQUIRE_INIT();
    if (!value)
        return CUDA_ERROR_INVALID_VALUE;
    if (dev < 0 || dev >= ufn_sim.ndev)
        return CUDA_ERROR_INVALID_DEVICE;
    switch (attr) {
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *value = SIM_MAX_BLOCK; break;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X: *value = SIM_MAX_BLOCK; break;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y: *value = SIM_MAX_BLOCK; break;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z: *value = 64; break;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X: *value = 0x7fffffff; break;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y: *value = 65535; break;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z: *value = 65535; break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK: *value = SIM_SHARED; break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: *value = SIM_SHARED_OPTIN; break;
    case CU_DEVICE_ATTRIBUTE_WARP_SIZE: *value = 32; break;
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: *value = SIM_SMS; break;
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR: *value = SIM_THREADS_PER_SM; break;
    case CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE: *value = SIM_L2_BYTES; break;
    case CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT: *value = 2; break;
    case CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING: *value = 1; break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *value = 8; break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: *value = 0; break;
    default: return CUDA_ERROR_INVALID_VALUE;
    }
    return CUDA_SUCCESS;
}

static CUresult sim_device_name(char *name, int len, CUdevice dev)
{
    REQUIRE_INIT();
    if (!name || len <= 0)
        return CUDA_ERROR_INVALID_VALUE;
    if (dev < 0 || dev >= ufn_sim.ndev)
        return CUDA_ERROR_INVALID_DEVICE;
    snprintf(name, (size_t)len, "ufn simulated GPU %d", dev);
    return CUDA_SUCCESS;
}

/* ---- contexts ---------------------------------------------------------------------- */

static CUresult sim_primary_retain(CUcontext *ctx, CUdevice dev)
{
    REQUIRE_INIT();
    if (!ctx)
        return CUDA_ERROR_INVALID_VALUE;
    if (dev < 0 || dev >= ufn_sim.ndev)
        return CUDA_ERROR_INVALID_DEVICE;
    pthread_mutex_lock(&ufn_sim.lock);
    ufn_sim.dev[dev].ctx.refs++;
    pthread_mutex_unlock(&ufn_sim.lock);
    *ctx = &ufn_sim.dev[dev].ctx;
    return CUDA_SUCCESS;
}

static CUresult sim_primary_release(CUdevice dev)
{
    REQUIRE_INIT();
    if (dev < 0 || dev >= ufn_sim.ndev)
        return CUDA_ERROR_INVALID_DEVICE;
    CUresult r = CUDA_SUCCESS;
    pthread_mutex_lock(&ufn_sim.lock);
    if (ufn_sim.dev[dev].ctx.refs > 0)
        ufn_sim.dev[dev].ctx.refs--;
    else
        r = CUDA_ERROR_INVALID_CONTEXT;
    pthread_mutex_unlock(&ufn_sim.lock);
    return r;
}

static CUresult sim_ctx_synchronize(void)
{
    REQUIRE_CONTEXT(dev);
    CUresult r = sq_capture_refuse_device(dev);
    if (r != CUDA_SUCCESS)
        return r;
    sq_device_sync(dev);
    return sim_fault_take(dev);
}

static CUresult sim_ctx_set_limit(CUlimit limit, size_t value)
{
    REQUIRE_CONTEXT(dev);
    if (limit != CU_LIMIT_STACK_SIZE)
        return CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&ufn_sim.lock);
    ufn_sim.dev[dev].stack = value;
    pthread_mutex_unlock(&ufn_sim.lock);
    return CUDA_SUCCESS;
}

static CUresult sim_ctx_get_limit(size_t *value, CUlimit limit)
{
    REQUIRE_CONTEXT(dev);
    if (!value || limit != CU_LIMIT_STACK_SIZE)
        return CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&ufn_sim.lock);
    *value = ufn_sim.dev[dev].stack;
    pthread_mutex_unlock(&ufn_sim.lock);
    return CUDA_SUCCESS;
}

/* ---- streams and events (queue.c runs them) ------------------------------------------------ */

static CUresult sim_stream_create(CUstream *s, unsigned flags)
{
    REQUIRE_CONTEXT(dev);
    if (!s || flags > CU_STREAM_NON_BLOCKING)
        return CUDA_ERROR_INVALID_VALUE;
    INJECT("cuStreamCreate");
    return sq_stream_new(dev, flags, s);
}

static CUresult sim_stream_destroy(CUstream s)
{
    REQUIRE_INIT();
    if (!s || s->tag != TAG_STREAM)
        return CUDA_ERROR_INVALID_HANDLE;
    sq_stream_release(s);   /* its queued work still runs */
    return CUDA_SUCCESS;
}

/* A stream's context: its device's primary one (the simulator has no other);
 * the legacy stream's is the current context. */
static CUresult sim_stream_get_ctx(CUstream s, CUcontext *ctx)
{
    REQUIRE_CONTEXT(dev);
    if (!ctx)
        return CUDA_ERROR_INVALID_VALUE;
    if (s && s->tag != TAG_STREAM)
        return CUDA_ERROR_INVALID_HANDLE;
    *ctx = &ufn_sim.dev[s ? s->device : dev].ctx;
    return CUDA_SUCCESS;
}

static CUresult sim_stream_synchronize(CUstream s)
{
    REQUIRE_CONTEXT(dev);
    if (s && s->tag != TAG_STREAM)
        return CUDA_ERROR_INVALID_HANDLE;
    int device = s ? s->device : dev;   /* any context may wait for any stream */
    CUresult r = sq_capture_refuse(s);
    if (r != CUDA_SUCCESS)
        return r;
    sq_stream_sync(s, device);
    return sim_fault_take(device);
}

static CUresult sim_stream_wait_event(CUstream s, CUevent e, unsigned flags)
{
    REQUIRE_CONTEXT(dev);
    if (flags != 0)
        return CUDA_ERROR_INVALID_VALUE;
    if (!e || e->tag != TAG_EVENT)
        return CUDA_ERROR_INVALID_HANDLE;
    CUresult r = sim_check_stream(s, dev);
    if (r == CUDA_SUCCESS)   /* event nodes are not simulated */
        r = sq_capture_refuse(s);
    return r != CUDA_SUCCESS ? r : sq_event_wait(s, dev, e);
}

static CUresult sim_event_create(CUevent *e, unsigned flags)
{
    REQUIRE_CONTEXT(dev);
    (void)dev;
    if (!e || (flags & ~7u))   /* blocking sync, disable timing, interprocess */
        return CUDA_ERROR_INVALID_VALUE;
    INJECT("cuEventCreate");
    return sq_event_new(e);
}

static CUresult sim_event_record(CUevent e, CUstream s)
{
    REQUIRE_CONTEXT(dev);
    if (!e || e->tag != TAG_EVENT)
        return CUDA_ERROR_INVALID_HANDLE;
    CUresult r = sim_check_stream(s, dev);
    if (r == CUDA_SUCCESS)   /* event nodes are not simulated */
        r = sq_capture_refuse(s);
    if (r != CUDA_SUCCESS)
        return r;
    INJECT("cuEventRecord");
    return sq_event_record(e, s, dev);
}

static CUresult sim_event_synchronize(CUevent e)
{
    REQUIRE_INIT();
    if (!e || e->tag != TAG_EVENT)
        return CUDA_ERROR_INVALID_HANDLE;
    sq_event_sync(e);
    return sim_fault_take(sim_current_device());   /* none without a context */
}

static CUresult sim_event_destroy(CUevent e)
{
    REQUIRE_INIT();
    if (!e || e->tag != TAG_EVENT)
        return CUDA_ERROR_INVALID_HANDLE;
    sq_event_release(e);   /* freed once no queued work names it */
    return CUDA_SUCCESS;
}

/* ---- errors -------------------------------------------------------------------------------- */

static CUresult sim_error_name(CUresult r, const char **name)
{
    if (!name)
        return CUDA_ERROR_INVALID_VALUE;
    const char *s = ufn_cudrv_error_name(NULL, r);
    if (strcmp(s, "CUDA_ERROR_UNRECOGNIZED") == 0) {
        *name = NULL;
        return CUDA_ERROR_INVALID_VALUE;
    }
    *name = s;
    return CUDA_SUCCESS;
}

static CUresult sim_error_string(CUresult r, const char **text)
{
    if (!text)
        return CUDA_ERROR_INVALID_VALUE;
    const char *name;
    if (sim_error_name(r, &name) != CUDA_SUCCESS) {
        *text = NULL;
        return CUDA_ERROR_INVALID_VALUE;
    }
    *text = ufn_cudrv_error_text(NULL, r);
    return CUDA_SUCCESS;
}

/* ---- the table and test hooks ------------------------------------------------------------------ */

static const ufn_cudrv sim_driver = {
    .name = "sim",
    .sim = true,
    .version = 13000,
    .sim_report = sim_report_take,
    .cuInit = sim_init,
    .cuDriverGetVersion = sim_driver_version,
    .cuDeviceGetCount = sim_device_count,
    .cuDeviceGet = sim_device_get,
    .cuDeviceGetAttribute = sim_device_attribute,
    .cuDeviceGetName = sim_device_name,
    .cuDevicePrimaryCtxRetain = sim_primary_retain,
    .cuDevicePrimaryCtxRelease = sim_primary_release,
    .cuCtxPushCurrent = sim_ctx_push,
    .cuCtxPopCurrent = sim_ctx_pop,
    .cuCtxSynchronize = sim_ctx_synchronize,
    .cuCtxSetLimit = sim_ctx_set_limit,
    .cuCtxGetLimit = sim_ctx_get_limit,
    .cuLibraryLoadData = sim_library_load,
    .cuLibraryGetKernel = sim_library_kernel,
    .cuKernelGetFunction = sim_kernel_function,
    .cuLibraryUnload = sim_library_unload,
    .cuLibraryGetGlobal = sim_library_global,
    .cuMemAlloc = sim_mem_alloc,
    .cuMemFree = sim_mem_free,
    .cuMemAllocHost = sim_mem_alloc_host,
    .cuMemFreeHost = sim_mem_free_host,
    .cuMemGetInfo = sim_mem_info,
    .cuPointerGetAttribute = sim_pointer_attribute,
    .cuMemcpyHtoDAsync = sim_copy_h2d,
    .cuMemcpyDtoHAsync = sim_copy_d2h,
    .cuMemcpyDtoDAsync = sim_copy_d2d,
    .cuMemcpyPeerAsync = sim_copy_peer,
    .cuStreamCreate = sim_stream_create,
    .cuStreamDestroy = sim_stream_destroy,
    .cuStreamSynchronize = sim_stream_synchronize,
    .cuStreamWaitEvent = sim_stream_wait_event,
    .cuEventCreate = sim_event_create,
    .cuEventRecord = sim_event_record,
    .cuEventSynchronize = sim_event_synchronize,
    .cuEventDestroy = sim_event_destroy,
    .cuLaunchKernel = sim_launch,
    .cuOccupancyMaxPotentialBlockSize = sim_occupancy_block,
    .cuOccupancyMaxActiveBlocksPerMultiprocessor = sim_occupancy_blocks,
    .cuFuncGetAttribute = sim_func_get_attribute,
    .cuFuncSetAttribute = sim_func_set_attribute,
    .cuStreamBeginCapture = sim_begin_capture,
    .cuStreamEndCapture = sim_end_capture,
    .cuGraphInstantiate = sim_graph_instantiate,
    .cuGraphLaunch = sim_graph_launch,
    .cuGraphExecDestroy = sim_graph_exec_destroy,
    .cuGraphDestroy = sim_graph_destroy,
    .cuStreamGetCtx = sim_stream_get_ctx,
    .cuGetErrorName = sim_error_name,
    .cuGetErrorString = sim_error_string,
};

void ufn_sim_fork(ufn_fork_phase phase)
{
    if (phase == UFN_FORK_PREPARE) {
        pthread_mutex_lock(&ufn_sim.lock);
        sq_fork(phase);
        return;
    }
    sq_fork(phase);
    if (phase == UFN_FORK_CHILD) {
        /* The streams' threads did not come along: nothing queued would
         * run.  The driver is gone, as a real one is in a forked child. */
        ufn_sim.ready = false;
        ufn_sim.init = CUDA_ERROR_NOT_INITIALIZED;
    }
    pthread_mutex_unlock(&ufn_sim.lock);
}

const ufn_cudrv *ufn_sim_driver(void)
{
    return &sim_driver;
}

int ufn_sim_get_stats(int device, ufn_sim_stats *stats)
{
    if (!ufn_sim.ready || device < 0 || device >= ufn_sim.ndev || !stats)
        return ufn_fail(UFN_ERR_INVALID, "ufn_sim_get_stats: no simulated device %d", device);
    pthread_mutex_lock(&ufn_sim.lock);
    *stats = ufn_sim.dev[device].stats;
    stats->mem_limit = ufn_sim.dev[device].limit;
    stats->host_allocs = ufn_sim.host_allocs;
    pthread_mutex_unlock(&ufn_sim.lock);
    stats->pending = sq_pending(device);
    return 0;
}

int ufn_sim_set_memory_limit(int device, size_t bytes)
{
    if (!ufn_sim.ready || device < 0 || device >= ufn_sim.ndev)
        return ufn_fail(UFN_ERR_INVALID, "ufn_sim_set_memory_limit: no simulated device %d",
                        device);
    pthread_mutex_lock(&ufn_sim.lock);
    ufn_sim.dev[device].limit = bytes;
    pthread_mutex_unlock(&ufn_sim.lock);
    return 0;
}

void ufn_sim_set_latency(unsigned usec)
{
    sq_set_latency_ns((uint64_t)usec * 1000);
}

void ufn_sim_inject_failure(const char *call, int skip, int result)
{
    pthread_mutex_lock(&ufn_sim.lock);
    ufn_sim.fail_skip = skip;
    ufn_sim.fail_result = result;
    __atomic_store_n(&ufn_sim.fail_call, call && result != CUDA_SUCCESS ? call : NULL,
                     __ATOMIC_RELEASE);
    pthread_mutex_unlock(&ufn_sim.lock);
}
