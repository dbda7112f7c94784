/* pipeline.c - deferred pipelines: ufn_pipeline_begin() ... ufunc calls ...
 * ufn_pipeline_run().
 *
 * While a pipeline is recorded on a thread, call.c checks each ufunc call as
 * usual (so a refused argument is refused at the call) and hands its plan
 * here instead of executing it.  ufn_pipeline_run then runs the calls:
 *
 *   - host backend: chunk by chunk, each chunk of the loop through every
 *     call while its operands are in cache; an array marked with
 *     ufn_pipeline_temp is never written in full: each thread's chunk-sized
 *     scratch stands in for it;
 *   - cuda and sim, when every call runs on one device and one stream: one
 *     CUDA graph (the backend's run_pipeline, cuda/cuda_graph.c), chunk by
 *     chunk through every call, temporaries in a chunk-sized device
 *     scratch, launched once;
 *   - otherwise (calls on several streams or devices, host operands, a
 *     driver without graphs): call by call, in order, on the stream each
 *     call was made on (temporaries are written as ordinary arrays).
 *
 * A call can join when its plan is one flat loop over the same number of
 * elements as the pipeline's other calls, with operands either contiguous
 * or broadcast scalars, and needs no temporary of its own (another dtype, a
 * host operand staged to the device, an overlap copy): then element i of
 * every call touches element i of every array, and chunks may run in any
 * order.  Anything else - and any call of the pipeline that fails - is a
 * status at the call, remembered: ufn_pipeline_run then reports it and runs
 * nothing.  Nothing is ever half-run.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ufnrt.h"

#define MAX_STEPS UFN_PIPE_CALLS  /* calls in one pipeline */
#define MAX_TEMPS UFN_PIPE_TEMPS  /* arrays marked temporary */
#define CHUNK_MIN 1024          /* the fewest elements of a chunk (chunk_elements) */
#define CHUNK_MAX 16384
#define CHUNK_STEP 256          /* chunks of whole blocks of the loops (emit_host.c) */

typedef struct step {
    ufn_plan plan;
    const ufn_backend_ops *be;
    ufn_stream_impl *stream;
    _Alignas(16) unsigned char value[UFN_MAXARGS][16];  /* scalars the call passed by value */
    int temp[UFN_MAXARGS];      /* run: the temporary operand k is, or -1 */
} step;

typedef struct temp {
    const char *base;
    size_t bytes;
    int elsize;
} temp;

typedef struct pipeline {
    int status;                 /* the first failure: run reports it, runs nothing */
    char message[512];
    int nsteps, ntemps;
    step steps[MAX_STEPS];
    temp temps[MAX_TEMPS];
} pipeline;

static _Thread_local pipeline *recording;

bool ufn_pipeline_recording(void)
{
    return recording != NULL;
}

int ufn_pipeline_begin(void)
{
    if (recording)
        return ufn_fail(UFN_ERR_INVALID, "ufn_pipeline_begin: a pipeline is already being recorded on this thread");
    /* Not calloc: the record is 0.7 MB, room for UFN_PIPE_CALLS plans, and
     * zeroing it took 15 % of a three-call pipeline's time at 1e5
     * elements.  Each step is written whole when its call joins. */
    pipeline *p = malloc(sizeof *p);
    if (!p)
        return ufn_fail(UFN_ERR_NOMEM, "ufn_pipeline_begin: out of host memory");
    p->status = UFN_OK;
    p->message[0] = '\0';
    p->nsteps = p->ntemps = 0;
    recording = p;
    return UFN_OK;
}

void ufn_pipeline_abort(void)
{
    free(recording);
    recording = NULL;
}

/* The first failure of a recorded call (its message as ufn_error has it). */
void ufn_pipeline_poison(int status)
{
    if (!recording || recording->status < 0)
        return;
    recording->status = status;
    snprintf(recording->message, sizeof recording->message, "%s", ufn_error());
}

