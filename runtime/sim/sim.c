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
 *   streams    every operation runs when it is enqueued, so each stream stays
 *              in order and events are complete once recorded
 *   kernels    the image of cuLibraryLoadData is the ufn_module itself; a
 *              launch runs the grid block by block through the thread engine
 *              (simt.c): thread after thread, or as fibers for kernels with
 *              barriers or warp functions, with shared memory per block and
 *              the checks of compute-sanitizer unless UFN_SIM_CHECK=0.  A
 *              check that fails stops the launch, which returns
 *              CUDA_ERROR_ILLEGAL_ADDRESS (an index out of bounds) or
 *              CUDA_ERROR_LAUNCH_FAILED (a race, a barrier), and leaves its
 *              report for the backend (the table's sim_report).  Unlike a
 *              GPU's, the context survives the fault.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/cudrv.h"
#include "sim/simt.h"

#define SIM_MAX_DEVICES 64
#define SIM_SMS 108               /* multiprocessors of each device */
#define SIM_THREADS_PER_SM 2048
#define SIM_BLOCKS_PER_SM 32
#define SIM_MAX_BLOCK 1024
#define SIM_SHARED 49152          /* shared memory per block without opt-in */
#define SIM_SHARED_OPTIN 166912   /* with it (163 KiB, an A100's) */
#define SIM_ALIGN 256
#define SIM_DEFAULT_MEMORY ((size_t)4 << 30)
#define SIM_MAX_CONTEXT_DEPTH 64

/* Handle checks: every object starts with a tag. */
enum {
    TAG_STREAM = 0x5354524d,
    TAG_EVENT = 0x45564e54,
    TAG_LIBRARY = 0x4c494252,
    TAG_KERNEL = 0x4b45524e,
    TAG_FUNCTION = 0x46554e43,
    TAG_DEAD = 0x44454144
};

struct CUctx_st {
    int device;
    int refs;                  /* primary context retain count */
};

struct CUstream_st {
    unsigned tag;
    int device;
};

struct CUevent_st {
    unsigned tag;
};

struct CUfunc_st {
    unsigned tag;
    int device;
    const ufn_sim_kernel *kernel;
    int max_dynamic;           /* CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES */
};

struct CUkern_st {
    unsigned tag;
    const ufn_sim_kernel *kernel;
    struct CUfunc_st func[SIM_MAX_DEVICES];   /* one per device (context) */
};

struct CUlib_st {
    unsigned tag;
    const ufn_module *module;
    int nkernels;
    struct CUkern_st *kernels;
};

typedef struct sim_alloc {
    struct sim_alloc *next;
    char *base;
    size_t bytes;
    int device;                /* -1: pinned host memory */
} sim_alloc;

typedef struct sim_device {
    struct CUctx_st ctx;
    size_t limit;
    ufn_sim_stats stats;
    bool has_report;           /* a failed check's report, not yet taken */
    char report[512];
} sim_device;

static struct {
    pthread_once_t once;
    pthread_mutex_t lock;
    CUresult init;             /* result of the first cuInit */
    bool ready;
    bool checks;               /* UFN_SIM_CHECK: 1 (default) or 0 */
    char config_error[160];
    int ndev;
    sim_device dev[SIM_MAX_DEVICES];
    sim_alloc *allocs;         /* device and pinned allocations */
    uint64_t host_allocs;
} sim = { .once = PTHREAD_ONCE_INIT, .lock = PTHREAD_MUTEX_INITIALIZER };

static _Thread_local CUcontext ctx_stack[SIM_MAX_CONTEXT_DEPTH];
static _Thread_local int ctx_depth;

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
    sim.init = CUDA_SUCCESS;
    sim.ndev = 2;
    size_t memory = SIM_DEFAULT_MEMORY;
    const char *env = getenv("UFN_SIM_DEVICES");
    if (env && *env) {
        char *end;
        long n = strtol(env, &end, 10);
        if (*end || n < 0 || n > SIM_MAX_DEVICES) {
            snprintf(sim.config_error, sizeof sim.config_error,
                     "UFN_SIM_DEVICES=%s is not a number of simulated devices (0 to %d)", env,
                     SIM_MAX_DEVICES);
            sim.init = CUDA_ERROR_INVALID_VALUE;
            return;
        }
        sim.ndev = (int)n;
    }
    env = getenv("UFN_SIM_CHECK");
    sim.checks = true;
    if (env && *env) {
        if (strcmp(env, "0") != 0 && strcmp(env, "1") != 0) {
            snprintf(sim.config_error, sizeof sim.config_error,
                     "UFN_SIM_CHECK=%s is neither 1 (check kernels, the default) nor 0", env);
            sim.init = CUDA_ERROR_INVALID_VALUE;
            return;
        }
        sim.checks = env[0] == '1';
    }
    env = getenv("UFN_SIM_MEMORY");
    if (env && *env && !parse_size(env, &memory)) {
        snprintf(sim.config_error, sizeof sim.config_error,
                 "UFN_SIM_MEMORY=%s is not a number of bytes (e.g. 1048576, 512M, 4G)", env);
        sim.init = CUDA_ERROR_INVALID_VALUE;
        return;
    }
    for (int i = 0; i < sim.ndev; i++) {
        sim.dev[i].ctx.device = i;
        sim.dev[i].limit = memory;
    }
    sim.ready = true;
}

