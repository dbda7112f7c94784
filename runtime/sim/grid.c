/* grid.c - how the simulator runs a kernel launch: the parameters copied
 * when it is queued, then, on the stream's thread, every thread of the grid
 * one after another, each a call of the kernel's trampoline with threadIdx,
 * blockIdx, blockDim and gridDim set. */
#include <string.h>

#include "simrt.h"
#include "ufn_sim.h"

/* The coordinates of the simulated thread being run (see ufn_sim.h). */
__attribute__((visibility("default"))) _Thread_local uint3 ufn_sim_threadIdx;
__attribute__((visibility("default"))) _Thread_local uint3 ufn_sim_blockIdx;
__attribute__((visibility("default"))) _Thread_local dim3 ufn_sim_blockDim;
__attribute__((visibility("default"))) _Thread_local dim3 ufn_sim_gridDim;

/* A launch as queued: the kernel, the configuration, and a copy of every
 * parameter (params[k] points at the k-th copy, in the op's data). */
typedef struct launch_work {
    const ufn_sim_kernel *kernel;
    dim3 grid, block;
    void **params;
    unsigned *depth_flag;
} launch_work;

/* Run every thread of the grid, one after another, on this thread. */
static void run_grid(const ufn_sim_kernel *kernel, dim3 grid, dim3 block, void **params)
{
    ufn_sim_entry entry = kernel->entry;
    uint3 saved[4] = { ufn_sim_threadIdx, ufn_sim_blockIdx, ufn_sim_blockDim, ufn_sim_gridDim };
    ufn_sim_gridDim = grid;
    ufn_sim_blockDim = block;
    for (unsigned z = 0; z < grid.z; z++)
        for (unsigned y = 0; y < grid.y; y++)
            for (unsigned x = 0; x < grid.x; x++) {
                ufn_sim_blockIdx = (uint3){ x, y, z };
                for (unsigned tz = 0; tz < block.z; tz++)
                    for (unsigned ty = 0; ty < block.y; ty++)
                        for (unsigned tx = 0; tx < block.x; tx++) {
                            ufn_sim_threadIdx = (uint3){ tx, ty, tz };
                            entry(params);
                        }
            }
    ufn_sim_threadIdx = saved[0];
    ufn_sim_blockIdx = saved[1];
    ufn_sim_blockDim = saved[2];
    ufn_sim_gridDim = saved[3];
}

static void run_launch(sim_op *op)
{
    launch_work *w = (launch_work *)op->data;
    ufn_depth_take();
    run_grid(w->kernel, w->grid, w->block, w->params);
    /* a recursive helper went too deep: what ufn_depth_exceeded() does on a GPU */
    if (ufn_depth_take() && w->depth_flag)
        *w->depth_flag = 1;
}

/* An op holding the launch and a copy of its parameters, laid out as
 * [launch_work][void *params[n]][the values, each 16-byte aligned]. */
sim_op *sq_launch_op(const ufn_sim_kernel *kernel, dim3 grid, dim3 block, void **params,
                     unsigned *depth_flag)
{
    int n = kernel->nparams;
    size_t head = sizeof(launch_work) + (size_t)n * sizeof(void *), bytes = head;
    for (int k = 0; k < n; k++)
        bytes = (bytes + 15) / 16 * 16 + kernel->param_sizes[k];
    sim_op *op = sq_op_new(bytes);
    if (!op)
        return NULL;
    op->run = run_launch;
    launch_work *w = (launch_work *)op->data;
    *w = (launch_work){ kernel, grid, block, (void **)(op->data + sizeof(launch_work)),
                        depth_flag };
    size_t off = head;
    for (int k = 0; k < n; k++) {
        off = (off + 15) / 16 * 16;
        memcpy(op->data + off, params[k], kernel->param_sizes[k]);
        w->params[k] = op->data + off;
        off += kernel->param_sizes[k];
    }
    return op;
}

