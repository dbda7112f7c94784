/* simrt.h - the simulator's internal header.  Its files, from the bottom:
 *
 *   queue.c    streams, events and the work queued on them (below)
 *   state.c    the simulator's state and what every driver entry checks, the
 *              faults of kernels until a synchronising call reports them
 *   grid.c     a launch: its copied parameters, the grid run by the thread
 *              engine (simt.c: thread after thread, or as fibers)
 *   memory.c   device and page-locked memory, copies
 *   library.c  libraries, kernels, launches
 *   graph.c    stream capture and CUDA graphs: captured work replayed
 *   sim.c      configuration, devices, contexts, streams and events, errors,
 *              the driver table and the test hooks
 *
 * The simulated GPU is as asynchronous as a real one: every stream has a
 * thread of its own that runs the stream's work in order, while the host
 * thread that queued it goes on.  What waits for what is the driver's rule:
 *
 *   - a stream runs its operations one after another, in the order queued;
 *   - the legacy default stream (the NULL CUstream) of a device waits for
 *     the work queued before it on every blocking stream of that device, and
 *     they wait for the work queued before theirs on it; streams created
 *     with CU_STREAM_NON_BLOCKING wait for nothing but their own;
 *   - cuStreamWaitEvent waits for the cuEventRecord last queued before it;
 *   - cuStreamSynchronize, cuCtxSynchronize and cuEventSynchronize block the
 *     host until what they name has run.
 *
 * Every operation gets a number from one process-wide counter when it is
 * queued; "the work queued before" is work with a smaller number, so waits
 * only ever point back in time and cannot deadlock.
 */
#ifndef UFN_SIMRT_H
#define UFN_SIMRT_H

#include <pthread.h>

#include "cuda/cudrv.h"
#include "ufn_sim.h"   /* dim3 */

#define SIM_MAX_DEVICES 64
#define SIM_SMS 108               /* multiprocessors of each device */
#define SIM_THREADS_PER_SM 2048
#define SIM_BLOCKS_PER_SM 32
#define SIM_MAX_BLOCK 1024
#define SIM_SHARED 49152          /* shared memory per block without opt-in */
#define SIM_SHARED_OPTIN 166912   /* with it (163 KiB, an A100's) */
#define SIM_ALIGN 256
#define SIM_L2_BYTES (40 << 20)   /* an A100's L2 */
#define SIM_DEFAULT_MEMORY ((size_t)4 << 30)
#define SIM_MAX_CONTEXT_DEPTH 64

typedef struct sim_op sim_op;
typedef void (*sim_work)(sim_op *op);

/* What an operation adds to its device's statistics (ufn_sim_stats) when
 * it is queued to run: at once, or, captured into a graph, each time the
 * graph is launched. */
typedef struct sim_tally {
    int device;                 /* whose statistics: a peer copy counts on its destination */
    uint64_t launches, threads;
    uint64_t h2d, d2h, d2d, peer;
    uint64_t h2d_bytes, d2h_bytes, d2d_bytes, peer_bytes;
} sim_tally;

/* The work a stream captured (cuStreamBeginCapture .. cuStreamEndCapture):
 * its operations in order, never run themselves, shared by the graph, the
 * executable graphs made from it and their launches still queued. */
typedef struct sim_nodes {
    int refs;                   /* under the queues' lock */
    int count;
    sim_op *head, *tail;
} sim_nodes;

typedef enum sim_op_kind {
    SIM_WORK,       /* run(op): a copy or a launch */
    SIM_RECORD,     /* an event is reached */
    SIM_WAIT        /* wait until an event's record `gen` is reached */
} sim_op_kind;

/* One operation queued on a stream.  data[] holds the work's own arguments
 * (copied when it was queued, as the driver copies kernel parameters). */
struct sim_op {
    sim_op *next;
    sim_op_kind kind;
    uint64_t seq;               /* the process-wide order of queueing */
    uint64_t ready_ns;          /* not started before (ufn_sim_set_latency) */
    sim_work run;
    struct CUevent_st *event;   /* SIM_RECORD, SIM_WAIT (holds a reference) */
    uint64_t gen;
    sim_tally tally;
    sim_nodes *graph;           /* a graph launch: what it runs (holds a reference) */
    void *heap;                 /* freed with the op */
    _Alignas(16) unsigned char data[];
};

