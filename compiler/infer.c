/* infer.c - type inference of one function instance, following Numba:
 * its statements (infer_expr.c types expressions, infer_call.c calls, and
 * infer_node.c holds what the three share).
 *
 * Every local has ONE type per instance: the unification of everything
 * assigned to it (acc = 0; acc += x_f32 makes acc float64).  Because a use
 * can come before a later, wider assignment (loops), the body is typed
 * repeatedly, silently, until no variable widens; a final pass then reports
 * errors and builds the typed copy of the body, with an explicit N_CAST
 * wherever a value changes type, so the code generators never infer.
 *
 * The silent passes are infer_silent, which the instance pass (instance.c)
 * runs until the types of every instance stop changing; the final pass is
 * infer_bodies, run once for every instance the kernels reach, callees
 * first.  In a silent pass an expression whose operand has no type yet (or
 * calls a helper whose return type is not known yet) gets a NULL type; NULL
 * propagates quietly.  In the final pass a NULL type means an error was
 * already reported. */
#include "ufnc.h"

#include <string.h>

#define MAX_PASSES 32

static void collect_target(Instance *inst, Node *t)
{
    if (t->kind == N_NAME) {
        bool known = false;
        for (int i = 0; i < inst->nvars; i++)
            known = known || inst->vars[i]->name == t->name.id;
        if (!known)
            infer_add_var(inst, t->name.id, t->loc);
        for (int i = 0; i < inst->nvars; i++)
            if (inst->vars[i]->name == t->name.id)
                inst->vars[i]->ndefs++;
    } else if (t->kind == N_TUPLE || t->kind == N_LIST) {
        for (int i = 0; i < t->tuple.elts.len; i++)
            collect_target(inst, t->tuple.elts.items[i]);
    }
}

/* Python: a name assigned anywhere in a function is local to all of it. */
static void collect_locals(Instance *inst, NodeList *body)
{
    for (int i = 0; i < body->len; i++) {
        Node *s = body->items[i];
        switch (s->kind) {
        case N_ASSIGN:
            for (int k = 0; k < s->assign.targets.len; k++)
                collect_target(inst, s->assign.targets.items[k]);
            break;
        case N_AUGASSIGN:
            collect_target(inst, s->augassign.target);
            break;
        case N_FOR:
            collect_target(inst, s->forstmt.target);
            collect_locals(inst, &s->forstmt.body);
            collect_locals(inst, &s->forstmt.orelse);
            break;
        case N_IF:
            collect_locals(inst, &s->ifstmt.then);
            collect_locals(inst, &s->ifstmt.orelse);
            break;
        case N_WHILE:
            collect_locals(inst, &s->whilestmt.body);
            collect_locals(inst, &s->whilestmt.orelse);
            break;
        default:
            break;
        }
    }
}

static void widen(Infer *cx, Var *v, Type *t, Loc loc)
{
    if (!t)
        return;
    if (t->kind == TY_NONE) {
        infer_fail(cx, loc, "in %s: cannot assign None to variable '%s'", infer_fname(cx), v->name);
        return;
    }
    Type *nt = v->type ? ty_unify(v->type, t) : t;
    if (!nt) {
        infer_fail(cx, loc, "in %s: variable '%s' holds %s here but %s elsewhere; they cannot be unified",
                infer_fname(cx), v->name, t->name, v->type->name);
        return;
    }
    if (nt != v->type) {
        v->type = nt;
        cx->changed = true;
    }
}

/* ---- statements ------------------------------------------------------------------------- */

static void block(Infer *cx, NodeList *in, NodeList *out);
static void infer_mark_failed(Infer *cx, Node *t);

/* Assign the typed value `v` (of type vt) to target t, appending typed
 * statements to out.  Tuple targets unpack through a temporary. */
