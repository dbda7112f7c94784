/* check.c - validating the array descriptors a caller passes.
 *
 * Every entry point checks each descriptor before it touches anything, so a
 * refused argument never leads to a write.  The order of the checks makes
 * each misuse report its own status: NULL (UFN_ERR_INVALID), memory kind,
 * dtype (UFN_ERR_DTYPE), ndim (UFN_ERR_NDIM), negative extents
 * (UFN_ERR_SHAPE), sizes that overflow (UFN_ERR_OVERFLOW), a NULL data
 * pointer, misalignment (UFN_ERR_ALIGN), stale runtime allocations
 * (UFN_ERR_FREED), device arrays this backend cannot use
 * (UFN_ERR_WRONG_MEMORY).  A sharded array is accepted only where the
 * caller can take one whole (the calls of ufuncs, copies to the host);
 * anywhere else (a kernel launch, DLPack) it is UFN_ERR_WRONG_MEMORY.
 */
#include <stdio.h>
#include <stdlib.h>

#include "ufnrt.h"

const void *ufn_array_ptr(const ufn_array *a)
{
    return a->data ? a->data : (const void *)&a->value;
}

void ufn_c_strides(int ndim, const int64_t *shape, int64_t *strides)
{
    /* Wrapping: ufn_host() computes strides before anything is checked, and
     * a shape whose product overflows (refused later, UFN_ERR_OVERFLOW) must
     * not be undefined behaviour on the way. */
    uint64_t s = 1;
    for (int d = ndim - 1; d >= 0; d--) {
        strides[d] = (int64_t)s;
        s *= shape[d] > 0 ? (uint64_t)shape[d] : 1;
    }
}

/* Dense in C order (first = ndim - 1, step -1) or Fortran order (0, +1):
 * extents of 1 may have any stride, an empty array is dense. */
static bool dense_from(const ufn_array *a, int first, int step)
{
    int64_t s = 1;
    for (int i = 0, d = first; i < a->ndim; i++, d += step) {
        if (a->shape[d] == 0)
            return true;
        if (a->shape[d] != 1 && a->strides[d] != s)
            return false;
        s *= a->shape[d];
    }
    return true;
}

bool ufn_is_c_contiguous(const ufn_array *a)
{
    return dense_from(a, a->ndim - 1, -1);
}

bool ufn_is_f_contiguous(const ufn_array *a)
{
    return dense_from(a, 0, 1);
}

int ufn_check_module(const ufn_module *m, const char *name)
{
    if (m && m->abi_version != UFN_ABI_VERSION)
        return ufn_fail(UFN_ERR_INVALID, "%s: the module was built for ABI version %d, the "
                        "runtime has version %d", name, m->abi_version, UFN_ABI_VERSION);
    return UFN_OK;
}

int ufn_owner_tag(const ufn_array *where, uint64_t id)
{
    uint64_t h = ((uint64_t)(uintptr_t)where ^ id * 0x9E3779B97F4A7C15ull) * 0xBF58476D1CE4E5B9ull;
    return (int)(((h >> 40) & 0xffff) | 1) << 8;   /* never 0 */
}

void ufn_hand_over(ufn_array *dst, const ufn_array *a)
{
    *dst = *a;
    dst->flags = (dst->flags & ~UFN_FLAG_OWNER_MASK) | ufn_owner_tag(dst, a->alloc_id);
}

bool ufn_holds_live(const ufn_array *a)
{
    return a->memory != UFN_MEM_NONE && a->alloc_id &&
           (a->flags & UFN_FLAG_OWNER_MASK) == ufn_owner_tag(a, a->alloc_id) &&
           ufn_registry_live(a->alloc_id);
}

void ufn_byte_strides(const ufn_array *a, int64_t *out)
{
    for (int d = 0; d < a->ndim; d++)
        out[d] = a->strides[d] * ufn_dtype_size(a->dtype);
}

size_t ufn_array_bytes(const ufn_array *a)
{
    size_t n = (size_t)ufn_dtype_size(a->dtype);
    for (int d = 0; d < a->ndim; d++)
        n *= (size_t)a->shape[d];
    return n;
}

void ufn_array_extent(const ufn_array *a, int64_t *lo, int64_t *hi)
{
    int64_t l = 0, h = 0, size = ufn_dtype_size(a->dtype);
    for (int d = 0; d < a->ndim; d++) {
        if (a->shape[d] == 0) {
            *lo = *hi = 0;
            return;
        }
        int64_t span = (a->shape[d] - 1) * a->strides[d] * size;
        if (span < 0)
            l += span;
        else
            h += span;
    }
    *lo = l;
    *hi = h + size;
}

/* Fail with the message, prefixed with "what: " when what is not NULL. */
#define FAIL(status, ...) \
    (ufn_fail((status), __VA_ARGS__), what ? ufn_fail_prefix((status), what) : (status))

