/* ast.c - node constructors, node lists and the -d ast dump.
 *
 * Nodes come from the arena and are never freed one by one.  Every
 * constructor zeroes the node and takes its kind and location first, so no
 * node lacks a location.  The parser's conventions are listed in ufnc.h,
 * above struct Node. */
#include "ufnc.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *const node_kind_names[] = {
#define X(k, s) s,
    NODE_KINDS(X)
#undef X
};

const char *const op_names[] = {
#define X(k, s) s,
    UNARY_OPS(X) BINARY_OPS(X) BOOL_OPS(X) COMPARE_OPS(X)
#undef X
};

/* ---- lists ----------------------------------------------------------------------- */

void list_push(NodeList *l, Node *n)
{
    if (l->len == l->cap) {
        /* The arena cannot grow a block in place: copy into one twice as big.
         * The old block is dead weight, at most as much again as the live
         * lists, which is cheaper than a second allocator. */
        int cap = l->cap ? l->cap * 2 : 4;
        Node **items = arena_alloc(sizeof *items * (size_t)cap);
        if (l->len)
            memcpy(items, l->items, sizeof *items * (size_t)l->len);
        l->items = items;
        l->cap = cap;
    }
    l->items[l->len++] = n;
}

NodeList list1(Node *n)
{
    NodeList l = {0};
    list_push(&l, n);
    return l;
}

void list_append(NodeList *l, NodeList more)
{
    for (int i = 0; i < more.len; i++)
        list_push(l, more.items[i]);
}

/* ---- constructors ------------------------------------------------------------------ */

Node *new_node(NodeKind kind, Loc loc)
{
    Node *n = arena_alloc(sizeof *n);
    n->kind = kind;
    n->loc = loc;
    n->height = 1;
    return n;
}

static int height(const Node *n)
{
    return n ? n->height : 0;
}

/* Make n taller than operand, if it is not already. */
static void above(Node *n, const Node *operand)
{
    if (height(operand) >= n->height)
        n->height = height(operand) + 1;
}

static void above_all(Node *n, NodeList l)
{
    for (int i = 0; i < l.len; i++)
        above(n, l.items[i]);
}

Node *new_name(Loc loc, const char *id)
{
    Node *n = new_node(N_NAME, loc);
    n->name.id = id;
    return n;
}

Node *new_import_name(Loc loc, const char *id, const char *alias)
{
    Node *n = new_name(loc, id);
    n->name.alias = alias;
    return n;
}

Node *new_int(Loc loc, uint64_t value, bool too_big)
{
    Node *n = new_node(N_INT, loc);
    n->intlit.value = value;
    n->intlit.too_big = too_big;
    return n;
}

Node *new_float(Loc loc, double value)
{
    Node *n = new_node(N_FLOAT, loc);
    n->floatlit.value = value;
    return n;
}

Node *new_imag(Loc loc, double value)
{
    Node *n = new_node(N_IMAG, loc);
    n->floatlit.value = value;
    return n;
}

Node *new_str(Loc loc, const char *value, size_t len)
{
    Node *n = new_node(N_STR, loc);
    n->str.value = arena_strndup(value, len);
    n->str.len = len;
    return n;
}

const char *dotted_name(const Node *e)
{
    if (e->kind == N_NAME)
        return e->name.id;
    if (e->kind != N_ATTR)
        return NULL;
    const char *base = dotted_name(e->attr.value);
    return base ? arena_printf("%s.%s", base, e->attr.attr) : NULL;
}

Node *str_concat(Node *a, Node *b)
{
    if (a->str.bytes != b->str.bytes)
        diag_error(b->loc, "cannot mix bytes and nonbytes literals");
    char *value = arena_alloc(a->str.len + b->str.len + 1);
    memcpy(value, a->str.value, a->str.len);
    memcpy(value + a->str.len, b->str.value, b->str.len);
    Node *n = new_node(N_STR, loc_join(a->loc, b->loc));
    n->str.value = value;
    n->str.len = a->str.len + b->str.len;
    n->str.bytes = a->str.bytes;
    return n;
}