static void assign_to(Infer *cx, Node *t, Node *v, Loc loc, NodeList *out)
{
    switch (t->kind) {
    case N_NAME: {
        Var *var = infer_find_var(cx, t->name.id);
        if (!var)
            die("unknown local %s", t->name.id);
        if (!v->type)
            return;
        if (v->type->kind == TY_ARRAY && var->type && var->type != v->type) {
            infer_fail(cx, loc, "in %s: '%s' refers to arrays of different types", infer_fname(cx), var->name);
            return;
        }
        widen(cx, var, v->type, loc);
        if (!cx->final || !var->type)
            return;
        Node *target = new_name(t->loc, var->name);
        target->name.sym = arena_alloc(sizeof(Sym));
        target->name.sym->kind = SYM_LOCAL;
        target->name.sym->var = var;
        infer_typed(target, var->type);
        NodeList targets = {0};
        list_push(&targets, target);
        list_push(out, new_assign(loc, targets, infer_cast(v, var->type)));
        return;
    }
    case N_TUPLE:
    case N_LIST: {
        int n = t->tuple.elts.len;
        if (!v->type)
            return;
        if (v->type->kind != TY_TUPLE || v->type->nelts != n) {
            infer_fail(cx, loc, "in %s: cannot unpack %s into %d target%s", infer_fname(cx), v->type->name, n,
                    n == 1 ? "" : "s");
            infer_mark_failed(cx, t);
            return;
        }
        /* Evaluate the whole right side first, as Python does (a, b = b, a). */
        Node *src = v;
        if (cx->final) {
            Var *tmp = infer_new_temp(cx, v->type);
            Node *tn = infer_typed(new_name(loc, tmp->name), tmp->type);
            tn->name.sym = arena_alloc(sizeof(Sym));
            tn->name.sym->kind = SYM_LOCAL;
            tn->name.sym->var = tmp;
            NodeList targets = {0};
            list_push(&targets, tn);
            list_push(out, new_assign(loc, targets, v));
            src = tn;
        }
        for (int i = 0; i < n; i++) {
            NodeList one = {0};
            list_push(&one, infer_const(loc, (Value){.type = ty_scalar(TY_INT64), .i = i}));
            Node *elt = infer_typed(new_subscript(loc, src, one), v->type->elts[i]);
            assign_to(cx, t->tuple.elts.items[i], elt, loc, out);
        }
        return;
    }
    case N_SUBSCRIPT: {
        Node *target = infer_expr(cx, t);
        if (!target->type || !v->type)
            return;
        Node *base = target->subscript.value;
        if (base->type->kind != TY_ARRAY) {
            infer_fail(cx, t->loc, "in %s: %s cannot be assigned to by index (tuples cannot be changed)", infer_fname(cx),
                    base->type->name);
            return;
        }
        if (!ty_can_convert(v->type, target->type)) {
            infer_fail(cx, loc, "in %s: cannot store %s into an array of %s%s", infer_fname(cx), v->type->name,
                    target->type->name,
                    ty_is_complex(v->type) && ty_is_scalar(target->type) ? " (take .real, .imag or abs() of it)" : "");
            return;
        }
        if (cx->final) {
            NodeList targets = {0};
            list_push(&targets, target);
            list_push(out, new_assign(loc, targets, infer_cast(v, target->type)));
        }
        return;
    }
    case N_ATTR:
        infer_fail(cx, t->loc, "in %s: assigning to an attribute is not supported", infer_fname(cx));
        return;
    default:
        infer_fail(cx, t->loc, "in %s: cannot assign to a %s", infer_fname(cx), node_kind_names[t->kind]);
    }
}

/* After an error in what is assigned: the targets' later uses are not
 * errors of their own. */
static void infer_mark_failed(Infer *cx, Node *t)
{
    if (!cx->final)
        return;
    if (t->kind == N_NAME) {
        Var *v = infer_find_var(cx, t->name.id);
        if (v)
            v->failed = true;
    } else if (t->kind == N_TUPLE || t->kind == N_LIST) {
        for (int i = 0; i < t->tuple.elts.len; i++)
            infer_mark_failed(cx, t->tuple.elts.items[i]);
    }
}

/* A typed reference to a local or temporary variable. */
static Node *local_ref(Loc loc, Var *var)
{
    Node *n = infer_typed(new_name(loc, var->name), var->type);
    n->name.sym = arena_alloc(sizeof(Sym));
    n->name.sym->kind = SYM_LOCAL;
    n->name.sym->var = var;
    return n;
}

