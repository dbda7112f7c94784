/* copy.c - host-side n-d copies with conversion, and allocating arrays.
 *
 * Temporaries of a call (inputs of another dtype, packed host inputs for a
 * device, outputs written through a cast) and the strided sides of
 * ufn_to_device/ufn_copy_to_host all come through ufn_copy_nd.
 */
#include <stdlib.h>
#include <string.h>

#include "ufnrt.h"

void ufn_copy_nd(int ndim, const int64_t *shape, char *dst, ufn_dtype dt,
                 const int64_t *dstrides, const char *src, ufn_dtype st,
                 const int64_t *sstrides)
{
    /* Drop size-1 dimensions and merge those contiguous in both. */
    int64_t sh[UFN_MAXDIMS], ds[UFN_MAXDIMS], ss[UFN_MAXDIMS];
    int n = 0;
    for (int d = 0; d < ndim; d++) {
        if (shape[d] == 0)
            return;
        if (shape[d] == 1)
            continue;
        if (n > 0 && ds[n - 1] == dstrides[d] * shape[d] && ss[n - 1] == sstrides[d] * shape[d]) {
            sh[n - 1] *= shape[d];
            ds[n - 1] = dstrides[d];
            ss[n - 1] = sstrides[d];
            continue;
        }
        sh[n] = shape[d];
        ds[n] = dstrides[d];
        ss[n] = sstrides[d];
        n++;
    }
    if (n == 0) {
        ufn_convert(dst, dt, 0, src, st, 0, 1);
        return;
    }
    int64_t idx[UFN_MAXDIMS] = {0};
    int inner = n - 1;
    for (;;) {
        ufn_convert(dst, dt, (ptrdiff_t)ds[inner], src, st, (ptrdiff_t)ss[inner],
                    (size_t)sh[inner]);
        int d = inner - 1;
        for (; d >= 0; d--) {
            dst += ds[d];
            src += ss[d];
            if (++idx[d] < sh[d])
                break;
            dst -= ds[d] * sh[d];
            src -= ss[d] * sh[d];
            idx[d] = 0;
        }
        if (d < 0)
            return;
    }
}

int ufn_alloc_array(ufn_dtype dtype, int ndim, const int64_t *shape, ufn_memory memory,
                    int device, ufn_array *out)
{
    int64_t size = 1, bytes;
    for (int d = 0; d < ndim; d++)
        if (__builtin_mul_overflow(size, shape[d], &size))
            return ufn_fail(UFN_ERR_OVERFLOW, "the number of elements overflows int64");
    if (__builtin_mul_overflow(size, (int64_t)ufn_dtype_size(dtype), &bytes) ||
        (uint64_t)bytes > SIZE_MAX)
        return ufn_fail(UFN_ERR_OVERFLOW, "the array's size in bytes overflows");
    size_t nbytes = bytes > 0 ? (size_t)bytes : 1;
    void *p = NULL;
    ufn_memory owner;
    const ufn_backend_ops *be = NULL;
    ufn_stream_impl *s = NULL;
    if (memory == UFN_MEM_HOST) {
        if (!(p = ufn_host_memalign(nbytes)))
            return ufn_fail(UFN_ERR_NOMEM, "out of host memory allocating %zu bytes", nbytes);
        owner = UFN_MEM_HOST;
    } else {
        int st = ufn_get_backend(&be);
        if (st < 0 || (st = ufn_current_stream(&s)) < 0)
            return st;
        st = be->alloc(be, device, nbytes, s, &p);
        if (st < 0)
            return st;
        owner = UFN_MEM_DEVICE;
        memory = be->device_memory;
    }
    uint64_t id = ufn_registry_add(p, (size_t)bytes, owner, device);
    if (!id) {
        if (owner == UFN_MEM_HOST)
            free(p);
        else
            be->free(be, device, p, s);
        return UFN_ERR_NOMEM;
    }
    ufn_array a;
    memset(&a, 0, sizeof a);
    a.data = p;
    a.dtype = dtype;
    a.ndim = ndim;
    a.memory = memory;
    a.device = memory == UFN_MEM_DEVICE ? device : 0;
    a.alloc_id = id;
    for (int d = 0; d < ndim; d++)
        a.shape[d] = shape[d];
    ufn_c_strides(ndim, shape, a.strides);
    *out = a;
    return UFN_OK;
}
