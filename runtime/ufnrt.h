/* ufnrt.h - libufnrt's internal header (users see only ufn.h).
 *
 * Three layers, and calls go down only (make check-layers-runtime):
 *
 *   API         array.c, backend.c, stream.c, dlpack.c, and call.c for the
 *               generated entry points
 *   plan        call.c checks the operands, broadcasts, chooses the
 *               signature, allocates empty outputs, copies inputs an output
 *               overlaps and merges dimensions: the result is a ufn_plan
 *   backend     a ufn_backend_ops table executes it: host/ with its thread
 *               pool and vectorised loops; cuda/ through a driver table that
 *               is either the real libcuda.so.1 or the simulator (sim/)
 *
 * error.c, trace.c, dtype.c and alloc.c serve every layer.  Sections below
 * are in that order.
 */
#ifndef UFNRT_H
#define UFNRT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ufn.h"
#include "ufn_abi.h"

#if defined(__GNUC__)
#define UFN_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define UFN_PRINTF(f, a)
#endif

#define UFN_MAXARGS 32   /* operands of one ufunc (inputs + outputs) */

/* fork(): every lock of the runtime is taken before (PREPARE), in one order,
 * and given back after in the parent and the child, so that the child finds
 * no lock held by a thread it does not have.  backend.c registers the
 * handlers; each file with locks has its ufn_*_fork(phase). */
typedef enum ufn_fork_phase {
    UFN_FORK_PREPARE,
    UFN_FORK_PARENT,
    UFN_FORK_CHILD
} ufn_fork_phase;

/* ==== error.c ================================================================== */

/* Record a failure for ufn_error() on this thread and return `status`. */
int ufn_fail(int status, const char *fmt, ...) UFN_PRINTF(2, 3);
int ufn_vfail(int status, const char *fmt, va_list ap);
void ufn_clear_error(void);
/* Put "prefix: " before the current message (unless it starts so already)
 * and return `status`: entry points name themselves in messages. */
int ufn_fail_prefix(int status, const char *prefix);
/* The status of this thread's last failure (UFN_OK if none). */
int ufn_error_status(void);
/* Did generated code on this thread call ufn_depth_exceeded() since the last
 * time?  Clears the flag. */
bool ufn_depth_take(void);

/* ==== trace.c ================================================================== */

typedef enum ufn_event_kind {
    UFN_EV_ALLOC,      /* device (or pinned) allocation */
    UFN_EV_FREE,
    UFN_EV_H2D,        /* host to device copy */
    UFN_EV_D2H,
    UFN_EV_D2D,
    UFN_EV_LAUNCH,     /* a kernel launch (cuda, sim) */
    UFN_EV_HOST_LOOP,  /* a call executed by host loops */
    UFN_EV_SYNC,
    UFN_EV_CHOICE,     /* UFN_BACKEND=auto chose a backend; name says why */
    UFN_EV_KERNEL,     /* a @cuda.jit kernel launch (any backend); bytes: threads */
    UFN_EV_PEER,       /* a copy from device `from` into device `device`'s memory */
    UFN_EV_GRAPH       /* a CUDA graph launched (a pipeline); bytes: its kernels */
} ufn_event_kind;

typedef struct ufn_event {
    ufn_event_kind kind;
    const char *backend;     /* "cuda", "sim", "host" */
    const char *name;        /* kernel or ufunc name, or NULL */
    size_t bytes;            /* bytes moved or allocated; elements for launches */
    int device;
    int from;                /* UFN_EV_PEER: the source device */
    uint64_t start_ns;       /* ufn_trace_clock() when it began; 0: not timed */
} ufn_event;

/* Report an event: printed to stderr when UFN_TRACE=1, and passed to the
 * hook (tests use it to assert the exact sequence of transfers). */
void ufn_trace(const ufn_event *ev);
bool ufn_tracing(void);
typedef void (*ufn_trace_hook)(const ufn_event *ev, void *ctx);
void ufn_set_trace_hook(ufn_trace_hook hook, void *ctx);
void ufn_trace_fork(ufn_fork_phase phase);
const char *ufn_event_name(ufn_event_kind kind);
/* Build and report an event; nearly free when nobody listens. */
void ufn_emit(ufn_event_kind kind, const char *backend, const char *name, size_t bytes,
              int device);
