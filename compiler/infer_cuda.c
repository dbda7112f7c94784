/* infer_cuda.c - numba.cuda in a @cuda.jit kernel and the device functions
 * it calls: thread coordinates, barriers and fences, warp functions,
 * atomics, shared and local arrays.  Each becomes an N_CALL with builtin
 * B_CUDA and call.cuda its CudaFn, arguments typed and converted as the
 * emitter (emit_kernel.c) passes them; the types are Numba's (kernels.md
 * 1.4 to 1.9): coordinates, laneid and warpsize int32, grid() and
 * gridsize() int64 (numba-cuda's), ballot_sync int32, all/any_sync bool,
 * activemask uint32, an atomic the old value. */
#include "ufnc.h"

#include <string.h>

static const char *cuda_name(CudaFn fn)
{
    return builtin_name((BuiltinRef){.id = B_CUDA, .cuda = fn});
}

static Node *node(Node *e, CudaFn fn, NodeList *args, Type *t)
{
    Node *n = infer_mkcall(e, B_CUDA, args, t);
    n->call.cuda = fn;
    return n;
}

/* Thread code only: a ufunc's body runs with no thread of its own. */
static bool in_kernel_code(Infer *cx, Node *e, CudaFn fn)
{
    FuncKind k = cx->inst->func->kind;
    if (k == FK_CUDA_KERNEL || k == FK_DEVICE || k == FK_JIT)
        return true;
    infer_fail(cx, e->loc, "in %s: %s is for @cuda.jit kernels (and the device functions they call), not for %s",
               infer_fname(cx), cuda_name(fn), k == FK_VECTORIZE ? "@vectorize" : "@guvectorize");
    return false;
}

Node *infer_cuda_value(Infer *cx, Node *e, CudaFn fn)
{
    if (!in_kernel_code(cx, e, fn))
        return infer_unknown(e);
    NodeList none = {0};
    return node(e, fn, &none, ty_scalar(TY_INT32));
}

/* ---- arguments ------------------------------------------------------------------------- */

static Node *scalar_arg(Infer *cx, Node *t, CudaFn fn)
{
    Node *a = t;
    if (t->type && !ty_is_scalar(t->type))
        return infer_fail(cx, a->loc, "in %s: %s() takes scalars, not %s", infer_fname(cx), cuda_name(fn),
                          t->type->name), infer_unknown(a);
    return t;
}

/* An integer argument such as a mask or a lane, converted to `to`. */
static Node *int_arg(Infer *cx, Node *a, CudaFn fn, TypeKind to)
{
    Node *t = scalar_arg(cx, a, fn);
    if (!t->type)
        return t;
    if (!ty_is_int(t->type) && !ty_is_bool(t->type))
        return infer_fail(cx, a->loc, "in %s: %s() takes an integer here, not %s", infer_fname(cx), cuda_name(fn),
                          t->type->name), infer_unknown(a);
    return infer_cast(t, ty_scalar(to));
}

/* grid(n), gridsize(n): n is a literal 1, 2 or 3. */
static Node *grid(Infer *cx, Node *e, CudaFn fn, const NodeList *src)
{
    Node *a = src->items[0];
    if (!a->type)
        return infer_unknown(e);
    if (a->kind != N_CONST || !ty_is_int(a->type) || a->konst.v.i < 1 || a->konst.v.i > 3)
        return infer_fail(cx, a->loc, "in %s: the argument of %s() must be the literal 1, 2 or 3", infer_fname(cx),
                          cuda_name(fn)), infer_unknown(e);
    int n = (int)a->konst.v.i;
    NodeList args = list1(infer_const(a->loc, (Value){.type = ty_scalar(TY_INT64), .i = n}));
    Type *i64 = ty_scalar(TY_INT64), *elts[3] = {i64, i64, i64};
    return node(e, fn, &args, n == 1 ? i64 : ty_tuple(n, elts));
}

/* A shuffle's value: 32- and 64-bit integers and floats; narrower integers
 * go as int32 (Numba 0.56's conversion). */
static Node *shuffle_value(Infer *cx, Node *a, CudaFn fn)
{
    Node *v = scalar_arg(cx, a, fn);
    if (!v->type)
        return v;
    Type *t = v->type;
    if (ty_is_complex(t))
        return infer_fail(cx, a->loc, "in %s: %s() only supports 32- and 64-bit ints and floats, not %s",
                          infer_fname(cx), cuda_name(fn), t->name), infer_unknown(a);
    if (ty_is_bool(t) || (ty_is_int(t) && ty_bits(t) < 32))
        return infer_cast(v, ty_scalar(TY_INT32));
    return v;
}