const char *ufn_sim_config_error(void)
{
    return sim.config_error[0] ? sim.config_error : NULL;
}

/* ---- checks ----------------------------------------------------------------------- */

#define REQUIRE_INIT()                          \
    do {                                        \
        if (!sim.ready)                         \
            return CUDA_ERROR_NOT_INITIALIZED;  \
    } while (0)

static CUcontext current(void)
{
    return ctx_depth > 0 ? ctx_stack[ctx_depth - 1] : NULL;
}

/* The current context's device, or -1 without one. */
static int current_device(void)
{
    CUcontext c = current();
    return c ? c->device : -1;
}

#define REQUIRE_CONTEXT(dev)                    \
    REQUIRE_INIT();                             \
    int dev = current_device();                 \
    if (dev < 0)                                \
        return CUDA_ERROR_INVALID_CONTEXT

/* A stream usable from the current context (NULL is the default stream). */
static CUresult check_stream(CUstream s, int device)
{
    if (!s)
        return CUDA_SUCCESS;
    if (s->tag != TAG_STREAM)
        return CUDA_ERROR_INVALID_HANDLE;
    return s->device == device ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

/* Is [p, p+bytes) inside one device allocation?  Caller holds the lock. */
static sim_alloc *find_range(CUdeviceptr p, size_t bytes)
{
    for (sim_alloc *a = sim.allocs; a; a = a->next) {
        uintptr_t base = (uintptr_t)a->base;
        if (a->device >= 0 && p >= base && p - base <= a->bytes && bytes <= a->bytes - (p - base))
            return a;
    }
    return NULL;
}

/* ---- initialisation and devices ------------------------------------------------------ */

static CUresult sim_init(unsigned flags)
{
    if (flags != 0)
        return CUDA_ERROR_INVALID_VALUE;
    pthread_once(&sim.once, configure);
    return sim.init;
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
    *count = sim.ndev;
    return CUDA_SUCCESS;
}

static CUresult sim_device_get(CUdevice *dev, int ordinal)
{
    REQUIRE_INIT();
    if (!dev)
        return CUDA_ERROR_INVALID_VALUE;
    if (ordinal < 0 || ordinal >= sim.ndev)
        return CUDA_ERROR_INVALID_DEVICE;
    *dev = ordinal;
    return CUDA_SUCCESS;
}

static CUresult sim_device_attribute(int *value, CUdevice_attribute attr, CUdevice dev)
{
    REQUIRE_INIT();
    if (!value)
        return CUDA_ERROR_INVALID_VALUE;
    if (dev < 0 || dev >= sim.ndev)
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
    if (dev < 0 || dev >= sim.ndev)
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
    if (dev < 0 || dev >= sim.ndev)
        return CUDA_ERROR_INVALID_DEVICE;
    pthread_mutex_lock(&sim.lock);
    sim.dev[dev].ctx.refs++;
    pthread_mutex_unlock(&sim.lock);
    *ctx = &sim.dev[dev].ctx;
    return CUDA_SUCCESS;
}

static CUresult sim_primary_release(CUdevice dev)
{
    REQUIRE_INIT();
    if (dev < 0 || dev >= sim.ndev)
        return CUDA_ERROR_INVALID_DEVICE;
    CUresult r = CUDA_SUCCESS;
    pthread_mutex_lock(&sim.lock);
    if (sim.dev[dev].ctx.refs > 0)
        sim.dev[dev].ctx.refs--;
    else
        r = CUDA_ERROR_INVALID_CONTEXT;
    pthread_mutex_unlock(&sim.lock);
    return r;
}

static CUresult sim_ctx_push(CUcontext ctx)
{
    REQUIRE_INIT();
    if (!ctx || ctx->device < 0 || ctx->device >= sim.ndev || ctx != &sim.dev[ctx->device].ctx ||
        ctx->refs <= 0)
        return CUDA_ERROR_INVALID_CONTEXT;
    if (ctx_depth == SIM_MAX_CONTEXT_DEPTH)
        return CUDA_ERROR_INVALID_VALUE;
    ctx_stack[ctx_depth++] = ctx;
    return CUDA_SUCCESS;
}

static CUresult sim_ctx_pop(CUcontext *ctx)
{
    REQUIRE_INIT();
    if (ctx_depth == 0)
        return CUDA_ERROR_INVALID_CONTEXT;
    CUcontext c = ctx_stack[--ctx_depth];
    if (ctx)
        *ctx = c;
    return CUDA_SUCCESS;
}

static CUresult sim_ctx_synchronize(void)
{
    REQUIRE_CONTEXT(dev);
    (void)dev;
    return CUDA_SUCCESS;   /* everything already ran */
}

/* ---- libraries and kernels ------------------------------------------------------------ */

static CUresult sim_library_load(CUlibrary *lib, const void *image, void *jit_options,
                                 void **jit_values, unsigned njit, void *lib_options,
                                 void **lib_values, unsigned nlib)
{
    (void)jit_options, (void)jit_values, (void)njit;
    (void)lib_options, (void)lib_values, (void)nlib;
    REQUIRE_INIT();
    if (!lib || !image)
        return CUDA_ERROR_INVALID_VALUE;
    const ufn_module *m = image;
    if (m->abi_version != UFN_ABI_VERSION || !m->sim_kernels || m->nsim_kernels < 0)
        return CUDA_ERROR_INVALID_IMAGE;   /* e.g. a fatbin given to the simulator */
    struct CUlib_st *l = calloc(1, sizeof *l);
    struct CUkern_st *k = calloc((size_t)m->nsim_kernels + 1, sizeof *k);
    if (!l || !k) {
        free(l);
        free(k);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    for (int i = 0; i < m->nsim_kernels; i++) {
        if (!m->sim_kernels[i].name || !m->sim_kernels[i].entry) {
            free(l);
            free(k);
            return CUDA_ERROR_INVALID_IMAGE;
        }
        k[i].tag = TAG_KERNEL;
        k[i].kernel = &m->sim_kernels[i];
        int stat = (int)m->sim_kernels[i].static_shared;
        for (int d = 0; d < SIM_MAX_DEVICES; d++)
            k[i].func[d] = (struct CUfunc_st){ TAG_FUNCTION, d, &m->sim_kernels[i],
                                               stat < SIM_SHARED ? SIM_SHARED - stat : 0 };
    }
    l->tag = TAG_LIBRARY;
    l->module = m;
    l->nkernels = m->nsim_kernels;
    l->kernels = k;
    *lib = l;
    return CUDA_SUCCESS;
}

static CUresult sim_library_kernel(CUkernel *kernel, CUlibrary lib, const char *name)
{
    REQUIRE_INIT();
    if (!kernel || !name)
        return CUDA_ERROR_INVALID_VALUE;
    if (!lib || lib->tag != TAG_LIBRARY)
        return CUDA_ERROR_INVALID_HANDLE;
    for (int i = 0; i < lib->nkernels; i++) {
        if (strcmp(lib->kernels[i].kernel->name, name) == 0) {
            *kernel = &lib->kernels[i];
            return CUDA_SUCCESS;
        }
    }
    return CUDA_ERROR_NOT_FOUND;
}

static CUresult sim_kernel_function(CUfunction *fn, CUkernel kernel)
{
    REQUIRE_CONTEXT(dev);
    if (!fn)
        return CUDA_ERROR_INVALID_VALUE;
    if (!kernel || kernel->tag != TAG_KERNEL)
        return CUDA_ERROR_INVALID_HANDLE;
    *fn = &kernel->func[dev];
    return CUDA_SUCCESS;
}

static CUresult sim_library_unload(CUlibrary lib)
{
    REQUIRE_INIT();
    if (!lib || lib->tag != TAG_LIBRARY)
        return CUDA_ERROR_INVALID_HANDLE;
    for (int i = 0; i < lib->nkernels; i++) {
        lib->kernels[i].tag = TAG_DEAD;
        for (int d = 0; d < SIM_MAX_DEVICES; d++)
            lib->kernels[i].func[d].tag = TAG_DEAD;
    }
    lib->tag = TAG_DEAD;
    free(lib->kernels);
    free(lib);
    return CUDA_SUCCESS;
}

/* ---- memory ------------------------------------------------------------------------- */

static CUresult add_alloc(void *base, size_t bytes, int device)
{
    sim_alloc *a = malloc(sizeof *a);
    if (!a)
        return CUDA_ERROR_OUT_OF_MEMORY;
    *a = (sim_alloc){ sim.allocs, base, bytes, device };
    sim.allocs = a;
    return CUDA_SUCCESS;
}

/* Remove the allocation that starts at base (of that kind); NULL if none. */
static sim_alloc *take_alloc(const void *base, bool device)
{
    for (sim_alloc **p = &sim.allocs; *p; p = &(*p)->next) {
        sim_alloc *a = *p;
        if (a->base == base && (a->device >= 0) == device) {
            *p = a->next;
            return a;
        }
    }
    return NULL;
}

static CUresult sim_mem_alloc(CUdeviceptr *ptr, size_t bytes)
{
    REQUIRE_CONTEXT(dev);
    if (!ptr || bytes == 0)
        return CUDA_ERROR_INVALID_VALUE;
    if (bytes > SIZE_MAX - SIM_ALIGN)
        return CUDA_ERROR_OUT_OF_MEMORY;
    size_t rounded = (bytes + SIM_ALIGN - 1) / SIM_ALIGN * SIM_ALIGN;
    sim_device *sd = &sim.dev[dev];
    pthread_mutex_lock(&sim.lock);
    CUresult r = CUDA_ERROR_OUT_OF_MEMORY;
    void *p = NULL;
    if (sd->stats.mem_used <= sd->limit && rounded <= sd->limit - sd->stats.mem_used)
        p = aligned_alloc(SIM_ALIGN, rounded);
    if (p) {
        r = add_alloc(p, rounded, dev);
        if (r == CUDA_SUCCESS) {
            sd->stats.mem_used += rounded;
            sd->stats.mem_allocs++;
        } else {
            free(p);
        }
    }
    pthread_mutex_unlock(&sim.lock);
    if (r != CUDA_SUCCESS)
        return r;
    memset(p, 0xA5, rounded);
    *ptr = (CUdeviceptr)(uintptr_t)p;
    return CUDA_SUCCESS;
}

static CUresult sim_mem_free(CUdeviceptr ptr)
{
    REQUIRE_CONTEXT(dev);
    (void)dev;
    if (ptr == 0)
        return CUDA_SUCCESS;
    pthread_mutex_lock(&sim.lock);
    sim_alloc *a = take_alloc((void *)(uintptr_t)ptr, true);
    if (a) {
        sim.dev[a->device].stats.mem_used -= a->bytes;
        sim.dev[a->device].stats.mem_frees++;
    }
    pthread_mutex_unlock(&sim.lock);
    if (!a)
        return CUDA_ERROR_INVALID_VALUE;
    free(a->base);
    free(a);
    return CUDA_SUCCESS;
}

static CUresult sim_mem_alloc_host(void **ptr, size_t bytes)
{
    REQUIRE_CONTEXT(dev);
    (void)dev;
    if (!ptr || bytes == 0)
        return CUDA_ERROR_INVALID_VALUE;
    void *p = NULL;
    if (posix_memalign(&p, 4096, bytes) != 0)
        return CUDA_ERROR_OUT_OF_MEMORY;
    pthread_mutex_lock(&sim.lock);
    CUresult r = add_alloc(p, bytes, -1);
    if (r == CUDA_SUCCESS)
        sim.host_allocs++;
    pthread_mutex_unlock(&sim.lock);
    if (r != CUDA_SUCCESS) {
        free(p);
        return r;
    }
    *ptr = p;
    return CUDA_SUCCESS;
}

static CUresult sim_mem_free_host(void *ptr)
{
    REQUIRE_INIT();
    pthread_mutex_lock(&sim.lock);
    sim_alloc *a = ptr ? take_alloc(ptr, false) : NULL;
    pthread_mutex_unlock(&sim.lock);
    if (!a)
        return CUDA_ERROR_INVALID_VALUE;
    free(a->base);
    free(a);
    return CUDA_SUCCESS;
}

static CUresult sim_mem_info(size_t *free_bytes, size_t *total_bytes)
{
    REQUIRE_CONTEXT(dev);
    if (!free_bytes || !total_bytes)
        return CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&sim.lock);
    sim_device *sd = &sim.dev[dev];
    *total_bytes = sd->limit;
    *free_bytes = sd->stats.mem_used < sd->limit ? sd->limit - sd->stats.mem_used : 0;
    pthread_mutex_unlock(&sim.lock);
    return CUDA_SUCCESS;
}

/* ---- copies ---------------------------------------------------------------------------- */

enum copy_kind { H2D, D2H, D2D };

static CUresult copy(enum copy_kind kind, void *dst, const void *src, size_t bytes, CUstream s)
{
    REQUIRE_CONTEXT(dev);
    CUresult r = check_stream(s, dev);
    if (r != CUDA_SUCCESS)
        return r;
    if (bytes == 0)
        return CUDA_SUCCESS;
    if (!dst || !src)
        return CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&sim.lock);
    bool ok = (kind == D2H || find_range((uintptr_t)dst, bytes)) &&
              (kind == H2D || find_range((uintptr_t)src, bytes));
    if (ok) {
        ufn_sim_stats *st = &sim.dev[dev].stats;
        switch (kind) {
        case H2D: st->h2d++, st->h2d_bytes += bytes; break;
        case D2H: st->d2h++, st->d2h_bytes += bytes; break;
        case D2D: st->d2d++, st->d2d_bytes += bytes; break;
        }
    }
    pthread_mutex_unlock(&sim.lock);
    if (!ok)
        return CUDA_ERROR_INVALID_VALUE;
    memmove(dst, src, bytes);
    return CUDA_SUCCESS;
}

