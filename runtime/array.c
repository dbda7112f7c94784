/* array.c - array descriptors and transfers: ufn_host*, ufn_scalar_*,
 * ufn_size, ufn_to_device, ufn_device_array, ufn_copy_to_host, ufn_free
 * (of sharded arrays too: multi_array.c gathers them, multi_shard.c frees).
 *
 * Device memory comes from the active backend (on the host backend it is
 * host memory, and the descriptors say UFN_MEM_HOST).  Every allocation is
 * entered in the registry (alloc.c), so ufn_free() releases it exactly once
 * and a stale copy of a freed descriptor is refused with UFN_ERR_FREED.
 * Host-side copies are complete when these functions return.
 */
#include <stdlib.h>
#include <string.h>

#include "ufnrt.h"

/* ---- descriptors ----------------------------------------------------------------------- */

ufn_array ufn_host_strided(void *data, ufn_dtype dtype, int ndim, const int64_t *shape,
                           const int64_t *strides)
{
    ufn_array a;
    memset(&a, 0, sizeof a);
    a.data = data;
    a.dtype = dtype;
    a.ndim = ndim;
    a.memory = UFN_MEM_HOST;
    if (ndim < 0 || ndim > UFN_MAXDIMS)
        return a;               /* refused by every entry point (UFN_ERR_NDIM) */
    if (ndim > 0 && !shape) {
        a.flags = UFN_FLAG_NULL_SHAPE;
        return a;
    }
    for (int d = 0; d < ndim; d++)
        a.shape[d] = shape[d];
    if (strides)
        for (int d = 0; d < ndim; d++)
            a.strides[d] = strides[d];
    else
        ufn_c_strides(ndim, a.shape, a.strides);
    return a;
}

ufn_array ufn_host(void *data, ufn_dtype dtype, int ndim, const int64_t *shape)
{
    return ufn_host_strided(data, dtype, ndim, shape, NULL);
}

static ufn_array scalar(ufn_dtype dtype, const void *value, size_t size)
{
    ufn_array a;
    memset(&a, 0, sizeof a);
    a.dtype = dtype;
    a.memory = UFN_MEM_HOST;
    a.flags = UFN_WEAK;
    memcpy(a.value.bytes, value, size);
    return a;
}

#define SCALAR(name, T, DT)                                                            \
    ufn_array ufn_scalar_##name(T value)                                               \
    {                                                                                  \
        return scalar(DT, &value, sizeof value);                                       \
    }

ufn_array ufn_scalar_bool(int value)
{
    uint8_t b = value != 0;
    return scalar(UFN_BOOL, &b, 1);
}

SCALAR(int8, int8_t, UFN_INT8)
SCALAR(int16, int16_t, UFN_INT16)
SCALAR(int32, int32_t, UFN_INT32)
SCALAR(int64, int64_t, UFN_INT64)
SCALAR(uint8, uint8_t, UFN_UINT8)
SCALAR(uint16, uint16_t, UFN_UINT16)
SCALAR(uint32, uint32_t, UFN_UINT32)
SCALAR(uint64, uint64_t, UFN_UINT64)
SCALAR(float32, float, UFN_FLOAT32)
SCALAR(float64, double, UFN_FLOAT64)

ufn_array ufn_scalar_complex64(float re, float im)
{
    float v[2] = {re, im};
    return scalar(UFN_COMPLEX64, v, sizeof v);
}

ufn_array ufn_scalar_complex128(double re, double im)
{
    double v[2] = {re, im};
    return scalar(UFN_COMPLEX128, v, sizeof v);
}

int64_t ufn_size(const ufn_array *a)
{
    if (!a || a->ndim < 0 || a->ndim > UFN_MAXDIMS || (a->flags & UFN_FLAG_NULL_SHAPE))
        return -1;
    if (a->memory == UFN_MEM_NONE)
        return 0;
    int64_t n = 1;
    for (int d = 0; d < a->ndim; d++)
        if (a->shape[d] < 0 || __builtin_mul_overflow(n, a->shape[d], &n))
            return -1;
    return n;
}

/* ---- transfers ------------------------------------------------------------------------- */

/* A descriptor to fill must not hold a live array that the runtime put in
 * it: replacing it would lose the allocation.  (An uninitialised one may
 * hold anything and is simply overwritten; see UFN_FLAG_OWNER_MASK.) */
