/* emit_expr.c - the C spelling of a typed expression of a scalar body: the
 * checker decided every type and conversion (N_CAST), and this file only
 * spells them, with the runtime's helpers (ufn_math.h, ufn_complex.h) where
 * C's operators would differ from Python's or Numba's. */
#include "ufnc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- constants ---------------------------------------------------------------------- */

static void emit_float(Emitter *em, double v, bool f32)
{
    if (v != v) {
        emit_text(em, f32 ? "NAN" : "(double)NAN");
        return;
    }
    if (isinf(v)) {
        emit_text(em, "%s%s", v < 0 ? "-" : "", f32 ? "INFINITY" : "(double)INFINITY");
        return;
    }
    char buf[64];
    snprintf(buf, sizeof buf, f32 ? "%.9g" : "%.17g", v);
    /* prefer the shortest spelling that reads back exactly */
    for (int prec = 1; prec <= (f32 ? 9 : 17); prec++) {
        char t[64];
        snprintf(t, sizeof t, "%.*g", prec, v);
        if (f32 ? (float)strtod(t, NULL) == (float)v : strtod(t, NULL) == v) {
            memcpy(buf, t, sizeof t);
            break;
        }
    }
    bool has_point = strpbrk(buf, ".eE") != NULL;
    emit_text(em, "%s%s%s", buf, has_point ? "" : ".0", f32 ? "f" : "");
}

static void emit_const(Emitter *em, const Node *e)
{
    Type *t = e->type;
    const double *c = e->konst.v.c;
    switch (t->kind) {
    case TY_BOOL:
        emit_text(em, e->konst.v.i ? "true" : "false");
        return;
    case TY_INT64: {
        int64_t v = e->konst.v.i;
        if (v == INT64_MIN)
            emit_text(em, "(-INT64_C(9223372036854775807) - 1)");
        else if (v >= INT32_MIN && v <= INT32_MAX)
            emit_text(em, "%lld", (long long)v);
        else
            emit_text(em, "INT64_C(%lld)", (long long)v);
        return;
    }
    case TY_UINT64:
        emit_text(em, "UINT64_C(%llu)", (unsigned long long)e->konst.v.u);
        return;
    case TY_INT8: case TY_INT16: case TY_INT32:
        emit_text(em, "(%s)%lld", c_type(t), (long long)e->konst.v.i);
        return;
    case TY_UINT8: case TY_UINT16: case TY_UINT32:
        emit_text(em, "(%s)%lluu", c_type(t), (unsigned long long)e->konst.v.u);
        return;
    case TY_FLOAT32:
    case TY_FLOAT64:
        emit_float(em, e->konst.v.f, t->kind == TY_FLOAT32);
        return;
    case TY_COMPLEX64:
    case TY_COMPLEX128: {
        bool f32 = t->kind == TY_COMPLEX64;
        emit_text(em, "%s_make(", f32 ? "ufn_c64" : "ufn_c128");
        emit_float(em, c[0], f32);
        emit_text(em, ", ");
        emit_float(em, c[1], f32);
        emit_text(em, ")");
        return;
    }
    default:
        die("constant of type %s", t->name);
    }
}

/* ---- division by an integer constant ---------------------------------------------------- */

/* A division spelled without the divider: ufn_div_const_f32 / _f64
 * (include/ufn_math.h) give the IEEE quotient's bits on every x, by the proof
 * there, for an odd integer divisor 3 <= |d| < 2^22 (float32) or 2^50
 * (float64).  Even divisors keep `/`: an exact subnormal midpoint would
 * round the wrong way (powers of two are products, which cc makes itself).
 * Numba's float32 x / 255 is a float64 division rounded to float32 at once:
 * RN32(RN64(x/d)) = RN32(x/d) for float32 x and d (53 >= 2*24 + 2), which is
 * why cc narrows it to one vdivps, and why it may take the float32 helper.
 * A float64 quotient that stays float64 takes the float64 one. */
typedef struct DivConst {
    bool f32;                      /* ufn_div_const_f32, else _f64 */
    const Node *x;                 /* the numerator, of the helper's type */
    double d;                      /* |divisor| */
    bool neg;                      /* a negative divisor: -(x / |d|) */
} DivConst;

/* Whether `div`, wanted as type `to`, has the shape the helper takes: a
 * float division by an odd integer constant in range. */
static bool div_const_shape(const Node *div, const Type *to, DivConst *dc)
{
    if (div->kind != N_BINARY || div->binary.op != OP_DIV)
        return false;
    const Node *x = div->binary.lhs, *r = div->binary.rhs;
    if (r->kind != N_CONST || !ty_is_float(r->type) || !ty_is_float(div->type))
        return false;
    double d = fabs(r->konst.v.f);
    bool f32 = div->type->kind == TY_FLOAT32;
    if (!f32 && to->kind == TY_FLOAT32 && x->kind == N_CAST && x->cast.operand->type->kind == TY_FLOAT32
        && (double)(float)d == d) {
        f32 = true;                /* (float)((double)x / d), x float32: x / d in float32 */
        x = x->cast.operand;
    }
    if (!(d >= 3 && d < (f32 ? 0x1p22 : 0x1p50) && fmod(d, 2.0) == 1.0))
        return false;
    *dc = (DivConst){.f32 = f32, .x = x, .d = d, .neg = r->konst.v.f < 0};
    return true;
}

/* What a walk over a body looks for (reaches). */
typedef enum Seek {
    SEEK_CALL,                     /* a call of one body's C function */
    SEEK_MATH,                     /* a function of the math library (math.def: exp, sin, ...) */
    SEEK_DIV                       /* a division of the helper's shape */
} Seek;

static bool reaches(const Node *n, Seek seek, const Instance *target, int depth);

static bool list_reaches(const NodeList *l, Seek seek, const Instance *target, int depth)
{
    for (int i = 0; i < l->len; i++)
        if (reaches(l->items[i], seek, target, depth))
            return true;
    return false;
}

