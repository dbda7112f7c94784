/* ufnrt.h - libufnrt's internal header (users see only ufn.h).
 *
 * A call goes through the same steps whatever the backend:
 *
 *   call.c      check the operands, broadcast, choose the signature, allocate
 *               empty outputs, copy inputs an output overlaps, merge
 *               dimensions: the result is a ufn_plan
 *   backend.c   choose the backend once per process (UFN_BACKEND)
 *   host/cuda   execute the plan: the host backend with its thread pool and
 *               vectorised loops; the cuda backend through a driver table that
 *               is either the real libcuda.so.1 or the simulator
 *
 * Sections below are in that order.
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

/* ==== error.c ================================================================== */

/* Record a failure for ufn_error() on this thread and return `status`. */
int ufn_fail(int status, const char *fmt, ...) UFN_PRINTF(2, 3);
int ufn_vfail(int status, const char *fmt, va_list ap);
void ufn_clear_error(void);

/* ==== trace.c ================================================================== */

typedef enum ufn_event_kind {
    UFN_EV_ALLOC,      /* device (or pinned) allocation */
    UFN_EV_FREE,
    UFN_EV_H2D,        /* host to device copy */
    UFN_EV_D2H,
    UFN_EV_D2D,
    UFN_EV_LAUNCH,     /* a kernel launch (cuda, sim) */
    UFN_EV_HOST_LOOP,  /* a call executed by host loops */
    UFN_EV_SYNC
} ufn_event_kind;

typedef struct ufn_event {
    ufn_event_kind kind;
    const char *backend;     /* "cuda", "sim", "host" */
    const char *name;        /* kernel or ufunc name, or NULL */
    size_t bytes;            /* bytes moved or allocated; elements for launches */
    int device;
} ufn_event;

/* Report an event: printed to stderr when UFN_TRACE=1, and passed to the
 * hook (tests use it to assert the exact sequence of transfers). */
void ufn_trace(const ufn_event *ev);
bool ufn_tracing(void);
typedef void (*ufn_trace_hook)(const ufn_event *ev, void *ctx);
void ufn_set_trace_hook(ufn_trace_hook hook, void *ctx);
const char *ufn_event_name(ufn_event_kind kind);

/* ==== dtype.c ===================================================================== */

bool ufn_dtype_valid(int dtype);
/* NumPy's np.can_cast(from, to, casting='safe'). */
bool ufn_can_cast_safe(ufn_dtype from, ufn_dtype to);
/* Convert n elements between dtypes (host memory, strided in bytes), with the
 * same rules as generated code: float to int saturates, NaN becomes 0. */
void ufn_convert(void *dst, ufn_dtype dt, ptrdiff_t dstep, const void *src, ufn_dtype st,
                 ptrdiff_t sstep, size_t n);

/* ==== plan: what call.c hands to a backend ========================================== */

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
    /* Every operand C-contiguous over the (single) merged dimension. */
    bool contiguous;
} ufn_plan;

/* ==== backend.c ======================================================================= */

struct ufn_stream_s {
    const struct ufn_backend *backend;
    void *handle;                       /* the backend's stream (CUstream) */
};

/* Backends report their own allocations, copies and launches to ufn_trace
 * (callers of these operations do not trace them again).
 *
 * The typedef is ufn_backend_ops, not ufn_backend: that name is the public
 * function ufn_backend() of ufn.h, and C has one namespace for both. */
typedef struct ufn_backend {
    const char *name;                   /* "host", "cuda", "sim" */
    ufn_memory device_memory;           /* where ufn_device_array memory lives */
    int (*device_count)(void);
    /* The device new device arrays go to: the one UFN_DEVICE chose (0 by
     * default).  May be NULL (then 0). */
    int (*default_device)(void);
    /* Device memory; `device` is an ordinal. */
    int (*alloc)(int device, size_t bytes, void **ptr);
    void (*free)(int device, void *ptr);
    /* Contiguous copies; one side or both on the device. */
    int (*copy_h2d)(int device, void *dst, const void *src, size_t bytes, ufn_stream s);
    int (*copy_d2h)(int device, void *dst, const void *src, size_t bytes, ufn_stream s);
    int (*copy_d2d)(int device, void *dst, const void *src, size_t bytes, ufn_stream s);
    /* Run a plan.  plan->memory says where the operands are: device arrays of
     * this backend, or host arrays (the cuda backend stages those itself). */
    int (*execute)(const ufn_plan *plan, ufn_stream s);
    int (*stream_create)(ufn_stream s);     /* fills s->handle */
    int (*stream_destroy)(ufn_stream s);
    int (*stream_synchronize)(ufn_stream s);  /* NULL stream: the default one */
    int (*synchronize)(void);               /* every stream */
} ufn_backend_ops;

extern const ufn_backend_ops ufn_backend_host;
/* The CUDA backend through the real driver (dlopen of libcuda.so.1), and the
 * same backend through the simulated driver.  Each initialises on first call
 * and returns NULL with ufn_error() set when unusable (no driver, no device). */
const ufn_backend_ops *ufn_cuda_backend(void);
const ufn_backend_ops *ufn_sim_backend(void);

/* The backend chosen for this process (initialising it on first use), or
 * NULL with ufn_error() set. */
const ufn_backend_ops *ufn_active_backend(void);

/* ==== alloc.c: the registry of runtime-owned allocations ================================ */

/* Every allocation the runtime hands out gets a nonzero id, so that a stale
 * descriptor (after ufn_free) is recognised instead of dereferenced. */
uint64_t ufn_registry_add(void *base, size_t bytes, ufn_memory memory, int device);
/* The allocation containing [ptr, ptr+bytes) with that id, or fail with
 * UFN_ERR_FREED. */
int ufn_registry_check(uint64_t id, const void *ptr, size_t bytes);
/* Remove and return the base pointer (NULL if unknown). */
void *ufn_registry_remove(uint64_t id, ufn_memory *memory, int *device);

/* ==== host backend ====================================================================== */

/* The ISA the host loops run with: the best the CPU supports, or the one
 * UFN_HOST_ISA forces (baseline, avx2, avx512) - valgrind needs baseline. */
int ufn_host_isa(void);
/* Number of host threads (UFN_NUM_THREADS, default: all cores). */
int ufn_host_threads(void);

#endif /* UFNRT_H */
