/* imports.c - what an import statement names: the modules ufn knows (math,
 * cmath, numpy, numba), the Python modules it refuses with a reason, and the
 * search for another .ufn module (next to the importing file, in the -I
 * directories, in the standard library ufnc carries); then the names an
 * import binds.  Loading and checking an imported module is check.c's (it
 * checks the module's statements, which import in turn). */
#include "ufnc.h"

#include <string.h>

#include "embedded.h"

bool std_module(const char *name, ModuleId *id)
{
    static const struct { const char *name; ModuleId id; } mods[] = {
        {"math", MOD_MATH}, {"cmath", MOD_CMATH}, {"numpy", MOD_NUMPY},
        {"numba", MOD_NUMBA}, {"numba.cuda", MOD_CUDA},
    };
    for (size_t i = 0; i < sizeof mods / sizeof mods[0]; i++)
        if (strcmp(mods[i].name, name) == 0) {
            *id = mods[i].id;
            return true;
        }
    return false;
}

/* Python modules a kernel cannot use: `import random` or `from os import
 * path` says so, rather than looking for random.ufn. */
static bool python_only_module(const char *name)
{
    static const char *const refused[] = {
        "os", "sys", "random", "time", "scipy", "numpy.random", "matplotlib", "functools",
        "itertools", "collections", "__future__", "typing", "cupy", "jax", "numba.cuda.random",
    };
    size_t len = strcspn(name, ".");
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++)
        if (strcmp(refused[i], name) == 0 || (strlen(refused[i]) == len && strncmp(refused[i], name, len) == 0))
            return true;
    return false;
}

bool refuse_python_module(Loc loc, const char *mod)
{
    if (!python_only_module(mod))
        return false;
    if (strcmp(mod, "random") == 0 || strcmp(mod, "numpy.random") == 0 || strcmp(mod, "numba.cuda.random") == 0)
        diag_error(loc, "module '%s' is not supported in ufn: kernels cannot draw random numbers; generate them in the caller and pass them in as an array",
                   mod);
    else
        diag_error(loc, "module '%s' is not supported in ufn (kernels can use math, cmath, numpy scalars and numba)",
                   mod);
    return true;
}

void import_stmt(Module *m, Node *s)
{
    const char *mod = s->import.module;
    ModuleId id;
    if (!std_module(mod, &id) && refuse_python_module(s->loc, mod))
        return;
    if (!std_module(mod, &id)) {
        diag_error(s->loc, "'import %s' is not supported: only math, cmath, numpy and numba can be imported this way; import functions of another .ufn module with 'from %s import name'",
                   mod, mod);
        return;
    }
    const char *bound;
    if (s->import.alias)
        bound = s->import.alias;
    else {
        /* import numba.cuda binds "numba" */
        const char *dot = strchr(mod, '.');
        bound = dot ? intern(mod, (size_t)(dot - mod)) : mod;
        if (dot)
            id = MOD_NUMBA;
    }
    /* import numba; import numba.cuda: Python binds "numba" twice, to the
     * same module */
    Sym *old = scope_lookup(m->globals, bound);
    if (old && old->kind == SYM_MODULE && old->module == id)
        return;
    Sym sym = {.kind = SYM_MODULE, .name = bound, .loc = s->loc, .module = id};
    scope_bind(m->globals, sym);
}

SrcFile *find_ufn_module(const Module *from, const char *name, const char *const *dirs, int ndirs,
                         const char **path_out)
{
    char rel[512];
    snprintf(rel, sizeof rel, "%s.ufn", name);
    for (char *p = rel; *p; p++)
        if (*p == '.' && strcmp(p, ".ufn") != 0)
            *p = '/';
    /* the importing file's directory, then -I, then the standard library */
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", from->src->name);
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    else
        snprintf(dir, sizeof dir, ".");
    for (int i = 0; i < ndirs + 1; i++) {
        const char *d = i == 0 ? dir : dirs[i - 1];
        char *path = arena_printf("%s/%s", d, rel);
        SrcFile *f = src_read(path);
        if (f) {
            *path_out = path;
            return f;
        }
    }
    char *std = arena_printf("stdlib/%s", rel);
    for (const EmbeddedFile *e = embedded_files; e->name; e++)
        if (strcmp(e->name, std) == 0) {
            *path_out = arena_printf("<ufnc>/%s", std);
            return src_from_memory(*path_out, e->text, strlen(e->text));
        }
    return NULL;
}

bool is_embedded_path(const char *path)
{
    return strncmp(path, "<ufnc>/", 7) == 0;
}

void import_names(Module *m, Node *s, const Module *other)
{
    const char *mod = s->importfrom.module;
    ModuleId id = MOD_MATH;
    bool std = !other && std_module(mod, &id);
    for (int i = 0; i < s->importfrom.names.len; i++) {
        Node *n = s->importfrom.names.items[i];
        const char *bound = n->name.alias ? n->name.alias : n->name.id;
        Sym sym;
        if (std) {
            if (!module_attr(id, n->name.id, n->loc, &sym)) {
                diag_error(n->loc, "cannot import '%s' from '%s': not supported in ufn", n->name.id, mod);
                continue;
            }
        } else {
            Sym *found = scope_lookup(other->globals, n->name.id);
            if (!found) {
                diag_error(n->loc, "cannot import name '%s' from '%s'", n->name.id, mod);
                continue;
            }
            sym = *found;
            /* a @vectorize function may be imported to be composed (called
             * from a ufunc's body); a gufunc runs only as a kernel */
            if (sym.kind == SYM_FUNC && sym.func->kind == FK_GUVECTORIZE) {
                diag_error(n->loc, "cannot import the gufunc '%s': kernels are compiled in their own module; import device functions, @vectorize functions (to call from a ufunc) and constants",
                           n->name.id);
                continue;
            }
        }
        sym.name = bound;
        sym.loc = n->loc;
        scope_bind(m->globals, sym);
    }
}
