/* cudrv.h - the CUDA backend's internal header: the driver function table and
 * the pieces of the backend that share it.
 *
 * The CUDA backend calls the driver API only through a ufn_cudrv table.  The
 * table is filled either from the real libcuda.so.1 (cudrv.c: dlopen and
 * cuGetProcAddress_v2 with pinned ABI versions) or by the simulator (sim.c:
 * the same calls implemented on the CPU).  Everything above the table is one
 * backend (cuda_*.c and backend_cuda.c), used twice: ufn_cuda_backend() and
 * ufn_sim_backend().
 *
 * The runtime is built without cuda.h (a host-only build has no toolkit), so
 * the driver types and constants we use are declared here, with the values
 * and ABI of CUDA 12/13's cuda.h.
 *
 * Sections, in the order a call goes through them:
 *   driver types          CUresult, handles, attributes
 *   cudrv.c               the table, the loader, driver errors as ufn_status
 *   fatbin.c              which toolkit built a fatbin
 *   sim.c                 the simulated driver and its test hooks
 *   cuda_device.c         the backend's state and bottom layer: devices, contexts,
 *                         modules, kernels, streams
 *   cuda_alloc.c          the caching device allocator
 *   cuda_launch.c         plans over device arrays: the parameter array, launch
 *                         configuration, splitting
 *   cuda_kernel.c         @cuda.jit kernels: limits, dynamic shared memory, launches
 *   cuda_stage.c          plans and copies over host memory: the pinned staging ring
 *   cuda_graph.c          a deferred pipeline as one CUDA graph
 *   backend_cuda.c        the operations table the runtime calls, initialisation
 *
 * Each file calls only those listed before it (make check-layers-runtime).
 */
#ifndef UFN_CUDRV_H
#define UFN_CUDRV_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ufnrt.h"

/* ==== driver types ============================================================= */

typedef int CUresult;                   /* cudaError_enum */
typedef int CUdevice;                   /* CUdevice_v1 */
typedef unsigned long long CUdeviceptr; /* CUdeviceptr_v2 (64-bit platforms) */
typedef struct CUctx_st *CUcontext;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;
typedef struct CUlib_st *CUlibrary;
typedef struct CUkern_st *CUkernel;
typedef struct CUfunc_st *CUfunction;
typedef struct CUgraph_st *CUgraph;
typedef struct CUgraphExec_st *CUgraphExec;
typedef size_t (*CUoccupancyB2DSize)(int block_size);

/* The driver's result codes that the runtime tells apart or names. */
enum {
    CUDA_SUCCESS = 0,
    CUDA_ERROR_INVALID_VALUE = 1,
    CUDA_ERROR_OUT_OF_MEMORY = 2,
    CUDA_ERROR_NOT_INITIALIZED = 3,
    CUDA_ERROR_DEINITIALIZED = 4,
    CUDA_ERROR_STUB_LIBRARY = 34,
    CUDA_ERROR_NO_DEVICE = 100,
    CUDA_ERROR_INVALID_DEVICE = 101,
    CUDA_ERROR_INVALID_IMAGE = 200,
    CUDA_ERROR_INVALID_CONTEXT = 201,
    CUDA_ERROR_NO_BINARY_FOR_GPU = 209,
    CUDA_ERROR_INVALID_PTX = 218,
    CUDA_ERROR_UNSUPPORTED_PTX_VERSION = 222,
    CUDA_ERROR_INVALID_HANDLE = 400,
    CUDA_ERROR_ILLEGAL_STATE = 401,
    CUDA_ERROR_NOT_FOUND = 500,
    CUDA_ERROR_NOT_READY = 600,
    CUDA_ERROR_ILLEGAL_ADDRESS = 700,
    CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES = 701,
    CUDA_ERROR_LAUNCH_TIMEOUT = 702,
    CUDA_ERROR_ASSERT = 710,
    CUDA_ERROR_HARDWARE_STACK_ERROR = 714,
    CUDA_ERROR_ILLEGAL_INSTRUCTION = 715,
    CUDA_ERROR_MISALIGNED_ADDRESS = 716,
    CUDA_ERROR_INVALID_PC = 718,
    CUDA_ERROR_LAUNCH_FAILED = 719,
    CUDA_ERROR_NOT_SUPPORTED = 801,
    CUDA_ERROR_SYSTEM_DRIVER_MISMATCH = 803,
    CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED = 900,
    CUDA_ERROR_STREAM_CAPTURE_INVALIDATED = 901,
    CUDA_ERROR_STREAM_CAPTURE_IMPLICIT = 906,
    CUDA_ERROR_UNKNOWN = 999
};

