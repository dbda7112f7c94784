/* library.c - the simulator's libraries, kernels and launches: the image of
 * cuLibraryLoadData is the ufn_module itself, whose sim_kernels are found
 * by name (with, for @cuda.jit kernels, their flags and static shared
 * memory, which the driver reads from a fatbin); a launch is checked
 * against the driver's limits, the function's dynamic shared memory
 * included, and queued with a copy of its parameters (grid.c runs it). */
#include <stdlib.h>
#include <string.h>

#include "simrt.h"

/* ---- libraries and kernels ------------------------------------------------------------ */

CUresult sim_library_load(CUlibrary *lib, const void *image, void *jit_options,
                                 void **jit_values, unsigned njit, void *lib_options,
                                 void **lib_values, unsigned nlib)
{
    (void)jit_options, (void)jit_values, (void)njit;
    (void)lib_options, (void)lib_values, (void)nlib;
    REQUIRE_INIT();
    if (!lib || !image)
        return CUDA_ERROR_INVALID_VALUE;
    INJECT("cuLibraryLoadData");
    const ufn_module *m = image;
    if (m->abi_version != UFN_ABI_VERSION || !m->sim_kernels || m->nsim_kernels < 0)
        return CUDA_ERROR_INVALID_IMAGE;   /* e.g. a fatbin given to the simulator */
    struct CUlib_st *l = calloc(1, sizeof *l);
    struct CUkern_st *k = calloc((size_t)m->nsim_kernels + 1, sizeof *k);
    if (!l || !k) {
        free(l);
        free(k);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    for (int i = 0; i < m->nsim_kernels; i++) {
        const ufn_sim_kernel *sk = &m->sim_kernels[i];
        if (!sk->name || !sk->entry || sk->nparams < 0 || (sk->nparams > 0 && !sk->param_sizes)) {
            free(l);
            free(k);
            return CUDA_ERROR_INVALID_IMAGE;
        }
        k[i].tag = TAG_KERNEL;
        k[i].kernel = sk;
        /* the default limit of dynamic shared memory: what static leaves of 48 KiB */
        int dynamic = sk->static_shared < SIM_SHARED ? SIM_SHARED - (int)sk->static_shared : 0;
        for (int d = 0; d < SIM_MAX_DEVICES; d++)
            k[i].func[d] = (struct CUfunc_st){ TAG_FUNCTION, d, sk, l, dynamic };
    }
    l->tag = TAG_LIBRARY;
    l->module = m;
    l->nkernels = m->nsim_kernels;
    l->kernels = k;
    *lib = l;
    return CUDA_SUCCESS;
}

CUresult sim_library_kernel(CUkernel *kernel, CUlibrary lib, const char *name)
{
    REQUIRE_INIT();
    if (!kernel || !name)
        return CUDA_ERROR_INVALID_VALUE;
    if (!lib || lib->tag != TAG_LIBRARY)
        return CUDA_ERROR_INVALID_HANDLE;
    INJECT("cuLibraryGetKernel");
    for (int i = 0; i < lib->nkernels; i++) {
        if (strcmp(lib->kernels[i].kernel->name, name) == 0) {
            *kernel = &lib->kernels[i];
            return CUDA_SUCCESS;
        }
    }
    return CUDA_ERROR_NOT_FOUND;
}

CUresult sim_kernel_function(CUfunction *fn, CUkernel kernel)
{
    REQUIRE_CONTEXT(dev);
    if (!fn)
        return CUDA_ERROR_INVALID_VALUE;
    if (!kernel || kernel->tag != TAG_KERNEL)
        return CUDA_ERROR_INVALID_HANDLE;
    INJECT("cuKernelGetFunction");
    *fn = &kernel->func[dev];
    return CUDA_SUCCESS;
}

CUresult sim_library_unload(CUlibrary lib)
{
    REQUIRE_INIT();
    if (!lib || lib->tag != TAG_LIBRARY)
        return CUDA_ERROR_INVALID_HANDLE;
    sq_device_sync(-1);   /* launches of its kernels may be queued */
    for (int d = 0; d < SIM_MAX_DEVICES; d++) {
        if (!lib->depth_flag[d])
            continue;
        pthread_mutex_lock(&ufn_sim.lock);
        sim_alloc *a = sim_take_alloc(lib->depth_flag[d], true);
        pthread_mutex_unlock(&ufn_sim.lock);
        free(lib->depth_flag[d]);
        free(a);
    }
    for (int i = 0; i < lib->nkernels; i++) {
        lib->kernels[i].tag = TAG_DEAD;
        for (int d = 0; d < SIM_MAX_DEVICES; d++)
            lib->kernels[i].func[d].tag = TAG_DEAD;
    }
    lib->tag = TAG_DEAD;
    free(lib->kernels);
    free(lib);
    return CUDA_SUCCESS;
}

/* The module's ufn_depth_flag on device dev, made (zeroed, as device
 * memory that copies may address) on first use; ufn_sim.lock held.  Not counted
 * in the device's statistics: the real one is part of the module. */
static unsigned *depth_word(struct CUlib_st *lib, int dev)
{
    if (!lib->depth_flag[dev]) {
        void *p = aligned_alloc(SIM_ALIGN, SIM_ALIGN);
        if (!p)
            return NULL;
        memset(p, 0, SIM_ALIGN);
        if (sim_add_alloc(p, sizeof(unsigned), dev) != CUDA_SUCCESS) {
            free(p);
            return NULL;
        }
        lib->depth_flag[dev] = p;
    }
    return lib->depth_flag[dev];
}

CUresult sim_library_global(CUdeviceptr *ptr, size_t *bytes, CUlibrary lib, const char *name)
{
    REQUIRE_CONTEXT(dev);
    if (!ptr || !name)
        return CUDA_ERROR_INVALID_VALUE;
    if (!lib || lib->tag != TAG_LIBRARY)
        return CUDA_ERROR_INVALID_HANDLE;
    /* the one device variable generated code has, in modules that recurse */
    if (strcmp(name, "ufn_depth_flag") != 0 || !lib->module->recursion_frame)
        return CUDA_ERROR_NOT_FOUND;
    pthread_mutex_lock(&ufn_sim.lock);
    unsigned *w = depth_word(lib, dev);
    pthread_mutex_unlock(&ufn_sim.lock);
    if (!w)
        return CUDA_ERROR_OUT_OF_MEMORY;
    *ptr = (CUdeviceptr)(uintptr_t)w;
    if (bytes)
        *bytes = sizeof *w;
    return CUDA_SUCCESS;
}

/* ---- launches ------------------------------------------------------------------------------- */

static CUresult check_function(CUfunction f, int device)
{
    if (!f || f->tag != TAG_FUNCTION)
        return CUDA_ERROR_INVALID_HANDLE;
    return f->device == device ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

CUresult sim_launch(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                           unsigned by, unsigned bz, unsigned shared, CUstream s,
                           void **params, void **extra)
{
    REQUIRE_CONTEXT(dev);
    CUresult r = check_function(f, dev);
    if (r == CUDA_SUCCESS)
        r = sim_check_stream(s, dev);
    if (r != CUDA_SUCCESS)
        return r;
    /* The real driver's limits; the simulator has no `extra` parameter
     * packing. */
    unsigned max_dynamic = (unsigned)__atomic_load_n(&f->max_dynamic, __ATOMIC_RELAXED);
    if (!params || extra || shared > max_dynamic || gx == 0 || gy == 0 || gz == 0 ||
        bx == 0 || by == 0 || bz == 0 || gx > 0x7fffffffu || gy > 65535 || gz > 65535 ||
        bx > SIM_MAX_BLOCK || by > SIM_MAX_BLOCK || bz > 64 ||
        (uint64_t)bx * by * bz > SIM_MAX_BLOCK)
        return CUDA_ERROR_INVALID_VALUE;
    INJECT("cuLaunchKernel");
    unsigned *depth = NULL;
    if (f->lib->module->recursion_frame) {
        pthread_mutex_lock(&ufn_sim.lock);
        depth = depth_word(f->lib, dev);
        pthread_mutex_unlock(&ufn_sim.lock);
    }
    sim_grid g = {
        .kernel = f->kernel,
        .device = dev,
        .grid = { gx, gy, gz },
        .block = { bx, by, bz },
        .dynamic_shared = shared,
        .checks = ufn_sim.checks,
        .depth_flag = depth,
    };
    sim_op *op = sq_launch_op(&g, params);
    if (!op)
        return CUDA_ERROR_OUT_OF_MEMORY;
    op->tally = (sim_tally){ .device = dev, .launches = 1,
                             .threads = (uint64_t)gx * gy * gz * bx * by * bz };
    return sim_submit(s, dev, op, NULL);
}

CUresult sim_func_get_attribute(int *value, CUfunction_attribute attr, CUfunction f)
{
    REQUIRE_CONTEXT(dev);
    CUresult r = check_function(f, dev);
    if (r != CUDA_SUCCESS)
        return r;
    if (!value)
        return CUDA_ERROR_INVALID_VALUE;
    switch (attr) {
    case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *value = SIM_MAX_BLOCK; break;
    case CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES: *value = (int)f->kernel->static_shared; break;
    case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES:
        *value = __atomic_load_n(&f->max_dynamic, __ATOMIC_RELAXED);
        break;
    default: return CUDA_ERROR_INVALID_VALUE;
    }
    return CUDA_SUCCESS;
}

/* Only the dynamic shared memory limit can be set: up to the opt-in
 * maximum less the static shared memory, as on a GPU. */
CUresult sim_func_set_attribute(CUfunction f, CUfunction_attribute attr, int value)
{
    REQUIRE_CONTEXT(dev);
    CUresult r = check_function(f, dev);
    if (r != CUDA_SUCCESS)
        return r;
    if (attr != CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES || value < 0 ||
        (int64_t)value + f->kernel->static_shared > SIM_SHARED_OPTIN)
        return CUDA_ERROR_INVALID_VALUE;
    __atomic_store_n(&f->max_dynamic, value, __ATOMIC_RELAXED);
    return CUDA_SUCCESS;
}

/* Plausible fixed answers: the generated kernels' 256 threads per block, and
 * as many resident blocks as 2048 threads per multiprocessor allow. */
CUresult sim_occupancy_block(int *min_grid, int *block, CUfunction f,
                                    CUoccupancyB2DSize smem_of_block, size_t smem,
                                    int block_limit)
{
    REQUIRE_CONTEXT(dev);
    (void)smem_of_block, (void)smem;
    if (!min_grid || !block || block_limit < 0)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult r = check_function(f, dev);
    if (r != CUDA_SUCCESS)
        return r;
    int b = 256;
    if (block_limit > 0 && block_limit < b)
        b = block_limit;
    *block = b;
    int per_sm = SIM_THREADS_PER_SM / b;
    *min_grid = SIM_SMS * (per_sm < SIM_BLOCKS_PER_SM ? per_sm : SIM_BLOCKS_PER_SM);
    return CUDA_SUCCESS;
}

CUresult sim_occupancy_blocks(int *blocks, CUfunction f, int block, size_t smem)
{
    REQUIRE_CONTEXT(dev);
    (void)smem;
    if (!blocks || block <= 0)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult r = check_function(f, dev);
    if (r != CUDA_SUCCESS)
        return r;
    int per_sm = block > SIM_MAX_BLOCK ? 0 : SIM_THREADS_PER_SM / block;
    *blocks = per_sm < SIM_BLOCKS_PER_SM ? per_sm : SIM_BLOCKS_PER_SM;
    return CUDA_SUCCESS;
}

