/* multi_split.c - a call on host arrays over several devices at once.
 *
 * With a device set (multi_devices.c) on a device backend, call.c hands
 * every plan here instead of to the backend.  A plan over host memory is
 * cut along its outermost loop dimension into one slab per device - the
 * block distribution of ufn_block_range, the one sharded arrays and MPI
 * ranks use - and each slab is an ordinary plan of its own device: the
 * backend stages it through that device's pinned ring, on that device's
 * streams (cuda_stage.c).  One host thread per device drives them (the
 * caller's thread takes the first slab), because staging packs and unpacks
 * on the host and copies from pageable memory block the thread that issues
 * them (scale-out.md 1.6); so the devices' copies, kernels and the packing
 * all overlap.  The call returns when every slab is done.
 *
 * Gufunc core dimensions are never cut: the plan's dimensions are loop
 * dimensions only.  A plan too small to be worth it (less than
 * MIN_SLAB_BYTES of operands per device) runs whole on the set's first
 * device; so does one whose outermost dimension has a single element.
 * Plans over device memory are not split: their operands already live on
 * one device (sharded arrays are split by call.c, array by array).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ufnrt.h"

#define MIN_SLAB_BYTES ((size_t)4 << 20)

static size_t min_slab_override;     /* the test hook's value; 0: MIN_SLAB_BYTES */

void ufn_multi_set_min_slab(size_t bytes)
{
    __atomic_store_n(&min_slab_override, bytes, __ATOMIC_RELAXED);
}

static size_t min_slab(void)
{
    size_t n = __atomic_load_n(&min_slab_override, __ATOMIC_RELAXED);
    return n ? n : MIN_SLAB_BYTES;
}

typedef struct slab {
    const ufn_backend_ops *be;
    ufn_plan plan;
    int status;
    char message[512];       /* ufn_error() of the thread that ran it */
} slab;

static void *run_slab(void *arg)
{
    slab *w = arg;
    w->status = w->be->execute(w->be, &w->plan, NULL);
    if (w->status < 0)
        snprintf(w->message, sizeof w->message, "%s", ufn_error());
    return NULL;
}

/* Slab i of `parts`: the plan cut to its share of dimension 0, on `device`. */
static void cut(slab *w, const ufn_backend_ops *be, const ufn_plan *p, int parts, int i,
                int device)
{
    int64_t first, count;
    ufn_block_range(p->shape[0], parts, i, &first, &count);
    w->be = be;
    w->plan = *p;
    w->plan.device = device;
    w->plan.shape[0] = count;
    w->plan.n = p->n / p->shape[0] * count;
    for (int k = 0; k < p->nargs; k++)
        w->plan.data[k] = p->data[k] + first * p->strides[k][0] * p->elsize[k];
    w->status = UFN_OK;
    w->message[0] = '\0';
}

/* How many slabs: one per device, no more than dimension 0 has elements,
 * and each with at least min_slab() bytes of operands. */
static int slabs_for(const ufn_plan *p, int ndev)
{
    if (p->ndim < 1 || ndev < 2)
        return 1;
    size_t per_iter = 0;
    for (int k = 0; k < p->nargs; k++)
        per_iter += (size_t)p->elsize[k];
    uint64_t bytes = (uint64_t)p->n * per_iter;
    int64_t parts = ndev < p->shape[0] ? ndev : p->shape[0];
    if ((uint64_t)parts > bytes / min_slab())
        parts = (int64_t)(bytes / min_slab());
    return parts < 1 ? 1 : (int)parts;
}

int ufn_multi_execute(const ufn_backend_ops *be, const ufn_plan *p, ufn_stream_impl *s)
{
    uint64_t mask = ufn_device_mask();
    if (!mask || p->memory != UFN_MEM_HOST || be->device_memory != UFN_MEM_DEVICE)
        return be->execute(be, p, s);
    int dev[UFN_MAX_SET];
    int ndev = ufn_mask_devices(mask, dev);
    int parts = slabs_for(p, ndev);
    if (parts == 1) {
        ufn_plan whole = *p;
        whole.device = dev[0];
        return be->execute(be, &whole, NULL);
    }
    slab *w = calloc((size_t)parts, sizeof *w);   /* a plan is 11 KB: not on the stack */
    if (!w)
        return ufn_fail(UFN_ERR_NOMEM, "out of host memory splitting a call over %d devices",
                        parts);
    pthread_t thread[UFN_MAX_SET];
    bool started[UFN_MAX_SET] = { false };
    for (int i = 0; i < parts; i++)
        cut(&w[i], be, p, parts, i, dev[i]);
    for (int i = 1; i < parts; i++)
        started[i] = pthread_create(&thread[i], NULL, run_slab, &w[i]) == 0;
    run_slab(&w[0]);
    for (int i = 1; i < parts; i++) {
        if (started[i])
            pthread_join(thread[i], NULL);
        else
            run_slab(&w[i]);   /* no thread to be had: this one, after the others */
    }
    int st = UFN_OK;
    for (int i = 0; i < parts && st == UFN_OK; i++)
        if (w[i].status < 0)
            st = ufn_fail(w[i].status, "device %d: %s", dev[i], w[i].message);
    free(w);
    return st;
}
