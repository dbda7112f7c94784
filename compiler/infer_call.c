/* infer_call.c - typing a call whose callee infer_expr.c resolved and whose
 * arguments it typed: device functions and @jit helpers (an instance per
 * tuple of argument types, made by instance.c), Python builtins, math and
 * cmath, NumPy scalar constructors. */
#include "ufnc.h"

#include <string.h>

/* ---- calls ------------------------------------------------------------------------- */

/* A silent pass notes every helper call, for the instance pass. */
static void record_call(Instance *inst, Func *f, Type *const *args, int nargs, Loc loc, Instance *callee)
{
    if (inst->ncalls == inst->capcalls) {
        inst->capcalls = inst->capcalls ? 2 * inst->capcalls : 8;
        Call *calls = arena_alloc(sizeof(Call) * (size_t)inst->capcalls);
        if (inst->ncalls)
            memcpy(calls, inst->calls, sizeof(Call) * (size_t)inst->ncalls);
        inst->calls = calls;
    }
    Type **copy = arena_alloc(sizeof(Type *) * (size_t)(nargs ? nargs : 1));
    if (nargs)
        memcpy(copy, args, sizeof(Type *) * (size_t)nargs);
    inst->calls[inst->ncalls++] = (Call){.func = f, .args = copy, .nargs = nargs, .loc = loc, .callee = callee};
}

/* ---- composition: a ufunc called as a scalar function ----------------------------- */

/* NEP 50: a Python number fits a signature by kind, not by its own type. */
static bool weak_fits(const Type *have, const Type *want)
{
    if (ty_is_bool(have))
        return true;
    if (ty_is_int(have))
        return !ty_is_bool(want);
    if (ty_is_float(have))
        return ty_is_float(want) || ty_is_complex(want);
    return ty_is_complex(want);
}

static bool sig_fits(const Signature *sig, NodeList *args, bool all_weak, bool safe)
{
    if (sig->nargs != args->len)
        return false;
    for (int i = 0; i < args->len; i++) {
        const Type *have = args->items[i]->type, *want = sig->args[i];
        bool ok = infer_is_weak(args->items[i]) && !all_weak ? weak_fits(have, want)
                  : safe ? ty_can_cast_safe(have, want) : have == want;
        if (!ok)
            return false;
    }
    return true;
}

/* Which signature of the ufunc f a call in another ufunc's body runs: the
 * runtime's choice for arrays (dispatch.c) made on the argument types - the
 * first signature the arguments match exactly, else the first they cast to
 * safely.  The arguments are converted to it; NULL (reported) if none fits. */
static const Signature *ufunc_signature(Infer *cx, Node *e, Func *f, NodeList *args)
{
    bool all_weak = true;
    for (int i = 0; i < args->len; i++) {
        if (!ty_is_scalar(args->items[i]->type))
            return infer_fail(cx, args->items[i]->loc, "in %s: the ufunc %s() takes scalars, not %s", infer_fname(cx),
                              f->name, args->items[i]->type->name), NULL;
        all_weak = all_weak && infer_is_weak(args->items[i]);
    }
    for (int safe = 0; safe < 2; safe++)
        for (int k = 0; k < f->nsigs; k++)
            if (sig_fits(f->sigs[k], args, all_weak, safe)) {
                for (int i = 0; i < args->len; i++)
                    args->items[i] = infer_cast(args->items[i], f->sigs[k]->args[i]);
                return f->sigs[k];
            }
    const char *have = "";
    for (int i = 0; i < args->len; i++)
        have = arena_printf("%s%s%s", have, i ? ", " : "", args->items[i]->type->name);
    const char *sigs = "";
    for (int k = 0; k < f->nsigs; k++)
        sigs = arena_printf("%s%s'%s'", sigs, k ? ", " : "", f->sigs[k]->text);
    return infer_fail(cx, e->loc, "in %s: no signature of the ufunc %s() takes (%s) without losing precision; it has %s",
                      infer_fname(cx), f->name, have, sigs), NULL;
}

