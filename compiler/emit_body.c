/* emit_body.c - the scalar bodies: every kernel signature and helper
 * instance as one C function that is valid both as CUDA C++ (__host__
 * __device__) and as C11, so the GPU kernels, the simulator and the host
 * loops all compute with the same code.  Types are already decided by the
 * checker (every conversion is an N_CAST); this file only spells them. */
#include "ufnc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- output helpers ---------------------------------------------------------- */

void emit_text(Emitter *em, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    buf_vprintf(em->out, fmt, ap);
    va_end(ap);
}

void emit_line(Emitter *em, const char *fmt, ...)
{
    for (int i = 0; i < em->indent; i++)
        buf_puts(em->out, "    ");
    va_list ap;
    va_start(ap, fmt);
    buf_vprintf(em->out, fmt, ap);
    va_end(ap);
    buf_putc(em->out, '\n');
}

static int out_lines(Emitter *em)
{
    int n = 1;
    for (size_t i = 0; i < em->out->len; i++)
        n += em->out->data[i] == '\n';
    return n;
}

/* s as a C string literal, quotes included. */
const char *c_string_literal(const char *s)
{
    Buf b = {0};
    buf_putc(&b, '"');
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            buf_putc(&b, '\\');
        if ((unsigned char)*s < 32)
            buf_printf(&b, "\\%03o", (unsigned char)*s);
        else
            buf_putc(&b, *s);
    }
    buf_putc(&b, '"');
    const char *r = arena_strndup(b.data, b.len);
    buf_free(&b);
    return r;
}

/* File names are quoted: a path may hold '"' or '\\'. */
static void line_directive(Emitter *em, Loc loc)
{
    if (em->opt->line_directives && loc.file)
        emit_text(em, "#line %d %s\n", loc.line, c_string_literal(loc.file->name));
}

/* Back to the generated file's own numbering after #line directives. */
static void line_reset(Emitter *em)
{
    if (em->opt->line_directives && em->file_name)
        emit_text(em, "#line %d %s\n", out_lines(em) + 1, c_string_literal(em->file_name));
}

/* ---- collecting the types the bodies use ---------------------------------------- */

typedef struct TypeSet {
    Type *items[512];
    int n;
} TypeSet;

static void note_type(TypeSet *ts, Type *t)
{
    if (!t || (t->kind != TY_TUPLE && t->kind != TY_ARRAY))
        return;
    /* arrays of any layout share one C view: one typedef per C name */
    for (int i = 0; i < ts->n; i++)
        if (ts->items[i] == t || strcmp(ts->items[i]->cname, t->cname) == 0)
            return;
    if (t->kind == TY_TUPLE)           /* members first, so structs come in dependency order */
        for (int i = 0; i < t->nelts; i++)
            note_type(ts, t->elts[i]);
    if (ts->n == (int)(sizeof ts->items / sizeof ts->items[0]))
        die("too many tuple and array types");
    ts->items[ts->n++] = t;
}

static void note_node(TypeSet *ts, const Node *n);

static void note_list(TypeSet *ts, const NodeList *l)
{
    for (int i = 0; i < l->len; i++)
        note_node(ts, l->items[i]);
}