static CUresult sim_copy_h2d(CUdeviceptr dst, const void *src, size_t bytes, CUstream s)
{
    return copy(H2D, (void *)(uintptr_t)dst, src, bytes, s);
}

static CUresult sim_copy_d2h(void *dst, CUdeviceptr src, size_t bytes, CUstream s)
{
    return copy(D2H, dst, (const void *)(uintptr_t)src, bytes, s);
}

static CUresult sim_copy_d2d(CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream s)
{
    return copy(D2D, (void *)(uintptr_t)dst, (const void *)(uintptr_t)src, bytes, s);
}

/* ---- streams and events -------------------------------------------------------------------- */

static CUresult sim_stream_create(CUstream *s, unsigned flags)
{
    REQUIRE_CONTEXT(dev);
    if (!s || flags > CU_STREAM_NON_BLOCKING)
        return CUDA_ERROR_INVALID_VALUE;
    struct CUstream_st *st = malloc(sizeof *st);
    if (!st)
        return CUDA_ERROR_OUT_OF_MEMORY;
    *st = (struct CUstream_st){ TAG_STREAM, dev };
    *s = st;
    return CUDA_SUCCESS;
}

static CUresult sim_stream_destroy(CUstream s)
{
    REQUIRE_INIT();
    if (!s || s->tag != TAG_STREAM)
        return CUDA_ERROR_INVALID_HANDLE;
    s->tag = TAG_DEAD;
    free(s);
    return CUDA_SUCCESS;
}

