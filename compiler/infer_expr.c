/* infer_expr.c - typing expressions (infer.c drives it): literals, names,
 * operators with Numba's promotion rules, comparisons, subscripts and
 * attributes.  Calls are in infer_call.c. */
#include "ufnc.h"

#include <string.h>

/* ---- expressions ------------------------------------------------------------------ */

/* A literal becomes a typed constant: the emitters see numbers in one form
 * only (N_CONST).  An int literal is int64, or uint64 from 2**63 (Numba's
 * typeof); ints and floats are Python numbers ("weak", NEP 50), True and
 * False and imaginary literals are not, as ufnc has always typed them. */
static Node *literal(Infer *cx, Node *e)
{
    Value v = {.type = NULL};
    switch (e->kind) {
    case N_INT:
        if (e->intlit.too_big)
            return infer_fail(cx, e->loc, "in %s: integer literal does not fit in 64 bits", infer_fname(cx)), infer_unknown(e);
        v.type = ty_scalar(e->intlit.value > INT64_MAX ? TY_UINT64 : TY_INT64);
        v.u = e->intlit.value;
        v.weak = true;
        break;
    case N_FLOAT:
        v = (Value){.type = ty_scalar(TY_FLOAT64), .weak = true, .f = e->floatlit.value};
        break;
    case N_IMAG:
        v = (Value){.type = ty_scalar(TY_COMPLEX128)};
        v.c[1] = e->floatlit.value;
        break;
    case N_TRUE:
    case N_FALSE:
        v = (Value){.type = ty_scalar(TY_BOOL), .i = e->kind == N_TRUE};
        break;
    case N_NONE:
        return infer_typed(new_node(N_NONE, e->loc), ty_none());
    default:
        unreachable();
    }
    return infer_const(e->loc, v);
}

/* NumPy functions that make arrays: kernels cannot allocate. */
static bool numpy_allocator(const char *name)
{
    static const char *const names[] = {"zeros", "ones", "empty", "full", "array", "arange", "linspace",
                                        "zeros_like", "ones_like", "empty_like", "full_like", "asarray",
                                        "copy", "eye", "identity"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(names[i], name) == 0)
            return true;
    return false;
}

/* Names the function binds in a way ufn refuses (a nested def, an import
 * inside the function): already reported where they are bound. */
static bool bound_by_refused_stmt(const NodeList *body, const char *name)
{
    for (int i = 0; i < body->len; i++) {
        const Node *s = body->items[i];
        switch (s->kind) {
        case N_FUNCDEF:
            if (s->funcdef.name == name)
                return true;
            break;
        case N_IMPORT:
            if ((s->import.alias ? s->import.alias : s->import.module) == name
                || (!s->import.alias && strncmp(s->import.module, name, strlen(name)) == 0
                    && s->import.module[strlen(name)] == '.'))
                return true;
            break;
        case N_IMPORTFROM:
            for (int k = 0; k < s->importfrom.names.len; k++) {
                const Node *n = s->importfrom.names.items[k];
                if ((n->name.alias ? n->name.alias : n->name.id) == name)
                    return true;
            }
            break;
        case N_IF:
            if (bound_by_refused_stmt(&s->ifstmt.then, name) || bound_by_refused_stmt(&s->ifstmt.orelse, name))
                return true;
            break;
        case N_WHILE:
            if (bound_by_refused_stmt(&s->whilestmt.body, name))
                return true;
            break;
        case N_FOR:
            if (bound_by_refused_stmt(&s->forstmt.body, name))
                return true;
            break;
        default:
            break;
        }
    }
    return false;
}