/* The checks; a sharded array passes them only where `sharded` allows it. */
static int check(const ufn_array *a, const char *what, bool sharded)
{
    if (!a)
        return FAIL(UFN_ERR_INVALID, "the array pointer is NULL");
    if (a->memory == UFN_MEM_SHARDED && !sharded)
        return FAIL(UFN_ERR_WRONG_MEMORY, "a sharded array cannot be used here: pass one "
                    "device's part of it (ufn_shard_part)");
    if (a->memory != UFN_MEM_HOST && a->memory != UFN_MEM_DEVICE &&
        a->memory != UFN_MEM_SHARDED) {
        if (a->memory == UFN_MEM_NONE)
            return FAIL(UFN_ERR_INVALID, "the array is empty (no memory)");
        return FAIL(UFN_ERR_INVALID, "invalid memory kind %d", (int)a->memory);
    }
    if (!ufn_dtype_valid(a->dtype))
        return FAIL(UFN_ERR_DTYPE, "invalid dtype %d", (int)a->dtype);
    if (a->ndim < 0 || a->ndim > UFN_MAXDIMS)
        return FAIL(UFN_ERR_NDIM, "ndim %d is outside 0..%d", a->ndim, UFN_MAXDIMS);
    if (a->flags & UFN_FLAG_NULL_SHAPE)
        return FAIL(UFN_ERR_INVALID, "the shape pointer was NULL for ndim %d", a->ndim);
    int64_t size = 1, elsize = ufn_dtype_size(a->dtype);
    for (int d = 0; d < a->ndim; d++) {
        if (a->shape[d] < 0)
            return FAIL(UFN_ERR_SHAPE, "negative dimensions are not allowed (shape[%d] is %lld)",
                        d, (long long)a->shape[d]);
        if (__builtin_mul_overflow(size, a->shape[d], &size))
            return FAIL(UFN_ERR_OVERFLOW, "the number of elements overflows int64");
    }
    int64_t bytes;
    if (__builtin_mul_overflow(size, elsize, &bytes) || (uint64_t)bytes > SIZE_MAX)
        return FAIL(UFN_ERR_OVERFLOW, "the array's size in bytes overflows");
    if (a->memory == UFN_MEM_SHARDED)
        return ufn_shards_check(a, what);   /* its data is its record, not an element */
    if (size > 0) {
        /* The byte span of the strides must be representable too. */
        int64_t span = 0;
        for (int d = 0; d < a->ndim; d++) {
            int64_t s = a->strides[d], t;
            if (s == INT64_MIN || __builtin_mul_overflow(s < 0 ? -s : s, a->shape[d] - 1, &t) ||
                __builtin_mul_overflow(t, elsize, &t) || __builtin_add_overflow(span, t, &span))
                return FAIL(UFN_ERR_OVERFLOW, "the strides reach beyond the address space");
        }
    }
    if (!a->data) {
        bool inline_value = a->ndim == 0 && a->memory == UFN_MEM_HOST;
        if (size > 0 && !inline_value)
            return FAIL(UFN_ERR_INVALID, "the data pointer is NULL");
    } else if ((uintptr_t)a->data % (uintptr_t)ufn_dtype_align(a->dtype) != 0) {
        return FAIL(UFN_ERR_ALIGN, "the data pointer %p is not aligned to %d bytes for %s",
                    a->data, ufn_dtype_align(a->dtype), ufn_dtype_name(a->dtype));
    }
    if (a->alloc_id) {
        int64_t lo = 0, hi = 0;
        if (a->data && size > 0)
            ufn_array_extent(a, &lo, &hi);
        int st = ufn_registry_check(a->alloc_id, (const char *)a->data + lo, (size_t)(hi - lo));
        if (st < 0)
            return what ? ufn_fail_prefix(st, what) : st;
    }
    if (a->memory == UFN_MEM_DEVICE) {
        const ufn_backend_ops *be;
        int st = ufn_get_backend(&be);
        if (st < 0)
            return what ? ufn_fail_prefix(st, what) : st;
        if (be->device_memory != UFN_MEM_DEVICE)
            return FAIL(UFN_ERR_WRONG_MEMORY, "a device array, but the %s backend has no device "
                        "memory", be->name);
        if (a->device < 0 || a->device >= be->device_count(be))
            return FAIL(UFN_ERR_NO_DEVICE, "device %d does not exist (%d devices)", a->device,
                        be->device_count(be));
    }
    return UFN_OK;
}

int ufn_check_array(const ufn_array *a, const char *what)
{
    return check(a, what, false);
}

int ufn_check_whole(const ufn_array *a, const char *what)
{
    return check(a, what, true);
}

int ufn_check_operand(const ufn_array *a, const char *kind, int index)
{
    int st = check(a, NULL, true);
    if (st < 0) {
        char what[32];
        snprintf(what, sizeof what, "%s %d", kind, index);
        ufn_fail_prefix(st, what);
    }
    return st;
}