int ufn_pipeline_temp(const ufn_array *a)
{
    if (!recording)
        return ufn_fail(UFN_ERR_INVALID, "ufn_pipeline_temp: no pipeline is being recorded (call ufn_pipeline_begin)");
    int st = ufn_check_array(a, "ufn_pipeline_temp");
    if (st == UFN_OK && (!a->data || a->memory == UFN_MEM_SHARDED || !ufn_is_c_contiguous(a)))
        st = ufn_fail(UFN_ERR_INVALID, "ufn_pipeline_temp: a temporary is a whole C-contiguous array");
    if (st == UFN_OK && recording->ntemps == MAX_TEMPS)
        st = ufn_fail(UFN_ERR_INVALID, "ufn_pipeline_temp: more than %d temporaries", MAX_TEMPS);
    if (st < 0) {
        ufn_pipeline_poison(st);
        return st;
    }
    recording->temps[recording->ntemps++] = (temp){
        .base = a->data, .bytes = ufn_array_bytes(a), .elsize = ufn_dtype_size(a->dtype)};
    return UFN_OK;
}

/* ---- joining ---------------------------------------------------------------------------- */

static bool cpu_memory(const step *s)
{
    return s->plan.memory == UFN_MEM_HOST || s->be->device_memory == UFN_MEM_HOST;
}

/* Operand k's bytes over the whole loop: [lo, hi). */
static void range_of(const ufn_plan *p, int k, const char **lo, const char **hi)
{
    *lo = p->data[k];
    *hi = p->data[k] + (p->strides[k][0] && p->ndim ? p->n : 1) * p->elsize[k];
}

static bool overlap(const char *alo, const char *ahi, const char *blo, const char *bhi)
{
    return alo < bhi && blo < ahi;
}

/* A broadcast scalar read from an array an earlier call writes would need
 * that call finished everywhere first, which chunks are not. */
static int check_scalars(const pipeline *pl, const ufn_plan *p, const void *const *source, const char *name)
{
    for (int k = 0; k < p->func->nin; k++) {
        if (p->ndim && p->strides[k][0])
            continue;
        const char *lo = source[k], *hi = lo + p->elsize[k], *wlo, *whi;
        for (int i = 0; i < pl->nsteps; i++)
            for (int j = pl->steps[i].plan.func->nin; j < pl->steps[i].plan.nargs; j++) {
                range_of(&pl->steps[i].plan, j, &wlo, &whi);
                if (overlap(lo, hi, wlo, whi))
                    return ufn_fail(UFN_ERR_INVALID, "%s: cannot join the pipeline: input %d is a broadcast element "
                                    "that call %d of the pipeline writes", name, k, i + 1);
            }
    }
    return UFN_OK;
}

static int check_join(const pipeline *pl, const ufn_backend_ops *be, const ufn_plan *p, const void *const *source)
{
    const char *name = p->func->name ? p->func->name : "ufunc";
    if (pl->nsteps == MAX_STEPS)
        return ufn_fail(UFN_ERR_INVALID, "%s: cannot join the pipeline: it holds %d calls already", name, MAX_STEPS);
    if (p->ncore > 0)
        return ufn_fail(UFN_ERR_INVALID, "%s: cannot join the pipeline: a gufunc call runs on its own", name);
    if (p->ndim > 1)
        return ufn_fail(UFN_ERR_INVALID, "%s: cannot join the pipeline: its operands are views that do not flatten "
                        "to one loop (%d dimensions)", name, p->ndim);
    for (int k = 0; k < p->nargs; k++) {
        int64_t s = p->ndim ? p->strides[k][0] : 0;
        if (s != 1 && !(s == 0 && k < p->func->nin))
            return ufn_fail(UFN_ERR_INVALID, "%s: cannot join the pipeline: operand %d is strided (stride %lld); "
                            "a pipeline's operands are contiguous or broadcast scalars", name, k, (long long)s);
    }
    if (pl->nsteps) {
        const step *first = &pl->steps[0];
        if (p->n != first->plan.n)
            return ufn_fail(UFN_ERR_SHAPE, "%s: cannot join the pipeline: its loop has %lld elements, the "
                            "pipeline's %lld", name, (long long)p->n, (long long)first->plan.n);
        if (be != first->be || p->memory != first->plan.memory)
            return ufn_fail(UFN_ERR_WRONG_MEMORY, "%s: cannot join the pipeline: its operands are in other memory "
                            "than the pipeline's first call's", name);
    }
    return check_scalars(pl, p, source, name);
}