Node *infer_name(Infer *cx, Node *e)
{
    Sym s;
    if (!infer_resolve(cx, e, &s)) {
        if (e->kind == N_ATTR) {
            Sym base;
            Node *v = e->attr.value;
            if (v->kind != N_NAME && v->kind != N_ATTR)      /* 'text'.upper, f(x).real, (a + b).x */
                return infer_fail(cx, e->loc, "in %s: attribute '%s' of this expression is not supported in ufn",
                               infer_fname(cx), e->attr.attr), infer_unknown(e);
            if (!infer_resolve(cx, v, &base))
                return infer_name(cx, v);     /* math.sqrt without 'import math': name 'math' */
            const char *what = dotted_name(e);
            if (base.kind == SYM_MODULE && base.module == MOD_NUMPY && numpy_allocator(e->attr.attr))
                return infer_fail(cx, e->loc, "in %s: %s() makes an array, and kernels cannot allocate; %s",
                               infer_fname(cx), what ? what : e->attr.attr,
                               cx->inst->func->kind == FK_CUDA_KERNEL
                                   ? "pass the array in as a kernel argument, or use cuda.local.array"
                                   : "pass the array in as a @guvectorize argument"), infer_unknown(e);
            if (base.kind == SYM_MODULE)
                return infer_fail(cx, e->loc, "in %s: '%s' is not supported in ufn ('%s' has no attribute '%s' that ufn knows)",
                               infer_fname(cx), what ? what : e->attr.attr, module_name(base.module), e->attr.attr),
                       infer_unknown(e);
        }
        if (e->kind == N_NAME && bound_by_refused_stmt(&cx->inst->func->def->funcdef.body, e->name.id)) {
            cx->inst->failed = cx->inst->failed || cx->final;
            return infer_unknown(e);
        }
        return infer_fail(cx, e->loc, "in %s: name '%s' is not defined", infer_fname(cx),
                       e->kind == N_NAME ? e->name.id : e->attr.attr), infer_unknown(e);
    }
    switch (s.kind) {
    case SYM_LOCAL: {
        Node *n = new_name(e->loc, s.var->name);
        n->name.sym = arena_alloc(sizeof(Sym));
        *n->name.sym = s;
        if (!s.var->type && cx->final && s.var->failed)
            return infer_unknown(e);
        if (!s.var->type && cx->final)
            return infer_fail(cx, e->loc, "in %s: variable '%s' is used before it has a value",
                           infer_fname(cx), s.var->name), infer_unknown(e);
        return infer_typed(n, s.var->type);
    }
    case SYM_CONST:
        if (!s.value.type)
            return infer_fail(cx, e->loc, "in %s: '%s' is a string, which kernels cannot use", infer_fname(cx),
                           dotted_name(e) ? dotted_name(e) : s.name), infer_unknown(e);
        return infer_const(e->loc, s.value);
    case SYM_FUNC:
        return infer_fail(cx, e->loc, "in %s: function '%s' can only be called, not used as a value",
                       infer_fname(cx), s.name), infer_unknown(e);
    case SYM_MODULE:
        return infer_fail(cx, e->loc, "in %s: module '%s' is not a value", infer_fname(cx),
                       module_name(s.module)), infer_unknown(e);
    case SYM_BUILTIN:
        if (s.builtin.id == B_CUDA && cuda_fns[s.builtin.cuda].min < 0)
            return infer_cuda_value(cx, e, s.builtin.cuda);     /* cuda.threadIdx.x */
        return infer_fail(cx, e->loc, "in %s: '%s' can only be called", infer_fname(cx), s.name), infer_unknown(e);
    default:
        return infer_fail(cx, e->loc, "in %s: '%s' can only be called", infer_fname(cx), s.name), infer_unknown(e);
    }
}

/* The value of an integer literal under signs as written, -(-5) or
 * -9223372036854775808: CPython folds it into one constant before Numba
 * types it, so it is typed by its value (int64, else uint64, else an error)
 * and not computed in the operand's type.  False for anything else. */
static bool signed_literal(const Node *e, __int128 *v)
{
    if (e->kind == N_INT) {
        *v = e->intlit.value;
        return !e->intlit.too_big;
    }
    if (e->kind == N_UNARY && (e->unary.op == OP_NEG || e->unary.op == OP_POS) && signed_literal(e->unary.operand, v)) {
        *v = e->unary.op == OP_NEG ? -*v : *v;
        return true;
    }
    return false;
}

