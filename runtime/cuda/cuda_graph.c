/* cuda_graph.c - a deferred pipeline on the device, as one CUDA graph.
 *
 * pipeline.c hands over a pipeline whose calls all run on one device and
 * one stream (ufn_pipe).  Its loop is cut into chunks small enough that a
 * chunk of every operand fits in the device's L2 together; on a stream of
 * its own that only captures, every chunk goes through every call, one
 * launch per chunk per call, and a temporary (ufn_pipeline_temp) is a
 * chunk-sized scratch in device memory instead of its array, so it is never
 * written in full.  The graph is instantiated and launched once on the
 * calls' stream, ordered as the calls would have been, then destroyed:
 * nothing is kept across runs (instantiating costs microseconds, and a
 * cached graph would have to prove its pointers unchanged).
 *
 * Declined (pipeline.c then runs the calls one by one): a driver without
 * the graph calls, and one that has them but answers "not supported" to
 * the capture or the instantiation (CUDA_ERROR_NOT_SUPPORTED, or
 * _STREAM_CAPTURE_UNSUPPORTED: a device, a driver or a sharing mode without
 * graphs).  Captured work never runs, so nothing has run when it declines.
 * Any other failure is an error that names the call.  A module whose helpers recurse is checked once, after
 * the graph ran, as cuda_execute_device checks it after its launches.
 */
#include <stdlib.h>

#include "cudrv.h"

#define SCRATCH_ALIGN 256
#define CHUNK_ALIGN 16     /* elements: chunks keep the kernels' 16-byte loads aligned */
#define CHUNK_MIN 4096     /* below this a launch costs more than its chunk's traffic */

static int64_t chunk_override;   /* test hook: elements per chunk, 0 for the L2 rule */

void ufn_cuda_set_pipeline_chunk(int64_t elements)
{
    __atomic_store_n(&chunk_override, elements > 0 ? elements : 0, __ATOMIC_RELAXED);
}

/* Elements per chunk: half the L2 for one element of every operand of
 * every call (a broadcast scalar takes none). */
static int64_t chunk_elements(cuda_backend *b, cuda_device *d, const ufn_pipe *pp)
{
    int64_t n = pp->plan[0]->n;
    int64_t forced = __atomic_load_n(&chunk_override, __ATOMIC_RELAXED);
    if (forced)
        return forced < n ? forced : n;
    int l2 = 0;
    if (b->drv->cuDeviceGetAttribute(&l2, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, d->dev) != CUDA_SUCCESS ||
        l2 <= 0)
        l2 = 4 << 20;
    int64_t per = 0;
    for (int i = 0; i < pp->ncalls; i++) {
        const ufn_plan *p = pp->plan[i];
        for (int k = 0; k < p->nargs; k++)
            if (p->ndim && p->strides[k][0])
                per += p->elsize[k];
    }
    int64_t chunk = per ? (int64_t)l2 / 2 / per : n;
    chunk -= chunk % CHUNK_ALIGN;
    if (chunk < CHUNK_MIN)
        chunk = CHUNK_MIN;
    return chunk < n ? chunk : n;
}

typedef struct graph_run {
    cuda_backend *b;
    cuda_device *d;
    const ufn_pipe *pp;
    int64_t chunk;
    char *scratch;                     /* the temporaries' chunks */
    size_t offset[UFN_PIPE_TEMPS];
    ufn_plan *sub;                     /* the chunk's plan (11 KB: not on the stack) */
    cuda_kernel *kernel[UFN_PIPE_CALLS];
    int launches;
} graph_run;

/* Call i's plan over [start, start + count): contiguous operands advanced,
 * temporaries in the scratch, broadcast scalars as they are. */
static void cut_chunk(graph_run *g, int i, int64_t start, int64_t count)
{
    const ufn_plan *p = g->pp->plan[i];
    ufn_plan *s = g->sub;
    *s = *p;
    if (p->ndim == 0)
        return;
    s->shape[0] = s->n = count;
    for (int k = 0; k < p->nargs; k++) {
        int t = g->pp->temp[i][k];
        if (t >= 0)
            s->data[k] = g->scratch + g->offset[t];
        else if (p->strides[k][0])
            s->data[k] = p->data[k] + start * p->elsize[k];
    }
}

/* Every chunk through every call, queued on the capturing stream. */
static int record(graph_run *g, CUstream cs)
{
    int64_t n = g->pp->plan[0]->n;
    for (int64_t start = 0; start < n; start += g->chunk) {
        int64_t count = n - start < g->chunk ? n - start : g->chunk;
        for (int i = 0; i < g->pp->ncalls; i++) {
            cut_chunk(g, i, start, count);
            int st = cuda_queue_plan(g->b, g->d, g->sub, cs, true, &g->kernel[i]);
            if (st)
                return ufn_fail_prefix(st, g->sub->func->name ? g->sub->func->name : "ufunc");
            g->launches++;
        }
    }
    return 0;
}

