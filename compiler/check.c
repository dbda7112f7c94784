/* check.c - the module level of the checker: the statements of a module
 * (imports, constants, defs) in order, loading each imported .ufn module as
 * its import is met, and the list of the kernels to compile.  The passes
 * after it (main.c shows them) make the instances (instance.c), check the
 * flow of their locals (flow.c), type their bodies (infer.c) and name
 * everything in C (names.c). */
#include "ufnc.h"

#include <string.h>

typedef struct LoadedModule {
    const char *name;
    Module *module;         /* NULL while being loaded (import cycles) */
    struct LoadedModule *next;
} LoadedModule;

typedef struct Checker {
    const CheckOptions *opt;
    Module *root;            /* the module being compiled */
    LoadedModule *loaded;    /* imported .ufn modules, newest first */
    int depth;               /* of nested imports */
} Checker;

static Module *check_one(Checker *ck, Node *ast, const SrcFile *src, const char *name);

/* fold_const's resolver: module-level names only */
static bool resolve_constant(void *ctx, const Node *e, Sym *out)
{
    return resolve_global(ctx, e, out);
}

/* ---- imports -------------------------------------------------------------------------- */

/* "a -> b -> a": the imports still being loaded, from `name` (which is
 * being imported again) to the innermost. */
static const char *import_chain(Checker *ck, const char *name)
{
    const char *chain = name;
    for (LoadedModule *l = ck->loaded; l; l = l->next) {
        if (l->module)
            continue;                 /* loaded completely: not on the stack */
        chain = arena_printf("%s -> %s", l->name, chain);
        if (l->name == name)
            break;
    }
    return chain;
}

/* Record a file read for -MD (not the embedded standard library). */
static void add_dependency(Module *root, const char *path)
{
    if (is_embedded_path(path))
        return;
    const char **deps = arena_alloc(sizeof(char *) * (size_t)(root->ndeps + 1));
    if (root->ndeps)
        memcpy(deps, root->deps, sizeof(char *) * (size_t)root->ndeps);
    deps[root->ndeps++] = path;
    root->deps = deps;
}

static Module *load_module(Checker *ck, Module *from, const char *name, Loc loc)
{
    for (LoadedModule *l = ck->loaded; l; l = l->next)
        if (l->name == name) {
            if (!l->module)
                diag_error(loc, "import cycle: %s", import_chain(ck, name));
            return l->module;
        }
    const char *path = NULL;
    SrcFile *src = find_ufn_module(from, name, ck->opt->include_dirs, ck->opt->ninclude_dirs, &path);
    if (!src) {
        diag_error(loc, "no module named '%s' (looked for %s.ufn next to %s, in the -I directories and in the standard library)",
                   name, name, from->src->name);
        return NULL;
    }
    if (ck->depth > 32) {
        diag_error(loc, "imports nested too deeply");
        return NULL;
    }
    LoadedModule *l = arena_alloc(sizeof *l);
    l->name = name;
    l->next = ck->loaded;
    ck->loaded = l;
    Node *ast = parse_file(src);
    ck->depth++;
    Module *m = check_one(ck, ast, src, module_c_name(name));
    ck->depth--;
    l->module = m;
    add_dependency(ck->root, path);
    return m;
}

static void import_from_stmt(Checker *ck, Module *m, Node *s)
{
    const char *mod = s->importfrom.module;
    ModuleId id;
    Module *other = NULL;
    if (!std_module(mod, &id)) {
        if (refuse_python_module(s->loc, mod))
            return;
        other = load_module(ck, m, mod, s->loc);
        if (!other)
            return;
    }
    import_names(m, s, other);
}

/* ---- module constants ---------------------------------------------------------------------- */

static void constant_stmt(Module *m, Node *s)
{
    if (s->assign.targets.len != 1) {
        /* LO = HI = 1.0: each name gets the value */
        for (int i = 0; i < s->assign.targets.len; i++) {
            Node one = *s;
            one.assign.targets = list1(s->assign.targets.items[i]);
            constant_stmt(m, &one);
        }
        return;
    }
    Node *t = s->assign.targets.items[0], *v = s->assign.value;
    if (t->kind == N_TUPLE && v->kind == N_TUPLE && t->tuple.elts.len == v->tuple.elts.len) {
        for (int i = 0; i < t->tuple.elts.len; i++) {
            NodeList one = {0};
            list_push(&one, t->tuple.elts.items[i]);
            Node fake = *s;
            fake.assign.targets = one;
            fake.assign.value = v->tuple.elts.items[i];
            constant_stmt(m, &fake);
        }
        return;
    }
    if (t->kind != N_NAME) {
        diag_error(t->loc, "only names can be assigned at module level");
        return;
    }
    /* __all__, __version__, ...: metadata for Python, nothing for kernels */
    size_t n = strlen(t->name.id);
    if (n > 4 && strncmp(t->name.id, "__", 2) == 0 && strcmp(t->name.id + n - 2, "__") == 0)
        return;
    Value val;
    if (v->kind == N_STR)
        val = (Value){.type = NULL};      /* fine for Python; an error where a kernel uses it */
    else if (!fold_const(v, resolve_constant, m, true, &val))
        return;
    Sym sym = {.kind = SYM_CONST, .name = t->name.id, .loc = t->loc, .value = val};
    scope_bind(m->globals, sym);
}

/* if __name__ == '__main__': lets a .ufn double as a Python script; the block
 * is Python-only and ufnc skips it. */