static int check_not_live(const ufn_array *dev, const char *fn)
{
    if (ufn_holds_live(dev))
        return ufn_fail(UFN_ERR_OUTPUT, "%s: the descriptor holds a live array (allocation "
                        "#%llu): ufn_free it first, or pass an empty one", fn,
                        (unsigned long long)dev->alloc_id);
    return UFN_OK;
}

int ufn_to_device(const ufn_array *host, ufn_array *dev)
{
    static const char fn[] = "ufn_to_device";
    int st = ufn_check_array(host, "ufn_to_device: the host array");
    if (st < 0)
        return st;
    if (!dev)
        return ufn_fail(UFN_ERR_INVALID, "%s: the device descriptor pointer is NULL", fn);
    if ((st = check_not_live(dev, fn)) < 0)
        return st;
    if (host->memory != UFN_MEM_HOST)
        return ufn_fail(UFN_ERR_WRONG_MEMORY, "%s: the source is not a host array", fn);
    const ufn_backend_ops *be;
    ufn_stream_impl *s;
    if ((st = ufn_get_backend(&be)) < 0 || (st = ufn_current_stream(&s)) < 0)
        return ufn_fail_prefix(st, fn);
    int device = ufn_current_device();
    ufn_array d;
    if ((st = ufn_alloc_array(host->dtype, host->ndim, host->shape, UFN_MEM_DEVICE, device, &d)) < 0)
        return ufn_fail_prefix(st, fn);
    size_t bytes = ufn_array_bytes(host);
    const void *src = ufn_array_ptr(host);
    void *packed = NULL;
    if (bytes > 0 && !ufn_is_c_contiguous(host)) {
        packed = malloc(bytes);
        if (!packed) {
            ufn_free(&d);
            return ufn_fail(UFN_ERR_NOMEM, "%s: out of host memory (%zu bytes)", fn, bytes);
        }
        int64_t ds[UFN_MAXDIMS], ss[UFN_MAXDIMS];
        ufn_c_strides(host->ndim, host->shape, ds);
        for (int k = 0; k < host->ndim; k++)
            ds[k] *= ufn_dtype_size(host->dtype);
        ufn_byte_strides(host, ss);
        ufn_copy_nd(host->ndim, host->shape, packed, host->dtype, ds, src, host->dtype, ss);
        src = packed;
    }
    st = bytes > 0 ? be->copy_h2d(be, device, d.data, src, bytes, s) : UFN_OK;
    free(packed);
    if (st < 0) {
        ufn_free(&d);
        return ufn_fail_prefix(st, fn);
    }
    ufn_hand_over(dev, &d);
    return UFN_OK;
}

int ufn_device_array(ufn_dtype dtype, int ndim, const int64_t *shape, ufn_array *dev)
{
    static const char fn[] = "ufn_device_array";
    if (!dev)
        return ufn_fail(UFN_ERR_INVALID, "%s: the device descriptor pointer is NULL", fn);
    int st = check_not_live(dev, fn);
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
    ufn_array d;
    st = ufn_alloc_array(dtype, ndim, shape, UFN_MEM_DEVICE, ufn_current_device(), &d);
    if (st < 0)
        return ufn_fail_prefix(st, fn);
    ufn_hand_over(dev, &d);
    return UFN_OK;
}