static Node *unary(Infer *cx, Node *e)
{
    __int128 exact;
    if (e->unary.op == OP_NEG && signed_literal(e, &exact)) {
        if (exact < INT64_MIN || exact > (__int128)UINT64_MAX)
            return infer_fail(cx, e->loc, "in %s: integer literal does not fit in 64 bits", infer_fname(cx)),
                   infer_unknown(e);
        Value v = {.type = ty_scalar(exact > INT64_MAX ? TY_UINT64 : TY_INT64), .weak = true};
        if (exact > INT64_MAX)
            v.u = (uint64_t)exact;
        else
            v.i = (int64_t)exact;
        return infer_const(e->loc, v);
    }
    Node *a = infer_expr(cx, e->unary.operand);
    if (!a->type)
        return infer_unknown(e);
    if (e->unary.op == OP_NOT)
        return infer_typed(new_unary(e->loc, OP_NOT, infer_truth(cx, e->unary.operand)), ty_scalar(TY_BOOL));
    if (!ty_is_scalar(a->type))
        return infer_fail(cx, e->loc, "in %s: bad operand type for unary '%s': %s", infer_fname(cx),
                       infer_opname(e->unary.op), a->type->name), infer_unknown(e);
    Type *t = a->type;
    if (e->unary.op == OP_INVERT) {
        if (!ty_is_int(t) && !ty_is_bool(t))
            return infer_fail(cx, e->loc, "in %s: '~' needs an integer, not %s", infer_fname(cx), t->name), infer_unknown(e);
        if (ty_is_bool(t))        /* ~True is False, as for NumPy's bool (and Numba's) */
            return infer_typed(new_unary(e->loc, OP_NOT, a), t);
        t = ty_arith(t, t);
    } else if (ty_is_int(t) || ty_is_bool(t))
        t = ty_arith(t, t);
    /* -2 is a literal: fold it so constants stay readable and exact */
    if (infer_is_literal(a) && e->unary.op != OP_INVERT) {
        Value v = value_cast(infer_literal_value(a), t);
        v.weak = infer_is_weak(a);
        if (e->unary.op == OP_NEG) {
            if (ty_is_float(t)) v.f = -v.f;
            else if (ty_is_complex(t)) { v.c[0] = -v.c[0]; v.c[1] = -v.c[1]; }
            else if (ty_is_unsigned(t)) v.u = 0 - v.u;
            else v.i = (int64_t)(0 - (uint64_t)v.i);
        }
        return infer_const(e->loc, v);
    }
    return infer_typed(new_unary(e->loc, e->unary.op, infer_cast(a, t)), t);
}

static Node *compare(Infer *cx, Node *e)
{
    int n = e->compare.n;
    Node *out = new_compare(e->loc, NULL);
    Node **ops = arena_alloc(sizeof(Node *) * (size_t)(n + 1));
    Type **links = arena_alloc(sizeof(Type *) * (size_t)n);
    bool ok = true;
    for (int i = 0; i <= n; i++) {
        ops[i] = infer_expr(cx, e->compare.operands[i]);
        ok = ok && ops[i]->type;
    }
    if (!ok)
        return infer_unknown(e);
    for (int i = 0; i < n; i++) {
        Op op = e->compare.ops[i];
        Type *a = ops[i]->type, *b = ops[i + 1]->type;
        if (op == OP_IS || op == OP_ISNOT || op == OP_IN || op == OP_NOTIN)
            return infer_fail(cx, e->loc, "in %s: '%s' is not supported in ufn%s", infer_fname(cx), infer_opname(op),
                           op == OP_IS || op == OP_ISNOT ? " (kernels have no None or objects: compare numbers with == or !=)"
                                                          : ""), infer_unknown(e);
        if (!ty_is_scalar(a) || !ty_is_scalar(b))
            return infer_fail(cx, e->loc, "in %s: cannot compare %s with %s", infer_fname(cx), a->name, b->name),
                   infer_unknown(e);
        if ((ty_is_complex(a) || ty_is_complex(b)) && op != OP_EQ && op != OP_NE)
            return infer_fail(cx, e->loc, "in %s: complex numbers are not ordered ('%s')", infer_fname(cx), infer_opname(op)),
                   infer_unknown(e);
        /* NumPy's promotion, as Numba compares: uint64 with int64 in float64 */
        links[i] = ty_promote_numpy(a, b);
    }
    out->compare.n = n;
    out->compare.ops = e->compare.ops;
    out->compare.operands = ops;
    out->compare.link_types = links;
    /* Middle operands of a chain are evaluated once. */
    if (n > 1 && cx->final) {
        out->compare.tmps = arena_alloc(sizeof(Var *) * (size_t)(n - 1));
        for (int i = 1; i < n; i++)
            if (!infer_is_simple(ops[i]))
                out->compare.tmps[i - 1] = infer_new_temp(cx, ops[i]->type);
    }
    return infer_typed(out, ty_scalar(TY_BOOL));
}

