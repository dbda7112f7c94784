/* infer_node.c - what the three typing files share (infer.c statements,
 * infer_expr.c expressions, infer_call.c calls): errors in a pass, the
 * instance's variables, and typed nodes - literals and folded constants,
 * conversions, and the arithmetic operators with Numba's promotion rules -
 * and the instance of a helper for a tuple of argument types. */
#include "ufnc.h"

#include <string.h>

/* ---- errors ------------------------------------------------------------------------ */

const char *infer_fname(Infer *cx)
{
    return cx->inst->func->name;
}


Node *infer_fail(Infer *cx, Loc loc, const char *fmt, ...)
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
    } else
        cx->inst->probe_failed = true;
    return NULL;
}

/* A node of unknown type: the result of an error, or of a silent pass
 * meeting a variable not typed yet. */
Node *infer_unknown(Node *e)
{
    Node *n = new_node(e->kind, e->loc);
    return n;
}

/* ---- variables -------------------------------------------------------------- */

Var *infer_find_var(Infer *cx, const char *name)
{
    for (int i = 0; i < cx->inst->nvars; i++)
        if (cx->inst->vars[i]->name == name && !cx->inst->vars[i]->temp)
            return cx->inst->vars[i];
    return NULL;
}

Var *infer_add_var(Instance *inst, const char *name, Loc loc)
{
    Var *v = arena_alloc(sizeof *v);
    v->name = name;
    v->loc = loc;
    Var **vars = arena_alloc(sizeof(Var *) * (size_t)(inst->nvars + 1));
    if (inst->nvars)
        memcpy(vars, inst->vars, sizeof(Var *) * (size_t)inst->nvars);
    vars[inst->nvars++] = v;
    inst->vars = vars;
    return v;
}

Var *infer_new_temp(Infer *cx, Type *t)
{
    /* named for -d types only: a temporary is found by its Var, never by name */
    Var *v = infer_add_var(cx->inst, intern_cstr(arena_printf("tmp%d", cx->ntemps)), cx->inst->func->def->loc);
    v->type = t;
    v->temp = true;
    cx->ntemps++;
    return v;
}

/* ---- building typed nodes ------------------------------------------------------ */

Node *infer_typed(Node *n, Type *t)
{
    n->type = t;
    return n;
}

bool infer_is_literal(const Node *e)
{
    return e->kind == N_CONST;
}

Value infer_literal_value(const Node *e)
{
    Value v = {.type = e->type, .weak = e->konst.weak};
    memcpy(&v.i, &e->konst.v, sizeof e->konst.v);
    return v;
}

Node *infer_const(Loc loc, Value v)
{
    Node *n = new_node(N_CONST, loc);
    memcpy(&n->konst.v, &v.i, sizeof n->konst.v);
    n->konst.weak = v.weak;
    return infer_typed(n, v.type);
}


/* A Python number written in the source (or a module constant computed
 * from such numbers): weak in NumPy's sense (NEP 50). */
bool infer_is_weak(const Node *e)
{
    return e->kind == N_CONST && e->konst.weak;
}

/* --literals=numpy: a weak number meeting a float32 (or complex64) operand
 * takes that type, as NumPy 2 types Python scalars; Numba (the default)
 * computes int64 and float64 literals in float64. */
void infer_narrow(Infer *cx, Node **l, Node **r)
{
    if (!cx->mod->opt->numpy_literals)
        return;
    Type *lt = (*l)->type, *rt = (*r)->type;
    bool lnarrow = lt->kind == TY_FLOAT32 || lt->kind == TY_COMPLEX64;
    bool rnarrow = rt->kind == TY_FLOAT32 || rt->kind == TY_COMPLEX64;
    if (infer_is_weak(*r) && !infer_is_weak(*l) && lnarrow && !ty_is_complex(rt))
        *r = infer_cast(*r, lt->kind == TY_COMPLEX64 ? ty_scalar(TY_FLOAT32) : lt);
    else if (infer_is_weak(*l) && !infer_is_weak(*r) && rnarrow && !ty_is_complex(lt))
        *l = infer_cast(*l, rt->kind == TY_COMPLEX64 ? ty_scalar(TY_FLOAT32) : rt);
}

