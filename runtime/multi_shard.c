/* multi_shard.c - the records of sharded arrays.
 *
 * A sharded array is an array whose first dimension is spread over several
 * devices in the block distribution of ufn_block_range: part i holds rows
 * [first[i], first[i] + rows[i]) as a C-contiguous array in the memory of
 * device[i].  Calls on sharded arrays run part by part, each on its own
 * device (call.c), so a pipeline of them moves no data between devices.
 *
 * The program's descriptor says UFN_MEM_SHARDED; its data points at the
 * record (ufn_shards), which the allocation registry holds under the
 * descriptor's alloc_id, as it holds any array the runtime owns: a freed
 * sharded array is refused with UFN_ERR_FREED like any other.  A sharded
 * array is used whole: a descriptor whose shape, dtype or strides are not
 * its record's (a view made by hand) is refused.  The parts' memory comes
 * from the backend's alloc and goes back with the record; the parts are
 * not registered themselves, and the views of them that calls use carry
 * no alloc_id.
 *
 * This file keeps records; making, filling and reading sharded arrays is
 * multi_array.c's.
 */
#include <stdlib.h>
#include <string.h>

#include "ufnrt.h"

void ufn_shards_free(ufn_shards *t)
{
    if (!t)
        return;
    for (int i = 0; i < t->nparts; i++)
        if (t->data[i])
            t->be->free(t->be, t->device[i], t->data[i], NULL);
    free(t);
}

/* Bytes of `rows` rows of the record's shape. */
static int row_bytes(const ufn_shards *t, int64_t rows, size_t *out)
{
    int64_t n = rows * ufn_dtype_size(t->dtype);
    for (int d = 1; d < t->ndim; d++)
        if (__builtin_mul_overflow(n, t->shape[d], &n))
            return ufn_fail(UFN_ERR_OVERFLOW, "the array's size in bytes overflows");
    if ((uint64_t)n > SIZE_MAX)
        return ufn_fail(UFN_ERR_OVERFLOW, "the array's size in bytes overflows");
    *out = (size_t)n;
    return UFN_OK;
}

int ufn_shards_new(const ufn_backend_ops *be, ufn_dtype dtype, int ndim, const int64_t *shape,
                   int nparts, const int *devices, ufn_array *out)
{
    if (ndim < 1 || ndim > UFN_MAXDIMS || nparts < 1 || nparts > UFN_MAX_SET)
        return ufn_fail(UFN_ERR_NDIM, "a sharded array needs a first dimension to spread over "
                        "its devices (ndim %d)", ndim);
    ufn_shards *t = calloc(1, sizeof *t);
    if (!t)
        return ufn_fail(UFN_ERR_NOMEM, "out of host memory for a sharded array's record");
    t->be = be;
    t->dtype = dtype;
    t->ndim = ndim;
    memcpy(t->shape, shape, (size_t)ndim * sizeof *shape);
    t->nparts = nparts;
    int st = UFN_OK;
    for (int i = 0; i < nparts && st == UFN_OK; i++) {
        t->device[i] = devices[i];
        ufn_block_range(shape[0], nparts, i, &t->first[i], &t->rows[i]);
        size_t bytes = 0;
        st = row_bytes(t, t->rows[i], &bytes);
        if (st == UFN_OK && bytes > 0)
            st = be->alloc(be, devices[i], bytes, NULL, &t->data[i]);
    }
    if (st == UFN_OK && !(t->id = ufn_registry_add(t, sizeof *t, UFN_MEM_SHARDED, devices[0])))
        st = UFN_ERR_NOMEM;
    if (st < 0) {
        ufn_shards_free(t);
        return st;
    }
    ufn_array a;
    memset(&a, 0, sizeof a);
    a.data = t;
    a.dtype = dtype;
    a.ndim = ndim;
    a.memory = UFN_MEM_SHARDED;
    a.device = devices[0];
    a.alloc_id = t->id;
    int64_t stride = 1;
    for (int d = ndim - 1; d >= 0; d--) {
        a.shape[d] = shape[d];
        a.strides[d] = stride;
        stride *= shape[d] > 0 ? shape[d] : 1;
    }
    *out = a;
    return UFN_OK;
}

int ufn_shards_check(const ufn_array *a, const char *what)
{
    const ufn_shards *t = a->data;
    int st = ufn_registry_check(a->alloc_id, t, sizeof *t);
    if (st == UFN_OK && (!t || t->id != a->alloc_id))
        st = ufn_fail(UFN_ERR_INVALID, "the sharded array's record is not its own");
    if (st < 0)
        return what ? ufn_fail_prefix(st, what) : st;
    bool whole = a->dtype == t->dtype && a->ndim == t->ndim;
    int64_t stride = 1;
    for (int d = a->ndim - 1; d >= 0 && whole; d--) {
        whole = a->shape[d] == t->shape[d] && (a->strides[d] == stride || a->shape[d] == 1);
        stride *= t->shape[d] > 0 ? t->shape[d] : 1;
    }
    if (!whole) {
        st = ufn_fail(UFN_ERR_INVALID, "a sharded array is used whole: this descriptor's "
                      "shape, dtype or strides are not those of the array it names (for one "
                      "device's rows, take its part with ufn_shard_part)");
        return what ? ufn_fail_prefix(st, what) : st;
    }
    return UFN_OK;
}

const ufn_shards *ufn_shards_of(const ufn_array *a)
{
    return a->data;
}

bool ufn_shards_alike(const ufn_shards *a, const ufn_shards *b)
{
    if (a->nparts != b->nparts || a->shape[0] != b->shape[0])
        return false;
    for (int i = 0; i < a->nparts; i++)
        if (a->device[i] != b->device[i])
            return false;
    return true;
}

void ufn_shards_part(const ufn_shards *t, int i, ufn_array *view)
{
    memset(view, 0, sizeof *view);
    view->data = t->data[i];
    view->dtype = t->dtype;
    view->ndim = t->ndim;
    view->memory = t->be->device_memory;
    view->device = view->memory == UFN_MEM_DEVICE ? t->device[i] : 0;
    int64_t stride = 1;
    for (int d = t->ndim - 1; d >= 0; d--) {
        view->shape[d] = d == 0 ? t->rows[i] : t->shape[d];
        view->strides[d] = stride;
        stride *= view->shape[d] > 0 ? view->shape[d] : 1;
    }
}