static void note_node(TypeSet *ts, const Node *n)
{
    if (!n)
        return;
    note_type(ts, n->type);
    switch (n->kind) {
    case N_ASSIGN: note_list(ts, &n->assign.targets); note_node(ts, n->assign.value); break;
    case N_EXPRSTMT: note_node(ts, n->exprstmt.expr); break;
    case N_IF: note_node(ts, n->ifstmt.cond); note_list(ts, &n->ifstmt.then); note_list(ts, &n->ifstmt.orelse); break;
    case N_WHILE: note_node(ts, n->whilestmt.cond); note_list(ts, &n->whilestmt.body); break;
    case N_FOR: note_node(ts, n->forstmt.target); note_node(ts, n->forstmt.iter); note_list(ts, &n->forstmt.body); break;
    case N_RETURN: note_node(ts, n->ret.value); break;
    case N_UNARY: note_node(ts, n->unary.operand); break;
    case N_BINARY: note_node(ts, n->binary.lhs); note_node(ts, n->binary.rhs); break;
    case N_BOOLOP: note_node(ts, n->boolop.lhs); note_node(ts, n->boolop.rhs); break;
    case N_COMPARE:
        for (int i = 0; i <= n->compare.n; i++)
            note_node(ts, n->compare.operands[i]);
        break;
    case N_IFEXP: note_node(ts, n->ifexp.cond); note_node(ts, n->ifexp.then); note_node(ts, n->ifexp.orelse); break;
    case N_CALL: note_list(ts, &n->call.args); break;
    case N_ATTR: note_node(ts, n->attr.value); break;
    case N_SUBSCRIPT: note_node(ts, n->subscript.value); note_list(ts, &n->subscript.index); break;
    case N_TUPLE: note_list(ts, &n->tuple.elts); break;
    case N_CAST: note_node(ts, n->cast.operand); break;
    default: break;
    }
}

static void note_instance(TypeSet *ts, const Instance *inst)
{
    for (int i = 0; i < inst->nargs; i++)
        note_type(ts, inst->args[i]);
    for (int i = 0; i < inst->nvars; i++)
        note_type(ts, inst->vars[i]->type);
    note_type(ts, inst->ret);
    note_list(ts, &inst->body);
}

static void all_instances(Module *m, void (*fn)(const Instance *, void *), void *ctx)
{
    for (int i = 0; i < m->nhelpers; i++)
        fn(m->helpers[i], ctx);
    for (int i = 0; i < m->nkernels; i++)
        for (int k = 0; k < m->kernels[i]->ninstances; k++)
            fn(m->kernels[i]->instances[k], ctx);
}

static void note_cb(const Instance *inst, void *ctx)
{
    note_instance(ctx, inst);
}

void emit_body_types(Emitter *em)
{
    TypeSet ts = {0};
    all_instances(em->mod, note_cb, &ts);
    emit_line(em, "#if defined(__CUDACC__)");
    emit_line(em, "/* bodies are inlined into the kernels: a call would pass array views");
    emit_line(em, " * through local memory (ptxas counts that as spills) */");
    emit_line(em, "#define UFN_BODY static __host__ __device__ __forceinline__");
    emit_line(em, "#define UFN_RECURSIVE static __host__ __device__");
    emit_line(em, "/* not every helper below is used by every kernel (177), and a value");
    emit_line(em, " * unpacked from a tuple may go unused, as in Python (550) */");
    emit_line(em, "#pragma nv_diag_suppress 177");
    emit_line(em, "#pragma nv_diag_suppress 550");
    emit_line(em, "/* innermost loops unroll a little, outer ones not at all: without a limit");
    emit_line(em, " * ptxas spends minutes on long constant loops, and unrolled nests spill */");
    emit_line(em, "#define UFN_LOOP _Pragma(\"unroll 4\")");
    emit_line(em, "#define UFN_LOOP_OUTER _Pragma(\"unroll 1\")");
    emit_line(em, "#else");
    emit_line(em, "#if defined(__GNUC__) && defined(__OPTIMIZE__)");
    emit_line(em, "/* a host loop vectorises only with its body inlined, whatever gcc's");
    emit_line(em, " * inlining limits think of a body with several math functions */");
    emit_line(em, "#define UFN_BODY static inline __attribute__((always_inline))");
    emit_line(em, "#else");
    emit_line(em, "#define UFN_BODY static inline");
    emit_line(em, "#endif");
    emit_line(em, "#define UFN_RECURSIVE static");
    emit_line(em, "#define UFN_LOOP");
    emit_line(em, "#define UFN_LOOP_OUTER");
    emit_line(em, "#endif");
    if (!ts.n)
        return;
    emit_line(em, "%s", "");
    emit_line(em, "/* Tuples (device-function results, shapes) and gufunc array views:");
    emit_line(em, " * a view is a pointer with the extent and element stride of each axis. */");
    for (int i = 0; i < ts.n; i++) {
        Type *t = ts.items[i];
        if (t->kind == TY_ARRAY) {
            emit_line(em, "typedef struct { %s *data; int64_t shape[%d]; int64_t stride[%d]; } %s;", t->elt->cname,
                      t->ndim, t->ndim, t->cname);
            continue;
        }
        Buf fields = {0}, params = {0}, sets = {0};
        for (int k = 0; k < t->nelts; k++) {
            buf_printf(&fields, " %s f%d;", t->elts[k]->cname, k);
            buf_printf(&params, "%s%s a%d", k ? ", " : "", t->elts[k]->cname, k);
            buf_printf(&sets, " t.f%d = a%d;", k, k);
        }
        emit_line(em, "typedef struct {%s } %s;", fields.data ? fields.data : "", t->cname);
        emit_line(em, "UFN_BODY %s %s_make(%s) { %s t;%s return t; }", t->cname, t->cname,
                  params.data ? params.data : "void", t->cname, sets.data ? sets.data : "");
        buf_free(&fields);
        buf_free(&params);
        buf_free(&sets);
    }
}

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
        emit_text(em, "(%s)%lld", t->cname, (long long)e->konst.v.i);
        return;
    case TY_UINT8: case TY_UINT16: case TY_UINT32:
        emit_text(em, "(%s)%lluu", t->cname, (unsigned long long)e->konst.v.u);
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

