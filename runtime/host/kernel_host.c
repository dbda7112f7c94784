/* kernel_host.c - @cuda.jit kernels on the host backend: the fast CPU path.
 *
 * The blocks of a launch are cut into contiguous ranges that the thread
 * pool runs (a block's shared memory is a buffer of the task that runs it).
 * A range runs through the signature's host code, in the form the compiler
 * chose (ufn_abi.h):
 *
 *   block runner  the compiler's loops over the threads of a block, split
 *                 at barriers, compiled per ISA (the best the CPU has, as
 *                 for host loops); nothing else to do
 *   thread entry  the kernel for one thread, run by the thread engine
 *                 (sim/simt.c) without checks: thread after thread, or as
 *                 fibers for barriers in divergent code and warp functions;
 *                 every pool thread has its own engine
 *
 * Atomics are the CPU's, so blocks may run at the same time.  A recursive
 * helper that went too deep (ufn_abi.h, "recursion") sets a flag of the
 * pool thread it ran on: each task takes it, so that the launch fails with
 * UFN_ERR_RECURSION and no later call on that thread sees it.  The launch
 * limits are those of a GPU (the simulated device's), so that a program
 * that runs here runs on one.  Launches are synchronous: the host backend
 * runs every call to completion.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ufnrt.h"
#include "sim/simt.h"

#define SERIAL_THREADS 4096     /* smaller launches run on the calling thread */
#define TASKS_PER_THREAD 4

static const ufn_klimits host_limits = {
    .threads = 1024,
    .block = { 1024, 1024, 64 },
    .grid = { 0x7fffffffu, 65535, 65535 },
    .shared = 49152,
    .shared_optin = 166912,
};

int ufn_host_kernel_limits(const ufn_backend_ops *be, int device, ufn_klimits *out)
{
    (void)be, (void)device;
    *out = host_limits;
    return 0;
}

typedef struct hrun {
    const ufn_kplan *p;
    ufn_block_runner runner;    /* NULL: the thread entry on the engine */
    uint64_t blocks, per_task;
    size_t shared_bytes, ctx_bytes;
    atomic_int_fast64_t failed; /* the first task that failed, or INT64_MAX */
    atomic_bool too_deep;       /* a recursive helper went deeper than UFN_MAX_DEPTH */
    pthread_mutex_t lock;
    char report[512];           /* that task's report */
} hrun;

static void task_range(const hrun *h, int64_t task, uint64_t *b0, uint64_t *b1)
{
    *b0 = (uint64_t)task * h->per_task;
    *b1 = *b0 + h->per_task < h->blocks ? *b0 + h->per_task : h->blocks;
}

static void fail_task(hrun *h, int64_t task, const char *report)
{
    pthread_mutex_lock(&h->lock);
    if (task < atomic_load(&h->failed)) {
        atomic_store(&h->failed, task);
        snprintf(h->report, sizeof h->report, "%s", report);
    }
    pthread_mutex_unlock(&h->lock);
}

static void run_runner(void *ctx, int64_t task)
{
    hrun *h = ctx;
    const ufn_kplan *p = h->p;
    size_t shared = (h->shared_bytes + 63) & ~(size_t)63;
    unsigned char *mem = NULL;
    if (shared + h->ctx_bytes > 0 && posix_memalign((void **)&mem, 64, shared + h->ctx_bytes)) {
        fail_task(h, task, "out of host memory for a block's shared memory");
        return;
    }
    ufn_kblocks kb = {
        .grid = { p->grid[0], p->grid[1], p->grid[2] },
        .block = { p->block[0], p->block[1], p->block[2] },
        .shared = mem,
        .dynamic_bytes = p->dynamic_shared,
        .ctx = mem ? mem + shared : NULL,
    };
    task_range(h, task, &kb.first, &kb.end);
    h->runner(p->params, &kb);
    free(mem);
}

static void run_engine(void *ctx, int64_t task)
{
    hrun *h = ctx;
    const ufn_kplan *p = h->p;
    if (task > atomic_load(&h->failed))
        return;                 /* a block before these failed: the launch stops */
    ufn_simt_launch run = {
        .kernel = p->sig->kernel,
        .entry = p->sig->host_thread,
        .params = p->params,
        .grid = { p->grid[0], p->grid[1], p->grid[2] },
        .block = { p->block[0], p->block[1], p->block[2] },
        .static_shared = p->sig->static_shared,
        .dynamic_shared = p->dynamic_shared,
        .fibers = (p->sig->flags & (UFN_KF_BARRIER | UFN_KF_WARP)) != 0,
        .checks = false,
    };
    task_range(h, task, &run.first, &run.end);
    if (ufn_simt_run(&run))
        fail_task(h, task, run.report);
}

/* Either form, then whether the kernel's code recursed too deep. */
static void run_task(void *ctx, int64_t task)
{
    hrun *h = ctx;
    if (h->runner)
        run_runner(ctx, task);
    else
        run_engine(ctx, task);
    if (ufn_depth_take())
        atomic_store(&h->too_deep, true);
}

/* The block runner for the ISA, or the best lower one built. */
static ufn_block_runner pick_runner(const ufn_ksig *sig, int isa)
{
    for (; isa >= 0; isa--)
        if (isa < UFN_ISA_COUNT && sig->host_blocks[isa])
            return sig->host_blocks[isa];
    return NULL;
}

int ufn_host_run_kernel(const ufn_kplan *p, int isa, int nthreads)
{
    const ufn_ksig *sig = p->sig;
    hrun h = { .p = p, .runner = pick_runner(sig, isa), .lock = PTHREAD_MUTEX_INITIALIZER };
    if (!h.runner && !sig->host_thread)
        return ufn_fail(UFN_ERR_NO_CODE, "kernel %s was built without host code: compile its "
                        "module with ufnc --target=host (the default has it)", sig->kernel);
    atomic_init(&h.failed, INT64_MAX);
    atomic_init(&h.too_deep, false);
    h.blocks = (uint64_t)p->grid[0] * p->grid[1] * p->grid[2];
    uint64_t per_block = (uint64_t)p->block[0] * p->block[1] * p->block[2];
    h.shared_bytes = p->dynamic_shared > 0 || sig->static_shared > 0
                         ? UFN_KDYN_OFFSET(sig->static_shared) + p->dynamic_shared : 0;
    h.ctx_bytes = (size_t)sig->host_ctx_bytes * per_block;
    int threads = h.blocks * per_block < SERIAL_THREADS ? 1 : nthreads;
    uint64_t ntasks = (uint64_t)threads * TASKS_PER_THREAD;
    if (ntasks > h.blocks)
        ntasks = h.blocks;
    h.per_task = (h.blocks + ntasks - 1) / ntasks;
    ntasks = (h.blocks + h.per_task - 1) / h.per_task;
    uint64_t t0 = ufn_trace_clock();
    ufn_pool_run(threads, (int64_t)ntasks, run_task, &h);
    ufn_emit_since(UFN_EV_KERNEL, "host", sig->kernel, (size_t)(h.blocks * per_block),
                   p->device, t0);
    pthread_mutex_destroy(&h.lock);
    if (atomic_load(&h.failed) != INT64_MAX)
        return ufn_fail(UFN_ERR_KERNEL, "%s", h.report);
    if (atomic_load(&h.too_deep))
        return ufn_fail(UFN_ERR_RECURSION, "a recursive helper went deeper than %d calls",
                        UFN_MAX_DEPTH);
    return 0;
}
