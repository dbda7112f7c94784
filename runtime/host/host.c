/* host.c - the host backend: "device" memory is 64-byte-aligned host memory
 * (so device-array code runs unchanged), copies are memcpy, and plans run
 * through the module's host loops on a thread pool.
 *
 * Executing a plan:
 *   - contiguous ufunc plans are split into chunks of whole cache lines
 *     across the pool, each chunk one call of the loop with unit steps;
 *   - a 1-d plan whose first input is contiguous and whose other inputs
 *     are broadcast scalars (step 0) is split the same way, the scalars at
 *     step 0 (the loops have a path for it: ufn_abi.h);
 *   - another 1-d plan whose operands are contiguous or broadcast scalars
 *     has the scalars expanded into small per-thread buffers, so the loop's
 *     contiguous (vectorised) path is used, in blocks;
 *   - any other plan walks its outer dimensions and hands the innermost one
 *     to the loop with byte steps (0 for broadcast operands); gufunc plans
 *     pass dims = {count, core sizes...} and steps = {loop steps..., core
 *     steps of each operand...}.  The linear iteration space is split into
 *     ranges across the pool.
 * Calls below about 32K elements (for gufuncs, 32K of estimated work) run
 * on the calling thread; no thread is ever created for them.
 *
 * ISA: the best of avx512 (F, DQ, VL, BW), avx2 (with FMA) and baseline
 * that the CPU has, or UFN_HOST_ISA=baseline|avx2|avx512 (never above what
 * the CPU supports); a loop without a variant for that ISA uses the best
 * lower one.  valgrind cannot execute AVX-512: run it with UFN_HOST_ISA=avx2
 * or baseline.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ufnrt.h"

#define PARALLEL_MIN 32768      /* elements (or work units) before threads help */
#define TASK_MIN 16384          /* the least work of one task */
#define TASKS_PER_THREAD 4      /* some slack for uneven threads */
#define EXPAND_BYTES 8192       /* per-thread buffer for expanded scalars */

/* ---- configuration ------------------------------------------------------------------- */

static pthread_once_t config_once = PTHREAD_ONCE_INIT;
static int cpu_isa, env_isa = -1, env_threads;
static char config_error[160];          /* a value of UFN_HOST_ISA or UFN_NUM_THREADS refused */
static atomic_int threads_override;

static int detect_isa(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
        __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bw"))
        return UFN_ISA_AVX512;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        return UFN_ISA_AVX2;
#endif
    return UFN_ISA_BASELINE;
}