/* The same for an operation timed from start_ns (ufn_trace_clock()). */
void ufn_emit_since(ufn_event_kind kind, const char *backend, const char *name, size_t bytes,
                    int device, uint64_t start_ns);
/* Now in monotonic nanoseconds when anyone listens, else 0 (untimed). */
uint64_t ufn_trace_clock(void);

/* trace_nvtx.c: an NVTX range named `name` around a call on a device
 * backend (`device`: its memory is UFN_MEM_DEVICE), when libnvToolsExt
 * (UFN_NVTX_LIBRARY) is there: push says whether it pushed one, and then
 * pop must follow on the same thread. */
bool ufn_nvtx_push(bool device, const char *name);
void ufn_nvtx_pop(void);

/* ==== dtype.c ===================================================================== */

bool ufn_dtype_valid(int dtype);

/* Kinds, in NumPy's same_kind order. */
typedef enum ufn_kind {
    UFN_KIND_BOOL,
    UFN_KIND_UINT,
    UFN_KIND_INT,
    UFN_KIND_FLOAT,
    UFN_KIND_COMPLEX
} ufn_kind;

ufn_kind ufn_dtype_kind(ufn_dtype dtype);
/* Alignment a data pointer needs: the element size, half of it for complex. */
int ufn_dtype_align(ufn_dtype dtype);
/* NumPy's np.can_cast(from, to, casting='safe'). */
bool ufn_can_cast_safe(ufn_dtype from, ufn_dtype to);
/* np.can_cast(from, to, casting='same_kind'): how outputs may be cast. */
bool ufn_can_cast_same_kind(ufn_dtype from, ufn_dtype to);
/* Convert n elements between dtypes (host memory, strided in bytes), with the
 * same rules as generated code: float to int saturates, NaN becomes 0. */
void ufn_convert(void *dst, ufn_dtype dt, ptrdiff_t dstep, const void *src, ufn_dtype st,
                 ptrdiff_t sstep, size_t n);

/* ==== check.c, copy.c: descriptors ==================================================== */

/* Internal flag: ufn_host() was given a NULL shape with ndim > 0. */
#define UFN_FLAG_NULL_SHAPE (1 << 30)
/* Internal flag bits: a tag of the descriptor's own address and allocation,
 * set when the runtime fills a descriptor with a new array.  A descriptor
 * that still holds its live array carries the tag; stack garbage, even a
 * copy of such a descriptor, does not (it lies at another address), so
 * "fill this descriptor" can refuse the first without refusing the second. */
#define UFN_FLAG_OWNER_MASK (0xffff << 8)
int ufn_owner_tag(const ufn_array *where, uint64_t id);
/* Give *dst the array a (copied), tagged as its owner. */
void ufn_hand_over(ufn_array *dst, const ufn_array *a);
/* The end of a call that allocated its result res because *out was empty:
 * on success hand res over to *out, on failure free it; st passes through.
 * With a caller's array in *out, res is that array and nothing happens. */
int ufn_finish_result(ufn_array *out, ufn_array *res, int st);
/* Does *a hold, as its owner, a live array of the runtime's? */
bool ufn_holds_live(const ufn_array *a);

/* Check a descriptor the caller passed (not an empty one): NULL, memory,
 * dtype, ndim, negative extents, sizes that overflow, NULL or unaligned
 * data, stale runtime allocations, device arrays the backend cannot use.
 * Fails with "<what>: <message>". */
int ufn_check_array(const ufn_array *a, const char *what);
/* The same, accepting a sharded array (multi_shard.c checks its record):
 * for callers that handle one whole. */
int ufn_check_whole(const ufn_array *a, const char *what);
/* The same for operand `index` of a call: "input 1: ..." (formats the name
 * only on failure; sharded arrays accepted). */
int ufn_check_operand(const ufn_array *a, const char *kind, int index);
/* The bytes [lo, hi) its elements occupy, relative to a->data (lo == hi
 * when it has none).  For checked arrays only. */
void ufn_array_extent(const ufn_array *a, int64_t *lo, int64_t *hi);
/* Where the first element is: a->data, or the inline value of a 0-d scalar. */
const void *ufn_array_ptr(const ufn_array *a);
bool ufn_is_c_contiguous(const ufn_array *a);
bool ufn_is_f_contiguous(const ufn_array *a);
/* A ufunc's or kernel's module (NULL: none) is of this runtime's ABI version,
 * or fail with UFN_ERR_INVALID, naming `name`. */