/* Whether n holds what `seek` names (SEEK_CALL: a call of `target`), itself
 * or in the helpers it calls (a composed body: they are inlined into its
 * loop).  A call and a division are not looked for inside a recursive
 * helper: it has no divider copy, and calls its callees by their own names.
 * A division counts with its own type as `to`: a float64 quotient too wide
 * for the float32 helper then takes the float64 one. */
static bool reaches(const Node *n, Seek seek, const Instance *target, int depth)
{
    if (!n || depth > 8)           /* a recursive helper, or a deep chain: enough */
        return false;
    switch (n->kind) {
    case N_ASSIGN:
        return list_reaches(&n->assign.targets, seek, target, depth) || reaches(n->assign.value, seek, target, depth);
    case N_EXPRSTMT: return reaches(n->exprstmt.expr, seek, target, depth);
    case N_IF:
        return reaches(n->ifstmt.cond, seek, target, depth) || list_reaches(&n->ifstmt.then, seek, target, depth)
               || list_reaches(&n->ifstmt.orelse, seek, target, depth);
    case N_WHILE:
        return reaches(n->whilestmt.cond, seek, target, depth) || list_reaches(&n->whilestmt.body, seek, target, depth);
    case N_FOR:
        return reaches(n->forstmt.iter, seek, target, depth) || list_reaches(&n->forstmt.body, seek, target, depth);
    case N_RETURN: return reaches(n->ret.value, seek, target, depth);
    case N_UNARY: return reaches(n->unary.operand, seek, target, depth);
    case N_BINARY: {
        DivConst dc;
        if (seek == SEEK_DIV && div_const_shape(n, n->type, &dc))
            return true;
        return reaches(n->binary.lhs, seek, target, depth) || reaches(n->binary.rhs, seek, target, depth);
    }
    case N_BOOLOP: return reaches(n->boolop.lhs, seek, target, depth) || reaches(n->boolop.rhs, seek, target, depth);
    case N_COMPARE:
        for (int i = 0; i <= n->compare.n; i++)
            if (reaches(n->compare.operands[i], seek, target, depth))
                return true;
        return false;
    case N_IFEXP:
        return reaches(n->ifexp.cond, seek, target, depth) || reaches(n->ifexp.then, seek, target, depth)
               || reaches(n->ifexp.orelse, seek, target, depth);
    case N_CALL: {
        const Instance *c = n->call.callee;
        if (seek == SEEK_CALL ? c && c->cname && !strcmp(c->cname, target->cname)
                              : seek == SEEK_MATH && (n->call.builtin == B_MATH || n->call.builtin == B_CMATH))
            return true;
        if (c && !(seek != SEEK_MATH && c->recursive) && list_reaches(&c->body, seek, target, depth + 1))
            return true;
        return list_reaches(&n->call.args, seek, target, depth);
    }
    case N_ATTR: return reaches(n->attr.value, seek, target, depth);
    case N_SUBSCRIPT:
        return reaches(n->subscript.value, seek, target, depth) || list_reaches(&n->subscript.index, seek, target, depth);
    case N_TUPLE: return list_reaches(&n->tuple.elts, seek, target, depth);
    case N_CAST: return reaches(n->cast.operand, seek, target, depth);
    default: return false;
    }
}

/* Whether the body `inst` evaluates math functions in its loop: it calls
 * one, itself or through the helpers inlined into it. */
static bool in_math_loop(const Instance *inst)
{
    return list_reaches(&inst->body, SEEK_MATH, NULL, 0);
}

/* Whether the body being written is compiled into a loop that evaluates
 * math functions: a body that calls one, or a divider copy (which only
 * such bodies call). */
static bool writing_math_loop(const Emitter *em)
{
    return em->body && (em->divider_copy || in_math_loop(em->body));
}

/* Whether `inst` gets a divider copy (emit_body.c writes it, named by
 * divider_c_name): a second C function of the same body whose divisions keep
 * `/`, for the bodies whose loops evaluate math functions (div_const says
 * why), while its own loop and every other caller keep the helper.  It needs
 * one when it does not call a math function itself (else it keeps `/`
 * anyway), is not recursive (UFN_RECURSIVE bodies are not inlined into a
 * loop), divides as the helper would, itself or in a helper it calls, and a
 * body that calls a math function calls it, directly or through other
 * helpers.  @cuda.jit kernels are not such callers: their code calls the
 * bodies by their own names (emit_kernel.c). */
bool has_divider_copy(const Module *m, const Instance *inst)
{
    if (inst->recursive || in_math_loop(inst) || !list_reaches(&inst->body, SEEK_DIV, NULL, 0))
        return false;
    for (int i = 0; i < m->nhelpers; i++)
        if (list_reaches(&m->helpers[i]->body, SEEK_CALL, inst, 0) && in_math_loop(m->helpers[i]))
            return true;
    for (int i = 0; i < m->nkernels; i++) {
        if (m->kernels[i]->kind == FK_CUDA_KERNEL)
            continue;
        for (int k = 0; k < m->kernels[i]->ninstances; k++) {
            const Instance *caller = m->kernels[i]->instances[k];
            if (list_reaches(&caller->body, SEEK_CALL, inst, 0) && in_math_loop(caller))
                return true;
        }
    }
    return false;
}

