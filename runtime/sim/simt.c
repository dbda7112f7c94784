/* simt.c - the thread engine: a CUDA block's threads on one CPU thread.
 *
 * A kernel without barriers or warp functions (its table entry says so) runs
 * thread after thread on the caller's stack: nothing is faster.  Any other
 * runs each thread of a block as a fiber (fiber.c) scheduled cooperatively:
 * a thread runs until it waits (a barrier, a warp function) or exits, then
 * the next runnable thread in id order continues.  So __syncthreads is a
 * real barrier and shared memory is the block's own; the threads never run
 * at the same time, so the engine needs no locks.
 *
 *   barrier     a thread waits until every thread of the block that has not
 *               exited waits too (exited threads do not hold a barrier, as
 *               on sm_70 and later); the last to arrive releases the others
 *               and starts a new barrier interval (epoch)
 *   warps       lanes 32 ids apart are a warp; a warp function waits until
 *               every lane of its mask has called it with the same mask,
 *               then each gets its result from all of their values; lanes
 *               of one warp may use disjoint masks at the same time
 *   deadlock    when nobody can run and not everybody exited, the block can
 *               never finish: reported, never hung
 *
 * With checks on (the simulator, unless UFN_SIM_CHECK=0) the engine is also
 * compute-sanitizer: an index out of bounds (memcheck), a shared-memory race
 * in one barrier interval (racecheck, simcheck.c), threads waiting at
 * different barriers, or a warp mask naming a lane that exited or does not
 * exist (synccheck).  The first fault stops the run: a fiber jumps back to
 * the engine's own context, abandoning the other fibers where they stand;
 * the thread-after-thread path longjmps out.  Shared memory is filled with
 * 0xA5 at the start of each block, as the simulator's device memory is, so
 * reading what no thread wrote shows.
 *
 * Each CPU thread has its own engine (stacks, shared memory, shadow), kept
 * between runs and freed when the thread exits.  Fibers never move between
 * CPU threads, so the thread-local coordinates below are each fiber's own:
 * the engine sets threadIdx whenever it switches.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ufn_sim.h"
#include "simt.h"

/* ---- what generated code sees (ufn_sim.h) ------------------------------------------------ */

#define EXPORT __attribute__((visibility("default")))
EXPORT _Thread_local uint3 ufn_sim_threadIdx;
EXPORT _Thread_local uint3 ufn_sim_blockIdx;
EXPORT _Thread_local dim3 ufn_sim_blockDim;
EXPORT _Thread_local dim3 ufn_sim_gridDim;
EXPORT _Thread_local unsigned char *ufn_sim_smem;
EXPORT _Thread_local ufn_sim_range ufn_sim_watch;

/* ---- the engine ---------------------------------------------------------------------------- */

enum { T_RUN, T_BAR, T_WARP, T_DONE };

/* activemask, among the warp functions a thread can wait in (ufn_sim.h has
 * the others). */
#define OP_ACTIVEMASK 100

typedef struct sthread {
    ufn_fiber fiber;
    uint3 tid;
    uint32_t id;               /* linear: x + bx * (y + by * z) */
    int state;
    /* while waiting: the call, its arguments, its site; then its result */
    int op, pred;
    unsigned mask, arg;
    uint64_t value, result;
    const char *file;
    int line;
} sthread;

#define MAX_THREADS 1024
#define WARPS (MAX_THREADS / 32)

/* Who in a warp is where, one bit per lane, so that a warp function can
 * tell in one test whether its last lane has come. */
typedef struct swarp {
    unsigned exist;            /* lanes the block has */
    unsigned done;             /* exited */
    unsigned parked;           /* waiting: at a barrier, in a warp function, in activemask */
    unsigned waiting;          /* in a warp function (not activemask) */
    unsigned active;           /* in activemask */
} swarp;

