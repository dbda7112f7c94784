/* call.c - ufn_call and ufn_call_typed: from the caller's arrays to a plan
 * that the backend executes.
 *
 * The steps, in order (everything up to the choice of routes only checks,
 * so a refused argument never leads to a write):
 *
 *   1. check the ufunc's tables and every descriptor (check.c);
 *   2. decide where the call runs: on the device when any operand is a
 *      device array (all on one device), else on the host (staged through
 *      the default device on a device backend); with sharded operands,
 *      once per device that holds their rows, after step 4 (see 8.);
 *   3. bind core dimensions and broadcast (broadcast.c);
 *   4. choose the signature (dispatch.c), then check dtypes the loop cannot
 *      take: device inputs must match exactly (weak scalars excepted), given
 *      outputs must have the loop's type, or for host outputs a type it
 *      casts to with 'same_kind'; and outputs must not overlap each other
 *      (which output's value would stay would depend on the backend);
 *   5. route every operand: host inputs of another dtype are converted into
 *      temporaries; for a device call host inputs are copied to the device
 *      (as Numba does) and scalars go to a ufunc's kernel by value (to a
 *      gufunc's as 0-d device arrays); empty outputs are allocated C-contiguous
 *      in the call's memory; host outputs of another dtype or of a device
 *      call are written through temporaries and copied back afterwards;
 *   6. copy inputs an output overlaps, unless (for ufuncs) they are the
 *      same elements in the same order - NumPy's semantics;
 *   7. build the plan, merge dimensions (plan.c), execute it on the current
 *      stream (or, host operands over a device set, one slab per device:
 *      multi_split.c), copy results back, give back the temporaries (device ones
 *      stream-ordered: the call does not wait for its kernels).  While this
 *      thread records a pipeline, the plan joins it instead (pipeline.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ufnrt.h"

typedef enum out_route {
    ROUTE_DIRECT,   /* the plan writes the caller's array */
    ROUTE_NEW,      /* passed empty: a new array, handed over on success */
    ROUTE_CAST,     /* a host output of another dtype: through a host temporary */
    ROUTE_D2H       /* a host output of a device call: through a device temporary */
} out_route;

typedef struct operand {
    const ufn_array *user;          /* the caller's descriptor; NULL for an empty output */
    ufn_array arr;                  /* what the plan reads or writes */
    uint64_t temp;                  /* a temporary to give back after the call */
    out_route route;
    bool by_value;                  /* a scalar input the kernel gets by value */
} operand;

typedef struct call {
    const ufn_func *f;
    const char *name;
    int nin, nargs;
    const ufn_backend_ops *be;
    ufn_stream_impl *stream;        /* the thread's current stream: the call's work goes there */
    bool part;                      /* one device's part of a sharded call: its default stream */
    ufn_memory memory;              /* where the plan's operands live (SHARDED: see 8.) */
    int device;
    const ufn_loop *loop;
    ufn_shapes sh;
    operand *op;                    /* nargs of them, on the caller's stack */
    _Alignas(16) unsigned char value[UFN_MAXARGS][16];  /* scalars in the loop's types */
} call;

static int core_ndim(const ufn_func *f, int k)
{
    return f->core_ndim ? f->core_ndim[k] : 0;
}

/* ---- 1. checks --------------------------------------------------------------------------- */

static int check_func(const ufn_func *f)
{
    if (!f)
        return ufn_fail(UFN_ERR_INVALID, "the ufunc descriptor is NULL");
    const char *name = f->name ? f->name : "ufunc";
    if (ufn_check_module(f->module, name) < 0)
        return UFN_ERR_INVALID;
    if (f->nin < 0 || f->nout < 1 || f->nin + f->nout > UFN_MAXARGS)
        return ufn_fail(UFN_ERR_INVALID, "%s: %d inputs and %d outputs are not supported", name,
                        f->nin, f->nout);
    if (f->nloops < 1 || !f->loops)
        return ufn_fail(UFN_ERR_INVALID, "%s: the ufunc has no signatures", name);
    if (f->ncore < 0 || f->ncore > UFN_KMAXCORE)
        return ufn_fail(UFN_ERR_INVALID, "%s: %d core dimension names (at most %d)", name,
                        f->ncore, UFN_KMAXCORE);
    if (f->ncore > 0 && (!f->core_ndim || !f->core_dims || !f->layout))
        return ufn_fail(UFN_ERR_INVALID, "%s: incomplete gufunc layout tables", name);
    int off = 0;
    for (int k = 0; k < f->nin + f->nout; k++) {
        int cn = core_ndim(f, k);
        if (cn < 0 || cn > UFN_KMAXCORE || (cn > 0 && f->ncore == 0))
            return ufn_fail(UFN_ERR_INVALID, "%s: bad core dimensions for operand %d", name, k);
        for (int j = 0; j < cn; j++)
            if (f->core_dims[off + j] < 0 || f->core_dims[off + j] >= f->ncore)
                return ufn_fail(UFN_ERR_INVALID, "%s: bad core dimension index", name);
        off += cn;
    }
    return UFN_OK;
}

