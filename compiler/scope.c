/* scope.c - the names of a module: a table of symbols per module (its
 * imports, constants and defs), and the resolution of a name or a dotted
 * module attribute (math.pi, np.float32) against it and Python's builtins.
 * Function locals are not here: infer.c keeps them in the instance. */
#include "ufnc.h"

#include <string.h>

#define SCOPE_SLOTS 1024

struct Scope {
    Sym *slots[SCOPE_SLOTS];   /* open addressing on the interned pointer */
    int count;
};

static unsigned slot_of(const char *name)
{
    return (unsigned)(((uintptr_t)name >> 4) * 2654435761u) % SCOPE_SLOTS;
}

Scope *scope_new(void)
{
    return arena_alloc(sizeof(Scope));
}

Sym *scope_lookup(Scope *s, const char *name)
{
    for (unsigned i = slot_of(name), k = 0; k < SCOPE_SLOTS; i = (i + 1) % SCOPE_SLOTS, k++) {
        if (!s->slots[i])
            return NULL;
        if (s->slots[i]->name == name)
            return s->slots[i];
    }
    return NULL;
}

/* A second binding of the same name is an error (DESIGN: a redefinition is
 * an error, even where Python would allow it). */
Sym *scope_bind(Scope *s, Sym sym)
{
    Sym *old = scope_lookup(s, sym.name);
    if (old) {
        diag_error(sym.loc, "redefinition of '%s'", sym.name);
        diag_note(old->loc, "'%s' was first defined here", sym.name);
        return old;
    }
    if (s->count >= SCOPE_SLOTS * 3 / 4) {
        diag_error(sym.loc, "too many module-level names (the limit is %d)", SCOPE_SLOTS * 3 / 4);
        return NULL;
    }
    Sym *p = arena_alloc(sizeof *p);
    *p = sym;
    unsigned i = slot_of(sym.name);
    while (s->slots[i])
        i = (i + 1) % SCOPE_SLOTS;
    s->slots[i] = p;
    s->count++;
    return p;
}

bool resolve_global(Module *m, const Node *e, Sym *out)
{
    if (e->kind == N_NAME) {
        Sym *s = scope_lookup(m->globals, e->name.id);
        if (s) {
            *out = *s;
            return true;
        }
        Builtin b = builtin_lookup(e->name.id);
        if (b != B_NONE) {
            memset(out, 0, sizeof *out);
            out->kind = SYM_BUILTIN;
            out->name = e->name.id;
            out->builtin = (BuiltinRef){.id = b};
            return true;
        }
        return false;
    }
    if (e->kind == N_ATTR) {
        Sym base;
        if (!resolve_global(m, e->attr.value, &base) || base.kind != SYM_MODULE)
            return false;
        return module_attr(base.module, e->attr.attr, e->loc, out);
    }
    return false;
}