/* A graph call's result: 0, UFN_PIPE_DECLINED where the driver cannot do
 * graphs here, or the error naming `call`. */
static int graph_result(const ufn_cudrv *drv, CUresult r, const char *call, int launches)
{
    if (r == CUDA_SUCCESS)
        return 0;
    if (r == CUDA_ERROR_NOT_SUPPORTED || r == CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED)
        return UFN_PIPE_DECLINED;
    return launches ? ufn_cudrv_fail(drv, r, "%s (%d launches)", call, launches) : ufn_cudrv_fail(drv, r, "%s", call);
}

/* Capture on a stream of our own, then instantiate: the executable graph,
 * UFN_PIPE_DECLINED, or a failure (the capture always ended, nothing left
 * behind). */
static int build(graph_run *g, CUgraphExec *exec)
{
    const ufn_cudrv *drv = g->b->drv;
    CUstream cs;
    CUresult r = drv->cuStreamCreate(&cs, CU_STREAM_NON_BLOCKING);
    if (r != CUDA_SUCCESS)
        return ufn_cudrv_fail(drv, r, "cuStreamCreate (pipeline capture)");
    CUgraph graph = NULL;
    /* Relaxed: the first launch of a kernel loads its module, which a
     * stricter mode may refuse while this thread captures. */
    int st = graph_result(drv, drv->cuStreamBeginCapture(cs, CU_STREAM_CAPTURE_MODE_RELAXED),
                          "cuStreamBeginCapture", 0);
    if (st == 0) {
        st = record(g, cs);
        r = drv->cuStreamEndCapture(cs, &graph);
        if (st == 0)
            st = graph_result(drv, r, "cuStreamEndCapture", g->launches);
    }
    if (st == 0)
        st = graph_result(drv, drv->cuGraphInstantiate(exec, graph, 0), "cuGraphInstantiate", g->launches);
    if (graph)
        drv->cuGraphDestroy(graph);
    drv->cuStreamDestroy(cs);
    return st;
}

static int launch(graph_run *g, CUstream stream)
{
    const ufn_cudrv *drv = g->b->drv;
    CUgraphExec exec = NULL;
    int st = build(g, &exec);
    if (st)
        return st;
    uint64_t t0 = ufn_trace_clock();
    CUresult r = drv->cuGraphLaunch(exec, stream);
    drv->cuGraphExecDestroy(exec);   /* freed once the launch is done with it */
    if (r != CUDA_SUCCESS)
        return ufn_cudrv_fail(drv, r, "cuGraphLaunch (a pipeline of %d launches)", g->launches);
    cuda_trace_since(g->b, UFN_EV_GRAPH, "pipeline", (size_t)g->launches, g->d->ordinal, t0);
    /* modules that recurse: did a helper go too deep? */
    for (int i = 0; i < g->pp->ncalls && st == 0; i++)
        if (g->kernel[i])
            st = cuda_depth_check(g->b, g->kernel[i], stream, g->pp->plan[i]->func->name);
    return st;
}

int cuda_run_pipeline(cuda_backend *b, const ufn_pipe *pp, ufn_stream_impl *s)
{
    const ufn_cudrv *drv = b->drv;
    if (!drv->cuStreamBeginCapture || !drv->cuStreamEndCapture || !drv->cuGraphInstantiate ||
        !drv->cuGraphLaunch || !drv->cuGraphExecDestroy || !drv->cuGraphDestroy)
        return UFN_PIPE_DECLINED;
    if (pp->ncalls == 0 || pp->plan[0]->n == 0)
        return 0;
    graph_run *g = calloc(1, sizeof *g);
    ufn_plan *sub = malloc(sizeof *sub);
    if (!g || !sub) {
        free(g);
        free(sub);
        return ufn_fail(UFN_ERR_NOMEM, "ufn_pipeline_run: out of host memory");
    }
    *g = (graph_run){ .b = b, .pp = pp, .sub = sub };
    int device = pp->plan[0]->device;
    int st = cuda_enter_device(b, device, &g->d);
    if (st) {
        free(sub);
        free(g);
        return st;
    }
    CUstream stream;
    st = cuda_stream_of(b, s, device, &stream);
    g->chunk = chunk_elements(b, g->d, pp);
    size_t bytes = 0;
    for (int t = 0; t < pp->ntemps; t++) {
        g->offset[t] = bytes;
        bytes += ((size_t)g->chunk * (size_t)pp->temp_elsize[t] + SCRATCH_ALIGN - 1) &
                 ~(size_t)(SCRATCH_ALIGN - 1);
    }
    CUdeviceptr scratch = 0;
    if (st == 0 && bytes)
        st = cuda_cache_alloc(b, g->d, bytes, stream, &scratch);
    g->scratch = (char *)(uintptr_t)scratch;
    if (st == 0)
        st = launch(g, stream);
    if (scratch)
        cuda_cache_free(b, g->d, scratch, stream);   /* after the graph, stream-ordered */
    cuda_leave(b);
    free(sub);
    free(g);
    return st;
}
