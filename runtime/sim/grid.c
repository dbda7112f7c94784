/* grid.c - how the simulator runs a kernel launch: the parameters copied
 * when it is queued, then, on the stream's thread, the grid through the
 * thread engine (simt.c), which sets threadIdx, blockIdx, blockDim and
 * gridDim for each thread: thread after thread, or as fibers for kernels
 * whose table entry says they use barriers or warp functions, with shared
 * memory per block and, unless UFN_SIM_CHECK=0, the checks of
 * compute-sanitizer.  A check that fails stops the launch and is recorded
 * for the device (state.c), since the call that launched has returned. */
#include <string.h>

#include "simrt.h"
#include "simt.h"

/* A launch as queued, and params[k] pointing at the k-th parameter's copy
 * in the op's data. */
typedef struct launch_work {
    sim_grid g;
    void **params;
} launch_work;

static void run_launch(sim_op *op)
{
    launch_work *w = (launch_work *)op->data;
    const sim_grid *g = &w->g;
    ufn_simt_launch run = {
        .kernel = g->kernel->name,
        .entry = g->kernel->entry,
        .params = w->params,
        .grid = { g->grid.x, g->grid.y, g->grid.z },
        .block = { g->block.x, g->block.y, g->block.z },
        .static_shared = g->kernel->static_shared,
        .dynamic_shared = g->dynamic_shared,
        .fibers = (g->kernel->flags & (UFN_KF_BARRIER | UFN_KF_WARP)) != 0,
        .checks = g->checks,
        .first = 0,
        .end = (uint64_t)g->grid.x * g->grid.y * g->grid.z,
    };
    ufn_depth_take();
    if (ufn_simt_run(&run) != UFN_SIMT_OK)
        sim_fault_record(g->device,
                         run.fault == UFN_SIMT_NOMEM    ? CUDA_ERROR_OUT_OF_MEMORY
                         : run.fault == UFN_SIMT_BOUNDS ? CUDA_ERROR_ILLEGAL_ADDRESS
                                                        : CUDA_ERROR_LAUNCH_FAILED,
                         run.report);
    /* a recursive helper went too deep: what ufn_depth_exceeded() does on a GPU */
    if (ufn_depth_take() && g->depth_flag)
        *g->depth_flag = 1;
}

/* An op holding the launch and a copy of its parameters, laid out as
 * [launch_work][void *params[n]][the values, each 16-byte aligned]. */
sim_op *sq_launch_op(const sim_grid *g, void **params)
{
    const ufn_sim_kernel *kernel = g->kernel;
    int n = kernel->nparams;
    size_t head = sizeof(launch_work) + (size_t)n * sizeof(void *), bytes = head;
    for (int k = 0; k < n; k++)
        bytes = (bytes + 15) / 16 * 16 + kernel->param_sizes[k];
    sim_op *op = sq_op_new(bytes);
    if (!op)
        return NULL;
    op->run = run_launch;
    launch_work *w = (launch_work *)op->data;
    *w = (launch_work){ *g, (void **)(op->data + sizeof(launch_work)) };
    size_t off = head;
    for (int k = 0; k < n; k++) {
        off = (off + 15) / 16 * 16;
        memcpy(op->data + off, params[k], kernel->param_sizes[k]);
        w->params[k] = op->data + off;
        off += kernel->param_sizes[k];
    }
    return op;
}