static Node *boolop(Infer *cx, Node *e)
{
    Node *l = infer_expr(cx, e->boolop.lhs), *r = infer_expr(cx, e->boolop.rhs);
    if (!l->type || !r->type)
        return infer_unknown(e);
    Node *n = new_boolop(e->loc, e->boolop.op, NULL, NULL);
    if (ty_is_bool(l->type) && ty_is_bool(r->type)) {
        n->boolop.lhs = l;
        n->boolop.rhs = r;
        return infer_typed(n, l->type);
    }
    /* Python returns an operand: `x or 0.5` is x when x is true. */
    Type *t = ty_unify(l->type, r->type);
    if (!t || !ty_is_scalar(t))
        return infer_fail(cx, e->loc, "in %s: operands of '%s' have types %s and %s that cannot be unified",
                       infer_fname(cx), infer_opname(e->boolop.op), l->type->name, r->type->name), infer_unknown(e);
    n->boolop.lhs = infer_cast(l, t);
    n->boolop.rhs = infer_cast(r, t);
    if (cx->final && !infer_is_simple(n->boolop.lhs))
        n->boolop.tmp = infer_new_temp(cx, t);
    return infer_typed(n, t);
}

static Node *ifexp(Infer *cx, Node *e)
{
    Node *c = infer_truth(cx, e->ifexp.cond);
    Node *a = infer_expr(cx, e->ifexp.then), *b = infer_expr(cx, e->ifexp.orelse);
    if (!c->type || !a->type || !b->type)
        return infer_unknown(e);
    Type *t = ty_unify(a->type, b->type);
    if (!t)
        return infer_fail(cx, e->loc, "in %s: the branches of the conditional expression have types %s and %s",
                       infer_fname(cx), a->type->name, b->type->name), infer_unknown(e);
    return infer_typed(new_ifexp(e->loc, c, infer_cast(a, t), infer_cast(b, t)), t);
}

/* The scalars a value of type t holds: 1, or a tuple's, nested ones too. */
static int values_in(const Type *t)
{
    if (t->kind != TY_TUPLE)
        return 1;
    int n = 0;
    for (int i = 0; i < t->nelts; i++)
        n += values_in(t->elts[i]);
    return n;
}

/* A tuple holds at most MAX_TUPLE values, nested tuples included: a
 * recursion that nests its argument deeper at every call, f((x, x)), would
 * otherwise make types (and their names) twice as large at every level. */
#define MAX_TUPLE 64

static Node *tuple_expr(Infer *cx, Node *e)
{
    if (e->kind == N_LIST)
        return infer_fail(cx, e->loc, "in %s: lists are not supported (use a tuple)", infer_fname(cx)), infer_unknown(e);
    NodeList elts = {0};
    Type *types[MAX_TUPLE];
    if (e->tuple.elts.len > MAX_TUPLE)
        return infer_fail(cx, e->loc, "in %s: tuple too long", infer_fname(cx)), infer_unknown(e);
    bool ok = true;
    int values = 0;
    for (int i = 0; i < e->tuple.elts.len; i++) {
        Node *x = infer_expr(cx, e->tuple.elts.items[i]);
        list_push(&elts, x);
        types[i] = x->type;
        ok = ok && x->type;
        if (x->type && (x->type->kind == TY_ARRAY || x->type->kind == TY_NONE))
            return infer_fail(cx, x->loc, "in %s: a tuple cannot hold %s", infer_fname(cx),
                           x->type->kind == TY_ARRAY ? "an array" : "None"), infer_unknown(e);
        values += x->type ? values_in(x->type) : 0;
    }
    if (values > MAX_TUPLE)
        return infer_fail(cx, e->loc, "in %s: a tuple of more than %d values, nested tuples included, is not supported",
                          infer_fname(cx), MAX_TUPLE), infer_unknown(e);
    if (!ok)
        return infer_unknown(e);
    return infer_typed(new_tuple(e->loc, elts), ty_tuple(elts.len, types));
}

/* The integer value of a constant index expression, for tuples. */
static bool const_index(Node *idx, int64_t *out)
{
    if (idx->kind == N_CONST && ty_is_int(idx->type)) {
        *out = ty_is_unsigned(idx->type) ? (int64_t)idx->konst.v.u : idx->konst.v.i;
        return true;
    }
    return false;
}