static int check_operands(call *c, const ufn_array *const *in, ufn_array *const *out)
{
    if (c->nin > 0 && !in)
        return ufn_fail(UFN_ERR_INVALID, "the input array list is NULL");
    if (!out)
        return ufn_fail(UFN_ERR_INVALID, "the output array list is NULL");
    for (int k = 0; k < c->nin; k++) {
        int st = ufn_check_operand(in[k], "input", k);
        if (st < 0)
            return st;
        c->op[k].user = in[k];
    }
    for (int j = 0; j < c->nargs - c->nin; j++) {
        const ufn_array *a = out[j];
        if (a && a->memory == UFN_MEM_NONE) {
            c->op[c->nin + j].user = NULL;
            continue;
        }
        int st = ufn_check_operand(a, "output", j);
        if (st < 0)
            return st;
        if (!a->data && a->ndim == 0)
            return ufn_fail(UFN_ERR_OUTPUT, "output %d: a scalar value, not memory to write to",
                            j);
        for (int d = 0; d < a->ndim && ufn_size(a) > 0; d++)
            if (a->strides[d] == 0 && a->shape[d] > 1)
                return ufn_fail(UFN_ERR_OUTPUT, "output %d: a broadcast view (stride 0 in "
                                "dimension %d) cannot be written", j, d);
        c->op[c->nin + j].user = a;
    }
    return UFN_OK;
}

/* ---- 2. memory --------------------------------------------------------------------------- */

static int choose_memory(call *c)
{
    c->memory = UFN_MEM_HOST;
    c->device = 0;
    for (int k = 0; k < c->nargs; k++) {
        const ufn_array *a = c->op[k].user;
        if (!a || a->memory == UFN_MEM_HOST)
            continue;
        if ((a->memory == UFN_MEM_SHARDED) != (c->memory == UFN_MEM_SHARDED) &&
            c->memory != UFN_MEM_HOST)
            return ufn_fail(UFN_ERR_WRONG_MEMORY, "a sharded array and an array of one device "
                            "cannot meet in a call: shard the other too "
                            "(ufn_to_device_sharded), or pass one part (ufn_shard_part)");
        if (a->memory == UFN_MEM_SHARDED) {
            c->memory = UFN_MEM_SHARDED;
            continue;
        }
        if (c->memory == UFN_MEM_DEVICE && a->device != c->device)
            return ufn_fail(UFN_ERR_WRONG_MEMORY, "operands are on different devices (%d and %d)",
                            c->device, a->device);
        c->memory = UFN_MEM_DEVICE;
        c->device = a->device;
    }
    return UFN_OK;
}

/* ---- 4. dtypes the loop cannot take ---------------------------------------------------------- */

static int check_dtypes(call *c)
{
    const ufn_dtype *types = c->loop->types;
    for (int k = 0; k < c->nin; k++) {
        const ufn_array *a = c->op[k].user;
        if (a->memory != UFN_MEM_HOST && a->dtype != types[k])
            return ufn_fail(UFN_ERR_DTYPE, "input %d is a device array of %s, but the signature "
                            "%s takes %s; device arrays are not converted", k,
                            ufn_dtype_name(a->dtype), c->loop->signature,
                            ufn_dtype_name(types[k]));
    }
    for (int k = c->nin; k < c->nargs; k++) {
        const ufn_array *a = c->op[k].user;
        ufn_dtype t = types[k];
        if (!a || a->dtype == t)
            continue;
        if (a->memory != UFN_MEM_HOST)
            return ufn_fail(UFN_ERR_OUTPUT, "output %d is a device array of %s, but the "
                            "signature %s writes %s; device outputs must match exactly",
                            k - c->nin, ufn_dtype_name(a->dtype), c->loop->signature,
                            ufn_dtype_name(t));
        if (!ufn_can_cast_same_kind(t, a->dtype))
            return ufn_fail(UFN_ERR_OUTPUT, "Cannot cast ufunc '%s' output %d from %s to %s "
                            "with casting rule 'same_kind'", c->name, k - c->nin,
                            ufn_dtype_name(t), ufn_dtype_name(a->dtype));
    }
    return UFN_OK;
}

