/* emit_lanes.c - a gufunc body run on HOST_LANES rows at once (issue 17):
 * the host loop of a gufunc whose core is a loop (l2_norm's `for value in
 * vec: acc += value ** 2`) cannot be vectorised across rows as the scalar
 * body is written, and the loop inside it is a reduction that must keep its
 * order.  The lane body keeps every row's order and vectorises across rows:
 * each variable becomes an array of one value per row (lane), each run of
 * assignments becomes one `#pragma omp simd` loop over the lanes, and the
 * loops of the body stay loops around them.  A row computes exactly the
 * operations of the scalar body in the same order, so its bits are the
 * scalar body's (and the simulator's: tests/e2e compares them).
 *
 * What makes that fast (issue 17, bench/methods.md): lane l's view of an
 * array is the block's first view l rows further on (an address gcc
 * vectorises); a `for x in arr` loop reads the rows in transposed tiles
 * (whole rows, shuffled in registers); the host loop prefetches the rows
 * of a later block.
 *
 * That needs every row to take the same path: the body may hold assignments,
 * expression statements and `for` loops whose bounds are the same for every
 * row (built from constants, the core dimensions of the array parameters,
 * and variables assigned only such values); no if, while, break, continue
 * or return, no arrays but the parameters, no widened parameters.  Bodies
 * without a loop keep the scalar host loop, which gcc vectorises already. */
#include "ufnc.h"

#include <string.h>

const char *lanes_c_name(const Instance *inst)
{
    return arena_printf("%s__lanes", inst->cname);
}

/* An array parameter is passed to the lane body as the view of the block's
 * first row and the distance between rows, in elements (lane_rows_name):
 * row l's view (var_ref) has the same shape and strides and its data l
 * rows further on.  Its address is then an affine function of the lane,
 * which gcc vectorises (a view per lane, loaded from memory, it does not). */

/* ---- which bodies ------------------------------------------------------------------------ */

typedef struct Uniform {
    const Instance *inst;
    bool *var;                  /* per variable of inst: the same in every lane */
} Uniform;

static int var_index(const Instance *inst, const Var *v)
{
    for (int i = 0; i < inst->nvars; i++)
        if (inst->vars[i] == v)
            return i;
    return -1;
}

static const Var *local_of(const Node *e)
{
    return e && e->kind == N_NAME && e->name.sym && e->name.sym->kind == SYM_LOCAL ? e->name.sym->var : NULL;
}

/* An array parameter: its extents are the core dimensions, the same in
 * every row. */
static bool is_array_param(const Node *e)
{
    const Var *v = local_of(e);
    return v && v->param && v->type && v->type->kind == TY_ARRAY;
}

static bool uniform_expr(const Uniform *u, const Node *e)
{
    switch (e->kind) {
    case N_CONST:
    case N_INT:
    case N_FLOAT:
    case N_TRUE:
    case N_FALSE:
        return true;
    case N_NAME: {
        const Var *v = local_of(e);
        int i = v ? var_index(u->inst, v) : -1;
        return i >= 0 && !v->param && u->var[i];
    }
    case N_CAST:
    case N_UNARY:
        return uniform_expr(u, e->kind == N_CAST ? e->cast.operand : e->unary.operand);
    case N_BINARY:
        return uniform_expr(u, e->binary.lhs) && uniform_expr(u, e->binary.rhs);
    case N_ATTR:
        return (e->attr.which == ATTR_SHAPE || e->attr.which == ATTR_SIZE || e->attr.which == ATTR_EXTENT
                || e->attr.which == ATTR_STRIDES) && is_array_param(e->attr.value);
    case N_CALL:
        return e->call.builtin == B_LEN && e->call.args.len == 1 && is_array_param(e->call.args.items[0]);
    default:
        return false;
    }
}

/* Clear the uniformity of what a block assigns non-uniform values; is the
 * block made only of what a lane body runs?  Sets *changed. */
