/* reduce_device.c - ufunc.reduce of a cuda or sim device array on its device.
 *
 * The signature's reduce kernel (ufn_abi.h's kernel_reduce, emitted into
 * the module's .cu by emit_methods.c; the simulator runs the same kernel)
 * reduces rows of contiguous elements.  A C-contiguous array whose reduced
 * axes are its last ones (all of them, or the last k) is such rows: `rows`
 * results of `n` elements each.  Two stages, both launches on the calling
 * thread's stream, nothing copied to the host between them:
 *
 *   1. blocks = min(ceil(n / UFN_REDUCE_BLOCK), MAX_BLOCKS) blocks per row
 *      write one partial result each to a device scratch array;
 *   2. one block per row reduces the partials into the result, starting
 *      from initial= or the identity where there is one.
 *
 * When one block covers a row, stage 1 is the only one and writes the
 * result.  The order (ufn(7) METHODS) is the kernel's: a fold per thread
 * over a grid stride, then a tree; for integers the result is NumPy's, for
 * floats it differs from NumPy's pairwise sum by rounding only.  Only a
 * ufunc whose identity says it may be reordered (0, 1, 'reorderable') runs
 * here: identity=None keeps NumPy's sequential order.  Every other
 * case (other axes, strided arrays, where=, empty reductions) is
 * reduce.c's, through the host, and UFN_TRACE says so. */
#include <string.h>

#include "ufnrt.h"

#define MAX_BLOCKS 1024        /* per row in stage 1: what stage 2 folds, 4 per thread */
#define MAX_GRID_Y 65535       /* CUDA's limit; the kernel strides over more rows */

/* Can reduce run on the device?  NULL if so, else why not (for the trace). */
const char *ufn_reduce_device_refusal(const ufn_func *f, const ufn_loop *lp,
                                      const ufn_backend_ops *be, const ufn_array *a,
                                      const bool *red, bool where, int64_t count, int64_t results)
{
    if (f->identity == UFN_IDENTITY_NONE)
        return "identity=None, so NumPy's order";
    if (!lp->kernel_reduce || !be->launch_kernel)
        return "the module has no reduce kernel";
    if (where)
        return "where=";
    if (count == 0 || results == 0)
        return "an empty reduction";
    if (!ufn_is_c_contiguous(a))
        return "a non-contiguous array";
    bool seen = false;
    for (int d = 0; d < a->ndim; d++) {
        if (!red[d] && seen)
            return "a reduced axis before a kept one";
        seen = seen || red[d];
    }
    if (!seen)
        return "no reduced axis";
    return NULL;
}

/* One stage: rows rows of n elements at in into blocks results per row at out. */
static int stage(const ufn_func *f, const ufn_loop *lp, const ufn_backend_ops *be, int device,
                 ufn_stream_impl *s, const void *in, int64_t n, int64_t rows, uint32_t blocks,
                 void *out, const void *init)
{
    /* the parameters as the kernel takes them: (in, n, rows, out, init, has_init) */
    _Alignas(16) unsigned char init_value[16] = { 0 };
    int32_t has_init = init != NULL;
    if (init)
        memcpy(init_value, init, (size_t)ufn_dtype_size(lp->types[0]));
    void *params[6] = { &in, &n, &rows, &out, init_value, &has_init };
    ufn_kernel k = { .name = f->name, .module = f->module, .nparams = 6 };
    ufn_ksig sig = { .kernel = lp->kernel_reduce, .flags = UFN_KF_BARRIER | UFN_KF_WARP };
    ufn_kplan plan = {
        .kernel = &k, .sig = &sig, .device = device,
        .grid = { blocks, (uint32_t)(rows < MAX_GRID_Y ? rows : MAX_GRID_Y), 1 },
        .block = { UFN_REDUCE_BLOCK, 1, 1 },
        .params = params,
    };
    return be->launch_kernel(be, &plan, s);
}

/* Reduce a (device memory of be, accepted by ufn_reduce_device_refusal)
 * into res (device memory, C-contiguous, rows results): `count` elements
 * each, from init (NULL: none). */
int ufn_reduce_device(const ufn_func *f, const ufn_loop *lp, const ufn_backend_ops *be,
                      const ufn_array *a, int64_t count, const void *init, const ufn_array *res)
{
    ufn_stream_impl *s;
    int st = ufn_current_stream(&s);
    if (st < 0)
        return st;
    int64_t rows = ufn_size(res);
    int64_t need = (count + UFN_REDUCE_BLOCK - 1) / UFN_REDUCE_BLOCK;
    uint32_t blocks = (uint32_t)(need < MAX_BLOCKS ? need : MAX_BLOCKS);
    const void *in = ufn_array_ptr(a);
    if (blocks == 1)
        return stage(f, lp, be, a->device, s, in, count, rows, 1, res->data, init);
    size_t es = (size_t)ufn_dtype_size(a->dtype);
    void *partial = NULL;
    st = be->alloc(be, a->device, (size_t)rows * blocks * es, s, &partial);
    if (st == UFN_OK)
        st = stage(f, lp, be, a->device, s, in, count, rows, blocks, partial, NULL);
    if (st == UFN_OK)
        st = stage(f, lp, be, a->device, s, partial, blocks, rows, 1, res->data, init);
    if (partial)
        be->free(be, a->device, partial, s);   /* stream-ordered: after stage 2 */
    return st;
}