Node *new_unary(Loc loc, Op op, Node *operand)
{
    Node *n = new_node(N_UNARY, loc);
    n->unary.op = op;
    n->unary.operand = operand;
    above(n, operand);
    return n;
}

Node *new_binary(Loc loc, Op op, Node *lhs, Node *rhs)
{
    Node *n = new_node(N_BINARY, loc);
    n->binary.op = op;
    n->binary.lhs = lhs;
    n->binary.rhs = rhs;
    above(n, lhs);
    above(n, rhs);
    return n;
}

Node *new_boolop(Loc loc, Op op, Node *lhs, Node *rhs)
{
    Node *n = new_node(N_BOOLOP, loc);
    n->boolop.op = op;
    n->boolop.lhs = lhs;
    n->boolop.rhs = rhs;
    above(n, lhs);
    above(n, rhs);
    return n;
}

Node *new_compare(Loc loc, Node *first)
{
    Node *n = new_node(N_COMPARE, loc);
    n->compare.operands = arena_alloc(sizeof(Node *));
    n->compare.operands[0] = first;
    above(n, first);
    return n;
}

/* Chains are short: growing by one each time keeps the arrays exact. */
void compare_push(Node *cmp, Op op, Node *operand)
{
    int k = cmp->compare.n;
    Op *ops = arena_alloc(sizeof *ops * (size_t)(k + 1));
    Node **operands = arena_alloc(sizeof *operands * (size_t)(k + 2));
    if (k)
        memcpy(ops, cmp->compare.ops, sizeof *ops * (size_t)k);
    memcpy(operands, cmp->compare.operands, sizeof *operands * (size_t)(k + 1));
    ops[k] = op;
    operands[k + 1] = operand;
    cmp->compare.ops = ops;
    cmp->compare.operands = operands;
    cmp->compare.n = k + 1;
    cmp->loc = loc_join(cmp->loc, operand->loc);
    above(cmp, operand);
}

Node *new_ifexp(Loc loc, Node *cond, Node *then, Node *orelse)
{
    Node *n = new_node(N_IFEXP, loc);
    n->ifexp.cond = cond;
    n->ifexp.then = then;
    n->ifexp.orelse = orelse;
    above(n, cond);
    above(n, then);
    above(n, orelse);
    return n;
}

Node *new_call(Loc loc, Node *func)
{
    Node *n = new_node(N_CALL, loc);
    n->call.func = func;
    above(n, func);
    return n;
}

/* Python's parser refuses f(a=1, b) outright; so do we, since the split into
 * args and kwargs loses the order. */
void call_push_arg(Node *call, Node *arg)
{
    above(call, arg);
    if (arg->kind == N_KEYWORD) {
        list_push(&call->call.kwargs, arg);
        return;
    }
    if (call->call.kwargs.len)
        diag_error(arg->loc, "positional argument follows keyword argument");
    list_push(&call->call.args, arg);
}

Node *new_call_args(Loc loc, Node *func, NodeList args)
{
    Node *n = new_call(loc, func);
    for (int i = 0; i < args.len; i++)
        call_push_arg(n, args.items[i]);
    return n;
}

Node *new_keyword(Loc loc, const char *name, Node *value)
{
    Node *n = new_node(N_KEYWORD, loc);
    n->keyword.name = name;
    n->keyword.value = value;
    above(n, value);
    return n;
}

Node *new_attr(Loc loc, Node *value, const char *attr)
{
    Node *n = new_node(N_ATTR, loc);
    n->attr.value = value;
    n->attr.attr = attr;
    above(n, value);
    return n;
}