static void assign_stmt(Infer *cx, Node *s, NodeList *out)
{
    Node *v = infer_expr(cx, s->assign.value);
    if (!v->type)
        for (int i = 0; i < s->assign.targets.len; i++)
            infer_mark_failed(cx, s->assign.targets.items[i]);
    if (v->type && v->type->kind == TY_NONE) {
        infer_fail(cx, s->assign.value->loc, "in %s: cannot assign None", infer_fname(cx));
        return;
    }
    /* a = b = v: every target gets v, as in Python (b is not a copy of a
     * converted to a's type).  v is evaluated once: into a temporary of its
     * own type when it is more than a name or a constant. */
    Node *src = v;
    if (s->assign.targets.len > 1 && cx->final && v->type && !infer_is_simple(v)) {
        Var *tmp = infer_new_temp(cx, v->type);
        NodeList targets = {0};
        list_push(&targets, local_ref(s->loc, tmp));
        list_push(out, new_assign(s->loc, targets, v));
        src = local_ref(s->loc, tmp);
    }
    for (int i = 0; i < s->assign.targets.len; i++)
        assign_to(cx, s->assign.targets.items[i], src, s->loc, out);
}

/* x op= v is x = x op v; for a[i] op= v the index is evaluated once. */
static void augassign_stmt(Infer *cx, Node *s, NodeList *out)
{
    Node *t = s->augassign.target;
    if (t->kind != N_NAME && t->kind != N_SUBSCRIPT) {
        infer_fail(cx, t->loc, "in %s: augmented assignment to %s is not supported", infer_fname(cx),
                t->kind == N_ATTR ? "an attribute" : t->kind == N_TUPLE ? "a tuple" : "this target");
        return;
    }
    Node *target = t;
    if (t->kind == N_SUBSCRIPT && cx->final) {
        /* hoist non-trivial indices into temporaries */
        NodeList idx = {0};
        for (int i = 0; i < t->subscript.index.len; i++) {
            Node *ix = t->subscript.index.items[i];
            if (infer_is_simple(ix) || ix->kind == N_SLICE) {
                list_push(&idx, ix);
                continue;
            }
            Node *tv = infer_expr(cx, ix);
            if (!tv->type)
                return;
            Var *tmp = infer_new_temp(cx, tv->type);
            Node *tn = infer_typed(new_name(ix->loc, tmp->name), tmp->type);
            tn->name.sym = arena_alloc(sizeof(Sym));
            tn->name.sym->kind = SYM_LOCAL;
            tn->name.sym->var = tmp;
            NodeList targets = {0};
            list_push(&targets, tn);
            list_push(out, new_assign(ix->loc, targets, tv));
            /* a reference already resolved to the temporary: no name the
             * body uses can be taken for it */
            Node *ref = new_name(ix->loc, tmp->name);
            ref->name.sym = tn->name.sym;
            list_push(&idx, ref);
        }
        target = new_subscript(t->loc, t->subscript.value, idx);
    }
    Node *bin = new_binary(s->loc, s->augassign.op, target, s->augassign.value);
    Node *v = infer_expr(cx, bin);
    if (!v->type)
        infer_mark_failed(cx, t);
    assign_to(cx, target, v, s->loc, out);
}

/* range(stop), range(start, stop), range(start, stop, step) */
static bool range_args(Infer *cx, Node *iter, NodeList *args, Type **elt)
{
    int n = iter->call.args.len;
    if (n < 1 || n > 3) {
        infer_fail(cx, iter->loc, "in %s: range() takes 1 to 3 arguments (%d given)", infer_fname(cx), n);
        return false;
    }
    Type *t = NULL;
    bool ok = true, small = true;
    for (int i = 0; i < n; i++) {
        Node *a = infer_expr(cx, iter->call.args.items[i]);
        list_push(args, a);
        if (!a->type) {
            ok = false;
            continue;
        }
        if (!ty_is_int(a->type) && !ty_is_bool(a->type)) {
            infer_fail(cx, a->loc, "in %s: range() needs integers, not %s", infer_fname(cx), a->type->name);
            return false;
        }
        /* literals are int64, but a literal next to int32 bounds keeps int32 */
        bool lit = a->kind == N_CONST;
        if (!lit)
            small = small && ty_bits(a->type) <= 32 && ty_is_signed(a->type);
        t = t ? ty_unify(t, a->type) : a->type;
    }
    if (!ok)
        return false;
    bool any_var = false;
    for (int i = 0; i < n; i++)
        any_var = any_var || args->items[i]->kind != N_CONST;
    *elt = any_var && small ? ty_scalar(TY_INT32) : ty_is_unsigned(t) && t->kind == TY_UINT64 ? t : ty_scalar(TY_INT64);
    for (int i = 0; i < n; i++)
        args->items[i] = infer_cast(args->items[i], *elt);
    return true;
}

