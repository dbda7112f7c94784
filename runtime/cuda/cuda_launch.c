/* cuda_launch.c - plans over device arrays become kernel launches.
 *
 * A plan's loop space may have up to UFN_MAXDIMS dimensions and any number
 * of iterations; one launch takes at most UFN_KMAXDIM dimensions and fewer
 * than 2^31 iterations (so kernels index in 32 bits).  The innermost
 * dimensions go to the kernel, as many as fit; the host loops over the rest,
 * and over chunks of the outermost launched dimension when even that is too
 * big, advancing each operand's pointer.
 *
 * The parameter array follows the three forms of ufn_abi.h:
 *   contiguous ufunc  (uint32_t n, p0, p1, ...)
 *   strided ufunc     (ufn_kiter, p0, ufn_kstrides, p1, ufn_kstrides, ...),
 *                     where a scalar input goes by value (a NULL pointer,
 *                     the value in its strides)
 *   gufunc            (ufn_kiter, ufn_kcore, p0, loop strides, core strides, ...)
 *
 * Launch configuration: the block size the occupancy API chose for the
 * kernel (cached when the kernel was resolved, at most 256), and
 * grid = min(ceil(n / block), SMs x active blocks per SM x 2); the kernels
 * cover the rest with grid-stride loops.
 */
#include <string.h>

#include "cudrv.h"

#define DEFAULT_SPLIT ((int64_t)1 << 31)

static int64_t split_limit = DEFAULT_SPLIT;

void ufn_cuda_set_split_limit(int64_t limit)
{
    __atomic_store_n(&split_limit, limit >= 2 ? limit : DEFAULT_SPLIT, __ATOMIC_RELAXED);
}

int64_t ufn_cuda_split_limit(void)
{
    return __atomic_load_n(&split_limit, __ATOMIC_RELAXED);
}

static int launch(cuda_backend *b, cuda_device *d, cuda_kernel *k, uint32_t n, void **params,
                  CUstream stream, bool trace)
{
    unsigned block = (unsigned)k->block;
    uint64_t blocks = ((uint64_t)n + block - 1) / block;
    unsigned grid = blocks < k->max_grid ? (unsigned)blocks : k->max_grid;
    if (grid == 0)
        grid = 1;
    uint64_t t0 = ufn_trace_clock();
    CUresult r = b->drv->cuLaunchKernel(k->fn, grid, 1, 1, block, 1, 1, 0, stream, params, NULL);
    if (r != CUDA_SUCCESS)
        return ufn_cudrv_fail(b->drv, r, "cuLaunchKernel(%s, %u blocks of %u threads, n=%u)",
                              k->name, grid, block, n);
    if (trace)
        cuda_trace_since(b, UFN_EV_LAUNCH, k->name, n, d->ordinal, t0);
    return 0;
}

int cuda_launch(cuda_backend *b, cuda_device *d, cuda_kernel *k, uint32_t n, void **params,
                CUstream stream)
{
    return launch(b, d, k, n, params, stream, true);
}

static int64_t stride_of(const ufn_plan *p, int k, int dim)
{
    return p->ndim == 0 ? 0 : p->strides[k][dim];
}

/* How a plan is cut into launches: dimensions [0, outer) are looped on the
 * host, dimension `outer` is cut into pieces of `chunk`, and the launch
 * covers dimensions [outer, ndim).  A chunk of 16 or more is a multiple of
 * 16, so that each piece of a contiguous array starts 16-byte aligned and
 * the kernels keep their 16-byte loads (2^31 - 1 elements would not). */
#define CHUNK_ALIGN 16
typedef struct cut {
    int outer;
    int64_t chunk;
    int64_t inner;           /* iterations per unit of dimension `outer` */
} cut;

static cut cut_space(const int64_t *shape, int ndim, int64_t limit)
{
    int k = ndim < UFN_KMAXDIM ? ndim : UFN_KMAXDIM;
    for (;; k--) {
        int64_t inner = 1;
        bool fits = true;
        for (int d = ndim - k + 1; d < ndim && fits; d++) {
            if (shape[d] >= limit || inner > (limit - 1) / shape[d])
                fits = false;
            else
                inner *= shape[d];
        }
        if (fits || k == 1) {
            int64_t chunk = (limit - 1) / inner;
            if (chunk >= CHUNK_ALIGN)
                chunk -= chunk % CHUNK_ALIGN;
            cut c = { ndim - k, shape[ndim - k] < chunk ? shape[ndim - k] : chunk, inner };
            return c;
        }
    }
}

void cuda_params_init(cuda_params *a, cuda_form form, int nargs)
{
    memset(a, 0, sizeof *a);
    int i = 0;
    if (form == CUDA_CONTIG) {
        a->params[i++] = &a->n;
        for (int k = 0; k < nargs; k++)
            a->params[i++] = &a->ptr[k];
        return;
    }
    a->params[i++] = &a->it;
    if (form == CUDA_GUFUNC)
        a->params[i++] = &a->core;
    for (int k = 0; k < nargs; k++) {
        a->params[i++] = &a->ptr[k];
        a->params[i++] = &a->loop[k];
        if (form == CUDA_GUFUNC)
            a->params[i++] = &a->cstr[k];
    }
}

void cuda_params_by_value(cuda_params *a, int k, const void *value, int bytes)
{
    unsigned char v[16] = { 0 };
    memcpy(v, value, (size_t)(bytes < 16 ? bytes : 16));
    a->ptr[k] = NULL;
    for (int j = 0; j < 4; j++) {
        uint32_t piece;
        memcpy(&piece, v + 4 * j, 4);   /* little-endian, as ufn_abi.h says */
        a->loop[k].s[j] = piece;
    }
    for (int j = 4; j < UFN_KMAXDIM; j++)
        a->loop[k].s[j] = 0;
}