Node *infer_helper_call(Infer *cx, Node *e, Func *f, NodeList *args)
{
    Type *types[UFN_MAX_OPERANDS];
    if (args->len > UFN_MAX_OPERANDS)
        return infer_fail(cx, e->loc, "in %s: too many arguments", infer_fname(cx)), infer_unknown(e);
    int nparams = f->def->funcdef.params.len;
    if (args->len != nparams)
        return infer_fail(cx, e->loc, "in %s: %s() takes %d argument%s but %d %s given", infer_fname(cx), f->name,
                       nparams, nparams == 1 ? "" : "s", args->len, args->len == 1 ? "was" : "were"),
               infer_unknown(e);
    for (int i = 0; i < args->len; i++) {
        types[i] = args->items[i]->type;
        if (!types[i])
            return infer_unknown(e);
    }
    /* what cannot be called from a kernel, said from the caller */
    switch (f->kind) {
    case FK_PLAIN:
        infer_fail(cx, e->loc, "in %s: '%s' is not a device function: decorate it with @cuda.jit(device=True) or @jit to call it from a kernel",
                infer_fname(cx), f->name);
        if (cx->final)
            diag_note(f->def->funcdef.name_loc.file ? f->def->funcdef.name_loc : f->def->loc, "'%s' is defined here",
                      f->name);
        return infer_unknown(e);
    case FK_VECTORIZE:
        /* composition, an extension to Numba: a ufunc's body calls another
         * ufunc of the module (or an imported one) as a scalar function */
        if (cx->inst->func->kind == FK_VECTORIZE) {
            if (f == cx->inst->func)
                return infer_fail(cx, e->loc, "in %s: a ufunc cannot call itself", infer_fname(cx)), infer_unknown(e);
            const Signature *sig = ufunc_signature(cx, e, f, args);
            if (!sig)
                return infer_unknown(e);
            for (int i = 0; i < args->len; i++)
                types[i] = sig->args[i];
            break;
        }
        return infer_fail(cx, e->loc, "in %s: only a @vectorize function can call the ufunc '%s'; move the shared code into a @cuda.jit(device=True) function",
                          infer_fname(cx), f->name), infer_unknown(e);
    case FK_GUVECTORIZE:
        return infer_fail(cx, e->loc, "in %s: cannot call the gufunc '%s' from a kernel; move the shared code into a @cuda.jit(device=True) function",
                       infer_fname(cx), f->name), infer_unknown(e);
    case FK_CUDA_KERNEL:
        return infer_fail(cx, e->loc, "in %s: cannot call the @cuda.jit kernel '%s' from a kernel", infer_fname(cx), f->name),
               infer_unknown(e);
    case FK_DEVICE:
    case FK_JIT:
        break;
    }
    /* The instance pass makes the instance a silent pass asks for; until it
     * is typed, its return type is unknown and the call quietly untyped. */
    Instance *callee = find_instance(f, types, args->len);
    if (!cx->final)
        record_call(cx->inst, f, types, args->len, e->loc, callee);
    if (!callee) {
        if (cx->final)
            cx->inst->failed = true;  /* the instance pass said why it made none */
        return infer_unknown(e);
    }
    Node *n = new_call(e->loc, e->call.func);
    n->call.args = *args;
    n->call.callee = callee;
    if (callee->failed && cx->final && callee->state == I_DONE) {   /* its errors were reported inside it */
        cx->inst->failed = true;
        return infer_unknown(e);
    }
    if (!callee->ret) {
        if (!cx->final)
            return infer_unknown(e);
        if (callee->failed) {      /* reported inside it, where the recursion closes */
            cx->inst->failed = true;
            return infer_unknown(e);
        }
        return infer_fail(cx, e->loc, "in %s: cannot infer the return type of %s(): it calls itself%s on every path (a recursion without a base case)",
                       infer_fname(cx), f->name, callee == cx->inst ? "" : arena_printf(" through %s()", infer_fname(cx))),
               infer_unknown(e);
    }
    return infer_typed(n, callee->ret);
}

/* Integers that convert to float32 exactly in Numba's rules. */
static bool int_fits_float32(const Type *t)
{
    return t->kind == TY_BOOL || t->kind == TY_INT8 || t->kind == TY_UINT8 || t->kind == TY_INT16;
}

/* A call of math function m (its row for these arguments) typed t. */
static Node *math_node(Node *e, Builtin table, const MathFn *m, NodeList *args, Type *t)
{
    Node *n = infer_mkcall(e, table, args, t);
    n->call.math = m;
    return n;
}

