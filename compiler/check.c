/* check.c - the module level of the checker: imports, module constants,
 * decorators and their signature strings, the instances to type, and the
 * public C names.  Function bodies are typed by infer.c. */
#include "ufnc.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "embedded.h"

/* ---- scopes -------------------------------------------------------------------- */

#define SCOPE_SLOTS 1024

struct Scope {
    Sym *slots[SCOPE_SLOTS];   /* open addressing on the interned pointer */
    int count;
};

static unsigned slot_of(const char *name)
{
    return (unsigned)(((uintptr_t)name >> 4) * 2654435761u) % SCOPE_SLOTS;
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

/* Bind a name; a second binding of the same name is an error (DESIGN: a
 * redefinition is an error, even where Python would allow it). */
static Sym *scope_bind(Scope *s, Sym sym)
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

/* ---- the checker ------------------------------------------------------------------ */

typedef struct LoadedModule {
    const char *name;
    Module *module;         /* NULL while being loaded (import cycles) */
    struct LoadedModule *next;
} LoadedModule;

struct Checker {
    const CheckOptions *opt;
    Module *root;            /* the module being compiled */
    LoadedModule *loaded;    /* imported .ufn modules */
    int depth;               /* of nested imports */
};

static Module *check_one(Checker *ck, Node *ast, const SrcFile *src, const char *name);

/* ---- C names ------------------------------------------------------------------------ */

/* Names the generated C must not use for variables or public functions: C and
 * C++ keywords (nvcc compiles device code as C++), CUDA built-ins, and the
 * C library (DESIGN: a clash with `double` or `exp` is an error). */
static const char *const reserved[] = {
    /* C */
    "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else",
    "enum", "extern", "float", "for", "goto", "if", "inline", "int", "long", "register",
    "restrict", "return", "short", "signed", "sizeof", "static", "struct", "switch", "typedef",
    "union", "unsigned", "void", "volatile", "while", "bool", "true", "false", "alignas",
    "alignof", "noreturn", "static_assert", "thread_local", "complex", "imaginary",
    /* C++ */
    "asm", "catch", "class", "const_cast", "delete", "dynamic_cast", "explicit", "export",
    "friend", "mutable", "namespace", "new", "operator", "private", "protected", "public",
    "reinterpret_cast", "static_cast", "template", "this", "throw", "try", "typeid",
    "typename", "using", "virtual", "wchar_t", "nullptr", "constexpr", "decltype", "noexcept",
    "char16_t", "char32_t", "concept", "requires", "and", "or", "not", "xor", "bitand", "bitor",
    "compl", "and_eq", "or_eq", "xor_eq", "not_eq",
    /* CUDA */
    "threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize", "dim3", "uint3", "float4",
    "float2", "double2", "int4", "uint4", "int2", "uint2", "longlong2", "__global__",
    "__device__", "__host__", "__shared__", "__constant__",
    /* C library and types the generated code names */
    "main", "abs", "labs", "div", "exit", "abort", "malloc", "calloc", "realloc", "free",
    "printf", "fprintf", "sprintf", "snprintf", "puts", "memcpy", "memset", "memmove",
    "strlen", "errno", "assert", "NULL", "FILE", "stdin", "stdout", "stderr", "time", "clock",
    "rand", "srand", "signal", "raise", "index", "size_t", "ptrdiff_t", "int8_t", "int16_t",
    "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t", "intptr_t",
    "uintptr_t", "INFINITY", "NAN", "HUGE_VAL", "isnan", "isinf", "isfinite", "signbit",
    "fpclassify", "y0", "y1", "yn", "j0", "j1", "jn", "nan", "nanf", "gamma", "significand",
    "drem", "scalb", "finite", "isnormal", "floor", "ceil", "round", "trunc", "fmin", "fmax",
    "fdim", "fma", "frexp", "ldexp", "modf", "nextafter", "remainder", "remquo", "rint",
    "lrint", "llrint", "lround", "llround", "nearbyint", "ilogb", "logb", "scalbn", "cbrt",
};

/* <complex.h>, which a program may include next to the generated header (a
 * ufunc named cexp would not compile there); each has float and long double
 * spellings with an f or l suffix, as <math.h>'s functions do. */
static const char *const complex_h[] = {
    "cabs", "cacos", "cacosh", "carg", "casin", "casinh", "catan", "catanh", "ccos", "ccosh",
    "cexp", "cimag", "clog", "conj", "cpow", "cproj", "creal", "csin", "csinh", "csqrt",
    "ctan", "ctanh", "I", "_Complex_I", "CMPLX",
};

/* <math.h>'s name of a math.def function where it is not the Python one
 * (the host stub includes <math.h>; math.def names ufn_libm.h's functions). */
static const char *const math_h_only[] = {"tgamma"};

/* A C library function of <math.h> or <complex.h> spelt `name`, with or
 * without the f / l suffix of its float and long double versions. */
static bool is_libm_name(const char *name)
{
    size_t len = strlen(name);
    for (int cut = 0; cut <= 1; cut++) {
        if (cut && !(len > 1 && (name[len - 1] == 'f' || name[len - 1] == 'l')))
            break;
        size_t n = len - (size_t)cut;
        for (size_t i = 0; i < sizeof complex_h / sizeof complex_h[0]; i++)
            if (strlen(complex_h[i]) == n && strncmp(complex_h[i], name, n) == 0)
                return true;
        for (size_t i = 0; i < sizeof math_h_only / sizeof math_h_only[0]; i++)
            if (strlen(math_h_only[i]) == n && strncmp(math_h_only[i], name, n) == 0)
                return true;
        for (int i = 0; i < num_math_fns; i++)
            if (strlen(math_fns[i].name) == n && strncmp(math_fns[i].name, name, n) == 0)
                return true;
    }
    return false;
}

bool is_reserved_c_name(const char *name)
{
    for (size_t i = 0; i < sizeof reserved / sizeof reserved[0]; i++)
        if (strcmp(reserved[i], name) == 0)
            return true;
    /* every math function, float and double spelling */
    for (int i = 0; i < num_math_fns; i++)
        if (strcmp(math_fns[i].cname[0], name) == 0 || strcmp(math_fns[i].cname[1], name) == 0
            || strcmp(math_fns[i].name, name) == 0)
            return true;
    if (is_libm_name(name))
        return true;
    if (strncmp(name, "ufn_", 4) == 0 || strncmp(name, "__", 2) == 0)
        return true;
    return false;
}

const char *c_safe_name(const char *name)
{
    if (!is_reserved_c_name(name) && !strstr(name, "__"))
        return name;
    return intern_cstr(arena_printf("%s_", name));
}

/* ---- name resolution at module level ------------------------------------------------- */

typedef struct Resolver {
    Module *m;
} Resolver;

bool resolve_global(Module *m, const Node *e, Sym *out)
{
    if (e->kind == N_NAME) {
        Sym *s = scope_lookup(m->globals, e->name.id);
        if (s) {
            *out = *s;
            return true;
        }
        int b = builtin_lookup(e->name.id);
        if (b != B_NONE) {
            memset(out, 0, sizeof *out);
            out->kind = SYM_BUILTIN;
            out->name = e->name.id;
            out->builtin = b;
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

/* fold_const's resolver: module-level names only */
static bool resolve_constant(void *ctx, const Node *e, Sym *out)
{
    return resolve_global(ctx, e, out);
}

/* ---- imports ------------------------------------------------------------------------------ */

static bool std_module(const char *name, ModuleId *id)
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

static void refuse_module(Loc loc, const char *mod)
{
    if (strcmp(mod, "random") == 0 || strcmp(mod, "numpy.random") == 0 || strcmp(mod, "numba.cuda.random") == 0)
        diag_error(loc, "module '%s' is not supported in ufn: kernels cannot draw random numbers; generate them in the caller and pass them in as an array",
                   mod);
    else
        diag_error(loc, "module '%s' is not supported in ufn (kernels can use math, cmath, numpy scalars and numba)",
                   mod);
}

static void import_stmt(Checker *ck, Module *m, Node *s)
{
    (void)ck;
    const char *mod = s->import.module;
    ModuleId id;
    if (!std_module(mod, &id) && python_only_module(mod)) {
        refuse_module(s->loc, mod);
        return;
    }
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
    Sym sym = {.kind = SYM_MODULE, .name = bound, .loc = s->loc, .module = id};
    scope_bind(m->globals, sym);
}

static SrcFile *find_ufn_module(Checker *ck, Module *from, const char *name, char **path_out)
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
    int ndirs = ck->opt->ninclude_dirs + 1;
    for (int i = 0; i < ndirs; i++) {
        const char *d = i == 0 ? dir : ck->opt->include_dirs[i - 1];
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

/* "a -> b -> a": the imports still being loaded, from `name` (which is
 * being imported again) to the innermost.  ck->loaded is newest first. */
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

static Module *load_module(Checker *ck, Module *from, const char *name, Loc loc)
{
    for (LoadedModule *l = ck->loaded; l; l = l->next)
        if (l->name == name) {
            if (!l->module)
                diag_error(loc, "import cycle: %s", import_chain(ck, name));
            return l->module;
        }
    char *path = NULL;
    SrcFile *src = find_ufn_module(ck, from, name, &path);
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
    char *cname = arena_strndup(name, strlen(name));
    for (char *p = cname; *p; p++)
        if (!isalnum((unsigned char)*p))
            *p = '_';
    Module *m = check_one(ck, ast, src, cname);
    ck->depth--;
    l->module = m;
    /* record the dependency for -MD (not for the embedded standard library) */
    if (strncmp(path, "<ufnc>/", 7) != 0) {
        Module *root = ck->root;
        const char **deps = arena_alloc(sizeof(char *) * (size_t)(root->ndeps + 1));
        if (root->ndeps)
            memcpy(deps, root->deps, sizeof(char *) * (size_t)root->ndeps);
        deps[root->ndeps++] = path;
        root->deps = deps;
    }
    return m;
}

static void import_from_stmt(Checker *ck, Module *m, Node *s)
{
    const char *mod = s->importfrom.module;
    ModuleId id;
    bool std = std_module(mod, &id);
    Module *other = NULL;
    if (!std) {
        if (python_only_module(mod)) {
            refuse_module(s->loc, mod);
            return;
        }
        other = load_module(ck, m, mod, s->loc);
        if (!other)
            return;
    }
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
            if (sym.kind == SYM_FUNC && (sym.func->kind == FK_VECTORIZE || sym.func->kind == FK_GUVECTORIZE)) {
                diag_error(n->loc, "cannot import the ufunc '%s': kernels are compiled in their own module; import device functions and constants",
                           n->name.id);
                continue;
            }
        }
        sym.name = bound;
        sym.loc = n->loc;
        scope_bind(m->globals, sym);
    }
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

/* ---- decorators ------------------------------------------------------------------------------ */

static const char *str_value(Node *e)
{
    return e->kind == N_STR ? e->str.value : NULL;
}

static Node *keyword(Node *call, const char *name)
{
    for (int i = 0; i < call->call.kwargs.len; i++)
        if (strcmp(call->call.kwargs.items[i]->keyword.name, name) == 0)
            return call->call.kwargs.items[i]->keyword.value;
    return NULL;
}

static bool check_keywords(Node *call, const char *const *allowed, const char *decorator)
{
    bool ok = true;
    for (int i = 0; i < call->call.kwargs.len; i++) {
        Node *kw = call->call.kwargs.items[i];
        bool known = false;
        for (const char *const *a = allowed; *a; a++)
            known = known || strcmp(*a, kw->keyword.name) == 0;
        if (!known) {
            Buf list = {0};
            for (const char *const *a = allowed; *a; a++)
                buf_printf(&list, "%s%s=", a == allowed ? "" : ", ", *a);
            diag_error(kw->loc, "@%s does not take the option '%s' (it takes %s)", decorator, kw->keyword.name,
                       list.data);
            buf_free(&list);
            ok = false;
        }
    }
    return ok;
}

static void read_target(Func *f, Node *call, const char *decorator)
{
    Node *t = keyword(call, "target");
    if (!t)
        return;
    const char *v = str_value(t);
    if (!v || (strcmp(v, "cuda") && strcmp(v, "cpu") && strcmp(v, "parallel"))) {
        if (v)
            diag_error(t->loc, "@%s target must be 'cuda', 'cpu' or 'parallel', not '%s'", decorator, v);
        else
            diag_error(t->loc, "@%s target must be a string: 'cuda', 'cpu' or 'parallel'", decorator);
        return;
    }
    f->target = v;
}

/* The source text under a one-line location, for messages; NULL otherwise. */
static const char *one_line_text(Loc loc)
{
    int len;
    const char *line = loc.file ? src_line(loc.file, loc.line, &len) : NULL;
    if (!line || loc.end_line != loc.line || loc.end_col <= loc.col || loc.end_col - 1 > len)
        return NULL;
    return arena_strndup(line + loc.col - 1, (size_t)(loc.end_col - loc.col));
}

/* The list of signature strings: a list or tuple of strings, or one string. */
static void read_signatures(Func *f, Node *arg)
{
    NodeList strs = {0};
    if (arg->kind == N_LIST || arg->kind == N_TUPLE) {
        for (int i = 0; i < arg->tuple.elts.len; i++)
            list_push(&strs, arg->tuple.elts.items[i]);
    } else
        list_push(&strs, arg);
    f->sigs = arena_alloc(sizeof(Signature *) * (size_t)(strs.len ? strs.len : 1));
    for (int i = 0; i < strs.len; i++) {
        Node *s = strs.items[i];
        if (s->kind != N_STR) {
            const char *text = one_line_text(s->loc);
            if (text && s->kind == N_CALL)
                diag_error(s->loc, "a signature must be a string: write '%s' in quotes", text);
            else
                diag_error(s->loc, "a signature must be a string such as 'float32(float32)'");
            continue;
        }
        Signature *sig = sig_parse(s);
        if (sig)
            f->sigs[f->nsigs++] = sig;
    }
}

/* @vectorize without signatures: Numba compiles lazily for whatever it is
 * called with; ahead of time we pick the common homogeneous types. */
static void default_signatures(Func *f, Node *where)
{
    static const TypeKind kinds[] = {TY_INT32, TY_INT64, TY_FLOAT32, TY_FLOAT64};
    int n = f->def->funcdef.params.len;
    f->sigs = arena_alloc(sizeof(Signature *) * 4);
    Buf text = {0};
    for (int k = 0; k < 4; k++) {
        Signature *sig = arena_alloc(sizeof *sig);
        sig->nargs = n;
        sig->args = arena_alloc(sizeof(Type *) * (size_t)(n ? n : 1));
        Buf b = {0};
        buf_putc(&b, '(');
        for (int i = 0; i < n; i++) {
            sig->args[i] = ty_scalar(kinds[k]);
            buf_printf(&b, "%s%s", i ? ", " : "", sig->args[i]->name);
        }
        buf_putc(&b, ')');
        sig->text = arena_strndup(b.data, b.len);
        sig->loc = where->loc;
        buf_printf(&text, "%s'%s'", k ? ", " : "", sig->text);
        buf_free(&b);
        f->sigs[f->nsigs++] = sig;
    }
    f->default_sigs = true;
    diag_warning(where->loc, "@vectorize without signatures: compiling %s for %s; list the signatures you need",
                 f->name, text.data);
    buf_free(&text);
}

static void decorate(Module *m, Func *f, Node *dec)
{
    Node *callee = dec->kind == N_CALL ? dec->call.func : dec;
    Sym s;
    if (!resolve_global(m, callee, &s) || s.kind != SYM_DECORATOR) {
        const char *name = dotted_name(callee);
        diag_error(dec->loc, "unknown decorator '@%s': ufn knows @vectorize, @guvectorize, @cuda.jit(device=True), @jit and @njit",
                   name ? name : "...");
        return;
    }
    bool called = dec->kind == N_CALL;
    NodeList none = {0};
    NodeList *args = called ? &dec->call.args : &none;
    switch (s.decorator) {
    case DEC_VECTORIZE: {
        static const char *const ok[] = {"target", "nopython", "cache", "identity", "fastmath", NULL};
        f->kind = FK_VECTORIZE;
        if (called) {
            check_keywords(dec, ok, "vectorize");
            read_target(f, dec, "vectorize");
            if (keyword(dec, "fastmath"))
                diag_warning(keyword(dec, "fastmath")->loc, "fastmath= is ignored; compile with ufnc --fast-math");
        }
        if (args->len > 1)
            diag_error(args->items[1]->loc, "@vectorize takes one positional argument, the list of signatures");
        if (args->len >= 1)
            read_signatures(f, args->items[0]);
        if (f->nsigs == 0 && diag_error_count() == 0)
            default_signatures(f, dec);
        return;
    }
    case DEC_GUVECTORIZE: {
        static const char *const ok[] = {"target", "nopython", "cache", "identity", "fastmath", "writable_args", NULL};
        f->kind = FK_GUVECTORIZE;
        if (!called || args->len < 2) {
            diag_error(dec->loc, "@guvectorize needs the signatures and the layout: @guvectorize(['(float32[:], float32[:])'], '(i)->()')");
            return;
        }
        check_keywords(dec, ok, "guvectorize");
        read_target(f, dec, "guvectorize");
        read_signatures(f, args->items[0]);
        Node *layout = args->items[1];
        if (layout->kind != N_STR)
            diag_error(layout->loc, "the layout must be a string such as '(i)->()'");
        else
            f->layout = layout_parse(layout);
        if (args->len > 2)
            diag_error(args->items[2]->loc, "@guvectorize takes two positional arguments");
        return;
    }
    case DEC_CUDA_JIT: {
        Node *device = called ? keyword(dec, "device") : NULL;
        if (!device || device->kind != N_TRUE) {
            f->kind = FK_CUDA_KERNEL;
            diag_error(dec->loc, "'%s' is a @cuda.jit kernel, which ufnc does not compile: write the element-wise part as @vectorize or @guvectorize, or make it a helper with @cuda.jit(device=True)",
                       f->name);
            return;
        }
        static const char *const ok[] = {"device", "inline", "debug", "opt", "lineinfo", "fastmath", "cache", "forceinline", NULL};
        check_keywords(dec, ok, "cuda.jit");
        f->kind = FK_DEVICE;
        if (args->len)
            diag_warning(args->items[0]->loc, "the signature of device function '%s' is ignored: ufnc compiles it for the argument types of each call",
                         f->name);
        return;
    }
    case DEC_JIT:
    case DEC_NJIT:
        f->kind = FK_JIT;
        if (args->len)
            diag_warning(args->items[0]->loc, "the signature of '%s' is ignored: ufnc compiles it for the argument types of each call",
                         f->name);
        return;
    }
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

static void funcdef_stmt(Module *m, Node *s)
{
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

static void module_stmt(Checker *ck, Module *m, Node *s)
{
    switch (s->kind) {
    case N_IMPORT:
        import_stmt(ck, m, s);
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

/* ---- instances ------------------------------------------------------------------------------- */

static const char *suffix_of(int n, Type *const *types)
{
    Buf b = {0};
    for (int i = 0; i < n; i++)
        buf_printf(&b, "%s%s", i ? "_" : "", types[i]->suffix);
    if (n == 0)
        buf_puts(&b, "void");
    const char *s = arena_strndup(b.data, b.len);
    buf_free(&b);
    return s;
}

static Instance *new_instance(Func *f, Type **args, int nargs)
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
    const char *base = f->module->name && f->module != NULL ? f->name : f->name;
    inst->cname = arena_printf("%s%s%s__%s", f->module->name ? f->module->name : "", f->module->name ? "__" : "",
                               base, suffix_of(nargs, args));
    return inst;
}


const CheckOptions *checker_options(const Checker *ck)
{
    return ck->opt;
}

Instance *instantiate(Checker *ck, Func *f, Type **args, int nargs, bool final, Loc call)
{
    switch (f->kind) {
    case FK_DEVICE:
    case FK_JIT:
        break;
    case FK_PLAIN:
        if (final) {
            diag_error(call, "'%s' is not a device function: decorate it with @cuda.jit(device=True) or @jit to call it from a kernel",
                       f->name);
            diag_note(f->def->loc, "'%s' is defined here", f->name);
        }
        return NULL;
    case FK_VECTORIZE:
    case FK_GUVECTORIZE:
        if (final)
            diag_error(call, "cannot call the ufunc '%s' from a kernel; move the shared code into a @cuda.jit(device=True) function",
                       f->name);
        return NULL;
    case FK_CUDA_KERNEL:
        if (final)
            diag_error(call, "cannot call the @cuda.jit kernel '%s' from a kernel", f->name);
        return NULL;
    }
    Instance *inst = NULL;
    for (int i = 0; i < f->ninstances && !inst; i++)
        if (f->instances[i]->nargs == nargs
            && memcmp(f->instances[i]->args, args, sizeof(Type *) * (size_t)nargs) == 0)
            inst = f->instances[i];
    if (!inst)
        inst = new_instance(f, args, nargs);
    if (inst->state == I_INFERRING || inst->state == I_FINALIZING) {
        inst->recursive = true;       /* recursion: the return type so far */
        ck->root->recursive = true;
        return inst;
    }
    if (inst->state == I_FRESH) {
        inst->state = I_INFERRING;
        infer_instance(ck, inst, false);
        inst->state = I_INFERRED;
    }
    if (final && inst->state == I_INFERRED) {
        inst->state = I_FINALIZING;
        infer_instance(ck, inst, true);
        inst->state = I_DONE;
        Module *root = ck->root;
        Instance **list = arena_alloc(sizeof(Instance *) * (size_t)(root->nhelpers + 1));
        if (root->nhelpers)
            memcpy(list, root->helpers, sizeof(Instance *) * (size_t)root->nhelpers);
        list[root->nhelpers++] = inst;
        root->helpers = list;
    }
    return inst;
}

/* Check a kernel signature against the def and (for gufuncs) the layout. */
static bool kernel_signature_ok(Func *f, Signature *sig)
{
    Node *def = f->def;
    int nparams = def->funcdef.params.len;
    if (sig->nargs != nparams) {
        diag_error(sig->loc, "signature '%s' has %d argument%s but %s() takes %d", sig->text, sig->nargs,
                   sig->nargs == 1 ? "" : "s", f->name, nparams);
        return false;
    }
    if (f->kind == FK_VECTORIZE) {
        for (int i = 0; i < sig->nargs; i++)
            if (sig->args[i]->kind == TY_ARRAY) {
                diag_error(sig->loc, "@vectorize signatures take scalars; '%s' has an array argument (use @guvectorize for arrays)",
                           sig->text);
                return false;
            }
        if (sig->ret && sig->ret->kind == TY_NONE) {
            diag_error(sig->loc, "a @vectorize function must return a value; '%s' returns void", sig->text);
            return false;
        }
        return true;
    }
    Layout *l = f->layout;
    if (!l)
        return false;
    if (sig->ret && sig->ret->kind != TY_NONE) {
        diag_error(sig->loc, "guvectorized functions cannot return values: signature '%s' specifies %s return type",
                   sig->text, sig->ret->name);
        return false;
    }
    if (sig->nargs != l->nin + l->nout) {
        diag_error(sig->loc, "signature '%s' has %d arguments but the layout '%s' has %d operands", sig->text,
                   sig->nargs, l->text, l->nin + l->nout);
        diag_note(l->loc, "the layout has %d input%s and %d output%s", l->nin, l->nin == 1 ? "" : "s", l->nout,
                  l->nout == 1 ? "" : "s");
        return false;
    }
    for (int i = 0; i < sig->nargs; i++) {
        Type *t = sig->args[i];
        int core = l->ndim[i];
        bool out = i >= l->nin;
        if (t->kind != TY_ARRAY) {
            if (core > 0) {
                diag_error(sig->loc, "argument %d of '%s' is a scalar but its core dimensions in '%s' are not '()'",
                           i + 1, sig->text, l->text);
                return false;
            }
            if (out) {
                diag_error(sig->loc, "output argument %d of '%s' must be an array (write %s[:] and assign out[0])",
                           i + 1, sig->text, t->name);
                return false;
            }
            continue;
        }
        /* a '()' operand may be declared as a 1-d array of one element */
        if (t->ndim != core && !(core == 0 && t->ndim == 1)) {
            diag_error(sig->loc, "argument %d of '%s' has %d dimension%s but %d core dimension%s in the layout '%s'",
                       i + 1, sig->text, t->ndim, t->ndim == 1 ? "" : "s", core, core == 1 ? "" : "s", l->text);
            return false;
        }
    }
    return true;
}

static void check_kernel(Checker *ck, Func *f)
{
    Module *m = f->module;
    Func **list = arena_alloc(sizeof(Func *) * (size_t)(m->nkernels + 1));
    if (m->nkernels)
        memcpy(list, m->kernels, sizeof(Func *) * (size_t)m->nkernels);
    list[m->nkernels++] = f;
    m->kernels = list;
    if (f->kind == FK_GUVECTORIZE && f->layout && f->layout->nnames > UFN_CORE_MAXDIMS)
        diag_error(f->layout->loc, "at most %d distinct core dimensions are supported", UFN_CORE_MAXDIMS);
    for (int k = 0; k < f->nsigs; k++) {
        Signature *sig = f->sigs[k];
        if (!kernel_signature_ok(f, sig))
            continue;
        bool duplicate = false;
        for (int j = 0; j < k && !duplicate; j++) {
            bool same = f->sigs[j]->nargs == sig->nargs;
            int nin = f->kind == FK_GUVECTORIZE && f->layout ? f->layout->nin : sig->nargs;
            for (int i = 0; same && i < nin; i++)
                same = f->sigs[j]->args[i] == sig->args[i];
            if (same) {
                diag_error(sig->loc, "signature '%s' takes the same input types as '%s'", sig->text, f->sigs[j]->text);
                duplicate = true;
            }
        }
        if (duplicate)
            continue;             /* reported: no second kernel, nor a second C name */
        Instance *inst = new_instance(f, sig->args, sig->nargs);
        inst->sig = sig;
        inst->ret = f->kind == FK_GUVECTORIZE ? ty_none() : sig->ret;
        inst->state = I_FINALIZING;
        infer_instance(ck, inst, true);
        inst->state = I_DONE;
        if (inst->failed && f->default_sigs)
            break;            /* the user chose none of them: one failing signature says enough */
    }
}

/* ---- public names ------------------------------------------------------------------------------ */

static bool c_identifier(const char *s)
{
    if (!(isalpha((unsigned char)*s) || *s == '_'))
        return false;
    for (; *s; s++)
        if (!(isalnum((unsigned char)*s) || *s == '_'))
            return false;
    return true;
}

/* The typed entry's suffix: the input type when all share one, else all
 * input types joined by '_' (DESIGN 3). */
const char *typed_entry_suffix(const Func *f, const Signature *sig)
{
    int nin = f->kind == FK_GUVECTORIZE ? f->layout->nin : sig->nargs;
    Buf b = {0};
    bool same = true;
    for (int i = 1; i < nin; i++) {
        Type *a = sig->args[i]->kind == TY_ARRAY ? sig->args[i]->elt : sig->args[i];
        Type *z = sig->args[0]->kind == TY_ARRAY ? sig->args[0]->elt : sig->args[0];
        same = same && a == z;
    }
    for (int i = 0; i < (same ? (nin ? 1 : 0) : nin); i++) {
        Type *a = sig->args[i]->kind == TY_ARRAY ? sig->args[i]->elt : sig->args[i];
        buf_printf(&b, "%s%s", i ? "_" : "", a->name);
    }
    if (nin == 0)
        buf_puts(&b, "void");
    const char *r = arena_strndup(b.data, b.len);
    buf_free(&b);
    return r;
}

static void public_names(Checker *ck, Module *m)
{
    const char *prefix = ck->opt->prefix ? ck->opt->prefix : "";
    typedef struct { const char *name; Loc loc; } Pub;
    int cap = 16, n = 0;
    for (int i = 0; i < m->nkernels; i++)
        cap += 1 + m->kernels[i]->nsigs;
    Pub *pubs = arena_alloc(sizeof(Pub) * (size_t)cap);
    for (int i = 0; i < m->nkernels; i++) {
        Func *f = m->kernels[i];
        Loc loc = f->def->funcdef.name_loc.file ? f->def->funcdef.name_loc : f->def->loc;
        f->public_name = intern_cstr(arena_printf("%s%s", prefix, f->name));
        if (!c_identifier(f->public_name)) {
            diag_error(loc, "'%s' is not a valid C name", f->public_name);
            continue;
        }
        if (is_reserved_c_name(f->public_name)) {
            diag_error(loc, "the name '%s' clashes with a C, CUDA or C library name; choose another or compile with --prefix=NAME_",
                       f->public_name);
            continue;
        }
        pubs[n++] = (Pub){f->public_name, loc};
        if (f->kind == FK_GUVECTORIZE && !f->layout)
            continue;
        for (int k = 0; k < f->ninstances; k++) {
            Signature *sig = f->instances[k]->sig;
            pubs[n++] = (Pub){intern_cstr(arena_printf("%s_%s", f->public_name, typed_entry_suffix(f, sig))), sig->loc};
        }
    }
    for (int i = 0; i < n; i++)
        for (int j = 0; j < i; j++)
            if (pubs[i].name == pubs[j].name) {
                diag_error(pubs[i].loc, "the C name '%s' is generated twice; rename one of the functions", pubs[i].name);
                diag_note(pubs[j].loc, "first generated here");
            }
}

/* ---- driving ------------------------------------------------------------------------------------- */

static Module *check_one(Checker *ck, Node *ast, const SrcFile *src, const char *name)
{
    Module *m = arena_alloc(sizeof *m);
    m->name = name;
    m->src = src;
    m->ast = ast;
    m->globals = arena_alloc(sizeof(Scope));
    if (!ck->root) {
        ck->root = m;
        m->deps = arena_alloc(sizeof(char *));
        m->deps[m->ndeps++] = src->name;
    }
    for (int i = 0; i < ast->module.body.len; i++)
        module_stmt(ck, m, ast->module.body.items[i]);
    return m;
}

Module *check_module(Node *ast, const SrcFile *src, const CheckOptions *opt)
{
    Checker ck = {.opt = opt};
    Module *m = check_one(&ck, ast, src, opt->module_name);
    if (diag_error_count())
        return m;
    for (int i = 0; i < m->nfuncs; i++) {
        Func *f = m->funcs[i];
        if (f->kind == FK_VECTORIZE || (f->kind == FK_GUVECTORIZE && f->layout))
            check_kernel(&ck, f);
    }
    public_names(&ck, m);
    /* An instance that failed has reported why; otherwise its empty body
     * would be compiled as if it were right. */
    if (!diag_error_count()) {
        for (int i = 0; i < m->nhelpers; i++)
            if (m->helpers[i]->failed)
                die("helper %s failed without a diagnostic", m->helpers[i]->func->name);
        for (int i = 0; i < m->nkernels; i++)
            for (int k = 0; k < m->kernels[i]->ninstances; k++)
                if (m->kernels[i]->instances[k]->failed)
                    die("kernel %s failed without a diagnostic", m->kernels[i]->name);
    }
    return m;
}