Node *new_subscript(Loc loc, Node *value, NodeList index)
{
    Node *n = new_node(N_SUBSCRIPT, loc);
    n->subscript.value = value;
    n->subscript.index = index;
    above(n, value);
    above_all(n, index);
    return n;
}

Node *new_slice(Loc loc, Node *lo, Node *hi, Node *step)
{
    Node *n = new_node(N_SLICE, loc);
    n->slice.lo = lo;
    n->slice.hi = hi;
    n->slice.step = step;
    above(n, lo);
    above(n, hi);
    above(n, step);
    return n;
}

Node *new_tuple(Loc loc, NodeList elts)
{
    Node *n = new_node(N_TUPLE, loc);
    n->tuple.elts = elts;
    above_all(n, elts);
    return n;
}

Node *new_list(Loc loc, NodeList elts)
{
    Node *n = new_node(N_LIST, loc);
    n->tuple.elts = elts;
    above_all(n, elts);
    return n;
}

/* The docstring stays in the body as well, as in Python's ast: a string
 * statement anywhere else must be accepted (and ignored) anyway. */
static const char *docstring_of(NodeList body)
{
    if (body.len == 0 || body.items[0]->kind != N_EXPRSTMT)
        return NULL;
    const Node *e = body.items[0]->exprstmt.expr;
    return e->kind == N_STR && !e->str.bytes ? e->str.value : NULL;
}

Node *new_funcdef(Loc loc, const char *name, Loc name_loc, NodeList params, NodeList body)
{
    Node *n = new_node(N_FUNCDEF, loc);
    n->funcdef.name = name;
    n->funcdef.name_loc = name_loc;
    n->funcdef.params = params;
    n->funcdef.body = body;
    n->funcdef.docstring = docstring_of(body);
    return n;
}

Node *funcdef_decorate(Node *def, NodeList decorators)
{
    def->funcdef.decorators = decorators;
    return def;
}

Node *new_import(Loc loc, const char *module, const char *alias)
{
    Node *n = new_node(N_IMPORT, loc);
    n->import.module = module;
    n->import.alias = alias;
    return n;
}

Node *new_importfrom(Loc loc, const char *module, NodeList names)
{
    Node *n = new_node(N_IMPORTFROM, loc);
    n->importfrom.module = module;
    n->importfrom.names = names;
    return n;
}

Node *new_assign(Loc loc, NodeList targets, Node *value)
{
    Node *n = new_node(N_ASSIGN, loc);
    n->assign.targets = targets;
    n->assign.value = value;
    return n;
}

Node *new_assign_chain(Loc loc, NodeList exprs)
{
    if (exprs.len < 2)
        die("an assignment chain needs a target and a value");
    Node *value = exprs.items[exprs.len - 1];
    exprs.len--;
    return new_assign(loc, exprs, value);
}

Node *new_augassign(Loc loc, Op op, Node *target, Node *value)
{
    Node *n = new_node(N_AUGASSIGN, loc);
    n->augassign.op = op;
    n->augassign.target = target;
    n->augassign.value = value;
    return n;
}

Node *new_exprstmt(Loc loc, Node *expr)
{
    Node *n = new_node(N_EXPRSTMT, loc);
    n->exprstmt.expr = expr;
    return n;
}

Node *new_if(Loc loc, Node *cond, NodeList then, NodeList orelse)
{
    Node *n = new_node(N_IF, loc);
    n->ifstmt.cond = cond;
    n->ifstmt.then = then;
    n->ifstmt.orelse = orelse;
    return n;
}

Node *new_while(Loc loc, Node *cond, NodeList body, NodeList orelse)
{
    Node *n = new_node(N_WHILE, loc);
    n->whilestmt.cond = cond;
    n->whilestmt.body = body;
    n->whilestmt.orelse = orelse;
    return n;
}

Node *new_for(Loc loc, Node *target, Node *iter, NodeList body, NodeList orelse)
{
    Node *n = new_node(N_FOR, loc);
    n->forstmt.target = target;
    n->forstmt.iter = iter;
    n->forstmt.body = body;
    n->forstmt.orelse = orelse;
    return n;
}

