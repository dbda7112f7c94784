/* infer.c - type inference of one function instance, following Numba.
 *
 * Every local has ONE type per instance: the unification of everything
 * assigned to it (acc = 0; acc += x_f32 makes acc float64).  Because a use
 * can come before a later, wider assignment (loops), the body is typed
 * repeatedly, silently, until no variable widens; a final pass then reports
 * errors and builds the typed copy of the body, with an explicit N_CAST
 * wherever a value changes type, so the code generators never infer.
 *
 * In a silent pass an expression whose operand has no type yet gets a NULL
 * type; NULL propagates quietly.  In the final pass a NULL type means an
 * error was already reported. */
#include "ufnc.h"

#include <string.h>

typedef struct Ctx {
    Checker *ck;
    Instance *inst;
    Module *mod;            /* the module the function is defined in */
    bool final;
    bool changed;
    int loops;              /* nesting of loops, for break/continue */
    int ntemps;
} Ctx;

#define MAX_PASSES 32

/* ---- diagnostics ---------------------------------------------------------- */

static const char *fname(Ctx *cx)
{
    return cx->inst->func->name;
}

static Node *fail_at(Ctx *cx, Loc loc, const char *fmt, ...) PRINTF_LIKE(3, 4);

static Node *fail_at(Ctx *cx, Loc loc, const char *fmt, ...)
{
    if (cx->final) {
        va_list ap;
        va_start(ap, fmt);
        Buf b = {0};
        buf_vprintf(&b, fmt, ap);
        va_end(ap);
        diag_error(loc, "%s", b.data);
        buf_free(&b);
        cx->inst->failed = true;
    }
    return NULL;
}

/* A node of unknown type: the result of an error, or of a silent pass
 * meeting a variable not typed yet. */
static Node *unknown(Node *e)
{
    Node *n = new_node(e->kind, e->loc);
    return n;
}

/* ---- variables -------------------------------------------------------------- */

static Var *find_var(Ctx *cx, const char *name)
{
    for (int i = 0; i < cx->inst->nvars; i++)
        if (cx->inst->vars[i]->name == name && !cx->inst->vars[i]->temp)
            return cx->inst->vars[i];
    return NULL;
}

static Var *add_var(Instance *inst, const char *name, Loc loc)
{
    Var *v = arena_alloc(sizeof *v);
    v->name = name;
    v->cname = c_safe_name(name);
    v->loc = loc;
    Var **vars = arena_alloc(sizeof(Var *) * (size_t)(inst->nvars + 1));
    if (inst->nvars)
        memcpy(vars, inst->vars, sizeof(Var *) * (size_t)inst->nvars);
    vars[inst->nvars++] = v;
    inst->vars = vars;
    return v;
}

static Var *new_temp(Ctx *cx, Type *t)
{
    Var *v = add_var(cx->inst, intern_cstr(arena_printf("ufn_t%d", cx->ntemps)), cx->inst->func->def->loc);
    v->cname = v->name;
    v->type = t;
    v->temp = true;
    cx->ntemps++;
    return v;
}