int ufn_pipeline_add(const ufn_backend_ops *be, ufn_stream_impl *s, const ufn_plan *p, const void *local,
                     size_t local_bytes, const void *const *source)
{
    pipeline *pl = recording;
    int st = check_join(pl, be, p, source);
    if (st < 0)
        return st;
    step *sp = &pl->steps[pl->nsteps++];
    sp->plan = *p;
    sp->be = be;
    sp->stream = s;
    /* Scalars live in the call's own buffer, gone when it returns: keep them. */
    const char *lo = local, *hi = lo + local_bytes;
    for (int k = 0; k < p->nargs; k++)
        if (p->data[k] >= lo && p->data[k] < hi) {
            memcpy(sp->value[k], p->data[k], (size_t)p->elsize[k]);
            sp->plan.data[k] = (char *)sp->value[k];
        }
    return UFN_OK;
}

/* ---- running ---------------------------------------------------------------------------- */

/* Which temporary each operand is, and whether each is written before it
 * is read. */
static int bind_temps(pipeline *pl)
{
    bool written[MAX_TEMPS] = {false};
    for (int i = 0; i < pl->nsteps; i++) {
        step *sp = &pl->steps[i];
        const ufn_plan *p = &sp->plan;
        const char *name = p->func->name ? p->func->name : "ufunc";
        for (int k = 0; k < p->nargs; k++) {
            sp->temp[k] = -1;
            const char *lo, *hi;
            range_of(p, k, &lo, &hi);
            for (int t = 0; t < pl->ntemps; t++) {
                const temp *tp = &pl->temps[t];
                if (!overlap(lo, hi, tp->base, tp->base + tp->bytes))
                    continue;
                if (lo != tp->base || (size_t)(hi - lo) != tp->bytes || p->strides[k][0] != 1)
                    return ufn_fail(UFN_ERR_INVALID, "ufn_pipeline_run: call %d (%s) uses part of a temporary: a "
                                    "temporary is an operand whole, element i for element i", i + 1, name);
                if (k < p->func->nin && !written[t])
                    return ufn_fail(UFN_ERR_INVALID, "ufn_pipeline_run: call %d (%s) reads a temporary that no earlier "
                                    "call of the pipeline writes", i + 1, name);
                if (k >= p->func->nin)
                    written[t] = true;
                sp->temp[k] = t;
            }
        }
    }
    return UFN_OK;
}

typedef struct chunked {
    const pipeline *pl;
    ufn_host_loop fn[MAX_STEPS];
    ufn_host_chunk_loop chunk_fn[MAX_STEPS];  /* NULL: fn, which prefetches nothing ahead */
    ufn_index steps[MAX_STEPS][UFN_MAXARGS];
    int nstreams;                             /* the arrays in memory the calls read */
    const char *stream[UFN_AHEAD_MAX];
    int stream_elsize[UFN_AHEAD_MAX];
    int64_t n, per_task, chunk;
    size_t scratch_bytes;
    size_t temp_offset[MAX_TEMPS];            /* where each temporary's chunk lies in a thread's scratch */
    atomic_int failure;         /* 0, or a negative status */
} chunked;

/* While a chunk runs, its calls ask for the next chunk of every stream, each
 * call for a share as large as its part of the time: the memory is then read
 * while any arithmetic runs, not only during the calls that read it (a call
 * that computes little would wait for it alone).  weight[s] is the time of
 * calls 0..s-1, weight[nsteps] the sum.  The shares are worked out once per
 * task and length of the next chunk (they take divisions), as ranges from
 * the start of each stream, and moved to each next chunk. */