/* Whether `div`, whose value is wanted as type `to` (its own type, or
 * float32 when a conversion follows at once), is spelled with the helper.
 * The one place that decides it.
 *
 * The cost, measured (bench/RESULTS.md, "Division by a constant without the
 * divider"; interleaved rounds against the build before, load 0.8-1.3 on
 * 2 CPUs): the helper is a product, two fmas and a select on the ports the
 * rest of a loop needs, `/` is the divider beside them.  Alone, normalize's
 * x / 255 over a chunk in cache went from 0.19-0.20 to 0.105-0.112 ns an
 * element, and the hidden layer as a deferred pipeline from 1.25-1.36x to
 * 1.21-1.31x of one memory pass (3-8 % less time; 1e7 and 1e8, one and two
 * threads).  In a loop that also evaluates exp polynomials the fma ports
 * bind and the divider was idle: the composed hidden() (normalize inlined
 * beside activate's exps) took 6-10 % longer in cache and 3-9 % at
 * 1e7-1e8.  So a body compiled into a loop that evaluates a math function
 * keeps `/` (writing_math_loop): one that calls one, itself or through its
 * helpers, and the divider copy of a body such a loop inlines - a body is
 * one C function for every loop it is inlined into, so normalize, inlined
 * into hidden(), gets a second one with `/` (has_divider_copy) that
 * hidden() calls, and normalize's own loop, the pipeline's, keeps the
 * helper.  Measured so (branch divcopy, 11 interleaved rounds against the
 * single-function rule, load 0.9-1.3): the pipeline from 1.24-1.35x to
 * 1.19-1.25x of one memory pass (3-15 % less time), the composed loop the
 * same instructions and times within the rounds' spread. */
static bool div_const(const Emitter *em, const Node *div, const Type *to, DivConst *dc)
{
    return !writing_math_loop(em) && div_const_shape(div, to, dc);
}

/* The C function a body calls for the helper `c`: its divider copy where
 * the caller's loop evaluates math functions and c has one. */
static const char *callee_c_name(const Emitter *em, const Instance *c)
{
    return writing_math_loop(em) && has_divider_copy(em->mod, c) ? divider_c_name(c) : c->cname;
}

/* A float64 quotient converted to float32 at once that is done in float32. */
static bool div_const_narrowed(const Emitter *em, const Node *e, const Type *to, DivConst *dc)
{
    return e->type->kind == TY_FLOAT64 && div_const(em, e, to, dc) && dc->f32;
}

/* ufn_div_const_f32(v_x, 255.0f, 0x1.010102p-8f): y = RN(1 / |d|), worked
 * out here in the helper's format (C's division is IEEE's). */
static void emit_div_const(Emitter *em, const DivConst *dc)
{
    double y = dc->f32 ? (double)(1.0f / (float)dc->d) : 1.0 / dc->d;
    emit_text(em, "%sufn_div_const_%s(", dc->neg ? "-" : "", dc->f32 ? "f32" : "f64");
    emit_expr(em, dc->x);
    emit_text(em, ", ");
    emit_float(em, dc->d, dc->f32);
    emit_text(em, ", %a%s)", y, dc->f32 ? "f" : "");
}

/* ---- expressions ---------------------------------------------------------------------- */

/* Binary operations that are spelled as a helper call. */
static bool binary_is_call(const Emitter *em, const Node *e)
{
    Type *t = e->type;
    DivConst dc;
    switch (e->binary.op) {
    case OP_FLOORDIV: case OP_MOD: case OP_POW: case OP_LSHIFT: case OP_RSHIFT:
        return true;
    case OP_ADD: case OP_SUB: case OP_MUL:
        return t->kind == TY_INT64 || ty_is_complex(t);
    case OP_DIV:
        return ty_is_complex(t) || (div_const(em, e, t, &dc) && !dc.neg);
    default:
        return false;
    }
}

/* Operands are parenthesised unless they are atoms: simple and safe in both
 * C and C++, and still readable. */
static bool atomic(const Emitter *em, const Node *e)
{
    DivConst dc;
    switch (e->kind) {
    case N_NAME:
    case N_CALL:
    case N_SUBSCRIPT:
    case N_ATTR:
        return true;
    case N_CONST:
        return !(ty_is_float(e->type) && e->konst.v.f < 0) && !(ty_is_int(e->type) && e->konst.v.i < 0
                                                                 && ty_is_signed(e->type));
    case N_BINARY:
        return binary_is_call(em, e);
    case N_CAST:
        /* the conversions spelled as calls */
        return ty_is_complex(e->type) || e->type->kind == TY_TUPLE
               || (ty_is_float(e->cast.operand->type) && ty_is_int(e->type))
               || (div_const_narrowed(em, e->cast.operand, e->type, &dc) && !dc.neg);
    default:
        return false;
    }
}

/* Expressions that emit their own parentheses: comparisons, conditional
 * expressions, and/or returning an operand. */
static bool self_wrapped(const Node *e)
{
    return e->kind == N_COMPARE || e->kind == N_IFEXP || (e->kind == N_BOOLOP && !ty_is_bool(e->type));
}

void emit_operand(Emitter *em, const Node *e)
{
    if (atomic(em, e) || self_wrapped(e))
        emit_expr(em, e);
    else {
        emit_text(em, "(");
        emit_expr(em, e);
        emit_text(em, ")");
    }
}

static const char *csfx(const Type *t)
{
    return t->kind == TY_COMPLEX64 ? "c64" : "c128";
}

/* The 64-bit type a narrow integer is widened to for a helper call. */
static const char *wide_sfx(const Type *t)
{
    if (ty_is_float(t))
        return type_tag(t);
    return ty_is_unsigned(t) ? "u64" : "i64";
}

static void call2(Emitter *em, const char *fn, const Node *a, const Node *b)
{
    emit_text(em, "%s(", fn);
    emit_expr(em, a);
    emit_text(em, ", ");
    emit_expr(em, b);
    emit_text(em, ")");
}

static void emit_truth(Emitter *em, const Node *e)
{
    Type *t = e->type;
    if (ty_is_bool(t)) {
        emit_expr(em, e);
    } else if (ty_is_complex(t)) {
        emit_text(em, "ufn_%s_ne(", csfx(t));
        emit_expr(em, e);
        emit_text(em, ", ufn_%s_make(0, 0))", csfx(t));
    } else {
        emit_operand(em, e);
        emit_text(em, " != 0");
    }
}

