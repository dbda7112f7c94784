/* multi_array.c - sharded arrays as the program sees them: made empty
 * (ufn_device_array_sharded), copied from the host one part per device
 * (ufn_to_device_sharded), gathered back (ufn_copy_to_host, through
 * ufn_shards_gather), and taken apart (ufn_shard_count, ufn_shard_part).
 *
 * A new sharded array spreads its first dimension over the device set
 * (ufn_set_devices, UFN_DEVICES), or over the default device alone when
 * none is set, in the block distribution of ufn_block_range.  Each part
 * crosses between the host and its own device, on that device's default
 * stream; the copies are complete when these functions return, as
 * ufn_to_device's and ufn_copy_to_host's are.
 */
#include <stdlib.h>
#include <string.h>

#include "ufnrt.h"

/* The devices new sharded arrays go to; their number. */
static int spread_over(int *devices)
{
    int n = ufn_mask_devices(ufn_device_mask(), devices);
    if (n == 0)
        devices[n++] = ufn_current_device();
    return n;
}

static int check_empty(const ufn_array *dev, const char *fn)
{
    if (!dev)
        return ufn_fail(UFN_ERR_INVALID, "%s: the device descriptor pointer is NULL", fn);
    if (ufn_holds_live(dev))
        return ufn_fail(UFN_ERR_OUTPUT, "%s: the descriptor holds a live array (allocation "
                        "#%llu): ufn_free it first, or pass an empty one", fn,
                        (unsigned long long)dev->alloc_id);
    return UFN_OK;
}

static int make(ufn_dtype dtype, int ndim, const int64_t *shape, ufn_array *out, const char *fn)
{
    const ufn_backend_ops *be;
    int st = ufn_get_backend(&be);
    if (st < 0)
        return ufn_fail_prefix(st, fn);
    if (ndim < 1)
        return ufn_fail(UFN_ERR_NDIM, "%s: a sharded array needs a first dimension to spread "
                        "over its devices (ndim %d)", fn, ndim);
    int devices[UFN_MAX_SET];
    int n = spread_over(devices);
    st = ufn_shards_new(be, dtype, ndim, shape, n, devices, out);
    return st < 0 ? ufn_fail_prefix(st, fn) : UFN_OK;
}

int ufn_device_array_sharded(ufn_dtype dtype, int ndim, const int64_t *shape, ufn_array *dev)
{
    static const char fn[] = "ufn_device_array_sharded";
    int st = check_empty(dev, fn);
    if (st < 0)
        return st;
    if (!ufn_dtype_valid(dtype))
        return ufn_fail(UFN_ERR_DTYPE, "%s: invalid dtype %d", fn, (int)dtype);
    if (ndim < 0 || ndim > UFN_MAXDIMS)
        return ufn_fail(UFN_ERR_NDIM, "%s: ndim %d is outside 0..%d", fn, ndim, UFN_MAXDIMS);
    if (ndim > 0 && !shape)
        return ufn_fail(UFN_ERR_INVALID, "%s: the shape pointer is NULL", fn);
    for (int d = 0; d < ndim; d++)
        if (shape[d] < 0)
            return ufn_fail(UFN_ERR_SHAPE, "%s: negative dimensions are not allowed "
                            "(shape[%d] is %lld)", fn, d, (long long)shape[d]);
    ufn_array a;
    if ((st = make(dtype, ndim, shape, &a, fn)) < 0)
        return st;
    ufn_hand_over(dev, &a);
    return UFN_OK;
}

/* Rows [first, first + rows) of a host array, as a view. */
static ufn_array host_rows(const ufn_array *h, int64_t first, int64_t rows)
{
    ufn_array v = *h;
    v.data = (char *)h->data + first * h->strides[0] * ufn_dtype_size(h->dtype);
    v.shape[0] = rows;
    v.alloc_id = 0;
    return v;
}