int ufn_check_module(const ufn_module *m, const char *name);
/* The strides in BYTES, and the bytes its elements fill (elements times the
 * element size), of a checked array. */
void ufn_byte_strides(const ufn_array *a, int64_t *out);
size_t ufn_array_bytes(const ufn_array *a);
void ufn_c_strides(int ndim, const int64_t *shape, int64_t *strides);
/* Copy an n-d host array into another of the same shape, converting the
 * dtype if needed; strides here are in BYTES. */
void ufn_copy_nd(int ndim, const int64_t *shape, char *dst, ufn_dtype dt,
                 const int64_t *dstrides, const char *src, ufn_dtype st,
                 const int64_t *sstrides);
/* A new registry-owned C-contiguous array: host memory (64-byte aligned
 * malloc) or device memory of the active backend.  Never zero bytes, so
 * data is never NULL. */
int ufn_alloc_array(ufn_dtype dtype, int ndim, const int64_t *shape, ufn_memory memory,
                    int device, ufn_array *out);
/* Give back the allocation with this id (no-op for 0 or an unknown id). */
void ufn_release(uint64_t id);

/* ==== plan: what call.c hands to a backend ==========================================
 *
 * call.c has checked every argument, chosen the loop, allocated outputs and
 * temporaries and resolved overlap before it calls backend->execute(backend, plan,
 * ufn_get_stream()); a backend only runs the plan.  What it can rely on:
 *
 *   - n >= 1: a call with no loop iterations never reaches execute (a gufunc
 *     may still have core sizes of 0; its loop must handle them);
 *   - memory == UFN_MEM_DEVICE: every data[k] is device memory of `device`
 *     (host inputs were copied there; host outputs are written back by
 *     call.c afterwards), but for the scalars of a ufunc passed by value:
 *     by_value[k] is set, data[k] points at the value (the loop's type,
 *     host memory) and its strides are 0;  memory == UFN_MEM_HOST: every data[k] is
 *     host memory, possibly strided, broadcast (stride 0) or reversed; a
 *     device backend stages it itself;
 *   - operand k has loop->types[k], elsize[k] bytes, inputs first; strides
 *     count ELEMENTS (multiply by elsize for host-loop byte steps); outputs
 *     never have stride 0 and never overlap an input except elementwise
 *     identically (same data and strides, ufuncs only);
 *   - ndim is small after merging; strides[k][d] for d < ndim; ndim == 0 is
 *     one iteration.  contiguous (ufuncs only) means ndim <= 1 and every
 *     stride 1: the typed kernel form (n, p0, p1, ...) applies;
 *   - gufuncs: core_size[j] by name index (order of first appearance in the
 *     layout) and core_strides[k][0..core_ndim[k]) in the operand's layout
 *     order; a host loop gets dims = {count, core_size...} and steps =
 *     {loop steps of each operand..., core steps of operand 0..., of 1...};
 *   - data pointers of a HOST plan may point into call.c's stack (converted
 *     scalars): a HOST plan must be finished, outputs written, when execute
 *     returns.  A DEVICE plan may still be queued on the stream when execute
 *     returns; call.c frees its temporaries stream-ordered, on the same
 *     stream, and copies results to host outputs with copy_d2h (which
 *     waits).
 *
 * Returns 0 or a negative status with ufn_fail().  n >= 2^31 or ndim beyond
 * UFN_KMAXDIM is the backend's to split. */

typedef struct ufn_plan {
    const ufn_func *func;
    const ufn_loop *loop;
    int nargs;                          /* nin + nout */
    ufn_memory memory;                  /* where every operand lives: HOST or DEVICE */
    int device;
    /* The loop (broadcast) space after merging dimensions, C order:
     * innermost dimension last.  ndim == 0 means one iteration. */
    int ndim;
    int64_t shape[UFN_MAXDIMS];
    int64_t n;                          /* product of shape */
    char *data[UFN_MAXARGS];            /* each operand's first element */
    int elsize[UFN_MAXARGS];
    int64_t strides[UFN_MAXARGS][UFN_MAXDIMS]; /* element strides; 0 = broadcast */
    /* gufuncs: sizes of the core dimensions by name index, and each operand's
     * core strides (elements) in the order of its layout. */
    int ncore;
    int64_t core_size[UFN_KMAXCORE];
    int core_ndim[UFN_MAXARGS];
    int64_t core_strides[UFN_MAXARGS][UFN_KMAXCORE];
    /* Every operand C-contiguous over the (single) merged dimension
     * (ndim <= 1, every stride 1).  Always false for gufuncs. */
    bool contiguous;
    /* Device plans of ufuncs: inputs passed to the kernel by value. */
    bool by_value[UFN_MAXARGS];
} ufn_plan;