/* range(n), range(a, n) or range(a, n, s) with constants a >= 0 and s > 0. */
static bool counts_up_from_zero(const Node *iter)
{
    if (iter->kind != N_CALL || iter->call.builtin != B_RANGE)
        return false;
    const NodeList *a = &iter->call.args;
    if (a->len >= 2) {
        const Node *lo = a->items[0];
        if (lo->kind != N_CONST || (ty_is_signed(lo->type) && lo->konst.v.i < 0))
            return false;
    }
    if (a->len == 3) {
        const Node *st = a->items[2];
        if (st->kind != N_CONST || (ty_is_signed(st->type) ? st->konst.v.i <= 0 : st->konst.v.u == 0))
            return false;
    }
    return true;
}

/* A tuple looped over: Numba iterates a homogeneous tuple (UniTuple) only;
 * one of several types needs literal_unroll, which ufn does not have. */
static Node *tuple_iter(Infer *cx, Node *it, Type **elt)
{
    Type *t = it->type;
    if (t->nelts == 0)
        return infer_fail(cx, it->loc, "in %s: cannot loop over an empty tuple", infer_fname(cx));
    for (int k = 1; k < t->nelts; k++)
        if (t->elts[k] != t->elts[0])
            return infer_fail(cx, it->loc,
                              "in %s: can only loop over a tuple whose elements have one type, not %s "
                              "(Numba needs literal_unroll for that, which ufn does not support)",
                              infer_fname(cx), t->name);
    if (t->elts[0]->kind == TY_TUPLE || t->elts[0]->kind == TY_ARRAY)
        return infer_fail(cx, it->loc, "in %s: can only loop over a tuple of scalars, not %s", infer_fname(cx), t->name);
    *elt = t->elts[0];
    return it;
}

/* The typed iterable of a for loop and its element type; NULL after an
 * error (reported in the final pass). */
static Node *loop_iter(Infer *cx, Node *iter, Type **elt)
{
    Sym sym;
    bool builtin = iter->kind == N_CALL && infer_resolve(cx, iter->call.func, &sym) && sym.kind == SYM_BUILTIN;
    if (builtin && sym.builtin.id == B_RANGE) {
        NodeList args = {0};
        if (iter->call.kwargs.len)
            return infer_fail(cx, iter->loc, "in %s: range() takes no keyword arguments", infer_fname(cx));
        if (!range_args(cx, iter, &args, elt))
            return NULL;
        return infer_mkcall(iter, B_RANGE, &args, NULL);
    }
    if (builtin && sym.builtin.id == B_UNSUPPORTED
        && (strcmp(sym.name, "enumerate") == 0 || strcmp(sym.name, "zip") == 0))
        return infer_fail(cx, iter->loc, "in %s: %s() is not supported in ufn; loop over range(len(a)) and index the arrays",
                       infer_fname(cx), sym.name);
    Node *it = infer_expr(cx, iter);
    if (!it->type)
        return NULL;
    if (it->type->kind == TY_TUPLE)
        return tuple_iter(cx, it, elt);
    if (it->type->kind != TY_ARRAY || it->type->ndim != 1)
        return infer_fail(cx, iter->loc, "in %s: can only loop over range(), a one-dimensional array or a tuple, not %s%s",
                       infer_fname(cx), it->type->name,
                       it->type->kind == TY_ARRAY ? " (loop over range(a.shape[0]) and index with a[i, j])" : "");
    *elt = it->type->elt;
    return it;
}

/* A loop whose header is wrong still has its body checked, with the loop
 * variable infer_unknown (and quiet). */