static bool any_by_value(const ufn_plan *p)
{
    for (int k = 0; k < p->nargs; k++)
        if (p->by_value[k])
            return true;
    return false;
}

static int check_plan(const ufn_plan *p)
{
    const char *name = p->func && p->func->name ? p->func->name : "ufunc";
    if (!p->func || !p->loop)
        return ufn_fail(UFN_ERR_INVALID, "%s: a plan without a function or loop", name);
    if (p->nargs < 1 || p->nargs > UFN_MAXARGS || p->ndim < 0 || p->ndim > UFN_MAXDIMS)
        return ufn_fail(UFN_ERR_INVALID, "%s: a plan with %d operands and %d dimensions", name,
                        p->nargs, p->ndim);
    if (p->func->layout && p->ncore > UFN_KMAXCORE)
        return ufn_fail(UFN_ERR_INVALID, "%s: %d core dimensions, at most %d", name, p->ncore,
                        UFN_KMAXCORE);
    for (int k = 0; k < p->nargs; k++)
        if (p->func->layout && (p->core_ndim[k] < 0 || p->core_ndim[k] > UFN_KMAXCORE))
            return ufn_fail(UFN_ERR_INVALID, "%s: operand %d has %d core dimensions", name, k,
                            p->core_ndim[k]);
    return 0;
}

int cuda_queue_plan(cuda_backend *b, cuda_device *d, const ufn_plan *p, CUstream stream,
                    bool capturing, cuda_kernel **kernel)
{
    int status = check_plan(p);
    if (status || p->n == 0)
        return status;
    /* A 0-d plan is one iteration of a 1-d loop. */
    const int64_t one = 1;
    const int64_t *shape = p->ndim > 0 ? p->shape : &one;
    int ndim = p->ndim > 0 ? p->ndim : 1;
    bool gufunc = p->func->layout != NULL;
    bool contig = p->contiguous && ndim == 1 && p->loop->kernel_contig && !any_by_value(p);
    cuda_form form = gufunc ? CUDA_GUFUNC : contig ? CUDA_CONTIG : CUDA_STRIDED;
    const char *kname = form == CUDA_CONTIG ? p->loop->kernel_contig : p->loop->kernel_strided;

    cuda_kernel *k;
    if ((status = cuda_kernel_get(b, d, p->func->module, kname, &k)) != 0)
        return status;
    *kernel = k;

    cuda_params a;
    cuda_params_init(&a, form, p->nargs);
    if (gufunc) {
        for (int i = 0; i < p->ncore; i++)
            a.core.dim[i] = p->core_size[i];
        for (int k2 = 0; k2 < p->nargs; k2++)
            for (int j = 0; j < p->core_ndim[k2]; j++)
                a.cstr[k2].s[j] = p->core_strides[k2][j];
    }

    cut c = cut_space(shape, ndim, ufn_cuda_split_limit());
    int nlaunch = ndim - c.outer;
    a.it.ndim = nlaunch;
    for (int j = 1; j < nlaunch; j++)
        a.it.shape[j] = (uint32_t)shape[c.outer + j];
    for (int k2 = 0; k2 < p->nargs; k2++) {
        if (p->by_value[k2] && !gufunc)
            cuda_params_by_value(&a, k2, p->data[k2], p->elsize[k2]);
        else
            for (int j = 0; j < nlaunch; j++)
                a.loop[k2].s[j] = stride_of(p, k2, c.outer + j);
    }

    int64_t idx[UFN_MAXDIMS] = { 0 };   /* host loop over dimensions [0, outer) */
    for (;;) {
        for (int64_t start = 0; start < shape[c.outer] && status == 0; start += c.chunk) {
            int64_t count = shape[c.outer] - start < c.chunk ? shape[c.outer] - start
                                                                 : c.chunk;
            a.it.shape[0] = (uint32_t)count;
            a.it.n = a.n = (uint32_t)(count * c.inner);
            for (int k2 = 0; k2 < p->nargs; k2++) {
                if (p->by_value[k2] && !gufunc)
                    continue;
                int64_t off = start * stride_of(p, k2, c.outer);
                for (int dim = 0; dim < c.outer; dim++)
                    off += idx[dim] * stride_of(p, k2, dim);
                uintptr_t base = (uintptr_t)p->data[k2];
                a.ptr[k2] = (void *)(base + (uintptr_t)(off * p->elsize[k2]));
            }
            status = launch(b, d, k, a.n, a.params, stream, !capturing);
        }
        int dim = c.outer - 1;
        while (dim >= 0 && ++idx[dim] == shape[dim])
            idx[dim--] = 0;
        if (dim < 0 || status)
            break;
    }
    return status;
}

int cuda_execute_device(cuda_backend *b, const ufn_plan *p, ufn_stream_impl *s)
{
    int status = check_plan(p);
    if (status || p->n == 0)
        return status;
    cuda_device *d;
    if ((status = cuda_enter_device(b, p->device, &d)) != 0)
        return status;
    CUstream stream;
    cuda_kernel *k = NULL;
    status = cuda_stream_of(b, s, p->device, &stream);
    if (status == 0)
        status = cuda_queue_plan(b, d, p, stream, false, &k);
    if (status == 0)   /* a module that recurses: wait, and see whether it went too deep */
        status = cuda_depth_check(b, k, stream, p->func->name);
    cuda_leave(b);
    return status;
}