/* Convert e to t: literals fold (2 becomes 2.0), others get an N_CAST. */
Node *infer_cast(Node *e, Type *t)
{
    if (!e || !e->type || !t || e->type == t)
        return e;
    if (infer_is_literal(e) && ty_is_scalar(t) && ty_is_scalar(e->type))
        return infer_const(e->loc, value_cast(infer_literal_value(e), t));
    Node *c = new_node(N_CAST, e->loc);
    c->cast.operand = e;
    return infer_typed(c, t);
}


/* ---- names and operators ------------------------------------------------------------ */

/* Resolve a name or a dotted module attribute to a symbol. */
bool infer_resolve(Infer *cx, const Node *e, Sym *out)
{
    /* a temporary the checker refers to (the source never resolves names) */
    if (e->kind == N_NAME && e->name.sym && e->name.sym->kind == SYM_LOCAL) {
        *out = *e->name.sym;
        return true;
    }
    /* a local shadows a module-level name, as in Python */
    const Node *base = e->kind == N_ATTR ? e->attr.value : e;
    Var *v = base->kind == N_NAME ? infer_find_var(cx, base->name.id) : NULL;
    if (v && e->kind == N_NAME) {
        memset(out, 0, sizeof *out);
        out->kind = SYM_LOCAL;
        out->name = v->name;
        out->var = v;
        return true;
    }
    if (v)
        return false;             /* an attribute of a value, not of a module */
    return resolve_global(cx->mod, e, out);
}

/* Operands that can be evaluated twice without a temporary. */
bool infer_is_simple(const Node *e)
{
    return e->kind == N_NAME || infer_is_literal(e);
}

const char *infer_opname(Op op)
{
    return op_names[op];
}

/* A Python int of 2**63 or more is uint64 (Numba's typeof), and uint64 with
 * a signed integer computes in int64 (NBEP 1), as Numba does: the value
 * wraps.  ufnc computes what Numba computes, and says so. */
static void warn_wrapping(Infer *cx, const Node *k, Type *t)
{
    if (!cx->final || k->kind != N_CONST || !k->konst.weak || k->type->kind != TY_UINT64
        || k->konst.v.u <= INT64_MAX || !ty_is_signed(t))
        return;
    diag_warning_group(k->loc, "sign-conversion", "in %s: %llu is a uint64, and with a signed integer it computes in %s (as in Numba), where it is %lld; make the other operand unsigned or a float",
                 infer_fname(cx), (unsigned long long)k->konst.v.u, t->name, (long long)(int64_t)k->konst.v.u);
}