static bool scan_block(Uniform *u, const NodeList *b, bool *changed, bool *has_loop)
{
    for (int i = 0; i < b->len; i++) {
        const Node *s = b->items[i];
        const Var *v = NULL;
        bool uniform = false;
        switch (s->kind) {
        case N_EXPRSTMT:
            continue;
        case N_ASSIGN: {
            const Node *t = s->assign.targets.items[0];
            if (s->assign.targets.len != 1 || (t->kind != N_NAME && t->kind != N_SUBSCRIPT))
                return false;
            v = local_of(t);
            uniform = v && uniform_expr(u, s->assign.value);
            break;
        }
        case N_FOR: {
            const Node *it = s->forstmt.iter;
            *has_loop = true;
            if (s->forstmt.orelse.len)
                return false;
            if (it->kind == N_CALL && it->call.builtin == B_RANGE) {
                uniform = true;
                for (int k = 0; k < it->call.args.len; k++)
                    uniform = uniform && uniform_expr(u, it->call.args.items[k]);
                if (!uniform)
                    return false;      /* the loop's trip count differs between rows */
            } else if (!is_array_param(it) || it->type->ndim != 1) {
                return false;
            }
            v = local_of(s->forstmt.target);
            if (!v || !scan_block(u, &s->forstmt.body, changed, has_loop))
                return false;
            break;
        }
        default:
            return false;              /* control flow that may differ between rows */
        }
        int k = v ? var_index(u->inst, v) : -1;
        if (k >= 0 && !uniform && u->var[k]) {
            u->var[k] = false;
            *changed = true;
        }
    }
    return true;
}

bool lanes_apply(const Instance *inst)
{
    if (inst->func->kind != FK_GUVECTORIZE || inst->depth_cname)
        return false;
    for (int i = 0; i < inst->nvars; i++) {
        const Var *v = inst->vars[i];
        if (v->arg_cname || (!v->param && v->type && v->type->kind == TY_ARRAY))
            return false;
    }
    Uniform u = {inst, arena_alloc(sizeof(bool) * (size_t)(inst->nvars ? inst->nvars : 1))};
    for (int i = 0; i < inst->nvars; i++)
        u.var[i] = !inst->vars[i]->param;
    bool changed = true, has_loop = false;
    while (changed) {                  /* uniformity only ever goes away: a fixpoint */
        changed = false;
        if (!scan_block(&u, &inst->body, &changed, &has_loop))
            return false;
    }
    return has_loop;
}

/* ---- the lane body ---------------------------------------------------------------------- */

static void open_lanes(Emitter *em, bool *open)
{
    if (*open)
        return;
    emit_line(em, "#pragma omp simd");
    emit_line(em, "for (int ufn_l = 0; ufn_l < ufn_nl; ufn_l++) {");
    em->indent++;
    em->lane = "[ufn_l]";
    *open = true;
}

static void close_lanes(Emitter *em, bool *open)
{
    if (!*open)
        return;
    em->indent--;
    emit_line(em, "}");
    em->lane = "[0]";
    *open = false;
}

/* An expression as a string, read in lane `lane`. */
static const char *expr_text(Emitter *em, const Node *e, const char *lane, bool operand)
{
    Buf b = {0};
    Buf *saved = em->out;
    const char *saved_lane = em->lane;
    em->out = &b;
    em->lane = lane;
    if (operand)
        emit_operand(em, e);
    else
        emit_expr(em, e);
    em->out = saved;
    em->lane = saved_lane;
    const char *s = arena_strndup(b.data ? b.data : "", b.len);
    buf_free(&b);
    return s;
}

static void lane_block(Emitter *em, const NodeList *b, bool *open);

/* ---- tiles -------------------------------------------------------------------------------- */

static bool passes_list(const NodeList *l, const Var *v);

/* Does expression e hand array v to a call (which may write it)?  Kinds
 * not listed count as yes. */
