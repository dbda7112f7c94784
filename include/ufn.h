/* ufn.h - the public interface of libufnrt, the ufnc transfer-and-launch runtime.
 *
 * A program that uses a module compiled by ufnc includes the module's generated
 * header (which includes this one) and links with libufnrt:
 *
 *     cc main.c polar.o $(pkg-config --cflags --libs ufn)
 *
 * Every function that can fail returns 0 or a negative ufn_status; ufn_error()
 * then describes the failure in words.  The library never prints (unless
 * UFN_TRACE asks it to), never exits and never aborts.  See ufn(3).
 */
#ifndef UFN_H
#define UFN_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

#define UFN_VERSION_MAJOR 0
#define UFN_VERSION_MINOR 1
#define UFN_VERSION_PATCH 0
#define UFN_VERSION_STRING "0.1.0"

/* Element types.  The numbering is part of the ABI between generated code and
 * the runtime: never reorder, only append. */
typedef enum ufn_dtype {
    UFN_BOOL = 0,   /* 1 byte, 0 or 1 */
    UFN_INT8,
    UFN_INT16,
    UFN_INT32,
    UFN_INT64,
    UFN_UINT8,
    UFN_UINT16,
    UFN_UINT32,
    UFN_UINT64,
    UFN_FLOAT32,
    UFN_FLOAT64,
    UFN_COMPLEX64,  /* two float32: real, imaginary */
    UFN_COMPLEX128, /* two float64: real, imaginary */
    UFN_NUM_DTYPES
} ufn_dtype;

/* Status codes.  0 is success; every failure is negative and distinct. */
typedef enum ufn_status {
    UFN_OK = 0,
    UFN_ERR_INVALID = -1,        /* a NULL pointer or an argument out of range */
    UFN_ERR_NDIM = -2,           /* ndim outside 0..UFN_MAXDIMS */
    UFN_ERR_SHAPE = -3,          /* negative extent, or shapes that do not broadcast */
    UFN_ERR_CORE_DIM = -4,       /* gufunc core dimensions that do not match the layout */
    UFN_ERR_DTYPE = -5,          /* no signature accepts the operands' dtypes */
    UFN_ERR_OVERFLOW = -6,       /* a size that does not fit in size_t / int64 */
    UFN_ERR_NOMEM = -7,          /* out of host memory */
    UFN_ERR_DEVICE_NOMEM = -8,   /* out of device memory */
    UFN_ERR_NO_DRIVER = -9,      /* UFN_BACKEND=cuda but no usable libcuda.so.1 */
    UFN_ERR_NO_DEVICE = -10,     /* the driver reports no (or not that) device */
    UFN_ERR_DRIVER = -11,        /* a CUDA driver call failed; the message names it */
    UFN_ERR_FREED = -12,         /* a device array that was freed, or never allocated */
    UFN_ERR_WRONG_MEMORY = -13,  /* host and device operands mixed where not allowed */
    UFN_ERR_NO_CODE = -14,       /* the module was built without code for this backend */
    UFN_ERR_BACKEND = -15,       /* UFN_BACKEND names no backend */
    UFN_ERR_OUTPUT = -16,        /* an output that is read-only, wrong dtype or shape */
    UFN_ERR_ALIGN = -17,         /* a data pointer not aligned to its element size */
    UFN_ERR_RECURSION = -18,     /* a recursive helper went deeper than UFN_MAX_DEPTH calls */
    UFN_ERR_LAUNCH = -19,        /* a kernel launch the device cannot run: a zero or too
                                    large dimension, too much shared memory */
    UFN_ERR_KERNEL = -20,        /* a kernel failed while running: a check of the simulator
                                    (bounds, race, barrier) or a fault the GPU reported */
    UFN_ERR_MPI = -21            /* an MPI call failed (ufn_mpi.h); the message names it */
} ufn_status;

/* Complex elements, as stored in UFN_COMPLEX64 / UFN_COMPLEX128 arrays (the
 * layout of C99's float _Complex and of std::complex<float>). */
typedef struct ufn_complex64 { float re, im; } ufn_complex64;
typedef struct ufn_complex128 { double re, im; } ufn_complex128;

/* The largest number of dimensions of an array. */
#define UFN_MAXDIMS 32

