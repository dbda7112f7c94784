/* instance.c - the instances to compile: one per usable signature of each
 * kernel, and one per tuple of argument types for each helper that a body
 * calls (as Numba compiles a device function once per call signature).
 *
 * Typing a body needs the return types of the helpers it calls, and tells
 * which helpers (and for which argument types) it calls.  So the instances
 * are typed to a fixpoint: every instance is typed silently (infer.c), the
 * instances its calls need are made, and whenever an instance's return type
 * widens its callers are typed again, until nothing changes.  A helper whose
 * return type is still unknown then, and whose end can be reached, returns
 * None (a function without a return statement), and the fixpoint goes on.
 *
 * Last, the calls are walked from each kernel instance, in order: the
 * helpers each one reaches first (callees before callers: the order in which
 * infer_bodies types them and the emitters write them) and the instances
 * that recurse (a call back into an instance on the walk's path).
 *
 * Nothing here reports a type error: infer_bodies does, once the types are
 * known.  What is reported here is about signatures (decorate.c) and a
 * function that would need too many instances. */
#include "ufnc.h"

#include <string.h>

/* Instances of one function: far more than any program needs, few enough
 * that a recursion whose argument types keep changing stops early. */
#define MAX_INSTANCES 256

typedef struct Instances {
    Instance **items;       /* every instance made, in order */
    int len, cap;
} Instances;

static void push(Instances *all, Instance *inst)
{
    if (all->len == all->cap) {
        all->cap = all->cap ? 2 * all->cap : 64;
        Instance **items = arena_alloc(sizeof(Instance *) * (size_t)all->cap);
        if (all->len)
            memcpy(items, all->items, sizeof(Instance *) * (size_t)all->len);
        all->items = items;
    }
    all->items[all->len++] = inst;
}

static Instance *new_instance(Instances *all, Func *f, Type *const *args, int nargs)
{
    Instance *inst = arena_alloc(sizeof *inst);
    inst->func = f;
    inst->nargs = nargs;
    inst->args = arena_alloc(sizeof(Type *) * (size_t)(nargs ? nargs : 1));
    if (nargs)
        memcpy(inst->args, args, sizeof(Type *) * (size_t)nargs);
    Instance **list = arena_alloc(sizeof(Instance *) * (size_t)(f->ninstances + 1));
    if (f->ninstances)
        memcpy(list, f->instances, sizeof(Instance *) * (size_t)f->ninstances);
    inst->index = f->ninstances;
    list[f->ninstances++] = inst;
    f->instances = list;
    inst->dirty = true;
    push(all, inst);
    return inst;
}

/* One instance per usable signature of each kernel. */
static void kernel_instances(Instances *all, Module *m)
{
    for (int i = 0; i < m->nkernels; i++) {
        Func *f = m->kernels[i];
        Signature **usable = arena_alloc(sizeof(Signature *) * (size_t)(f->nsigs ? f->nsigs : 1));
        int n = kernel_signatures(f, usable);
        for (int k = 0; k < n; k++) {
            Instance *inst = new_instance(all, f, usable[k]->args, usable[k]->nargs);
            inst->sig = usable[k];
            inst->ret = f->kind == FK_GUVECTORIZE || f->kind == FK_CUDA_KERNEL ? ty_none() : usable[k]->ret;
        }
    }
}

/* An imported ufunc that a ufunc calls is compiled as a helper of this
 * module, for the signature the call chose (infer_call.c): the one its
 * argument types are. */
static void ufunc_callee(Instance *inst)
{
    const Func *f = inst->func;
    for (int k = 0; k < f->nsigs; k++)
        if (f->sigs[k]->nargs == inst->nargs
            && memcmp(f->sigs[k]->args, inst->args, sizeof(Type *) * (size_t)inst->nargs) == 0) {
            inst->sig = f->sigs[k];
            inst->ret = f->sigs[k]->ret;
            return;
        }
}

/* Make the instances that inst's calls need and link the calls to them. */
static void make_callees(Instances *all, Instance *inst)
{
    for (int i = 0; i < inst->ncalls; i++) {
        Call *c = &inst->calls[i];
        if (c->callee)
            continue;
        c->callee = find_instance(c->func, c->args, c->nargs);
        if (c->callee)
            continue;
        if (c->func->ninstances >= MAX_INSTANCES) {
            if (!c->func->too_many) {
                diag_error(c->loc, "in %s: %s() would be compiled for more than %d tuples of argument types; a recursion that keeps changing the types of its arguments cannot be compiled",
                           inst->func->name, c->func->name, MAX_INSTANCES);
                c->func->too_many = true;
            }
            continue;
        }
        c->callee = new_instance(all, c->func, c->args, c->nargs);
        if (c->func->kind == FK_VECTORIZE)
            ufunc_callee(c->callee);
    }
}

/* Type again the instances that call `callee`: its return type widened. */
static void dirty_callers(Instances *all, const Instance *callee)
{
    for (int i = 0; i < all->len; i++)
        for (int k = 0; k < all->items[i]->ncalls; k++)
            if (all->items[i]->calls[k].callee == callee)
                all->items[i]->dirty = true;
}

