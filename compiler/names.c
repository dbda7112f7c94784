/* names.c - the C names of the generated code: which Python names cannot
 * be C names as they are, the names of the instances' functions and of the
 * modules, and the public names of a module's entry points (DESIGN 3),
 * checked once for every kernel. */
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

/* ---- functions and modules ------------------------------------------------------------ */

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

const char *instance_c_name(const Func *f, Type *const *args, int nargs)
{
    const Module *m = f->module;
    return arena_printf("%s%s%s__%s", m->name ? m->name : "", m->name ? "__" : "", f->name, suffix_of(nargs, args));
}

const char *module_c_name(const char *dotted)
{
    char *name = arena_strndup(dotted, strlen(dotted));
    for (char *p = name; *p; p++)
        if (!isalnum((unsigned char)*p))
            *p = '_';
    return name;
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

void name_module(Module *m)
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