static bool passes(const Node *e, const Var *v)
{
    if (!e)
        return false;
    switch (e->kind) {
    case N_NAME:
    case N_INT:
    case N_FLOAT:
    case N_IMAG:
    case N_STR:
    case N_TRUE:
    case N_FALSE:
    case N_NONE:
    case N_CONST:
        return false;
    case N_UNARY:
        return passes(e->unary.operand, v);
    case N_CAST:
        return passes(e->cast.operand, v);
    case N_BINARY:
        return passes(e->binary.lhs, v) || passes(e->binary.rhs, v);
    case N_BOOLOP:
        return passes(e->boolop.lhs, v) || passes(e->boolop.rhs, v);
    case N_COMPARE:
        for (int i = 0; i <= e->compare.n; i++)
            if (passes(e->compare.operands[i], v))
                return true;
        return false;
    case N_IFEXP:
        return passes(e->ifexp.cond, v) || passes(e->ifexp.then, v) || passes(e->ifexp.orelse, v);
    case N_ATTR:
        return passes(e->attr.value, v);
    case N_SUBSCRIPT:
        return passes(e->subscript.value, v) || passes_list(&e->subscript.index, v);
    case N_TUPLE:
    case N_LIST:
        return passes_list(&e->tuple.elts, v);
    case N_KEYWORD:
        return local_of(e->keyword.value) == v || passes(e->keyword.value, v);
    case N_CALL:
        for (int i = 0; i < e->call.args.len; i++)
            if (local_of(e->call.args.items[i]) == v)
                return true;
        return passes_list(&e->call.args, v) || passes_list(&e->call.kwargs, v);
    default:
        return true;
    }
}

static bool passes_list(const NodeList *l, const Var *v)
{
    for (int i = 0; i < l->len; i++)
        if (passes(l->items[i], v))
            return true;
    return false;
}

/* Might block b write array v: an element assigned, or v handed to a call?
 * (A tile holds elements read ahead; Python reads each when it gets there.) */
static bool may_write(const NodeList *b, const Var *v)
{
    for (int i = 0; i < b->len; i++) {
        const Node *s = b->items[i];
        switch (s->kind) {
        case N_ASSIGN:
            for (int k = 0; k < s->assign.targets.len; k++) {
                const Node *t = s->assign.targets.items[k];
                if (t->kind == N_SUBSCRIPT && local_of(t->subscript.value) == v)
                    return true;
                if (passes(t, v))
                    return true;
            }
            if (passes(s->assign.value, v))
                return true;
            break;
        case N_EXPRSTMT:
            if (passes(s->exprstmt.expr, v))
                return true;
            break;
        case N_FOR:
            if (passes(s->forstmt.iter, v) || may_write(&s->forstmt.body, v))
                return true;
            break;
        default:
            return true;
        }
    }
    return false;
}

/* `for x in arr` over a 1-d array parameter: the rows' elements are read a
 * tile of HOST_LANES at a time into ufn_tileD[k][lane], then the loop runs
 * over the tile's k.  Row by row a lane's elements are contiguous (and one
 * lane's are HOST_LANES * 4 bytes, a cache line, for float32), so a full
 * tile of unit-stride rows is read as whole rows and transposed with
 * constant bounds, which gcc does in registers (vpermt2ps); element by
 * element across the lanes it would be a gather per element.  Opens the
 * tile's loop and the loop over k (lane_for closes them). */