Node *new_return(Loc loc, Node *value)
{
    Node *n = new_node(N_RETURN, loc);
    n->ret.value = value;
    return n;
}

Node *new_unsupported(Loc loc, const char *what)
{
    Node *n = new_node(N_UNSUPPORTED, loc);
    n->unsupported.what = what;
    return n;
}

Node *new_module(Loc loc, NodeList body)
{
    Node *n = new_node(N_MODULE, loc);
    n->module.body = body;
    return n;
}

/* ---- limits ----------------------------------------------------------------------------- */

/* The tallest expression of a statement itself, not of its blocks. */
static int tallest_expression(const Node *s)
{
    Node probe = {.height = 0};
    switch (s->kind) {
    case N_FUNCDEF: above_all(&probe, s->funcdef.decorators); break;
    case N_ASSIGN: above_all(&probe, s->assign.targets); above(&probe, s->assign.value); break;
    case N_AUGASSIGN: above(&probe, s->augassign.target); above(&probe, s->augassign.value); break;
    case N_EXPRSTMT: above(&probe, s->exprstmt.expr); break;
    case N_IF: above(&probe, s->ifstmt.cond); break;
    case N_WHILE: above(&probe, s->whilestmt.cond); break;
    case N_FOR: above(&probe, s->forstmt.target); above(&probe, s->forstmt.iter); break;
    case N_RETURN: above(&probe, s->ret.value); break;
    default: break;
    }
    return probe.height - 1;
}

/* Statements nest at most INDENT_MAX_DEPTH blocks deep, elif chains as deep
 * as the parser's stack allows: recursion is fine here. */
void ast_limit_height(NodeList *body)
{
    int kept = 0;
    for (int i = 0; i < body->len; i++) {
        Node *s = body->items[i];
        int h = tallest_expression(s);
        if (h > AST_MAX_HEIGHT) {
            diag_error(s->loc, "expression too deeply nested (%d levels; the limit is %d)", h, AST_MAX_HEIGHT);
            continue;
        }
        switch (s->kind) {
        case N_FUNCDEF: ast_limit_height(&s->funcdef.body); break;
        case N_IF: ast_limit_height(&s->ifstmt.then); ast_limit_height(&s->ifstmt.orelse); break;
        case N_WHILE: ast_limit_height(&s->whilestmt.body); ast_limit_height(&s->whilestmt.orelse); break;
        case N_FOR: ast_limit_height(&s->forstmt.body); ast_limit_height(&s->forstmt.orelse); break;
        default: break;
        }
        body->items[kept++] = s;
    }
    body->len = kept;
}

/* ---- the dump ------------------------------------------------------------------------ */

/* A string as a C-like literal, so that the dump stays one line per node and
 * shows every byte: b"..." for bytes literals. */
void ast_print_str(FILE *out, const Node *s)
{
    fputs(s->str.bytes ? "b\"" : "\"", out);
    for (size_t i = 0; i < s->str.len; i++) {
        unsigned char c = (unsigned char)s->str.value[i];
        switch (c) {
        case '\n': fputs("\\n", out); break;
        case '\t': fputs("\\t", out); break;
        case '\r': fputs("\\r", out); break;
        case '\\': fputs("\\\\", out); break;
        case '"': fputs("\\\"", out); break;
        default:
            if (c < 0x20 || c >= 0x7f)
                fprintf(out, "\\x%02x", c);
            else
                fputc(c, out);
        }
    }
    fputc('"', out);
}

/* A double as Python's repr() writes it: the fewest digits that read back
 * as the same value, positional between 1e-4 and 1e16 (1.0, 0.001, 100050.0),
 * else with an exponent (1e+16, 1.5e-05); inf and nan as words. */