/* The descriptor behind a generated general entry of a binary ufunc, or
 * NULL when `entry` is not one (call.c: the entry is called once with NULL
 * arguments, and its ufn_call only answers; a generated entry reads
 * nothing of them).  What multi_fold.c takes ufuncs by. */
const ufn_func *ufn_func_of(ufn_binary_ufunc entry);

/* ==== broadcast.c, dispatch.c, plan.c: the steps of call.c ============================= */

/* The shapes of one call and what broadcasting makes of them. */
typedef struct ufn_shapes {
    const ufn_array *arg[UFN_MAXARGS];  /* in: inputs, then outputs (NULL: empty) */
    int ndim;                           /* out: the loop (broadcast) shape */
    int64_t shape[UFN_MAXDIMS];
    int64_t n;                          /* product of shape */
    int64_t core_size[UFN_KMAXCORE];    /* by name index */
} ufn_shapes;

/* Bind core dimensions, broadcast the loop dimensions of inputs and given
 * outputs (NumPy's rules and messages). */
int ufn_broadcast(const ufn_func *f, ufn_shapes *s);

/* Whether an input is weak (NEP 50): a ufn_scalar_*() value. */
bool ufn_is_weak(const ufn_array *a);
/* The loop for the inputs' dtypes: exact match, then NumPy safe casting in
 * declaration order; weak scalars by kind.  A loop index, or UFN_ERR_DTYPE
 * with a message listing the signatures. */
int ufn_choose_loop(const ufn_func *f, const ufn_array *const *in);

/* Drop size-1 loop dimensions, order the rest by stride (outermost first),
 * merge dimensions that are contiguous in every operand, and set n and
 * contiguous.  plan->ndim, shape and strides must be filled. */
void ufn_plan_simplify(ufn_plan *plan);

/* ==== kernel.c: what a @cuda.jit launch hands to a backend ============================
 *
 * kernel.c has chosen the signature, checked the launch against the
 * device's limits (ufn_klimits, from the backend), moved host arrays to the
 * device (device backends) and built the parameter array before it calls
 * backend->launch_kernel(backend, plan, ufn_get_stream()).  A backend may
 * rely on: every dimension >= 1 and within the limits; params[k] points at
 * parameter k as the kernel takes it (ufn_abi.h: a scalar's value, an
 * array's {data, shape, stride} with data in this backend's device memory,
 * or host memory for the host backend); params and what they point at are
 * the caller's only until launch_kernel returns (a device backend copies
 * them when it queues the launch, as cuLaunchKernel does).  It may leave
 * the launch queued on the stream: kernel.c synchronises the stream before
 * it copies results back, and frees its device copies stream-ordered.  A
 * fault of the kernel is UFN_ERR_KERNEL, from the launch or from the call
 * that next waits for the stream. */

/* A device's launch limits (CUDA's device attributes). */
typedef struct ufn_klimits {
    uint32_t threads;                   /* per block */
    uint32_t block[3];                  /* per block dimension */
    uint32_t grid[3];                   /* per grid dimension */
    size_t shared;                      /* bytes of shared memory per block, by default */
    size_t shared_optin;                /* ... at most, once the kernel opts in */
} ufn_klimits;

typedef struct ufn_kplan {
    const ufn_kernel *kernel;
    const ufn_ksig *sig;
    int device;
    uint32_t grid[3], block[3];
    size_t dynamic_shared;
    void **params;                      /* kernel->nparams of them */
} ufn_kplan;

/* ==== backend.c ======================================================================= */

/* A stream as the backends see it.  The program's ufn_stream is a checked
 * handle of one (stream.c); NULL, the default stream, has no object. */