Node *infer_binary(Infer *cx, Node *e, Node *l, Node *r)
{
    Op op = e->binary.op;
    if (!l->type || !r->type)
        return infer_unknown(e);
    if (ty_is_scalar(l->type) && ty_is_scalar(r->type) && op != OP_POW)
        infer_narrow(cx, &l, &r);
    if (op == OP_POW && ty_is_scalar(l->type) && ty_is_float(r->type))
        infer_narrow(cx, &l, &r);       /* x ** 0.5 stays float32; x ** 2 already does */
    Type *lt = l->type, *rt = r->type;
    if (!ty_is_scalar(lt) || !ty_is_scalar(rt)) {
        if (lt->kind == TY_ARRAY || rt->kind == TY_ARRAY)
            return infer_fail(cx, e->loc, "in %s: operator '%s' on whole arrays is not supported; index the array elements",
                           infer_fname(cx), infer_opname(op)), infer_unknown(e);
        return infer_fail(cx, e->loc, "in %s: unsupported operand types for '%s': %s and %s", infer_fname(cx),
                       infer_opname(op), lt->name, rt->name), infer_unknown(e);
    }
    Type *t;
    Node *n = new_binary(e->loc, op, NULL, NULL);
    bool intish = (ty_is_int(lt) || ty_is_bool(lt)) && (ty_is_int(rt) || ty_is_bool(rt));
    switch (op) {
    case OP_ADD:
    case OP_SUB:
    case OP_MUL:
        t = ty_arith(lt, rt);
        warn_wrapping(cx, l, t);
        warn_wrapping(cx, r, t);
        n->binary.lhs = infer_cast(l, t);
        n->binary.rhs = infer_cast(r, t);
        return infer_typed(n, t);
    case OP_DIV:
        t = intish ? ty_scalar(TY_FLOAT64) : ty_arith(lt, rt);
        n->binary.lhs = infer_cast(l, t);
        n->binary.rhs = infer_cast(r, t);
        return infer_typed(n, t);
    case OP_FLOORDIV:
    case OP_MOD:
        if (ty_is_complex(lt) || ty_is_complex(rt))
            return infer_fail(cx, e->loc, "in %s: '%s' is not defined for complex numbers", infer_fname(cx),
                           infer_opname(op)), infer_unknown(e);
        t = ty_arith(lt, rt);
        warn_wrapping(cx, l, t);
        warn_wrapping(cx, r, t);
        n->binary.lhs = infer_cast(l, t);
        n->binary.rhs = infer_cast(r, t);
        return infer_typed(n, t);
    case OP_POW:
        if (intish) {
            t = ty_arith(lt, rt);
            warn_wrapping(cx, l, t);
            n->binary.lhs = infer_cast(l, t);
            n->binary.rhs = infer_cast(r, ty_scalar(TY_INT64));
        } else if (ty_is_float(lt) && (ty_is_int(rt) || ty_is_bool(rt))) {
            /* float ** int keeps the float type (repeated multiplication) */
            t = lt;
            n->binary.lhs = l;
            n->binary.rhs = infer_cast(r, ty_scalar(TY_INT64));
        } else {
            t = ty_arith(lt, rt);
            if (ty_is_int(t))
                t = ty_scalar(TY_FLOAT64);
            n->binary.lhs = infer_cast(l, t);
            n->binary.rhs = infer_cast(r, t);
        }
        return infer_typed(n, t);
    case OP_LSHIFT:
    case OP_RSHIFT:
    case OP_BITAND:
    case OP_BITOR:
    case OP_BITXOR:
        if (!intish)
            return infer_fail(cx, e->loc, "in %s: operator '%s' needs integers, not %s and %s", infer_fname(cx),
                           infer_opname(op), lt->name, rt->name), infer_unknown(e);
        if (ty_is_bool(lt) && ty_is_bool(rt) && op != OP_LSHIFT && op != OP_RSHIFT)
            t = lt;
        else if (op == OP_LSHIFT || op == OP_RSHIFT)
            t = ty_scalar(ty_is_unsigned(lt) ? TY_UINT64 : TY_INT64);   /* the left operand's word */
        else
            t = ty_arith(lt, rt);
        n->binary.lhs = infer_cast(l, t);
        n->binary.rhs = infer_cast(r, (op == OP_LSHIFT || op == OP_RSHIFT) ? ty_scalar(TY_INT64) : t);
        if (op == OP_RSHIFT || op == OP_LSHIFT)
            n->binary.rhs = infer_cast(r, ty_is_unsigned(rt) ? ty_scalar(TY_UINT64) : ty_scalar(TY_INT64));
        return infer_typed(n, t);
    case OP_MATMUL:
        return infer_fail(cx, e->loc, "in %s: '@' (matrix multiplication) is not supported", infer_fname(cx)),
               infer_unknown(e);
    default:
        unreachable();
    }
}

Node *infer_mkcall(Node *e, int b, NodeList *args, Type *t)
{
    Node *n = new_call(e->loc, e->call.func);
    n->call.args = *args;
    n->call.builtin = b;
    return infer_typed(n, t);
}

Node *infer_arity(Infer *cx, Node *e, const char *name, int min, int max, int n)
{
    if (n >= min && n <= max)
        return NULL;
    if (min == max)
        return infer_fail(cx, e->loc, "in %s: %s() takes %d argument%s (%d given)", infer_fname(cx), name, min,
                       min == 1 ? "" : "s", n), infer_unknown(e);
    return infer_fail(cx, e->loc, "in %s: %s() takes %d to %d arguments (%d given)", infer_fname(cx), name, min, max, n),
           infer_unknown(e);
}

/* ---- instances --------------------------------------------------------------------- */

Instance *find_instance(const Func *f, Type *const *args, int nargs)
{
    for (int i = 0; i < f->ninstances; i++)
        if (f->instances[i]->nargs == nargs && memcmp(f->instances[i]->args, args, sizeof(Type *) * (size_t)nargs) == 0)
            return f->instances[i];
    return NULL;
}
