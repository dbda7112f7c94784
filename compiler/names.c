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

/* Public names (a kernel's entry points, their parameters) are the
 * program's own words in C (DESIGN 3), so they cannot be renamed; the ones
 * C cannot take are refused (or, for a parameter, changed).  What C cannot
 * take: C and C++ keywords (the header may go into a C++ program; nvcc
 * compiles device code as C++), CUDA built-ins, the C library's names, the
 * macros of the headers the generated code and the generated header
 * include (the patterns in is_reserved_c_name cover the families), the
 * runtime's names (ufn_, UFN_) and the implementation's (_X, __x). */
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
    "float2", "double2", "int4", "uint4", "int2", "uint2", "longlong2",
    /* predefined by the compilers in their GNU modes (the default) */
    "linux", "unix", "i386",
    /* C library and types the generated code names */
    "main", "abs", "labs", "div", "exit", "abort", "malloc", "calloc", "realloc", "free",
    "printf", "fprintf", "sprintf", "snprintf", "puts", "memcpy", "memset", "memmove",
    "strlen", "errno", "assert", "NULL", "FILE", "stdin", "stdout", "stderr", "time", "clock",
    "rand", "srand", "signal", "raise", "index", "size_t", "ptrdiff_t", "int8_t", "int16_t",
    "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t", "intptr_t",
    "uintptr_t", "offsetof", "alloca",
    /* <math.h>: macros and functions beyond compiler/math.def */
    "INFINITY", "NAN", "isnan", "isinf", "isfinite", "signbit", "fpclassify", "isnormal",
    "isgreater", "isgreaterequal", "isless", "islessequal", "islessgreater", "isunordered",
    "issignaling", "issubnormal", "iszero", "iscanonical", "math_errhandling",
    "y0", "y1", "yn", "j0", "j1", "jn", "nan", "nanf", "gamma", "significand",
    "drem", "scalb", "finite", "floor", "ceil", "round", "trunc", "fmin", "fmax",
    "fdim", "fma", "frexp", "ldexp", "modf", "nextafter", "remainder", "remquo", "rint",
    "lrint", "llrint", "lround", "llround", "nearbyint", "ilogb", "logb", "scalbn", "cbrt",
    /* <limits.h> and <float.h> (ufn_math.h includes them) */
    "CHAR_BIT", "DECIMAL_DIG", "PIPE_BUF", "MAX_CANON", "MAX_INPUT",
};

/* <complex.h>, which a program may include next to the generated header (a
 * ufunc named cexp would not compile there); each has float and long double
 * spellings with an f or l suffix, as <math.h>'s functions do. */
