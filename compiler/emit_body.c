/* emit_body.c - the scalar bodies: every kernel signature and helper
 * instance as one C function that is valid both as CUDA C++ (__host__
 * __device__) and as C11, so the GPU kernels, the simulator and the host
 * loops all compute with the same code; the tuple and array-view types they
 * use; and how a kernel or a host loop passes a gufunc operand to one.
 * Types are already decided by the checker (every conversion is an N_CAST);
 * this file only spells the statements (emit_expr.c, the expressions). */
#include "ufnc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- collecting the types the bodies use ---------------------------------------- */

/* The tuple and array types of a module's bodies, each C type once. */
typedef struct TypeSet {
    Type **items;
    int n, cap;
} TypeSet;

static void note_type(TypeSet *ts, Type *t)
{
    if (!t || (t->kind != TY_TUPLE && t->kind != TY_ARRAY))
        return;
    /* arrays of any layout share one C view: one typedef per C name
     * (c_type's names are interned) */
    for (int i = 0; i < ts->n; i++)
        if (ts->items[i] == t || c_type(ts->items[i]) == c_type(t))
            return;
    if (t->kind == TY_TUPLE)           /* members first, so structs come in dependency order */
        for (int i = 0; i < t->nelts; i++)
            note_type(ts, t->elts[i]);
    if (ts->n == ts->cap) {
        ts->cap = ts->cap ? 2 * ts->cap : 32;
        Type **items = arena_alloc(sizeof(Type *) * (size_t)ts->cap);
        if (ts->n)
            memcpy(items, ts->items, sizeof(Type *) * (size_t)ts->n);
        ts->items = items;
    }
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

/* The bodies a file defines: polar.cu every helper, the host stub those
 * that run on the host (not the ones that use numba.cuda: thread code
 * only); @cuda.jit kernels are emit_kernel.c's. */
static void bodies_of(Module *m, bool host_stub, void (*fn)(const Instance *, void *), void *ctx)
{
    for (int i = 0; i < m->nhelpers; i++)
        if (!host_stub || !instance_uses_cuda(m->helpers[i]))
            fn(m->helpers[i], ctx);
    for (int i = 0; i < m->nkernels; i++)
        for (int k = 0; k < m->kernels[i]->ninstances; k++)
            if (m->kernels[i]->kind != FK_CUDA_KERNEL)
                fn(m->kernels[i]->instances[k], ctx);
}

static void note_cb(const Instance *inst, void *ctx)
{
    note_instance(ctx, inst);
}

/* A view: its struct, and the maker the kernels and host loops build it
 * with (gufunc_view). */
static void view_type(Emitter *em, const Type *t)
{
    const char *name = c_type(t);
    emit_line(em, "typedef struct { %s *data; int64_t shape[%d]; int64_t stride[%d]; } %s;", c_elem_type(t->elt),
              t->ndim, t->ndim, name);
    Buf params = {0}, sets = {0};
    for (int d = 0; d < t->ndim; d++) {
        buf_printf(&params, ", int64_t n%d", d);
        buf_printf(&sets, " v.shape[%d] = n%d;", d, d);
    }
    for (int d = 0; d < t->ndim; d++) {
        buf_printf(&params, ", int64_t s%d", d);
        buf_printf(&sets, " v.stride[%d] = s%d;", d, d);
    }
    emit_line(em, "UFN_BODY %s %s(%s *data%s) { %s v; v.data = data;%s return v; }", name, c_maker(t),
              c_elem_type(t->elt), params.data, name, sets.data);
    if (em->host_stub)   /* the lane bodies' views of row l of a block (emit_lanes.c) */
        emit_line(em, "UFN_BODY %s %s(%s v, int64_t rows, int l) { v.data += l * rows; return v; }", name,
                  c_row_maker(t), name);
    buf_free(&params);
    buf_free(&sets);
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
    bool jit = module_has_jit(em->mod);
    if (jit) {
        emit_line(em, "/* kernel bodies, and device functions that use numba.cuda (barriers, ...) */");
        emit_line(em, "#define UFN_KBODY static __device__ __forceinline__");
    }
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
    if (jit)
        emit_line(em, "#define UFN_KBODY static inline");
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
            view_type(em, t);
            continue;
        }
        Buf fields = {0}, params = {0}, sets = {0};
        for (int k = 0; k < t->nelts; k++) {
            buf_printf(&fields, " %s f%d;", c_type(t->elts[k]), k);
            buf_printf(&params, "%s%s a%d", k ? ", " : "", c_type(t->elts[k]), k);
            buf_printf(&sets, " t.f%d = a%d;", k, k);
        }
        emit_line(em, "typedef struct {%s } %s;", fields.data ? fields.data : "", c_type(t));
        emit_line(em, "UFN_BODY %s %s(%s) { %s t;%s return t; }", c_type(t), c_maker(t),
                  params.data ? params.data : "void", c_type(t), sets.data ? sets.data : "");
        buf_free(&fields);
        buf_free(&params);
        buf_free(&sets);
    }
}