void ast_print_double(FILE *out, double v)
{
    if (isnan(v) || isinf(v)) {
        fputs(isnan(v) ? "nan" : v < 0 ? "-inf" : "inf", out);
        return;
    }
    char buf[400];
    int prec = 0;
    for (; prec < 17; prec++) {
        snprintf(buf, sizeof buf, "%.*e", prec, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    int exp = atoi(strchr(buf, 'e') + 1);
    if (exp < -4 || exp >= 16) {
        fputs(buf, out);
        return;
    }
    snprintf(buf, sizeof buf, "%.*f", prec > exp ? prec - exp : 0, v);
    fputs(buf, out);
    if (!strchr(buf, '.'))
        fputs(".0", out);
}

static void pad(FILE *out, int depth)
{
    for (int i = 0; i < depth; i++)
        fputs("  ", out);
}

/* The end of a node's line: where it starts, and its type once checked. */
static void tail(FILE *out, const Node *n)
{
    fprintf(out, " @%d:%d", n->loc.line, n->loc.col);
    if (n->type)                  /* set by the checker (-d types) */
        fprintf(out, " : %s", n->type->name);
    fputc('\n', out);
}

static void dump(FILE *out, const Node *n, int depth);

static void dump_opt(FILE *out, const Node *n, int depth)
{
    if (n) {
        dump(out, n, depth);
    } else {
        pad(out, depth);
        fputs("-\n", out);
    }
}

static void dump_list(FILE *out, NodeList l, int depth)
{
    for (int i = 0; i < l.len; i++)
        dump(out, l.items[i], depth);
}

/* A labelled group ("body:") for the lists that would otherwise run into
 * each other; empty optional groups are left out. */
static void dump_group(FILE *out, const char *label, NodeList l, int depth, bool always)
{
    if (!l.len && !always)
        return;
    pad(out, depth);
    fprintf(out, "%s:\n", label);
    dump_list(out, l, depth + 1);
}

/* The part of the line after the kind: names, operators, values. */
static void dump_details(FILE *out, const Node *n)
{
    switch (n->kind) {
    case N_FUNCDEF: fprintf(out, " %s", n->funcdef.name); break;
    case N_IMPORT:
        fprintf(out, " %s", n->import.module);
        if (n->import.alias)
            fprintf(out, " as %s", n->import.alias);
        break;
    case N_IMPORTFROM: fprintf(out, " %s", n->importfrom.module); break;
    case N_AUGASSIGN: fprintf(out, " %s=", op_names[n->augassign.op]); break;
    case N_UNSUPPORTED: fprintf(out, " \"%s\"", n->unsupported.what); break;
    case N_NAME:
        fprintf(out, " %s", n->name.id);
        if (n->name.alias)
            fprintf(out, " as %s", n->name.alias);
        break;
    case N_INT:
        if (n->intlit.too_big)
            fputs(" too-big", out);
        else
            fprintf(out, " %" PRIu64, n->intlit.value);
        break;
    case N_FLOAT:
    case N_IMAG: fputc(' ', out); ast_print_double(out, n->floatlit.value); break;
    case N_STR: fputc(' ', out); ast_print_str(out, n); break;
    case N_UNARY: fprintf(out, " %s", op_names[n->unary.op]); break;
    case N_BINARY: fprintf(out, " %s", op_names[n->binary.op]); break;
    case N_BOOLOP: fprintf(out, " %s", op_names[n->boolop.op]); break;
    case N_COMPARE:
        for (int i = 0; i < n->compare.n; i++)
            fprintf(out, " %s", op_names[n->compare.ops[i]]);
        break;
    case N_KEYWORD: fprintf(out, " %s", n->keyword.name); break;
    case N_ATTR: fprintf(out, " %s", n->attr.attr); break;
    case N_CONST:
        fprintf(out, " i=%" PRId64 " f=", n->konst.v.i);
        ast_print_double(out, n->konst.v.f);
        break;
    default: break;
    }
}

static void dump_funcdef(FILE *out, const Node *n, int depth)
{
    dump_group(out, "decorators", n->funcdef.decorators, depth, false);
    dump_group(out, "params", n->funcdef.params, depth, true);
    if (n->funcdef.docstring) {
        pad(out, depth);
        fputs("docstring: yes\n", out);
    }
    dump_group(out, "body", n->funcdef.body, depth, true);
}

static void dump_children(FILE *out, const Node *n, int depth)
{
    switch (n->kind) {
    case N_MODULE: dump_list(out, n->module.body, depth); break;
    case N_FUNCDEF: dump_funcdef(out, n, depth); break;
    case N_IMPORTFROM: dump_list(out, n->importfrom.names, depth); break;
    case N_ASSIGN:
        dump_group(out, "targets", n->assign.targets, depth, true);
        pad(out, depth);
        fputs("value:\n", out);
        dump(out, n->assign.value, depth + 1);
        break;
    case N_AUGASSIGN:
        dump(out, n->augassign.target, depth);
        dump(out, n->augassign.value, depth);
        break;
    case N_EXPRSTMT: dump(out, n->exprstmt.expr, depth); break;
    case N_IF:
        dump(out, n->ifstmt.cond, depth);
        dump_group(out, "then", n->ifstmt.then, depth, true);
        dump_group(out, "else", n->ifstmt.orelse, depth, false);
        break;
    case N_WHILE:
        dump(out, n->whilestmt.cond, depth);
        dump_group(out, "body", n->whilestmt.body, depth, true);
        dump_group(out, "else", n->whilestmt.orelse, depth, false);
        break;
    case N_FOR:
        dump(out, n->forstmt.target, depth);
        dump(out, n->forstmt.iter, depth);
        dump_group(out, "body", n->forstmt.body, depth, true);
        dump_group(out, "else", n->forstmt.orelse, depth, false);
        break;
    case N_RETURN:
        if (n->ret.value)
            dump(out, n->ret.value, depth);
        break;
    case N_UNARY: dump(out, n->unary.operand, depth); break;
    case N_BINARY:
        dump(out, n->binary.lhs, depth);
        dump(out, n->binary.rhs, depth);
        break;
    case N_BOOLOP:
        dump(out, n->boolop.lhs, depth);
        dump(out, n->boolop.rhs, depth);
        break;
    case N_COMPARE:
        for (int i = 0; i <= n->compare.n; i++)
            dump(out, n->compare.operands[i], depth);
        break;
    case N_IFEXP:
        dump(out, n->ifexp.cond, depth);
        dump(out, n->ifexp.then, depth);
        dump(out, n->ifexp.orelse, depth);
        break;
    case N_CALL:
        dump(out, n->call.func, depth);
        dump_list(out, n->call.args, depth);
        dump_list(out, n->call.kwargs, depth);
        break;
    case N_KEYWORD: dump(out, n->keyword.value, depth); break;
    case N_ATTR: dump(out, n->attr.value, depth); break;
    case N_SUBSCRIPT:
        dump(out, n->subscript.value, depth);
        dump_list(out, n->subscript.index, depth);
        break;
    case N_SLICE:
        dump_opt(out, n->slice.lo, depth);
        dump_opt(out, n->slice.hi, depth);
        dump_opt(out, n->slice.step, depth);
        break;
    case N_TUPLE:
    case N_LIST: dump_list(out, n->tuple.elts, depth); break;
    case N_CAST: dump(out, n->cast.operand, depth); break;
    default: break;
    }
}

static void dump(FILE *out, const Node *n, int depth)
{
    pad(out, depth);
    fputs(node_kind_names[n->kind], out);
    dump_details(out, n);
    tail(out, n);
    dump_children(out, n, depth + 1);
}

void ast_dump(FILE *out, const Node *n)
{
    dump(out, n, 0);
}
