/* cuda_kernel.c - @cuda.jit kernels through the driver (the real one or the
 * simulator): the device's launch limits, and the launch itself.
 *
 * kernel.c has checked the launch against the limits read here and built
 * the parameter array, one pointer per parameter, which is cuLaunchKernel's
 * kernelParams as it stands (the driver reads each parameter's size from
 * the image).  Dynamic shared memory beyond the function's current limit
 * (48 KiB less its static shared memory, by default) needs
 * CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES raised first; the limit is
 * per function and shared by every thread, so it is only ever raised, under
 * a lock: a launch never lowers what another one needs (reference/kernels.md
 * 5.2).  Faults of the kernel surface as UFN_ERR_KERNEL, from the launch or
 * from the next synchronising call (ufn_cudrv_fail).  A kernel of a module
 * with recursive helpers is waited for, to see whether one went too deep
 * (cuda_depth_check), as ufunc launches are.
 */
#include "cudrv.h"

static pthread_mutex_t attribute_lock = PTHREAD_MUTEX_INITIALIZER;

int cuda_kernel_limits(cuda_backend *b, int device, ufn_klimits *out)
{
    cuda_device *d;
    int st = cuda_device_get(b, device, &d);
    if (st)
        return st;
    int v[9];
    static const CUdevice_attribute attrs[9] = {
        CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
        CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X,
        CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y,
        CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z,
        CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X,
        CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y,
        CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z,
        CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK,
        CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
    };
    for (int i = 0; i < 9; i++) {
        CUresult r = b->drv->cuDeviceGetAttribute(&v[i], attrs[i], d->dev);
        if (r != CUDA_SUCCESS)
            return ufn_cudrv_fail(b->drv, r, "cuDeviceGetAttribute(%d, device %d)", (int)attrs[i],
                                  device);
        if (v[i] < 0)
            v[i] = 0;
    }
    *out = (ufn_klimits){
        .threads = (uint32_t)v[0],
        .block = { (uint32_t)v[1], (uint32_t)v[2], (uint32_t)v[3] },
        .grid = { (uint32_t)v[4], (uint32_t)v[5], (uint32_t)v[6] },
        .shared = (size_t)v[7],
        .shared_optin = (size_t)(v[8] > v[7] ? v[8] : v[7]),
    };
    return 0;
}

/* Let the function take `bytes` of dynamic shared memory. */
static int allow_dynamic(cuda_backend *b, cuda_kernel *k, size_t bytes)
{
    const ufn_cudrv *drv = b->drv;
    pthread_mutex_lock(&attribute_lock);
    int now = 0;
    CUresult r = drv->cuFuncGetAttribute(&now, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                         k->fn);
    if (r == CUDA_SUCCESS && (size_t)now < bytes)
        r = drv->cuFuncSetAttribute(k->fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                    (int)bytes);
    pthread_mutex_unlock(&attribute_lock);
    if (r != CUDA_SUCCESS)
        return ufn_cudrv_fail(drv, r, "raising the dynamic shared memory of %s to %zu bytes",
                              k->name, bytes);
    return 0;
}

int cuda_launch_kernel(cuda_backend *b, const ufn_kplan *p, ufn_stream_impl *s)
{
    cuda_device *d;
    int st = cuda_device_get(b, p->device, &d);
    if (st || (st = cuda_enter(b, d)) != 0)
        return st;
    CUstream stream;
    cuda_kernel *k;
    st = cuda_stream_of(b, s, p->device, &stream);
    if (st == 0)
        st = cuda_kernel_get(b, d, p->kernel->module, p->sig->kernel, &k);
    if (st == 0 && p->dynamic_shared > 0)
        st = allow_dynamic(b, k, p->dynamic_shared);
    uint64_t t0 = ufn_trace_clock();
    if (st == 0) {
        CUresult r = b->drv->cuLaunchKernel(k->fn, p->grid[0], p->grid[1], p->grid[2],
                                            p->block[0], p->block[1], p->block[2],
                                            (unsigned)p->dynamic_shared, stream, p->params,
                                            NULL);
        if (r != CUDA_SUCCESS)
            st = ufn_cudrv_fail(b->drv, r,
                                "cuLaunchKernel(%s, %u x %u x %u blocks of %u x %u x %u threads, "
                                "%zu bytes of dynamic shared memory)", k->name, p->grid[0],
                                p->grid[1], p->grid[2], p->block[0], p->block[1], p->block[2],
                                p->dynamic_shared);
    }
    if (st == 0) {
        uint64_t threads = (uint64_t)p->grid[0] * p->grid[1] * p->grid[2] * p->block[0] *
                           p->block[1] * p->block[2];
        cuda_trace_since(b, UFN_EV_KERNEL, p->sig->kernel, (size_t)threads, p->device, t0);
        st = cuda_depth_check(b, k, stream, p->kernel->name ? p->kernel->name : k->name);
    }
    cuda_leave(b);
    return st;
}