/* ---- atomics ------------------------------------------------------------------------------ */

static bool atomic_dtype_ok(CudaFn fn, const Type *t)
{
    bool i = t->kind == TY_INT32 || t->kind == TY_INT64 || t->kind == TY_UINT32 || t->kind == TY_UINT64;
    bool u = t->kind == TY_UINT32 || t->kind == TY_UINT64;
    bool f = t->kind == TY_FLOAT32 || t->kind == TY_FLOAT64;
    switch (fn) {
    case CU_ATOMIC_ADD: case CU_ATOMIC_SUB: case CU_ATOMIC_MAX: case CU_ATOMIC_MIN:
    case CU_ATOMIC_NANMAX: case CU_ATOMIC_NANMIN:
        return i || f;
    case CU_ATOMIC_INC: case CU_ATOMIC_DEC:
        return u;
    default:
        return i;
    }
}

/* The element an atomic works on: ary[idx] with idx an integer or a tuple
 * of them, as an N_SUBSCRIPT the emitter takes the address of. */
static Node *atomic_element(Infer *cx, Node *e, Node *ary, Node *idx_src, CudaFn fn)
{
    Node *ary_src = ary;
    if (!ary->type)
        return infer_unknown(e);
    Type *at = ary->type;
    if (at->kind != TY_ARRAY)
        return infer_fail(cx, ary_src->loc, "in %s: the first argument of %s() must be an array, not %s",
                          infer_fname(cx), cuda_name(fn), at->name), infer_unknown(e);
    if (!atomic_dtype_ok(fn, at->elt))
        return infer_fail(cx, e->loc, "in %s: %s() does not support arrays of %s", infer_fname(cx), cuda_name(fn),
                          at->elt->name), infer_unknown(e);
    NodeList idx = {0};
    if (!idx_src)
        list_push(&idx, infer_const(e->loc, (Value){.type = ty_scalar(TY_INT64), .i = 0}));
    else if (idx_src->kind == N_TUPLE)
        for (int i = 0; i < idx_src->tuple.elts.len; i++)
            list_push(&idx, idx_src->tuple.elts.items[i]);
    else
        list_push(&idx, idx_src);
    for (int i = 0; i < idx.len; i++) {
        Type *it = idx.items[i]->type;
        if (!it)
            return infer_unknown(e);
        if (!ty_is_int(it) && !ty_is_bool(it))
            return infer_fail(cx, idx.items[i]->loc, "in %s: the index of %s() must be an integer or a tuple of integers, not %s",
                              infer_fname(cx), cuda_name(fn), it->name), infer_unknown(e);
        idx.items[i] = infer_cast(idx.items[i], ty_scalar(TY_INT64));
    }
    if (idx.len != at->ndim)
        return infer_fail(cx, e->loc, "in %s: %s() on a %d-dimensional array needs %d index%s, not %d", infer_fname(cx),
                          cuda_name(fn), at->ndim, at->ndim, at->ndim == 1 ? "" : "es", idx.len), infer_unknown(e);
    return infer_typed(new_subscript(e->loc, ary, idx), at->elt);
}

static Node *atomic(Infer *cx, Node *e, CudaFn fn, NodeList *src)
{
    bool cas = fn == CU_ATOMIC_CAS, cas1 = fn == CU_ATOMIC_COMPARE_AND_SWAP;
    Node *elem = atomic_element(cx, e, src->items[0], cas1 ? NULL : src->items[1], fn);
    if (!elem->type)
        return elem;
    NodeList args = list1(elem);
    /* cas(ary, idx, old, val) and compare_and_swap(ary, old, val): the value
     * compared, then the one stored */
    for (int k = cas ? 2 : 1 + !cas1; k < src->len; k++) {
        Node *v = scalar_arg(cx, src->items[k], fn);
        if (!v->type)
            return infer_unknown(e);
        if (!ty_can_convert(v->type, elem->type))
            return infer_fail(cx, v->loc, "in %s: %s() cannot store %s into an array of %s", infer_fname(cx),
                              cuda_name(fn), v->type->name, elem->type->name), infer_unknown(e);
        list_push(&args, infer_cast(v, elem->type));
    }
    if (cas1)
        fn = CU_ATOMIC_CAS;
    return node(e, fn, &args, elem->type);
}

/* ---- shared and local arrays ------------------------------------------------------------------ */

