/* flow.c - a local used before any assignment reaches it.
 *
 * Python raises UnboundLocalError at run time; Numba refuses the function
 * ("Variable 'y' is not defined") when no assignment to the variable can
 * reach the use on any path, and lets a variable that is assigned on some
 * paths only start as zero.  The generated C would silently read the zero
 * of its declaration, so ufnc reports what Numba reports: a use that no
 * assignment reaches.  A "may be assigned" analysis over the function's
 * statements: branches join by union, loop bodies are walked until their
 * set stops growing (an assignment late in a loop reaches the next
 * iteration), and code after return, break or continue is not reached. */
#include "ufnc.h"

#include <string.h>

typedef struct Names {
    const char **items;      /* interned */
    int len, cap;
} Names;

typedef struct Flow {
    const Instance *inst;
    Names reported;
    int quiet;               /* inside the passes that grow a loop's set */
} Flow;

static bool has(const Names *s, const char *name)
{
    for (int i = 0; i < s->len; i++)
        if (s->items[i] == name)
            return true;
    return false;
}

static void add(Names *s, const char *name)
{
    if (has(s, name))
        return;
    if (s->len == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 16;
        const char **items = arena_alloc(sizeof(char *) * (size_t)s->cap);
        if (s->len)
            memcpy(items, s->items, sizeof(char *) * (size_t)s->len);
        s->items = items;
    }
    s->items[s->len++] = name;
}

static Names copy(const Names *s)
{
    Names c = {0};
    for (int i = 0; i < s->len; i++)
        add(&c, s->items[i]);
    return c;
}

static void join(Names *into, const Names *more)
{
    for (int i = 0; i < more->len; i++)
        add(into, more->items[i]);
}

/* A local of the function that is not a parameter. */
static bool is_local(const Flow *f, const char *name)
{
    for (int i = 0; i < f->inst->nvars; i++) {
        const Var *v = f->inst->vars[i];
        if (v->name == name && !v->temp)
            return !v->param;
    }
    return false;
}

static void use(Flow *f, const Node *e, const Names *defined)
{
    if (!e)
        return;
    switch (e->kind) {
    case N_NAME:
        if (!f->quiet && is_local(f, e->name.id) && !has(defined, e->name.id) && !has(&f->reported, e->name.id)) {
            add(&f->reported, e->name.id);
            diag_error(e->loc, "in %s: local variable '%s' is used before it is assigned", f->inst->func->name,
                       e->name.id);
            ((Instance *)f->inst)->failed = true;
        }
        return;
    case N_UNARY: use(f, e->unary.operand, defined); return;
    case N_BINARY: use(f, e->binary.lhs, defined); use(f, e->binary.rhs, defined); return;
    case N_BOOLOP: use(f, e->boolop.lhs, defined); use(f, e->boolop.rhs, defined); return;
    case N_COMPARE:
        for (int i = 0; i <= e->compare.n; i++)
            use(f, e->compare.operands[i], defined);
        return;
    case N_IFEXP:
        use(f, e->ifexp.cond, defined);
        use(f, e->ifexp.then, defined);
        use(f, e->ifexp.orelse, defined);
        return;
    case N_CALL:
        use(f, e->call.func, defined);
        for (int i = 0; i < e->call.args.len; i++)
            use(f, e->call.args.items[i], defined);
        for (int i = 0; i < e->call.kwargs.len; i++)
            use(f, e->call.kwargs.items[i]->keyword.value, defined);
        return;
    case N_ATTR: use(f, e->attr.value, defined); return;
    case N_SUBSCRIPT:
        use(f, e->subscript.value, defined);
        for (int i = 0; i < e->subscript.index.len; i++)
            use(f, e->subscript.index.items[i], defined);
        return;
    case N_SLICE:
        use(f, e->slice.lo, defined);
        use(f, e->slice.hi, defined);
        use(f, e->slice.step, defined);
        return;
    case N_TUPLE:
    case N_LIST:
        for (int i = 0; i < e->tuple.elts.len; i++)
            use(f, e->tuple.elts.items[i], defined);
        return;
    default:
        return;
    }
}

/* An assignment target: names become assigned; an a[i] target reads a and i. */
static void assign(Flow *f, const Node *t, Names *defined)
{
    switch (t->kind) {
    case N_NAME:
        add(defined, t->name.id);
        return;
    case N_TUPLE:
    case N_LIST:
        for (int i = 0; i < t->tuple.elts.len; i++)
            assign(f, t->tuple.elts.items[i], defined);
        return;
    default:
        use(f, t, defined);
    }
}

static bool block(Flow *f, const NodeList *b, Names *defined);

/* A loop: its body is walked quietly until what may be assigned when an
 * iteration starts stops growing (an assignment late in the body reaches
 * the next iteration), then once more to report.  *defined becomes what
 * may be assigned when the loop is left. */
static void loop(Flow *f, const Node *target, const NodeList *body, Names *defined)
{
    f->quiet++;
    for (int pass = 0; pass < 64; pass++) {
        Names in = copy(defined);
        if (target)
            assign(f, target, &in);
        block(f, body, &in);
        int before = defined->len;
        join(defined, &in);
        if (defined->len == before)
            break;
    }
    f->quiet--;
    Names in = copy(defined);
    if (target)
        assign(f, target, &in);
    block(f, body, &in);
}

/* Returns false when the rest of the block cannot be reached. */
static bool stmt(Flow *f, const Node *s, Names *defined)
{
    switch (s->kind) {
    case N_ASSIGN:
        use(f, s->assign.value, defined);
        for (int i = 0; i < s->assign.targets.len; i++)
            assign(f, s->assign.targets.items[i], defined);
        return true;
    case N_AUGASSIGN:
        use(f, s->augassign.target, defined);
        use(f, s->augassign.value, defined);
        assign(f, s->augassign.target, defined);
        return true;
    case N_EXPRSTMT:
        use(f, s->exprstmt.expr, defined);
        return true;
    case N_IF: {
        use(f, s->ifstmt.cond, defined);
        Names then = copy(defined), orelse = copy(defined);
        bool a = block(f, &s->ifstmt.then, &then), b = block(f, &s->ifstmt.orelse, &orelse);
        if (a)
            join(defined, &then);
        if (b)
            join(defined, &orelse);
        return a || b;
    }
    case N_WHILE:
        use(f, s->whilestmt.cond, defined);
        loop(f, NULL, &s->whilestmt.body, defined);
        use(f, s->whilestmt.cond, defined);
        return true;
    case N_FOR:
        use(f, s->forstmt.iter, defined);
        loop(f, s->forstmt.target, &s->forstmt.body, defined);
        return true;
    case N_RETURN:
        use(f, s->ret.value, defined);
        return false;
    case N_BREAK:
    case N_CONTINUE:
        return false;
    default:
        return true;            /* pass, and what the checker refuses */
    }
}

static bool block(Flow *f, const NodeList *b, Names *defined)
{
    for (int i = 0; i < b->len; i++)
        if (!stmt(f, b->items[i], defined))
            return false;
    return true;
}

static void check_instance(const Instance *inst)
{
    Flow f = {.inst = inst};
    Names defined = {0};
    block(&f, &inst->func->def->funcdef.body, &defined);
}

/* Each kernel instance, then the helpers it reaches: the order in which a
 * reader meets them. */
void check_flow(Module *m)
{
    for (int i = 0; i < m->nkernels; i++)
        for (int k = 0; k < m->kernels[i]->ninstances; k++) {
            Instance *root = m->kernels[i]->instances[k];
            check_instance(root);
            for (int h = 0; h < root->nreach; h++)
                check_instance(root->reach[h]);
        }
}