static void for_stmt(Infer *cx, Node *s, NodeList *out)
{
    Node *target = s->forstmt.target;
    bool ok = true;
    if (s->forstmt.orelse.len) {
        infer_fail(cx, s->loc, "in %s: 'else' on a for loop is not supported", infer_fname(cx));
        ok = false;
    }
    Type *elt = NULL;
    Node *typed_iter = loop_iter(cx, s->forstmt.iter, &elt);
    ok = ok && typed_iter;
    if (typed_iter && target->kind != N_NAME) {
        infer_fail(cx, target->loc, "in %s: the loop variable must be a single name", infer_fname(cx));
        ok = false;
    }
    Var *var = target->kind == N_NAME ? infer_find_var(cx, target->name.id) : NULL;
    if (ok && var)
        var->nonneg = var->ndefs == 1 && !var->param && counts_up_from_zero(typed_iter);
    if (ok)
        widen(cx, var, elt, target->loc);
    else
        infer_mark_failed(cx, target);
    NodeList body = {0}, scratch = {0}, none = {0};
    cx->loops++;
    block(cx, &s->forstmt.body, &body);
    cx->loops--;
    block(cx, &s->forstmt.orelse, &scratch);
    if (!cx->final || !ok)
        return;
    Node *tv = infer_typed(new_name(target->loc, var->name), var->type);
    tv->name.sym = arena_alloc(sizeof(Sym));
    tv->name.sym->kind = SYM_LOCAL;
    tv->name.sym->var = var;
    list_push(out, new_for(s->loc, tv, typed_iter, body, none));
}

static void return_stmt(Infer *cx, Node *s, NodeList *out)
{
    Instance *inst = cx->inst;
    Func *f = inst->func;
    Node *v = s->ret.value ? infer_expr(cx, s->ret.value) : NULL;
    if (v && !v->type)
        return;
    if (f->kind == FK_GUVECTORIZE || f->kind == FK_CUDA_KERNEL) {
        if (v && v->type->kind != TY_NONE) {
            infer_fail(cx, s->loc, "in %s: a %s cannot return a value; write to its output array", infer_fname(cx),
                       f->kind == FK_CUDA_KERNEL ? "@cuda.jit kernel" : "@guvectorize function");
            return;
        }
        if (cx->final)
            list_push(out, new_return(s->loc, NULL));
        return;
    }
    Type *vt = v ? v->type : ty_none();
    if (f->kind == FK_VECTORIZE && inst->sig->ret) {
        if (vt->kind == TY_NONE) {
            infer_fail(cx, s->loc, "in %s: 'return' needs a value: the function returns %s", infer_fname(cx),
                    inst->ret->name);
            return;
        }
        if (!ty_can_convert(vt, inst->ret)) {
            infer_fail(cx, s->loc, "in %s: cannot return %s from a function declared to return %s%s", infer_fname(cx),
                    vt->name, inst->ret->name,
                    ty_is_complex(vt) && ty_is_scalar(inst->ret) ? " (take .real, .imag or abs() of it)" : "");
            return;
        }
    } else {
        /* helpers (and vectorize without a declared return type) infer it;
         * a ufunc's element is a value, never None */
        if (f->kind == FK_VECTORIZE && vt->kind == TY_NONE) {
            if (v)
                infer_fail(cx, s->loc, "in %s: a @vectorize function must return a scalar, not None", infer_fname(cx));
            else
                infer_fail(cx, s->loc, "in %s: 'return' needs a value: a @vectorize function returns a scalar",
                           infer_fname(cx));
            return;
        }
        Type *nt = inst->ret ? ty_unify(inst->ret, vt) : vt;
        if (inst->ret && inst->ret->kind == TY_NONE && vt->kind == TY_NONE)
            nt = vt;
        if (!nt) {
            infer_fail(cx, s->loc, "in %s: returns %s here but %s elsewhere; they cannot be unified", infer_fname(cx),
                    vt->name, inst->ret->name);
            return;
        }
        if (nt != inst->ret) {
            inst->ret = nt;
            cx->changed = true;
        }
        if (f->kind == FK_VECTORIZE && !ty_is_scalar(nt)) {
            infer_fail(cx, s->loc, "in %s: a @vectorize function must return a scalar, not %s", infer_fname(cx), nt->name);
            return;
        }
    }
    if (cx->final)
        list_push(out, new_return(s->loc, v && vt->kind != TY_NONE ? infer_cast(v, inst->ret) : NULL));
}

