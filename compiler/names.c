/* names.c - every name the generated C uses for something of the program:
 * the C types of ufn's types, the variables of the bodies, the functions of
 * the instances, the kernels, host loops and tables, the module's symbols,
 * and the public names and parameters of its entry points (DESIGN 3).
 * name_module (a pass, after typing) decides and stores the names that need
 * the whole module; the functions below spell the rest from them.  The
 * emitters take every such name from here and never make one up. */
#include "ufnc.h"

#include <ctype.h>
#include <string.h>

/* ---- reserved names --------------------------------------------------------------- */

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
        for (int i = 0; i < num_math_fns; i++)
            if (strlen(math_fns[i].cname[1]) == n && strncmp(math_fns[i].cname[1], name, n) == 0)
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

/* ---- types ----------------------------------------------------------------------------- */

static const char *const scalar_c[NUM_SCALAR_TYPES] = {
    [TY_BOOL] = "bool", [TY_INT8] = "int8_t", [TY_INT16] = "int16_t", [TY_INT32] = "int32_t",
    [TY_INT64] = "int64_t", [TY_UINT8] = "uint8_t", [TY_UINT16] = "uint16_t", [TY_UINT32] = "uint32_t",
    [TY_UINT64] = "uint64_t", [TY_FLOAT32] = "float", [TY_FLOAT64] = "double",
    [TY_COMPLEX64] = "ufn_c64", [TY_COMPLEX128] = "ufn_c128",
};

static const char *const scalar_tag[NUM_SCALAR_TYPES] = {
    [TY_BOOL] = "b1", [TY_INT8] = "i8", [TY_INT16] = "i16", [TY_INT32] = "i32", [TY_INT64] = "i64",
    [TY_UINT8] = "u8", [TY_UINT16] = "u16", [TY_UINT32] = "u32", [TY_UINT64] = "u64",
    [TY_FLOAT32] = "f32", [TY_FLOAT64] = "f64", [TY_COMPLEX64] = "c64", [TY_COMPLEX128] = "c128",
};

/* "t2" and the tags of the elements: "t2_f32_i64". */
static const char *tuple_tags(const Type *t)
{
    Buf b = {0};
    buf_printf(&b, "t%d", t->nelts);
    for (int i = 0; i < t->nelts; i++)
        buf_printf(&b, "_%s", type_tag(t->elts[i]));
    const char *r = intern(b.data, b.len);
    buf_free(&b);
    return r;
}

const char *type_tag(const Type *t)
{
    switch (t->kind) {
    case TY_NONE: return "v";
    case TY_TUPLE: return tuple_tags(t);
    case TY_ARRAY: return intern_cstr(arena_printf("a%d_%s", t->ndim, type_tag(t->elt)));
    default: return scalar_tag[t->kind];
    }
}

const char *c_type(const Type *t)
{
    switch (t->kind) {
    case TY_NONE: return "void";
    case TY_TUPLE: return intern_cstr(arena_printf("ufn_tup%s", tuple_tags(t) + 1));
    /* Layout does not change the C view: strides are always carried. */
    case TY_ARRAY: return intern_cstr(arena_printf("ufn_view_%s_%d", type_tag(t->elt), t->ndim));
    default: return scalar_c[t->kind];
    }
}

/* ---- functions and modules ------------------------------------------------------------ */

static const char *suffix_of(int n, Type *const *types)
{
    Buf b = {0};
    for (int i = 0; i < n; i++)
        buf_printf(&b, "%s%s", i ? "_" : "", type_tag(types[i]));
    if (n == 0)
        buf_puts(&b, "void");
    const char *s = arena_strndup(b.data, b.len);
    buf_free(&b);
    return s;
}

static const char *instance_c_name(const Instance *inst)
{
    const Module *m = inst->func->module;
    return arena_printf("%s%s%s__%s", m->name ? m->name : "", m->name ? "__" : "", inst->func->name,
                        suffix_of(inst->nargs, inst->args));
}

const char *kernel_c_name(const Instance *inst, const char *variant)
{
    return arena_printf("%s__%s", inst->cname, variant);
}

const char *host_loop_c_name(const Instance *inst)
{
    return arena_printf("%s__host", inst->cname);
}

const char *func_c_symbol(const Func *f, const char *what)
{
    return arena_printf("%s__%s__%s", f->module->name, f->name, what);
}

const char *module_c_symbol(const Module *m, const char *what)
{
    return arena_printf("%s__%s", m->name, what);
}