typedef struct ufn_stream_impl {
    const struct ufn_backend *backend;
    void *handle;                       /* the backend's stream (a cuda_stream) */
} ufn_stream_impl;

/* Backends report their own allocations, copies and launches to ufn_trace
 * (callers of these operations do not trace them again).  Every operation
 * receives the table it was called through (`be`), so that one set of
 * functions can serve several backends (cuda and sim share theirs).
 *
 * The typedef is ufn_backend_ops, not ufn_backend: that name is the public
 * function ufn_backend() of ufn.h, and C has one namespace for both. */
struct ufn_pipe;

typedef struct ufn_backend {
    const char *name;                   /* "host", "cuda", "sim" */
    ufn_memory device_memory;           /* where ufn_device_array memory lives */
    int (*device_count)(const struct ufn_backend *be);
    /* The device new device arrays go to: the one UFN_DEVICE chose (0 by
     * default).  May be NULL (then 0). */
    int (*default_device)(const struct ufn_backend *be);
    /* Device memory; `device` is an ordinal.  Both are ordered on stream s:
     * alloc's memory is ready for work queued on s, and free gives it back
     * once the work queued on s so far is done with it (so a call frees
     * its temporaries without waiting).  Memory used on another stream
     * than s must have that stream synchronised first. */
    int (*alloc)(const struct ufn_backend *be, int device, size_t bytes, ufn_stream_impl *s,
                 void **ptr);
    void (*free)(const struct ufn_backend *be, int device, void *ptr, ufn_stream_impl *s);
    /* Contiguous copies; one side or both on the device.  copy_h2d and
     * copy_d2h return when the host buffer may be reused (h2d) or holds the
     * data (d2h), ordered after earlier work on the stream. */
    int (*copy_h2d)(const struct ufn_backend *be, int device, void *dst, const void *src,
                    size_t bytes, ufn_stream_impl *s);
    int (*copy_d2h)(const struct ufn_backend *be, int device, void *dst, const void *src,
                    size_t bytes, ufn_stream_impl *s);
    int (*copy_d2d)(const struct ufn_backend *be, int device, void *dst, const void *src,
                    size_t bytes, ufn_stream_impl *s);
    /* A copy from one device's memory into another's (NULL on a backend of
     * one device): after the work queued so far on both devices' default
     * streams, and done when it returns. */
    int (*copy_peer)(const struct ufn_backend *be, int dst_device, void *dst, int src_device,
                     const void *src, size_t bytes);
    /* Run a plan (see "plan" above).  plan->memory says where the operands
     * are: device arrays of this backend, or host arrays (the cuda backend
     * stages those itself). */
    int (*execute)(const struct ufn_backend *be, const ufn_plan *plan, ufn_stream_impl *s);
    int (*stream_create)(const struct ufn_backend *be, ufn_stream_impl *s);  /* fills s->handle */
    int (*stream_destroy)(const struct ufn_backend *be, ufn_stream_impl *s);
    /* NULL stream: the default one */
    int (*stream_synchronize)(const struct ufn_backend *be, ufn_stream_impl *s);
    int (*synchronize)(const struct ufn_backend *be);   /* every stream */
    /* @cuda.jit kernels (see "kernel.c" above): a device's limits, and a
     * launch queued on stream s. */
    int (*kernel_limits)(const struct ufn_backend *be, int device, ufn_klimits *out);
    int (*launch_kernel)(const struct ufn_backend *be, const ufn_kplan *plan,
                         ufn_stream_impl *s);
    /* C interop (interop.c); NULL on a backend without devices of its own.
     * Make `device` the default device (checked, initialised), for
     * ufn_set_device. */
    int (*set_default_device)(const struct ufn_backend *be, int device);
    /* The device whose memory [ptr+lo, ptr+hi) is, as the driver knows it
     * (ufn_device_view), or fail. */
    int (*device_pointer)(const struct ufn_backend *be, const void *ptr, int64_t lo, int64_t hi,
                          int *device);
    /* Fill s->handle with the program's driver stream `cu` (a CUstream) of
     * the default device, borrowed: stream_destroy leaves `cu` alone. */
    int (*stream_wrap)(const struct ufn_backend *be, void *cu, ufn_stream_impl *s);
    /* Run a deferred pipeline (ufn_pipe, pipeline.c) on stream s as one
     * piece of work, or answer UFN_PIPE_DECLINED; NULL: never. */
    int (*run_pipeline)(const struct ufn_backend *be, const struct ufn_pipe *pipe,
                        ufn_stream_impl *s);
} ufn_backend_ops;

