/* methods.c - ufunc.accumulate and ufunc.outer (reduce is reduce.c's).
 *
 * accumulate runs on the host in NumPy's order, which is the only one:
 * out[0] = a[0], out[i] = f(out[i-1], a[i]) along the axis, each step one
 * call of the ufunc's host loop per row of the other axes.  Device arrays
 * of the cuda and sim backends go through host copies, and the result back
 * to the input's device (as reduce.c's that the device kernel cannot take).
 *
 * outer is one ordinary call of the ufunc on broadcast views, a with b.ndim
 * axes of length 1 appended and b with a.ndim prepended: it runs wherever
 * the operands live, on every backend, without copies. */
#include <stdlib.h>
#include <string.h>

#include "ufnrt.h"

/* out = f(x, y) element-wise over an n-d shape, byte strides per operand:
 * the host loop along the last axis, the others counted here. */
static void apply(ufn_host_loop loop, int ndim, const int64_t *shape, char *const *ptr,
                  int64_t (*strides)[UFN_MAXDIMS])
{
    int64_t idx[UFN_MAXDIMS] = { 0 };
    for (int d = 0; d < ndim; d++)
        if (shape[d] == 0)
            return;
    int last = ndim - 1;
    ufn_index dims[1] = { ndim ? shape[last] : 1 };
    ufn_index steps[3];
    for (int k = 0; k < 3; k++)
        steps[k] = ndim ? strides[k][last] : 0;
    for (;;) {
        char *p[3];
        for (int k = 0; k < 3; k++) {
            p[k] = ptr[k];
            for (int d = 0; d < last; d++)
                p[k] += idx[d] * strides[k][d];
        }
        loop(p, dims, steps);
        int d = last - 1;
        while (d >= 0 && ++idx[d] == shape[d])
            idx[d--] = 0;
        if (d < 0)
            return;
    }
}

static int accumulate_host(ufn_host_loop loop, const ufn_array *a, int axis, const ufn_array *out)
{
    int64_t as[UFN_MAXDIMS], os[UFN_MAXDIMS];
    ufn_byte_strides(a, as);
    ufn_byte_strides(out, os);
    /* the other axes, as one slice */
    int n = 0;
    int64_t shape[UFN_MAXDIMS], st[3][UFN_MAXDIMS];
    for (int d = 0; d < a->ndim; d++) {
        if (d == axis)
            continue;
        shape[n] = a->shape[d];
        st[0][n] = os[d];
        st[1][n] = as[d];
        st[2][n] = os[d];
        n++;
    }
    const char *src = ufn_array_ptr(a);
    char *dst = out->data;
    if (a->shape[axis] == 0)
        return UFN_OK;
    ufn_copy_nd(n, shape, dst, out->dtype, st[0], src, a->dtype, st[1]);   /* out[0] = a[0] */
    for (int64_t i = 1; i < a->shape[axis]; i++) {
        char *p[3] = { dst + (i - 1) * os[axis], (char *)src + i * as[axis], dst + i * os[axis] };
        apply(loop, n, shape, p, st);
    }
    return UFN_OK;
}