static void emit_binary(Emitter *em, const Node *e)
{
    Type *t = e->type;
    Op op = e->binary.op;
    const Node *l = e->binary.lhs, *r = e->binary.rhs;
    if (ty_is_complex(t)) {
        static const char *const names[] = {[OP_ADD] = "add", [OP_SUB] = "sub", [OP_MUL] = "mul",
                                            [OP_DIV] = "div", [OP_POW] = "pow"};
        call2(em, arena_printf("ufn_%s_%s", csfx(t), names[op]), l, r);
        return;
    }
    switch (op) {
    case OP_ADD: case OP_SUB: case OP_MUL:
        if (t->kind == TY_INT64) {
            /* Python's integers wrap in Numba; C's signed overflow is undefined */
            call2(em, op == OP_ADD ? "ufn_add_i64" : op == OP_SUB ? "ufn_sub_i64" : "ufn_mul_i64", l, r);
            return;
        }
        break;
    case OP_DIV: {
        DivConst dc;
        if (div_const(em, e, t, &dc)) {
            emit_div_const(em, &dc);
            return;
        }
        break;
    }
    case OP_FLOORDIV:
        call2(em, arena_printf("ufn_floordiv_%s", wide_sfx(t)), l, r);
        return;
    case OP_MOD:
        call2(em, arena_printf("ufn_mod_%s", wide_sfx(t)), l, r);
        return;
    case OP_POW:
        if (ty_is_int(t))
            call2(em, arena_printf("ufn_pow_%s", wide_sfx(t)), l, r);
        else if (ty_is_int(r->type))
            call2(em, arena_printf("ufn_powi_%s", type_tag(t)), l, r);
        else
            call2(em, arena_printf("ufn_pow_%s", type_tag(t)), l, r);
        return;
    case OP_LSHIFT:
    case OP_RSHIFT:
        call2(em, arena_printf("ufn_%s_%s", op == OP_LSHIFT ? "shl" : "shr", wide_sfx(t)), l, r);
        return;
    default:
        break;
    }
    emit_operand(em, l);
    emit_text(em, " %s ", op_names[op]);
    emit_operand(em, r);
}

static const char *c_compare_op(Op op)
{
    switch (op) {
    case OP_LT: return "<";
    case OP_LE: return "<=";
    case OP_GT: return ">";
    case OP_GE: return ">=";
    case OP_EQ: return "==";
    case OP_NE: return "!=";
    default: die("comparison %s", op_names[op]);
    }
}

/* One link of a comparison chain, with both sides converted to `t`. */

/* One side of a comparison, converted to the link's type.  C's == and <
 * bind tighter than &&, ||, &, | and ^, so a side that is not atomic goes in
 * parentheses: Python's (a & b) == 0 is not C's a & b == 0. */
static void link_side(Emitter *em, const Node *x, Type *t)
{
    if (x->type == t)
        emit_operand(em, x);
    else
        emit_cast_to(em, x, t);
}

static void emit_link(Emitter *em, Op op, const Node *a, const char *a_tmp, const Node *b, const char *b_tmp, Type *t)
{
    Node ta = {.kind = N_NAME, .type = a->type}, tb = {.kind = N_NAME, .type = b->type};
    ta.name.id = a_tmp;
    tb.name.id = b_tmp;
    const Node *x = a_tmp ? &ta : a, *y = b_tmp ? &tb : b;
    if (ty_is_complex(t)) {
        emit_text(em, "%sufn_%s_eq(", op == OP_NE ? "!" : "", csfx(t));
        emit_cast_to(em, x, t);
        emit_text(em, ", ");
        emit_cast_to(em, y, t);
        emit_text(em, ")");
        return;
    }
    emit_text(em, "(");
    link_side(em, x, t);
    emit_text(em, " %s ", c_compare_op(op));
    link_side(em, y, t);
    emit_text(em, ")");
}

static void emit_compare(Emitter *em, const Node *e)
{
    int n = e->compare.n;
    if (n > 1)
        emit_text(em, "(");
    for (int i = 0; i < n; i++) {
        if (i)
            emit_text(em, " && ");
        const char *ta = NULL, *tb = NULL;
        if (e->compare.tmps) {
            Var *va = i > 0 ? e->compare.tmps[i - 1] : NULL;
            Var *vb = i + 1 < n ? e->compare.tmps[i] : NULL;
            ta = va ? var_ref(em, va) : NULL;
            if (vb) {
                /* first use of a middle operand: evaluate it into its temporary */
                emit_text(em, "(%s = ", var_ref(em, vb));
                emit_expr(em, e->compare.operands[i + 1]);
                emit_text(em, ", ");
                tb = var_ref(em, vb);
            }
        }
        emit_link(em, e->compare.ops[i], e->compare.operands[i], ta, e->compare.operands[i + 1], tb,
                  e->compare.link_types[i]);
        if (tb)
            emit_text(em, ")");
    }
    if (n > 1)
        emit_text(em, ")");
}

static void emit_boolop(Emitter *em, const Node *e)
{
    bool is_and = e->boolop.op == OP_AND;
    if (ty_is_bool(e->type)) {
        emit_operand(em, e->boolop.lhs);
        emit_text(em, is_and ? " && " : " || ");
        emit_operand(em, e->boolop.rhs);
        return;
    }
    /* Python returns an operand: a and b is (a ? b : a), a or b is (a ? a : b) */
    Node tmp = {.kind = N_NAME, .type = e->type};
    const Node *a = e->boolop.lhs;
    emit_text(em, "(");
    if (e->boolop.tmp) {
        emit_text(em, "%s = ", var_ref(em, e->boolop.tmp));
        emit_expr(em, a);
        emit_text(em, ", ");
        tmp.name.id = var_ref(em, e->boolop.tmp);
        a = &tmp;
    }
    emit_text(em, "(");
    emit_truth(em, a);
    emit_text(em, ") ? ");
    emit_operand(em, is_and ? e->boolop.rhs : a);
    emit_text(em, " : ");
    emit_operand(em, is_and ? a : e->boolop.rhs);
    emit_text(em, ")");
}