extern const ufn_backend_ops ufn_backend_host;
/* The CUDA backend through the real driver (dlopen of libcuda.so.1), and the
 * same backend through the simulated driver.  Each initialises on first call
 * and returns NULL with ufn_error() set when unusable (no driver, no device). */
const ufn_backend_ops *ufn_cuda_backend(void);
const ufn_backend_ops *ufn_sim_backend(void);
/* Why UFN_STAGE_BYTES was refused, or NULL (cuda_stage.c). */
const char *ufn_stage_config_error(void);
/* Can the started cuda backend's driver run the module's code (a driver
 * older than the toolkit that built it cannot)?  UFN_ERR_NO_DRIVER if not. */
int ufn_cuda_check_module(const ufn_module *m);

/* The backend chosen for this process (initialising it on first use), or
 * NULL with ufn_error() set. */
const ufn_backend_ops *ufn_active_backend(void);
/* The same, returning the status of the choice (UFN_OK or why it failed). */
int ufn_get_backend(const ufn_backend_ops **backend);
/* The same for a call of module m: when the choice is made now, auto also
 * asks whether the driver can run m's code. */
int ufn_get_backend_for(const ufn_module *m, const ufn_backend_ops **backend);
/* Install a backend as the process's choice (tests use a fake device
 * backend); fails if another one is in use already. */
int ufn_use_backend(const ufn_backend_ops *backend);
/* The cuda and sim backends' locks, and the simulator's (backend_cuda.c). */
void ufn_cuda_fork(ufn_fork_phase phase);
/* The device ordinal new device arrays go to (UFN_DEVICE, default 0). */
int ufn_current_device(void);

/* ==== multi_devices.c: the device set ==================================================== */

/* Ordinals of a device set are below this (one bit each in a word). */
#define UFN_MAX_SET 64

/* Read UFN_DEVICES for the backend just chosen: unset, "all", or a list of
 * ordinals ("0,2"); a value that means nothing, or names a device the
 * backend lacks, fails (backend.c then refuses the choice). */
int ufn_devices_configure(const ufn_backend_ops *be);
/* ufn_set_devices(): n == 0 empties the set (back to the default device). */
int ufn_devices_set(const ufn_backend_ops *be, const int *ordinals, int n);
/* The set, one bit per ordinal; 0 when none is set (calls use the default
 * device alone).  Always 0 on the host backend. */
uint64_t ufn_device_mask(void);
/* The ordinals of a mask in ascending order (at most UFN_MAX_SET); their count. */
int ufn_mask_devices(uint64_t mask, int *ordinals);

/* ==== multi_split.c: host-array calls over the device set ================================ */

/* Execute a plan: on the backend as it is, or - a plan over host memory,
 * a device backend, a device set - cut into one slab per device of the
 * set, each run on a thread of its own; returns when all are done.  The
 * first failure (in device order) is the call's, "device N: ...". */
int ufn_multi_execute(const ufn_backend_ops *be, const ufn_plan *plan, ufn_stream_impl *s);
/* Test hook: the fewest operand bytes of one slab (default 4 MiB); 0
 * restores the default. */
void ufn_multi_set_min_slab(size_t bytes);

/* ==== multi_shard.c: sharded arrays ===================================================== */

/* The record of a sharded array, where its descriptor's data points: the
 * first dimension in the block distribution (ufn_block_range) over
 * nparts devices, each part a C-contiguous device array of its rows (no
 * memory for a part of 0 rows).  Made and freed here, immutable between. */
typedef struct ufn_shards {
    uint64_t id;                        /* its registry id: the descriptor's alloc_id */
    const ufn_backend_ops *be;          /* whose memory the parts are */
    ufn_dtype dtype;
    int ndim;
    int64_t shape[UFN_MAXDIMS];         /* the whole array's */
    int nparts;
    int device[UFN_MAX_SET];
    int64_t first[UFN_MAX_SET];         /* each part's first row, and its rows */
    int64_t rows[UFN_MAX_SET];
    void *data[UFN_MAX_SET];
} ufn_shards;