static void fixpoint(Instances *all)
{
    for (bool again = true; again;) {
        again = false;
        for (int i = 0; i < all->len; i++) {
            Instance *inst = all->items[i];
            if (!inst->dirty)
                continue;
            inst->dirty = false;
            again = true;
            Type *before = inst->ret;
            infer_silent(inst);
            make_callees(all, inst);
            if (inst->ret != before)
                dirty_callers(all, inst);
        }
    }
}

/* Helpers whose return type nothing gave, and whose end can be reached,
 * return None; false if there were none. */
static bool settle_none(Instances *all)
{
    bool any = false;
    for (int i = 0; i < all->len; i++) {
        Instance *inst = all->items[i];
        bool helper = inst->func->kind == FK_DEVICE || inst->func->kind == FK_JIT;
        if (helper && !inst->ret && can_fall_off_end(inst->func)) {
            inst->ret = ty_none();
            dirty_callers(all, inst);
            any = true;
        }
    }
    return any;
}

/* ---- a lazy kernel's default signatures ------------------------------------------------ */

typedef struct Seen {
    const Instance **items;
    int len, cap;
} Seen;

/* Does inst, or an instance its calls reach, fail to type? */
static bool fails(const Instance *inst, Seen *seen)
{
    for (int i = 0; i < seen->len; i++)
        if (seen->items[i] == inst)
            return false;
    if (seen->len == seen->cap) {
        seen->cap = seen->cap ? 2 * seen->cap : 16;
        const Instance **items = arena_alloc(sizeof(Instance *) * (size_t)seen->cap);
        if (seen->len)
            memcpy(items, seen->items, sizeof(Instance *) * (size_t)seen->len);
        seen->items = items;
    }
    seen->items[seen->len++] = inst;
    if (inst->probe_failed || !inst->ret)
        return true;
    for (int i = 0; i < inst->ncalls; i++)
        if (!inst->calls[i].callee || fails(inst->calls[i].callee, seen))
            return true;
    return false;
}

/* Keep the default signatures a lazy kernel types for (jit.c); when it
 * types for none, the first stays, so that its errors are reported. */
static void drop_failed_defaults(Module *m)
{
    for (int i = 0; i < m->nkernels; i++) {
        Func *f = m->kernels[i];
        if (!f->lazy)
            continue;
        int kept = 0, first = -1;
        Instance **list = arena_alloc(sizeof(Instance *) * (size_t)(f->ninstances ? f->ninstances : 1));
        for (int k = 0; k < f->ninstances; k++) {
            Instance *inst = f->instances[k];
            Seen seen = {0};
            if (inst->sig->lazy && first < 0)
                first = k;
            if (inst->sig->lazy && fails(inst, &seen))
                continue;
            list[kept++] = inst;
        }
        if (!kept && first >= 0)
            list[kept++] = f->instances[first];
        for (int k = 0; k < kept; k++)
            list[k]->index = k;
        f->instances = list;
        f->ninstances = kept;
    }
}

/* ---- the walk ---------------------------------------------------------------------- */

enum { UNSEEN, ON_PATH, WALKED };

static void push_reach(Instance *root, Instance *inst)
{
    Instance **list = arena_alloc(sizeof(Instance *) * (size_t)(root->nreach + 1));
    if (root->nreach)
        memcpy(list, root->reach, sizeof(Instance *) * (size_t)root->nreach);
    list[root->nreach++] = inst;
    root->reach = list;
}

/* A ufunc of the module that another one calls: a kernel instance, typed
 * and emitted as one (its signature gives its return type). */
static bool module_kernel(const Module *m, const Instance *inst)
{
    for (int i = 0; i < m->nkernels; i++)
        if (m->kernels[i] == inst->func)
            return true;
    return false;
}

static void walk(Module *m, Instances *helpers, Instance *root, Instance *inst)
{
    inst->walk = ON_PATH;
    for (int i = 0; i < inst->ncalls; i++) {
        Instance *callee = inst->calls[i].callee;
        if (!callee || callee->walk == WALKED)
            continue;
        if (callee->walk == ON_PATH && callee->func->kind == FK_VECTORIZE) {
            diag_error(inst->calls[i].loc, "in %s: the ufunc %s() calls itself through %s(): composed ufuncs cannot recurse",
                       inst->func->name, callee->func->name, inst->func->name);
            continue;
        }
        if (callee->walk == ON_PATH) {
            callee->recursive = true;     /* a call back into the path: a recursion */
            m->recursive = true;
            continue;
        }
        walk(m, helpers, root, callee);
    }
    inst->walk = WALKED;
    if (inst != root && !module_kernel(m, inst)) {
        push_reach(root, inst);
        push(helpers, inst);
    }
}

void make_instances(Module *m)
{
    Instances all = {0}, helpers = {0};
    kernel_instances(&all, m);
    do
        fixpoint(&all);
    while (settle_none(&all));
    drop_failed_defaults(m);
    for (int i = 0; i < m->nkernels; i++)
        for (int k = 0; k < m->kernels[i]->ninstances; k++)
            walk(m, &helpers, m->kernels[i]->instances[k], m->kernels[i]->instances[k]);
    m->helpers = helpers.items;
    m->nhelpers = helpers.len;
}