static bool overlaps(const ufn_array *a, const ufn_array *b);

static int check_distinct_outputs(const call *c)
{
    for (int k = c->nin; k < c->nargs; k++)
        for (int j = k + 1; j < c->nargs; j++)
            if (c->op[k].user && c->op[j].user && overlaps(c->op[k].user, c->op[j].user))
                return ufn_fail(UFN_ERR_OUTPUT, "outputs %d and %d overlap: each output needs "
                                "memory of its own", k - c->nin, j - c->nin);
    return UFN_OK;
}

/* ---- 5. routes --------------------------------------------------------------------------- */

/* Copy (converting) host array `src` into the new C-contiguous host array `dst`. */
static void pack(ufn_array *dst, const ufn_array *src)
{
    int64_t ds[UFN_MAXDIMS], ss[UFN_MAXDIMS];
    ufn_byte_strides(dst, ds);
    ufn_byte_strides(src, ss);
    ufn_copy_nd(src->ndim, src->shape, dst->data, dst->dtype, ds, ufn_array_ptr(src), src->dtype,
                ss);
}

/* A host input as type t in host memory: itself, or a converted copy. */
static int input_on_host(call *c, int k, const ufn_array *a, ufn_dtype t)
{
    operand *op = &c->op[k];
    if (a->dtype == t) {
        op->arr = *a;
        return UFN_OK;
    }
    int st = ufn_alloc_array(t, a->ndim, a->shape, UFN_MEM_HOST, 0, &op->arr);
    if (st < 0)
        return st;
    op->temp = op->arr.alloc_id;
    pack(&op->arr, a);
    return UFN_OK;
}

/* A host input as type t in device memory (one H2D copy). */
static int input_to_device(call *c, int k, const ufn_array *a, ufn_dtype t)
{
    operand *op = &c->op[k];
    ufn_array d;
    int st = ufn_alloc_array(t, a->ndim, a->shape, UFN_MEM_DEVICE, c->device, &d);
    if (st < 0)
        return st;
    op->arr = d;
    op->temp = d.alloc_id;
    size_t bytes = ufn_array_bytes(&d);
    if (bytes == 0)
        return UFN_OK;
    const void *src = ufn_array_ptr(a);
    ufn_array packed = {0};
    if (a->dtype != t || !ufn_is_c_contiguous(a)) {
        if ((st = ufn_alloc_array(t, a->ndim, a->shape, UFN_MEM_HOST, 0, &packed)) < 0)
            return st;
        pack(&packed, a);
        src = packed.data;
    }
    st = c->be->copy_h2d(c->be, c->device, d.data, src, bytes, c->stream);
    if (packed.alloc_id)
        ufn_release(packed.alloc_id);
    return st;
}

static int route_inputs(call *c)
{
    const ufn_dtype *types = c->loop->types;
    for (int k = 0; k < c->nin; k++) {
        const ufn_array *a = c->op[k].user;
        int st;
        if (a->ndim == 0 && a->memory == UFN_MEM_HOST) {
            /* A scalar (its value in the descriptor, or a 0-d host array):
             * converted into this call's buffer, and passed from there by
             * value to a host loop or a ufunc's kernel. */
            ufn_array v = *a;
            v.data = c->value[k];
            v.dtype = types[k];
            v.alloc_id = 0;
            ufn_convert(v.data, types[k], 0, ufn_array_ptr(a), a->dtype, 0, 1);
            c->op[k].by_value = c->memory == UFN_MEM_DEVICE && c->f->ncore == 0;
            st = c->memory == UFN_MEM_DEVICE && !c->op[k].by_value
                     ? input_to_device(c, k, &v, types[k])
                     : (c->op[k].arr = v, UFN_OK);
        } else if (a->memory == UFN_MEM_DEVICE) {
            c->op[k].arr = *a;
            st = UFN_OK;
        } else if (c->memory == UFN_MEM_DEVICE) {
            st = input_to_device(c, k, a, types[k]);
        } else {
            st = input_on_host(c, k, a, types[k]);
        }
        if (st < 0)
            return st;
    }
    return UFN_OK;
}