/* Ours, not the driver's: a call that returned CUDA_SUCCESS but left its
 * result (a pointer, a handle) empty.  A real driver never does; a broken
 * or fake one must not crash the program. */
#define UFN_CUDA_NO_RESULT 999999

/* CUdevice_attribute values that the backend queries. */
typedef enum CUdevice_attribute {
    CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 1,
    CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X = 2,
    CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y = 3,
    CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z = 4,
    CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X = 5,
    CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y = 6,
    CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z = 7,
    CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK = 8,
    CU_DEVICE_ATTRIBUTE_WARP_SIZE = 10,
    CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16,
    CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE = 38,
    CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR = 39,
    CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT = 40,
    CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING = 41,
    CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
    CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
    CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97
} CUdevice_attribute;

/* cuStreamBeginCapture: which other calls a capture refuses. */
typedef enum CUstreamCaptureMode {
    CU_STREAM_CAPTURE_MODE_GLOBAL = 0,
    CU_STREAM_CAPTURE_MODE_THREAD_LOCAL = 1,
    CU_STREAM_CAPTURE_MODE_RELAXED = 2
} CUstreamCaptureMode;

/* cuCtxSetLimit / cuCtxGetLimit. */
typedef enum CUlimit {
    CU_LIMIT_STACK_SIZE = 0         /* bytes of stack per GPU thread */
} CUlimit;

/* cuPointerGetAttribute: what kind of memory a pointer is. */
typedef enum CUpointer_attribute {
    CU_POINTER_ATTRIBUTE_CONTEXT = 1,           /* a CUcontext: the allocation's */
    CU_POINTER_ATTRIBUTE_MEMORY_TYPE = 2,       /* an unsigned: CU_MEMORYTYPE_* */
    CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL = 9,    /* an int */
    CU_POINTER_ATTRIBUTE_RANGE_START_ADDR = 11, /* a CUdeviceptr: the allocation's start */
    CU_POINTER_ATTRIBUTE_RANGE_SIZE = 12        /* a size_t: the allocation's bytes */
} CUpointer_attribute;

/* CUfunction_attribute values that the kernel launch path uses. */
typedef enum CUfunction_attribute {
    CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 0,
    CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES = 1,
    CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8
} CUfunction_attribute;

enum {
    CU_MEMORYTYPE_HOST = 1,         /* page-locked (cuMemAllocHost, cuMemHostRegister) */
    CU_MEMORYTYPE_DEVICE = 2,
    CU_STREAM_DEFAULT = 0,
    CU_STREAM_NON_BLOCKING = 1,     /* does not wait for the legacy NULL stream */
    CU_EVENT_DEFAULT = 0,
    CU_EVENT_DISABLE_TIMING = 2,
    CU_GET_PROC_ADDRESS_DEFAULT = 0,
    CU_GET_PROC_ADDRESS_LEGACY_STREAM = 1,  /* NULL is the legacy default stream */
    CU_GET_PROC_ADDRESS_SUCCESS = 0,
    CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND = 1,
    CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT = 2
};

/* The oldest driver the backend accepts (cuLibraryLoadData, cuGetProcAddress_v2). */
#define UFN_CUDA_MIN_DRIVER 12000

/* ==== cudrv.c ================================================================= */

/* Every driver call the backend makes.  Members are named after the driver's
 * entry points; the comment gives the ABI version each is resolved at
 * (the version selects the ABI: cuMemAlloc at 2000 is the 32-bit _v1). */