typedef struct shares {
    int64_t m;                                /* the next chunk's length they are for; -1: none yet */
    uint64_t weight[MAX_STEPS + 1];
    ufn_ahead part[MAX_STEPS];
    int stream[MAX_STEPS][UFN_AHEAD_MAX];     /* the stream of each range */
} shares;

static void share_out(const chunked *x, int64_t m, shares *sh)
{
    int nsteps = x->pl->nsteps;
    uint64_t total = sh->weight[nsteps];
    sh->m = m;
    for (int s = 0; s < nsteps; s++) {
        ufn_ahead *h = &sh->part[s];
        h->n = 0;
        for (int k = 0; k < x->nstreams; k++) {
            uint64_t lines = ((uint64_t)m * (uint64_t)x->stream_elsize[k] + 63) / 64;
            uint64_t lo = lines * sh->weight[s] / total, hi = lines * sh->weight[s + 1] / total;
            if (hi <= lo)
                continue;
            sh->stream[s][h->n] = k;
            h->at[h->n] = x->stream[k] + lo * 64;
            h->bytes[h->n++] = (size_t)(hi - lo) * 64;
        }
    }
}

static uint64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* The calls of one chunk [i, i + dims) in order; with `took`, each one's time. */
static void run_chunk(const chunked *x, char *scratch, int64_t i, ufn_index dims, int64_t end, shares *sh,
                      uint64_t *took)
{
    const pipeline *pl = x->pl;
    int64_t next = i + dims, m = end - next < x->chunk ? end - next : x->chunk;
    if (m != sh->m)
        share_out(x, m, sh);
    for (int s = 0; s < pl->nsteps; s++) {
        const step *sp = &pl->steps[s];
        char *args[UFN_MAXARGS];
        for (int k = 0; k < sp->plan.nargs; k++)
            args[k] = sp->temp[k] >= 0 ? scratch + x->temp_offset[sp->temp[k]] : sp->plan.data[k] + i * x->steps[s][k];
        uint64_t t0 = took ? now_ns() : 0;
        if (x->chunk_fn[s]) {
            const ufn_ahead *part = &sh->part[s];
            ufn_ahead h;            /* the loop reads the first n ranges only: no zeroing per call */
            h.n = part->n;
            for (int j = 0; j < part->n; j++) {
                h.at[j] = part->at[j] + next * x->stream_elsize[sh->stream[s][j]];
                h.bytes[j] = part->bytes[j];
            }
            x->chunk_fn[s](args, &dims, x->steps[s], &h);
        } else {
            x->fn[s](args, &dims, x->steps[s]);
        }
        if (took)
            took[s] = now_ns() - t0;
    }
}

/* One task: its range of the loop, a chunk at a time through every call.
 * The first two chunks share the prefetching equally; the second is timed,
 * and the next share it by those times.  But a call's time depends on its
 * share (one that prefetches more than its arithmetic covers waits for the
 * memory), so chunks 3, 7, 15, ... (2^k - 1) are timed again under the
 * shares so far, and their times summed give the rest their shares: the
 * shares settle where the calls' times are their own, and one chunk that an
 * interrupt lengthened does not steer the rest. */
static void run_task(void *ctx, int64_t task)
{
    chunked *x = ctx;
    const pipeline *pl = x->pl;
    int64_t b = task * x->per_task, e = b + x->per_task < x->n ? b + x->per_task : x->n;
    char *scratch = x->scratch_bytes ? ufn_host_memalign(x->scratch_bytes) : NULL;
    if (x->scratch_bytes && !scratch) {
        atomic_store(&x->failure, UFN_ERR_NOMEM);
        return;
    }
    shares sh = {.m = -1};
    uint64_t took[MAX_STEPS], sum[MAX_STEPS];
    for (int s = 0; s <= pl->nsteps; s++)
        sh.weight[s] = (uint64_t)s;
    for (int64_t i = b, c = 0; i < e; i += x->chunk, c++) {
        bool timed = c > 0 && ((c + 1) & c) == 0;
        run_chunk(x, scratch, i, e - i < x->chunk ? e - i : x->chunk, e, &sh, timed ? took : NULL);
        if (timed) {
            for (int s = 0; s < pl->nsteps; s++) {
                sum[s] = (c > 3 ? sum[s] : 0) + took[s];
                sh.weight[s + 1] = sh.weight[s] + sum[s] + 1;
            }
            sh.m = -1;
        }
    }
    free(scratch);
    if (ufn_depth_take())
        atomic_store(&x->failure, UFN_ERR_RECURSION);
}