static Node *subscript(Infer *cx, Node *e)
{
    Node *base = infer_expr(cx, e->subscript.value);
    if (!base->type)
        return infer_unknown(e);
    if (base->type->kind != TY_ARRAY && base->type->kind != TY_TUPLE) {
        const char *name = dotted_name(e->subscript.value);
        bool key = e->subscript.index.len == 1 && e->subscript.index.items[0]->kind == N_STR;
        return infer_fail(cx, e->loc, "in %s: %s%s%s is a %s, which cannot be indexed%s", infer_fname(cx), name ? "'" : "",
                       name ? name : "the value", name ? "'" : "", base->type->name,
                       key ? " (ufn has no dictionaries or records)" : ""), infer_unknown(e);
    }
    NodeList idx = {0};
    bool ok = true;
    for (int i = 0; i < e->subscript.index.len; i++) {
        Node *ix = e->subscript.index.items[i];
        if (ix->kind == N_SLICE)
            return infer_fail(cx, ix->loc, "in %s: slicing is not supported; index with one integer per dimension",
                           infer_fname(cx)), infer_unknown(e);
        Node *t = infer_expr(cx, ix);
        ok = ok && t->type;
        list_push(&idx, t);
    }
    if (!ok)
        return infer_unknown(e);
    Type *bt = base->type;
    if (bt->kind == TY_TUPLE) {
        int64_t k;
        if (idx.len != 1 || !const_index(idx.items[0], &k))
            return infer_fail(cx, e->loc, "in %s: a tuple can only be indexed by an integer constant", infer_fname(cx)),
                   infer_unknown(e);
        if (k < 0)
            k += bt->nelts;
        if (k < 0 || k >= bt->nelts)
            return infer_fail(cx, e->loc, "in %s: tuple index out of range (the tuple has %d elements)", infer_fname(cx),
                           bt->nelts), infer_unknown(e);
        if (base->kind == N_ATTR && base->attr.which == ATTR_SHAPE) {
            /* a.shape[k]: the one extent, not the tuple of all of them */
            Node *n = new_attr(e->loc, base->attr.value, base->attr.attr);
            n->attr.which = ATTR_EXTENT;
            n->attr.axis = (int)k;
            return infer_typed(n, bt->elts[k]);
        }
        NodeList one = {0};
        list_push(&one, infer_const(e->loc, value_cast((Value){.type = ty_scalar(TY_INT64), .i = k}, ty_scalar(TY_INT64))));
        return infer_typed(new_subscript(e->loc, base, one), bt->elts[k]);
    }
    if (bt->kind != TY_ARRAY)
        return infer_fail(cx, e->loc, "in %s: a %s cannot be indexed", infer_fname(cx), bt->name), infer_unknown(e);
    if (idx.len != bt->ndim)
        return infer_fail(cx, e->loc, "in %s: '%s' has %d dimension%s but is indexed with %d subscript%s; index with one integer per dimension",
                       infer_fname(cx), e->subscript.value->kind == N_NAME ? e->subscript.value->name.id : "array",
                       bt->ndim, bt->ndim == 1 ? "" : "s", idx.len, idx.len == 1 ? "" : "s"), infer_unknown(e);
    for (int i = 0; i < idx.len; i++) {
        Type *it = idx.items[i]->type;
        if (!ty_is_int(it) && !ty_is_bool(it)) {
            const Node *src = e->subscript.index.items[i];
            bool div = src->kind == N_BINARY && src->binary.op == OP_DIV;
            return infer_fail(cx, idx.items[i]->loc, "in %s: array index must be an integer, not %s%s", infer_fname(cx),
                           it->name, div ? " ('/' divides into a float: use '//')" : ""), infer_unknown(e);
        }
        idx.items[i] = infer_cast(idx.items[i], ty_scalar(TY_INT64));
    }
    return infer_typed(new_subscript(e->loc, base, idx), bt->elt);
}