typedef struct engine {
    bool running;
    ufn_simt_launch *l;
    bool fibered;              /* this run uses fibers */
    sthread *t;                /* cap of them (fibers of earlier runs kept) */
    int cap;
    ufn_stacks stacks;
    ufn_fiber main;            /* the CPU thread's own context */
    sthread one;               /* the thread of the thread-after-thread path */
    sthread *cur;
    int n, live, arrived;
    unsigned char *smem;
    size_t smem_cap, smem_bytes, dyn_offset;
    ufn_shadow *shadow;        /* per byte of smem, when races are checked */
    size_t shadow_cap;
    bool racecheck;
    uint32_t epoch;            /* barrier interval; never 0 (a zeroed shadow entry is old) */
    uint32_t warp_syncs[WARPS];
    swarp warps[WARPS];
    jmp_buf out;
} engine;

static pthread_key_t engine_key;
static pthread_once_t engine_once = PTHREAD_ONCE_INIT;
static _Thread_local engine *tls_engine;

static void engine_free(void *p)
{
    engine *e = p;
    for (int i = 0; i < e->cap; i++)
        ufn_fiber_destroy(&e->t[i].fiber);
    ufn_fiber_destroy(&e->main);
    ufn_stacks_free(&e->stacks);
    free(e->t);
    free(e->smem);
    free(e->shadow);
    free(e);
}

static void make_key(void)
{
    pthread_key_create(&engine_key, engine_free);
}

static engine *get_engine(void)
{
    if (!tls_engine) {
        pthread_once(&engine_once, make_key);
        tls_engine = calloc(1, sizeof *tls_engine);
        if (tls_engine) {
            tls_engine->epoch = 1;
            pthread_setspecific(engine_key, tls_engine);
        }
    }
    return tls_engine;
}

/* The engine running a kernel on this thread, or NULL (a device function
 * called outside a launch). */
static engine *running(void)
{
    engine *e = tls_engine;
    return e && e->running ? e : NULL;
}

/* ---- coordinates and reports --------------------------------------------------------------- */

static uint3 unlinear(uint64_t i, const uint32_t *dim)
{
    uint3 c = { (unsigned)(i % dim[0]), (unsigned)(i / dim[0] % dim[1]),
                (unsigned)(i / ((uint64_t)dim[0] * dim[1])) };
    return c;
}

typedef struct where {
    char text[48];
} where;

static where coords(uint3 c)
{
    where w;
    snprintf(w.text, sizeof w.text, "(%u,%u,%u)", c.x, c.y, c.z);
    return w;
}

static where thread_at(const engine *e, uint32_t id)
{
    return coords(unlinear(id, e->l->block));
}

static where block_here(void)
{
    return coords(ufn_sim_blockIdx);
}

static const char *op_name(int op)
{
    static const char *const names[] = { "shfl_sync", "shfl_up_sync", "shfl_down_sync",
                                         "shfl_xor_sync", "ballot_sync", "all_sync",
                                         "any_sync", "syncwarp" };
    if (op == OP_ACTIVEMASK)
        return "activemask";
    return op >= 0 && op < (int)(sizeof names / sizeof names[0]) ? names[op] : "a warp function";
}

/* Stop the run: record the first fault, leave the kernel. */
__attribute__((format(printf, 3, 4))) _Noreturn static void fail(engine *e, int fault,
                                                                   const char *fmt, ...)
{
    ufn_simt_launch *l = e->l;
    if (!l->fault) {
        l->fault = fault;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(l->report, sizeof l->report, fmt, ap);
        va_end(ap);
    }
    if (e->fibered)
        ufn_fiber_exit(&e->cur->fiber, &e->main);
    longjmp(e->out, 1);
}

/* ---- scheduling ------------------------------------------------------------------------------ */

/* Every change of a fiber's state goes through here (t->op set first for
 * T_WARP), to keep its warp's bits. */