typedef struct ufn_cudrv {
    const char *name;     /* "cuda" or "sim": the backend name in traces */
    bool sim;             /* images are ufn_module tables, not fatbins */
    void *dl;             /* dlopen handle (real driver) */
    int version;          /* cuDriverGetVersion: 12040 is CUDA 12.4 */
    /* The simulator only (NULL for the real driver): take the report of
     * the failed check whose fault the last call on this thread returned,
     * if there is one (true), so that the failure reads as what the check
     * found, not as a bare CUDA_ERROR_LAUNCH_FAILED. */
    bool (*sim_report)(char *buf, size_t size);
    CUresult (*cuInit)(unsigned flags);                                   /* 2000 */
    CUresult (*cuDriverGetVersion)(int *version);                         /* 2020 */
    CUresult (*cuDeviceGetCount)(int *count);                             /* 2000 */
    CUresult (*cuDeviceGet)(CUdevice *dev, int ordinal);                  /* 2000 */
    CUresult (*cuDeviceGetAttribute)(int *value, CUdevice_attribute attr, CUdevice dev); /* 2000 */
    CUresult (*cuDeviceGetName)(char *name, int len, CUdevice dev);       /* 2000 */
    CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *ctx, CUdevice dev);   /* 7000 */
    CUresult (*cuDevicePrimaryCtxRelease)(CUdevice dev);                  /* 11000 (_v2) */
    CUresult (*cuCtxPushCurrent)(CUcontext ctx);                          /* 4000 (_v2) */
    CUresult (*cuCtxPopCurrent)(CUcontext *ctx);                          /* 4000 (_v2) */
    CUresult (*cuCtxSynchronize)(void);                                   /* 2000 */
    CUresult (*cuCtxSetLimit)(CUlimit limit, size_t value);               /* 3010 */
    CUresult (*cuCtxGetLimit)(size_t *value, CUlimit limit);              /* 3010 */
    CUresult (*cuLibraryLoadData)(CUlibrary *lib, const void *image, void *jit_options,
                                  void **jit_values, unsigned njit, void *lib_options,
                                  void **lib_values, unsigned nlib);       /* 12000 */
    CUresult (*cuLibraryGetKernel)(CUkernel *kernel, CUlibrary lib, const char *name); /* 12000 */
    CUresult (*cuKernelGetFunction)(CUfunction *fn, CUkernel kernel);     /* 12000 */
    CUresult (*cuLibraryUnload)(CUlibrary lib);                           /* 12000 */
    CUresult (*cuLibraryGetGlobal)(CUdeviceptr *ptr, size_t *bytes, CUlibrary lib,
                                   const char *name);                      /* 12000 */
    CUresult (*cuMemAlloc)(CUdeviceptr *ptr, size_t bytes);               /* 3020 (_v2) */
    CUresult (*cuMemFree)(CUdeviceptr ptr);                               /* 3020 (_v2) */
    CUresult (*cuMemAllocHost)(void **ptr, size_t bytes);                 /* 3020 (_v2) */
    CUresult (*cuMemFreeHost)(void *ptr);                                 /* 2000 */
    CUresult (*cuMemGetInfo)(size_t *free_bytes, size_t *total_bytes);   /* 3020 (_v2) */
    CUresult (*cuPointerGetAttribute)(void *data, CUpointer_attribute attr, CUdeviceptr p); /* 4000 */
    CUresult (*cuMemcpyHtoDAsync)(CUdeviceptr dst, const void *src, size_t bytes,
                                  CUstream s);                             /* 3020 (_v2) */
    CUresult (*cuMemcpyDtoHAsync)(void *dst, CUdeviceptr src, size_t bytes, CUstream s); /* 3020 */
    CUresult (*cuMemcpyDtoDAsync)(CUdeviceptr dst, CUdeviceptr src, size_t bytes,
                                  CUstream s);                             /* 3020 (_v2) */
    CUresult (*cuMemcpyPeerAsync)(CUdeviceptr dst, CUcontext dst_ctx, CUdeviceptr src,
                                  CUcontext src_ctx, size_t bytes, CUstream s); /* 4000 */
    CUresult (*cuStreamCreate)(CUstream *s, unsigned flags);              /* 2000 */
    CUresult (*cuStreamDestroy)(CUstream s);                              /* 4000 (_v2) */
    CUresult (*cuStreamSynchronize)(CUstream s);                          /* 2000 */
    CUresult (*cuStreamWaitEvent)(CUstream s, CUevent e, unsigned flags); /* 3020 */
    CUresult (*cuEventCreate)(CUevent *e, unsigned flags);                /* 2000 */
    CUresult (*cuEventRecord)(CUevent e, CUstream s);                     /* 2000 */
    CUresult (*cuEventSynchronize)(CUevent e);                            /* 2000 */
    CUresult (*cuEventDestroy)(CUevent e);                                /* 4000 (_v2) */
    CUresult (*cuLaunchKernel)(CUfunction f, unsigned gx, unsigned gy, unsigned gz,
                               unsigned bx, unsigned by, unsigned bz, unsigned shared,
                               CUstream s, void **params, void **extra);   /* 4000 */
    CUresult (*cuOccupancyMaxPotentialBlockSize)(int *min_grid, int *block, CUfunction f,
                                                 CUoccupancyB2DSize smem_of_block,
                                                 size_t smem, int block_limit); /* 6050 */
    CUresult (*cuOccupancyMaxActiveBlocksPerMultiprocessor)(int *blocks, CUfunction f,
                                                            int block, size_t smem); /* 6050 */
    CUresult (*cuFuncGetAttribute)(int *value, CUfunction_attribute attr, CUfunction f); /* 2020 */
    CUresult (*cuFuncSetAttribute)(CUfunction f, CUfunction_attribute attr, int value); /* 9000 */
    /* CUDA graphs (stream capture).  Optional: a driver without them
     * leaves them NULL, and a pipeline then runs call by call. */
    CUresult (*cuStreamBeginCapture)(CUstream s, CUstreamCaptureMode mode); /* 10010 (_v2) */
    CUresult (*cuStreamEndCapture)(CUstream s, CUgraph *graph);           /* 10000 */
    CUresult (*cuGraphInstantiate)(CUgraphExec *exec, CUgraph graph,
                                   unsigned long long flags);     /* 11040 (WithFlags) */
    CUresult (*cuGraphLaunch)(CUgraphExec exec, CUstream s);              /* 10000 */
    CUresult (*cuGraphExecDestroy)(CUgraphExec exec);                     /* 10000 */
    CUresult (*cuGraphDestroy)(CUgraph graph);                            /* 10000 */
    /* Optional too: without it ufn_stream_wrap cannot check a stream's device. */
    CUresult (*cuStreamGetCtx)(CUstream s, CUcontext *ctx);               /* 9020 */
    CUresult (*cuGetErrorName)(CUresult r, const char **name);            /* 6000 */
    CUresult (*cuGetErrorString)(CUresult r, const char **text);          /* 6000 */
} ufn_cudrv;