/* Part i's rows between the host array h and its device (to_device: h2d). */
static int move_part(const ufn_shards *t, int i, const ufn_array *h, bool to_device)
{
    const ufn_backend_ops *be = t->be;
    ufn_array part, rows = host_rows(h, t->first[i], t->rows[i]);
    ufn_shards_part(t, i, &part);
    size_t bytes = ufn_array_bytes(&part);
    if (bytes == 0)
        return UFN_OK;
    bool direct = ufn_is_c_contiguous(&rows);
    void *staging = direct ? rows.data : malloc(bytes);
    if (!staging)
        return ufn_fail(UFN_ERR_NOMEM, "out of host memory (%zu bytes)", bytes);
    int64_t ps[UFN_MAXDIMS], rs[UFN_MAXDIMS];
    ufn_byte_strides(&part, ps);
    ufn_byte_strides(&rows, rs);
    int st;
    if (to_device) {
        if (!direct)
            ufn_copy_nd(rows.ndim, rows.shape, staging, part.dtype, ps, rows.data, rows.dtype, rs);
        st = be->copy_h2d(be, t->device[i], part.data, staging, bytes, NULL);
    } else {
        st = be->copy_d2h(be, t->device[i], staging, part.data, bytes, NULL);
        if (st == UFN_OK && !direct)
            ufn_copy_nd(rows.ndim, rows.shape, rows.data, rows.dtype, rs, staging, part.dtype, ps);
    }
    if (!direct)
        free(staging);
    return st;
}

int ufn_to_device_sharded(const ufn_array *host, ufn_array *dev)
{
    static const char fn[] = "ufn_to_device_sharded";
    int st = ufn_check_array(host, "ufn_to_device_sharded: the host array");
    if (st < 0 || (st = check_empty(dev, fn)) < 0)
        return st;
    if (host->memory != UFN_MEM_HOST)
        return ufn_fail(UFN_ERR_WRONG_MEMORY, "%s: the source is not a host array", fn);
    if (!host->data)
        return ufn_fail(UFN_ERR_NDIM, "%s: a scalar has no rows to spread over devices", fn);
    ufn_array a;
    if ((st = make(host->dtype, host->ndim, host->shape, &a, fn)) < 0)
        return st;
    const ufn_shards *t = ufn_shards_of(&a);
    for (int i = 0; i < t->nparts && st == UFN_OK; i++)
        st = move_part(t, i, host, true);
    if (st < 0) {
        ufn_shards_free(ufn_registry_remove(a.alloc_id, NULL, NULL));
        return ufn_fail_prefix(st, fn);
    }
    ufn_hand_over(dev, &a);
    return UFN_OK;
}

int ufn_shards_gather(const ufn_array *dev, const ufn_array *host)
{
    const ufn_shards *t = ufn_shards_of(dev);
    int st = UFN_OK;
    for (int i = 0; i < t->nparts && st == UFN_OK; i++)
        st = move_part(t, i, host, false);
    return st;
}

int ufn_shard_count(const ufn_array *a)
{
    int st = ufn_check_whole(a, "ufn_shard_count");
    if (st < 0)
        return st;
    if (a->memory != UFN_MEM_SHARDED)
        return ufn_fail(UFN_ERR_WRONG_MEMORY, "ufn_shard_count: not a sharded array");
    return ufn_shards_of(a)->nparts;
}

int ufn_shard_part(const ufn_array *a, int part, int64_t *first_row, ufn_array *view)
{
    static const char fn[] = "ufn_shard_part";
    int n = ufn_shard_count(a);
    if (n < 0)
        return n;
    if (part < 0 || part >= n)
        return ufn_fail(UFN_ERR_INVALID, "%s: no part %d (the array has %d)", fn, part, n);
    if (!view)
        return ufn_fail(UFN_ERR_INVALID, "%s: the view pointer is NULL", fn);
    const ufn_shards *t = ufn_shards_of(a);
    ufn_shards_part(t, part, view);
    if (first_row)
        *first_row = t->first[part];
    return UFN_OK;
}