static void emit_args(Emitter *em, const NodeList *args)
{
    for (int i = 0; i < args->len; i++) {
        if (i)
            emit_text(em, ", ");
        emit_expr(em, args->items[i]);
    }
}

/* ---- numba.cuda in a @cuda.jit kernel or device function ---- */

static void emit_view(Emitter *em, const Node *e)
{
    Type *t = e->type;
    const NodeList *dims = &e->call.args;
    const char *elt = c_elem_type(t->elt);
    if (e->call.cuda == CU_SHARED_ARRAY && dims->items[0]->konst.v.i == 0) {
        /* dynamic shared memory: every such array starts at the same byte */
        emit_text(em, "%s((%s *)ufn_dyn_shared(), (int64_t)(ufn_dyn_shared_bytes() / sizeof(%s)), 1)", c_maker(t),
                  elt, elt);
        return;
    }
    emit_text(em, "%s(%s", c_maker(t), storage_c_name(e));
    for (int i = 0; i < dims->len; i++)
        emit_text(em, ", %lld", (long long)dims->items[i]->konst.v.i);
    for (int i = 0; i < dims->len; i++) {          /* C order: element strides */
        long long s = 1;
        for (int k = i + 1; k < dims->len; k++)
            s *= dims->items[k]->konst.v.i;
        emit_text(em, ", %lld", s);
    }
    emit_text(em, ")");
}

static const char *const atomic_names[] = {
    [CU_ATOMIC_ADD] = "add", [CU_ATOMIC_SUB] = "sub", [CU_ATOMIC_MAX] = "max", [CU_ATOMIC_MIN] = "min",
    [CU_ATOMIC_NANMAX] = "nanmax", [CU_ATOMIC_NANMIN] = "nanmin", [CU_ATOMIC_EXCH] = "exch",
    [CU_ATOMIC_AND] = "and", [CU_ATOMIC_OR] = "or", [CU_ATOMIC_XOR] = "xor", [CU_ATOMIC_INC] = "inc",
    [CU_ATOMIC_DEC] = "dec", [CU_ATOMIC_CAS] = "cas",
};

static void emit_atomic(Emitter *em, const Node *e)
{
    const NodeList *a = &e->call.args;
    const Node *elem = a->items[0];
    CudaFn fn = (CudaFn)e->call.cuda;
    /* on integers nanmax and nanmin are max and min */
    if (!ty_is_float(e->type) && (fn == CU_ATOMIC_NANMAX || fn == CU_ATOMIC_NANMIN))
        fn = fn == CU_ATOMIC_NANMAX ? CU_ATOMIC_MAX : CU_ATOMIC_MIN;
    emit_text(em, "ufn_atomic_%s_%s(&", atomic_names[fn], type_tag(e->type));
    emit_element(em, elem->subscript.value, &elem->subscript.index);
    for (int i = 1; i < a->len; i++) {
        emit_text(em, ", ");
        emit_expr(em, a->items[i]);
    }
    emit_text(em, ")");
}

/* A coordinate: the body's parameter, or CUDA's own in a device function. */
static void coord(Emitter *em, const char *field, const char *cuda, char axis)
{
    if (em->coords)
        emit_text(em, "%s.%s.%c", em->coords, field, axis);
    else
        emit_text(em, "%s.%c", cuda, axis);
}

static void emit_grid(Emitter *em, const Node *e)
{
    bool size = e->call.cuda == CU_GRIDSIZE;
    int n = (int)e->call.args.items[0]->konst.v.i;
    if (n > 1)
        emit_text(em, "%s(", c_maker(e->type));
    for (int i = 0; i < n; i++) {
        char axis = "xyz"[i];
        emit_text(em, "%s((int64_t)", i ? ", " : "");
        if (size) {
            coord(em, "bdim", "blockDim", axis);
            emit_text(em, " * ");
            coord(em, "gdim", "gridDim", axis);
        } else {
            coord(em, "bid", "blockIdx", axis);
            emit_text(em, " * ");
            coord(em, "bdim", "blockDim", axis);
            emit_text(em, " + ");
            coord(em, "tid", "threadIdx", axis);
        }
        emit_text(em, ")");
    }
    if (n > 1)
        emit_text(em, ")");
}

static void emit_args_of(Emitter *em, const char *fn, const NodeList *args, const char *defaults)
{
    emit_text(em, "%s(", fn);
    for (int i = 0; i < args->len; i++) {
        if (i)
            emit_text(em, ", ");
        emit_expr(em, args->items[i]);
    }
    if (!args->len && defaults)
        emit_text(em, "%s", defaults);
    emit_text(em, ")");
}

/* print(a, b): one printf, Numba's formats (%lld, %llu, %f after a
 * conversion to double, %s), items joined by spaces. */
static void emit_print(Emitter *em, const Node *e)
{
    const NodeList *a = &e->call.args;
    Buf fmt = {0};
    for (int i = 0; i < a->len; i++) {
        const Node *x = a->items[i];
        const char *f = x->kind == N_STR || ty_is_bool(x->type) ? "%s"
                        : ty_is_float(x->type)                  ? "%f"
                        : ty_is_unsigned(x->type)               ? "%llu"
                                                                : "%lld";
        buf_printf(&fmt, "%s%s", i ? " " : "", f);
    }
    buf_puts(&fmt, "\n");
    emit_text(em, "printf(%s", c_string_literal(fmt.data));
    buf_free(&fmt);
    for (int i = 0; i < a->len; i++) {
        const Node *x = a->items[i];
        emit_text(em, ", ");
        if (x->kind == N_STR) {
            emit_text(em, "%s", c_string_literal(x->str.value));
            continue;
        }
        if (ty_is_bool(x->type)) {
            emit_operand(em, x);
            emit_text(em, " ? \"True\" : \"False\"");
            continue;
        }
        emit_text(em, "(%s)", ty_is_float(x->type) ? "double" : ty_is_unsigned(x->type) ? "unsigned long long" : "long long");
        emit_operand(em, x);
    }
    emit_text(em, ")");
}