/* Handle checks: every object starts with a tag. */
enum {
    TAG_STREAM = 0x5354524d,
    TAG_EVENT = 0x45564e54,
    TAG_LIBRARY = 0x4c494252,
    TAG_KERNEL = 0x4b45524e,
    TAG_FUNCTION = 0x46554e43,
    TAG_GRAPH = 0x47524150,
    TAG_GRAPH_EXEC = 0x47455845,
    TAG_DEAD = 0x44454144
};

struct CUstream_st {
    unsigned tag;
    int device;
    bool legacy;                /* the device's NULL stream */
    bool blocking;              /* synchronises with the legacy stream */
    bool dying;                 /* destroyed: freed once its work has run */
    bool started;               /* its thread exists */
    sim_op *head, *tail;        /* queued; head is running or next */
    struct CUstream_st *next;   /* the device's streams */
    sim_nodes *capture;         /* capturing: what it has recorded so far */
    CUresult capture_status;    /* CUDA_SUCCESS, or the capture was invalidated */
};

/* A captured graph, and one instantiated from it (graph.c). */
struct CUgraph_st {
    unsigned tag;
    int device;
    sim_nodes *nodes;
};

struct CUgraphExec_st {
    unsigned tag;
    int device;
    sim_nodes *nodes;
};

struct CUevent_st {
    unsigned tag;
    int refs;                   /* the handle, and each queued op naming it */
    uint64_t recorded;          /* records queued */
    uint64_t reached;           /* records run */
};

/* ---- the driver's objects and state (state.c) ------------------------------------ */

struct CUctx_st {
    int device;
    int refs;                  /* primary context retain count */
};

struct CUfunc_st {
    unsigned tag;
    int device;
    const ufn_sim_kernel *kernel;
    struct CUlib_st *lib;
    int max_dynamic;           /* CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES (atomic) */
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
    /* ufn_depth_flag of a module with recursive helpers, one per device (the
     * CUDA module's __device__ variable; made on first use) */
    unsigned *depth_flag[SIM_MAX_DEVICES];
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
    size_t stack;              /* CU_LIMIT_STACK_SIZE (the simulator runs on its own stack) */
    ufn_sim_stats stats;
    /* The first check that failed a kernel on this device since the last
     * synchronising call reported one (CUDA_SUCCESS: none). */
    CUresult fault;
    char report[512];
} sim_device;

typedef struct sim_state {
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
    /* ufn_sim_inject_failure: the call that fails, after `skip` more */
    const char *fail_call;
    int fail_skip;
    CUresult fail_result;
} sim_state;

/* The simulator's state: devices, allocations, the injected failure. */
extern sim_state ufn_sim;

/* Every entry checks what the driver checks: an initialised driver, a
 * current context (whose device it names `dev`), and for tests the failure
 * ufn_sim_inject_failure asked for. */
#define REQUIRE_INIT()                          \
    do {                                        \
        if (!ufn_sim.ready)                     \
            return CUDA_ERROR_NOT_INITIALIZED;  \
    } while (0)

#define REQUIRE_CONTEXT(dev)                    \
    REQUIRE_INIT();                             \
    int dev = sim_current_device();             \
    if (dev < 0)                                \
        return CUDA_ERROR_INVALID_CONTEXT

#define INJECT(call)                                            \
    do {                                                        \
        CUresult inj_ = sim_injected(call);                     \
        if (inj_ != CUDA_SUCCESS)                               \
            return inj_ == UFN_SIM_LAZY ? CUDA_SUCCESS : inj_;  \
    } while (0)

