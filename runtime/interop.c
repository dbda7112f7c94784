/* interop.c - C interop: what a program that has its own threads, devices,
 * memory and streams sets or hands to the runtime.
 *
 *   ufn_set_num_threads  the host pool's thread count, as UFN_NUM_THREADS
 *                        (host.c keeps it; pool.c runs a call made inside an
 *                        OpenMP parallel region on its caller alone)
 *   ufn_set_device       the default device, as UFN_DEVICE (the backend
 *                        keeps it: be->set_default_device)
 *
 * Each is the call form of an environment variable and means the same; a
 * call wins over the variable.  All are process-wide, as the variables are.
 */
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