static Node *math_call(Infer *cx, Node *e, BuiltinRef b, NodeList *args)
{
    bool cm = b.id == B_CMATH;
    const char *name = builtin_name(b);
    /* the row for this many arguments (math.log(x) or math.log(x, base)) */
    const MathFn *m = math_row(b.id, b.fn->name, args->len);
    if (!m)
        m = b.fn;
    Node *bad = infer_arity(cx, e, name, m->nargs, m->nargs, args->len);
    if (bad)
        return bad;
    for (int i = 0; i < args->len; i++) {
        Type *t = args->items[i]->type;
        if (!ty_is_scalar(t) || (!cm && ty_is_complex(t)))
            return infer_fail(cx, args->items[i]->loc, "in %s: %s() needs %s arguments, not %s", infer_fname(cx), name,
                           cm ? "numeric" : "real", t->name), infer_unknown(e);
    }
    /* Numba's overloads: the float32 (complex64) row when the arguments are
     * float32 (complex64) - and, for functions of two arguments, small
     * integers (beside a float32 for atan2 and hypot, which have integer
     * overloads of their own) - otherwise float64 (complex128). */
    bool all_f32 = true, any_f32 = false, narrow = true;
    for (int i = 0; i < args->len; i++) {
        Type *t = args->items[i]->type;
        bool f32 = t->kind == TY_FLOAT32 || t->kind == TY_COMPLEX64;
        all_f32 = all_f32 && f32;
        any_f32 = any_f32 || f32;
        narrow = narrow && (f32 || t->kind == TY_BOOL || t->kind == TY_INT8 || t->kind == TY_UINT8);
    }
    bool int_overloads = strcmp(m->name, "atan2") == 0 || strcmp(m->name, "hypot") == 0;
    bool small = args->len == 2 ? narrow && (any_f32 || !int_overloads) : all_f32;
    Type *f = ty_scalar(small ? TY_FLOAT32 : TY_FLOAT64);
    /* cmath of a real: complex64 for what float32 holds exactly */
    bool c64 = true;
    for (int i = 0; i < args->len; i++) {
        Type *t = args->items[i]->type;
        c64 = c64 && (t->kind == TY_COMPLEX64 || t->kind == TY_FLOAT32 || int_fits_float32(t));
    }
    Type *c = ty_scalar(c64 ? TY_COMPLEX64 : TY_COMPLEX128);
    switch (m->kind) {
    case MK_FLOAT:
        for (int i = 0; i < args->len; i++)
            args->items[i] = infer_cast(args->items[i], f);
        return math_node(e, b.id, m, args, f);
    case MK_ROUND: {
        /* CUDA's rule: a float keeps its type; an integer becomes float64 */
        Type *t = args->items[0]->type;
        if (ty_is_int(t) || ty_is_bool(t))
            return infer_cast(args->items[0], ty_scalar(TY_FLOAT64));
        return math_node(e, b.id, m, args, t);
    }
    case MK_PRED: {
        Type *t = args->items[0]->type;
        if (ty_is_int(t) || ty_is_bool(t)) {
            /* an integer is never nan or inf */
            bool v = strcmp(m->name, "isfinite") == 0;
            return infer_const(e->loc, (Value){.type = ty_scalar(TY_BOOL), .i = v});
        }
        return math_node(e, b.id, m, args, ty_scalar(TY_BOOL));
    }
    case MK_POW: {
        /* float32 ** (float32 or an int of up to 32 bits) is float32 */
        Type *bt = args->items[0]->type, *xt = args->items[1]->type;
        bool small_exp = xt->kind == TY_FLOAT32 || xt->kind == TY_BOOL || (ty_is_int(xt) && ty_bits(xt) <= 32
                         && xt->kind != TY_UINT32);
        bool small_base = bt->kind == TY_FLOAT32 || bt->kind == TY_BOOL || bt->kind == TY_INT8 || bt->kind == TY_UINT8;
        Type *t = ty_scalar(small_base && small_exp ? TY_FLOAT32 : TY_FLOAT64);
        args->items[0] = infer_cast(args->items[0], t);
        args->items[1] = infer_cast(args->items[1], t);
        return math_node(e, b.id, m, args, t);
    }
    case MK_LDEXP: {
        Type *x = args->items[0]->type;
        Type *t = ty_is_float(x) ? x : ty_scalar(int_fits_float32(x) ? TY_FLOAT32 : TY_FLOAT64);
        if (!ty_is_int(args->items[1]->type) && !ty_is_bool(args->items[1]->type))
            return infer_fail(cx, args->items[1]->loc, "in %s: %s() needs an integer exponent", infer_fname(cx), name),
                   infer_unknown(e);
        args->items[0] = infer_cast(args->items[0], t);
        args->items[1] = infer_cast(args->items[1], ty_scalar(TY_INT32));
        return math_node(e, b.id, m, args, t);
    }
    case CK_COMPLEX:
        for (int i = 0; i < args->len; i++)
            args->items[i] = infer_cast(args->items[i], c);
        return math_node(e, b.id, m, args, c);
    case CK_REAL:
        if (!ty_is_complex(args->items[0]->type))
            c = ty_scalar(TY_COMPLEX128);      /* phase(x) of a real computes in double */
        args->items[0] = infer_cast(args->items[0], c);
        return math_node(e, b.id, m, args, ty_scalar(c->kind == TY_COMPLEX64 ? TY_FLOAT32 : TY_FLOAT64));
    case CK_PRED:
        args->items[0] = infer_cast(args->items[0], c);
        return math_node(e, b.id, m, args, ty_scalar(TY_BOOL));
    case CK_POLAR: {
        args->items[0] = infer_cast(args->items[0], c);
        Type *ft = ty_scalar(c->kind == TY_COMPLEX64 ? TY_FLOAT32 : TY_FLOAT64);
        Type *pair[2] = {ft, ft};
        return math_node(e, b.id, m, args, ty_tuple(2, pair));
    }
    case CK_RECT: {
        bool f32 = any_f32;
        for (int i = 0; i < args->len; i++)
            f32 = f32 && (args->items[i]->type->kind == TY_FLOAT32 || int_fits_float32(args->items[i]->type));
        Type *ft = ty_scalar(f32 ? TY_FLOAT32 : TY_FLOAT64);
        for (int i = 0; i < args->len; i++) {
            if (ty_is_complex(args->items[i]->type))
                return infer_fail(cx, args->items[i]->loc, "in %s: %s() needs real arguments", infer_fname(cx), name),
                       infer_unknown(e);
            args->items[i] = infer_cast(args->items[i], ft);
        }
        return math_node(e, b.id, m, args, ty_scalar(ft->kind == TY_FLOAT32 ? TY_COMPLEX64 : TY_COMPLEX128));
    }
    }
    unreachable();
}