static Node *kwarg(const NodeList *kwargs, const char *name)
{
    for (int i = 0; i < kwargs->len; i++)
        if (!strcmp(kwargs->items[i]->keyword.name, name))
            return kwargs->items[i]->keyword.value;
    return NULL;
}

/* cuda.shared.array(shape, dtype), cuda.local.array(shape, dtype): the
 * shape a constant integer or tuple of them (module constants too), 0 for
 * dynamic shared memory; the array is C-contiguous. */
static Node *array(Infer *cx, Node *e, CudaFn fn, const NodeList *args, const NodeList *kwargs)
{
    Node *shape = args->len > 0 ? args->items[0] : kwarg(kwargs, "shape");
    Node *dtype = args->len > 1 ? args->items[1] : kwarg(kwargs, "dtype");
    for (int i = 0; i < kwargs->len; i++) {
        const char *k = kwargs->items[i]->keyword.name;
        if (strcmp(k, "shape") && strcmp(k, "dtype") && strcmp(k, "alignment"))
            return infer_fail(cx, kwargs->items[i]->loc, "in %s: %s() has no argument '%s'", infer_fname(cx),
                              cuda_name(fn), k), infer_unknown(e);
    }
    if (!shape || !dtype)
        return infer_fail(cx, e->loc, "in %s: %s() needs a shape and a dtype", infer_fname(cx), cuda_name(fn)),
               infer_unknown(e);
    Sym s;
    if (!infer_resolve(cx, dtype, &s) || s.kind != SYM_BUILTIN || s.builtin.id != B_CAST || !s.builtin.cast)
        return infer_fail(cx, dtype->loc, "in %s: the dtype of %s() must be a NumPy or Numba scalar type such as float32",
                          infer_fname(cx), cuda_name(fn)), infer_unknown(e);
    NodeList dims = {0};
    NodeList srcs = shape->kind == N_TUPLE ? shape->tuple.elts : list1(shape);
    for (int i = 0; i < srcs.len; i++) {
        Node *d = srcs.items[i];
        if (!d->type)
            return infer_unknown(e);
        if (d->kind != N_CONST || !ty_is_int(d->type))
            return infer_fail(cx, srcs.items[i]->loc, "in %s: the shape of %s() must be an integer constant or a tuple of them (a literal or a module constant)",
                              infer_fname(cx), cuda_name(fn)), infer_unknown(e);
        int64_t v = d->konst.v.i;
        bool dynamic = v == 0 && fn == CU_SHARED_ARRAY && srcs.len == 1;
        if ((v <= 0 && !dynamic) || v > (1 << 24))
            return infer_fail(cx, d->loc, "in %s: array length %lld of %s() is %s", infer_fname(cx), (long long)v,
                              cuda_name(fn), v <= 0 ? "not positive (0 makes dynamic shared memory: a 1-d shared array only)" : "too large"),
                   infer_unknown(e);
        list_push(&dims, infer_cast(d, ty_scalar(TY_INT64)));
    }
    if (dims.len > UFN_KMAXDIM)
        return infer_fail(cx, shape->loc, "in %s: %s() of more than %d dimensions", infer_fname(cx), cuda_name(fn),
                          UFN_KMAXDIM), infer_unknown(e);
    Node *n = node(e, fn, &dims, ty_array(s.builtin.cast, dims.len, 'C'));
    n->call.slot = cx->inst->nslots++;
    return n;
}

/* ---- print ------------------------------------------------------------------------------------------ */

/* print(...) in a kernel: string literals and scalars (not complex), as
 * Numba prints them (emit_kernel.c: one printf). */
Node *infer_print(Infer *cx, Node *e, NodeList *src)
{
    if (e->call.kwargs.len)
        return infer_fail(cx, e->call.kwargs.items[0]->loc, "in %s: print() takes no keyword arguments in a kernel",
                          infer_fname(cx)), infer_unknown(e);
    if (src->len > 32)
        return infer_fail(cx, e->loc, "in %s: print() in a kernel prints at most 32 items", infer_fname(cx)),
               infer_unknown(e);
    NodeList args = {0};
    for (int i = 0; i < src->len; i++) {
        Node *a = src->items[i], *t = a;
        if (a->kind == N_STR && !a->str.bytes) {
            list_push(&args, a);
            continue;
        }
        if (!t->type)
            return infer_unknown(e);
        if (!ty_is_scalar(t->type) || ty_is_complex(t->type))
            return infer_fail(cx, a->loc, "in %s: print() in a kernel prints strings and real scalars, not %s",
                              infer_fname(cx), t->type->name), infer_unknown(e);
        list_push(&args, t);
    }
    return infer_mkcall(e, B_PRINT, &args, ty_none());
}