static void set_state(engine *e, sthread *t, int state)
{
    swarp *w = &e->warps[t->id / 32];
    unsigned bit = 1u << (t->id & 31u);
    t->state = state;
    w->parked = state == T_BAR || state == T_WARP ? w->parked | bit : w->parked & ~bit;
    w->waiting = state == T_WARP && t->op != OP_ACTIVEMASK ? w->waiting | bit : w->waiting & ~bit;
    w->active = state == T_WARP && t->op == OP_ACTIVEMASK ? w->active | bit : w->active & ~bit;
    if (state == T_DONE)
        w->done |= bit;
}

static void switch_to(engine *e, sthread *from, sthread *to)
{
    e->cur = to;
    ufn_sim_threadIdx = to->tid;
    ufn_fiber_switch(&from->fiber, &to->fiber);
}

static sthread *next_runnable(engine *e, const sthread *from)
{
    for (int k = 1; k <= e->n; k++) {
        sthread *t = &e->t[(from->id + (uint32_t)k) % (uint32_t)e->n];
        if (t->state == T_RUN)
            return t;
    }
    return NULL;
}

_Noreturn static void deadlock(engine *e, const sthread *t)
{
    /* name the stuck thread and one that waits for something else */
    const sthread *other = NULL;
    for (int i = 0; i < e->n && !other; i++) {
        const sthread *s = &e->t[i];
        if (s != t && (s->state == T_BAR || s->state == T_WARP) &&
            (s->state != t->state || s->line != t->line || s->mask != t->mask))
            other = s;
    }
    char a[160], b[200] = "";
    if (t->state == T_BAR)
        snprintf(a, sizeof a, "thread %s waits at the barrier at %s:%d", thread_at(e, t->id).text,
                 t->file, t->line);
    else
        snprintf(a, sizeof a, "thread %s waits in %s (mask 0x%08x) at %s:%d",
                 thread_at(e, t->id).text, op_name(t->op), t->mask, t->file, t->line);
    if (other && other->state == T_BAR)
        snprintf(b, sizeof b, ", thread %s at the barrier at %s:%d",
                 thread_at(e, other->id).text, other->file, other->line);
    else if (other)
        snprintf(b, sizeof b, ", thread %s in %s (mask 0x%08x) at %s:%d",
                 thread_at(e, other->id).text, op_name(other->op), other->mask, other->file,
                 other->line);
    fail(e, UFN_SIMT_DEADLOCK, "deadlock in block %s: %s%s, and no thread can go on",
         block_here().text, a, b);
}

/* Some thread that waits (there is one whenever threads are live and none
 * can run). */
static const sthread *first_waiting(const engine *e)
{
    for (int i = 0; i < e->n; i++)
        if (e->t[i].state == T_BAR || e->t[i].state == T_WARP)
            return &e->t[i];
    return &e->t[0];
}

/* t waits: continue with the next thread that can run. */
static void wait_here(engine *e, sthread *t)
{
    sthread *next = next_runnable(e, t);
    if (!next)
        deadlock(e, t);
    switch_to(e, t, next);
}

static void next_epoch(engine *e)
{
    if (++e->epoch == 0) {     /* wrapped: every entry would look current again */
        if (e->shadow)
            memset(e->shadow, 0, e->shadow_cap * sizeof *e->shadow);
        e->epoch = 1;
    }
}

/* ---- barriers -------------------------------------------------------------------------------- */

static void active_resolve(engine *e, uint32_t w);

static bool same_site(const sthread *a, const sthread *b)
{
    return a->line == b->line && a->op == b->op &&
           (a->file == b->file || strcmp(a->file, b->file) == 0);
}

/* Every live thread waits at a barrier: check they wait at the same one,
 * compute the predicate's result, let them all go on. */