static void emit_cuda_call(Emitter *em, const Node *e)
{
    if (e->call.builtin == B_PRINT) {
        emit_print(em, e);
        return;
    }
    if (e == em->warp_call) {   /* a warp-split runner has computed it (emit_kernel.c) */
        emit_text(em, "%s", em->warp_value);
        return;
    }
    CudaFn fn = (CudaFn)e->call.cuda;
    const NodeList *a = &e->call.args;
    static const struct { const char *field, *cuda; } dims[] = {
        {"tid", "threadIdx"}, {"bid", "blockIdx"}, {"bdim", "blockDim"}, {"gdim", "gridDim"}};
    if (fn <= CU_GDIM_Z) {
        emit_text(em, "(int32_t)");
        coord(em, dims[(fn - CU_TID_X) / 3].field, dims[(fn - CU_TID_X) / 3].cuda, "xyz"[(fn - CU_TID_X) % 3]);
        return;
    }
    switch (fn) {
    case CU_LANEID:
        if (em->lane_id)
            emit_text(em, "(int32_t)%s", em->lane_id);
        else
            emit_text(em, "(int32_t)ufn_laneid()");
        return;
    case CU_WARPSIZE: emit_text(em, "(int32_t)warpSize"); return;
    case CU_GRID:
    case CU_GRIDSIZE: emit_grid(em, e); return;
    case CU_SYNCTHREADS: emit_text(em, "ufn_syncthreads()"); return;
    case CU_SYNCTHREADS_COUNT: emit_args_of(em, "ufn_syncthreads_count", a, NULL); return;
    case CU_SYNCTHREADS_AND: emit_args_of(em, "ufn_syncthreads_and", a, NULL); return;
    case CU_SYNCTHREADS_OR: emit_args_of(em, "ufn_syncthreads_or", a, NULL); return;
    case CU_SYNCWARP: emit_args_of(em, "ufn_syncwarp", a, "0xffffffffu"); return;
    case CU_THREADFENCE: emit_text(em, "ufn_threadfence()"); return;
    case CU_THREADFENCE_BLOCK: emit_text(em, "ufn_threadfence_block()"); return;
    case CU_THREADFENCE_SYSTEM: emit_text(em, "ufn_threadfence_system()"); return;
    case CU_SHFL: emit_args_of(em, arena_printf("ufn_shfl_sync_%s", type_tag(e->type)), a, NULL); return;
    case CU_SHFL_UP: emit_args_of(em, arena_printf("ufn_shfl_up_sync_%s", type_tag(e->type)), a, NULL); return;
    case CU_SHFL_DOWN: emit_args_of(em, arena_printf("ufn_shfl_down_sync_%s", type_tag(e->type)), a, NULL); return;
    case CU_SHFL_XOR: emit_args_of(em, arena_printf("ufn_shfl_xor_sync_%s", type_tag(e->type)), a, NULL); return;
    case CU_BALLOT:
        emit_text(em, "(int32_t)");
        emit_args_of(em, "ufn_ballot_sync", a, NULL);
        return;
    case CU_ALL:
    case CU_ANY:
        emit_text(em, "(");
        emit_args_of(em, fn == CU_ALL ? "ufn_all_sync" : "ufn_any_sync", a, NULL);
        emit_text(em, " != 0)");
        return;
    case CU_ACTIVEMASK: emit_text(em, "(uint32_t)ufn_activemask()"); return;
    case CU_LANEMASK_LT:
        if (em->lane_id)
            emit_text(em, "((1u << %s) - 1u)", em->lane_id);
        else
            emit_text(em, "(uint32_t)ufn_lanemask_lt()");
        return;
    case CU_SHARED_ARRAY:
    case CU_LOCAL_ARRAY: emit_view(em, e); return;
    default: emit_atomic(em, e); return;
    }
}