/* The current context's device, or -1 without one. */
int sim_current_device(void);
/* The failure ufn_sim_inject_failure asked for, if this call of `call` is it. */
CUresult sim_injected(const char *call);
/* A stream usable from the current context (NULL is the default stream). */
CUresult sim_check_stream(CUstream s, int device);
CUresult sim_ctx_push(CUcontext ctx);
CUresult sim_ctx_pop(CUcontext *ctx);
/* The allocations list, lock held: add one, take one out by its base, find
 * the one that holds [p, p+bytes) (device: true) or page-locked memory. */
CUresult sim_add_alloc(void *base, size_t bytes, int device);
/* Queue op on s as sq_submit does, and add its tally to the statistics
 * unless the stream captured it instead of queueing it. */
CUresult sim_submit(CUstream s, int device, sim_op *op, uint64_t *seq);
/* Add a tally to its device's statistics. */
void sim_tally_add(const sim_tally *t);
sim_alloc *sim_take_alloc(const void *base, bool device);
sim_alloc *sim_find_in(bool device, uintptr_t p, size_t bytes);
sim_alloc *sim_find_range(CUdeviceptr p, size_t bytes);

/* Kernel faults.  A launch runs after cuLaunchKernel returned, as on a GPU,
 * so a check that fails it (grid.c) is recorded for its device, the first
 * one only, and the next call that waits for the device's work
 * (cuStreamSynchronize, cuCtxSynchronize, cuEventSynchronize, a copy into
 * pageable memory) returns it, once: sim_fault_take moves the report to
 * the calling thread, where ufn_cudrv_fail finds it (the table's
 * sim_report).  Unlike a GPU's, the context survives. */
void sim_fault_record(int device, CUresult r, const char *report);
CUresult sim_fault_take(int device);
bool sim_report_take(char *buf, size_t size);

/* ---- memory.c, library.c: driver entries the table in sim.c lists ---------------- */

CUresult sim_mem_alloc(CUdeviceptr *ptr, size_t bytes);
CUresult sim_mem_free(CUdeviceptr ptr);
CUresult sim_mem_alloc_host(void **ptr, size_t bytes);
CUresult sim_mem_free_host(void *ptr);
CUresult sim_mem_info(size_t *free_bytes, size_t *total_bytes);
CUresult sim_pointer_attribute(void *data, CUpointer_attribute attr, CUdeviceptr p);
CUresult sim_copy_h2d(CUdeviceptr dst, const void *src, size_t bytes, CUstream s);
CUresult sim_copy_d2h(void *dst, CUdeviceptr src, size_t bytes, CUstream s);
CUresult sim_copy_d2d(CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream s);
CUresult sim_copy_peer(CUdeviceptr dst, CUcontext dst_ctx, CUdeviceptr src, CUcontext src_ctx,
                       size_t bytes, CUstream s);
CUresult sim_library_load(CUlibrary *lib, const void *image, void *jit_options, void **jit_values,
                          unsigned njit, void *lib_options, void **lib_values, unsigned nlib);
CUresult sim_library_kernel(CUkernel *kernel, CUlibrary lib, const char *name);
CUresult sim_kernel_function(CUfunction *fn, CUkernel kernel);
CUresult sim_library_unload(CUlibrary lib);
CUresult sim_library_global(CUdeviceptr *ptr, size_t *bytes, CUlibrary lib, const char *name);
CUresult sim_launch(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                    unsigned bz, unsigned shared, CUstream s, void **params, void **extra);
CUresult sim_occupancy_block(int *min_grid, int *block, CUfunction f,
                             CUoccupancyB2DSize smem_of_block, size_t smem, int block_limit);
CUresult sim_occupancy_blocks(int *blocks, CUfunction f, int block, size_t smem);
CUresult sim_func_get_attribute(int *value, CUfunction_attribute attr, CUfunction f);
CUresult sim_func_set_attribute(CUfunction f, CUfunction_attribute attr, int value);

/* ---- graph.c: driver entries the table in sim.c lists ---------------------------- */

CUresult sim_begin_capture(CUstream s, CUstreamCaptureMode mode);
CUresult sim_end_capture(CUstream s, CUgraph *graph);
CUresult sim_graph_instantiate(CUgraphExec *exec, CUgraph graph, unsigned long long flags);
CUresult sim_graph_launch(CUgraphExec exec, CUstream s);
CUresult sim_graph_exec_destroy(CUgraphExec exec);
CUresult sim_graph_destroy(CUgraph graph);