static void release_barrier(engine *e)
{
    const sthread *first = NULL;
    int count = 0;
    for (int i = 0; i < e->n; i++) {
        const sthread *t = &e->t[i];
        if (t->state != T_BAR)
            continue;
        if (!first)
            first = t;
        else if (e->l->checks && !same_site(first, t))
            fail(e, UFN_SIMT_BARRIER,
                 "divergent barrier in block %s: thread %s waits at %s:%d, thread %s at %s:%d",
                 block_here().text, thread_at(e, first->id).text, first->file, first->line,
                 thread_at(e, t->id).text, t->file, t->line);
        count += t->pred;
    }
    for (int i = 0; i < e->n; i++) {
        sthread *t = &e->t[i];
        if (t->state != T_BAR)
            continue;
        switch (t->op) {
        case UFN_SIM_BAR_COUNT: t->result = (uint64_t)count; break;
        case UFN_SIM_BAR_AND: t->result = count == e->arrived; break;
        case UFN_SIM_BAR_OR: t->result = count > 0; break;
        default: t->result = 0; break;
        }
        set_state(e, t, T_RUN);
    }
    e->arrived = 0;
    next_epoch(e);
}

EXPORT int ufn_sim_barrier(int op, int pred, const char *file, int line)
{
    engine *e = running();
    if (!e)
        return 0;
    if (!e->fibered)
        fail(e, UFN_SIMT_MISUSE,
             "kernel %s waits at a barrier (%s:%d), but its table entry does not say "
             "UFN_KF_BARRIER", e->l->kernel, file, line);
    sthread *t = e->cur;
    t->op = op;
    set_state(e, t, T_BAR);
    t->pred = pred != 0;
    t->file = file;
    t->line = line;
    if (++e->arrived == e->live) {
        /* everybody goes on, in id order: output of a barrier interval
         * comes in thread order */
        release_barrier(e);
        sthread *first = next_runnable(e, &e->t[e->n - 1]);
        if (first != t)
            switch_to(e, t, first);
    } else {
        active_resolve(e, t->id / 32);
        wait_here(e, t);
    }
    return (int)t->result;
}

/* ---- warp functions ---------------------------------------------------------------------------- */

/* The lane a shuffle reads, or -1 for its own value. */
static int source_lane(const sthread *t, int lane)
{
    int src;
    switch (t->op) {
    case UFN_SIM_SHFL: src = (int)(t->arg & 31u); break;
    case UFN_SIM_SHFL_UP: src = t->arg > 31u ? -1 : lane - (int)t->arg; break;
    case UFN_SIM_SHFL_DOWN: src = t->arg > 31u ? -1 : lane + (int)t->arg; break;
    default: src = t->arg > 31u ? -1 : lane ^ (int)t->arg; break;
    }
    return src >= 0 && src < 32 ? src : -1;
}

/* Fail because lane `lane` of warp w, named in the mask of t's call, will
 * never take part. */
_Noreturn static void absent_lane(engine *e, const sthread *t, uint32_t id)
{
    if ((int)id >= e->n)
        fail(e, UFN_SIMT_BARRIER,
             "%s at %s:%d in thread %s of block %s names lane %u in its mask 0x%08x, but the "
             "block has no thread %u (it has %d)", op_name(t->op), t->file, t->line,
             thread_at(e, t->id).text, block_here().text, id % 32, t->mask, id, e->n);
    fail(e, UFN_SIMT_BARRIER,
         "%s at %s:%d in thread %s of block %s names lane %u in its mask 0x%08x, but thread "
         "%s has exited", op_name(t->op), t->file, t->line, thread_at(e, t->id).text,
         block_here().text, id % 32, t->mask, thread_at(e, id).text);
}

/* If every lane of `mask` in warp w waits in a warp function with that mask,
 * compute their results and let them go on. */