static const char *const complex_h[] = {
    "cabs", "cacos", "cacosh", "carg", "casin", "casinh", "catan", "catanh", "ccos", "ccosh",
    "cexp", "cimag", "clog", "conj", "cpow", "cproj", "creal", "csin", "csinh", "csqrt",
    "ctan", "ctanh", "I", "CMPLX",
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

static bool starts(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

static bool ends(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* The families of macro names (upper case) that the C standard and POSIX
 * reserve for the headers involved: <stdint.h>'s INTn_C and every
 * <limits.h>/<stdint.h> ..._MAX and ..._MIN, <float.h>'s FLT_, DBL_, LDBL_,
 * <math.h>'s FP_, MATH_ERR, HUGE_VAL and the M_PI family, POSIX's PTHREAD_. */
static bool is_macro_family(const char *name)
{
    for (const char *p = name; *p; p++)
        if (islower((unsigned char)*p))
            return false;
    if ((starts(name, "INT") || starts(name, "UINT")) && ends(name, "_C"))
        return true;
    if (ends(name, "_MAX") || ends(name, "_MIN"))
        return true;
    static const char *const prefixes[] = {"FLT_", "DBL_", "LDBL_", "FP_", "MATH_ERR", "HUGE_VAL", "CMPLX", "PTHREAD_"};
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
        if (starts(name, prefixes[i]))
            return true;
    return name[0] == 'M' && name[1] == '_' && (isupper((unsigned char)name[2]) || isdigit((unsigned char)name[2]));
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
    if (is_libm_name(name) || is_macro_family(name))
        return true;
    /* the runtime's, and the implementation's (_Bool, _Pragma, __x) */
    if (starts(name, "ufn_") || starts(name, "UFN_") || (name[0] == '_' && (isupper((unsigned char)name[1]) || name[1] == '_')))
        return true;
    return false;
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

const char *c_maker(const Type *t)
{
    return intern_cstr(arena_printf("%s_make", c_type(t)));
}

/* A view type's view of row l of a block of rows (the host's lane bodies,
 * emit_lanes.c). */
const char *c_row_maker(const Type *t)
{
    return intern_cstr(arena_printf("%s_row", c_type(t)));
}

/* In memory (array elements, kernel and host-loop operands) a bool is a
 * byte that may hold any value: C's bool may not, so such a byte is read
 * as a uint8_t and compared with 0 (emit.c's c_load). */
const char *c_elem_type(const Type *t)
{
    return t->kind == TY_BOOL ? "uint8_t" : c_type(t);
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

const char *kernel_c_name(const Instance *inst, const char *variant)
{
    return arena_printf("%s__%s", inst->cname, variant);
}

const char *storage_c_name(const Node *call)
{
    return arena_printf("ufn_%s%d", call->call.cuda == CU_SHARED_ARRAY ? "shared" : "local", call->call.slot);
}

const char *host_loop_c_name(const Instance *inst)
{
    return arena_printf("%s__host", inst->cname);
}

const char *divider_c_name(const Instance *inst)
{
    return arena_printf("%s__divider", inst->cname);
}

/* No other C name of ufnc's ends in __sim or __sizes: an instance's ends in
 * a type tag, "void" or _2, _3, ..., a kernel's, a host loop's and a divider
 * copy's in their variant, a table's in the word func_c_symbol or module_c_symbol is given. */
const char *sim_c_symbol(const char *kernel, const char *what)
{
    return arena_printf("%s__%s", kernel, what);
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

/* The variables of a body take the Python name behind a prefix that
 * nothing else in generated C starts with: v_ for a variable, a_ for the
 * argument a widened parameter arrives in.  The C names the bodies use
 * besides (keywords, types, the C library, the runtime's ufn_ and UFN_
 * names, macros of the headers, nvcc's) never start with v_ or a_, and the
 * checker's own temporaries and loop counters are ufn_t1, ufn_i1 (and a
 * recursive helper's depth ufn_depth): so a
 * valid Python name never collides, whatever it is (int, linux, UFN_BODY,
 * _Bool, ufn_t0).  test_c_names checks the prefixes against the macros the
 * C compiler defines. */
static void name_vars(Instance *inst)
{
    int temps = 0;
    for (int i = 0; i < inst->nvars; i++) {
        Var *v = inst->vars[i];
        v->cname = intern_cstr(v->temp ? arena_printf("ufn_t%d", temps++) : arena_printf("v_%s", v->name));
        if (v->param && v->type != inst->args[i])
            v->arg_cname = intern_cstr(arena_printf("a_%s", v->name));
    }
    inst->out_cname = "ufn_out";      /* a ufunc kernel's output operand */
    inst->depth_cname = inst->recursive ? "ufn_depth" : NULL;   /* as ufn_abi.h says */
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
    int nin = kernel_nin(f);
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

/* A parameter of an entry point: the Python name `want` when C can take it
 * and no earlier parameter has it, else `want` with '_' appended (int_, n_),
 * then _2, _3, ...  A name no ending can make a parameter (one that starts
 * with '_', holds '__' or starts with the runtime's ufn_ or UFN_: the names
 * of the entry points' own locals and of the module's tables) becomes
 * `fallback`. */
static const char *param_name(const char **taken, int ntaken, const char *want, const char *fallback)
{
    bool shape = isalpha((unsigned char)want[0]) && !strstr(want, "__") && !starts(want, "ufn_")
                 && !starts(want, "UFN_");
    const char *base = shape ? want : fallback;
    bool underscore = base[strlen(base) - 1] == '_';
    for (int i = 0;; i++) {
        const char *c = i == 0 ? base
                        : i == 1 ? (underscore ? NULL : arena_printf("%s_", base))
                        : arena_printf(underscore ? "%s%d" : "%s_%d", base, i);
        if (!c || is_reserved_c_name(c))
            continue;
        bool free = true;
        for (int k = 0; k < ntaken && free; k++)
            free = strcmp(taken[k], c) != 0;
        if (free)
            return intern_cstr(c);
    }
}

/* The parameters of a kernel's entry points, in one scope: n (the typed
 * entries' loop count), then the def's names, a ufunc's output ("out"),
 * then a gufunc's core dimensions (typed entries), in layout order. */
static void name_params(Func *f)
{
    NodeList *params = &f->def->funcdef.params;
    int nops = kernel_nops(f);
    int ndims = f->kind == FK_GUVECTORIZE ? f->layout->nnames : 0;
    const char **taken = arena_alloc(sizeof(char *) * (size_t)(1 + nops + ndims));
    int ntaken = 0;
    taken[ntaken++] = f->kind == FK_CUDA_KERNEL ? "launch" : "n";
    f->param_cnames = arena_alloc(sizeof(char *) * (size_t)nops);
    for (int k = 0; k < nops; k++) {
        const char *want = k < params->len ? params->items[k]->name.id : "out";
        f->param_cnames[k] = param_name(taken, ntaken, want, arena_printf("arg%d", k));
        taken[ntaken++] = f->param_cnames[k];
    }
    f->core_cnames = arena_alloc(sizeof(char *) * (size_t)(ndims ? ndims : 1));
    for (int d = 0; d < ndims; d++) {
        f->core_cnames[d] = param_name(taken, ntaken, f->layout->names[d], arena_printf("dim%d", d));
        taken[ntaken++] = f->core_cnames[d];
    }
}

/* ---- methods ----------------------------------------------------------------------------- */

static const char *const method_words[NUM_METHODS] = {
    [M_REDUCE] = "reduce", [M_ACCUMULATE] = "accumulate", [M_OUTER] = "outer",
};

const char *method_word(Method m)
{
    return method_words[m];
}

/* A binary @vectorize ufunc with some signature T(T, T) has the methods
 * (DESIGN 7; emit_methods.c writes them). */
bool has_methods(const Func *f)
{
    if (f->kind != FK_VECTORIZE || kernel_nin(f) != 2)
        return false;
    for (int k = 0; k < f->ninstances; k++) {
        const Instance *inst = f->instances[k];
        if (inst->args[0] == inst->args[1] && inst->args[0] == inst->ret)
            return true;
    }
    return false;
}

/* ---- the pass ------------------------------------------------------------------------- */

/* The C names given so far to things of file scope (functions, tables). */
typedef struct Taken {
    const char **slots;      /* interned; open addressing on the pointer */
    unsigned cap, len;
} Taken;

static unsigned slot(const Taken *t, const char *name)
{
    return (unsigned)(((uintptr_t)name >> 4) * 2654435761u) & (t->cap - 1);
}

static bool is_taken(const Taken *t, const char *name)
{
    if (!t->cap)
        return false;
    for (unsigned i = slot(t, name); t->slots[i]; i = (i + 1) & (t->cap - 1))
        if (t->slots[i] == name)
            return true;
    return false;
}

static void take(Taken *t, const char *name)
{
    if (2 * (t->len + 1) > t->cap) {
        Taken bigger = {.cap = t->cap ? 2 * t->cap : 256};
        bigger.slots = arena_alloc(sizeof(char *) * bigger.cap);
        for (unsigned i = 0; i < t->cap; i++)
            if (t->slots[i])
                take(&bigger, t->slots[i]);
        *t = bigger;
    }
    unsigned i = slot(t, name);
    while (t->slots[i])
        i = (i + 1) & (t->cap - 1);
    t->slots[i] = name;
    t->len++;
}

/* An instance's function: module__function__argument-tags, polar__f__f32
 * (the kernels, host loops and simulator entries add __contig, __host, ...).
 * Python names may hold '__' and two modules' C names can be alike, so the
 * same spelling can come twice: the later one gets _2, _3, ...  (a type tag
 * never starts with a digit, so these are never spellings of their own). */
static void name_instance(Taken *t, Instance *inst)
{
    const Module *m = inst->func->module;
    const char *base = arena_printf("%s__%s__%s", m->name, inst->func->name, suffix_of(inst->nargs, inst->args));
    const char *name = intern_cstr(base);
    for (int k = 2; is_taken(t, name); k++)
        name = intern_cstr(arena_printf("%s_%d", base, k));
    take(t, name);
    inst->cname = name;
    name_vars(inst);
}

/* A public name, where it comes from. */
typedef struct Public {
    const char *name;
    Loc loc;
} Public;

/* The public names of the kernels: the entry points (DESIGN 3), checked. */
static void name_public(Module *m, Taken *t)
{
    const char *prefix = m->opt->prefix ? m->opt->prefix : "";
    int cap = 1, n = 0;
    for (int i = 0; i < m->nkernels; i++)
        cap += 1 + m->kernels[i]->ninstances + NUM_METHODS;
    Public *pubs = arena_alloc(sizeof(Public) * (size_t)cap);
    for (int i = 0; i < m->nkernels; i++) {
        Func *f = m->kernels[i];
        Loc loc = f->def->funcdef.name_loc.file ? f->def->funcdef.name_loc : f->def->loc;
        f->public_name = intern_cstr(arena_printf("%s%s", prefix, f->name));
        if (!c_identifier(f->public_name)) {
            diag_error(loc, "'%s' is not a valid C name", f->public_name);
            continue;
        }
        if (strstr(f->public_name, "__") && f->public_name[0] != '_') {
            diag_error(loc, "the name '%s' holds '__', which C++ reserves and ufnc's own C names use; rename the function",
                       f->public_name);
            continue;
        }
        if (is_reserved_c_name(f->public_name)) {
            diag_error(loc, "the name '%s' clashes with a C, CUDA or C library name; choose another or compile with --prefix=NAME_",
                       f->public_name);
            continue;
        }
        int first = n;
        pubs[n++] = (Public){f->public_name, loc};
        for (int k = 0; k < f->ninstances && f->kind != FK_CUDA_KERNEL; k++) {
            Instance *inst = f->instances[k];
            inst->entry_cname = intern_cstr(arena_printf("%s_%s", f->public_name, typed_entry_suffix(f, inst->sig)));
            pubs[n++] = (Public){inst->entry_cname, inst->sig->loc};
        }
        /* a binary ufunc's methods: NAME_reduce, NAME_accumulate, NAME_outer */
        for (int k = 0; k < NUM_METHODS && has_methods(f); k++) {
            f->method_cnames[k] = intern_cstr(arena_printf("%s_%s", f->public_name, method_word((Method)k)));
            pubs[n++] = (Public){f->method_cnames[k], loc};
        }
        for (int k = first; k < n; k++) {
            if (!is_taken(t, pubs[k].name)) {
                take(t, pubs[k].name);
                continue;
            }
            int j = 0;
            while (pubs[j].name != pubs[k].name)
                j++;
            diag_error(pubs[k].loc, "the C name '%s' is generated twice; rename one of the functions", pubs[k].name);
            diag_note(pubs[j].loc, "first generated here");
        }
        if (f->ninstances)
            name_params(f);
    }
}

void name_module(Module *m)
{
    Taken t = {0};
    /* Public names first: they cannot change, and never hold '__', which
     * every name below does. */
    name_public(m, &t);
    static const char *const module_symbols[] = {"module", "fatbin", "sim_kernels"};
    for (size_t i = 0; i < sizeof module_symbols / sizeof module_symbols[0]; i++)
        take(&t, intern_cstr(module_c_symbol(m, module_symbols[i])));
    for (int i = 0; i < m->nhelpers; i++)
        name_instance(&t, m->helpers[i]);
    for (int i = 0; i < m->nkernels; i++)
        for (int k = 0; k < m->kernels[i]->ninstances; k++)
            name_instance(&t, m->kernels[i]->instances[k]);
}