/* Load the real driver into `drv`: dlopen UFN_CUDA_LIBRARY (default
 * libcuda.so.1), resolve every entry at its pinned version, check the driver
 * version, cuInit, and count the devices.  Fails with UFN_ERR_NO_DRIVER (no
 * library, the toolkit's stub, a driver older than 12.0, a missing entry),
 * UFN_ERR_DRIVER (cuInit failed) or UFN_ERR_NO_DEVICE, each with its own
 * message; on failure nothing stays loaded. */
int ufn_cudrv_load(ufn_cudrv *drv);

/* The name of a driver result ("CUDA_ERROR_OUT_OF_MEMORY") and its text, from
 * the driver when it knows them, else from our own table. */
const char *ufn_cudrv_error_name(const ufn_cudrv *drv, CUresult r);
const char *ufn_cudrv_error_text(const ufn_cudrv *drv, CUresult r);

/* Turn a failed driver call into a ufn_status: the message names the call
 * (the printf-style `call`, e.g. "cuMemAlloc(%zu bytes)") and the result:
 * "cuMemAlloc(400 bytes) failed: CUDA_ERROR_OUT_OF_MEMORY (out of memory)".
 * UFN_ERR_DEVICE_NOMEM for out-of-memory, UFN_ERR_KERNEL for a fault of a
 * kernel (an illegal address, a launch failure, ...: on the simulator the
 * message is then the report of the check that failed), else
 * UFN_ERR_DRIVER. */