static bool warp_resolve(engine *e, uint32_t w, unsigned mask, const sthread *caller)
{
    const swarp *wp = &e->warps[w];
    unsigned absent = mask & (~wp->exist | wp->done);
    if (absent && e->l->checks)
        absent_lane(e, caller, w * 32 + (uint32_t)__builtin_ctz(absent));
    if (mask & ~absent & ~wp->waiting)
        return false;                  /* some lane has yet to come */
    uint32_t base = w * 32;
    unsigned in = 0;
    const sthread *first = NULL;
    for (uint32_t lane = 0; lane < 32; lane++) {
        if (!(mask & (1u << lane)))
            continue;
        uint32_t id = base + lane;
        if ((int)id >= e->n || e->t[id].state == T_DONE) {
            if (e->l->checks)
                absent_lane(e, caller, id);
            continue;                  /* unchecked: lanes that are not there do not count */
        }
        const sthread *s = &e->t[id];
        if (s->state != T_WARP || s->mask != mask)
            return false;
        if (!first)
            first = s;
        else if (e->l->checks && s->op != first->op)
            fail(e, UFN_SIMT_BARRIER,
                 "lanes of one warp of block %s meet in different warp functions: thread %s "
                 "in %s at %s:%d, thread %s in %s at %s:%d", block_here().text,
                 thread_at(e, first->id).text, op_name(first->op), first->file, first->line,
                 thread_at(e, s->id).text, op_name(s->op), s->file, s->line);
        in |= 1u << lane;
    }
    if (!in)
        return false;
    unsigned ballot = 0;
    for (uint32_t lane = 0; lane < 32; lane++)
        if ((in >> lane & 1u) && e->t[base + lane].value != 0)
            ballot |= 1u << lane;
    for (uint32_t lane = 0; lane < 32; lane++) {
        if (!(in >> lane & 1u))
            continue;
        sthread *s = &e->t[base + lane];
        switch (s->op) {
        case UFN_SIM_BALLOT: s->result = ballot; break;
        case UFN_SIM_ALL: s->result = ballot == in; break;
        case UFN_SIM_ANY: s->result = ballot != 0; break;
        case UFN_SIM_SYNCWARP: s->result = 0; break;
        default: {
            int src = source_lane(s, (int)lane);
            s->result = src >= 0 && (in >> src & 1u) ? e->t[base + (uint32_t)src].value : s->value;
            break;
        }
        }
        set_state(e, s, T_RUN);
    }
    e->warp_syncs[w]++;
    return true;
}

EXPORT uint64_t ufn_sim_warp(int op, unsigned mask, uint64_t value, unsigned arg,
                             const char *file, int line)
{
    engine *e = running();
    if (!e)
        return value;
    if (!e->fibered)
        fail(e, UFN_SIMT_MISUSE,
             "kernel %s calls %s (%s:%d), but its table entry does not say UFN_KF_WARP",
             e->l->kernel, op_name(op), file, line);
    sthread *t = e->cur;
    unsigned own = 1u << (t->id & 31u);
    if (!(mask & own)) {
        if (e->l->checks)
            fail(e, UFN_SIMT_BARRIER,
                 "%s at %s:%d in thread %s of block %s has the mask 0x%08x, which leaves out "
                 "the calling lane %u", op_name(op), file, line, thread_at(e, t->id).text,
                 block_here().text, mask, t->id & 31u);
        mask |= own;
    }
    t->op = op;
    set_state(e, t, T_WARP);
    t->mask = mask;
    t->value = value;
    t->arg = arg;
    t->file = file;
    t->line = line;
    if (!warp_resolve(e, t->id / 32, mask, t)) {
        active_resolve(e, t->id / 32);
        wait_here(e, t);
    }
    return t->result;
}

/* activemask: the lanes that run together.  A fiber engine has no such
 * thing, so the lanes that meet at the same activemask call count as the
 * converged ones: a caller waits until every other lane of its warp that has
 * not exited waits somewhere too (at a barrier, in a warp function or in
 * activemask), then gets the lanes waiting in activemask at its own call
 * site.  Lanes that returned early are never in it; lanes on another path
 * are not either. */