/* Where an array's elements live.  UFN_MEM_NONE is the zero value: an array
 * declared `ufn_array out = {0};` is empty and an entry point allocates it.
 * A sharded array (ufn_device_array_sharded) has its rows spread over
 * several devices; its `data` is the runtime's record of the parts, not an
 * element, and it is used whole, never as a view. */
typedef enum ufn_memory {
    UFN_MEM_NONE = 0,
    UFN_MEM_HOST = 1,
    UFN_MEM_DEVICE = 2,
    UFN_MEM_SHARDED = 3
} ufn_memory;

/* Flags of an array descriptor. */
enum {
    UFN_WEAK = 1      /* a scalar made by ufn_scalar_*(): like a Python scalar it
                         does not decide which signature is chosen (NEP 50) */
};

/* An n-dimensional array descriptor.  Strides count ELEMENTS, not bytes (as
 * DLPack does), and may be zero or negative.  Host arrays made by ufn_host()
 * are views of the caller's memory; device arrays are owned by the runtime and
 * released with ufn_free().  A 0-d host array whose data is NULL holds its
 * value in `value` (that is what ufn_scalar_*() return). */
typedef struct ufn_array {
    void *data;                      /* first element (host pointer or device address) */
    ufn_dtype dtype;
    int ndim;                        /* 0 for a scalar */
    ufn_memory memory;
    int device;                      /* device ordinal when memory == UFN_MEM_DEVICE */
    int flags;                       /* UFN_WEAK */
    int64_t shape[UFN_MAXDIMS];
    int64_t strides[UFN_MAXDIMS];    /* in elements */
    uint64_t alloc_id;               /* nonzero when the runtime owns the allocation */
    union {                          /* the value of a 0-d array with data == NULL */
        int64_t i64;
        uint64_t u64;
        double f64;
        float f32;
        unsigned char bytes[16];
    } value;
} ufn_array;

/* --- arrays --------------------------------------------------------------- */

/* A C-contiguous view of host memory.  `shape` may be NULL when ndim is 0. */
ufn_array ufn_host(void *data, ufn_dtype dtype, int ndim, const int64_t *shape);
/* A view with explicit strides, counted in elements. */
ufn_array ufn_host_strided(void *data, ufn_dtype dtype, int ndim, const int64_t *shape,
                           const int64_t *strides);

/* 0-d host arrays holding a scalar value in the descriptor itself.  They are
 * weak (UFN_WEAK): like Python scalars in NumPy 2 (NEP 50) they take the type
 * the other operands choose, provided the kind fits (an integer goes with
 * integer or float signatures, a float only with float ones). */
ufn_array ufn_scalar_bool(int value);
ufn_array ufn_scalar_int8(int8_t value);
ufn_array ufn_scalar_int16(int16_t value);
ufn_array ufn_scalar_int32(int32_t value);
ufn_array ufn_scalar_int64(int64_t value);
ufn_array ufn_scalar_uint8(uint8_t value);
ufn_array ufn_scalar_uint16(uint16_t value);
ufn_array ufn_scalar_uint32(uint32_t value);
ufn_array ufn_scalar_uint64(uint64_t value);
ufn_array ufn_scalar_float32(float value);
ufn_array ufn_scalar_float64(double value);
ufn_array ufn_scalar_complex64(float re, float im);
ufn_array ufn_scalar_complex128(double re, double im);

/* Element size in bytes, and the dtype's name ("float32"); -1/NULL if invalid. */
int ufn_dtype_size(ufn_dtype dtype);
const char *ufn_dtype_name(ufn_dtype dtype);
/* Number of elements (product of the shape), or -1 if the array is invalid. */
int64_t ufn_size(const ufn_array *a);

/* Copy a host array to newly allocated device memory (cuda.to_device).  The
 * result is C-contiguous. */
int ufn_to_device(const ufn_array *host, ufn_array *dev);
/* Allocate an uninitialised C-contiguous device array (cuda.device_array). */
int ufn_device_array(ufn_dtype dtype, int ndim, const int64_t *shape, ufn_array *dev);
/* Copy a device array to the host.  If `host` is empty (UFN_MEM_NONE) a
 * C-contiguous host buffer is allocated with malloc and owned by the caller
 * through ufn_free(); otherwise it must have the same shape and dtype. */
int ufn_copy_to_host(const ufn_array *dev, ufn_array *host);
/* Release what the runtime allocated for `a` and empty the descriptor.  Views
 * and empty arrays are left alone.  Safe to call twice.  Device memory is
 * reused only after the work queued so far on the current stream (see
 * ufn(3), STREAMS). */