/* A new sharded array over `devices` (nparts of them, ndim >= 1) in *out,
 * registered; its parts are uninitialised. */
int ufn_shards_new(const ufn_backend_ops *be, ufn_dtype dtype, int ndim, const int64_t *shape,
                   int nparts, const int *devices, ufn_array *out);
/* Free a record and its parts (ufn_release, with its registry entry gone). */
void ufn_shards_free(ufn_shards *t);
/* Is a, which says UFN_MEM_SHARDED, a live sharded array of the runtime's,
 * whole (the shape, dtype and C strides of its record)?  Fails with
 * "<what>: ..." otherwise. */
int ufn_shards_check(const ufn_array *a, const char *what);
/* The record of a checked sharded array. */
const ufn_shards *ufn_shards_of(const ufn_array *a);
/* Are the rows of a and b (first dimensions of equal length) on the same
 * devices, part by part? */
bool ufn_shards_alike(const ufn_shards *a, const ufn_shards *b);
/* Part i as an array of its device (a view, alloc_id 0). */
void ufn_shards_part(const ufn_shards *t, int i, ufn_array *view);

/* ==== multi_array.c ======================================================================== */

/* Copy a checked sharded array into the checked host array of its shape
 * and dtype, each part from its device. */
int ufn_shards_gather(const ufn_array *dev, const ufn_array *host);

/* ==== stream.c ========================================================================== */

/* A handle for a stream object the caller made (s->backend set, s->handle
 * filled by the backend), or UFN_ERR_NOMEM; on failure s stays the caller's. */
int ufn_stream_register(ufn_stream_impl *s, ufn_stream *out);
/* The object of this thread's current stream (NULL: the default one), or
 * UFN_ERR_INVALID when it was destroyed or never made. */
int ufn_current_stream(ufn_stream_impl **out);
/* The same, the default stream instead of a failure (for frees). */
ufn_stream_impl *ufn_current_stream_or_default(void);

/* ==== alloc.c: the registry of runtime-owned allocations ================================ */

/* Every allocation the runtime hands out gets a nonzero id, so that a stale
 * descriptor (after ufn_free) is recognised instead of dereferenced. */
uint64_t ufn_registry_add(void *base, size_t bytes, ufn_memory memory, int device);
/* The allocation containing [ptr, ptr+bytes) with that id, or fail with
 * UFN_ERR_FREED. */
int ufn_registry_check(uint64_t id, const void *ptr, size_t bytes);
/* Is the allocation with this id live? */
bool ufn_registry_live(uint64_t id);
/* Remove and return the base pointer (NULL if unknown). */
void *ufn_registry_remove(uint64_t id, ufn_memory *memory, int *device);
/* Live allocations (tests check for leaks). */
size_t ufn_registry_count(void);
void ufn_registry_fork(ufn_fork_phase phase);

/* ==== pipeline.c: deferred pipelines ==================================================== */

/* Is this thread recording a pipeline (ufn_pipeline_begin)? */
bool ufn_pipeline_recording(void);
/* A checked call's plan joins the pipeline instead of running: a status
 * when it cannot.  Plan data inside [local, local + local_bytes) (the
 * call's own scalar buffer) is copied; source[k] is where operand k's
 * elements came from (the caller's array, for a scalar copied there). */
int ufn_pipeline_add(const ufn_backend_ops *be, ufn_stream_impl *s, const ufn_plan *p, const void *local,
                     size_t local_bytes, const void *const *source);
/* A call of the pipeline failed (ufn_error() says why): ufn_pipeline_run
 * will report it and run nothing.  No-op when not recording. */
void ufn_pipeline_poison(int status);

/* A recorded pipeline as pipeline.c hands it to a device backend's
 * run_pipeline: its calls in order, all on one device and one stream, each
 * a flat loop over the same n elements (contiguous operands or broadcast
 * scalars); temp[i][k] says which temporary operand k of call i is (-1:
 * none), and a temporary is never read before a call writes it. */
#define UFN_PIPE_CALLS 64
#define UFN_PIPE_TEMPS 32
typedef struct ufn_pipe {
    int ncalls, ntemps;
    const ufn_plan *plan[UFN_PIPE_CALLS];
    const int *temp[UFN_PIPE_CALLS];
    int temp_elsize[UFN_PIPE_TEMPS];
} ufn_pipe;
/* run_pipeline cannot run this one as a whole: run it call by call. */
#define UFN_PIPE_DECLINED 1