/* ---- calling a body ------------------------------------------------------------------ */

/* The C expression building operand k's argument of a gufunc body, given
 * its data pointer expression. */
const char *gufunc_view(const Instance *inst, int k, const char *ptr, const char *const *core_dims,
                        const char *core_strides)
{
    Func *f = inst->func;
    Type *t = inst->args[k];
    Layout *l = f->layout;
    if (t->kind != TY_ARRAY)
        return c_load(t, arena_printf("*%s", ptr));   /* a '()' input declared as a scalar */
    Buf b = {0};
    buf_printf(&b, "%s(%s", c_maker(t), ptr);
    if (l->ndim[k] == 0) {
        buf_puts(&b, ", 1, 1)");                       /* old style: a one-element array */
    } else {
        for (int d = 0; d < t->ndim; d++)
            buf_printf(&b, ", %s", core_dims[l->dims[k][d]]);
        for (int d = 0; d < t->ndim; d++)
            buf_printf(&b, ", %s[%d]", core_strides, d);
        buf_puts(&b, ")");
    }
    const char *s = arena_strndup(b.data, b.len);
    buf_free(&b);
    return s;
}

/* ---- statements -------------------------------------------------------------------------- */

static void emit_block(Emitter *em, const NodeList *b);

/* An assignment's target: a variable or an array element (written as it
 * is, where a read of a bool element compares it with 0). */