static int online_cpus(void)
{
#ifdef CPU_COUNT
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        return CPU_COUNT(&set);
#endif
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

static void read_config(void)
{
    cpu_isa = detect_isa();
    const char *s = getenv("UFN_HOST_ISA");
    if (s && *s) {
        if (strcmp(s, "baseline") == 0)
            env_isa = UFN_ISA_BASELINE;
        else if (strcmp(s, "avx2") == 0)
            env_isa = UFN_ISA_AVX2;
        else if (strcmp(s, "avx512") == 0)
            env_isa = UFN_ISA_AVX512;
        else
            snprintf(config_error, sizeof config_error,
                     "UFN_HOST_ISA=%.40s names no instruction set (baseline, avx2, avx512)", s);
    }
    env_threads = online_cpus();
    if (env_threads > UFN_HOST_MAX_THREADS)
        env_threads = UFN_HOST_MAX_THREADS;
    s = getenv("UFN_NUM_THREADS");
    if (s && *s) {
        char *end;
        errno = 0;
        long v = strtol(s, &end, 10);
        if (!*end && !errno && v >= 1 && v <= UFN_HOST_MAX_THREADS)
            env_threads = (int)v;
        else
            snprintf(config_error, sizeof config_error,
                     "UFN_NUM_THREADS=%.40s is not a number of threads (1 to %d)", s,
                     UFN_HOST_MAX_THREADS);
    }
}

const char *ufn_host_config_error(void)
{
    pthread_once(&config_once, read_config);
    return config_error[0] ? config_error : NULL;
}

int ufn_host_isa(void)
{
    pthread_once(&config_once, read_config);
    return env_isa >= 0 && env_isa < cpu_isa ? env_isa : cpu_isa;
}

int64_t ufn_host_tasks(int threads, int64_t work, int64_t units)
{
    if (threads <= 1 || work < PARALLEL_MIN || units <= 1)
        return 1;
    int64_t ntasks = work / TASK_MIN;
    if (ntasks > (int64_t)threads * TASKS_PER_THREAD)
        ntasks = (int64_t)threads * TASKS_PER_THREAD;
    return ntasks < units ? ntasks : units;
}

int ufn_host_threads(void)
{
    pthread_once(&config_once, read_config);
    int n = atomic_load_explicit(&threads_override, memory_order_relaxed);
    return n > 0 ? n : env_threads;
}

void ufn_host_set_threads(int n)
{
    atomic_store(&threads_override, n > UFN_HOST_MAX_THREADS ? UFN_HOST_MAX_THREADS : n);
}

/* The instruction set whose host loop runs for `isa`: the best one at or
 * below it that the module was built for; -1 if none. */
static int built_isa(const ufn_loop *loop, int isa)
{
    if (isa >= UFN_ISA_COUNT)
        isa = UFN_ISA_COUNT - 1;
    while (isa >= 0 && !loop->host[isa])
        isa--;
    return isa;
}

ufn_host_loop ufn_host_pick_loop(const ufn_loop *loop, int isa)
{
    isa = built_isa(loop, isa);
    return isa >= 0 ? loop->host[isa] : NULL;
}

ufn_host_chunk_loop ufn_host_pick_chunk_loop(const ufn_loop *loop, int isa)
{
    isa = built_isa(loop, isa);
    return isa >= 0 ? loop->host_chunk[isa] : NULL;
}

/* ---- execution ----------------------------------------------------------------------- */

typedef struct exec {
    ufn_host_loop fn;
    int nargs;
    int ndim;                           /* loop dimensions */
    int64_t shape[UFN_MAXDIMS];
    char *data[UFN_MAXARGS];
    int64_t bstride[UFN_MAXARGS][UFN_MAXDIMS];  /* bytes */
    ufn_index dims[1 + UFN_KMAXCORE];   /* [0] set per call */
    ufn_index steps[UFN_MAXARGS * (1 + UFN_KMAXCORE)];
    int nsteps;
    int64_t n;                          /* iterations */
    int64_t chunk;                      /* iterations per task */
    /* scalar expansion */
    int elsize[UFN_MAXARGS];
    bool expand[UFN_MAXARGS];
    ufn_task_fn run;                    /* one of run_contig, run_expand, run_strided */
    atomic_bool too_deep;               /* a task's recursion went past UFN_MAX_DEPTH */
} exec;

static void task_range(const exec *x, int64_t task, int64_t *b, int64_t *e)
{
    *b = task * x->chunk;
    *e = *b + x->chunk < x->n ? *b + x->chunk : x->n;
}

/* Contiguous, or a scalar tail (below): one call per task, the plan's steps. */
static void run_contig(void *ctx, int64_t task)
{
    const exec *x = ctx;
    int64_t b, e;
    task_range(x, task, &b, &e);
    char *args[UFN_MAXARGS];
    for (int k = 0; k < x->nargs; k++)
        args[k] = x->data[k] + b * x->steps[k];
    ufn_index dims = e - b;
    x->fn(args, &dims, x->steps);
}

/* Contiguous but for broadcast scalars: expand them, call in blocks. */
static void run_expand(void *ctx, int64_t task)
{
    const exec *x = ctx;
    int64_t b, e;
    task_range(x, task, &b, &e);
    _Alignas(64) char buf[EXPAND_BYTES];
    int per = 0;
    for (int k = 0; k < x->nargs; k++)
        if (x->expand[k])
            per += x->elsize[k];
    int64_t block = EXPAND_BYTES / per;
    if (block > e - b)
        block = e - b;
    char *args[UFN_MAXARGS];
    ufn_index steps[UFN_MAXARGS];
    size_t off = 0;
    for (int k = 0; k < x->nargs; k++) {
        steps[k] = x->elsize[k];
        if (!x->expand[k]) {
            args[k] = x->data[k] + b * x->elsize[k];
            continue;
        }
        /* one copy, then doubling */
        char *dst = buf + off;
        size_t filled = (size_t)x->elsize[k], total = (size_t)(block * x->elsize[k]);
        memcpy(dst, x->data[k], filled);
        while (filled < total) {
            size_t n = filled < total - filled ? filled : total - filled;
            memcpy(dst + filled, dst, n);
            filled += n;
        }
        args[k] = dst;
        off += total;
    }
    for (int64_t i = b; i < e; i += block) {
        ufn_index dims = e - i < block ? e - i : block;
        x->fn(args, &dims, steps);
        for (int k = 0; k < x->nargs; k++)
            if (!x->expand[k])
                args[k] += dims * x->elsize[k];
    }
}

/* Strided or gufunc: walk the iteration range, innermost dimension per call. */
static void run_strided(void *ctx, int64_t task)
{
    const exec *x = ctx;
    int64_t b, e;
    task_range(x, task, &b, &e);
    int nd = x->ndim;
    char *args[UFN_MAXARGS];
    ufn_index dims[1 + UFN_KMAXCORE];
    memcpy(dims, x->dims, sizeof dims);
    if (nd == 0) {
        for (int k = 0; k < x->nargs; k++)
            args[k] = x->data[k];
        dims[0] = 1;
        x->fn(args, dims, x->steps);
        return;
    }
    int64_t idx[UFN_MAXDIMS];
    int64_t r = b;
    for (int d = nd - 1; d >= 0; d--) {
        idx[d] = r % x->shape[d];
        r /= x->shape[d];
    }
    int in = nd - 1;
    while (b < e) {
        for (int k = 0; k < x->nargs; k++) {
            int64_t off = 0;
            for (int d = 0; d < nd; d++)
                off += idx[d] * x->bstride[k][d];
            args[k] = x->data[k] + off;
        }
        int64_t count = x->shape[in] - idx[in];
        if (count > e - b)
            count = e - b;
        dims[0] = count;
        x->fn(args, dims, x->steps);
        b += count;
        idx[in] += count;
        for (int d = in; d > 0 && idx[d] == x->shape[d]; d--) {
            idx[d] = 0;
            idx[d - 1]++;
        }
    }
}

/* Input 0 contiguous, every other input a broadcast scalar (step 0) and
 * the outputs contiguous: gaussian_pdf(x, mean, sigma) with Python
 * scalars.  The ufunc loops take this as it comes (ufn_abi.h: they read
 * the scalars once, and a divisor made of them stays in a register), so
 * such a call runs through the contiguous path in whole chunks, its
 * scalars unexpanded: on gauss, 27 -> 19 ms of CPU time a 1e7 call, the
 * loads of the expanded copies gone (bench/RESULTS.md, issue 18). */
static bool scalar_tail(const ufn_plan *p)
{
    if (p->ncore > 0 || p->ndim != 1 || p->func->nin < 2 || p->strides[0][0] != 1)
        return false;
    for (int k = 1; k < p->nargs; k++)
        if (p->strides[k][0] != (k < p->func->nin ? 0 : 1))
            return false;
    return true;
}

/* Any task, then whether the generated code said it recursed too deep. */
static void run_checked(void *ctx, int64_t task)
{
    exec *x = ctx;
    x->run(ctx, task);
    if (ufn_depth_take())
        atomic_store(&x->too_deep, true);
}

static int64_t sat_mul(int64_t a, int64_t b)
{
    int64_t r;
    return __builtin_mul_overflow(a, b, &r) ? INT64_MAX : r;
}

int ufn_host_execute(const ufn_plan *p)
{
    ufn_host_loop fn = ufn_host_pick_loop(p->loop, ufn_host_isa());
    if (!fn)
        return ufn_fail(UFN_ERR_NO_CODE, "%s: the module has no host code for %s "
                        "(was it built without --target=host?)", p->func->name,
                        p->loop->signature);
    if (p->n == 0)
        return UFN_OK;
    uint64_t t0 = ufn_trace_clock();

    exec x;
    x.fn = fn;
    x.nargs = p->nargs;
    x.ndim = p->ndim;
    x.n = p->n;
    for (int d = 0; d < p->ndim; d++)
        x.shape[d] = p->shape[d];
    bool tail = scalar_tail(p);
    bool expandable = p->ncore == 0 && !p->contiguous && p->ndim == 1 && !tail;
    bool any_expand = false;
    for (int k = 0; k < p->nargs; k++) {
        x.data[k] = p->data[k];
        x.elsize[k] = p->elsize[k];
        for (int d = 0; d < p->ndim; d++)
            x.bstride[k][d] = p->strides[k][d] * p->elsize[k];
        x.expand[k] = false;
        if (expandable) {
            int64_t s = p->strides[k][0];
            if (s == 0 && k < p->func->nin)
                x.expand[k] = any_expand = true;
            else if (s != 1)
                expandable = false;
        }
    }
    /* Filling the buffers costs about one block; worth it for big calls. */
    expandable = expandable && any_expand && p->n >= PARALLEL_MIN;

    /* Steps of the loop: innermost loop dimension, then the core steps. */
    int ns = 0;
    for (int k = 0; k < p->nargs; k++)
        x.steps[ns++] = p->contiguous ? p->elsize[k]
                        : p->ndim > 0 ? x.bstride[k][p->ndim - 1] : 0;
    int64_t work = p->n;
    if (p->ncore > 0) {
        int64_t per = 1;
        for (int j = 0; j < p->ncore; j++) {
            x.dims[1 + j] = p->core_size[j];
            per = sat_mul(per, p->core_size[j] > 0 ? p->core_size[j] : 1);
        }
        for (int k = 0; k < p->nargs; k++)
            for (int j = 0; j < p->core_ndim[k]; j++)
                x.steps[ns++] = p->core_strides[k][j] * p->elsize[k];
        work = sat_mul(p->n, per);
    }
    x.nsteps = ns;

    int threads = ufn_host_threads();
    int64_t ntasks = ufn_host_tasks(threads, work, p->n);
    /* Chunks of whole cache lines (64 elements) for the contiguous paths. */
    int64_t chunk = (p->n + ntasks - 1) / ntasks;
    if (ntasks > 1 && p->ncore == 0)
        chunk = (chunk + 63) & ~(int64_t)63;
    x.chunk = chunk;
    ntasks = (p->n + chunk - 1) / chunk;

    x.run = (p->contiguous || tail) && p->ncore == 0 ? run_contig : expandable ? run_expand : run_strided;
    atomic_init(&x.too_deep, false);
    ufn_pool_run(threads, ntasks, run_checked, &x);
    ufn_emit_since(UFN_EV_HOST_LOOP, "host", p->func->name, (size_t)p->n, 0, t0);
    if (atomic_load(&x.too_deep))
        return ufn_fail(UFN_ERR_RECURSION, "%s: a recursive helper went deeper than %d calls",
                        p->func->name, UFN_MAX_DEPTH);
    return UFN_OK;
}

/* ---- the backend's operations -------------------------------------------------------- */

static int host_device_count(const ufn_backend_ops *be)
{
    (void)be;
    return 1;
}

#define HUGE_PAGE ((size_t)2 << 20)
#define HUGE_MIN ((size_t)4 << 20)     /* smaller blocks: ordinary pages */

void *ufn_host_memalign(size_t bytes)
{
    size_t align = bytes >= HUGE_MIN ? HUGE_PAGE : 64;
    size_t rounded = (bytes + align - 1) & ~(align - 1);
    void *p = NULL;
    if (rounded < bytes || rounded == 0 || posix_memalign(&p, align, rounded) != 0)
        return NULL;
#ifdef MADV_HUGEPAGE
    if (align == HUGE_PAGE)
        (void)madvise(p, rounded, MADV_HUGEPAGE);   /* a hint: failure changes nothing */
#endif
    return p;
}

static int host_alloc(const ufn_backend_ops *be, int device, size_t bytes, ufn_stream_impl *s,
                      void **ptr)
{
    (void)be, (void)s;
    if (!(*ptr = ufn_host_memalign(bytes)))
        return ufn_fail(UFN_ERR_NOMEM, "out of host memory allocating %zu bytes", bytes);
    ufn_emit(UFN_EV_ALLOC, "host", NULL, bytes, device);
    return UFN_OK;
}

static void host_free(const ufn_backend_ops *be, int device, void *ptr, ufn_stream_impl *s)
{
    (void)be, (void)s;
    ufn_emit(UFN_EV_FREE, "host", NULL, 0, device);
    free(ptr);
}

static int host_copy(ufn_event_kind kind, int device, void *dst, const void *src, size_t bytes)
{
    uint64_t t0 = ufn_trace_clock();
    if (bytes)
        memmove(dst, src, bytes);
    ufn_emit_since(kind, "host", NULL, bytes, device, t0);
    return UFN_OK;
}

static int host_h2d(const ufn_backend_ops *be, int device, void *dst, const void *src,
                    size_t bytes, ufn_stream_impl *s)
{
    (void)be, (void)s;
    return host_copy(UFN_EV_H2D, device, dst, src, bytes);
}

static int host_d2h(const ufn_backend_ops *be, int device, void *dst, const void *src,
                    size_t bytes, ufn_stream_impl *s)
{
    (void)be, (void)s;
    return host_copy(UFN_EV_D2H, device, dst, src, bytes);
}

static int host_d2d(const ufn_backend_ops *be, int device, void *dst, const void *src,
                    size_t bytes, ufn_stream_impl *s)
{
    (void)be, (void)s;
    return host_copy(UFN_EV_D2D, device, dst, src, bytes);
}

static int host_execute(const ufn_backend_ops *be, const ufn_plan *plan, ufn_stream_impl *s)
{
    (void)be, (void)s;    /* the host backend runs every call to completion */
    return ufn_host_execute(plan);
}

static int host_launch_kernel(const ufn_backend_ops *be, const ufn_kplan *plan,
                              ufn_stream_impl *s)
{
    (void)be, (void)s;    /* every launch runs to completion */
    return ufn_host_run_kernel(plan, ufn_host_isa(), ufn_host_threads());
}

static int host_stream_nop(const ufn_backend_ops *be, ufn_stream_impl *s)
{
    (void)be, (void)s;
    return UFN_OK;
}

static int host_sync(const ufn_backend_ops *be)
{
    (void)be;
    return UFN_OK;
}

const ufn_backend_ops ufn_backend_host = {
    .name = "host",
    .device_memory = UFN_MEM_HOST,
    .device_count = host_device_count,
    .alloc = host_alloc,
    .free = host_free,
    .copy_h2d = host_h2d,
    .copy_d2h = host_d2h,
    .copy_d2d = host_d2d,
    .execute = host_execute,
    .stream_create = host_stream_nop,
    .stream_destroy = host_stream_nop,
    .stream_synchronize = host_stream_nop,
    .synchronize = host_sync,
    .kernel_limits = ufn_host_kernel_limits,
    .launch_kernel = host_launch_kernel,
};