int ufn_copy_to_host(const ufn_array *dev, ufn_array *host)
{
    static const char fn[] = "ufn_copy_to_host";
    int st = ufn_check_whole(dev, "ufn_copy_to_host: the device array");
    if (st < 0)
        return st;
    if (!host)
        return ufn_fail(UFN_ERR_INVALID, "%s: the host descriptor pointer is NULL", fn);
    const ufn_backend_ops *be;
    ufn_stream_impl *s;
    if ((st = ufn_get_backend(&be)) < 0 || (st = ufn_current_stream(&s)) < 0)
        return ufn_fail_prefix(st, fn);
    bool empty = host->memory == UFN_MEM_NONE;
    if (!empty) {
        if ((st = ufn_check_array(host, "ufn_copy_to_host: the host array")) < 0)
            return st;
        if (host->memory != UFN_MEM_HOST)
            return ufn_fail(UFN_ERR_WRONG_MEMORY, "%s: the destination is not host memory", fn);
        if (!host->data)
            return ufn_fail(UFN_ERR_INVALID, "%s: the destination has no data pointer", fn);
        if (host->dtype != dev->dtype)
            return ufn_fail(UFN_ERR_DTYPE, "%s: the destination is %s, the source %s", fn,
                            ufn_dtype_name(host->dtype), ufn_dtype_name(dev->dtype));
        bool same = host->ndim == dev->ndim;
        for (int d = 0; same && d < dev->ndim; d++)
            same = host->shape[d] == dev->shape[d];
        if (!same)
            return ufn_fail(UFN_ERR_SHAPE, "%s: the destination's shape differs from the "
                            "source's", fn);
    }
    ufn_array h;
    if (empty) {
        if ((st = ufn_alloc_array(dev->dtype, dev->ndim, dev->shape, UFN_MEM_HOST, 0, &h)) < 0)
            return ufn_fail_prefix(st, fn);
    } else {
        h = *host;
    }
    if (dev->memory == UFN_MEM_SHARDED) {   /* part by part, from each device */
        st = ufn_shards_gather(dev, &h);
        if (st < 0) {
            if (empty)
                ufn_free(&h);
            return ufn_fail_prefix(st, fn);
        }
        if (empty)
            ufn_hand_over(host, &h);
        return UFN_OK;
    }
    size_t bytes = ufn_array_bytes(dev);
    /* The source's bytes as they lie, then (if either side is strided) an
     * n-d copy on the host. */
    int64_t lo = 0, hi = 0;
    if (bytes > 0)
        ufn_array_extent(dev, &lo, &hi);
    const char *src = (const char *)ufn_array_ptr(dev) + lo;
    bool dev_memory = dev->memory == UFN_MEM_DEVICE || be->device_memory == UFN_MEM_HOST;
    bool direct = ufn_is_c_contiguous(dev) && ufn_is_c_contiguous(&h);
    char *staging = NULL;
    st = UFN_OK;
    if (bytes == 0) {
        /* nothing to move */
    } else if (direct) {
        st = dev_memory ? be->copy_d2h(be, dev->device, h.data, src, bytes, s)
                        : (memmove(h.data, src, bytes), UFN_OK);
    } else {
        /* Through a copy of the source's bytes when they are on the device,
         * or overlap the destination's (on the host backend a view of a
         * "device" array can be the destination: read before written). */
        const char *from = src;
        int64_t hlo, hhi;
        ufn_array_extent(&h, &hlo, &hhi);
        const char *dst = (const char *)h.data;
        bool overlap = src < dst + hhi && dst + hlo < src + (hi - lo);
        if (dev->memory == UFN_MEM_DEVICE || overlap) {
            staging = malloc((size_t)(hi - lo));
            if (!staging)
                st = ufn_fail(UFN_ERR_NOMEM, "%s: out of host memory (%lld bytes)", fn,
                              (long long)(hi - lo));
            else if (dev->memory == UFN_MEM_DEVICE)
                st = be->copy_d2h(be, dev->device, staging, src, (size_t)(hi - lo), s);
            else
                memcpy(staging, src, (size_t)(hi - lo));
            from = staging;
        }
        if (st == UFN_OK) {
            int64_t ds[UFN_MAXDIMS], ss[UFN_MAXDIMS];
            ufn_byte_strides(&h, ds);
            ufn_byte_strides(dev, ss);
            ufn_copy_nd(dev->ndim, dev->shape, h.data, h.dtype, ds, from - lo, dev->dtype, ss);
        }
    }
    free(staging);
    if (st == UFN_OK && dev_memory && bytes > 0)
        st = be->stream_synchronize ? be->stream_synchronize(be, s) : UFN_OK;
    if (st < 0) {
        if (empty)
            ufn_free(&h);
        return ufn_fail_prefix(st, fn);
    }
    if (empty)
        ufn_hand_over(host, &h);
    return UFN_OK;
}

void ufn_release(uint64_t id)
{
    ufn_memory owner;
    int device;
    void *base = id ? ufn_registry_remove(id, &owner, &device) : NULL;
    if (!base)
        return;
    if (owner == UFN_MEM_HOST) {
        free(base);
    } else if (owner == UFN_MEM_SHARDED) {
        ufn_shards_free(base);
    } else {
        const ufn_backend_ops *be = ufn_active_backend();
        if (be)
            be->free(be, device, base, ufn_current_stream_or_default());
    }
}

void ufn_free(ufn_array *a)
{
    if (!a || !a->alloc_id)
        return;
    ufn_release(a->alloc_id);
    memset(a, 0, sizeof *a);
}

int ufn_finish_result(ufn_array *out, ufn_array *res, int st)
{
    if (out->memory != UFN_MEM_NONE)
        return st;              /* the result was written into the caller's array */
    if (st == UFN_OK)
        ufn_hand_over(out, res);
    else
        ufn_free(res);
    return st;
}
