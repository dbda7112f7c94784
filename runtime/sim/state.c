/* state.c - the simulator's state, and what every driver entry checks: the
 * current context (a stack per thread, as the driver's), the injected
 * failure of the tests, streams, and the list of allocations that copies
 * must stay inside; and the faults of kernels until a synchronising call
 * reports them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simrt.h"

sim_state ufn_sim = { .once = PTHREAD_ONCE_INIT, .lock = PTHREAD_MUTEX_INITIALIZER };

static _Thread_local CUcontext ctx_stack[SIM_MAX_CONTEXT_DEPTH];
static _Thread_local int ctx_depth;

/* ---- checks ----------------------------------------------------------------------- */

static CUcontext current(void)
{
    return ctx_depth > 0 ? ctx_stack[ctx_depth - 1] : NULL;
}

int sim_current_device(void)
{
    CUcontext c = current();
    return c ? c->device : -1;
}

/* The failure ufn_sim_inject_failure asked for, if this call of `call` is
 * the one. */
CUresult sim_injected(const char *call)
{
    if (!__atomic_load_n(&ufn_sim.fail_call, __ATOMIC_ACQUIRE))
        return CUDA_SUCCESS;
    CUresult r = CUDA_SUCCESS;
    pthread_mutex_lock(&ufn_sim.lock);
    if (ufn_sim.fail_call && strcmp(ufn_sim.fail_call, call) == 0 && ufn_sim.fail_skip-- == 0) {
        r = ufn_sim.fail_result;
        __atomic_store_n(&ufn_sim.fail_call, NULL, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&ufn_sim.lock);
    return r;
}

/* A stream usable from the current context (NULL is the default stream). */
CUresult sim_check_stream(CUstream s, int device)
{
    if (!s)
        return CUDA_SUCCESS;
    if (s->tag != TAG_STREAM)
        return CUDA_ERROR_INVALID_HANDLE;
    return s->device == device ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

/* Is [p, p+bytes) inside one device allocation (device: true) or one
 * page-locked host allocation?  Caller holds the lock. */
sim_alloc *sim_find_in(bool device, uintptr_t p, size_t bytes)
{
    for (sim_alloc *a = ufn_sim.allocs; a; a = a->next) {
        uintptr_t base = (uintptr_t)a->base;
        if ((a->device >= 0) == device && p >= base && p - base <= a->bytes &&
            bytes <= a->bytes - (p - base))
            return a;
    }
    return NULL;
}

sim_alloc *sim_find_range(CUdeviceptr p, size_t bytes)
{
    return sim_find_in(true, (uintptr_t)p, bytes);
}

CUresult sim_ctx_push(CUcontext ctx)
{
    REQUIRE_INIT();
    if (!ctx || ctx->device < 0 || ctx->device >= ufn_sim.ndev || ctx != &ufn_sim.dev[ctx->device].ctx ||
        ctx->refs <= 0)
        return CUDA_ERROR_INVALID_CONTEXT;
    if (ctx_depth == SIM_MAX_CONTEXT_DEPTH)
        return CUDA_ERROR_INVALID_VALUE;
    ctx_stack[ctx_depth++] = ctx;
    return CUDA_SUCCESS;
}

CUresult sim_ctx_pop(CUcontext *ctx)
{
    REQUIRE_INIT();
    if (ctx_depth == 0)
        return CUDA_ERROR_INVALID_CONTEXT;
    CUcontext c = ctx_stack[--ctx_depth];
    if (ctx)
        *ctx = c;
    return CUDA_SUCCESS;
}

/* ---- the allocations ---------------------------------------------------------------- */

CUresult sim_add_alloc(void *base, size_t bytes, int device)
{
    sim_alloc *a = malloc(sizeof *a);
    if (!a)
        return CUDA_ERROR_OUT_OF_MEMORY;
    *a = (sim_alloc){ ufn_sim.allocs, base, bytes, device };
    ufn_sim.allocs = a;
    return CUDA_SUCCESS;
}

/* Remove the allocation that starts at base (of that kind); NULL if none. */
sim_alloc *sim_take_alloc(const void *base, bool device)
{
    for (sim_alloc **p = &ufn_sim.allocs; *p; p = &(*p)->next) {
        sim_alloc *a = *p;
        if (a->base == base && (a->device >= 0) == device) {
            *p = a->next;
            return a;
        }
    }
    return NULL;
}


/* ---- kernel faults ---------------------------------------------------------------- */

/* The report of the fault the last sim_fault_take on this thread returned. */
static _Thread_local char taken_report[512];

void sim_fault_record(int device, CUresult r, const char *report)
{
    pthread_mutex_lock(&ufn_sim.lock);
    sim_device *sd = &ufn_sim.dev[device];
    if (sd->fault == CUDA_SUCCESS) {
        sd->fault = r;
        snprintf(sd->report, sizeof sd->report, "%s", report);
    }
    pthread_mutex_unlock(&ufn_sim.lock);
}

CUresult sim_fault_take(int device)
{
    if (device < 0)
        return CUDA_SUCCESS;
    pthread_mutex_lock(&ufn_sim.lock);
    sim_device *sd = &ufn_sim.dev[device];
    CUresult r = sd->fault;
    sd->fault = CUDA_SUCCESS;
    /* out of memory is the driver's own words; a check has a report */
    snprintf(taken_report, sizeof taken_report, "%s",
             r == CUDA_SUCCESS || r == CUDA_ERROR_OUT_OF_MEMORY ? "" : sd->report);
    pthread_mutex_unlock(&ufn_sim.lock);
    return r;
}

bool sim_report_take(char *buf, size_t size)
{
    if (!taken_report[0] || size == 0)
        return false;
    snprintf(buf, size, "%s", taken_report);
    taken_report[0] = '\0';
    return true;
}

/* ---- statistics ---------------------------------------------------------------------------- */

void sim_tally_add(const sim_tally *t)
{
    pthread_mutex_lock(&ufn_sim.lock);
    ufn_sim_stats *st = &ufn_sim.dev[t->device].stats;
    st->launches += t->launches;
    st->threads += t->threads;
    st->h2d += t->h2d, st->h2d_bytes += t->h2d_bytes;
    st->d2h += t->d2h, st->d2h_bytes += t->d2h_bytes;
    st->d2d += t->d2d, st->d2d_bytes += t->d2d_bytes;
    st->peer += t->peer, st->peer_bytes += t->peer_bytes;
    pthread_mutex_unlock(&ufn_sim.lock);
}

CUresult sim_submit(CUstream s, int device, sim_op *op, uint64_t *seq)
{
    sim_tally t = op->tally;   /* op is the stream's once queued */
    bool captured;
    CUresult r = sq_submit(s, device, op, seq, &captured);
    if (r == CUDA_SUCCESS && !captured)
        sim_tally_add(&t);
    return r;
}