/* ---- calls -------------------------------------------------------------------------------------- */

Node *infer_cuda_call(Infer *cx, Node *e, CudaFn fn, NodeList *src, NodeList *kwargs)
{
    const CudaFnInfo *info = &cuda_fns[fn];
    if (!in_kernel_code(cx, e, fn))
        return infer_unknown(e);
    if (info->min < 0)
        return infer_fail(cx, e->loc, "in %s: %s is a value, not a function", infer_fname(cx), cuda_name(fn)),
               infer_unknown(e);
    if (fn == CU_SHARED_ARRAY && cx->inst->func->kind != FK_CUDA_KERNEL)
        return infer_fail(cx, e->loc, "in %s: declare shared arrays in the kernel and pass them to the device function (ufnc lays out a kernel's shared memory itself)",
                          infer_fname(cx)), infer_unknown(e);
    if (fn == CU_SHARED_ARRAY || fn == CU_LOCAL_ARRAY)
        return array(cx, e, fn, src, kwargs);
    if (kwargs->len)
        return infer_fail(cx, kwargs->items[0]->loc, "in %s: keyword argument '%s=' is not supported in calls; pass it by position",
                          infer_fname(cx), kwargs->items[0]->keyword.name), infer_unknown(e);
    for (int i = 0; i < src->len; i++) {
        Node *a = src->items[i];
        Sym sym;
        if (a->kind == N_STR)
            return infer_fail(cx, a->loc, "in %s: strings are not supported in expressions", infer_fname(cx)),
                   infer_unknown(e);
        if (!a->type && infer_resolve(cx, a, &sym) && sym.kind == SYM_BUILTIN && sym.builtin.id == B_CAST)
            return infer_fail(cx, a->loc, "in %s: '%s' is a type, not a value", infer_fname(cx), sym.name),
                   infer_unknown(e);
        if (!a->type)
            return infer_unknown(e);    /* reported where it was typed */
    }
    Node *bad = infer_arity(cx, e, cuda_name(fn), info->min, info->max, src->len);
    if (bad)
        return bad;
    NodeList args = {0};
    switch (fn) {
    case CU_GRID:
    case CU_GRIDSIZE:
        return grid(cx, e, fn, src);
    case CU_SYNCTHREADS:
    case CU_THREADFENCE:
    case CU_THREADFENCE_BLOCK:
    case CU_THREADFENCE_SYSTEM:
        return node(e, fn, &args, ty_none());
    case CU_ACTIVEMASK:
    case CU_LANEMASK_LT:
        return node(e, fn, &args, ty_scalar(TY_UINT32));
    case CU_SYNCWARP:
        if (src->len)
            list_push(&args, int_arg(cx, src->items[0], fn, TY_UINT32));
        return args.len && !args.items[0]->type ? infer_unknown(e) : node(e, fn, &args, ty_none());
    case CU_SYNCTHREADS_COUNT:
    case CU_SYNCTHREADS_AND:
    case CU_SYNCTHREADS_OR:
        list_push(&args, int_arg(cx, src->items[0], fn, TY_INT32));
        return !args.items[0]->type ? infer_unknown(e) : node(e, fn, &args, ty_scalar(TY_INT32));
    case CU_SHFL:
    case CU_SHFL_UP:
    case CU_SHFL_DOWN:
    case CU_SHFL_XOR:
        list_push(&args, int_arg(cx, src->items[0], fn, TY_UINT32));
        list_push(&args, shuffle_value(cx, src->items[1], fn));
        list_push(&args, int_arg(cx, src->items[2], fn, fn == CU_SHFL || fn == CU_SHFL_XOR ? TY_INT32 : TY_UINT32));
        for (int i = 0; i < 3; i++)
            if (!args.items[i]->type)
                return infer_unknown(e);
        return node(e, fn, &args, args.items[1]->type);
    case CU_BALLOT:
    case CU_ALL:
    case CU_ANY:
        list_push(&args, int_arg(cx, src->items[0], fn, TY_UINT32));
        list_push(&args, int_arg(cx, src->items[1], fn, TY_INT32));
        if (!args.items[0]->type || !args.items[1]->type)
            return infer_unknown(e);
        return node(e, fn, &args, ty_scalar(fn == CU_BALLOT ? TY_INT32 : TY_BOOL));
    default:
        return atomic(cx, e, fn, src);
    }
}
