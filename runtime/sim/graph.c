/* graph.c - stream capture and CUDA graphs in the simulator.
 *
 * While a stream captures, the launches and copies queued on it are
 * recorded, not run (queue.c keeps them in a sim_nodes list), and they add
 * nothing to the statistics.  cuStreamEndCapture makes the list a graph;
 * cuGraphInstantiate an executable graph sharing it; cuGraphLaunch queues
 * one operation on its stream that runs the recorded work in order, and
 * adds what that work does to the statistics, each launch again.
 *
 * As CUDA, a capture refuses what it cannot replay: synchronising on the
 * capturing stream, copies with pageable host memory, work on the legacy
 * stream while a blocking stream captures.  The refused call fails with
 * CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED (or _IMPLICIT), later work on the
 * stream with _INVALIDATED, and so does cuStreamEndCapture.  Simpler than
 * CUDA: a graph is one chain on one stream (no events, no forks across
 * streams, no graph launched inside a capture), every capture mode behaves
 * as thread-local for the capturing stream, and a captured copy or launch
 * was checked when captured, as it would have been when queued.
 */
#include <stdlib.h>

#include "simrt.h"

CUresult sim_begin_capture(CUstream s, CUstreamCaptureMode mode)
{
    REQUIRE_CONTEXT(dev);
    if ((unsigned)mode > CU_STREAM_CAPTURE_MODE_RELAXED)
        return CUDA_ERROR_INVALID_VALUE;
    if (!s)   /* the legacy stream cannot capture */
        return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
    CUresult r = sim_check_stream(s, dev);
    if (r != CUDA_SUCCESS)
        return r;
    INJECT("cuStreamBeginCapture");
    return sq_capture_begin(s);
}

CUresult sim_end_capture(CUstream s, CUgraph *graph)
{
    REQUIRE_CONTEXT(dev);
    if (!graph)
        return CUDA_ERROR_INVALID_VALUE;
    *graph = NULL;
    if (!s)
        return CUDA_ERROR_ILLEGAL_STATE;
    CUresult r = sim_check_stream(s, dev);
    if (r != CUDA_SUCCESS)
        return r;
    sim_nodes *nodes;
    if ((r = sq_capture_end(s, &nodes)) != CUDA_SUCCESS)
        return r;
    CUgraph g = calloc(1, sizeof *g);
    if (!g) {
        sq_nodes_release(nodes);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    *g = (struct CUgraph_st){ TAG_GRAPH, dev, nodes };
    *graph = g;
    return CUDA_SUCCESS;
}

CUresult sim_graph_instantiate(CUgraphExec *exec, CUgraph graph, unsigned long long flags)
{
    REQUIRE_CONTEXT(dev);
    if (!exec || flags != 0)
        return CUDA_ERROR_INVALID_VALUE;
    *exec = NULL;
    if (!graph || graph->tag != TAG_GRAPH)
        return CUDA_ERROR_INVALID_HANDLE;
    if (graph->device != dev)
        return CUDA_ERROR_INVALID_CONTEXT;
    INJECT("cuGraphInstantiate");
    CUgraphExec e = calloc(1, sizeof *e);
    if (!e)
        return CUDA_ERROR_OUT_OF_MEMORY;
    sq_nodes_retain(graph->nodes);
    *e = (struct CUgraphExec_st){ TAG_GRAPH_EXEC, dev, graph->nodes };
    *exec = e;
    return CUDA_SUCCESS;
}

CUresult sim_graph_launch(CUgraphExec exec, CUstream s)
{
    REQUIRE_CONTEXT(dev);
    if (!exec || exec->tag != TAG_GRAPH_EXEC)   /* a CUgraph is not launchable */
        return CUDA_ERROR_INVALID_HANDLE;
    CUresult r = sim_check_stream(s, dev);
    if (r == CUDA_SUCCESS && exec->device != dev)
        r = CUDA_ERROR_INVALID_CONTEXT;
    if (r != CUDA_SUCCESS)
        return r;
    INJECT("cuGraphLaunch");
    if ((r = sq_graph_submit(s, dev, exec->nodes)) != CUDA_SUCCESS)
        return r;
    /* The nodes do not change once captured: no lock to read them. */
    for (const sim_op *node = exec->nodes->head; node; node = node->next)
        sim_tally_add(&node->tally);
    pthread_mutex_lock(&ufn_sim.lock);
    ufn_sim.dev[dev].stats.graph_launches++;
    pthread_mutex_unlock(&ufn_sim.lock);
    return CUDA_SUCCESS;
}

/* Launches still queued keep the work alive: both may go at once. */
CUresult sim_graph_exec_destroy(CUgraphExec exec)
{
    REQUIRE_INIT();
    if (!exec || exec->tag != TAG_GRAPH_EXEC)
        return CUDA_ERROR_INVALID_HANDLE;
    exec->tag = TAG_DEAD;
    sq_nodes_release(exec->nodes);
    free(exec);
    return CUDA_SUCCESS;
}

CUresult sim_graph_destroy(CUgraph graph)
{
    REQUIRE_INIT();
    if (!graph || graph->tag != TAG_GRAPH)
        return CUDA_ERROR_INVALID_HANDLE;
    graph->tag = TAG_DEAD;
    sq_nodes_release(graph->nodes);
    free(graph);
    return CUDA_SUCCESS;
}