static void collect_target(Instance *inst, Node *t)
{
    if (t->kind == N_NAME) {
        bool known = false;
        for (int i = 0; i < inst->nvars; i++)
            known = known || inst->vars[i]->name == t->name.id;
        if (!known)
            add_var(inst, t->name.id, t->loc);
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

static void widen(Ctx *cx, Var *v, Type *t, Loc loc)
{
    if (!t)
        return;
    if (t->kind == TY_NONE) {
        fail_at(cx, loc, "in %s: cannot assign None to variable '%s'", fname(cx), v->name);
        return;
    }
    Type *nt = v->type ? ty_unify(v->type, t) : t;
    if (!nt) {
        fail_at(cx, loc, "in %s: variable '%s' holds %s here but %s elsewhere; they cannot be unified",
                fname(cx), v->name, t->name, v->type->name);
        return;
    }
    if (nt != v->type) {
        v->type = nt;
        cx->changed = true;
    }
}

/* ---- building typed nodes ------------------------------------------------------ */

static Node *typed(Node *n, Type *t)
{
    n->type = t;
    return n;
}

static bool is_literal(const Node *e)
{
    return e->kind == N_INT || e->kind == N_FLOAT || e->kind == N_CONST || e->kind == N_TRUE
        || e->kind == N_FALSE;
}

static Value literal_value(const Node *e)
{
    Value v = {.type = e->type};
    switch (e->kind) {
    case N_INT:
        if (ty_is_unsigned(e->type)) v.u = e->intlit.value; else v.i = (int64_t)e->intlit.value;
        break;
    case N_FLOAT: v.f = e->floatlit.value; break;
    case N_TRUE: v.i = 1; break;
    case N_FALSE: v.i = 0; break;
    default: memcpy(&v.i, &e->konst.v, sizeof e->konst.v); break;
    }
    return v;
}

static Node *const_node(Loc loc, Value v)
{
    Node *n = new_node(N_CONST, loc);
    memcpy(&n->konst.v, &v.i, sizeof n->konst.v);
    n->konst.weak = v.weak;
    return typed(n, v.type);
}

static Node *cast_to(Node *e, Type *t);

/* A Python number written in the source (or a module constant computed
 * from such numbers): weak in NumPy's sense (NEP 50). */
static bool is_weak(const Node *e)
{
    return e->kind == N_INT || e->kind == N_FLOAT || (e->kind == N_CONST && e->konst.weak);
}

/* --literals=numpy: a weak number meeting a float32 (or complex64) operand
 * takes that type, as NumPy 2 types Python scalars; Numba (the default)
 * computes int64 and float64 literals in float64. */
static void narrow_literals(Ctx *cx, Node **l, Node **r)
{
    if (!checker_options(cx->ck)->numpy_literals)
        return;
    Type *lt = (*l)->type, *rt = (*r)->type;
    bool lnarrow = lt->kind == TY_FLOAT32 || lt->kind == TY_COMPLEX64;
    bool rnarrow = rt->kind == TY_FLOAT32 || rt->kind == TY_COMPLEX64;
    if (is_weak(*r) && !is_weak(*l) && lnarrow && !ty_is_complex(rt))
        *r = cast_to(*r, lt->kind == TY_COMPLEX64 ? ty_scalar(TY_FLOAT32) : lt);
    else if (is_weak(*l) && !is_weak(*r) && rnarrow && !ty_is_complex(lt))
        *l = cast_to(*l, rt->kind == TY_COMPLEX64 ? ty_scalar(TY_FLOAT32) : rt);
}

/* Convert e to t: literals fold (2 becomes 2.0), others get an N_CAST. */
static Node *cast_to(Node *e, Type *t)
{
    if (!e || !e->type || !t || e->type == t)
        return e;
    if (is_literal(e) && ty_is_scalar(t) && ty_is_scalar(e->type))
        return const_node(e->loc, value_cast(literal_value(e), t));
    Node *c = new_node(N_CAST, e->loc);
    c->cast.operand = e;
    return typed(c, t);
}

static Node *expr(Ctx *cx, Node *e);

/* A condition: Python truthiness, as an explicit bool. */
static Node *truth(Ctx *cx, Node *e)
{
    Node *t = expr(cx, e);
    if (!t->type)
        return t;
    if (!ty_is_scalar(t->type))
        return fail_at(cx, e->loc, "in %s: %s has no truth value here", fname(cx), t->type->name),
               unknown(e);
    return cast_to(t, ty_scalar(TY_BOOL));
}

/* ---- expressions ------------------------------------------------------------------ */

static Node *literal(Ctx *cx, Node *e)
{
    Node *n = new_node(e->kind, e->loc);
    *n = *e;
    switch (e->kind) {
    case N_INT:
        if (e->intlit.too_big)
            return fail_at(cx, e->loc, "in %s: integer literal does not fit in 64 bits", fname(cx)), unknown(e);
        return typed(n, ty_scalar(e->intlit.value > INT64_MAX ? TY_UINT64 : TY_INT64));
    case N_FLOAT: return typed(n, ty_scalar(TY_FLOAT64));
    case N_IMAG: return typed(n, ty_scalar(TY_COMPLEX128));
    case N_TRUE:
    case N_FALSE: return typed(n, ty_scalar(TY_BOOL));
    case N_NONE: return typed(n, ty_none());
    default: unreachable();
    }
}

/* Resolve a name or a dotted module attribute to a symbol. */
static bool resolve(Ctx *cx, const Node *e, Sym *out)
{
    if (e->kind == N_NAME) {
        Var *v = find_var(cx, e->name.id);
        if (v) {
            memset(out, 0, sizeof *out);
            out->kind = SYM_LOCAL;
            out->name = v->name;
            out->var = v;
            return true;
        }
        Sym *s = scope_lookup(cx->mod->globals, e->name.id);
        if (s) {
            *out = *s;
            return true;
        }
        int b = builtin_lookup(e->name.id);
        if (b != B_NONE) {
            memset(out, 0, sizeof *out);
            out->kind = SYM_BUILTIN;
            out->name = e->name.id;
            out->builtin = b;
            return true;
        }
        return false;
    }
    if (e->kind == N_ATTR) {
        Sym base;
        if (!resolve(cx, e->attr.value, &base) || base.kind != SYM_MODULE)
            return false;
        return module_attr(base.module, e->attr.attr, e->loc, out);
    }
    return false;
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

static Node *name_expr(Ctx *cx, Node *e)
{
    Sym s;
    if (!resolve(cx, e, &s)) {
        if (e->kind == N_ATTR) {
            Sym base;
            if (!resolve(cx, e->attr.value, &base))
                return name_expr(cx, e->attr.value);     /* math.sqrt without 'import math': name 'math' */
            const char *what = dotted_name(e);
            if (base.kind == SYM_MODULE && base.module == MOD_NUMPY && numpy_allocator(e->attr.attr))
                return fail_at(cx, e->loc, "in %s: %s() makes an array, and kernels cannot allocate; pass the array in as a @guvectorize argument",
                               fname(cx), what ? what : e->attr.attr), unknown(e);
            if (base.kind == SYM_MODULE)
                return fail_at(cx, e->loc, "in %s: '%s' is not supported in ufn ('%s' has no attribute '%s' that ufn knows)",
                               fname(cx), what ? what : e->attr.attr, module_name(base.module), e->attr.attr),
                       unknown(e);
        }
        if (e->kind == N_NAME && bound_by_refused_stmt(&cx->inst->func->def->funcdef.body, e->name.id)) {
            cx->inst->failed = cx->inst->failed || cx->final;
            return unknown(e);
        }
        return fail_at(cx, e->loc, "in %s: name '%s' is not defined", fname(cx),
                       e->kind == N_NAME ? e->name.id : e->attr.attr), unknown(e);
    }
    switch (s.kind) {
    case SYM_LOCAL: {
        Node *n = new_name(e->loc, s.var->name);
        n->name.sym = arena_alloc(sizeof(Sym));
        *n->name.sym = s;
        if (!s.var->type && cx->final && s.var->failed)
            return unknown(e);
        if (!s.var->type && cx->final)
            return fail_at(cx, e->loc, "in %s: variable '%s' is used before it has a value",
                           fname(cx), s.var->name), unknown(e);
        return typed(n, s.var->type);
    }
    case SYM_CONST:
        if (!s.value.type)
            return fail_at(cx, e->loc, "in %s: '%s' is a string, which kernels cannot use", fname(cx),
                           dotted_name(e) ? dotted_name(e) : s.name), unknown(e);
        return const_node(e->loc, s.value);
    case SYM_FUNC:
        return fail_at(cx, e->loc, "in %s: function '%s' can only be called, not used as a value",
                       fname(cx), s.name), unknown(e);
    case SYM_MODULE:
        return fail_at(cx, e->loc, "in %s: module '%s' is not a value", fname(cx),
                       module_name(s.module)), unknown(e);
    default:
        return fail_at(cx, e->loc, "in %s: '%s' can only be called", fname(cx), s.name), unknown(e);
    }
}

static const char *opname(Op op)
{
    return op_names[op];
}

static Node *binary(Ctx *cx, Node *e, Node *l, Node *r)
{
    Op op = e->binary.op;
    if (!l->type || !r->type)
        return unknown(e);
    if (ty_is_scalar(l->type) && ty_is_scalar(r->type) && op != OP_POW)
        narrow_literals(cx, &l, &r);
    if (op == OP_POW && ty_is_scalar(l->type) && ty_is_float(r->type))
        narrow_literals(cx, &l, &r);       /* x ** 0.5 stays float32; x ** 2 already does */
    Type *lt = l->type, *rt = r->type;
    if (!ty_is_scalar(lt) || !ty_is_scalar(rt)) {
        if (lt->kind == TY_ARRAY || rt->kind == TY_ARRAY)
            return fail_at(cx, e->loc, "in %s: operator '%s' on whole arrays is not supported; index the array elements",
                           fname(cx), opname(op)), unknown(e);
        return fail_at(cx, e->loc, "in %s: unsupported operand types for '%s': %s and %s", fname(cx),
                       opname(op), lt->name, rt->name), unknown(e);
    }
    Type *t;
    Node *n = new_binary(e->loc, op, NULL, NULL);
    bool intish = (ty_is_int(lt) || ty_is_bool(lt)) && (ty_is_int(rt) || ty_is_bool(rt));
    switch (op) {
    case OP_ADD:
    case OP_SUB:
    case OP_MUL:
        t = ty_arith(lt, rt);
        n->binary.lhs = cast_to(l, t);
        n->binary.rhs = cast_to(r, t);
        return typed(n, t);
    case OP_DIV:
        t = intish ? ty_scalar(TY_FLOAT64) : ty_arith(lt, rt);
        n->binary.lhs = cast_to(l, t);
        n->binary.rhs = cast_to(r, t);
        return typed(n, t);
    case OP_FLOORDIV:
    case OP_MOD:
        if (ty_is_complex(lt) || ty_is_complex(rt))
            return fail_at(cx, e->loc, "in %s: '%s' is not defined for complex numbers", fname(cx),
                           opname(op)), unknown(e);
        t = ty_arith(lt, rt);
        n->binary.lhs = cast_to(l, t);
        n->binary.rhs = cast_to(r, t);
        return typed(n, t);
    case OP_POW:
        if (intish) {
            t = ty_arith(lt, rt);
            n->binary.lhs = cast_to(l, t);
            n->binary.rhs = cast_to(r, ty_scalar(TY_INT64));
        } else if (ty_is_float(lt) && (ty_is_int(rt) || ty_is_bool(rt))) {
            /* float ** int keeps the float type (repeated multiplication) */
            t = lt;
            n->binary.lhs = l;
            n->binary.rhs = cast_to(r, ty_scalar(TY_INT64));
        } else {
            t = ty_arith(lt, rt);
            if (ty_is_int(t))
                t = ty_scalar(TY_FLOAT64);
            n->binary.lhs = cast_to(l, t);
            n->binary.rhs = cast_to(r, t);
        }
        return typed(n, t);
    case OP_LSHIFT:
    case OP_RSHIFT:
    case OP_BITAND:
    case OP_BITOR:
    case OP_BITXOR:
        if (!intish)
            return fail_at(cx, e->loc, "in %s: operator '%s' needs integers, not %s and %s", fname(cx),
                           opname(op), lt->name, rt->name), unknown(e);
        if (ty_is_bool(lt) && ty_is_bool(rt) && op != OP_LSHIFT && op != OP_RSHIFT)
            t = lt;
        else if (op == OP_LSHIFT || op == OP_RSHIFT)
            t = ty_scalar(ty_is_unsigned(lt) ? TY_UINT64 : TY_INT64);   /* the left operand's word */
        else
            t = ty_arith(lt, rt);
        n->binary.lhs = cast_to(l, t);
        n->binary.rhs = cast_to(r, (op == OP_LSHIFT || op == OP_RSHIFT) ? ty_scalar(TY_INT64) : t);
        if (op == OP_RSHIFT || op == OP_LSHIFT)
            n->binary.rhs = cast_to(r, ty_is_unsigned(rt) ? ty_scalar(TY_UINT64) : ty_scalar(TY_INT64));
        return typed(n, t);
    case OP_MATMUL:
        return fail_at(cx, e->loc, "in %s: '@' (matrix multiplication) is not supported", fname(cx)),
               unknown(e);
    default:
        unreachable();
    }
}

static Node *unary(Ctx *cx, Node *e)
{
    Node *a = expr(cx, e->unary.operand);
    if (!a->type)
        return unknown(e);
    if (e->unary.op == OP_NOT)
        return typed(new_unary(e->loc, OP_NOT, truth(cx, e->unary.operand)), ty_scalar(TY_BOOL));
    if (!ty_is_scalar(a->type))
        return fail_at(cx, e->loc, "in %s: bad operand type for unary '%s': %s", fname(cx),
                       opname(e->unary.op), a->type->name), unknown(e);
    Type *t = a->type;
    if (e->unary.op == OP_INVERT) {
        if (!ty_is_int(t) && !ty_is_bool(t))
            return fail_at(cx, e->loc, "in %s: '~' needs an integer, not %s", fname(cx), t->name), unknown(e);
        if (ty_is_bool(t))        /* ~True is False, as for NumPy's bool (and Numba's) */
            return typed(new_unary(e->loc, OP_NOT, a), t);
        t = ty_arith(t, t);
    } else if (ty_is_int(t) || ty_is_bool(t))
        t = ty_arith(t, t);
    /* -2 is a literal: fold it so constants stay readable and exact */
    if (is_literal(a) && e->unary.op != OP_INVERT) {
        Value v = value_cast(literal_value(a), t);
        v.weak = is_weak(a);
        if (e->unary.op == OP_NEG) {
            if (ty_is_float(t)) v.f = -v.f;
            else if (ty_is_complex(t)) { v.c[0] = -v.c[0]; v.c[1] = -v.c[1]; }
            else if (ty_is_unsigned(t)) v.u = 0 - v.u;
            else v.i = (int64_t)(0 - (uint64_t)v.i);
        }
        return const_node(e->loc, v);
    }
    return typed(new_unary(e->loc, e->unary.op, cast_to(a, t)), t);
}

/* Operands that can be evaluated twice without a temporary. */
static bool is_simple(const Node *e)
{
    return e->kind == N_NAME || is_literal(e);
}

static Node *compare(Ctx *cx, Node *e)
{
    int n = e->compare.n;
    Node *out = new_compare(e->loc, NULL);
    Node **ops = arena_alloc(sizeof(Node *) * (size_t)(n + 1));
    Type **links = arena_alloc(sizeof(Type *) * (size_t)n);
    bool ok = true;
    for (int i = 0; i <= n; i++) {
        ops[i] = expr(cx, e->compare.operands[i]);
        ok = ok && ops[i]->type;
    }
    if (!ok)
        return unknown(e);
    for (int i = 0; i < n; i++) {
        Op op = e->compare.ops[i];
        Type *a = ops[i]->type, *b = ops[i + 1]->type;
        if (op == OP_IS || op == OP_ISNOT || op == OP_IN || op == OP_NOTIN)
            return fail_at(cx, e->loc, "in %s: '%s' is not supported in ufn%s", fname(cx), opname(op),
                           op == OP_IS || op == OP_ISNOT ? " (kernels have no None or objects: compare numbers with == or !=)"
                                                          : ""), unknown(e);
        if (!ty_is_scalar(a) || !ty_is_scalar(b))
            return fail_at(cx, e->loc, "in %s: cannot compare %s with %s", fname(cx), a->name, b->name),
                   unknown(e);
        if ((ty_is_complex(a) || ty_is_complex(b)) && op != OP_EQ && op != OP_NE)
            return fail_at(cx, e->loc, "in %s: complex numbers are not ordered ('%s')", fname(cx), opname(op)),
                   unknown(e);
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
            if (!is_simple(ops[i]))
                out->compare.tmps[i - 1] = new_temp(cx, ops[i]->type);
    }
    return typed(out, ty_scalar(TY_BOOL));
}

static Node *boolop(Ctx *cx, Node *e)
{
    Node *l = expr(cx, e->boolop.lhs), *r = expr(cx, e->boolop.rhs);
    if (!l->type || !r->type)
        return unknown(e);
    Node *n = new_boolop(e->loc, e->boolop.op, NULL, NULL);
    if (ty_is_bool(l->type) && ty_is_bool(r->type)) {
        n->boolop.lhs = l;
        n->boolop.rhs = r;
        return typed(n, l->type);
    }
    /* Python returns an operand: `x or 0.5` is x when x is true. */
    Type *t = ty_unify(l->type, r->type);
    if (!t || !ty_is_scalar(t))
        return fail_at(cx, e->loc, "in %s: operands of '%s' have types %s and %s that cannot be unified",
                       fname(cx), opname(e->boolop.op), l->type->name, r->type->name), unknown(e);
    n->boolop.lhs = cast_to(l, t);
    n->boolop.rhs = cast_to(r, t);
    if (cx->final && !is_simple(n->boolop.lhs))
        n->boolop.tmp = new_temp(cx, t);
    return typed(n, t);
}

static Node *ifexp(Ctx *cx, Node *e)
{
    Node *c = truth(cx, e->ifexp.cond);
    Node *a = expr(cx, e->ifexp.then), *b = expr(cx, e->ifexp.orelse);
    if (!c->type || !a->type || !b->type)
        return unknown(e);
    Type *t = ty_unify(a->type, b->type);
    if (!t)
        return fail_at(cx, e->loc, "in %s: the branches of the conditional expression have types %s and %s",
                       fname(cx), a->type->name, b->type->name), unknown(e);
    return typed(new_ifexp(e->loc, c, cast_to(a, t), cast_to(b, t)), t);
}

static Node *tuple_expr(Ctx *cx, Node *e)
{
    if (e->kind == N_LIST)
        return fail_at(cx, e->loc, "in %s: lists are not supported (use a tuple)", fname(cx)), unknown(e);
    NodeList elts = {0};
    Type *types[64];
    if (e->tuple.elts.len > 64)
        return fail_at(cx, e->loc, "in %s: tuple too long", fname(cx)), unknown(e);
    bool ok = true;
    for (int i = 0; i < e->tuple.elts.len; i++) {
        Node *x = expr(cx, e->tuple.elts.items[i]);
        list_push(&elts, x);
        types[i] = x->type;
        ok = ok && x->type;
        if (x->type && (x->type->kind == TY_ARRAY || x->type->kind == TY_NONE))
            return fail_at(cx, x->loc, "in %s: a tuple cannot hold %s", fname(cx),
                           x->type->kind == TY_ARRAY ? "an array" : "None"), unknown(e);
    }
    if (!ok)
        return unknown(e);
    return typed(new_tuple(e->loc, elts), ty_tuple(elts.len, types));
}

/* The integer value of a constant index expression, for tuples. */
static bool const_index(Node *idx, int64_t *out)
{
    if (idx->kind == N_CONST && ty_is_int(idx->type)) {
        *out = ty_is_unsigned(idx->type) ? (int64_t)idx->konst.v.u : idx->konst.v.i;
        return true;
    }
    if (idx->kind == N_INT && !idx->intlit.too_big) {
        *out = (int64_t)idx->intlit.value;
        return true;
    }
    return false;
}

static Node *subscript(Ctx *cx, Node *e)
{
    Node *base = expr(cx, e->subscript.value);
    if (!base->type)
        return unknown(e);
    if (base->type->kind != TY_ARRAY && base->type->kind != TY_TUPLE) {
        const char *name = dotted_name(e->subscript.value);
        bool key = e->subscript.index.len == 1 && e->subscript.index.items[0]->kind == N_STR;
        return fail_at(cx, e->loc, "in %s: %s%s%s is a %s, which cannot be indexed%s", fname(cx), name ? "'" : "",
                       name ? name : "the value", name ? "'" : "", base->type->name,
                       key ? " (ufn has no dictionaries or records)" : ""), unknown(e);
    }
    NodeList idx = {0};
    bool ok = true;
    for (int i = 0; i < e->subscript.index.len; i++) {
        Node *ix = e->subscript.index.items[i];
        if (ix->kind == N_SLICE)
            return fail_at(cx, ix->loc, "in %s: slicing is not supported; index with one integer per dimension",
                           fname(cx)), unknown(e);
        Node *t = expr(cx, ix);
        ok = ok && t->type;
        list_push(&idx, t);
    }
    if (!ok)
        return unknown(e);
    Type *bt = base->type;
    if (bt->kind == TY_TUPLE) {
        int64_t k;
        if (idx.len != 1 || !const_index(idx.items[0], &k))
            return fail_at(cx, e->loc, "in %s: a tuple can only be indexed by an integer constant", fname(cx)),
                   unknown(e);
        if (k < 0)
            k += bt->nelts;
        if (k < 0 || k >= bt->nelts)
            return fail_at(cx, e->loc, "in %s: tuple index out of range (the tuple has %d elements)", fname(cx),
                           bt->nelts), unknown(e);
        NodeList one = {0};
        list_push(&one, const_node(e->loc, value_cast((Value){.type = ty_scalar(TY_INT64), .i = k}, ty_scalar(TY_INT64))));
        return typed(new_subscript(e->loc, base, one), bt->elts[k]);
    }
    if (bt->kind != TY_ARRAY)
        return fail_at(cx, e->loc, "in %s: a %s cannot be indexed", fname(cx), bt->name), unknown(e);
    if (idx.len != bt->ndim)
        return fail_at(cx, e->loc, "in %s: '%s' has %d dimension%s but is indexed with %d subscript%s; index with one integer per dimension",
                       fname(cx), e->subscript.value->kind == N_NAME ? e->subscript.value->name.id : "array",
                       bt->ndim, bt->ndim == 1 ? "" : "s", idx.len, idx.len == 1 ? "" : "s"), unknown(e);
    for (int i = 0; i < idx.len; i++) {
        Type *it = idx.items[i]->type;
        if (!ty_is_int(it) && !ty_is_bool(it)) {
            const Node *src = e->subscript.index.items[i];
            bool div = src->kind == N_BINARY && src->binary.op == OP_DIV;
            return fail_at(cx, idx.items[i]->loc, "in %s: array index must be an integer, not %s%s", fname(cx),
                           it->name, div ? " ('/' divides into a float: use '//')" : ""), unknown(e);
        }
        idx.items[i] = cast_to(idx.items[i], ty_scalar(TY_INT64));
    }
    return typed(new_subscript(e->loc, base, idx), bt->elt);
}

static Node *attribute(Ctx *cx, Node *e)
{
    Sym s;
    /* math.pi, np.float32, ...: a module's name, not a value's attribute */
    if (resolve(cx, e, &s) || (resolve(cx, e->attr.value, &s) && s.kind == SYM_MODULE))
        return name_expr(cx, e);
    Node *base = expr(cx, e->attr.value);
    if (!base->type)
        return unknown(e);
    Type *bt = base->type;
    const char *a = e->attr.attr;
    Node *n = new_attr(e->loc, base, a);
    if (bt->kind == TY_ARRAY) {
        if (strcmp(a, "shape") == 0 || strcmp(a, "strides") == 0) {
            Type *elts[UFN_CORE_MAXDIMS];
            for (int i = 0; i < bt->ndim; i++)
                elts[i] = ty_scalar(TY_INT64);
            return typed(n, ty_tuple(bt->ndim, elts));
        }
        if (strcmp(a, "size") == 0)
            return typed(n, ty_scalar(TY_INT64));
        if (strcmp(a, "ndim") == 0)
            return const_node(e->loc, (Value){.type = ty_scalar(TY_INT64), .i = bt->ndim});
    } else if (ty_is_complex(bt)) {
        if (strcmp(a, "real") == 0 || strcmp(a, "imag") == 0)
            return typed(n, ty_scalar(bt->kind == TY_COMPLEX64 ? TY_FLOAT32 : TY_FLOAT64));
    } else if (ty_is_scalar(bt) && (strcmp(a, "real") == 0 || strcmp(a, "imag") == 0)) {
        if (strcmp(a, "real") == 0)
            return base;
        return cast_to(const_node(e->loc, (Value){.type = ty_scalar(TY_INT64), .i = 0}), bt);
    }
    return fail_at(cx, e->loc, "in %s: %s has no attribute '%s' that ufn supports", fname(cx), bt->name, a),
           unknown(e);
}

/* ---- calls ------------------------------------------------------------------------- */

static Node *call_builtin(Ctx *cx, Node *e, int b, NodeList *args);

static Node *call_helper(Ctx *cx, Node *e, Func *f, NodeList *args)
{
    Type *types[UFN_MAX_OPERANDS];
    if (args->len > UFN_MAX_OPERANDS)
        return fail_at(cx, e->loc, "in %s: too many arguments", fname(cx)), unknown(e);
    int nparams = f->def->funcdef.params.len;
    if (args->len != nparams)
        return fail_at(cx, e->loc, "in %s: %s() takes %d argument%s but %d %s given", fname(cx), f->name,
                       nparams, nparams == 1 ? "" : "s", args->len, args->len == 1 ? "was" : "were"),
               unknown(e);
    for (int i = 0; i < args->len; i++) {
        types[i] = args->items[i]->type;
        if (!types[i])
            return unknown(e);
    }
    /* what cannot be called from a kernel, said from the caller */
    switch (f->kind) {
    case FK_PLAIN:
        fail_at(cx, e->loc, "in %s: '%s' is not a device function: decorate it with @cuda.jit(device=True) or @jit to call it from a kernel",
                fname(cx), f->name);
        if (cx->final)
            diag_note(f->def->funcdef.name_loc.file ? f->def->funcdef.name_loc : f->def->loc, "'%s' is defined here",
                      f->name);
        return unknown(e);
    case FK_VECTORIZE:
    case FK_GUVECTORIZE:
        return fail_at(cx, e->loc, "in %s: cannot call the %s '%s' from a kernel; move the shared code into a @cuda.jit(device=True) function",
                       fname(cx), f->kind == FK_VECTORIZE ? "ufunc" : "gufunc", f->name), unknown(e);
    case FK_CUDA_KERNEL:
        return fail_at(cx, e->loc, "in %s: cannot call the @cuda.jit kernel '%s' from a kernel", fname(cx), f->name),
               unknown(e);
    case FK_DEVICE:
    case FK_JIT:
        break;
    }
    Instance *callee = instantiate(cx->ck, f, types, args->len, cx->final, e->loc);
    if (!callee) {
        if (cx->final)
            cx->inst->failed = true;
        return unknown(e);
    }
    Node *n = new_call(e->loc, e->call.func);
    n->call.args = *args;
    n->call.callee = callee;
    if (callee->failed && cx->final && callee->state == I_DONE) {   /* its errors were reported inside it */
        cx->inst->failed = true;
        return unknown(e);
    }
    if (!callee->ret) {
        if (!cx->final)
            return unknown(e);
        if (callee->failed) {      /* reported inside it, where the recursion closes */
            cx->inst->failed = true;
            return unknown(e);
        }
        return fail_at(cx, e->loc, "in %s: cannot infer the return type of %s(): it calls itself%s on every path (a recursion without a base case)",
                       fname(cx), f->name, callee == cx->inst ? "" : arena_printf(" through %s()", fname(cx))),
               unknown(e);
    }
    return typed(n, callee->ret);
}

static Node *call(Ctx *cx, Node *e)
{
    Node *fn = e->call.func;
    /* Methods on values: z.conjugate() */
    if (fn->kind == N_ATTR && strcmp(fn->attr.attr, "conjugate") == 0) {
        Sym s;
        if (!resolve(cx, fn, &s)) {
            Node *z = expr(cx, fn->attr.value);
            if (!z->type)
                return unknown(e);
            if (e->call.args.len)
                return fail_at(cx, e->loc, "in %s: conjugate() takes no arguments", fname(cx)), unknown(e);
            if (!ty_is_scalar(z->type))
                return fail_at(cx, e->loc, "in %s: %s has no conjugate(); index the array elements", fname(cx),
                               z->type->name), unknown(e);
            Node *n = new_call(e->loc, fn);
            list_push(&n->call.args, z);
            n->call.builtin = -1;     /* conjugate */
            return typed(n, z->type);
        }
    }
    Sym s;
    if (!resolve(cx, fn, &s)) {
        if (fn->kind == N_NAME || fn->kind == N_ATTR)
            return name_expr(cx, fn);    /* reports the unknown name */
        return fail_at(cx, e->loc, "in %s: only named functions can be called", fname(cx)), unknown(e);
    }
    if (e->call.kwargs.len)
        return fail_at(cx, e->call.kwargs.items[0]->loc, "in %s: keyword argument '%s=' is not supported in calls; pass it by position",
                       fname(cx), e->call.kwargs.items[0]->keyword.name), unknown(e);
    NodeList args = {0};
    bool ok = true;
    for (int i = 0; i < e->call.args.len; i++) {
        Node *a = expr(cx, e->call.args.items[i]);
        ok = ok && a->type;
        list_push(&args, a);
    }
    switch (s.kind) {
    case SYM_FUNC:
        if (!ok)
            return unknown(e);
        return call_helper(cx, e, s.func, &args);
    case SYM_BUILTIN:
        if (s.builtin == B_UNSUPPORTED)
            return fail_at(cx, e->loc, "in %s: %s() is not supported in ufn", fname(cx), s.name), unknown(e);
        if (s.builtin == B_RANGE)
            return fail_at(cx, e->loc, "in %s: range() can only be used in a for loop", fname(cx)), unknown(e);
        if (!ok)
            return unknown(e);
        return call_builtin(cx, e, s.builtin, &args);
    case SYM_LOCAL:
        return fail_at(cx, e->loc, "in %s: '%s' is a variable, not a function", fname(cx), s.name), unknown(e);
    case SYM_DECORATOR:
        return fail_at(cx, e->loc, "in %s: '%s' cannot be called inside a kernel", fname(cx), s.name), unknown(e);
    default:
        return fail_at(cx, e->loc, "in %s: '%s' is %s, not a function", fname(cx), s.name,
                       s.kind == SYM_MODULE ? "a module" : s.kind == SYM_CONST ? "a constant" : "not callable"),
               unknown(e);
    }
}

static Node *mkcall(Node *e, int b, NodeList *args, Type *t)
{
    Node *n = new_call(e->loc, e->call.func);
    n->call.args = *args;
    n->call.builtin = b;
    return typed(n, t);
}

static Node *arity(Ctx *cx, Node *e, const char *name, int min, int max, int n)
{
    if (n >= min && n <= max)
        return NULL;
    if (min == max)
        return fail_at(cx, e->loc, "in %s: %s() takes %d argument%s (%d given)", fname(cx), name, min,
                       min == 1 ? "" : "s", n), unknown(e);
    return fail_at(cx, e->loc, "in %s: %s() takes %d to %d arguments (%d given)", fname(cx), name, min, max, n),
           unknown(e);
}

/* Integers that convert to float32 exactly in Numba's rules. */
static bool int_fits_float32(const Type *t)
{
    return t->kind == TY_BOOL || t->kind == TY_INT8 || t->kind == TY_UINT8 || t->kind == TY_INT16;
}

static Node *math_call(Ctx *cx, Node *e, int b, NodeList *args)
{
    bool cm = b >= B_CMATH;
    const MathFn *fns = cm ? cmath_fns : math_fns;
    int nfns = cm ? num_cmath_fns : num_math_fns;
    int row = b - (cm ? B_CMATH : B_MATH);
    const char *name = builtin_name(b);
    /* the row for this many arguments (math.log(x) or math.log(x, base)) */
    int r = math_row(fns, nfns, fns[row].name, args->len);
    if (r >= 0) {
        row = r;
        b = (cm ? B_CMATH : B_MATH) + r;
    }
    const MathFn *m = &fns[row];
    Node *bad = arity(cx, e, name, m->nargs, m->nargs, args->len);
    if (bad)
        return bad;
    for (int i = 0; i < args->len; i++) {
        Type *t = args->items[i]->type;
        if (!ty_is_scalar(t) || (!cm && ty_is_complex(t)))
            return fail_at(cx, args->items[i]->loc, "in %s: %s() needs %s arguments, not %s", fname(cx), name,
                           cm ? "numeric" : "real", t->name), unknown(e);
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
    bool int_overloads = strcmp(fns[row].name, "atan2") == 0 || strcmp(fns[row].name, "hypot") == 0;
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
            args->items[i] = cast_to(args->items[i], f);
        return mkcall(e, b, args, f);
    case MK_ROUND: {
        /* CUDA's rule: a float keeps its type; an integer becomes float64 */
        Type *t = args->items[0]->type;
        if (ty_is_int(t) || ty_is_bool(t))
            return cast_to(args->items[0], ty_scalar(TY_FLOAT64));
        return mkcall(e, b, args, t);
    }
    case MK_PRED: {
        Type *t = args->items[0]->type;
        if (ty_is_int(t) || ty_is_bool(t)) {
            /* an integer is never nan or inf */
            bool v = strcmp(m->name, "isfinite") == 0;
            return const_node(e->loc, (Value){.type = ty_scalar(TY_BOOL), .i = v});
        }
        return mkcall(e, b, args, ty_scalar(TY_BOOL));
    }
    case MK_POW: {
        /* float32 ** (float32 or an int of up to 32 bits) is float32 */
        Type *bt = args->items[0]->type, *xt = args->items[1]->type;
        bool small_exp = xt->kind == TY_FLOAT32 || xt->kind == TY_BOOL || (ty_is_int(xt) && ty_bits(xt) <= 32
                         && xt->kind != TY_UINT32);
        bool small_base = bt->kind == TY_FLOAT32 || bt->kind == TY_BOOL || bt->kind == TY_INT8 || bt->kind == TY_UINT8;
        Type *t = ty_scalar(small_base && small_exp ? TY_FLOAT32 : TY_FLOAT64);
        args->items[0] = cast_to(args->items[0], t);
        args->items[1] = cast_to(args->items[1], t);
        return mkcall(e, b, args, t);
    }
    case MK_LDEXP: {
        Type *x = args->items[0]->type;
        Type *t = ty_is_float(x) ? x : ty_scalar(int_fits_float32(x) ? TY_FLOAT32 : TY_FLOAT64);
        if (!ty_is_int(args->items[1]->type) && !ty_is_bool(args->items[1]->type))
            return fail_at(cx, args->items[1]->loc, "in %s: %s() needs an integer exponent", fname(cx), name),
                   unknown(e);
        args->items[0] = cast_to(args->items[0], t);
        args->items[1] = cast_to(args->items[1], ty_scalar(TY_INT32));
        return mkcall(e, b, args, t);
    }
    case CK_COMPLEX:
        for (int i = 0; i < args->len; i++)
            args->items[i] = cast_to(args->items[i], c);
        return mkcall(e, b, args, c);
    case CK_REAL:
        if (!ty_is_complex(args->items[0]->type))
            c = ty_scalar(TY_COMPLEX128);      /* phase(x) of a real computes in double */
        args->items[0] = cast_to(args->items[0], c);
        return mkcall(e, b, args, ty_scalar(c->kind == TY_COMPLEX64 ? TY_FLOAT32 : TY_FLOAT64));
    case CK_PRED:
        args->items[0] = cast_to(args->items[0], c);
        return mkcall(e, b, args, ty_scalar(TY_BOOL));
    case CK_POLAR: {
        args->items[0] = cast_to(args->items[0], c);
        Type *ft = ty_scalar(c->kind == TY_COMPLEX64 ? TY_FLOAT32 : TY_FLOAT64);
        Type *pair[2] = {ft, ft};
        return mkcall(e, b, args, ty_tuple(2, pair));
    }
    case CK_RECT: {
        bool f32 = any_f32;
        for (int i = 0; i < args->len; i++)
            f32 = f32 && (args->items[i]->type->kind == TY_FLOAT32 || int_fits_float32(args->items[i]->type));
        Type *ft = ty_scalar(f32 ? TY_FLOAT32 : TY_FLOAT64);
        for (int i = 0; i < args->len; i++) {
            if (ty_is_complex(args->items[i]->type))
                return fail_at(cx, args->items[i]->loc, "in %s: %s() needs real arguments", fname(cx), name),
                       unknown(e);
            args->items[i] = cast_to(args->items[i], ft);
        }
        return mkcall(e, b, args, ty_scalar(ft->kind == TY_FLOAT32 ? TY_COMPLEX64 : TY_COMPLEX128));
    }
    }
    unreachable();
}

static Node *minmax(Ctx *cx, Node *e, int b, NodeList *args)
{
    const char *name = b == B_MIN ? "min" : "max";
    if (args->len < 2)
        return fail_at(cx, e->loc, "in %s: %s() needs at least two arguments here (iterables are not supported)",
                       fname(cx), name), unknown(e);
    Type *t = args->items[0]->type;
    for (int i = 0; i < args->len; i++) {
        Type *a = args->items[i]->type;
        if (!ty_is_scalar(a) || ty_is_complex(a))
            return fail_at(cx, args->items[i]->loc, "in %s: %s() needs real numbers, not %s", fname(cx), name,
                           a->name), unknown(e);
        t = ty_promote_numpy(t, a);
    }
    /* min(a, b, c) is min(min(a, b), c): Python compares left to right */
    Node *acc = cast_to(args->items[0], t);
    for (int i = 1; i < args->len; i++) {
        NodeList two = {0};
        list_push(&two, acc);
        list_push(&two, cast_to(args->items[i], t));
        acc = mkcall(e, b, &two, t);
    }
    return acc;
}

static Node *call_builtin(Ctx *cx, Node *e, int b, NodeList *args)
{
    Node *bad;
    if (b >= B_MATH)
        return math_call(cx, e, b, args);
    if (b >= B_CAST) {
        Type *t = ty_scalar((TypeKind)(b - B_CAST));
        if ((bad = arity(cx, e, builtin_name(b), 1, 1, args->len)))
            return bad;
        Type *a = args->items[0]->type;
        if (!ty_is_scalar(a))
            return fail_at(cx, e->loc, "in %s: cannot convert %s to %s", fname(cx), a->name, t->name), unknown(e);
        if (ty_is_complex(a) && !ty_is_complex(t) && !ty_is_bool(t))
            return fail_at(cx, e->loc, "in %s: cannot convert complex to %s (take .real or abs() first)",
                           fname(cx), t->name), unknown(e);
        Node *r = cast_to(args->items[0], t);
        if (r == args->items[0] && !is_literal(r))   /* an explicit no-op cast stays visible */
            return r;
        return r;
    }
    switch (b) {
    case B_ABS: {
        if ((bad = arity(cx, e, "abs", 1, 1, args->len)))
            return bad;
        Type *a = args->items[0]->type;
        if (!ty_is_scalar(a))
            return fail_at(cx, e->loc, "in %s: bad operand type for abs(): %s", fname(cx), a->name), unknown(e);
        Type *t = ty_is_complex(a) ? ty_scalar(a->kind == TY_COMPLEX64 ? TY_FLOAT32 : TY_FLOAT64)
                  : ty_is_bool(a) ? ty_scalar(TY_INT8) : a;
        if (ty_is_bool(a))
            args->items[0] = cast_to(args->items[0], t);
        return mkcall(e, B_ABS, args, t);
    }
    case B_MIN:
    case B_MAX:
        return minmax(cx, e, b, args);
    case B_ROUND: {
        if ((bad = arity(cx, e, "round", 1, 2, args->len)))
            return bad;
        Type *a = args->items[0]->type;
        if (!ty_is_scalar(a) || ty_is_complex(a))
            return fail_at(cx, e->loc, "in %s: round() needs a real number, not %s", fname(cx), a->name),
                   unknown(e);
        if (args->len == 2) {
            if (!ty_is_int(args->items[1]->type))
                return fail_at(cx, e->loc, "in %s: round()'s ndigits must be an integer", fname(cx)), unknown(e);
            args->items[1] = cast_to(args->items[1], ty_scalar(TY_INT64));
            /* Numba rounds an integer as a float (NumPy's round) */
            if (!ty_is_float(a))
                a = ty_scalar(int_fits_float32(a) ? TY_FLOAT32 : TY_FLOAT64);
            args->items[0] = cast_to(args->items[0], a);
            return mkcall(e, B_ROUND, args, a);
        }
        if (!ty_is_float(a))
            return cast_to(args->items[0], ty_scalar(TY_INT64));
        return mkcall(e, B_ROUND, args, ty_scalar(TY_INT64));
    }
    case B_INT:
    case B_FLOAT:
    case B_BOOL: {
        const char *nm = b == B_INT ? "int" : b == B_FLOAT ? "float" : "bool";
        if ((bad = arity(cx, e, nm, 1, 1, args->len)))
            return bad;
        Type *a = args->items[0]->type;
        if (!ty_is_scalar(a) || (ty_is_complex(a) && b != B_BOOL))
            return fail_at(cx, e->loc, "in %s: %s() cannot convert %s", fname(cx), nm, a->name), unknown(e);
        Type *t = ty_scalar(b == B_INT ? TY_INT64 : b == B_FLOAT ? TY_FLOAT64 : TY_BOOL);
        if ((b == B_INT && ty_is_int(a)) || (b == B_FLOAT && ty_is_float(a)))
            t = a;                /* Numba: int(int8) is int8, float(float32) float32 */
        return cast_to(args->items[0], t);
    }
    case B_COMPLEX: {
        if ((bad = arity(cx, e, "complex", 1, 2, args->len)))
            return bad;
        if (args->len == 1 && ty_is_complex(args->items[0]->type))
            return cast_to(args->items[0], ty_scalar(TY_COMPLEX128));
        bool f32 = true;
        for (int i = 0; i < args->len; i++) {
            Type *a = args->items[i]->type;
            if (!ty_is_scalar(a) || ty_is_complex(a))
                return fail_at(cx, e->loc, "in %s: complex() needs real arguments", fname(cx)), unknown(e);
            f32 = f32 && a->kind == TY_FLOAT32;
        }
        Type *ft = ty_scalar(f32 ? TY_FLOAT32 : TY_FLOAT64);
        for (int i = 0; i < args->len; i++)
            args->items[i] = cast_to(args->items[i], ft);
        return mkcall(e, B_COMPLEX, args, ty_scalar(f32 ? TY_COMPLEX64 : TY_COMPLEX128));
    }
    case B_LEN: {
        if ((bad = arity(cx, e, "len", 1, 1, args->len)))
            return bad;
        Type *a = args->items[0]->type;
        if (a->kind == TY_TUPLE)
            return const_node(e->loc, (Value){.type = ty_scalar(TY_INT64), .i = a->nelts});
        if (a->kind != TY_ARRAY)
            return fail_at(cx, e->loc, "in %s: len() of a %s", fname(cx), a->name), unknown(e);
        return mkcall(e, B_LEN, args, ty_scalar(TY_INT64));
    }
    case B_POW: {
        if ((bad = arity(cx, e, "pow", 2, 2, args->len)))
            return bad;
        Node *fake = new_binary(e->loc, OP_POW, e->call.args.items[0], e->call.args.items[1]);
        return binary(cx, fake, args->items[0], args->items[1]);
    }
    default:
        return fail_at(cx, e->loc, "in %s: %s() is not supported here", fname(cx), builtin_name(b)), unknown(e);
    }
}

static Node *expr(Ctx *cx, Node *e)
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
        return fail_at(cx, e->loc, "in %s: strings are not supported in expressions", fname(cx)), unknown(e);
    case N_NAME:
        return name_expr(cx, e);
    case N_ATTR:
        return attribute(cx, e);
    case N_UNARY:
        return unary(cx, e);
    case N_BINARY: {
        Node *l = expr(cx, e->binary.lhs), *r = expr(cx, e->binary.rhs);
        return binary(cx, e, l, r);
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
        return fail_at(cx, e->loc, "in %s: slices are not supported", fname(cx)), unknown(e);
    case N_KEYWORD:
        return fail_at(cx, e->loc, "in %s: unexpected keyword argument", fname(cx)), unknown(e);
    default:
        return fail_at(cx, e->loc, "in %s: a %s is not an expression", fname(cx), node_kind_names[e->kind]),
               unknown(e);
    }
}

/* ---- statements ------------------------------------------------------------------------- */

static void block(Ctx *cx, NodeList *in, NodeList *out);
static void mark_failed(Ctx *cx, Node *t);

/* Assign the typed value `v` (of type vt) to target t, appending typed
 * statements to out.  Tuple targets unpack through a temporary. */
static void assign_to(Ctx *cx, Node *t, Node *v, Loc loc, NodeList *out)
{
    switch (t->kind) {
    case N_NAME: {
        Var *var = find_var(cx, t->name.id);
        if (!var)
            die("unknown local %s", t->name.id);
        if (!v->type)
            return;
        if (v->type->kind == TY_ARRAY && var->type && var->type != v->type) {
            fail_at(cx, loc, "in %s: '%s' refers to arrays of different types", fname(cx), var->name);
            return;
        }
        widen(cx, var, v->type, loc);
        if (!cx->final || !var->type)
            return;
        Node *target = new_name(t->loc, var->name);
        target->name.sym = arena_alloc(sizeof(Sym));
        target->name.sym->kind = SYM_LOCAL;
        target->name.sym->var = var;
        typed(target, var->type);
        NodeList targets = {0};
        list_push(&targets, target);
        list_push(out, new_assign(loc, targets, cast_to(v, var->type)));
        return;
    }
    case N_TUPLE:
    case N_LIST: {
        int n = t->tuple.elts.len;
        if (!v->type)
            return;
        if (v->type->kind != TY_TUPLE || v->type->nelts != n) {
            fail_at(cx, loc, "in %s: cannot unpack %s into %d target%s", fname(cx), v->type->name, n,
                    n == 1 ? "" : "s");
            mark_failed(cx, t);
            return;
        }
        /* Evaluate the whole right side first, as Python does (a, b = b, a). */
        Node *src = v;
        if (cx->final) {
            Var *tmp = new_temp(cx, v->type);
            Node *tn = typed(new_name(loc, tmp->name), tmp->type);
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
            list_push(&one, const_node(loc, (Value){.type = ty_scalar(TY_INT64), .i = i}));
            Node *elt = typed(new_subscript(loc, src, one), v->type->elts[i]);
            assign_to(cx, t->tuple.elts.items[i], elt, loc, out);
        }
        return;
    }
    case N_SUBSCRIPT: {
        Node *target = expr(cx, t);
        if (!target->type || !v->type)
            return;
        Node *base = target->subscript.value;
        if (base->type->kind != TY_ARRAY) {
            fail_at(cx, t->loc, "in %s: %s cannot be assigned to by index (tuples cannot be changed)", fname(cx),
                    base->type->name);
            return;
        }
        if (!ty_can_convert(v->type, target->type)) {
            fail_at(cx, loc, "in %s: cannot store %s into an array of %s%s", fname(cx), v->type->name,
                    target->type->name,
                    ty_is_complex(v->type) && ty_is_scalar(target->type) ? " (take .real, .imag or abs() of it)" : "");
            return;
        }
        if (cx->final) {
            NodeList targets = {0};
            list_push(&targets, target);
            list_push(out, new_assign(loc, targets, cast_to(v, target->type)));
        }
        return;
    }
    case N_ATTR:
        fail_at(cx, t->loc, "in %s: assigning to an attribute is not supported", fname(cx));
        return;
    default:
        fail_at(cx, t->loc, "in %s: cannot assign to a %s", fname(cx), node_kind_names[t->kind]);
    }
}

/* After an error in what is assigned: the targets' later uses are not
 * errors of their own. */
static void mark_failed(Ctx *cx, Node *t)
{
    if (!cx->final)
        return;
    if (t->kind == N_NAME) {
        Var *v = find_var(cx, t->name.id);
        if (v)
            v->failed = true;
    } else if (t->kind == N_TUPLE || t->kind == N_LIST) {
        for (int i = 0; i < t->tuple.elts.len; i++)
            mark_failed(cx, t->tuple.elts.items[i]);
    }
}

static void assign_stmt(Ctx *cx, Node *s, NodeList *out)
{
    Node *v = expr(cx, s->assign.value);
    if (!v->type)
        for (int i = 0; i < s->assign.targets.len; i++)
            mark_failed(cx, s->assign.targets.items[i]);
    if (v->type && v->type->kind == TY_NONE) {
        fail_at(cx, s->assign.value->loc, "in %s: cannot assign None", fname(cx));
        return;
    }
    /* a = b = v: the first target gets v, the next ones the first target. */
    Node *first = NULL;
    for (int i = 0; i < s->assign.targets.len; i++) {
        Node *t = s->assign.targets.items[i];
        assign_to(cx, t, first ? first : v, s->loc, out);
        if (!first && t->kind == N_NAME && cx->final) {
            Var *var = find_var(cx, t->name.id);
            first = typed(new_name(t->loc, var->name), var->type);
            first->name.sym = arena_alloc(sizeof(Sym));
            first->name.sym->kind = SYM_LOCAL;
            first->name.sym->var = var;
        } else if (!first)
            first = v;
    }
}

/* x op= v is x = x op v; for a[i] op= v the index is evaluated once. */
static void augassign_stmt(Ctx *cx, Node *s, NodeList *out)
{
    Node *t = s->augassign.target;
    if (t->kind != N_NAME && t->kind != N_SUBSCRIPT) {
        fail_at(cx, t->loc, "in %s: augmented assignment to %s is not supported", fname(cx),
                t->kind == N_ATTR ? "an attribute" : t->kind == N_TUPLE ? "a tuple" : "this target");
        return;
    }
    Node *target = t;
    if (t->kind == N_SUBSCRIPT && cx->final) {
        /* hoist non-trivial indices into temporaries */
        NodeList idx = {0};
        for (int i = 0; i < t->subscript.index.len; i++) {
            Node *ix = t->subscript.index.items[i];
            if (is_simple(ix) || ix->kind == N_SLICE) {
                list_push(&idx, ix);
                continue;
            }
            Node *tv = expr(cx, ix);
            if (!tv->type)
                return;
            Var *tmp = new_temp(cx, tv->type);
            Node *tn = typed(new_name(ix->loc, tmp->name), tmp->type);
            tn->name.sym = arena_alloc(sizeof(Sym));
            tn->name.sym->kind = SYM_LOCAL;
            tn->name.sym->var = tmp;
            NodeList targets = {0};
            list_push(&targets, tn);
            list_push(out, new_assign(ix->loc, targets, tv));
            /* refer to the temporary by a name the resolver knows */
            Node *ref = new_name(ix->loc, tmp->name);
            tmp->temp = false;        /* visible to find_var from here on */
            list_push(&idx, ref);
        }
        target = new_subscript(t->loc, t->subscript.value, idx);
    }
    Node *bin = new_binary(s->loc, s->augassign.op, target, s->augassign.value);
    Node *v = expr(cx, bin);
    if (!v->type)
        mark_failed(cx, t);
    assign_to(cx, target, v, s->loc, out);
}

/* range(stop), range(start, stop), range(start, stop, step) */
static bool range_args(Ctx *cx, Node *iter, NodeList *args, Type **elt)
{
    int n = iter->call.args.len;
    if (n < 1 || n > 3) {
        fail_at(cx, iter->loc, "in %s: range() takes 1 to 3 arguments (%d given)", fname(cx), n);
        return false;
    }
    Type *t = NULL;
    bool ok = true, small = true;
    for (int i = 0; i < n; i++) {
        Node *a = expr(cx, iter->call.args.items[i]);
        list_push(args, a);
        if (!a->type) {
            ok = false;
            continue;
        }
        if (!ty_is_int(a->type) && !ty_is_bool(a->type)) {
            fail_at(cx, a->loc, "in %s: range() needs integers, not %s", fname(cx), a->type->name);
            return false;
        }
        /* literals are int64, but a literal next to int32 bounds keeps int32 */
        bool lit = a->kind == N_INT || a->kind == N_CONST;
        if (!lit)
            small = small && ty_bits(a->type) <= 32 && ty_is_signed(a->type);
        t = t ? ty_unify(t, a->type) : a->type;
    }
    if (!ok)
        return false;
    bool any_var = false;
    for (int i = 0; i < n; i++)
        any_var = any_var || !(args->items[i]->kind == N_INT || args->items[i]->kind == N_CONST);
    *elt = any_var && small ? ty_scalar(TY_INT32) : ty_is_unsigned(t) && t->kind == TY_UINT64 ? t : ty_scalar(TY_INT64);
    for (int i = 0; i < n; i++)
        args->items[i] = cast_to(args->items[i], *elt);
    return true;
}

/* The typed iterable of a for loop and its element type; NULL after an
 * error (reported in the final pass). */
static Node *loop_iter(Ctx *cx, Node *iter, Type **elt)
{
    Sym sym;
    bool builtin = iter->kind == N_CALL && resolve(cx, iter->call.func, &sym) && sym.kind == SYM_BUILTIN;
    if (builtin && sym.builtin == B_RANGE) {
        NodeList args = {0};
        if (iter->call.kwargs.len)
            return fail_at(cx, iter->loc, "in %s: range() takes no keyword arguments", fname(cx));
        if (!range_args(cx, iter, &args, elt))
            return NULL;
        return mkcall(iter, B_RANGE, &args, NULL);
    }
    if (builtin && sym.builtin == B_UNSUPPORTED
        && (strcmp(sym.name, "enumerate") == 0 || strcmp(sym.name, "zip") == 0))
        return fail_at(cx, iter->loc, "in %s: %s() is not supported in ufn; loop over range(len(a)) and index the arrays",
                       fname(cx), sym.name);
    Node *it = expr(cx, iter);
    if (!it->type)
        return NULL;
    if (it->type->kind != TY_ARRAY || it->type->ndim != 1)
        return fail_at(cx, iter->loc, "in %s: can only loop over range() or a one-dimensional array, not %s%s",
                       fname(cx), it->type->name,
                       it->type->kind == TY_ARRAY ? " (loop over range(a.shape[0]) and index with a[i, j])" : "");
    *elt = it->type->elt;
    return it;
}

/* A loop whose header is wrong still has its body checked, with the loop
 * variable unknown (and quiet). */
static void for_stmt(Ctx *cx, Node *s, NodeList *out)
{
    Node *target = s->forstmt.target;
    bool ok = true;
    if (s->forstmt.orelse.len) {
        fail_at(cx, s->loc, "in %s: 'else' on a for loop is not supported", fname(cx));
        ok = false;
    }
    Type *elt = NULL;
    Node *typed_iter = loop_iter(cx, s->forstmt.iter, &elt);
    ok = ok && typed_iter;
    if (typed_iter && target->kind != N_NAME) {
        fail_at(cx, target->loc, "in %s: the loop variable must be a single name", fname(cx));
        ok = false;
    }
    Var *var = target->kind == N_NAME ? find_var(cx, target->name.id) : NULL;
    if (ok)
        widen(cx, var, elt, target->loc);
    else
        mark_failed(cx, target);
    NodeList body = {0}, scratch = {0}, none = {0};
    cx->loops++;
    block(cx, &s->forstmt.body, &body);
    cx->loops--;
    block(cx, &s->forstmt.orelse, &scratch);
    if (!cx->final || !ok)
        return;
    Node *tv = typed(new_name(target->loc, var->name), var->type);
    tv->name.sym = arena_alloc(sizeof(Sym));
    tv->name.sym->kind = SYM_LOCAL;
    tv->name.sym->var = var;
    list_push(out, new_for(s->loc, tv, typed_iter, body, none));
}

static void return_stmt(Ctx *cx, Node *s, NodeList *out)
{
    Instance *inst = cx->inst;
    Func *f = inst->func;
    Node *v = s->ret.value ? expr(cx, s->ret.value) : NULL;
    if (v && !v->type)
        return;
    if (f->kind == FK_GUVECTORIZE) {
        if (v && v->type->kind != TY_NONE) {
            fail_at(cx, s->loc, "in %s: a @guvectorize function cannot return a value; write to its output array",
                    fname(cx));
            return;
        }
        if (cx->final)
            list_push(out, new_return(s->loc, NULL));
        return;
    }
    Type *vt = v ? v->type : ty_none();
    if (f->kind == FK_VECTORIZE && inst->sig->ret) {
        if (vt->kind == TY_NONE) {
            fail_at(cx, s->loc, "in %s: 'return' needs a value: the function returns %s", fname(cx),
                    inst->ret->name);
            return;
        }
        if (!ty_can_convert(vt, inst->ret)) {
            fail_at(cx, s->loc, "in %s: cannot return %s from a function declared to return %s%s", fname(cx),
                    vt->name, inst->ret->name,
                    ty_is_complex(vt) && ty_is_scalar(inst->ret) ? " (take .real, .imag or abs() of it)" : "");
            return;
        }
    } else {
        /* helpers (and vectorize without a declared return type) infer it */
        Type *nt = inst->ret ? ty_unify(inst->ret, vt) : vt;
        if (inst->ret && inst->ret->kind == TY_NONE && vt->kind == TY_NONE)
            nt = vt;
        if (!nt) {
            fail_at(cx, s->loc, "in %s: returns %s here but %s elsewhere; they cannot be unified", fname(cx),
                    vt->name, inst->ret->name);
            return;
        }
        if (nt != inst->ret) {
            inst->ret = nt;
            cx->changed = true;
        }
        if (f->kind == FK_VECTORIZE && (nt->kind != TY_NONE && !ty_is_scalar(nt))) {
            fail_at(cx, s->loc, "in %s: a @vectorize function must return a scalar, not %s", fname(cx), nt->name);
            return;
        }
    }
    if (cx->final)
        list_push(out, new_return(s->loc, v && vt->kind != TY_NONE ? cast_to(v, inst->ret) : NULL));
}

static void stmt(Ctx *cx, Node *s, NodeList *out)
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
        Node *e = expr(cx, s->exprstmt.expr);
        if (cx->final && e->type)
            list_push(out, new_exprstmt(s->loc, e));
        return;
    }
    case N_IF: {
        Node *c = truth(cx, s->ifstmt.cond);
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
            fail_at(cx, s->loc, "in %s: 'else' on a while loop is not supported", fname(cx));
            ok = false;
        }
        Node *c = truth(cx, s->whilestmt.cond);
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
            fail_at(cx, s->loc, "in %s: '%s' outside a loop", fname(cx), s->kind == N_BREAK ? "break" : "continue");
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
        fail_at(cx, s->loc, "in %s: nested functions are not supported; define '%s' at module level", fname(cx),
                s->funcdef.name);
        return;
    case N_IMPORT:
    case N_IMPORTFROM:
        fail_at(cx, s->loc, "in %s: import inside a function is not supported; import at module level", fname(cx));
        return;
    case N_UNSUPPORTED:
        fail_at(cx, s->loc, "in %s: %s is not supported in ufn", fname(cx), s->unsupported.what);
        return;
    default:
        fail_at(cx, s->loc, "in %s: unexpected %s statement", fname(cx), node_kind_names[s->kind]);
    }
}

static void block(Ctx *cx, NodeList *in, NodeList *out)
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

void infer_instance(Checker *ck, Instance *inst, bool final)
{
    Func *f = inst->func;
    Node *def = f->def;
    if (!inst->vars) {
        for (int i = 0; i < def->funcdef.params.len; i++) {
            Node *p = def->funcdef.params.items[i];
            Var *v = add_var(inst, p->name.id, p->loc);
            v->param = true;
            v->type = inst->args[i];
        }
        collect_locals(inst, &def->funcdef.body);
    }
    Ctx cx = {.ck = ck, .inst = inst, .mod = f->module};
    int pass = 0;
    do {
        cx.changed = false;
        cx.ntemps = 0;
        NodeList scratch = {0};
        block(&cx, &def->funcdef.body, &scratch);
        if (++pass > MAX_PASSES)
            die("type inference of %s did not converge", f->name);
    } while (cx.changed);
    if (!final)
        return;
    check_assigned_before_use(inst);
    cx.final = true;
    cx.changed = false;
    inst->body.len = 0;
    block(&cx, &def->funcdef.body, &inst->body);
    if (cx.changed && !inst->failed)
        die("type of a variable of %s changed in the final pass", f->name);
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