static CUresult sim_stream_synchronize(CUstream s)
{
    REQUIRE_CONTEXT(dev);
    if (s && s->tag != TAG_STREAM)
        return CUDA_ERROR_INVALID_HANDLE;
    (void)dev;   /* a stream may be synchronised from any context */
    return CUDA_SUCCESS;
}

static CUresult sim_stream_wait_event(CUstream s, CUevent e, unsigned flags)
{
    REQUIRE_CONTEXT(dev);
    if (flags != 0)
        return CUDA_ERROR_INVALID_VALUE;
    if (!e || e->tag != TAG_EVENT)
        return CUDA_ERROR_INVALID_HANDLE;
    return check_stream(s, dev);
}

static CUresult sim_event_create(CUevent *e, unsigned flags)
{
    REQUIRE_CONTEXT(dev);
    (void)dev;
    if (!e || (flags & ~7u))   /* blocking sync, disable timing, interprocess */
        return CUDA_ERROR_INVALID_VALUE;
    struct CUevent_st *ev = malloc(sizeof *ev);
    if (!ev)
        return CUDA_ERROR_OUT_OF_MEMORY;
    ev->tag = TAG_EVENT;
    *e = ev;
    return CUDA_SUCCESS;
}

static CUresult sim_event_record(CUevent e, CUstream s)
{
    REQUIRE_CONTEXT(dev);
    if (!e || e->tag != TAG_EVENT)
        return CUDA_ERROR_INVALID_HANDLE;
    return check_stream(s, dev);
}