int ufn_accumulate(const ufn_func *f, const ufn_array *a, int axis, ufn_array *out)
{
    const ufn_loop *lp;
    int st = ufn_check_array(a, "the array");
    if (st < 0)
        return st;
    if ((st = ufn_method_loop(f, a->dtype, "accumulate", &lp)) < 0)
        return st;
    if (!out)
        return ufn_fail(UFN_ERR_INVALID, "%s.accumulate: out is NULL", f->name);
    ufn_host_loop loop = ufn_host_pick_loop(lp, ufn_host_isa());
    if (!loop)
        return ufn_fail(UFN_ERR_NO_CODE, "%s.accumulate: the module was built without host "
                        "code, which accumulate runs", f->name);
    if (a->ndim == 0)
        return ufn_fail(UFN_ERR_NDIM, "%s.accumulate: cannot accumulate on a scalar", f->name);
    if (axis < -a->ndim || axis >= a->ndim)
        return ufn_fail(UFN_ERR_INVALID, "%s.accumulate: axis %d is out of bounds for array of "
                        "dimension %d", f->name, axis, a->ndim);
    if (axis < 0)
        axis += a->ndim;
    if (out->memory != UFN_MEM_NONE) {
        if ((st = ufn_check_array(out, "out")) < 0)
            return st;
        bool same = out->ndim == a->ndim && out->dtype == a->dtype && out->memory == a->memory;
        for (int d = 0; same && d < a->ndim; d++)
            same = out->shape[d] == a->shape[d];
        if (!same)
            return ufn_fail(UFN_ERR_OUTPUT, "%s.accumulate: out must be a %s array of the input's "
                            "shape and memory, or passed empty", f->name, ufn_dtype_name(a->dtype));
    }
    const ufn_backend_ops *be = NULL;
    if (a->memory == UFN_MEM_DEVICE && (st = ufn_get_backend(&be)) < 0)
        return st;
    bool staged = be && be != &ufn_backend_host;
    if (staged && out->memory != UFN_MEM_NONE && !ufn_is_c_contiguous(out))
        return ufn_fail(UFN_ERR_OUTPUT, "%s.accumulate: a device out must be C-contiguous", f->name);
    ufn_array ha = *a, hres = { 0 }, res = *out;
    if (staged) {
        ha = (ufn_array){ 0 };
        st = ufn_copy_to_host(a, &ha);
        if (st == UFN_OK)
            st = ufn_alloc_array(a->dtype, a->ndim, a->shape, UFN_MEM_HOST, 0, &hres);
    } else if (out->memory == UFN_MEM_NONE) {
        st = ufn_alloc_array(a->dtype, a->ndim, a->shape, a->memory, a->device, &res);
        hres = res;
    } else {
        hres = *out;
    }
    if (st == UFN_OK)
        st = accumulate_host(loop, &ha, axis, &hres);
    if (staged && st == UFN_OK) {
        if (out->memory == UFN_MEM_NONE)
            st = ufn_to_device(&hres, &res);
        else {
            ufn_stream_impl *s;
            st = ufn_current_stream(&s);
            if (st == UFN_OK)
                st = be->copy_h2d(be, out->device, out->data, hres.data, ufn_array_bytes(&hres), s);
        }
    }
    if (staged) {
        ufn_free(&ha);
        ufn_free(&hres);
    }
    return ufn_finish_result(out, &res, st);
}

int ufn_outer(const ufn_func *f, const ufn_array *a, const ufn_array *b, ufn_array *out)
{
    const ufn_loop *lp;
    int st = ufn_check_array(a, "input 0");
    if (st == UFN_OK)
        st = ufn_check_array(b, "input 1");
    if (st < 0)
        return st;
    if ((st = ufn_method_loop(f, a->dtype, "outer", &lp)) < 0)
        return st;
    if (a->ndim + b->ndim > UFN_MAXDIMS)
        return ufn_fail(UFN_ERR_NDIM, "%s.outer: the result would have %d dimensions, more than "
                        "%d", f->name, a->ndim + b->ndim, UFN_MAXDIMS);
    ufn_array x = *a, y = *b;
    x.flags &= ~UFN_FLAG_OWNER_MASK;
    y.flags &= ~UFN_FLAG_OWNER_MASK;
    x.ndim = y.ndim = a->ndim + b->ndim;
    for (int d = 0; d < b->ndim; d++) {
        x.shape[a->ndim + d] = 1;
        x.strides[a->ndim + d] = 0;
    }
    for (int d = b->ndim - 1; d >= 0; d--) {
        y.shape[a->ndim + d] = b->shape[d];
        y.strides[a->ndim + d] = b->strides[d];
    }
    for (int d = 0; d < a->ndim; d++) {
        y.shape[d] = 1;
        y.strides[d] = 0;
    }
    const ufn_array *in[2] = { &x, &y };
    ufn_array *outs[1] = { out };
    return ufn_call(f, in, outs);
}