/* The full shape of output k: loop shape, then its core dimensions. */
static int output_shape(const call *c, int k, int64_t *shape)
{
    int nd = c->sh.ndim, cn = core_ndim(c->f, k), off = 0;
    for (int i = 0; i < k; i++)
        off += core_ndim(c->f, i);
    if (nd + cn > UFN_MAXDIMS)
        return -1;
    memcpy(shape, c->sh.shape, (size_t)nd * sizeof *shape);
    for (int j = 0; j < cn; j++)
        shape[nd + j] = c->sh.core_size[c->f->core_dims[off + j]];
    return nd + cn;
}

static int route_outputs(call *c)
{
    const ufn_dtype *types = c->loop->types;
    for (int k = c->nin; k < c->nargs; k++) {
        operand *op = &c->op[k];
        const ufn_array *a = op->user;
        int st = UFN_OK;
        if (!a) {
            int64_t shape[UFN_MAXDIMS];
            int nd = output_shape(c, k, shape);
            if (nd < 0)
                return ufn_fail(UFN_ERR_NDIM, "output %d would have more than %d dimensions",
                                k - c->nin, UFN_MAXDIMS);
            /* ROUTE_NEW only once op->arr is ours: release_temps gives it
             * back after a failure, and a failed allocation leaves it unset */
            st = ufn_alloc_array(types[k], nd, shape, c->memory, c->device, &op->arr);
            if (st < 0)
                return st;
            op->route = ROUTE_NEW;
        } else if (a->memory == c->memory && a->dtype == types[k]) {
            op->route = ROUTE_DIRECT;
            op->arr = *a;
        } else if (a->memory == UFN_MEM_HOST && c->memory == UFN_MEM_HOST) {
            op->route = ROUTE_CAST;
            st = ufn_alloc_array(types[k], a->ndim, a->shape, UFN_MEM_HOST, 0, &op->arr);
            if (st < 0)
                return st;
            op->temp = op->arr.alloc_id;
        } else {
            op->route = ROUTE_D2H;
            st = ufn_alloc_array(types[k], a->ndim, a->shape, UFN_MEM_DEVICE, c->device, &op->arr);
            if (st < 0)
                return st;
            op->temp = op->arr.alloc_id;
                }
    }
    return UFN_OK;
}

/* ---- 6. overlap -------------------------------------------------------------------------- */

/* Operand k's element strides over the loop space (0 where it broadcasts). */
static void loop_strides(const call *c, int k, const ufn_array *a, int64_t *out)
{
    int lnd = a->ndim - core_ndim(c->f, k), shift = c->sh.ndim - lnd;
    for (int d = 0; d < shift; d++)
        out[d] = 0;
    for (int d = 0; d < lnd; d++)
        out[shift + d] = a->shape[d] == 1 ? 0 : a->strides[d];
}

static bool same_elements(const call *c, int k, int j)
{
    const ufn_array *a = &c->op[k].arr, *b = &c->op[j].arr;
    if (c->f->ncore > 0 || a->data != b->data ||
        ufn_dtype_size(a->dtype) != ufn_dtype_size(b->dtype))
        return false;
    int64_t sa[UFN_MAXDIMS], sb[UFN_MAXDIMS];
    loop_strides(c, k, a, sa);
    loop_strides(c, j, b, sb);
    for (int d = 0; d < c->sh.ndim; d++)
        if (c->sh.shape[d] != 1 && sa[d] != sb[d])
            return false;
    return true;
}

static bool overlaps(const ufn_array *a, const ufn_array *b)
{
    if (a->memory == UFN_MEM_SHARDED || b->memory == UFN_MEM_SHARDED)
        return a->data == b->data;   /* the same record, or none of the same memory */
    int64_t alo, ahi, blo, bhi;
    ufn_array_extent(a, &alo, &ahi);
    ufn_array_extent(b, &blo, &bhi);
    if (alo == ahi || blo == bhi)
        return false;
    uintptr_t a0 = (uintptr_t)a->data + (uintptr_t)alo, a1 = (uintptr_t)a->data + (uintptr_t)ahi;
    uintptr_t b0 = (uintptr_t)b->data + (uintptr_t)blo, b1 = (uintptr_t)b->data + (uintptr_t)bhi;
    return a0 < b1 && b0 < a1;
}