static CUresult sim_event_synchronize(CUevent e)
{
    REQUIRE_INIT();
    return e && e->tag == TAG_EVENT ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

static CUresult sim_event_destroy(CUevent e)
{
    REQUIRE_INIT();
    if (!e || e->tag != TAG_EVENT)
        return CUDA_ERROR_INVALID_HANDLE;
    e->tag = TAG_DEAD;
    free(e);
    return CUDA_SUCCESS;
}

/* ---- launches ------------------------------------------------------------------------------- */

static CUresult check_function(CUfunction f, int device)
{
    if (!f || f->tag != TAG_FUNCTION)
        return CUDA_ERROR_INVALID_HANDLE;
    return f->device == device ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

/* A check failed the launch: keep its report for the backend. */
static CUresult launch_fault(int dev, const ufn_simt_launch *run)
{
    if (run->fault == UFN_SIMT_NOMEM)
        return CUDA_ERROR_OUT_OF_MEMORY;
    pthread_mutex_lock(&sim.lock);
    sim.dev[dev].has_report = true;
    snprintf(sim.dev[dev].report, sizeof sim.dev[dev].report, "%s", run->report);
    pthread_mutex_unlock(&sim.lock);
    return run->fault == UFN_SIMT_BOUNDS ? CUDA_ERROR_ILLEGAL_ADDRESS : CUDA_ERROR_LAUNCH_FAILED;
}

static bool sim_take_report(char *buf, size_t size)
{
    int dev = current_device();
    if (dev < 0 || size == 0)
        return false;
    pthread_mutex_lock(&sim.lock);
    bool had = sim.dev[dev].has_report;
    if (had)
        snprintf(buf, size, "%s", sim.dev[dev].report);
    sim.dev[dev].has_report = false;
    pthread_mutex_unlock(&sim.lock);
    return had;
}

static CUresult sim_launch(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                           unsigned by, unsigned bz, unsigned shared, CUstream s,
                           void **params, void **extra)
{
    REQUIRE_CONTEXT(dev);
    CUresult r = check_function(f, dev);
    if (r == CUDA_SUCCESS)
        r = check_stream(s, dev);
    if (r != CUDA_SUCCESS)
        return r;
    /* The real driver's limits; the simulator has no `extra` parameter
     * packing. */
    if (!params || extra || shared > (unsigned)__atomic_load_n(&f->max_dynamic, __ATOMIC_RELAXED) || gx == 0 || gy == 0 ||
        gz == 0 || bx == 0 || by == 0 || bz == 0 || gx > 0x7fffffffu || gy > 65535 ||
        gz > 65535 || bx > SIM_MAX_BLOCK || by > SIM_MAX_BLOCK || bz > 64 ||
        (uint64_t)bx * by * bz > SIM_MAX_BLOCK)
        return CUDA_ERROR_INVALID_VALUE;

    uint64_t blocks = (uint64_t)gx * gy * gz;
    pthread_mutex_lock(&sim.lock);
    sim.dev[dev].stats.launches++;
    sim.dev[dev].stats.threads += blocks * bx * by * bz;
    pthread_mutex_unlock(&sim.lock);

    const ufn_sim_kernel *k = f->kernel;
    ufn_simt_launch run = {
        .kernel = k->name,
        .entry = k->entry,
        .params = params,
        .grid = { gx, gy, gz },
        .block = { bx, by, bz },
        .static_shared = k->static_shared,
        .dynamic_shared = shared,
        .fibers = (k->flags & (UFN_KF_BARRIER | UFN_KF_WARP)) != 0,
        .checks = sim.checks,
        .first = 0,
        .end = blocks,
    };
    return ufn_simt_run(&run) ? launch_fault(dev, &run) : CUDA_SUCCESS;
}

static CUresult sim_func_get_attribute(int *value, CUfunction_attribute attr, CUfunction f)
{
    REQUIRE_CONTEXT(dev);
    CUresult r = check_function(f, dev);
    if (r != CUDA_SUCCESS)
        return r;
    if (!value)
        return CUDA_ERROR_INVALID_VALUE;
    switch (attr) {
    case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *value = SIM_MAX_BLOCK; break;
    case CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES: *value = (int)f->kernel->static_shared; break;
    case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES:
        *value = __atomic_load_n(&f->max_dynamic, __ATOMIC_RELAXED);
        break;
    default: return CUDA_ERROR_INVALID_VALUE;
    }
    return CUDA_SUCCESS;
}

/* Only the dynamic shared memory limit can be set: up to the opt-in
 * maximum less the static shared memory, as on a GPU. */
static CUresult sim_func_set_attribute(CUfunction f, CUfunction_attribute attr, int value)
{
    REQUIRE_CONTEXT(dev);
    CUresult r = check_function(f, dev);
    if (r != CUDA_SUCCESS)
        return r;
    if (attr != CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES || value < 0 ||
        (int64_t)value + f->kernel->static_shared > SIM_SHARED_OPTIN)
        return CUDA_ERROR_INVALID_VALUE;
    __atomic_store_n(&f->max_dynamic, value, __ATOMIC_RELAXED);
    return CUDA_SUCCESS;
}

/* Plausible fixed answers: the generated kernels' 256 threads per block, and
 * as many resident blocks as 2048 threads per multiprocessor allow. */
static CUresult sim_occupancy_block(int *min_grid, int *block, CUfunction f,
                                    CUoccupancyB2DSize smem_of_block, size_t smem,
                                    int block_limit)
{
    REQUIRE_CONTEXT(dev);
    (void)smem_of_block, (void)smem;
    if (!min_grid || !block || block_limit < 0)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult r = check_function(f, dev);
    if (r != CUDA_SUCCESS)
        return r;
    int b = 256;
    if (block_limit > 0 && block_limit < b)
        b = block_limit;
    *block = b;
    int per_sm = SIM_THREADS_PER_SM / b;
    *min_grid = SIM_SMS * (per_sm < SIM_BLOCKS_PER_SM ? per_sm : SIM_BLOCKS_PER_SM);
    return CUDA_SUCCESS;
}

static CUresult sim_occupancy_blocks(int *blocks, CUfunction f, int block, size_t smem)
{
    REQUIRE_CONTEXT(dev);
    (void)smem;
    if (!blocks || block <= 0)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult r = check_function(f, dev);
    if (r != CUDA_SUCCESS)
        return r;
    int per_sm = block > SIM_MAX_BLOCK ? 0 : SIM_THREADS_PER_SM / block;
    *blocks = per_sm < SIM_BLOCKS_PER_SM ? per_sm : SIM_BLOCKS_PER_SM;
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
    .sim_report = sim_take_report,
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
    .cuLibraryLoadData = sim_library_load,
    .cuLibraryGetKernel = sim_library_kernel,
    .cuKernelGetFunction = sim_kernel_function,
    .cuLibraryUnload = sim_library_unload,
    .cuMemAlloc = sim_mem_alloc,
    .cuMemFree = sim_mem_free,
    .cuMemAllocHost = sim_mem_alloc_host,
    .cuMemFreeHost = sim_mem_free_host,
    .cuMemGetInfo = sim_mem_info,
    .cuMemcpyHtoDAsync = sim_copy_h2d,
    .cuMemcpyDtoHAsync = sim_copy_d2h,
    .cuMemcpyDtoDAsync = sim_copy_d2d,
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
    .cuGetErrorName = sim_error_name,
    .cuGetErrorString = sim_error_string,
};

const ufn_cudrv *ufn_sim_driver(void)
{
    return &sim_driver;
}

int ufn_sim_get_stats(int device, ufn_sim_stats *stats)
{
    if (!sim.ready || device < 0 || device >= sim.ndev || !stats)
        return ufn_fail(UFN_ERR_INVALID, "ufn_sim_get_stats: no simulated device %d", device);
    pthread_mutex_lock(&sim.lock);
    *stats = sim.dev[device].stats;
    stats->mem_limit = sim.dev[device].limit;
    stats->host_allocs = sim.host_allocs;
    pthread_mutex_unlock(&sim.lock);
    return 0;
}

int ufn_sim_set_memory_limit(int device, size_t bytes)
{
    if (!sim.ready || device < 0 || device >= sim.ndev)
        return ufn_fail(UFN_ERR_INVALID, "ufn_sim_set_memory_limit: no simulated device %d",
                        device);
    pthread_mutex_lock(&sim.lock);
    sim.dev[device].limit = bytes;
    pthread_mutex_unlock(&sim.lock);
    return 0;
}