static void active_resolve(engine *e, uint32_t w)
{
    const swarp *wp = &e->warps[w];
    if (!wp->active || (wp->exist & ~wp->done & ~wp->parked))
        return;                        /* nobody asks, or somebody is still on its way */
    uint32_t base = w * 32;
    for (uint32_t lane = 0; lane < 32 && (int)(base + lane) < e->n; lane++) {
        sthread *s = &e->t[base + lane];
        if (s->state != T_WARP || s->op != OP_ACTIVEMASK)
            continue;
        unsigned m = 0;
        for (uint32_t k = 0; k < 32 && (int)(base + k) < e->n; k++) {
            const sthread *q = &e->t[base + k];
            if (q->state == T_WARP && q->op == OP_ACTIVEMASK && q->line == s->line &&
                (q->file == s->file || strcmp(q->file, s->file) == 0))
                m |= 1u << k;
        }
        s->result = m;
    }
    for (uint32_t lane = 0; lane < 32 && (int)(base + lane) < e->n; lane++) {
        sthread *s = &e->t[base + lane];
        if (s->state == T_WARP && s->op == OP_ACTIVEMASK)
            set_state(e, s, T_RUN);
    }
}

EXPORT unsigned ufn_sim_activemask_at(const char *file, int line)
{
    engine *e = running();
    if (!e)
        return 1;
    if (!e->fibered)
        fail(e, UFN_SIMT_MISUSE,
             "kernel %s calls activemask (%s:%d), but its table entry does not say UFN_KF_WARP",
             e->l->kernel, file, line);
    sthread *t = e->cur;
    t->op = OP_ACTIVEMASK;
    set_state(e, t, T_WARP);
    t->mask = 0;
    t->file = file;
    t->line = line;
    active_resolve(e, t->id / 32);
    if (t->state != T_RUN)
        wait_here(e, t);
    return (unsigned)t->result;
}

/* An exiting lane may be the last one its warp's waiting lanes needed (when
 * unchecked), or one they will wait for in vain (when checked). */
static void warp_exit(engine *e, const sthread *t)
{
    if (!e->warps[t->id / 32].waiting)
        return;
    uint32_t base = t->id & ~31u;
    for (uint32_t lane = 0; lane < 32; lane++) {
        uint32_t id = base + lane;
        if ((int)id >= e->n)
            break;
        const sthread *s = &e->t[id];
        if (s->state != T_WARP || s->op == OP_ACTIVEMASK || !(s->mask >> (t->id & 31u) & 1u))
            continue;
        if (e->l->checks)
            absent_lane(e, s, t->id);
        warp_resolve(e, base / 32, s->mask, s);
    }
}

/* ---- the threads ----------------------------------------------------------------------------- */

_Noreturn static void thread_exit(engine *e, sthread *t)
{
    set_state(e, t, T_DONE);
    if (--e->live == 0)
        ufn_fiber_exit(&t->fiber, &e->main);
    if (e->arrived > 0 && e->arrived == e->live)
        release_barrier(e);
    warp_exit(e, t);
    active_resolve(e, t->id / 32);
    sthread *next = next_runnable(e, t);
    if (!next)
        deadlock(e, first_waiting(e));
    e->cur = next;
    ufn_sim_threadIdx = next->tid;
    ufn_fiber_exit(&t->fiber, &next->fiber);
}

static void thread_main(void *arg)
{
    sthread *t = arg;
    engine *e = tls_engine;
    e->l->entry(e->l->params);
    thread_exit(e, t);
}

EXPORT unsigned char *ufn_sim_dyn_shared(void)
{
    engine *e = running();
    return e && e->smem ? e->smem + e->dyn_offset : NULL;
}

EXPORT uint32_t ufn_sim_dyn_shared_bytes(void)
{
    engine *e = running();
    return e ? (uint32_t)e->l->dynamic_shared : 0;
}

/* ---- checks ----------------------------------------------------------------------------------- */

EXPORT void ufn_sim_out_of_bounds(int64_t i, int64_t n, int axis, const char *name,
                                  const char *file, int line)
{
    engine *e = running();
    if (!e || !e->l->checks)
        return;
    fail(e, UFN_SIMT_BOUNDS,
         "index %lld is out of bounds for axis %d of %s with size %lld, in thread %s of "
         "block %s at %s:%d", (long long)i, axis, name ? name : "an array", (long long)n,
         thread_at(e, e->cur->id).text, block_here().text, file, line);
}