/* Replace input k by a copy of the bytes it spans (same strides). */
static int copy_input(call *c, int k)
{
    operand *op = &c->op[k];
    int64_t lo, hi;
    ufn_array_extent(&op->arr, &lo, &hi);
    int64_t len = hi - lo;
    ufn_array t;
    int st = ufn_alloc_array(UFN_UINT8, 1, &len, op->arr.memory, c->device, &t);
    if (st < 0)
        return st;
    const char *src = (const char *)op->arr.data + lo;
    if (op->arr.memory == UFN_MEM_DEVICE) {
        st = c->be->copy_d2d(c->be, c->device, t.data, src, (size_t)len, c->stream);
        } else {
        memcpy(t.data, src, (size_t)len);
    }
    op->arr.data = (char *)t.data - lo;
    op->arr.alloc_id = 0;
    op->temp = t.alloc_id;
    return st;
}

static int resolve_overlap(call *c)
{
    for (int k = 0; k < c->nin; k++) {
        if (c->op[k].temp || !c->op[k].arr.data || c->op[k].by_value)
            continue;       /* a fresh copy already, or a value of this call */
        for (int j = c->nin; j < c->nargs; j++) {
            if (c->op[j].route != ROUTE_DIRECT || !overlaps(&c->op[k].arr, &c->op[j].arr) ||
                same_elements(c, k, j))
                continue;
            int st = copy_input(c, k);
            if (st < 0)
                return st;
            break;
        }
    }
    return UFN_OK;
}

/* ---- 7. plan, execute, finish -------------------------------------------------------------- */

static void build_plan(const call *c, ufn_plan *p)
{
    p->func = c->f;
    p->loop = c->loop;
    p->nargs = c->nargs;
    p->memory = c->memory;
    p->device = c->device;
    p->ndim = c->sh.ndim;
    memcpy(p->shape, c->sh.shape, (size_t)c->sh.ndim * sizeof p->shape[0]);
    p->ncore = c->f->ncore;
    for (int j = 0; j < p->ncore; j++)
        p->core_size[j] = c->sh.core_size[j];
    for (int k = 0; k < c->nargs; k++) {
        const ufn_array *a = &c->op[k].arr;
        p->data[k] = a->data;
        p->by_value[k] = c->op[k].by_value;
        p->elsize[k] = ufn_dtype_size(a->dtype);
        loop_strides(c, k, a, p->strides[k]);
        int cn = core_ndim(c->f, k);
        p->core_ndim[k] = cn;
        for (int j = 0; j < cn; j++)
            p->core_strides[k][j] = a->strides[a->ndim - cn + j];
    }
    ufn_plan_simplify(p);
}

/* Results that went through temporaries reach the caller's outputs. */
static int copy_back(call *c)
{
    for (int k = c->nin; k < c->nargs; k++) {
        operand *op = &c->op[k];
        const ufn_array *u = op->user;
        if (op->route != ROUTE_CAST && op->route != ROUTE_D2H)
            continue;
        size_t bytes = ufn_array_bytes(&op->arr);
        if (bytes == 0)
            continue;
        ufn_array src = op->arr;
        uint64_t staging = 0;
        if (op->route == ROUTE_D2H) {
            if (u->dtype == src.dtype && ufn_is_c_contiguous(u)) {
                int st = c->be->copy_d2h(c->be, c->device, u->data, src.data, bytes, c->stream);
                if (st < 0)
                    return st;
                continue;
            }
            ufn_array h = {0};
            int st = ufn_alloc_array(src.dtype, src.ndim, src.shape, UFN_MEM_HOST, 0, &h);
            if (st == UFN_OK)
                st = c->be->copy_d2h(c->be, c->device, h.data, src.data, bytes, c->stream);
            if (st < 0) {
                ufn_release(h.alloc_id);
                return st;
            }
            src = h;
            staging = h.alloc_id;
        }
        int64_t ds[UFN_MAXDIMS], ss[UFN_MAXDIMS];
        ufn_byte_strides(u, ds);
        ufn_byte_strides(&src, ss);
        ufn_copy_nd(u->ndim, u->shape, u->data, u->dtype, ds, src.data, src.dtype, ss);
        ufn_release(staging);
    }
    return UFN_OK;
}

/* Temporaries go back without waiting: device memory is freed
 * stream-ordered, behind the call's work on the same stream. */
static void release_temps(call *c, bool failed, ufn_array *const *out)
{
    for (int k = 0; k < c->nargs; k++) {
        operand *op = &c->op[k];
        ufn_release(op->temp);
        if (k >= c->nin && op->route == ROUTE_NEW) {
            if (failed)
                ufn_release(op->arr.alloc_id);
            else
                ufn_hand_over(out[k - c->nin], &op->arr);
        }
    }
}