int ufn_cudrv_fail(const ufn_cudrv *drv, CUresult r, const char *call, ...) UFN_PRINTF(3, 4);

/* ==== fatbin.c ================================================================== */

/* The CUDA toolkit that built a fatbin, as a driver version (13000 for CUDA
 * 13.0), or 0 when the image does not say. */
int ufn_fatbin_toolkit(const void *image, size_t size);

/* ==== sim.c ===================================================================== */

/* The simulated driver: device memory is host memory (a CUdeviceptr is the
 * address); each stream runs its work (copies, launches, event records) on
 * a thread of its own, in order and after the call that queued it returned,
 * as a GPU does; a launch runs the grid block by block through the thread
 * engine (sim/simt.h), with the checks of compute-sanitizer, whose first
 * failure the next synchronising call returns.  The image given to
 * cuLibraryLoadData is the ufn_module itself; its sim_kernels are looked up
 * by name.  Configured when cuInit first runs:
 *   UFN_SIM_DEVICES  number of devices (default 2, 0 for none, at most 64)
 *   UFN_SIM_MEMORY   bytes of memory per device (suffixes K, M, G; default 4G)
 *   UFN_SIM_LATENCY  microseconds every queued operation waits before it may
 *                    start (default 0), so that the host runs ahead
 *   UFN_SIM_CHECK    1 (default): check kernels (bounds, races, barriers); 0: not */
const ufn_cudrv *ufn_sim_driver(void);

/* Why the simulator's cuInit failed: UFN_SIM_DEVICES or UFN_SIM_MEMORY
 * unreadable (NULL when they are fine). */
const char *ufn_sim_config_error(void);
/* fork(): the simulator's locks (see ufn_fork_phase).  In the child its
 * stream threads are gone, and every driver call fails. */
void ufn_sim_fork(ufn_fork_phase phase);

/* What the simulator has done on one device (for tests). */
typedef struct ufn_sim_stats {
    uint64_t mem_allocs;     /* successful cuMemAlloc calls */
    uint64_t mem_frees;
    size_t mem_used;         /* bytes currently allocated */
    size_t mem_limit;
    uint64_t h2d, d2h, d2d;  /* copies */
    uint64_t h2d_bytes, d2h_bytes, d2d_bytes;
    uint64_t peer, peer_bytes;   /* copies from another device into this one's memory */
    uint64_t launches;       /* kernel launches run (a graph's count when it is launched) */
    uint64_t threads;        /* kernel threads run */
    uint64_t graph_launches; /* cuGraphLaunch calls */
    uint64_t host_allocs;    /* cuMemAllocHost calls (process-wide, not per device) */
    uint64_t pending;        /* operations queued on the device and not yet run */
} ufn_sim_stats;

int ufn_sim_get_stats(int device, ufn_sim_stats *stats);
/* Change a device's memory limit (bytes). */
int ufn_sim_set_memory_limit(int device, size_t bytes);
/* Hold every operation queued from now on back by usec microseconds (as
 * UFN_SIM_LATENCY): the host thread runs ahead of the device, and a
 * missing synchronisation shows.  0 restores running at once. */