static const char *doing(int kind)
{
    return kind == UFN_ACCESS_READ ? "reads" : kind == UFN_ACCESS_WRITE ? "writes"
                                                                        : "atomically updates";
}

static const char *done(int kind)
{
    return kind == UFN_ACCESS_READ ? "read" : kind == UFN_ACCESS_WRITE ? "wrote"
                                                                       : "atomically updated";
}

EXPORT void ufn_sim_access(const void *p, size_t bytes, int kind, const char *file, int line)
{
    engine *e = running();
    if (!e || !e->racecheck)
        return;
    size_t off = (size_t)((const unsigned char *)p - e->smem);
    if (off >= e->smem_bytes)
        return;
    if (bytes > e->smem_bytes - off)
        bytes = e->smem_bytes - off;
    ufn_accessor who = { e->cur->id, e->epoch, e->warp_syncs, file, line };
    ufn_race r;
    if (ufn_shadow_access(e->shadow + off, off, bytes, kind, &who, &r))
        return;
    char other[64];
    if (r.other == UINT32_MAX)
        snprintf(other, sizeof other, "other threads");
    else
        snprintf(other, sizeof other, "thread %s", thread_at(e, r.other).text);
    fail(e, UFN_SIMT_RACE,
         "shared-memory race in block %s: thread %s %s %zu bytes at shared offset %zu "
         "(%s:%d) that %s %s (%s:%d) with no barrier in between",
         block_here().text, thread_at(e, e->cur->id).text, doing(kind), bytes, r.offset, file,
         line, other, done(r.other_kind), r.file ? r.file : "?", r.line);
}

/* ---- a run ---------------------------------------------------------------------------------- */

/* Room for the run: threads and their stacks, shared memory, shadow. */
static bool prepare(engine *e, ufn_simt_launch *l, int n)
{
    if (l->fibers && n > e->stacks.n) {
        int want = 32;
        while (want < n)
            want *= 2;
        sthread *t = realloc(e->t, (size_t)want * sizeof *t);
        if (!t)
            return false;
        memset(t + e->cap, 0, (size_t)(want - e->cap) * sizeof *t);
        e->t = t;
        e->cap = want;
        ufn_stacks_free(&e->stacks);
        if (ufn_stacks_alloc(&e->stacks, want, UFN_SIMT_STACK) != 0)
            return false;
    }
    e->dyn_offset = UFN_KDYN_OFFSET(l->static_shared);
    e->smem_bytes = l->dynamic_shared > 0 || l->static_shared > 0
                        ? e->dyn_offset + l->dynamic_shared : 0;
    if (e->smem_bytes > e->smem_cap) {
        free(e->smem);
        e->smem_cap = 0;
        e->smem = aligned_alloc(64, (e->smem_bytes + 63) & ~(size_t)63);
        if (!e->smem)
            return false;
        e->smem_cap = e->smem_bytes;
    }
    e->racecheck = l->checks && e->smem_bytes > 0;
    if (e->racecheck && e->smem_bytes > e->shadow_cap) {
        free(e->shadow);
        e->shadow_cap = 0;
        e->shadow = calloc(e->smem_bytes, sizeof *e->shadow);
        if (!e->shadow)
            return false;
        e->shadow_cap = e->smem_bytes;
    }
    return true;
}

static void begin_block(engine *e, uint64_t b)
{
    ufn_sim_blockIdx = unlinear(b, e->l->grid);
    if (e->l->checks && e->smem_bytes)
        memset(e->smem, 0xA5, e->smem_bytes);
    next_epoch(e);
    memset(e->warp_syncs, 0, sizeof e->warp_syncs);
}