static void init_call(call *c, const ufn_func *f, operand *ops);
static int run(call *c, const ufn_array *const *in, ufn_array *const *out, int forced_loop);

/* ---- 8. sharded operands ---------------------------------------------------------------------
 *
 * A call with sharded operands is one call per part of their distribution,
 * each an ordinary call (steps 1 to 7) on its device's default stream:
 * sharded operands give that device's part, host operands that span the
 * first loop dimension give the part's rows (a view: staged per device as
 * usual), other host operands (broadcast along it, scalars) come whole,
 * and empty outputs become sharded arrays distributed alike.  Every
 * sharded operand must be distributed alike and span the first loop
 * dimension, not broadcast along it: its first dimension is the one the
 * devices share, never a gufunc's core dimension.  The parts run one
 * after another from this thread, but what they queue on their devices
 * runs at once. */

/* Does operand k's array span the call's first loop dimension (no
 * broadcasting along it)? */
static bool spans_rows(const call *c, int k, const ufn_array *a)
{
    return c->sh.ndim >= 1 && a->ndim - core_ndim(c->f, k) == c->sh.ndim &&
           a->shape[0] == c->sh.shape[0] && (a->shape[0] != 1 || a->memory == UFN_MEM_SHARDED);
}

static const char *operand_kind(const call *c, int k, int *index)
{
    *index = k < c->nin ? k : k - c->nin;
    return k < c->nin ? "input" : "output";
}

/* The distribution the call follows, after checking every sharded operand
 * against it. */
static int shard_layout(const call *c, const ufn_shards **layout)
{
    *layout = NULL;
    for (int k = 0; k < c->nargs; k++) {
        const ufn_array *a = c->op[k].user;
        if (!a || a->memory != UFN_MEM_SHARDED)
            continue;
        int index;
        const char *kind = operand_kind(c, k, &index);
        const ufn_shards *t = ufn_shards_of(a);
        if (!spans_rows(c, k, a))
            return ufn_fail(UFN_ERR_SHAPE, "%s %d: a sharded array must span the call's first "
                            "loop dimension, whose rows its devices share (not broadcast "
                            "along it, not a core dimension)", kind, index);
        if (*layout && !ufn_shards_alike(*layout, t))
            return ufn_fail(UFN_ERR_SHAPE, "%s %d: its rows are spread over other devices "
                            "than the first sharded operand's", kind, index);
        *layout = t;
    }
    return UFN_OK;
}

/* A host input an output overlaps, not element for element, is read by
 * every part while another writes: read a copy instead. */
static int unshare_host_inputs(call *c)
{
    for (int k = 0; k < c->nin; k++) {
        const ufn_array *a = c->op[k].user;
        if (a->memory != UFN_MEM_HOST || !a->data)
            continue;
        for (int j = c->nin; j < c->nargs; j++) {
            const ufn_array *o = c->op[j].user;
            if (!o || o->memory != UFN_MEM_HOST || !overlaps(a, o) ||
                (a->data == o->data && a->ndim == o->ndim &&
                 !memcmp(a->strides, o->strides, (size_t)a->ndim * sizeof a->strides[0])))
                continue;
            ufn_array copy;
            int st = ufn_alloc_array(a->dtype, a->ndim, a->shape, UFN_MEM_HOST, 0, &copy);
            if (st < 0)
                return st;
            pack(&copy, a);
            c->op[k].arr = copy;
            c->op[k].temp = copy.alloc_id;
            break;
        }
    }
    return UFN_OK;
}

/* Operand k of part p: its part, its rows, or itself. */
static void part_operand(const call *c, int k, const ufn_array *a, int p, const ufn_shards *t,
                         ufn_array *view)
{
    if (a->memory == UFN_MEM_SHARDED) {
        ufn_shards_part(ufn_shards_of(a), p, view);
        return;
    }
    *view = *a;
    if (!a->data || !spans_rows(c, k, a))
        return;
    view->data = (char *)a->data + t->first[p] * a->strides[0] * ufn_dtype_size(a->dtype);
    view->shape[0] = t->rows[p];
    view->alloc_id = 0;
}