void ufn_sim_set_latency(unsigned usec);
/* Make a driver call fail: after `skip` more successful calls of `call`
 * ("cuLaunchKernel", "cuGraphLaunch", "cuGraphInstantiate", "cuStreamBeginCapture", "cuMemcpyHtoDAsync", "cuMemcpyDtoHAsync",
 * "cuMemcpyDtoDAsync", "cuMemcpyPeerAsync", "cuEventRecord", "cuEventCreate", "cuStreamCreate",
 * "cuMemAlloc", "cuMemAllocHost", "cuLibraryLoadData",
 * "cuLibraryGetKernel", "cuKernelGetFunction"), the next one returns
 * `result`, once: UFN_SIM_LAZY makes it return CUDA_SUCCESS without doing
 * anything or writing its results, as a broken driver might.  NULL or
 * CUDA_SUCCESS cancels. */
#define UFN_SIM_LAZY (-1)
void ufn_sim_inject_failure(const char *call, int skip, int result);

/* ==== cuda_device.c ================================================================= */

typedef struct cuda_backend cuda_backend;
typedef struct cuda_device cuda_device;
typedef struct cuda_stager cuda_stager;

/* A kernel of a module, resolved on one device, with its launch configuration. */
typedef struct cuda_kernel {
    struct cuda_kernel *next;
    const char *name;
    int device;
    CUfunction fn;
    int block;               /* threads per block (occupancy API, at most UFN_BLOCK_MAX) */
    unsigned max_grid;       /* SMs x active blocks per SM x 2: enough for grid-stride loops */
    CUdeviceptr depth_flag;  /* the module's ufn_depth_flag if it recurses, else 0 */
} cuda_kernel;

#define UFN_BLOCK_MAX 256    /* generated kernels are built for 256 threads per block */

/* The caching allocator of one device (cuda_alloc.c). */
typedef struct cuda_block cuda_block;
typedef struct cuda_cache {
    cuda_block **live;       /* hash of blocks handed out, by address */
    size_t nlive, nbuckets;
    cuda_block *free_small[72];          /* free blocks by size class, 512 B to 64 MiB */
    cuda_block *free_large;              /* free blocks above UFN_CACHE_LARGE */
    size_t cached_bytes;     /* held in the free lists */
    CUevent *events;         /* spare events (a freed block waits on one) */
    int nevents, cap_events;
} cuda_cache;

struct cuda_device {
    int ordinal;
    bool ready;              /* initialised (under backend->lock) */
    CUdevice dev;
    CUcontext ctx;           /* the primary context, retained */
    char name[128];
    int sms;                 /* multiprocessors */
    int cc_major, cc_minor;
    pthread_mutex_t lock;    /* the allocator cache and the idle stagers */
    cuda_cache cache;
    cuda_stager *idle;       /* staging rings not in use */
};

/* The backend: the operations table is its first member, so an operation
 * finds its backend from the table it was called through. */
struct cuda_backend {
    ufn_backend_ops ops;         /* what the runtime sees; ops.name is drv->name */
    const ufn_cudrv *drv;
    int ndev;
    _Atomic int current;     /* the default device: UFN_DEVICE, or ufn_set_device */
    cuda_device *devs;
    pthread_mutex_t lock;    /* device initialisation, module states */
    bool started;            /* initialised: devs exist (atomic) */
    int fork_locked;         /* device locks taken before a fork() */
    int status;              /* of initialisation: 0, or the failure to repeat */
    char message[512];
};

/* A ufn_stream's handle. */
typedef struct cuda_stream {
    CUstream cu;
    int device;
    bool borrowed;           /* the program's (ufn_stream_wrap): never destroyed here */
} cuda_stream;

/* The device (initialised on first use: its primary context retained, its
 * attributes read), or fail with UFN_ERR_NO_DEVICE for a bad ordinal. */
int cuda_device_get(cuda_backend *b, int ordinal, cuda_device **dev);
/* Make the device's primary context current on this thread / undo it. */
int cuda_enter(cuda_backend *b, cuda_device *d);
void cuda_leave(cuda_backend *b);
/* cuda_device_get, then cuda_enter. */
int cuda_enter_device(cuda_backend *b, int ordinal, cuda_device **dev);
/* fork(): the lock of the modules' states (see ufn_fork_phase). */
void cuda_modules_fork(ufn_fork_phase phase);
/* The kernel `name` of `module` on device d, loading the module on first use
 * (UFN_ERR_NO_CODE when it was built without code for this backend).  The
 * caller has entered d. */