static void run_fibers(engine *e)
{
    e->live = e->n;
    e->arrived = 0;
    memset(e->warps, 0, sizeof e->warps);
    for (int i = 0; i < e->n; i++) {
        sthread *t = &e->t[i];
        t->id = (uint32_t)i;
        t->tid = unlinear((uint64_t)i, e->l->block);
        t->state = T_RUN;
        e->warps[i / 32].exist |= 1u << (i & 31);
        /* Stack tops 64 bytes apart modulo 4 KiB: at the same page offset
         * every fiber's first frames would fall into one cache set. */
        ufn_fiber_make(&t->fiber, ufn_stack_at(&e->stacks, i),
                       e->stacks.size - (size_t)(i & 63) * 64, thread_main, t);
    }
    e->cur = &e->t[0];
    ufn_sim_threadIdx = e->t[0].tid;
    ufn_fiber_switch(&e->main, &e->t[0].fiber);
}

static void run_threads(engine *e)
{
    sthread *t = &e->one;
    const uint32_t *b = e->l->block;
    e->cur = t;
    t->id = 0;
    for (uint32_t z = 0; z < b[2]; z++)
        for (uint32_t y = 0; y < b[1]; y++)
            for (uint32_t x = 0; x < b[0]; x++, t->id++) {
                t->tid = (uint3){ x, y, z };
                ufn_sim_threadIdx = t->tid;
                e->l->entry(e->l->params);
            }
}

static void run_blocks(engine *e)
{
    for (uint64_t b = e->l->first; b < e->l->end && !e->l->fault; b++) {
        begin_block(e, b);
        if (e->fibered)
            run_fibers(e);
        else
            run_threads(e);
    }
}

int ufn_simt_run(ufn_simt_launch *l)
{
    l->fault = UFN_SIMT_OK;
    l->report[0] = '\0';
    uint64_t n = (uint64_t)l->block[0] * l->block[1] * l->block[2];
    engine *e = get_engine();
    if (!e) {
        snprintf(l->report, sizeof l->report, "out of memory for the thread engine");
        return l->fault = UFN_SIMT_NOMEM;
    }
    if (e->running) {
        snprintf(l->report, sizeof l->report, "kernel %s launched from inside a kernel",
                 l->kernel);
        return l->fault = UFN_SIMT_MISUSE;
    }
    if (n == 0 || n > MAX_THREADS || l->grid[0] == 0 || l->grid[1] == 0 || l->grid[2] == 0) {
        snprintf(l->report, sizeof l->report, "kernel %s: a block of %llu threads", l->kernel,
                 (unsigned long long)n);
        return l->fault = UFN_SIMT_MISUSE;
    }
    if (!prepare(e, l, (int)n)) {
        snprintf(l->report, sizeof l->report,
                 "out of memory for %llu simulated threads and %zu bytes of shared memory",
                 (unsigned long long)n, l->static_shared + l->dynamic_shared);
        return l->fault = UFN_SIMT_NOMEM;
    }
    uint3 saved[4] = { ufn_sim_threadIdx, ufn_sim_blockIdx, ufn_sim_blockDim, ufn_sim_gridDim };
    unsigned char *saved_smem = ufn_sim_smem;
    ufn_sim_range saved_watch = ufn_sim_watch;
    ufn_sim_gridDim = (dim3){ l->grid[0], l->grid[1], l->grid[2] };
    ufn_sim_blockDim = (dim3){ l->block[0], l->block[1], l->block[2] };
    ufn_sim_smem = e->smem_bytes ? e->smem : NULL;
    ufn_sim_watch = (ufn_sim_range){ (uintptr_t)e->smem, e->racecheck ? e->smem_bytes : 0 };
    e->l = l;
    e->n = (int)n;
    e->fibered = l->fibers;
    e->running = true;
    if (setjmp(e->out) == 0)
        run_blocks(e);
    e->running = false;
    e->cur = NULL;
    ufn_sim_threadIdx = saved[0];
    ufn_sim_blockIdx = saved[1];
    ufn_sim_blockDim = saved[2];
    ufn_sim_gridDim = saved[3];
    ufn_sim_smem = saved_smem;
    ufn_sim_watch = saved_watch;
    return l->fault;
}