static int run_part(call *c, int p, const ufn_shards *t, const ufn_array *all)
{
    ufn_array view[UFN_MAXARGS];
    const ufn_array *in[UFN_MAXARGS];
    ufn_array *out[UFN_MAXARGS];
    for (int k = 0; k < c->nargs; k++) {
        part_operand(c, k, &all[k], p, t, &view[k]);
        if (k < c->nin)
            in[k] = &view[k];
        else
            out[k - c->nin] = &view[k];
    }
    operand ops[c->nargs];
    call sub;
    init_call(&sub, c->f, ops);
    sub.part = true;
    int st = run(&sub, in, out, (int)(c->loop - c->f->loops));
    if (st < 0) {
        char where[32];
        snprintf(where, sizeof where, "device %d", t->device[p]);
        ufn_fail_prefix(st, where);
    }
    return st;
}

static int run_sharded(call *c, ufn_array *const *out)
{
    const ufn_shards *t;
    int st = shard_layout(c, &t);
    if (st < 0)
        return st;
    /* What each operand is for the parts: the caller's array, a copy of an
     * overlapped host input, or a new sharded output. */
    ufn_array all[UFN_MAXARGS];
    for (int k = c->nin; k < c->nargs && st == UFN_OK; k++) {
        operand *op = &c->op[k];
        if (op->user) {
            all[k] = *op->user;
            continue;
        }
        int64_t shape[UFN_MAXDIMS];
        int nd = output_shape(c, k, shape);
        if (nd < 0)
            st = ufn_fail(UFN_ERR_NDIM, "output %d would have more than %d dimensions",
                          k - c->nin, UFN_MAXDIMS);
        else
            st = ufn_shards_new(c->be, c->loop->types[k], nd, shape, t->nparts, t->device,
                                &op->arr);
        if (st == UFN_OK) {
            op->route = ROUTE_NEW;
            all[k] = op->arr;
        }
    }
    if (st == UFN_OK)
        st = unshare_host_inputs(c);
    for (int k = 0; k < c->nin; k++)
        all[k] = c->op[k].temp ? c->op[k].arr : *c->op[k].user;
    for (int p = 0; p < t->nparts && st == UFN_OK; p++)
        if (t->rows[p] > 0)
            st = run_part(c, p, t, all);
    release_temps(c, st < 0, out);
    return st;
}

/* While a pipeline is recorded (pipeline.c), the plan joins it: only one
 * that needs no temporary of its own, which would outlive the call. */
static int join_pipeline(call *c, const ufn_plan *plan)
{
    for (int k = 0; k < c->nargs; k++)
        if (c->op[k].temp)
            return ufn_fail(UFN_ERR_INVALID, "cannot join the pipeline: %s %d needs a temporary (a dtype to "
                            "convert, a host operand of a device call, or an overlap)",
                            k < c->nin ? "input" : "output", k < c->nin ? k : k - c->nin);
    const void *source[UFN_MAXARGS];    /* where a scalar input's value came from */
    for (int k = 0; k < c->nargs; k++)
        source[k] = c->op[k].user && c->op[k].user->data ? c->op[k].user->data : plan->data[k];
    return ufn_pipeline_add(c->be, c->stream, plan, c->value, sizeof c->value, source);
}

static int run(call *c, const ufn_array *const *in, ufn_array *const *out, int forced_loop)
{
    const ufn_func *f = c->f;
    int st;
    if ((st = check_operands(c, in, out)) < 0 || (st = choose_memory(c)) < 0)
        return st;
    if ((st = ufn_get_backend_for(f->module, &c->be)) < 0)
        return st;
    if (c->part)
        c->stream = NULL;
    else if ((st = ufn_current_stream(&c->stream)) < 0)
        return st;
    /* Host operands only: a device backend stages them through its default
     * device (UFN_DEVICE), known once the backend is. */
    if (c->memory == UFN_MEM_HOST)
        c->device = ufn_current_device();
    for (int k = 0; k < c->nargs; k++)
        c->sh.arg[k] = c->op[k].user;
    if ((st = ufn_broadcast(f, &c->sh)) < 0)
        return st;
    int loop = forced_loop >= 0 ? forced_loop : ufn_choose_loop(f, in);
    if (loop < 0)
        return loop;
    c->loop = &f->loops[loop];
    if (!c->loop->types)
        return ufn_fail(UFN_ERR_INVALID, "signature %d has no types", loop);
    if ((st = check_dtypes(c)) < 0 || (st = check_distinct_outputs(c)) < 0)
        return st;
    if (c->memory == UFN_MEM_SHARDED)
        return ufn_pipeline_recording()
                   ? ufn_fail(UFN_ERR_INVALID, "cannot join the pipeline: its operands are sharded")
                   : run_sharded(c, out);

    /* Every argument is accepted: from here on only resources can fail. */
    st = route_outputs(c);
    if (st == UFN_OK && c->sh.n > 0) {
        if ((st = route_inputs(c)) == UFN_OK && (st = resolve_overlap(c)) == UFN_OK) {
            ufn_plan plan;
            build_plan(c, &plan);
            if (ufn_pipeline_recording()) {
                st = join_pipeline(c, &plan);
            } else {
                bool range = ufn_nvtx_push(c->be->device_memory == UFN_MEM_DEVICE, c->name);
                st = ufn_multi_execute(c->be, &plan, c->stream);
                if (st == UFN_OK)
                    st = copy_back(c);
                if (range)
                    ufn_nvtx_pop();
            }
        }
    }
    release_temps(c, st < 0, out);
    return st;
}