static void stmt(Infer *cx, Node *s, NodeList *out)
{
    switch (s->kind) {
    case N_ASSIGN:
        assign_stmt(cx, s, out);
        return;
    case N_AUGASSIGN:
        augassign_stmt(cx, s, out);
        return;
    case N_EXPRSTMT: {
        if (s->exprstmt.expr->kind == N_STR)
            return;                  /* a docstring or a string used as a comment */
        Node *e = infer_expr(cx, s->exprstmt.expr);
        if (cx->final && e->type)
            list_push(out, new_exprstmt(s->loc, e));
        return;
    }
    case N_IF: {
        Node *c = infer_truth(cx, s->ifstmt.cond);
        NodeList then = {0}, orelse = {0};
        block(cx, &s->ifstmt.then, &then);
        block(cx, &s->ifstmt.orelse, &orelse);
        if (cx->final && c->type)
            list_push(out, new_if(s->loc, c, then, orelse));
        return;
    }
    case N_WHILE: {
        bool ok = true;
        if (s->whilestmt.orelse.len) {
            infer_fail(cx, s->loc, "in %s: 'else' on a while loop is not supported", infer_fname(cx));
            ok = false;
        }
        Node *c = infer_truth(cx, s->whilestmt.cond);
        NodeList body = {0}, scratch = {0}, none = {0};
        cx->loops++;
        block(cx, &s->whilestmt.body, &body);
        cx->loops--;
        block(cx, &s->whilestmt.orelse, &scratch);
        if (cx->final && c->type && ok)
            list_push(out, new_while(s->loc, c, body, none));
        return;
    }
    case N_FOR:
        for_stmt(cx, s, out);
        return;
    case N_BREAK:
    case N_CONTINUE:
        if (!cx->loops) {
            infer_fail(cx, s->loc, "in %s: '%s' outside a loop", infer_fname(cx), s->kind == N_BREAK ? "break" : "continue");
            return;
        }
        if (cx->final)
            list_push(out, new_node(s->kind, s->loc));
        return;
    case N_RETURN:
        return_stmt(cx, s, out);
        return;
    case N_PASS:
        return;
    case N_FUNCDEF:
        infer_fail(cx, s->loc, "in %s: nested functions are not supported; define '%s' at module level", infer_fname(cx),
                s->funcdef.name);
        return;
    case N_IMPORT:
    case N_IMPORTFROM:
        infer_fail(cx, s->loc, "in %s: import inside a function is not supported; import at module level", infer_fname(cx));
        return;
    case N_UNSUPPORTED:
        infer_fail(cx, s->loc, "in %s: %s is not supported in ufn", infer_fname(cx), s->unsupported.what);
        return;
    default:
        infer_fail(cx, s->loc, "in %s: unexpected %s statement", infer_fname(cx), node_kind_names[s->kind]);
    }
}

static void block(Infer *cx, NodeList *in, NodeList *out)
{
    for (int i = 0; i < in->len; i++)
        stmt(cx, in->items[i], out);
}

/* Does the block break out of the loop it is in (not out of a loop nested
 * in it)? */
static bool breaks(const NodeList *b)
{
    for (int i = 0; i < b->len; i++) {
        const Node *s = b->items[i];
        if (s->kind == N_BREAK)
            return true;
        if (s->kind == N_IF && (breaks(&s->ifstmt.then) || breaks(&s->ifstmt.orelse)))
            return true;
    }
    return false;
}

/* Does every path through the block end in a return? */
static bool always_returns(const NodeList *b)
{
    for (int i = 0; i < b->len; i++) {
        const Node *s = b->items[i];
        if (s->kind == N_RETURN)
            return true;
        if (s->kind == N_IF && always_returns(&s->ifstmt.then) && always_returns(&s->ifstmt.orelse))
            return true;
        /* while True: without a break only leaves by returning */
        if (s->kind == N_WHILE && s->whilestmt.cond->kind == N_TRUE && !breaks(&s->whilestmt.body))
            return true;
    }
    return false;
}

/* Parameters first, then every name the body assigns. */
static void init_vars(Instance *inst)
{
    Node *def = inst->func->def;
    for (int i = 0; i < def->funcdef.params.len; i++) {
        Node *p = def->funcdef.params.items[i];
        Var *v = infer_add_var(inst, p->name.id, p->loc);
        v->param = true;
        v->type = inst->args[i];
    }
    collect_locals(inst, &def->funcdef.body);
}