static void emit_call(Emitter *em, const Node *e)
{
    if (e->call.callee) {
        const Instance *callee = e->call.callee;
        emit_text(em, "%s(", callee_c_name(em, callee));
        if (callee->depth_cname)   /* the depth comes first (ufn_abi.h) */
            emit_text(em, "%s%s%s", em->depth_cname ? em->depth_cname : "0", em->depth_cname ? " + 1" : "",
                      e->call.args.len ? ", " : "");
        emit_args(em, &e->call.args);
        emit_text(em, ")");
        return;
    }
    const NodeList *args = &e->call.args;
    const Node *a0 = args->len ? args->items[0] : NULL;
    Type *t = e->type;
    switch (e->call.builtin) {
    case B_CUDA:
    case B_PRINT:
        emit_cuda_call(em, e);
        return;
    case B_MATH:
    case B_CMATH: {
        const MathFn *m = e->call.math;
        bool narrow = a0->type->kind == TY_FLOAT32 || a0->type->kind == TY_COMPLEX64;
        if (m->kind == CK_POLAR) {
            /* (abs(z), phase(z)); z is a pure expression */
            const MathFn *phase = math_row(B_CMATH, "phase", 1);
            emit_text(em, "%s(%s(", c_maker(t), m->cname[narrow ? 0 : 1]);
            emit_expr(em, a0);
            emit_text(em, "), %s(", phase->cname[narrow ? 0 : 1]);
            emit_expr(em, a0);
            emit_text(em, "))");
            return;
        }
        emit_text(em, "%s(", m->cname[narrow ? 0 : 1]);
        emit_args(em, args);
        emit_text(em, ")");
        return;
    }
    case B_CONJUGATE:
        emit_text(em, "ufn_%s_conj(", csfx(t));
        emit_expr(em, a0);
        emit_text(em, ")");
        return;
    case B_ABS: {
        Type *at = a0->type;
        if (ty_is_complex(at)) {
            emit_text(em, "ufn_%s_abs(", csfx(at));
            emit_expr(em, a0);
            emit_text(em, ")");
        } else if (ty_is_float(at)) {
            emit_text(em, "%s(", at->kind == TY_FLOAT32 ? "fabsf" : "fabs");
            emit_expr(em, a0);
            emit_text(em, ")");
        } else {
            if (at->kind != TY_INT64)
                emit_text(em, "(%s)", c_type(at));
            emit_text(em, "ufn_abs_i64(");
            emit_expr(em, a0);
            emit_text(em, ")");
        }
        return;
    }
    case B_MIN:
    case B_MAX: {
        const char *w = ty_is_float(t) ? type_tag(t) : ty_is_unsigned(t) ? "u64" : "i64";
        bool narrow = !ty_is_float(t) && t->kind != TY_INT64 && t->kind != TY_UINT64;
        if (narrow)
            emit_text(em, "(%s)", c_type(t));
        call2(em, arena_printf("ufn_%s_%s", e->call.builtin == B_MIN ? "min" : "max", w), a0, args->items[1]);
        return;
    }
    case B_ROUND:
        if (args->len == 2) {
            call2(em, arena_printf("ufn_round_ndigits_%s", type_tag(a0->type)), a0, args->items[1]);
        } else {
            emit_text(em, "ufn_%s_to_i64(ufn_round_%s(", type_tag(a0->type), type_tag(a0->type));
            emit_expr(em, a0);
            emit_text(em, "))");
        }
        return;
    case B_COMPLEX:
        emit_text(em, "ufn_%s_make(", csfx(t));
        emit_expr(em, a0);
        emit_text(em, ", ");
        if (args->len == 2)
            emit_expr(em, args->items[1]);
        else
            emit_text(em, "0");
        emit_text(em, ")");
        return;
    case B_LEN:
        emit_operand(em, a0);
        emit_text(em, ".shape[0]");
        return;
    default:
        die("call of builtin %d", e->call.builtin);
    }
}

/* Converting a value to another type, with the rules the runtime documents:
 * float to int truncates and saturates (NaN gives 0), ints wrap, anything to
 * bool is "!= 0". */
void emit_cast_to(Emitter *em, const Node *e, Type *to)
{
    Type *from = e->type;
    if (from == to) {
        emit_expr(em, e);
        return;
    }
    if (to->kind == TY_TUPLE) {
        /* tuples convert element by element; e is a plain value here */
        emit_text(em, "%s(", c_maker(to));
        for (int i = 0; i < to->nelts; i++) {
            Node sub = {.kind = N_SUBSCRIPT, .type = from->elts[i]};
            Node idx = {.kind = N_CONST, .type = ty_scalar(TY_INT64)};
            idx.konst.v.i = i;
            Node *items[1] = {&idx};
            sub.subscript.value = (Node *)e;
            sub.subscript.index.items = items;
            sub.subscript.index.len = 1;
            if (i)
                emit_text(em, ", ");
            emit_cast_to(em, &sub, to->elts[i]);
        }
        emit_text(em, ")");
        return;
    }
    if (ty_is_bool(to)) {
        emit_text(em, "(");
        emit_truth(em, e);
        emit_text(em, ")");
        return;
    }
    if (ty_is_complex(to)) {
        if (ty_is_complex(from)) {
            emit_text(em, "ufn_%s_from_%s(", csfx(to), csfx(from));
            emit_expr(em, e);
            emit_text(em, ")");
        } else {
            emit_text(em, "ufn_%s_make((%s)", csfx(to), to->kind == TY_COMPLEX64 ? "float" : "double");
            emit_operand(em, e);
            emit_text(em, ", 0)");
        }
        return;
    }
    DivConst dc;
    if (div_const_narrowed(em, e, to, &dc)) {
        emit_div_const(em, &dc);
        return;
    }
    if (ty_is_int(to) && ty_is_float(from)) {
        emit_text(em, "ufn_%s_to_%s(", type_tag(from), type_tag(to));
        emit_expr(em, e);
        emit_text(em, ")");
        return;
    }
    emit_text(em, "(%s)", c_type(to));
    emit_operand(em, e);
}

/* The name an out-of-bounds report gives an array. */
static const char *array_name(const Node *base)
{
    return c_string_literal(base->kind == N_NAME ? base->name.id : "array");
}

/* An index that jit_index_plain bounds, its +, -, *, // and % as C's: the
 * same values, since no operand is negative and nothing overflows.  `to`:
 * the type the enclosing operator computes in (an operand of another C
 * type is converted first), or NULL. */
static void emit_plain_index(Emitter *em, const Node *e, const char *to)
{
    if (to && strcmp(c_type(e->type), to) != 0)
        emit_text(em, "(%s)", to);
    if (e->kind == N_BINARY) {
        Op op = e->binary.op;
        const char *t = c_type(e->type);
        emit_text(em, "(");
        emit_plain_index(em, e->binary.lhs, t);
        emit_text(em, " %s ", op == OP_ADD ? "+" : op == OP_SUB ? "-" : op == OP_MUL ? "*" : op == OP_FLOORDIV ? "/" : "%");
        emit_plain_index(em, e->binary.rhs, t);
        emit_text(em, ")");
    } else if (e->kind == N_CAST) {
        emit_text(em, "(%s)", c_type(e->type));
        emit_plain_index(em, e->cast.operand, NULL);
    } else
        emit_operand(em, e);
}