static Node *attribute(Infer *cx, Node *e)
{
    Sym s;
    /* math.pi, np.float32, ...: a module's name, not a value's attribute */
    if (infer_resolve(cx, e, &s) || (infer_resolve(cx, e->attr.value, &s) && s.kind == SYM_MODULE))
        return infer_name(cx, e);
    Node *base = infer_expr(cx, e->attr.value);
    if (!base->type)
        return infer_unknown(e);
    Type *bt = base->type;
    const char *a = e->attr.attr;
    Node *n = new_attr(e->loc, base, a);
    if (bt->kind == TY_ARRAY) {
        if (strcmp(a, "shape") == 0 || strcmp(a, "strides") == 0) {
            Type *elts[UFN_CORE_MAXDIMS];
            for (int i = 0; i < bt->ndim; i++)
                elts[i] = ty_scalar(TY_INT64);
            n->attr.which = a[1] == 'h' ? ATTR_SHAPE : ATTR_STRIDES;
            return infer_typed(n, ty_tuple(bt->ndim, elts));
        }
        if (strcmp(a, "size") == 0) {
            n->attr.which = ATTR_SIZE;
            return infer_typed(n, ty_scalar(TY_INT64));
        }
        if (strcmp(a, "ndim") == 0)
            return infer_const(e->loc, (Value){.type = ty_scalar(TY_INT64), .i = bt->ndim});
    } else if (ty_is_complex(bt)) {
        if (strcmp(a, "real") == 0 || strcmp(a, "imag") == 0) {
            n->attr.which = a[0] == 'r' ? ATTR_REAL : ATTR_IMAG;
            return infer_typed(n, ty_scalar(bt->kind == TY_COMPLEX64 ? TY_FLOAT32 : TY_FLOAT64));
        }
    } else if (ty_is_scalar(bt) && (strcmp(a, "real") == 0 || strcmp(a, "imag") == 0)) {
        if (strcmp(a, "real") == 0)
            return base;
        return infer_cast(infer_const(e->loc, (Value){.type = ty_scalar(TY_INT64), .i = 0}), bt);
    }
    return infer_fail(cx, e->loc, "in %s: %s has no attribute '%s' that ufn supports", infer_fname(cx), bt->name, a),
           infer_unknown(e);
}

/* ---- calls ---- */

/* An argument of a numba.cuda function or of print in a kernel: typed,
 * but a string literal or a dtype name (float32, np.int64) as written. */
static Node *cuda_argument(Infer *cx, Node *a)
{
    Sym s;
    if (a->kind == N_STR || (infer_resolve(cx, a, &s) && s.kind == SYM_BUILTIN && s.builtin.id == B_CAST))
        return a;
    return infer_expr(cx, a);
}

/* The callee is resolved and the arguments typed here; infer_call.c types
 * the call itself. */