int cuda_kernel_get(cuda_backend *b, cuda_device *d, const ufn_module *module,
                    const char *name, cuda_kernel **kernel);
/* After launches of k (queued on `stream`) whose module recurses: wait for
 * them, and fail with UFN_ERR_RECURSION if a helper went deeper than
 * UFN_MAX_DEPTH (the flag is cleared).  0 at once for other modules. */
int cuda_depth_check(cuda_backend *b, const cuda_kernel *k, CUstream stream, const char *name);
/* Can the driver run the module's code?  UFN_ERR_NO_DRIVER, with a message,
 * when the toolkit that built its fatbin is of a newer major version than
 * the driver (a CUDA 13 module on a 12.x driver). */
int cuda_module_check(cuda_backend *b, const ufn_module *m);
/* The CUstream of a ufn_stream for device d (NULL: the default stream), or
 * fail when the stream belongs to another device. */
int cuda_stream_of(cuda_backend *b, ufn_stream_impl *s, int device, CUstream *out);
/* Report an event to the trace with this backend's name. */
void cuda_trace(cuda_backend *b, ufn_event_kind kind, const char *name, size_t bytes,
                int device);
/* The same for an operation that began at start_ns (ufn_trace_clock()). */
void cuda_trace_since(cuda_backend *b, ufn_event_kind kind, const char *name, size_t bytes,
                      int device, uint64_t start_ns);

/* ==== cuda_alloc.c ========================================================================= */

#define UFN_CACHE_LARGE ((size_t)64 << 20)  /* larger blocks round to 2 MiB, not a class */

/* Allocate from the device's cache, or from the driver; on out-of-memory the
 * cache is released and the allocation retried once.  The block is ready
 * for work queued on stream s (a cached block freed on another stream is
 * waited for).  d must be entered. */
int cuda_cache_alloc(cuda_backend *b, cuda_device *d, size_t bytes, CUstream s,
                     CUdeviceptr *ptr);
/* Return a block to the cache once the work queued on stream s so far is
 * done with it (stream-ordered).  Unknown pointers are ignored. */
void cuda_cache_free(cuda_backend *b, cuda_device *d, CUdeviceptr ptr, CUstream s);
/* Give every cached (free) block back to the driver; d entered. */
void cuda_cache_release(cuda_backend *b, cuda_device *d);
/* Size of the class a request is rounded up to (tests). */
size_t cuda_cache_class_size(size_t bytes);

/* ==== cuda_launch.c ========================================================================= */

/* The kernel parameters of one launch, in one of the three forms of
 * ufn_abi.h; params[] points into the struct itself, so it must not be
 * copied once built.  cuda_params_init zeroes every field and builds params
 * for the form; the caller then fills n, it, core, ptr, loop and cstr. */
typedef enum cuda_form {
    CUDA_CONTIG,             /* (uint32_t n, p0, p1, ...) */
    CUDA_STRIDED,            /* (ufn_kiter, p0, ufn_kstrides, p1, ufn_kstrides, ...) */
    CUDA_GUFUNC              /* (ufn_kiter, ufn_kcore, p0, loop strides, core strides, ...) */
} cuda_form;

typedef struct cuda_params {
    uint32_t n;
    ufn_kiter it;
    ufn_kcore core;
    void *ptr[UFN_MAXARGS];
    ufn_kstrides loop[UFN_MAXARGS];
    ufn_kstrides cstr[UFN_MAXARGS];
    void *params[2 + 3 * UFN_MAXARGS];
} cuda_params;

void cuda_params_init(cuda_params *a, cuda_form form, int nargs);
/* Operand k of a strided ufunc launch as a scalar passed by value: a NULL
 * pointer, and the value (bytes of it, 16 at most) in its strides, in the
 * 32-bit pieces of ufn_abi.h. */
void cuda_params_by_value(cuda_params *a, int k, const void *value, int bytes);