/* ---- expressions ---------------------------------------------------------------------- */

/* Binary operations that are spelled as a helper call. */
static bool binary_is_call(const Node *e)
{
    Type *t = e->type;
    switch (e->binary.op) {
    case OP_FLOORDIV: case OP_MOD: case OP_POW: case OP_LSHIFT: case OP_RSHIFT:
        return true;
    case OP_ADD: case OP_SUB: case OP_MUL:
        return t->kind == TY_INT64 || ty_is_complex(t);
    case OP_DIV:
        return ty_is_complex(t);
    default:
        return false;
    }
}

/* Operands are parenthesised unless they are atoms: simple and safe in both
 * C and C++, and still readable. */
static bool atomic(const Node *e)
{
    switch (e->kind) {
    case N_NAME:
    case N_CALL:
    case N_SUBSCRIPT:
    case N_ATTR:
        return true;
    case N_CONST:
        return !(ty_is_float(e->type) && e->konst.v.f < 0) && !(ty_is_int(e->type) && e->konst.v.i < 0
                                                                 && ty_is_signed(e->type));
    case N_INT:
    case N_FLOAT:
    case N_TRUE:
    case N_FALSE:
        return true;
    case N_BINARY:
        return binary_is_call(e);
    case N_CAST:
        /* the conversions spelled as calls */
        return ty_is_complex(e->type) || e->type->kind == TY_TUPLE
               || (ty_is_float(e->cast.operand->type) && ty_is_int(e->type));
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

static void operand(Emitter *em, const Node *e)
{
    if (atomic(e) || self_wrapped(e))
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
        return t->suffix;
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
        operand(em, e);
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
    case OP_DIV:
        break;
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
            call2(em, arena_printf("ufn_powi_%s", t->suffix), l, r);
        else
            call2(em, arena_printf("ufn_pow_%s", t->suffix), l, r);
        return;
    case OP_LSHIFT:
    case OP_RSHIFT:
        call2(em, arena_printf("ufn_%s_%s", op == OP_LSHIFT ? "shl" : "shr", wide_sfx(t)), l, r);
        return;
    default:
        break;
    }
    operand(em, l);
    emit_text(em, " %s ", op_names[op]);
    operand(em, r);
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
static void emit_cast_to(Emitter *em, const Node *e, Type *t);

/* One side of a comparison, converted to the link's type.  C's == and <
 * bind tighter than &&, ||, &, | and ^, so a side that is not atomic goes in
 * parentheses: Python's (a & b) == 0 is not C's a & b == 0. */
static void link_side(Emitter *em, const Node *x, Type *t)
{
    if (x->type == t)
        operand(em, x);
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
            ta = va ? va->cname : NULL;
            if (vb) {
                /* first use of a middle operand: evaluate it into its temporary */
                emit_text(em, "(%s = ", vb->cname);
                emit_expr(em, e->compare.operands[i + 1]);
                emit_text(em, ", ");
                tb = vb->cname;
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
        operand(em, e->boolop.lhs);
        emit_text(em, is_and ? " && " : " || ");
        operand(em, e->boolop.rhs);
        return;
    }
    /* Python returns an operand: a and b is (a ? b : a), a or b is (a ? a : b) */
    Node tmp = {.kind = N_NAME, .type = e->type};
    const Node *a = e->boolop.lhs;
    emit_text(em, "(");
    if (e->boolop.tmp) {
        emit_text(em, "%s = ", e->boolop.tmp->cname);
        emit_expr(em, a);
        emit_text(em, ", ");
        tmp.name.id = e->boolop.tmp->cname;
        a = &tmp;
    }
    emit_text(em, "(");
    emit_truth(em, a);
    emit_text(em, ") ? ");
    operand(em, is_and ? e->boolop.rhs : a);
    emit_text(em, " : ");
    operand(em, is_and ? a : e->boolop.rhs);
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

static void emit_call(Emitter *em, const Node *e)
{
    if (e->call.callee) {
        emit_text(em, "%s(", e->call.callee->cname);
        emit_args(em, &e->call.args);
        emit_text(em, ")");
        return;
    }
    int b = e->call.builtin;
    const NodeList *args = &e->call.args;
    const Node *a0 = args->len ? args->items[0] : NULL;
    Type *t = e->type;
    if (b >= B_MATH) {
        const MathFn *m = b >= B_CMATH ? &cmath_fns[b - B_CMATH] : &math_fns[b - B_MATH];
        Type *at = a0->type;
        bool narrow = at->kind == TY_FLOAT32 || at->kind == TY_COMPLEX64;
        if (m->kind == CK_POLAR) {
            /* (abs(z), phase(z)); z is a pure expression */
            int ph = math_row(cmath_fns, num_cmath_fns, "phase", 1);
            emit_text(em, "%s_make(%s(", t->cname, m->cname[narrow ? 0 : 1]);
            emit_expr(em, a0);
            emit_text(em, "), %s(", cmath_fns[ph].cname[narrow ? 0 : 1]);
            emit_expr(em, a0);
            emit_text(em, "))");
            return;
        }
        emit_text(em, "%s(", m->cname[narrow ? 0 : 1]);
        emit_args(em, args);
        emit_text(em, ")");
        return;
    }
    switch (b) {
    case -1: /* conjugate */
        if (ty_is_complex(t)) {
            emit_text(em, "ufn_%s_conj(", csfx(t));
            emit_expr(em, a0);
            emit_text(em, ")");
        } else
            operand(em, a0);
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
        } else if (ty_is_unsigned(at)) {
            /* no call left, but a call is atomic to whoever emits around it */
            operand(em, a0);
        } else {
            if (at->kind != TY_INT64)
                emit_text(em, "(%s)", at->cname);
            emit_text(em, "ufn_abs_i64(");
            emit_expr(em, a0);
            emit_text(em, ")");
        }
        return;
    }
    case B_MIN:
    case B_MAX: {
        const char *w = ty_is_float(t) ? t->suffix : ty_is_unsigned(t) ? "u64" : "i64";
        bool narrow = !ty_is_float(t) && t->kind != TY_INT64 && t->kind != TY_UINT64;
        if (narrow)
            emit_text(em, "(%s)", t->cname);
        call2(em, arena_printf("ufn_%s_%s", b == B_MIN ? "min" : "max", w), a0, args->items[1]);
        return;
    }
    case B_ROUND:
        if (args->len == 2) {
            call2(em, arena_printf("ufn_round_ndigits_%s", a0->type->suffix), a0, args->items[1]);
        } else {
            emit_text(em, "ufn_%s_to_i64(ufn_round_%s(", a0->type->suffix, a0->type->suffix);
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
        operand(em, a0);
        emit_text(em, ".shape[0]");
        return;
    default:
        die("call of builtin %d", b);
    }
}

/* Converting a value to another type, with the rules the runtime documents:
 * float to int truncates and saturates (NaN gives 0), ints wrap, anything to
 * bool is "!= 0". */
static void emit_cast_to(Emitter *em, const Node *e, Type *to)
{
    Type *from = e->type;
    if (from == to) {
        emit_expr(em, e);
        return;
    }
    if (to->kind == TY_TUPLE) {
        /* tuples convert element by element; e is a plain value here */
        emit_text(em, "%s_make(", to->cname);
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
            operand(em, e);
            emit_text(em, ", 0)");
        }
        return;
    }
    if (ty_is_int(to) && ty_is_float(from)) {
        emit_text(em, "ufn_%s_to_%s(", from->suffix, to->suffix);
        emit_expr(em, e);
        emit_text(em, ")");
        return;
    }
    emit_text(em, "(%s)", to->cname);
    operand(em, e);
}

static void emit_index(Emitter *em, const Node *base, const NodeList *idx)
{
    operand(em, base);
    emit_text(em, ".data[");
    for (int i = 0; i < idx->len; i++) {
        const Node *ix = idx->items[i];
        if (i)
            emit_text(em, " + ");
        /* a constant or a range() counter cannot be negative: no wrap-around */
        const Node *v = ix->kind == N_CAST ? ix->cast.operand : ix;
        bool nonneg = (ix->kind == N_CONST && ix->konst.v.i >= 0) || ix->kind == N_INT
                      || (v->kind == N_NAME && v->name.sym && v->name.sym->kind == SYM_LOCAL
                          && v->name.sym->var->nonneg);
        if (nonneg)
            emit_expr(em, ix);
        else {
            emit_text(em, "ufn_wrap_index(");
            emit_expr(em, ix);
            emit_text(em, ", ");
            operand(em, base);
            emit_text(em, ".shape[%d])", i);
        }
        emit_text(em, " * ");
        operand(em, base);
        emit_text(em, ".stride[%d]", i);
    }
    emit_text(em, "]");
}

void emit_expr(Emitter *em, const Node *e)
{
    switch (e->kind) {
    case N_NAME:
        emit_text(em, "%s", e->name.sym && e->name.sym->kind == SYM_LOCAL ? e->name.sym->var->cname : e->name.id);
        return;
    case N_CONST:
        emit_const(em, e);
        return;
    case N_INT:
    case N_FLOAT:
    case N_TRUE:
    case N_FALSE: {
        Node c = {.kind = N_CONST, .type = e->type};
        if (e->kind == N_INT) c.konst.v.u = e->intlit.value;
        else if (e->kind == N_FLOAT) c.konst.v.f = e->floatlit.value;
        else c.konst.v.i = e->kind == N_TRUE;
        emit_const(em, &c);
        return;
    }
    case N_IMAG: {
        Node c = {.kind = N_CONST, .type = e->type};
        c.konst.v.c[1] = e->floatlit.value;
        emit_const(em, &c);
        return;
    }
    case N_CAST:
        emit_cast_to(em, e->cast.operand, e->type);
        return;
    case N_UNARY: {
        Type *t = e->type;
        const Node *a = e->unary.operand;
        switch (e->unary.op) {
        case OP_NOT:
            emit_text(em, "!");
            operand(em, a);
            return;
        case OP_POS:
            emit_expr(em, a);
            return;
        case OP_INVERT:
            emit_text(em, "~");
            operand(em, a);
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
                operand(em, a);
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
        operand(em, e->ifexp.cond);
        emit_text(em, " ? ");
        operand(em, e->ifexp.then);
        emit_text(em, " : ");
        operand(em, e->ifexp.orelse);
        emit_text(em, ")");
        return;
    case N_CALL:
        emit_call(em, e);
        return;
    case N_TUPLE:
        emit_text(em, "%s_make(", e->type->cname);
        emit_args(em, &e->tuple.elts);
        emit_text(em, ")");
        return;
    case N_SUBSCRIPT: {
        const Node *base = e->subscript.value;
        if (base->type->kind == TY_TUPLE) {
            int64_t k = e->subscript.index.items[0]->konst.v.i;
            if (base->kind == N_ATTR && base->type->kind == TY_TUPLE && !strcmp(base->attr.attr, "shape")) {
                operand(em, base->attr.value);
                emit_text(em, ".shape[%lld]", (long long)k);
                return;
            }
            operand(em, base);
            emit_text(em, ".f%lld", (long long)k);
            return;
        }
        emit_index(em, base, &e->subscript.index);
        return;
    }
    case N_ATTR: {
        const Node *v = e->attr.value;
        const char *a = e->attr.attr;
        if (ty_is_complex(v->type)) {
            operand(em, v);
            emit_text(em, strcmp(a, "real") == 0 ? ".re" : ".im");
            return;
        }
        if (strcmp(a, "size") == 0) {
            emit_text(em, "(");
            for (int i = 0; i < v->type->ndim; i++) {
                if (i)
                    emit_text(em, " * ");
                operand(em, v);
                emit_text(em, ".shape[%d]", i);
            }
            emit_text(em, ")");
            return;
        }
        /* a.shape or a.strides as a tuple value */
        bool strides = strcmp(a, "strides") == 0;
        emit_text(em, "%s_make(", e->type->cname);
        for (int i = 0; i < v->type->ndim; i++) {
            if (i)
                emit_text(em, ", ");
            operand(em, v);
            if (strides)
                emit_text(em, ".stride[%d] * (int64_t)sizeof(%s)", i, v->type->elt->cname);
            else
                emit_text(em, ".shape[%d]", i);
        }
        emit_text(em, ")");
        return;
    }
    default:
        die("cannot emit a %s", node_kind_names[e->kind]);
    }
}

/* ---- statements -------------------------------------------------------------------------- */

static void emit_block(Emitter *em, const NodeList *b);

static void emit_lvalue(Emitter *em, const Node *t)
{
    emit_expr(em, t);
}

/* Does a loop body hold another loop?  (Picks the unroll pragma.) */
static bool has_loop(const NodeList *b)
{
    for (int i = 0; i < b->len; i++) {
        const Node *s = b->items[i];
        if (s->kind == N_FOR || s->kind == N_WHILE)
            return true;
        if (s->kind == N_IF && (has_loop(&s->ifstmt.then) || has_loop(&s->ifstmt.orelse)))
            return true;
    }
    return false;
}

static const char *loop_pragma(const NodeList *body)
{
    return has_loop(body) ? "UFN_LOOP_OUTER" : "UFN_LOOP";
}

static void emit_for(Emitter *em, const Node *s)
{
    const Node *target = s->forstmt.target, *iter = s->forstmt.iter;
    int d = ++em->loop_depth;
    const char *var = target->name.sym->var->cname;
    if (iter->kind == N_CALL && iter->call.builtin == B_RANGE) {
        const NodeList *a = &iter->call.args;
        Type *ct = a->items[0]->type;
        Buf start = {0}, stop = {0}, step = {0};
        Buf *saved = em->out;
        const Node *lo = a->len >= 2 ? a->items[0] : NULL, *hi = a->len >= 2 ? a->items[1] : a->items[0];
        const Node *st = a->len == 3 ? a->items[2] : NULL;
        em->out = &start;
        if (lo) emit_expr(em, lo); else emit_text(em, "0");
        em->out = &stop;
        emit_expr(em, hi);
        em->out = &step;
        if (st) emit_expr(em, st); else emit_text(em, "1");
        em->out = saved;
        int64_t k = 1;
        emit_line(em, "%s", loop_pragma(&s->forstmt.body));
        bool const_step = !st || (st->kind == N_CONST && (k = st->konst.v.i) != 0);
        if (const_step && k > 0)
            emit_line(em, "for (%s ufn_i%d = %s, ufn_end%d = %s; ufn_i%d < ufn_end%d; ufn_i%d += %s) {", ct->cname, d,
                      start.data, d, stop.data, d, d, d, step.data);
        else if (const_step)
            emit_line(em, "for (%s ufn_i%d = %s, ufn_end%d = %s; ufn_i%d > ufn_end%d; ufn_i%d += %s) {", ct->cname, d,
                      start.data, d, stop.data, d, d, d, step.data);
        else
            emit_line(em, "for (%s ufn_i%d = %s, ufn_end%d = %s, ufn_step%d = %s; ufn_step%d > 0 ? ufn_i%d < ufn_end%d : ufn_step%d < 0 && ufn_i%d > ufn_end%d; ufn_i%d += ufn_step%d) {",
                      ct->cname, d, start.data, d, stop.data, d, step.data, d, d, d, d, d, d, d, d);
        buf_free(&start);
        buf_free(&stop);
        buf_free(&step);
        em->indent++;
        if (target->type == ct)
            emit_line(em, "%s = ufn_i%d;", var, d);
        else
            emit_line(em, "%s = (%s)ufn_i%d;", var, target->type->cname, d);
    } else {
        Buf arr = {0};
        Buf *saved = em->out;
        em->out = &arr;
        operand(em, iter);
        em->out = saved;
        emit_line(em, "%s", loop_pragma(&s->forstmt.body));
        emit_line(em, "for (int64_t ufn_i%d = 0; ufn_i%d < %s.shape[0]; ufn_i%d++) {", d, d, arr.data, d);
        em->indent++;
        if (target->type == iter->type->elt)
            emit_line(em, "%s = %s.data[ufn_i%d * %s.stride[0]];", var, arr.data, d, arr.data);
        else
            emit_line(em, "%s = (%s)%s.data[ufn_i%d * %s.stride[0]];", var, target->type->cname, arr.data, d, arr.data);
        buf_free(&arr);
    }
    emit_block(em, &s->forstmt.body);
    em->indent--;
    emit_line(em, "}");
    em->loop_depth--;
}

/* A whole expression where C needs no parentheses around it (a condition,
 * the value assigned or returned): without the outer pair, if any. */
static void emit_top(Emitter *em, const Node *e)
{
    Buf b = {0};
    Buf *saved = em->out;
    em->out = &b;
    emit_expr(em, e);
    em->out = saved;
    const char *s = b.data ? b.data : "";
    size_t n = b.len;
    if (n >= 2 && s[0] == '(' && s[n - 1] == ')') {
        int depth = 0;
        size_t i = 0;
        for (; i < n; i++) {
            depth += s[i] == '(' ? 1 : s[i] == ')' ? -1 : 0;
            if (depth == 0)
                break;
        }
        if (i == n - 1) {              /* the first '(' closes at the end */
            s++;
            n -= 2;
        }
    }
    buf_putn(em->out, s, n);
    buf_free(&b);
}

static void begin_line(Emitter *em)
{
    for (int i = 0; i < em->indent; i++)
        buf_puts(em->out, "    ");
}

static void emit_stmt(Emitter *em, const Node *s)
{
    line_directive(em, s->loc);
    switch (s->kind) {
    case N_ASSIGN:
        begin_line(em);
        emit_lvalue(em, s->assign.targets.items[0]);
        emit_text(em, " = ");
        emit_top(em, s->assign.value);
        emit_text(em, ";\n");
        return;
    case N_EXPRSTMT:
        begin_line(em);
        emit_text(em, "(void)");
        operand(em, s->exprstmt.expr);
        emit_text(em, ";\n");
        return;
    case N_IF:
        begin_line(em);
        emit_text(em, "if (");
        emit_top(em, s->ifstmt.cond);
        emit_text(em, ") {\n");
        em->indent++;
        emit_block(em, &s->ifstmt.then);
        em->indent--;
        if (s->ifstmt.orelse.len) {
            emit_line(em, "} else {");
            em->indent++;
            emit_block(em, &s->ifstmt.orelse);
            em->indent--;
        }
        emit_line(em, "}");
        return;
    case N_WHILE:
        emit_line(em, "%s", loop_pragma(&s->whilestmt.body));
        begin_line(em);
        emit_text(em, "while (");
        emit_top(em, s->whilestmt.cond);
        emit_text(em, ") {\n");
        em->indent++;
        emit_block(em, &s->whilestmt.body);
        em->indent--;
        emit_line(em, "}");
        return;
    case N_FOR:
        emit_for(em, s);
        return;
    case N_BREAK:
        emit_line(em, "break;");
        return;
    case N_CONTINUE:
        emit_line(em, "continue;");
        return;
    case N_RETURN:
        if (s->ret.value) {
            begin_line(em);
            emit_text(em, "return ");
            emit_top(em, s->ret.value);
            emit_text(em, ";\n");
        } else
            emit_line(em, "return;");
        return;
    default:
        die("cannot emit a %s statement", node_kind_names[s->kind]);
    }
}

static void emit_block(Emitter *em, const NodeList *b)
{
    for (int i = 0; i < b->len; i++)
        emit_stmt(em, b->items[i]);
}

/* ---- functions ------------------------------------------------------------------------------ */

static void prototype(Emitter *em, const Instance *inst, bool decl)
{
    Buf params = {0};
    for (int i = 0; i < inst->nargs; i++) {
        Var *v = inst->vars[i];
        bool rebound = v->type != inst->args[i];
        buf_printf(&params, "%s%s %s%s", i ? ", " : "", inst->args[i]->cname, v->cname, rebound ? "_arg" : "");
    }
    emit_line(em, "%s %s %s(%s)%s", inst->recursive ? "UFN_RECURSIVE" : "UFN_BODY",
              inst->ret ? inst->ret->cname : "void", inst->cname,
              params.data ? params.data : "void", decl ? ";" : "");
    buf_free(&params);
}

static const char *describe(const Instance *inst)
{
    Buf b = {0};
    Func *f = inst->func;
    if (inst->sig)
        buf_printf(&b, "%s '%s'", f->kind == FK_GUVECTORIZE ? "@guvectorize" : "@vectorize", inst->sig->text);
    else {
        buf_puts(&b, "helper (");
        for (int i = 0; i < inst->nargs; i++)
            buf_printf(&b, "%s%s", i ? ", " : "", inst->args[i]->name);
        buf_printf(&b, ") -> %s", inst->ret ? inst->ret->name : "none");
    }
    const char *s = arena_strndup(b.data, b.len);
    buf_free(&b);
    return s;
}

static void emit_function(Emitter *em, const Instance *inst)
{
    Node *def = inst->func->def;
    emit_line(em, "/* %s:%d: def %s, %s */", def->loc.file ? def->loc.file->name : "?", def->loc.line,
              inst->func->name, describe(inst));
    prototype(em, inst, false);
    emit_line(em, "{");
    em->indent++;
    for (int i = 0; i < inst->nvars; i++) {
        Var *v = inst->vars[i];
        if (!v->type)
            continue;
        bool aggregate = v->type->kind == TY_TUPLE || v->type->kind == TY_ARRAY || ty_is_complex(v->type);
        if (v->param) {
            if (v->type != inst->args[i]) {
                /* assigned a wider type in the body: a local of that type */
                Node arg = {.kind = N_NAME, .type = inst->args[i]};
                arg.name.id = arena_printf("%s_arg", v->cname);
                begin_line(em);
                emit_text(em, "%s %s = ", v->type->cname, v->cname);
                emit_cast_to(em, &arg, v->type);
                emit_text(em, ";\n");
            }
            continue;
        }
        /* every local starts at zero: no path reads an indeterminate value */
        emit_line(em, "%s %s = %s;", v->type->cname, v->cname, aggregate ? "{0}" : "0");
    }
    emit_block(em, &inst->body);
    em->indent--;
    line_reset(em);
    emit_line(em, "}");
    emit_line(em, "%s", "");
}

static void proto_cb(const Instance *inst, void *ctx)
{
    prototype(ctx, inst, true);
}

static void body_cb(const Instance *inst, void *ctx)
{
    emit_function(ctx, inst);
}

void emit_bodies(Emitter *em)
{
    emit_line(em, "%s", "");
    emit_line(em, "/* ---- scalar bodies: the same code for the GPU, the simulator and the host ---- */");
    emit_line(em, "%s", "");
    all_instances(em->mod, proto_cb, em);
    emit_line(em, "%s", "");
    all_instances(em->mod, body_cb, em);
}