static void init_call(call *c, const ufn_func *f, operand *ops)
{
    c->f = f;
    c->part = false;
    c->op = ops;
    c->name = f->name ? f->name : "ufunc";
    c->nin = f->nin;
    c->nargs = f->nin + f->nout;
    for (int k = 0; k < c->nargs; k++) {
        c->op[k].temp = 0;
        c->op[k].by_value = false;
        c->op[k].route = ROUTE_DIRECT;
        c->op[k].user = NULL;
    }
}

/* ufn_func_of: while set, the next ufn_call on this thread only says which
 * ufunc it is for (a generated general entry's whole body is that call). */
static _Thread_local const ufn_func **describing;

const ufn_func *ufn_func_of(ufn_binary_ufunc entry)
{
    const ufn_func *f = NULL;
    describing = &f;
    entry(NULL, NULL, NULL);   /* the entry only collects its arguments' addresses */
    describing = NULL;
    return f;
}

int ufn_call(const ufn_func *f, const ufn_array *const *in, ufn_array *const *out)
{
    if (describing) {
        *describing = f;
        describing = NULL;
        return UFN_OK;
    }
    int st = check_func(f);
    if (st < 0)
        return st;
    /* Sized by the operands: a call's stack stays small for small ufuncs. */
    operand ops[f->nin + f->nout];
    call c;
    init_call(&c, f, ops);
    st = run(&c, in, out, -1);
    if (st < 0) {
        st = ufn_fail_prefix(st, c.name);
        ufn_pipeline_poison(st);
    }
    return st;
}

int ufn_call_typed(const ufn_func *f, int loop, size_t n, const size_t *core, void *const *ptrs)
{
    int st = check_func(f);
    if (st < 0)
        return st;
    const char *name = f->name ? f->name : "ufunc";
    if (loop < 0 || loop >= f->nloops)
        return ufn_fail(UFN_ERR_INVALID, "%s: signature %d does not exist (%d signatures)", name,
                        loop, f->nloops);
    if (!ptrs)
        return ufn_fail(UFN_ERR_INVALID, "%s: the pointer list is NULL", name);
    if (f->ncore > 0 && !core)
        return ufn_fail(UFN_ERR_INVALID, "%s: the core dimension list is NULL", name);
    if (n > (size_t)INT64_MAX)
        return ufn_fail(UFN_ERR_OVERFLOW, "%s: n = %zu does not fit in int64", name, n);
    for (int j = 0; j < f->ncore; j++)
        if (core[j] > (size_t)INT64_MAX)
            return ufn_fail(UFN_ERR_OVERFLOW, "%s: core dimension %s = %zu does not fit in int64",
                            name, f->core_names ? f->core_names[j] : "?", core[j]);

    int nargs = f->nin + f->nout, off = 0;
    ufn_array arr[nargs];
    const ufn_array *in[UFN_MAXARGS];
    ufn_array *out[UFN_MAXARGS];
    for (int k = 0; k < nargs; k++) {
        int cn = core_ndim(f, k);
        int64_t shape[1 + UFN_KMAXCORE];
        shape[0] = (int64_t)n;
        for (int j = 0; j < cn; j++)
            shape[1 + j] = (int64_t)core[f->core_dims[off + j]];
        off += cn;
        arr[k] = ufn_host(ptrs[k], f->loops[loop].types[k], 1 + cn, shape);
        if (k < f->nin)
            in[k] = &arr[k];
        else
            out[k - f->nin] = &arr[k];
    }
    operand ops[nargs];
    call c;
    init_call(&c, f, ops);
    st = run(&c, in, out, loop);
    if (st < 0) {
        st = ufn_fail_prefix(st, name);
        ufn_pipeline_poison(st);
    }
    return st;
}