static void tile_loop(Emitter *em, const Node *arr, int d)
{
    const Var *v = local_of(arr);
    const char *a = v->cname, *rows = lane_rows_name(v), *elt = c_elem_type(arr->type->elt);
    int n = HOST_LANES;
    emit_line(em, "for (int64_t ufn_b%d = 0; ufn_b%d < %s.shape[0]; ufn_b%d += %d) {", d, d, a, d, n);
    em->indent++;
    emit_line(em, "int ufn_nk%d = %s.shape[0] - ufn_b%d < %d ? (int)(%s.shape[0] - ufn_b%d) : %d;", d, a, d, n, a, d, n);
    emit_line(em, "/* the next %d elements of each row as ufn_tile%d[k][lane]: whole rows, transposed, when all are there */",
              n, d);
    emit_line(em, "%s ufn_tile%d[%d][%d];", elt, d, n, n);
    emit_line(em, "if (ufn_nl == %d && ufn_nk%d == %d && %s.stride[0] == 1) {", n, d, n, a);
    emit_line(em, "    %s ufn_row%d[%d][%d];", elt, d, n, n);
    emit_line(em, "    for (int ufn_l = 0; ufn_l < %d; ufn_l++)", n);
    emit_line(em, "        for (int ufn_k = 0; ufn_k < %d; ufn_k++)", n);
    emit_line(em, "            ufn_row%d[ufn_l][ufn_k] = %s.data[ufn_l * %s + ufn_b%d + ufn_k];", d, a, rows, d);
    emit_line(em, "    for (int ufn_k = 0; ufn_k < %d; ufn_k++)", n);
    emit_line(em, "        for (int ufn_l = 0; ufn_l < %d; ufn_l++)", n);
    emit_line(em, "            ufn_tile%d[ufn_k][ufn_l] = ufn_row%d[ufn_l][ufn_k];", d, d);
    emit_line(em, "} else {");
    emit_line(em, "    for (int ufn_l = 0; ufn_l < ufn_nl; ufn_l++)");
    emit_line(em, "        for (int ufn_k = 0; ufn_k < ufn_nk%d; ufn_k++)", d);
    emit_line(em, "            ufn_tile%d[ufn_k][ufn_l] = %s.data[ufn_l * %s + (ufn_b%d + ufn_k) * %s.stride[0]];", d, a, rows,
              d, a);
    emit_line(em, "}");
    emit_line(em, "for (int ufn_k%d = 0; ufn_k%d < ufn_nk%d; ufn_k%d++) {", d, d, d, d);
    em->indent++;
}

/* A loop: its header read in lane 0 (the same in every lane), the target
 * bound in each lane, then the body. */
static void lane_for(Emitter *em, const Node *s)
{
    const Node *target = s->forstmt.target, *iter = s->forstmt.iter;
    int d = ++em->loop_depth;
    bool open = false;
    bool tiled = iter->kind != N_CALL && !may_write(&s->forstmt.body, local_of(iter));
    line_directive(em, s->loc);
    if (iter->kind == N_CALL) {
        const NodeList *a = &iter->call.args;
        Type *ct = a->items[0]->type;
        const Node *lo = a->len >= 2 ? a->items[0] : NULL, *hi = a->len >= 2 ? a->items[1] : a->items[0];
        const Node *st = a->len == 3 ? a->items[2] : NULL;
        const char *start = lo ? expr_text(em, lo, "[0]", false) : "0";
        const char *stop = expr_text(em, hi, "[0]", false), *step = st ? expr_text(em, st, "[0]", false) : "1";
        emit_line(em, "for (%s ufn_i%d = %s, ufn_end%d = %s, ufn_step%d = %s; ufn_step%d > 0 ? ufn_i%d < ufn_end%d : ufn_step%d < 0 && ufn_i%d > ufn_end%d; ufn_i%d += ufn_step%d) {",
                  c_type(ct), d, start, d, stop, d, step, d, d, d, d, d, d, d, d);
        em->indent++;
        open_lanes(em, &open);
        emit_line(em, "%s = (%s)ufn_i%d;", var_ref(em, target->name.sym->var), c_type(target->type), d);
    } else if (tiled) {
        tile_loop(em, iter, d);
        open_lanes(em, &open);
        const char *elem = c_load(iter->type->elt, arena_printf("ufn_tile%d[ufn_k%d][ufn_l]", d, d));
        emit_line(em, "%s = (%s)%s;", var_ref(em, target->name.sym->var), c_type(target->type), elem);
    } else {
        const char *arr0 = expr_text(em, iter, "[0]", true);
        emit_line(em, "for (int64_t ufn_i%d = 0; ufn_i%d < %s.shape[0]; ufn_i%d++) {", d, d, arr0, d);
        em->indent++;
        open_lanes(em, &open);
        const char *arr = expr_text(em, iter, "[ufn_l]", true);
        const char *elem = c_load(iter->type->elt, arena_printf("%s.data[ufn_i%d * %s.stride[0]]", arr, d, arr));
        emit_line(em, "%s = (%s)%s;", var_ref(em, target->name.sym->var), c_type(target->type), elem);
    }
    lane_block(em, &s->forstmt.body, &open);   /* the body's first run joins the binding's */
    close_lanes(em, &open);
    em->indent--;
    emit_line(em, "}");
    if (tiled) {                               /* the tile's loop */
        em->indent--;
        emit_line(em, "}");
    }
    em->loop_depth--;
}

