/* interop.c - C interop: what a program that has its own threads, devices,
 * memory and streams sets or hands to the runtime.
 *
 *   ufn_set_num_threads  the host pool's thread count, as UFN_NUM_THREADS
 *                        (host.c keeps it; pool.c runs a call made inside an
 *                        OpenMP parallel region on its caller alone)
 *   ufn_set_device       the default device, as UFN_DEVICE (the backend
 *                        keeps it: be->set_default_device)
 *   ufn_device_view      the program's device memory as an array, borrowed
 *                        (alloc_id 0: ufn_free leaves it alone), checked with
 *                        the driver (be->device_pointer)
 *   ufn_stream_wrap      the program's CUstream as a ufn_stream, borrowed
 *                        (be->stream_wrap; ufn_stream_destroy forgets it)
 *
 * Backends without device memory (host) refuse the last two: they cannot
 * read a cudaMalloc pointer, nor order work with a CUDA stream.
 * Each is the call form of an environment variable and means the same; a
 * call wins over the variable.  All are process-wide, as the variables are.
 */
#include <stdlib.h>

#include "ufnrt.h"

int ufn_set_num_threads(int n)
{
    if (n < 0 || n > UFN_HOST_MAX_THREADS)
        return ufn_fail(UFN_ERR_INVALID, "ufn_set_num_threads(%d): not a number of threads "
                        "(1 to %d, or 0 for the default)", n, UFN_HOST_MAX_THREADS);
    ufn_host_set_threads(n);
    return UFN_OK;
}

int ufn_get_num_threads(void)
{
    return ufn_host_threads();
}

int ufn_set_device(int device)
{
    const ufn_backend_ops *be;
    int st = ufn_get_backend(&be);
    if (st < 0)
        return st;
    if (device < 0)
        return ufn_fail(UFN_ERR_NO_DEVICE, "ufn_set_device(%d): not a device ordinal", device);
    /* The host backend has one device and takes any ordinal, as
     * ufn_set_devices does there: a program written for several GPUs runs
     * unchanged on the CPU. */
    if (!be->set_default_device)
        return UFN_OK;
    st = be->set_default_device(be, device);
    return st < 0 ? ufn_fail_prefix(st, "ufn_set_device") : UFN_OK;
}

int ufn_get_device(void)
{
    const ufn_backend_ops *be;
    int st = ufn_get_backend(&be);
    return st < 0 ? st : ufn_current_device();
}

int ufn_device_view(void *ptr, ufn_dtype dtype, int ndim, const int64_t *shape,
                    const int64_t *strides, ufn_array *out)
{
    static const char fn[] = "ufn_device_view";
    if (!out)
        return ufn_fail(UFN_ERR_INVALID, "%s: the descriptor pointer is NULL", fn);
    if (ufn_holds_live(out))
        return ufn_fail(UFN_ERR_OUTPUT, "%s: the descriptor holds a live array (allocation "
                        "#%llu): ufn_free it first, or pass an empty one", fn,
                        (unsigned long long)out->alloc_id);
    const ufn_backend_ops *be;
    int st = ufn_get_backend(&be);
    if (st < 0)
        return ufn_fail_prefix(st, fn);
    if (be->device_memory != UFN_MEM_DEVICE || !be->device_pointer)
        return ufn_fail(UFN_ERR_WRONG_MEMORY, "%s: the %s backend has no device memory (wrap "
                        "host memory with ufn_host)", fn, be->name);
    ufn_array a = ufn_host_strided(ptr, dtype, ndim, shape, strides);
    a.memory = UFN_MEM_DEVICE;
    a.device = ufn_current_device();
    if ((st = ufn_check_array(&a, fn)) < 0)
        return st;
    int64_t lo, hi;
    ufn_array_extent(&a, &lo, &hi);
    if (hi > lo && (st = be->device_pointer(be, ptr, lo, hi, &a.device)) < 0)
        return ufn_fail_prefix(st, fn);
    *out = a;
    return UFN_OK;
}

int ufn_stream_wrap(void *cu_stream, ufn_stream *out)
{
    static const char fn[] = "ufn_stream_wrap";
    if (!out)
        return ufn_fail(UFN_ERR_INVALID, "%s: the stream pointer is NULL", fn);
    const ufn_backend_ops *be;
    int st = ufn_get_backend(&be);
    if (st < 0)
        return ufn_fail_prefix(st, fn);
    if (!be->stream_wrap)
        return ufn_fail(UFN_ERR_INVALID, "%s: the %s backend has no CUDA streams", fn,
                        be->name);
    /* CUDA's NULL stream is the runtime's default stream. */
    if (!cu_stream) {
        *out = NULL;
        return UFN_OK;
    }
    ufn_stream_impl *s = calloc(1, sizeof *s);
    if (!s)
        return ufn_fail(UFN_ERR_NOMEM, "%s: out of host memory", fn);
    s->backend = be;
    if ((st = be->stream_wrap(be, cu_stream, s)) < 0) {
        free(s);
        return ufn_fail_prefix(st, fn);
    }
    if ((st = ufn_stream_register(s, out)) < 0) {
        be->stream_destroy(be, s);
        free(s);
        return ufn_fail_prefix(st, fn);
    }
    return UFN_OK;
}