static Node *minmax(Infer *cx, Node *e, Builtin b, NodeList *args)
{
    const char *name = b == B_MIN ? "min" : "max";
    if (args->len < 2)
        return infer_fail(cx, e->loc, "in %s: %s() needs at least two arguments here (iterables are not supported)",
                       infer_fname(cx), name), infer_unknown(e);
    Type *t = args->items[0]->type;
    for (int i = 0; i < args->len; i++) {
        Type *a = args->items[i]->type;
        if (!ty_is_scalar(a) || ty_is_complex(a))
            return infer_fail(cx, args->items[i]->loc, "in %s: %s() needs real numbers, not %s", infer_fname(cx), name,
                           a->name), infer_unknown(e);
        t = ty_promote_numpy(t, a);
    }
    /* min(a, b, c) is min(min(a, b), c): Python compares left to right */
    Node *acc = infer_cast(args->items[0], t);
    for (int i = 1; i < args->len; i++) {
        NodeList two = {0};
        list_push(&two, acc);
        list_push(&two, infer_cast(args->items[i], t));
        acc = infer_mkcall(e, b, &two, t);
    }
    return acc;
}

Node *infer_builtin_call(Infer *cx, Node *e, BuiltinRef b, NodeList *args)
{
    Node *bad;
    if (b.id == B_MATH || b.id == B_CMATH)
        return math_call(cx, e, b, args);
    if (b.id == B_CAST) {
        Type *t = b.cast;
        if ((bad = infer_arity(cx, e, builtin_name(b), 1, 1, args->len)))
            return bad;
        Type *a = args->items[0]->type;
        if (!ty_is_scalar(a))
            return infer_fail(cx, e->loc, "in %s: cannot convert %s to %s", infer_fname(cx), a->name, t->name), infer_unknown(e);
        if (ty_is_complex(a) && !ty_is_complex(t) && !ty_is_bool(t))
            return infer_fail(cx, e->loc, "in %s: cannot convert complex to %s (take .real or abs() first)",
                           infer_fname(cx), t->name), infer_unknown(e);
        Node *r = infer_cast(args->items[0], t);
        if (r == args->items[0] && !infer_is_literal(r))   /* an explicit no-op cast stays visible */
            return r;
        return r;
    }
    switch (b.id) {
    case B_ABS: {
        if ((bad = infer_arity(cx, e, "abs", 1, 1, args->len)))
            return bad;
        Type *a = args->items[0]->type;
        if (!ty_is_scalar(a))
            return infer_fail(cx, e->loc, "in %s: bad operand type for abs(): %s", infer_fname(cx), a->name), infer_unknown(e);
        Type *t = ty_is_complex(a) ? ty_scalar(a->kind == TY_COMPLEX64 ? TY_FLOAT32 : TY_FLOAT64)
                  : ty_is_bool(a) ? ty_scalar(TY_INT8) : a;
        if (ty_is_unsigned(a))
            return args->items[0];    /* its own absolute value */
        if (ty_is_bool(a))
            args->items[0] = infer_cast(args->items[0], t);
        return infer_mkcall(e, B_ABS, args, t);
    }
    case B_MIN:
    case B_MAX:
        return minmax(cx, e, b.id, args);
    case B_ROUND: {
        if ((bad = infer_arity(cx, e, "round", 1, 2, args->len)))
            return bad;
        Type *a = args->items[0]->type;
        if (!ty_is_scalar(a) || ty_is_complex(a))
            return infer_fail(cx, e->loc, "in %s: round() needs a real number, not %s", infer_fname(cx), a->name),
                   infer_unknown(e);
        if (args->len == 2) {
            if (!ty_is_int(args->items[1]->type))
                return infer_fail(cx, e->loc, "in %s: round()'s ndigits must be an integer", infer_fname(cx)), infer_unknown(e);
            args->items[1] = infer_cast(args->items[1], ty_scalar(TY_INT64));
            /* Numba rounds an integer as a float (NumPy's round) */
            if (!ty_is_float(a))
                a = ty_scalar(int_fits_float32(a) ? TY_FLOAT32 : TY_FLOAT64);
            args->items[0] = infer_cast(args->items[0], a);
            return infer_mkcall(e, B_ROUND, args, a);
        }
        if (!ty_is_float(a))
            return infer_cast(args->items[0], ty_scalar(TY_INT64));
        return infer_mkcall(e, B_ROUND, args, ty_scalar(TY_INT64));
    }
    case B_INT:
    case B_FLOAT:
    case B_BOOL: {
        const char *nm = b.id == B_INT ? "int" : b.id == B_FLOAT ? "float" : "bool";
        if ((bad = infer_arity(cx, e, nm, 1, 1, args->len)))
            return bad;
        Type *a = args->items[0]->type;
        if (!ty_is_scalar(a) || (ty_is_complex(a) && b.id != B_BOOL))
            return infer_fail(cx, e->loc, "in %s: %s() cannot convert %s", infer_fname(cx), nm, a->name), infer_unknown(e);
        Type *t = ty_scalar(b.id == B_INT ? TY_INT64 : b.id == B_FLOAT ? TY_FLOAT64 : TY_BOOL);
        if ((b.id == B_INT && ty_is_int(a)) || (b.id == B_FLOAT && ty_is_float(a)))
            t = a;                /* Numba: int(int8) is int8, float(float32) float32 */
        return infer_cast(args->items[0], t);
    }
    case B_COMPLEX: {
        if ((bad = infer_arity(cx, e, "complex", 1, 2, args->len)))
            return bad;
        if (args->len == 1 && ty_is_complex(args->items[0]->type))
            return infer_cast(args->items[0], ty_scalar(TY_COMPLEX128));
        bool f32 = true;
        for (int i = 0; i < args->len; i++) {
            Type *a = args->items[i]->type;
            if (!ty_is_scalar(a) || ty_is_complex(a))
                return infer_fail(cx, e->loc, "in %s: complex() needs real arguments", infer_fname(cx)), infer_unknown(e);
            f32 = f32 && a->kind == TY_FLOAT32;
        }
        Type *ft = ty_scalar(f32 ? TY_FLOAT32 : TY_FLOAT64);
        for (int i = 0; i < args->len; i++)
            args->items[i] = infer_cast(args->items[i], ft);
        return infer_mkcall(e, B_COMPLEX, args, ty_scalar(f32 ? TY_COMPLEX64 : TY_COMPLEX128));
    }
    case B_LEN: {
        if ((bad = infer_arity(cx, e, "len", 1, 1, args->len)))
            return bad;
        Type *a = args->items[0]->type;
        if (a->kind == TY_TUPLE)
            return infer_const(e->loc, (Value){.type = ty_scalar(TY_INT64), .i = a->nelts});
        if (a->kind != TY_ARRAY)
            return infer_fail(cx, e->loc, "in %s: len() of a %s", infer_fname(cx), a->name), infer_unknown(e);
        return infer_mkcall(e, B_LEN, args, ty_scalar(TY_INT64));
    }
    case B_POW: {
        if ((bad = infer_arity(cx, e, "pow", 2, 2, args->len)))
            return bad;
        Node *fake = new_binary(e->loc, OP_POW, e->call.args.items[0], e->call.args.items[1]);
        return infer_binary(cx, fake, args->items[0], args->items[1]);
    }
    default:
        return infer_fail(cx, e->loc, "in %s: %s() is not supported here", infer_fname(cx), builtin_name(b)), infer_unknown(e);
    }
}