/* Runs of assignments in one loop over the lanes each (*open: one is open
 * already, and stays open at the end); loops between them. */
static void lane_block(Emitter *em, const NodeList *b, bool *open)
{
    for (int i = 0; i < b->len; i++) {
        const Node *s = b->items[i];
        if (s->kind == N_FOR) {
            close_lanes(em, open);
            lane_for(em, s);
            continue;
        }
        open_lanes(em, open);
        emit_simple_stmt(em, s);
    }
}

/* NAME__lanes(each operand: an array's first view and row distance, a
 * scalar's value in each lane; ufn_nl lanes): the body for ufn_nl <=
 * HOST_LANES rows. */
void emit_lane_function(Emitter *em, const Instance *inst)
{
    emit_line(em, "/* %s '%s' on up to %d rows at once, each row in the scalar body's order */",
              inst->func->name, inst->sig->text, HOST_LANES);
    Buf params = {0};
    for (int i = 0; i < inst->nargs; i++) {
        const Var *v = inst->vars[i];
        if (inst->args[i]->kind == TY_ARRAY)
            buf_printf(&params, "%s%s %s, ufn_index %s", i ? ", " : "", c_type(inst->args[i]), v->cname, lane_rows_name(v));
        else
            buf_printf(&params, "%s%s *%s", i ? ", " : "", c_type(inst->args[i]), v->cname);
    }
    emit_line(em, "UFN_LOOP_INLINE void %s(%s, int ufn_nl)", lanes_c_name(inst), params.data);
    buf_free(&params);
    emit_line(em, "{");
    em->indent++;
    for (int i = inst->nargs; i < inst->nvars; i++) {
        Var *v = inst->vars[i];
        if (v->type)   /* every local starts at zero, as in the scalar body */
            emit_line(em, "%s %s[%d] = {0};", c_type(v->type), v->cname, HOST_LANES);
    }
    em->lane = "[0]";
    bool open = false;
    lane_block(em, &inst->body, &open);
    close_lanes(em, &open);
    em->lane = NULL;
    em->indent--;
    line_reset(em);
    emit_line(em, "}");
    emit_line(em, "%s", "");
}

/* The lane body waits on memory at each block's first reads: the hardware
 * prefetcher sees HOST_LANES rows start at once and does not run far
 * enough ahead (l2_norm: 0.33 -> 0.25 ns per element, one thread, 64 MB).
 * One hint per row of each input array, HOST_PREFETCH_BLOCKS blocks on. */
void emit_lane_prefetch(Emitter *em, const Instance *inst)
{
    int ahead = HOST_PREFETCH_BLOCKS * HOST_LANES;
    bool any = false;
    for (int k = 0; k < inst->func->layout->nin; k++)
        any = any || inst->args[k]->kind == TY_ARRAY;
    if (!any)
        return;
    emit_line(em, "if (t + %d <= dims[0])", ahead + HOST_LANES);
    emit_line(em, "    for (int ufn_l = 0; ufn_l < %d; ufn_l++) {", HOST_LANES);
    for (int k = 0; k < inst->func->layout->nin; k++)
        if (inst->args[k]->kind == TY_ARRAY)
            emit_line(em, "        UFN_PREFETCH(args[%d] + (t + %d + ufn_l) * steps[%d]);", k, ahead, k);
    emit_line(em, "    }");
}