/* ==== reduce.c, methods.c: the methods of binary ufuncs ================================ */

/* f's T(T, T) signature for dtype t, or fail naming "NAME.method". */
int ufn_method_loop(const ufn_func *f, ufn_dtype t, const char *method, const ufn_loop **out);

/* reduce_device.c: reduce on a cuda or sim device.  Why a's reduction (red:
 * the reduced axes; count elements into each of results results) cannot
 * run there, or NULL; and the reduction itself into the C-contiguous
 * device array res, from init (NULL: none). */
const char *ufn_reduce_device_refusal(const ufn_func *f, const ufn_loop *lp,
                                      const ufn_backend_ops *be, const ufn_array *a,
                                      const bool *red, bool where, int64_t count, int64_t results);
int ufn_reduce_device(const ufn_func *f, const ufn_loop *lp, const ufn_backend_ops *be,
                      const ufn_array *a, int64_t count, const void *init, const ufn_array *res);

/* ==== host backend ====================================================================== */

/* The ISA the host loops run with: the best the CPU supports, or the one
 * UFN_HOST_ISA forces (baseline, avx2, avx512) - valgrind needs baseline. */
int ufn_host_isa(void);
/* The most host threads a call may use (UFN_NUM_THREADS, ufn_set_num_threads). */
#define UFN_HOST_MAX_THREADS 256
/* Number of host threads (UFN_NUM_THREADS, default: all cores). */
int ufn_host_threads(void);
/* How many tasks `work` (elements, or elements times their core or calls)
 * takes on `threads` threads, cut into at most `units` pieces: 1 for small
 * work, else one per 16384 of work, at most 4 per thread (host.c). */
int64_t ufn_host_tasks(int threads, int64_t work, int64_t units);
/* Why UFN_HOST_ISA or UFN_NUM_THREADS was refused, or NULL. */
const char *ufn_host_config_error(void);
/* Override the number of host threads (tests); 0 restores the default. */
void ufn_host_set_threads(int n);
/* Host memory for arrays the runtime allocates (outputs, and the host
 * backend's "device" arrays): 64-byte aligned, released with free().  Large
 * blocks are 2 MiB aligned and advised as huge pages (THP is often in
 * "madvise" mode), as NumPy does: a fresh 40 MB output then costs a few
 * dozen page faults instead of ten thousand.  NULL when out of memory. */
void *ufn_host_memalign(size_t bytes);
/* The loop's host function for `isa`, or the best lower one built; NULL if none. */
ufn_host_loop ufn_host_pick_loop(const ufn_loop *loop, int isa);
/* A ufunc's chunk loop (ufn_abi.h) for the instruction set whose host loop
 * ufn_host_pick_loop picks; NULL if that one has none. */
ufn_host_chunk_loop ufn_host_pick_chunk_loop(const ufn_loop *loop, int isa);
/* Run a plan with host loops, on the calling thread and the pool.  Any
 * backend whose memory the CPU can address may use it. */
int ufn_host_execute(const ufn_plan *plan);
/* kernel_host.c: @cuda.jit kernels on the host backend, with the ISA and the
 * threads host.c chose; its limits are a GPU's (those of the simulated
 * device), so that what runs here runs there. */
int ufn_host_kernel_limits(const ufn_backend_ops *be, int device, ufn_klimits *out);
int ufn_host_run_kernel(const ufn_kplan *plan, int isa, int threads);

/* pool.c: a persistent pool of worker threads. */
typedef void (*ufn_task_fn)(void *ctx, int64_t task);
/* Run tasks 0..ntasks-1 on up to `nthreads` threads, the caller being one,
 * and return when all are done.  When the pool is busy with another
 * thread's call the caller runs them all itself, so this never blocks on
 * another call.  Returns the number of threads that took part. */
int ufn_pool_run(int nthreads, int64_t ntasks, ufn_task_fn fn, void *ctx);
/* openmp.c: is the calling thread inside an active OpenMP parallel region
 * of the program (false when the program has no OpenMP runtime)? */
bool ufn_omp_in_parallel(void);

#endif /* UFNRT_H */