void ufn_free(ufn_array *a);

/* --- ufunc methods ----------------------------------------------------------
 * The arguments of NumPy's ufunc.reduce, for the generated NAME_reduce entries
 * (ufn(3), METHODS).  A zeroed struct, like a NULL one, means axis=0. */
#define UFN_AXES_ALL (-1)        /* naxes: every axis (NumPy's axis=None) */

typedef struct ufn_reduce_opts {
    int naxes;                   /* 0: axis 0; UFN_AXES_ALL: every axis; else axes[0..naxes) */
    int axes[UFN_MAXDIMS];       /* negative ones count from the end, as in NumPy */
    bool keepdims;               /* keep the reduced axes, with length 1 */
    const void *initial;         /* NULL: none; else one value of the array's dtype */
    const ufn_array *where;      /* NULL: every element; else a bool host array that
                                    broadcasts to the input's shape */
} ufn_reduce_opts;

/* --- kernel launches ----------------------------------------------------------- */

/* The launch configuration of a @cuda.jit kernel, the first argument of its
 * generated entry (Numba's kernel[grid, block, stream, shared_bytes]); the
 * stream is the thread's current one (ufn_set_stream). */
typedef struct ufn_dim3 {
    uint32_t x, y, z;
} ufn_dim3;

typedef struct ufn_launch {
    ufn_dim3 grid;          /* blocks per grid   (0 in y or z means 1) */
    ufn_dim3 block;         /* threads per block (0 in y or z means 1) */
    size_t shared_bytes;    /* dynamic shared memory per block */
} ufn_launch;

/* kernel[blocks, threads], kernel[(bx, by), (tx, ty)], and any shape. */
ufn_launch ufn_launch_1d(uint32_t blocks, uint32_t threads);
ufn_launch ufn_launch_2d(uint32_t blocks_x, uint32_t blocks_y, uint32_t threads_x,
                         uint32_t threads_y);
ufn_launch ufn_launch_3d(ufn_dim3 grid, ufn_dim3 block);

/* --- streams and synchronisation ---------------------------------------------- */

/* A checked handle (NULL is the default stream): a destroyed one, or a value
 * ufn_stream_create did not make, is refused with UFN_ERR_INVALID. */
typedef struct ufn_stream_s *ufn_stream;

int ufn_stream_create(ufn_stream *stream);
int ufn_stream_destroy(ufn_stream stream);
int ufn_stream_synchronize(ufn_stream stream);
/* The stream that this thread's calls are queued on (NULL: the default). */
void ufn_set_stream(ufn_stream stream);
ufn_stream ufn_get_stream(void);
/* Wait for every call queued by this process. */
int ufn_synchronize(void);

/* --- errors, backends ----------------------------------------------------------- */

/* The message of the last failure on this thread ("" if none). */
const char *ufn_error(void);
/* A short name for a status: "UFN_ERR_SHAPE". */
const char *ufn_status_name(int status);
/* Record a failure for ufn_error() on this thread, printf-style, and return
 * `status`: for libraries built on libufnrt (libufnmpi), so that a program
 * reads every failure in one place. */