static bool is_main_guard(const Node *s)
{
    if (s->kind != N_IF || s->ifstmt.cond->kind != N_COMPARE || s->ifstmt.cond->compare.n != 1)
        return false;
    Node *a = s->ifstmt.cond->compare.operands[0], *b = s->ifstmt.cond->compare.operands[1];
    return s->ifstmt.cond->compare.ops[0] == OP_EQ && a->kind == N_NAME && strcmp(a->name.id, "__name__") == 0
           && b->kind == N_STR && strcmp(b->str.value, "__main__") == 0;
}

/* Python refuses it when it compiles the module (a SyntaxError), and C
 * would refuse the two parameters of one name. */
static void duplicate_params(const Node *def)
{
    const NodeList *p = &def->funcdef.params;
    for (int i = 1; i < p->len; i++)
        for (int j = 0; j < i; j++)
            if (p->items[i]->name.id == p->items[j]->name.id) {
                diag_error(p->items[i]->loc, "duplicate argument '%s' in function definition", p->items[i]->name.id);
                break;
            }
}

static void funcdef_stmt(Module *m, Node *s)
{
    duplicate_params(s);
    Func *f = arena_alloc(sizeof *f);
    f->def = s;
    f->name = s->funcdef.name;
    f->module = m;
    f->kind = FK_PLAIN;
    if (s->funcdef.decorators.len > 1)
        diag_error(s->funcdef.decorators.items[1]->loc, "'%s' has %d decorators, but ufn takes one per function: keep @vectorize, @guvectorize or the helper's decorator",
                   f->name, s->funcdef.decorators.len);
    if (s->funcdef.decorators.len >= 1)
        decorate(m, f, s->funcdef.decorators.items[0]);
    Func **funcs = arena_alloc(sizeof(Func *) * (size_t)(m->nfuncs + 1));
    if (m->nfuncs)
        memcpy(funcs, m->funcs, sizeof(Func *) * (size_t)m->nfuncs);
    funcs[m->nfuncs++] = f;
    m->funcs = funcs;
    Sym sym = {.kind = SYM_FUNC, .name = f->name, .loc = s->funcdef.name_loc.file ? s->funcdef.name_loc : s->loc,
               .func = f};
    scope_bind(m->globals, sym);
}

/* ---- driving --------------------------------------------------------------------------- */

static void module_stmt(Checker *ck, Module *m, Node *s)
{
    switch (s->kind) {
    case N_IMPORT:
        import_stmt(m, s);
        return;
    case N_IMPORTFROM:
        import_from_stmt(ck, m, s);
        return;
    case N_ASSIGN:
        constant_stmt(m, s);
        return;
    case N_FUNCDEF:
        funcdef_stmt(m, s);
        return;
    case N_EXPRSTMT:
        if (s->exprstmt.expr->kind == N_STR)
            return;               /* module docstring */
        diag_error(s->loc, "statements that run at import are not supported at module level (only imports, constants and definitions)");
        return;
    case N_IF:
        if (is_main_guard(s))
            return;
        diag_error(s->loc, "'if' at module level is not supported (except 'if __name__ == \"__main__\":', which ufnc skips)");
        return;
    case N_PASS:
        return;
    case N_UNSUPPORTED:
        diag_error(s->loc, "%s is not supported in ufn", s->unsupported.what);
        return;
    default:
        diag_error(s->loc, "a '%s' statement is not supported at module level", node_kind_names[s->kind]);
    }
}

static Module *check_one(Checker *ck, Node *ast, const SrcFile *src, const char *name)
{
    Module *m = arena_alloc(sizeof *m);
    m->name = name;
    m->src = src;
    m->ast = ast;
    m->opt = ck->opt;
    m->globals = scope_new();
    if (!ck->root) {
        ck->root = m;
        m->deps = arena_alloc(sizeof(char *));
        m->deps[m->ndeps++] = src->name;
    }
    for (int i = 0; i < ast->module.body.len; i++)
        module_stmt(ck, m, ast->module.body.items[i]);
    return m;
}

/* The kernels to compile, in source order: @vectorize, and @guvectorize
 * with a layout that parsed. */
static void list_kernels(Module *m)
{
    m->kernels = arena_alloc(sizeof(Func *) * (size_t)(m->nfuncs ? m->nfuncs : 1));
    for (int i = 0; i < m->nfuncs; i++) {
        Func *f = m->funcs[i];
        if (f->kind == FK_VECTORIZE || f->kind == FK_CUDA_KERNEL || (f->kind == FK_GUVECTORIZE && f->layout))
            m->kernels[m->nkernels++] = f;
    }
}

/* --signature KERNEL=SIG names a @cuda.jit kernel of the module (jit.c
 * reads the signature where it decorates the kernel). */
static void check_signature_options(const Module *m)
{
    for (int i = 0; i < m->opt->nsignatures; i++) {
        const char *s = m->opt->signatures[i];
        size_t len = strcspn(s, "=");
        bool found = false;
        for (int k = 0; k < m->nkernels && !found; k++)
            found = m->kernels[k]->kind == FK_CUDA_KERNEL && strlen(m->kernels[k]->name) == len
                    && !strncmp(m->kernels[k]->name, s, len);
        if (!found)
            diag_fatal("--signature %s: %s has no @cuda.jit kernel '%.*s'", s, m->src->name, (int)len, s);
    }
}

Module *check_module(Node *ast, const SrcFile *src, const CheckOptions *opt)
{
    Checker ck = {.opt = opt};
    Module *m = check_one(&ck, ast, src, opt->module_name);
    list_kernels(m);
    check_signature_options(m);
    return m;
}