/* The arrays in memory that the calls read: every input that is neither a
 * temporary nor a broadcast scalar, once (at most UFN_AHEAD_MAX). */
static void find_streams(chunked *x)
{
    const pipeline *pl = x->pl;
    for (int s = 0; s < pl->nsteps; s++) {
        const step *sp = &pl->steps[s];
        for (int k = 0; k < sp->plan.func->nin; k++) {
            if (sp->temp[k] >= 0 || !x->steps[s][k] || x->nstreams == UFN_AHEAD_MAX)
                continue;
            bool seen = false;
            for (int j = 0; j < x->nstreams; j++)
                seen = seen || x->stream[j] == sp->plan.data[k];
            if (!seen) {
                x->stream[x->nstreams] = sp->plan.data[k];
                x->stream_elsize[x->nstreams++] = (int)x->steps[s][k];
            }
        }
    }
}

/* Elements per chunk: as many as keep a chunk's working set in the L1 data
 * cache - the temporaries' scratch, the arrays in memory twice (this chunk
 * and the next, asked for meanwhile) and the outputs.  The hidden layer
 * (28 bytes an element, 48 KiB L1): 1536 elements, 1.2x of one memory pass
 * on one thread where 4096 (in L2) took 1.3x (bench/pipeline.md). */
static int64_t chunk_elements(const chunked *x)
{
    const pipeline *pl = x->pl;
    int64_t bytes = 0;
    for (int t = 0; t < pl->ntemps; t++)
        bytes += pl->temps[t].elsize;
    for (int k = 0; k < x->nstreams; k++)
        bytes += 2 * x->stream_elsize[k];
    for (int s = 0; s < pl->nsteps; s++)
        for (int k = pl->steps[s].plan.func->nin; k < pl->steps[s].plan.nargs; k++)
            bytes += pl->steps[s].temp[k] < 0 ? pl->steps[s].plan.elsize[k] : 0;
    long l1 = sysconf(_SC_LEVEL1_DCACHE_SIZE);
    int64_t chunk = (l1 > 0 ? l1 : 32768) / (bytes > 0 ? bytes : 1) / CHUNK_STEP * CHUNK_STEP;
    return chunk < CHUNK_MIN ? CHUNK_MIN : chunk > CHUNK_MAX ? CHUNK_MAX : chunk;
}