/* Execute a plan whose operands are device arrays on plan->device. */
int cuda_execute_device(cuda_backend *b, const ufn_plan *plan, ufn_stream_impl *s);
/* Its launches, queued on `stream` (d entered), without the wait of a
 * module that recurses (cuda_depth_check with *kernel, the kernel used,
 * is the caller's); `capturing`: the stream records them into a graph,
 * so they are not traced as launches. */
int cuda_queue_plan(cuda_backend *b, cuda_device *d, const ufn_plan *plan, CUstream stream,
                    bool capturing, cuda_kernel **kernel);
/* Launch `k` over n iterations with the parameter array `params` on stream. */
int cuda_launch(cuda_backend *b, cuda_device *d, cuda_kernel *k, uint32_t n, void **params,
                CUstream stream);

/* Test hook: the largest iteration count of one launch is limit - 1
 * (default 2^31).  0 restores the default. */
void ufn_cuda_set_split_limit(int64_t limit);
int64_t ufn_cuda_split_limit(void);

/* ==== cuda_kernel.c ======================================================================== */

/* @cuda.jit kernels: a device's launch limits (its attributes), and a
 * launch of a plan kernel.c built (see ufnrt.h). */
int cuda_kernel_limits(cuda_backend *b, int device, ufn_klimits *out);
int cuda_launch_kernel(cuda_backend *b, const ufn_kplan *plan, ufn_stream_impl *s);

/* ==== cuda_stage.c ========================================================================= */

/* Execute a plan whose operands are host arrays: chunks of the iteration
 * space go through pinned buffers on several streams, so that copy-in,
 * compute and copy-out of different chunks overlap.  Returns when the
 * outputs are written. */
int cuda_execute_host(cuda_backend *b, const ufn_plan *plan);
/* Copies between pageable host memory and the device through the pinned
 * ring (large copies) or directly (small ones); synchronous. */
int cuda_stage_h2d(cuda_backend *b, cuda_device *d, CUdeviceptr dst, const void *src,
                   size_t bytes, CUstream after);
int cuda_stage_d2h(cuda_backend *b, cuda_device *d, void *dst, CUdeviceptr src,
                   size_t bytes, CUstream after);
/* Free a device's idle staging rings (backend shutdown, tests); d entered. */
void cuda_stage_release(cuda_backend *b, cuda_device *d);

/* Test hook: bytes of one staging chunk, all operands together (default
 * 16 MiB, or UFN_STAGE_BYTES); 0 restores the default. */
void ufn_cuda_set_stage_bytes(size_t bytes);
size_t ufn_cuda_stage_bytes(void);

/* ==== cuda_graph.c ========================================================================== */

/* Run a deferred pipeline as one CUDA graph on stream s: chunk by chunk
 * through every call, temporaries in a chunk-sized device scratch.
 * UFN_PIPE_DECLINED when the driver has no graph calls or answers that it
 * cannot capture or instantiate one (nothing has run then). */
int cuda_run_pipeline(cuda_backend *b, const ufn_pipe *pipe, ufn_stream_impl *s);
/* Test hook: elements per chunk (default: what fits the device's L2);
 * 0 restores the default. */
void ufn_cuda_set_pipeline_chunk(int64_t elements);

/* ==== cuda_interop.c ======================================================================= */

/* The device whose memory [ptr+lo, ptr+hi) is: device memory of one
 * allocation of the driver, in its device's primary context; else
 * UFN_ERR_WRONG_MEMORY (not device memory) or UFN_ERR_INVALID. */
int cuda_pointer_device(cuda_backend *b, const void *ptr, int64_t lo, int64_t hi, int *device);
/* s->handle for the program's stream `cu`, of the default device, borrowed;
 * UFN_ERR_INVALID for a stream of another device's context. */
int cuda_stream_wrap(cuda_backend *b, void *cu, ufn_stream_impl *s);

/* ==== backend_cuda.c ======================================================================= */

/* The cuda (real driver) and sim backend objects (tests). */
cuda_backend *ufn_cuda_backend_state(void);
cuda_backend *ufn_sim_backend_state(void);

#endif /* UFN_CUDRV_H */