const char *header_guard(const Module *m)
{
    char *g = arena_printf("%s_UFN_H", m->name);
    for (char *p = g; *p; p++)
        *p = isalnum((unsigned char)*p) ? (char)toupper((unsigned char)*p) : '_';
    return g;
}

const char *module_c_name(const char *dotted)
{
    char *name = arena_strndup(dotted, strlen(dotted));
    for (char *p = name; *p; p++)
        if (!isalnum((unsigned char)*p))
            *p = '_';
    return name;
}

/* ---- variables ------------------------------------------------------------------------ */

static void name_vars(Instance *inst)
{
    for (int i = 0; i < inst->nvars; i++) {
        Var *v = inst->vars[i];
        v->cname = v->temp ? v->name : c_safe_name(v->name);
        /* a parameter assigned a wider type in the body: the argument
         * arrives under another name and converts into the variable */
        if (v->param && v->type != inst->args[i])
            v->arg_cname = arena_printf("%s_arg", v->cname);
    }
    /* a ufunc kernel's output operand */
    inst->out_cname = "out";
    for (int i = 0; i < inst->nargs; i++)
        if (strcmp(inst->vars[i]->cname, "out") == 0)
            inst->out_cname = "out_";
}

/* ---- public names ------------------------------------------------------------------------ */

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

/* The parameters of the entry points: the def's names; a ufunc's output is
 * "out" (or "out_" when an input already has that name); n is the typed
 * entries' loop count.  Core dimensions (typed entries of gufuncs) take the
 * layout's names, with a '_' where one clashes. */
static void name_params(Func *f)
{
    NodeList *params = &f->def->funcdef.params;
    const Instance *inst = f->instances[0];
    int nops = f->kind == FK_GUVECTORIZE ? inst->nargs : inst->nargs + 1;
    f->param_cnames = arena_alloc(sizeof(char *) * (size_t)nops);
    for (int k = 0; k < nops; k++) {
        if (k < params->len) {
            const char *name = c_safe_name(params->items[k]->name.id);
            f->param_cnames[k] = strcmp(name, "n") == 0 ? "n_" : name;
            continue;
        }
        f->param_cnames[k] = "out";
        for (int i = 0; i < params->len; i++)
            if (strcmp(params->items[i]->name.id, "out") == 0)
                f->param_cnames[k] = "out_";
    }
    if (f->kind != FK_GUVECTORIZE)
        return;
    f->core_cnames = arena_alloc(sizeof(char *) * (size_t)(f->layout->nnames ? f->layout->nnames : 1));
    for (int d = 0; d < f->layout->nnames; d++) {
        const char *name = f->layout->names[d];
        bool clash = strcmp(name, "n") == 0 || is_reserved_c_name(name);
        for (int k = 0; k < params->len; k++)
            clash = clash || strcmp(f->param_cnames[k], name) == 0;
        f->core_cnames[d] = clash ? arena_printf("%s_", name) : name;
    }
}

/* Every name the module's C needs, once it is typed: the variables and
 * functions of the instances, and the public names of the kernels, with an
 * error where C cannot take one. */
static void name_public(Module *m)
{
    const char *prefix = m->opt->prefix ? m->opt->prefix : "";
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
            Instance *inst = f->instances[k];
            inst->entry_cname = intern_cstr(arena_printf("%s_%s", f->public_name, typed_entry_suffix(f, inst->sig)));
            pubs[n++] = (Pub){inst->entry_cname, inst->sig->loc};
        }
        if (f->ninstances)
            name_params(f);
    }
    for (int i = 0; i < n; i++)
        for (int j = 0; j < i; j++)
            if (pubs[i].name == pubs[j].name) {
                diag_error(pubs[i].loc, "the C name '%s' is generated twice; rename one of the functions", pubs[i].name);
                diag_note(pubs[j].loc, "first generated here");
            }
}


void name_module(Module *m)
{
    for (int i = 0; i < m->nhelpers; i++) {
        m->helpers[i]->cname = instance_c_name(m->helpers[i]);
        name_vars(m->helpers[i]);
    }
    for (int i = 0; i < m->nkernels; i++)
        for (int k = 0; k < m->kernels[i]->ninstances; k++) {
            Instance *inst = m->kernels[i]->instances[k];
            inst->cname = instance_c_name(inst);
            name_vars(inst);
        }
    name_public(m);
}