int ufn_set_error(int status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* The backend in use: "cuda", "host" or "sim".  The first call chooses it
 * (UFN_BACKEND=auto|cuda|host|sim); NULL if UFN_BACKEND was invalid. */
const char *ufn_backend(void);
/* Choose the backend explicitly before any other call (overrides UFN_BACKEND). */
int ufn_init(const char *backend);
/* The number of devices of the backend (1 for host). */
int ufn_device_count(void);

/* --- C interop: the program's threads, devices, memory and streams ------------ */

/* The number of threads a host call uses (UFN_NUM_THREADS as a call): 1 to
 * 256, or 0 for the default (UFN_NUM_THREADS, else every core).  A call made
 * from inside an OpenMP parallel region runs on its calling thread alone,
 * whatever this says.  See ufn(3), THREADS AND OPENMP. */
int ufn_set_num_threads(int n);
int ufn_get_num_threads(void);
/* The default device: where new device arrays go and host-array calls run
 * (UFN_DEVICE as a call, process-wide).  UFN_ERR_NO_DEVICE for an ordinal
 * the backend lacks; the host backend accepts any ordinal and stays on 0. */
int ufn_set_device(int device);
/* The default device, or a negative status. */
int ufn_get_device(void);
/* Device memory the program allocated (cudaMalloc, cuMemAlloc) as an array:
 * `strides` in elements, NULL for C order.  The driver must know [the
 * elements' bytes] as device memory of one allocation in its device's
 * primary context (the runtime API's); the view gets that device.  Not
 * owned: ufn_free leaves the memory to the program, which must keep it
 * alive while calls queued on it run.  UFN_ERR_WRONG_MEMORY for host
 * memory, and on the host backend. */
int ufn_device_view(void *ptr, ufn_dtype dtype, int ndim, const int64_t *shape,
                    const int64_t *strides, ufn_array *out);
/* The program's CUstream (cudaStream_t) as a stream for ufn_set_stream:
 * calls queued on it are ordered with the program's kernels and library
 * calls (cuBLAS, cuFFT) on that stream.  Of the default device
 * (ufn_set_device): a stream of another device is UFN_ERR_INVALID.  Not owned: ufn_stream_destroy forgets the handle and
 * leaves the stream to the program.  A NULL CUstream gives the default
 * stream (NULL).  UFN_ERR_INVALID on the host backend. */
int ufn_stream_wrap(void *cu_stream, ufn_stream *out);

/* --- tracing: what the runtime did, for profilers --------------------------------
 * UFN_TRACE=1 prints each event on stderr, a timed one with its duration
 * (UFN_TRACE=time is the same), UFN_TRACE=summary totals per kind at exit (ufn(3), TRACING).  A callback
 * receives every event whatever UFN_TRACE says. */
typedef enum ufn_trace_kind {
    UFN_TRACE_ALLOC,       /* device (or pinned host) memory allocated */
    UFN_TRACE_FREE,
    UFN_TRACE_H2D,         /* a copy from host to device */
    UFN_TRACE_D2H,
    UFN_TRACE_D2D,
    UFN_TRACE_LAUNCH,      /* a ufunc's kernel launched (cuda, sim) */
    UFN_TRACE_HOST_LOOP,   /* a ufunc call run by host loops */
    UFN_TRACE_SYNC,        /* a wait for a device's streams */
    UFN_TRACE_CHOICE,      /* the backend chosen; name says why */
    UFN_TRACE_KERNEL,      /* a @cuda.jit kernel launched (any backend) */
    UFN_TRACE_PEER,        /* a copy between two devices' memories */
    UFN_TRACE_GRAPH        /* a CUDA graph launched (a pipeline); amount: its kernels */
} ufn_trace_kind;

typedef struct ufn_trace_event {
    size_t size;             /* sizeof the struct the runtime filled: members are only
                                ever appended, so read a member only if it fits */
    ufn_trace_kind kind;
    const char *kind_name;   /* "H2D", as UFN_TRACE prints it */
    const char *backend;     /* "cuda", "sim" or "host" */
    const char *name;        /* the ufunc, kernel or why; NULL if none */
    uint64_t amount;         /* bytes copied or allocated; elements of a launch or host
                                loop; threads of a kernel */
    int device;
    int from_device;         /* UFN_TRACE_PEER: the source; else the same as device */
    double seconds;          /* the reporting thread's time in it (to queue it, for work
                                queued on a device stream); -1 when not timed */
    uint64_t start_ns;       /* CLOCK_MONOTONIC nanoseconds when it began; 0: not timed */
} ufn_trace_event;

/* Called on the thread that did the work, possibly on several threads at
 * once, after the operation; the event and its strings live only during the
 * call.  It must not call libufnrt.  NULL removes it. */
typedef void (*ufn_trace_callback)(const ufn_trace_event *event, void *ctx);
void ufn_set_trace_callback(ufn_trace_callback callback, void *ctx);

/* --- reductions with any binary ufunc ------------------------------------------ */

/* The general entry of a binary ufunc (two inputs, one output), as ufnc
 * generates it: gpu_weigh, add_ufunc. */
typedef int (*ufn_binary_ufunc)(const ufn_array *a, const ufn_array *b, ufn_array *out);

/* Reduce `a` along its first dimension with f: out (passed empty) gets
 * a's shape without its first dimension (0-d for a 1-d a), in the memory
 * a lives in (a sharded array's result is on its first device).  f needs
 * a signature T(T, T) for a's dtype and must be associative; it need not
 * be commutative.  Neighbouring rows are combined pairwise, level by
 * level, each level one call of f; a sharded array's devices fold their
 * rows at once, then their results are combined in device order.  No
 * identity: reducing 0 rows is UFN_ERR_SHAPE.  See ufn(3). */
int ufn_fold(ufn_binary_ufunc f, const ufn_array *a, ufn_array *out);
/* inout[i] = f(in[i], inout[i]) for n elements of dtype in host memory,
 * by f's host loop whatever the backend (MPI_Reduce_local's contract:
 * what an MPI reduction operator made from f calls, see ufn_mpi.h).  With
 * n == 0 it only says whether it could: a T(T, T) signature, host code. */
int ufn_combine_host(ufn_binary_ufunc f, ufn_dtype dtype, const void *in, void *inout,
                     size_t n);

/* --- several devices ------------------------------------------------------------ */

/* The devices calls spread over (UFN_DEVICES=all, or a list such as 0,2):
 * a call on host arrays is split into one slab per device, all running at
 * once, and new sharded arrays are spread over them.  n == 0 goes back to
 * the default device alone.  Ordinals are below 64.  The host backend has
 * one device: there any ordinals are accepted and the set stays {0}. */
int ufn_set_devices(const int *ordinals, int n);
/* The set in ascending order: stores up to `max` ordinals and returns how
 * many there are (1 and the default device when none was set). */
int ufn_get_devices(int *ordinals, int max);
/* The block distribution that splits calls, shards arrays and (ufn_mpi.h)
 * assigns rows to ranks: n rows in `parts` parts, the first n % parts of
 * them one row longer.  Part `part` (0-based) holds `count` rows from row
 * `first`.  (A part or count out of range gives 0 rows.) */
void ufn_block_range(int64_t n, int parts, int part, int64_t *first, int64_t *count);

/* Sharded arrays: the first dimension spread over the device set (or the
 * default device alone), one part per device in ufn_block_range's
 * distribution, each part in its device's memory.  A call whose operands
 * are sharded runs part by part, each on its own device, so a pipeline of
 * calls on sharded arrays moves no data between devices; ufn_copy_to_host
 * gathers one, ufn_free frees it.  Used whole: not as a view, not by a
 * kernel launch (launch on its parts). */
int ufn_device_array_sharded(ufn_dtype dtype, int ndim, const int64_t *shape, ufn_array *dev);
int ufn_to_device_sharded(const ufn_array *host, ufn_array *dev);
/* The number of parts, or a negative status when `a` is not sharded. */
int ufn_shard_count(const ufn_array *a);
/* Part `part` as an array of its device (a view: valid while `a` lives,
 * never freed itself) and the row of `a` it starts at. */
int ufn_shard_part(const ufn_array *a, int part, int64_t *first_row, ufn_array *view);

/* --- deferred pipelines ------------------------------------------------------ */

/* Between ufn_pipeline_begin() and ufn_pipeline_run() the ufunc calls this
 * thread makes are checked and recorded, not run (each returns UFN_OK, its
 * outputs unwritten); ufn_pipeline_run() then runs them all.  On the host
 * backend it runs them chunk by chunk, each chunk of the loop through every
 * call while it is in cache; on cuda and sim, call by call, in order.  A
 * call joins when its loop has as many elements as the pipeline's other
 * calls, its operands are contiguous (or broadcast scalars) in the memory of
 * the pipeline's first call, and it needs no temporary of its own (no cast
 * of an operand's dtype, no host operand of a device call, no overlap); a
 * gufunc call cannot join.  A call that cannot join, or fails, returns its
 * status and ufn_pipeline_run() then returns that status again and runs
 * nothing.  Arrays must stay alive until ufn_pipeline_run(); other
 * operations (copies, reductions, kernel launches) are not deferred. */
int ufn_pipeline_begin(void);
/* Mark an array (whole, C-contiguous) that calls of the pipeline write and
 * read but nobody reads afterwards: on the host backend it is never written
 * (a chunk-sized scratch stands in for it) and its contents are undefined
 * after the run; a call may not read it before a call writes it. */
int ufn_pipeline_temp(const ufn_array *a);
int ufn_pipeline_run(void);
/* Forget the recorded calls (after a failure, say); nothing runs. */
void ufn_pipeline_abort(void);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#ifdef __cplusplus
}
#endif
#endif /* UFN_H */