static Node *call(Infer *cx, Node *e)
{
    Node *fn = e->call.func;
    /* Methods on values: z.conjugate() */
    if (fn->kind == N_ATTR && strcmp(fn->attr.attr, "conjugate") == 0) {
        Sym s;
        if (!infer_resolve(cx, fn, &s)) {
            Node *z = infer_expr(cx, fn->attr.value);
            if (!z->type)
                return infer_unknown(e);
            if (e->call.args.len)
                return infer_fail(cx, e->loc, "in %s: conjugate() takes no arguments", infer_fname(cx)), infer_unknown(e);
            if (!ty_is_scalar(z->type))
                return infer_fail(cx, e->loc, "in %s: %s has no conjugate(); index the array elements", infer_fname(cx),
                               z->type->name), infer_unknown(e);
            if (!ty_is_complex(z->type))
                return z;             /* a real number is its own conjugate */
            NodeList one = list1(z);
            return infer_mkcall(e, B_CONJUGATE, &one, z->type);
        }
    }
    Sym s;
    if (!infer_resolve(cx, fn, &s)) {
        if (fn->kind == N_NAME || fn->kind == N_ATTR)
            return infer_name(cx, fn);    /* reports the unknown name */
        return infer_fail(cx, e->loc, "in %s: only named functions can be called", infer_fname(cx)), infer_unknown(e);
    }
    bool print = s.kind == SYM_BUILTIN && s.builtin.id == B_UNSUPPORTED && !strcmp(s.name, "print")
                 && cx->inst->func->kind == FK_CUDA_KERNEL;
    if ((s.kind == SYM_BUILTIN && s.builtin.id == B_CUDA) || print) {
        /* infer_cuda.c: string literals and dtype names as written */
        NodeList cargs = {0}, ckw = {0};
        for (int i = 0; i < e->call.args.len; i++)
            list_push(&cargs, cuda_argument(cx, e->call.args.items[i]));
        for (int i = 0; i < e->call.kwargs.len; i++) {
            Node *kw = e->call.kwargs.items[i];
            list_push(&ckw, new_keyword(kw->loc, kw->keyword.name, cuda_argument(cx, kw->keyword.value)));
        }
        return print ? infer_print(cx, e, &cargs) : infer_cuda_call(cx, e, s.builtin.cuda, &cargs, &ckw);
    }
    if (e->call.kwargs.len)
        return infer_fail(cx, e->call.kwargs.items[0]->loc, "in %s: keyword argument '%s=' is not supported in calls; pass it by position",
                       infer_fname(cx), e->call.kwargs.items[0]->keyword.name), infer_unknown(e);
    NodeList args = {0};
    bool ok = true;
    for (int i = 0; i < e->call.args.len; i++) {
        Node *a = infer_expr(cx, e->call.args.items[i]);
        ok = ok && a->type;
        list_push(&args, a);
    }
    switch (s.kind) {
    case SYM_FUNC:
        if (!ok)
            return infer_unknown(e);
        return infer_helper_call(cx, e, s.func, &args);
    case SYM_BUILTIN:
        if (s.builtin.id == B_UNSUPPORTED)
            return infer_fail(cx, e->loc, "in %s: %s() is not supported in ufn", infer_fname(cx), s.name), infer_unknown(e);
        if (s.builtin.id == B_RANGE)
            return infer_fail(cx, e->loc, "in %s: range() can only be used in a for loop", infer_fname(cx)), infer_unknown(e);
        if (!ok)
            return infer_unknown(e);
        return infer_builtin_call(cx, e, s.builtin, &args);
    case SYM_LOCAL:
        return infer_fail(cx, e->loc, "in %s: '%s' is a variable, not a function", infer_fname(cx), s.name), infer_unknown(e);
    case SYM_DECORATOR:
        return infer_fail(cx, e->loc, "in %s: '%s' cannot be called inside a kernel", infer_fname(cx), s.name), infer_unknown(e);
    default:
        return infer_fail(cx, e->loc, "in %s: '%s' is %s, not a function", infer_fname(cx), s.name,
                       s.kind == SYM_MODULE ? "a module" : s.kind == SYM_CONST ? "a constant" : "not callable"),
               infer_unknown(e);
    }
}

/* A condition: Python truthiness, as an explicit bool. */
Node *infer_truth(Infer *cx, Node *e)
{
    Node *t = infer_expr(cx, e);
    if (!t->type)
        return t;
    if (!ty_is_scalar(t->type))
        return infer_fail(cx, e->loc, "in %s: %s has no truth value here", infer_fname(cx), t->type->name),
               infer_unknown(e);
    return infer_cast(t, ty_scalar(TY_BOOL));
}

Node *infer_expr(Infer *cx, Node *e)
{
    switch (e->kind) {
    case N_INT:
    case N_FLOAT:
    case N_IMAG:
    case N_TRUE:
    case N_FALSE:
    case N_NONE:
        return literal(cx, e);
    case N_STR:
        return infer_fail(cx, e->loc, "in %s: strings are not supported in expressions", infer_fname(cx)), infer_unknown(e);
    case N_NAME:
        return infer_name(cx, e);
    case N_ATTR:
        return attribute(cx, e);
    case N_UNARY:
        return unary(cx, e);
    case N_BINARY: {
        Node *l = infer_expr(cx, e->binary.lhs), *r = infer_expr(cx, e->binary.rhs);
        return infer_binary(cx, e, l, r);
    }
    case N_BOOLOP:
        return boolop(cx, e);
    case N_COMPARE:
        return compare(cx, e);
    case N_IFEXP:
        return ifexp(cx, e);
    case N_CALL:
        return call(cx, e);
    case N_SUBSCRIPT:
        return subscript(cx, e);
    case N_TUPLE:
    case N_LIST:
        return tuple_expr(cx, e);
    case N_SLICE:
        return infer_fail(cx, e->loc, "in %s: slices are not supported", infer_fname(cx)), infer_unknown(e);
    case N_KEYWORD:
        return infer_fail(cx, e->loc, "in %s: unexpected keyword argument", infer_fname(cx)), infer_unknown(e);
    default:
        return infer_fail(cx, e->loc, "in %s: a %s is not an expression", infer_fname(cx), node_kind_names[e->kind]),
               infer_unknown(e);
    }
}