/* ---- grid.c ----------------------------------------------------------------------- */

/* A launch as cuLaunchKernel queues it. */
typedef struct sim_grid {
    const ufn_sim_kernel *kernel;
    int device;
    dim3 grid, block;
    unsigned dynamic_shared;   /* bytes */
    bool checks;               /* UFN_SIM_CHECK */
    unsigned *depth_flag;      /* the module's ufn_depth_flag on the device, or NULL: set
                                  when a thread's recursion went too deep */
} sim_grid;

/* An operation that runs the grid, holding a copy of the launch's
 * parameters; NULL when out of memory.  A check that fails is recorded
 * with sim_fault_record. */
sim_op *sq_launch_op(const sim_grid *g, void **params);

/* ---- queue.c ------------------------------------------------------------------ */

/* A zeroed operation with `bytes` of data; NULL when out of memory. */
sim_op *sq_op_new(size_t bytes);
/* Queue op on stream s (NULL: the device's legacy stream) and return its
 * number; the stream owns op from here on.  A capturing stream records op
 * instead (*captured true, no number); one whose capture was invalidated
 * refuses it (CUDA_ERROR_STREAM_CAPTURE_INVALIDATED), and the legacy
 * stream refuses work while a blocking stream of its device captures
 * (CUDA_ERROR_STREAM_CAPTURE_IMPLICIT, invalidating that capture). */
CUresult sq_submit(CUstream s, int device, sim_op *op, uint64_t *seq, bool *captured);
/* Block until the operation numbered seq, queued on s, has run. */
void sq_wait_op(CUstream s, int device, uint64_t seq);

CUresult sq_stream_new(int device, unsigned flags, CUstream *out);
void sq_stream_release(CUstream s);
/* Until the work queued on s so far has run (NULL: the legacy stream, with
 * what it waits for). */
void sq_stream_sync(CUstream s, int device);
/* Until every stream of the device (-1: of every device) is idle. */
void sq_device_sync(int device);

CUresult sq_event_new(CUevent *out);
void sq_event_release(CUevent e);
CUresult sq_event_record(CUevent e, CUstream s, int device);
CUresult sq_event_wait(CUstream s, int device, CUevent e);
void sq_event_sync(CUevent e);

/* Stream capture.  Begin: CUDA_ERROR_ILLEGAL_STATE when s captures already.
 * End: the recorded work (a reference), CUDA_ERROR_ILLEGAL_STATE when s is
 * not capturing, CUDA_ERROR_STREAM_CAPTURE_INVALIDATED when a refused call
 * invalidated the capture (its work is dropped); either way s captures no
 * more. */
CUresult sq_capture_begin(CUstream s);
CUresult sq_capture_end(CUstream s, sim_nodes **nodes);
/* A call that cannot be captured (a synchronisation, a copy with pageable
 * memory, an event): CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED when s is
 * capturing (the capture is invalidated, as CUDA does), _INVALIDATED when
 * its capture already was, else CUDA_SUCCESS.  NULL is never capturing. */
CUresult sq_capture_refuse(CUstream s);
/* The same for a call that waits for the whole device (cuCtxSynchronize):
 * refused while any stream of the device captures. */
CUresult sq_capture_refuse_device(int device);
/* Queue a launch of captured work on s: one operation that runs the
 * nodes in order (it holds a reference).  Refused on a capturing stream. */
CUresult sq_graph_submit(CUstream s, int device, sim_nodes *nodes);
void sq_nodes_retain(sim_nodes *nodes);
void sq_nodes_release(sim_nodes *nodes);

/* fork(): the queues' lock (see ufn_fork_phase). */
void sq_fork(ufn_fork_phase phase);
/* Operations queued on the device's streams and not yet run. */
uint64_t sq_pending(int device);
void sq_set_latency_ns(uint64_t ns);

#endif /* UFN_SIMRT_H */