static void emit_lvalue(Emitter *em, const Node *t)
{
    if (t->kind == N_SUBSCRIPT && t->subscript.value->type->kind == TY_ARRAY)
        emit_element(em, t->subscript.value, &t->subscript.index);
    else
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

/* for v in (a, b, c): the tuple's values, evaluated once, in a small array
 * read by index, inside a block of its own so that two such loops may follow
 * each other.  Opens the block and the loop; the caller closes both. */
static void open_tuple_loop(Emitter *em, const Node *s, int d)
{
    const Node *target = s->forstmt.target, *iter = s->forstmt.iter;
    const Type *t = iter->type, *elt = t->elts[0];
    Buf vals = {0}, whole = {0};
    Buf *saved = em->out;
    if (iter->kind != N_TUPLE) {
        em->out = &whole;
        emit_expr(em, iter);
    }
    em->out = &vals;
    for (int k = 0; k < t->nelts; k++) {
        if (k)
            emit_text(em, ", ");
        if (iter->kind == N_TUPLE)
            emit_expr(em, iter->tuple.elts.items[k]);
        else
            emit_text(em, "ufn_tuple%d.f%d", d, k);
    }
    em->out = saved;
    emit_line(em, "{");
    em->indent++;
    if (iter->kind != N_TUPLE)
        emit_line(em, "const %s ufn_tuple%d = %s;", c_type(t), d, whole.data);
    emit_line(em, "const %s ufn_in%d[%d] = {%s};", c_type(elt), d, t->nelts, vals.data);
    emit_line(em, "%s", loop_pragma(&s->forstmt.body));
    emit_line(em, "for (int ufn_i%d = 0; ufn_i%d < %d; ufn_i%d++) {", d, d, t->nelts, d);
    em->indent++;
    if (target->type == elt)
        emit_line(em, "%s = ufn_in%d[ufn_i%d];", target->name.sym->var->cname, d, d);
    else
        emit_line(em, "%s = (%s)ufn_in%d[ufn_i%d];", target->name.sym->var->cname, c_type(target->type), d, d);
    buf_free(&vals);
    buf_free(&whole);
}

static void emit_for(Emitter *em, const Node *s)
{
    const Node *target = s->forstmt.target, *iter = s->forstmt.iter;
    int d = ++em->loop_depth;
    const char *var = target->name.sym->var->cname;
    bool range = iter->kind == N_CALL && iter->call.builtin == B_RANGE;
    bool tuple = !range && iter->type->kind == TY_TUPLE;
    if (range) {
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
            emit_line(em, "for (%s ufn_i%d = %s, ufn_end%d = %s; ufn_i%d < ufn_end%d; ufn_i%d += %s) {", c_type(ct), d,
                      start.data, d, stop.data, d, d, d, step.data);
        else if (const_step)
            emit_line(em, "for (%s ufn_i%d = %s, ufn_end%d = %s; ufn_i%d > ufn_end%d; ufn_i%d += %s) {", c_type(ct), d,
                      start.data, d, stop.data, d, d, d, step.data);
        else
            emit_line(em, "for (%s ufn_i%d = %s, ufn_end%d = %s, ufn_step%d = %s; ufn_step%d > 0 ? ufn_i%d < ufn_end%d : ufn_step%d < 0 && ufn_i%d > ufn_end%d; ufn_i%d += ufn_step%d) {",
                      c_type(ct), d, start.data, d, stop.data, d, step.data, d, d, d, d, d, d, d, d);
        buf_free(&start);
        buf_free(&stop);
        buf_free(&step);
        em->indent++;
        if (target->type == ct)
            emit_line(em, "%s = ufn_i%d;", var, d);
        else
            emit_line(em, "%s = (%s)ufn_i%d;", var, c_type(target->type), d);
    } else if (tuple) {
        open_tuple_loop(em, s, d);
    } else {
        Buf arr = {0};
        Buf *saved = em->out;
        em->out = &arr;
        emit_operand(em, iter);
        em->out = saved;
        emit_line(em, "%s", loop_pragma(&s->forstmt.body));
        emit_line(em, "for (int64_t ufn_i%d = 0; ufn_i%d < %s.shape[0]; ufn_i%d++) {", d, d, arr.data, d);
        em->indent++;
        const char *elem = c_load(iter->type->elt, arena_printf("%s.data[ufn_i%d * %s.stride[0]]", arr.data, d, arr.data));
        if (target->type == iter->type->elt)
            emit_line(em, "%s = %s;", var, elem);
        else
            emit_line(em, "%s = (%s)%s;", var, c_type(target->type), elem);
        buf_free(&arr);
    }
    emit_block(em, &s->forstmt.body);
    em->indent--;
    emit_line(em, "}");
    if (tuple) {
        em->indent--;
        emit_line(em, "}");
    }
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

static void emit_stmt(Emitter *em, const Node *s)
{
    line_directive(em, s->loc);
    switch (s->kind) {
    case N_ASSIGN: {
        const Node *t = s->assign.targets.items[0];
        if (em->checks && t->kind == N_SUBSCRIPT && t->subscript.value->type->kind == TY_ARRAY) {
            /* a checked store: UFN_STORE(T, &a.data[...], value) */
            begin_line(em);
            emit_text(em, "UFN_STORE(%s, &", c_elem_type(t->subscript.value->type->elt));
            emit_element(em, t->subscript.value, &t->subscript.index);
            emit_text(em, ", ");
            emit_top(em, s->assign.value);
            emit_text(em, ");\n");
            return;
        }
        begin_line(em);
        emit_lvalue(em, s->assign.targets.items[0]);
        emit_text(em, " = ");
        emit_top(em, s->assign.value);
        emit_text(em, ";\n");
        return;
    }
    case N_EXPRSTMT:
        begin_line(em);
        emit_text(em, "(void)");
        emit_operand(em, s->exprstmt.expr);
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

/* An assignment or expression statement, for the lane bodies (emit_lanes.c). */
void emit_simple_stmt(Emitter *em, const Node *s)
{
    emit_stmt(em, s);
}

static void emit_block(Emitter *em, const NodeList *b)
{
    for (int i = 0; i < b->len; i++)
        emit_stmt(em, b->items[i]);
}

void emit_statement(Emitter *em, const Node *s)
{
    emit_stmt(em, s);
}

/* ---- functions ------------------------------------------------------------------------------ */

/* The function of a body, named `name`: its own C name or its divider copy's. */
static void prototype(Emitter *em, const Instance *inst, const char *name, bool decl)
{
    Buf params = {0};
    if (inst->depth_cname)   /* the depth comes first (ufn_abi.h) */
        buf_printf(&params, "int %s", inst->depth_cname);
    for (int i = 0; i < inst->nargs; i++) {
        Var *v = inst->vars[i];
        bool rebound = v->type != inst->args[i];
        buf_printf(&params, "%s%s %s", i || inst->depth_cname ? ", " : "", c_type(inst->args[i]),
                   rebound ? v->arg_cname : v->cname);
    }
    emit_line(em, "%s %s %s(%s)%s", inst->recursive ? "UFN_RECURSIVE" : instance_uses_cuda(inst) ? "UFN_KBODY" : "UFN_BODY",
              inst->ret ? c_type(inst->ret) : "void", name,
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

/* A body's function, or (copy) its divider copy: the same statements with
 * their divisions by a constant spelled `/` (emit_expr.c, has_divider_copy). */
static void emit_function(Emitter *em, const Instance *inst, bool copy)
{
    Node *def = inst->func->def;
    emit_line(em, "/* %s:%d: def %s, %s%s */", def->loc.file ? def->loc.file->name : "?", def->loc.line,
              inst->func->name, describe(inst),
              copy ? "; its copy with `/` for loops that evaluate math functions (fma ports busy, divider idle)" : "");
    prototype(em, inst, copy ? divider_c_name(inst) : inst->cname, false);
    emit_line(em, "{");
    em->indent++;
    em->divider_copy = copy;
    emit_function_body(em, inst);
    em->divider_copy = false;
    em->indent--;
    line_reset(em);
    emit_line(em, "}");
    emit_line(em, "%s", "");
}

/* ---- shared and local arrays ---- */

typedef enum StorageFor { FOR_KERNEL, FOR_RUNNER } StorageFor;

/* The storage of the body's shared and local arrays, by slot. */
static void storage_of(Emitter *em, const Node *n, unsigned *offset, StorageFor what);

static void storage_list(Emitter *em, const NodeList *l, unsigned *offset, StorageFor what)
{
    for (int i = 0; i < l->len; i++)
        storage_of(em, l->items[i], offset, what);
}

static void storage_of(Emitter *em, const Node *n, unsigned *offset, StorageFor what)
{
    if (!n)
        return;
    switch (n->kind) {
    case N_ASSIGN: storage_list(em, &n->assign.targets, offset, what); storage_of(em, n->assign.value, offset, what); break;
    case N_EXPRSTMT: storage_of(em, n->exprstmt.expr, offset, what); break;
    case N_IF: storage_list(em, &n->ifstmt.then, offset, what); storage_list(em, &n->ifstmt.orelse, offset, what); break;
    case N_WHILE: storage_list(em, &n->whilestmt.body, offset, what); break;
    case N_FOR: storage_list(em, &n->forstmt.body, offset, what); break;
    case N_CALL: {
        CudaFn fn = (CudaFn)n->call.cuda;
        if (n->call.builtin != B_CUDA || (fn != CU_SHARED_ARRAY && fn != CU_LOCAL_ARRAY))
            break;
        const NodeList *d = &n->call.args;
        long long count = 1;
        for (int i = 0; i < d->len; i++)
            count *= d->items[i]->konst.v.i;
        const char *elt = c_elem_type(n->type->elt);
        if (fn == CU_LOCAL_ARRAY)
            emit_line(em, "%s %s[%lld];", elt, storage_c_name(n), count);
        else if (count) {
            if (what == FOR_RUNNER)   /* the block's shared memory, which the runtime hands over */
                emit_line(em, "%s *%s = (%s *)(ufn_b->shared + %u);", elt, storage_c_name(n), elt, *offset);
            else
                emit_line(em, "UFN_SHARED_ARRAY(%s, %s, %lld, %u);", elt, storage_c_name(n), count, *offset);
            *offset += (unsigned)(((unsigned long long)count * (unsigned)n->type->elt->size + 15) & ~15ull);
        }
        break;
    }
    default: break;
    }
}

void emit_array_storage(Emitter *em, const Instance *inst, bool runner)
{
    unsigned offset = 0;
    storage_list(em, &inst->body, &offset, runner ? FOR_RUNNER : FOR_KERNEL);
}

void emit_function_body(Emitter *em, const Instance *inst)
{
    emit_array_storage(em, inst, false);
    em->depth_cname = inst->depth_cname;
    em->body = inst;
    if (inst->depth_cname && inst->ret)   /* too deep: zero, and the call fails (ufn_abi.h) */
        emit_line(em, "UFN_DEPTH_CHECK(%s, %s)", inst->depth_cname, c_type(inst->ret));
    else if (inst->depth_cname)
        emit_line(em, "UFN_DEPTH_CHECK_VOID(%s)", inst->depth_cname);
    for (int i = 0; i < inst->nvars; i++) {
        Var *v = inst->vars[i];
        if (!v->type)
            continue;
        bool aggregate = v->type->kind == TY_TUPLE || v->type->kind == TY_ARRAY || ty_is_complex(v->type);
        if (v->param) {
            if (v->type != inst->args[i]) {
                /* assigned a wider type in the body: a local of that type */
                Node arg = {.kind = N_NAME, .type = inst->args[i]};
                arg.name.id = v->arg_cname;
                begin_line(em);
                emit_text(em, "%s %s = ", c_type(v->type), v->cname);
                emit_cast_to(em, &arg, v->type);
                emit_text(em, ";\n");
            }
            continue;
        }
        /* every local starts at zero: no path reads an indeterminate value */
        emit_line(em, "%s %s = %s;", c_type(v->type), v->cname, aggregate ? "{0}" : "0");
    }
    emit_block(em, &inst->body);
    em->depth_cname = NULL;
    em->body = NULL;
}

static void proto_cb(const Instance *inst, void *ctx)
{
    Emitter *em = ctx;
    prototype(em, inst, inst->cname, true);
    if (has_divider_copy(em->mod, inst))
        prototype(em, inst, divider_c_name(inst), true);
}

static void body_cb(const Instance *inst, void *ctx)
{
    Emitter *em = ctx;
    emit_function(em, inst, false);
    if (has_divider_copy(em->mod, inst))
        emit_function(em, inst, true);
}

void emit_bodies(Emitter *em)
{
    emit_line(em, "%s", "");
    emit_line(em, "/* ---- scalar bodies: the same code for the GPU, the simulator and the host ---- */");
    emit_line(em, "%s", "");
    bodies_of(em->mod, em->host_stub, proto_cb, em);
    emit_line(em, "%s", "");
    bodies_of(em->mod, em->host_stub, body_cb, em);
}