void infer_silent(Instance *inst)
{
    Func *f = inst->func;
    if (!inst->vars)
        init_vars(inst);
    Infer cx = {.inst = inst, .mod = f->module};
    int pass = 0;
    do {
        cx.changed = false;
        cx.ntemps = 0;
        inst->ncalls = 0;             /* the calls of the last pass are the ones that count */
        inst->probe_failed = false;
        inst->nslots = 0;
        NodeList scratch = {0};
        block(&cx, &f->def->funcdef.body, &scratch);
        if (++pass > MAX_PASSES)
            die("type inference of %s did not converge", f->name);
    } while (cx.changed);
    inst->state = I_TYPED;
}

bool can_fall_off_end(const Func *f)
{
    return !always_returns(&f->def->funcdef.body);
}

/* The final pass over one instance: errors, and the typed body. */
static void type_body(Instance *inst)
{
    Func *f = inst->func;
    Node *def = f->def;
    Infer cx = {.inst = inst, .mod = f->module, .final = true};
    inst->body.len = 0;
    inst->nslots = 0;
    block(&cx, &def->funcdef.body, &inst->body);
    if (cx.changed && !inst->failed)
        die("type of a variable of %s changed in the final pass", f->name);
    inst->state = I_DONE;
    if (inst->failed)
        return;
    bool needs_value = f->kind == FK_VECTORIZE
                       || ((f->kind == FK_DEVICE || f->kind == FK_JIT) && inst->ret && inst->ret->kind != TY_NONE);
    if (needs_value && !always_returns(&def->funcdef.body)) {
        diag_error(def->funcdef.name_loc.file ? def->funcdef.name_loc : def->loc,
                   "in %s: not every path returns a value (the end of the function can be reached); add a return",
                   f->name);
        inst->failed = true;
    }
    if (!inst->ret)
        inst->ret = ty_none();
}

/* An instance that failed has reported why; otherwise its empty body would
 * be compiled as if it were right. */
static void check_failures(const Module *m)
{
    for (int i = 0; i < m->nhelpers; i++)
        if (m->helpers[i]->failed)
            die("helper %s failed without a diagnostic", m->helpers[i]->func->name);
    for (int i = 0; i < m->nkernels; i++)
        for (int k = 0; k < m->kernels[i]->ninstances; k++)
            if (m->kernels[i]->instances[k]->failed)
                die("kernel %s failed without a diagnostic", m->kernels[i]->name);
}

/* A helper no kernel calls is compiled for no argument types at all, nor
 * can anything outside the module call it.  A device function exists for
 * kernels, but an @njit function is, in Numba, a function Python calls: one
 * written that way (say one that builds arrays) would vanish without a
 * word.  The module's own are told; an imported module's are a library's. */
static void uncalled_helpers(const Module *m)
{
    for (int i = 0; i < m->nfuncs; i++) {
        const Func *f = m->funcs[i];
        if (f->kind != FK_JIT)
            continue;
        bool typed = false;
        for (int k = 0; k < f->ninstances; k++)
            typed = typed || f->instances[k]->state == I_DONE;
        if (!typed)
            diag_warning_group(f->def->funcdef.name_loc.file ? f->def->funcdef.name_loc : f->def->loc, "unused-function",
                         "'%s' is not compiled: no @vectorize, @guvectorize or @cuda.jit function calls it, and ufnc compiles a @jit function only for the calls kernels make (it is not a function of the object)",
                         f->name);
    }
}

void infer_bodies(Module *m)
{
    for (int i = 0; i < m->nkernels; i++) {
        Func *f = m->kernels[i];
        for (int k = 0; k < f->ninstances; k++) {
            Instance *root = f->instances[k];
            for (int h = 0; h < root->nreach; h++)
                if (root->reach[h]->state != I_DONE)
                    type_body(root->reach[h]);
            if (root->state != I_DONE)      /* a ufunc another one calls may be typed */
                type_body(root);
            if (root->failed && f->default_sigs)
                break;        /* the user chose none of them: one failing signature says enough */
        }
    }
    if (!diag_error_count()) {
        check_failures(m);
        uncalled_helpers(m);
    }
}