void emit_element(Emitter *em, const Node *base, const NodeList *idx)
{
    emit_operand(em, base);
    emit_text(em, ".data[");
    for (int i = 0; i < idx->len; i++) {
        const Node *ix = idx->items[i];
        if (i)
            emit_text(em, " + ");
        if (em->checks)   /* the simulator checks every index (ufn_kernel.h) */
            emit_text(em, "UFN_BOUNDS(");
        /* a constant or a range() counter cannot be negative: no wrap-around */
        const Node *v = ix->kind == N_CAST ? ix->cast.operand : ix;
        bool nonneg = (ix->kind == N_CONST && ix->konst.v.i >= 0)
                      || (v->kind == N_NAME && v->name.sym && v->name.sym->kind == SYM_LOCAL
                          && v->name.sym->var->nonneg);
        if (em->bounds && jit_index_plain(em->bounds, ix, em->small_extents))
            emit_plain_index(em, ix, NULL);
        else if (nonneg)
            emit_expr(em, ix);
        else {
            emit_text(em, "ufn_wrap_index(");
            emit_expr(em, ix);
            emit_text(em, ", ");
            emit_operand(em, base);
            emit_text(em, ".shape[%d])", i);
        }
        if (em->checks) {
            emit_text(em, ", ");
            emit_operand(em, base);
            emit_text(em, ".shape[%d], %d, %s)", i, i, array_name(base));
        }
        emit_text(em, " * ");
        emit_operand(em, base);
        emit_text(em, ".stride[%d]", i);
    }
    emit_text(em, "]");
}

/* An attribute, as the checker decided what it reads. */
static void emit_attr(Emitter *em, const Node *e)
{
    const Node *v = e->attr.value;
    switch (e->attr.which) {
    case ATTR_REAL:
    case ATTR_IMAG:
        emit_operand(em, v);
        emit_text(em, e->attr.which == ATTR_REAL ? ".re" : ".im");
        return;
    case ATTR_EXTENT:
        emit_operand(em, v);
        emit_text(em, ".shape[%d]", e->attr.axis);
        return;
    case ATTR_SIZE:
        emit_text(em, "(");
        for (int i = 0; i < v->type->ndim; i++) {
            if (i)
                emit_text(em, " * ");
            emit_operand(em, v);
            emit_text(em, ".shape[%d]", i);
        }
        emit_text(em, ")");
        return;
    case ATTR_SHAPE:
    case ATTR_STRIDES:
        /* the tuple of extents, or of byte strides */
        emit_text(em, "%s(", c_maker(e->type));
        for (int i = 0; i < v->type->ndim; i++) {
            if (i)
                emit_text(em, ", ");
            emit_operand(em, v);
            if (e->attr.which == ATTR_STRIDES)
                emit_text(em, ".stride[%d] * (int64_t)sizeof(%s)", i, c_type(v->type->elt));
            else
                emit_text(em, ".shape[%d]", i);
        }
        emit_text(em, ")");
        return;
    case ATTR_NONE:
        break;
    }
    die("cannot emit attribute '%s'", e->attr.attr);
}

void emit_expr(Emitter *em, const Node *e)
{
    switch (e->kind) {
    case N_NAME:
        emit_text(em, "%s", e->name.sym && e->name.sym->kind == SYM_LOCAL ? var_ref(em, e->name.sym->var) : e->name.id);
        return;
    case N_CONST:
        emit_const(em, e);
        return;
    case N_CAST:
        emit_cast_to(em, e->cast.operand, e->type);
        return;
    case N_UNARY: {
        Type *t = e->type;
        const Node *a = e->unary.operand;
        switch (e->unary.op) {
        case OP_NOT:
            emit_text(em, "!");
            emit_operand(em, a);
            return;
        case OP_POS:
            emit_expr(em, a);
            return;
        case OP_INVERT:
            emit_text(em, "~");
            emit_operand(em, a);
            return;
        case OP_NEG:
            if (ty_is_complex(t)) {
                emit_text(em, "ufn_%s_neg(", csfx(t));
                emit_expr(em, a);
                emit_text(em, ")");
            } else if (t->kind == TY_INT64) {
                emit_text(em, "ufn_sub_i64(0, ");
                emit_expr(em, a);
                emit_text(em, ")");
            } else {
                emit_text(em, "-");
                emit_operand(em, a);
            }
            return;
        default:
            unreachable();
        }
    }
    case N_BINARY:
        emit_binary(em, e);
        return;
    case N_BOOLOP:
        emit_boolop(em, e);
        return;
    case N_COMPARE:
        emit_compare(em, e);
        return;
    case N_IFEXP:
        emit_text(em, "(");
        emit_operand(em, e->ifexp.cond);
        emit_text(em, " ? ");
        emit_operand(em, e->ifexp.then);
        emit_text(em, " : ");
        emit_operand(em, e->ifexp.orelse);
        emit_text(em, ")");
        return;
    case N_CALL:
        emit_call(em, e);
        return;
    case N_TUPLE:
        emit_text(em, "%s(", c_maker(e->type));
        emit_args(em, &e->tuple.elts);
        emit_text(em, ")");
        return;
    case N_SUBSCRIPT: {
        const Node *base = e->subscript.value;
        if (base->type->kind == TY_TUPLE) {
            emit_operand(em, base);
            emit_text(em, ".f%lld", (long long)e->subscript.index.items[0]->konst.v.i);
            return;
        }
        /* a read: a bool's byte is compared with 0 */
        if (em->checks) {
            emit_text(em, "%sUFN_LOAD(%s, &", base->type->elt->kind == TY_BOOL ? "(" : "",
                      c_elem_type(base->type->elt));
            emit_element(em, base, &e->subscript.index);
            emit_text(em, ")%s", base->type->elt->kind == TY_BOOL ? " != 0)" : "");
        } else if (base->type->elt->kind == TY_BOOL) {
            emit_text(em, "(");
            emit_element(em, base, &e->subscript.index);
            emit_text(em, " != 0)");
        } else
            emit_element(em, base, &e->subscript.index);
        return;
    }
    case N_ATTR:
        emit_attr(em, e);
        return;
    default:
        die("cannot emit a %s", node_kind_names[e->kind]);
    }
}