static int run_chunked(const pipeline *pl)
{
    chunked *x = calloc(1, sizeof *x);
    if (!x)
        return ufn_fail(UFN_ERR_NOMEM, "ufn_pipeline_run: out of host memory");
    x->pl = pl;
    x->n = pl->steps[0].plan.n;
    atomic_init(&x->failure, 0);
    for (int s = 0; s < pl->nsteps; s++) {
        const ufn_plan *p = &pl->steps[s].plan;
        x->fn[s] = ufn_host_pick_loop(p->loop, ufn_host_isa());
        if (!x->fn[s]) {
            free(x);
            return ufn_fail(UFN_ERR_NO_CODE, "%s: the module has no host code for %s (was it built without "
                            "--target=host?)", p->func->name, p->loop->signature);
        }
        x->chunk_fn[s] = ufn_host_pick_chunk_loop(p->loop, ufn_host_isa());
        for (int k = 0; k < p->nargs; k++)
            x->steps[s][k] = p->ndim && p->strides[k][0] ? p->elsize[k] : 0;
    }
    find_streams(x);
    x->chunk = chunk_elements(x);
    for (int t = 0; t < pl->ntemps; t++) {
        x->temp_offset[t] = x->scratch_bytes;
        x->scratch_bytes += ((size_t)x->chunk * (size_t)pl->temps[t].elsize + 63) & ~(size_t)63;
    }
    for (int s = 0; s < pl->nsteps; s++)
        ufn_emit(UFN_EV_HOST_LOOP, "host", pl->steps[s].plan.func->name, (size_t)x->n, 0);

    /* Whole chunks per task, split as host.c splits a call whose work is
     * the pipeline's elements times its calls. */
    int threads = ufn_host_threads();
    int64_t chunks = (x->n + x->chunk - 1) / x->chunk;
    int64_t ntasks = ufn_host_tasks(threads, x->n * pl->nsteps, chunks);
    x->per_task = (chunks + ntasks - 1) / ntasks * x->chunk;
    ntasks = (x->n + x->per_task - 1) / x->per_task;
    ufn_pool_run(threads, ntasks, run_task, x);
    int st = atomic_load(&x->failure);
    free(x);
    if (st == UFN_ERR_NOMEM)
        return ufn_fail(st, "ufn_pipeline_run: out of host memory for the chunks' scratch");
    if (st == UFN_ERR_RECURSION)
        return ufn_fail(st, "ufn_pipeline_run: a recursive helper went deeper than %d calls", UFN_MAX_DEPTH);
    return UFN_OK;
}

/* cuda and sim: every call in order on its own stream, as if made now. */
static int run_each(const pipeline *pl)
{
    for (int s = 0; s < pl->nsteps; s++) {
        const step *sp = &pl->steps[s];
        int st = ufn_multi_execute(sp->be, &sp->plan, sp->stream);
        if (st < 0)
            return ufn_fail_prefix(st, sp->plan.func->name ? sp->plan.func->name : "ufunc");
    }
    return UFN_OK;
}

/* cuda and sim: one graph when every call is on device memory of one device
 * and on one stream, and the backend takes it; else call by call. */
static int run_device(const pipeline *pl)
{
    const step *first = &pl->steps[0];
    bool whole = first->be->run_pipeline && first->plan.memory == UFN_MEM_DEVICE;
    for (int s = 1; s < pl->nsteps && whole; s++)
        whole = pl->steps[s].stream == first->stream && pl->steps[s].plan.device == first->plan.device;
    if (!whole)
        return run_each(pl);
    ufn_pipe *g = calloc(1, sizeof *g);
    if (!g)
        return ufn_fail(UFN_ERR_NOMEM, "ufn_pipeline_run: out of host memory");
    g->ncalls = pl->nsteps;
    g->ntemps = pl->ntemps;
    for (int s = 0; s < pl->nsteps; s++) {
        g->plan[s] = &pl->steps[s].plan;
        g->temp[s] = pl->steps[s].temp;
    }
    for (int t = 0; t < pl->ntemps; t++)
        g->temp_elsize[t] = pl->temps[t].elsize;
    int st = first->be->run_pipeline(first->be, g, first->stream);
    free(g);
    return st == UFN_PIPE_DECLINED ? run_each(pl) : st;
}

int ufn_pipeline_run(void)
{
    pipeline *pl = recording;
    if (!pl)
        return ufn_fail(UFN_ERR_INVALID, "ufn_pipeline_run: no pipeline is being recorded (call ufn_pipeline_begin)");
    recording = NULL;
    int st = UFN_OK;
    if (pl->status < 0)
        st = ufn_fail(pl->status, "ufn_pipeline_run: nothing ran: %s", pl->message);
    else if (pl->nsteps == 0)
        st = UFN_OK;
    else if ((st = bind_temps(pl)) == UFN_OK)
        st = cpu_memory(&pl->steps[0]) && pl->steps[0].be == &ufn_backend_host ? run_chunked(pl) : run_device(pl);
    free(pl);
    return st;
}
