/* builtins.c - what kernels can call besides defs: Python builtins, the
 * math and cmath functions of compiler/math.def, NumPy scalar constructors and
 * constants, and the numba names used in decorators. */
#include "ufnc.h"

#include <math.h>
#include <string.h>

#include "ufn_math.h"   /* the spellings of inf and nan in math.def */

const MathFn math_fns[] = {
#define MATH(py, n, kind, f32, f64) {#py, n, kind, {#f32, #f64}},
#define CMATH(py, n, kind, c64, c128)
#include "math.def"
};
const int num_math_fns = sizeof math_fns / sizeof math_fns[0];

const MathFn cmath_fns[] = {
#define MATH(py, n, kind, f32, f64)
#define CMATH(py, n, kind, c64, c128) {#py, n, kind, {#c64, #c128}},
#include "math.def"
};
const int num_cmath_fns = sizeof cmath_fns / sizeof cmath_fns[0];

static const struct { const char *name; double value; } math_consts[] = {
#define CONST(name, value) {#name, value},
#include "math.def"
};

static const struct { const char *name; double re, im; } cmath_consts[] = {
#define CCONST(name, re, im) {#name, re, im},
#include "math.def"
};

static int find_fn(const MathFn *fns, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(fns[i].name, name) == 0)
            return i;
    return -1;
}

const MathFn *math_row(Builtin table, const char *name, int nargs)
{
    const MathFn *fns = table == B_CMATH ? cmath_fns : math_fns;
    int n = table == B_CMATH ? num_cmath_fns : num_math_fns;
    for (int i = 0; i < n; i++)
        if (strcmp(fns[i].name, name) == 0 && fns[i].nargs == nargs)
            return &fns[i];
    return NULL;
}

static bool find_const(const char *name, double *value)
{
    for (size_t i = 0; i < sizeof math_consts / sizeof math_consts[0]; i++)
        if (strcmp(math_consts[i].name, name) == 0) {
            *value = math_consts[i].value;
            return true;
        }
    return false;
}

static const struct { const char *name; Builtin builtin; } python_builtins[] = {
    {"abs", B_ABS}, {"min", B_MIN}, {"max", B_MAX}, {"round", B_ROUND},
    {"int", B_INT}, {"float", B_FLOAT}, {"bool", B_BOOL}, {"complex", B_COMPLEX},
    {"len", B_LEN}, {"range", B_RANGE}, {"pow", B_POW},
};

/* Builtins Numba knows that ufnc does not compile: a clear error beats
 * "undefined name". */
static const char *const unsupported_builtins[] = {
    "print", "enumerate", "zip", "sum", "any", "all", "list", "tuple", "dict",
    "set", "sorted", "reversed", "map", "filter", "iter", "next", "str", "repr",
    "isinstance", "type", "hash", "divmod", "hex", "oct", "bin", "ord", "chr",
    "open", "input", "format", "slice", "getattr", "setattr", "super", "object",
    "memoryview", "bytes", "bytearray", "frozenset", "callable", "id", "vars",
    "globals", "locals", "exec", "eval", "compile", "__import__",
};

Builtin builtin_lookup(const char *name)
{
    for (size_t i = 0; i < sizeof python_builtins / sizeof python_builtins[0]; i++)
        if (strcmp(python_builtins[i].name, name) == 0)
            return python_builtins[i].builtin;
    for (size_t i = 0; i < sizeof unsupported_builtins / sizeof unsupported_builtins[0]; i++)
        if (strcmp(unsupported_builtins[i], name) == 0)
            return B_UNSUPPORTED;
    return B_NONE;
}

const char *builtin_name(BuiltinRef b)
{
    switch (b.id) {
    case B_CMATH: return arena_printf("cmath.%s", b.fn->name);
    case B_MATH: return arena_printf("math.%s", b.fn->name);
    case B_CAST: return arena_printf("np.%s", b.cast->name);
    case B_CONJUGATE: return "conjugate";
    case B_CUDA: return arena_printf("%s.%s", module_name(cuda_fns[b.cuda].ns), cuda_fns[b.cuda].name);
    default:
        for (size_t i = 0; i < sizeof python_builtins / sizeof python_builtins[0]; i++)
            if (python_builtins[i].builtin == b.id)
                return python_builtins[i].name;
        return "builtin";
    }
}

const char *module_name(ModuleId mod)
{
    switch (mod) {
    case MOD_MATH: return "math";
    case MOD_CMATH: return "cmath";
    case MOD_NUMPY: return "numpy";
    case MOD_NUMBA: return "numba";
    case MOD_CUDA: return "numba.cuda";
    case MOD_CUDA_ATOMIC: return "numba.cuda.atomic";
    case MOD_CUDA_SHARED: return "numba.cuda.shared";
    case MOD_CUDA_LOCAL: return "numba.cuda.local";
    case MOD_CUDA_TID: return "numba.cuda.threadIdx";
    case MOD_CUDA_BID: return "numba.cuda.blockIdx";
    case MOD_CUDA_BDIM: return "numba.cuda.blockDim";
    case MOD_CUDA_GDIM: return "numba.cuda.gridDim";
    }
    return "?";
}

static void set_const(Sym *out, const char *attr, Loc loc, double v)
{
    out->kind = SYM_CONST;
    out->name = attr;
    out->loc = loc;
    out->value.type = ty_scalar(TY_FLOAT64);
    out->value.weak = true;           /* math.pi is a Python float */
    out->value.f = v;
}

static bool set_builtin(Sym *out, const char *attr, Loc loc, BuiltinRef b)
{
    out->kind = SYM_BUILTIN;
    out->name = attr;
    out->loc = loc;
    out->builtin = b;
    return true;
}

static BuiltinRef cast_to(Type *t)
{
    return (BuiltinRef){.id = B_CAST, .cast = t};
}

static BuiltinRef math_fn(Builtin table, int row)
{
    return (BuiltinRef){.id = table, .fn = table == B_CMATH ? &cmath_fns[row] : &math_fns[row]};
}

/* NumPy names usable on scalars: dtype constructors, constants and the
 * ufuncs that have a math equivalent (np.sqrt(x) on a scalar is math.sqrt). */
static bool numpy_attr(const char *attr, Loc loc, Sym *out)
{
    Type *t = ty_by_name(attr);
    if (t && strcmp(attr, "bool") != 0 && strcmp(attr, "float_") != 0)
        return set_builtin(out, attr, loc, cast_to(t));
    if (strcmp(attr, "bool_") == 0)
        return set_builtin(out, attr, loc, cast_to(ty_scalar(TY_BOOL)));
    double v;
    if ((strcmp(attr, "pi") == 0 || strcmp(attr, "e") == 0 || strcmp(attr, "inf") == 0
         || strcmp(attr, "nan") == 0) && find_const(attr, &v)) {
        set_const(out, attr, loc, v);
        return true;
    }
    static const struct { const char *np, *math; } ufuncs[] = {
        {"sqrt", "sqrt"}, {"exp", "exp"}, {"log", "log"}, {"log10", "log10"},
        {"log1p", "log1p"}, {"log2", "log2"}, {"expm1", "expm1"}, {"exp2", "exp2"},
        {"sin", "sin"}, {"cos", "cos"}, {"tan", "tan"}, {"arcsin", "asin"},
        {"arccos", "acos"}, {"arctan", "atan"}, {"arctan2", "atan2"}, {"sinh", "sinh"},
        {"cosh", "cosh"}, {"tanh", "tanh"}, {"arcsinh", "asinh"}, {"arccosh", "acosh"},
        {"arctanh", "atanh"}, {"hypot", "hypot"}, {"floor", "floor"}, {"ceil", "ceil"},
        {"trunc", "trunc"}, {"fabs", "fabs"}, {"copysign", "copysign"}, {"fmod", "fmod"},
        {"power", "pow"}, {"isnan", "isnan"}, {"isinf", "isinf"}, {"isfinite", "isfinite"},
        {"degrees", "degrees"}, {"radians", "radians"}, {"deg2rad", "radians"},
        {"rad2deg", "degrees"},
    };
    for (size_t i = 0; i < sizeof ufuncs / sizeof ufuncs[0]; i++)
        if (strcmp(ufuncs[i].np, attr) == 0) {
            int k = find_fn(math_fns, num_math_fns, ufuncs[i].math);
            if (k >= 0)
                return set_builtin(out, attr, loc, math_fn(B_MATH, k));
        }
    if (strcmp(attr, "abs") == 0 || strcmp(attr, "absolute") == 0)
        return set_builtin(out, attr, loc, (BuiltinRef){.id = B_ABS});
    return false;
}

const CudaFnInfo cuda_fns[] = {
#define X(id, name, ns, min, max) [id] = {name, ns, min, max},
    CUDA_FNS(X)
#undef X
};

static bool set_module(Sym *out, const char *attr, Loc loc, ModuleId id)
{
    out->kind = SYM_MODULE;
    out->name = attr;
    out->loc = loc;
    out->module = id;
    return true;
}

/* numba.cuda's names: the namespaces in it, and what kernels use. */
static bool cuda_attr(ModuleId mod, const char *attr, Loc loc, Sym *out)
{
    static const struct { const char *name; ModuleId id; } spaces[] = {
        {"atomic", MOD_CUDA_ATOMIC}, {"shared", MOD_CUDA_SHARED}, {"local", MOD_CUDA_LOCAL},
        {"threadIdx", MOD_CUDA_TID}, {"blockIdx", MOD_CUDA_BID}, {"blockDim", MOD_CUDA_BDIM},
        {"gridDim", MOD_CUDA_GDIM},
    };
    if (mod == MOD_CUDA)
        for (size_t i = 0; i < sizeof spaces / sizeof spaces[0]; i++)
            if (strcmp(spaces[i].name, attr) == 0)
                return set_module(out, attr, loc, spaces[i].id);
    for (int k = 0; k < NUM_CUDA_FNS; k++)
        if (cuda_fns[k].ns == mod && strcmp(cuda_fns[k].name, attr) == 0)
            return set_builtin(out, attr, loc, (BuiltinRef){.id = B_CUDA, .cuda = (CudaFn)k});
    return false;
}

bool module_attr(ModuleId mod, const char *attr, Loc loc, Sym *out)
{
    memset(out, 0, sizeof *out);
    double v;
    int k;
    switch (mod) {
    case MOD_MATH:
        if ((k = find_fn(math_fns, num_math_fns, attr)) >= 0)
            return set_builtin(out, attr, loc, math_fn(B_MATH, k));
        if (find_const(attr, &v)) {
            set_const(out, attr, loc, v);
            return true;
        }
        return false;
    case MOD_CMATH:
        if ((k = find_fn(cmath_fns, num_cmath_fns, attr)) >= 0)
            return set_builtin(out, attr, loc, math_fn(B_CMATH, k));
        if (find_const(attr, &v)) {
            set_const(out, attr, loc, v);
            return true;
        }
        for (size_t i = 0; i < sizeof cmath_consts / sizeof cmath_consts[0]; i++)
            if (strcmp(cmath_consts[i].name, attr) == 0) {
                set_const(out, attr, loc, 0);
                out->value.type = ty_scalar(TY_COMPLEX128);
                out->value.c[0] = cmath_consts[i].re;
                out->value.c[1] = cmath_consts[i].im;
                return true;
            }
        return false;
    case MOD_NUMPY:
        return numpy_attr(attr, loc, out);
    case MOD_NUMBA: {
        static const struct { const char *name; DecoratorId id; } decs[] = {
            {"vectorize", DEC_VECTORIZE}, {"guvectorize", DEC_GUVECTORIZE},
            {"jit", DEC_JIT}, {"njit", DEC_NJIT},
        };
        for (size_t i = 0; i < sizeof decs / sizeof decs[0]; i++)
            if (strcmp(decs[i].name, attr) == 0) {
                out->kind = SYM_DECORATOR;
                out->name = attr;
                out->loc = loc;
                out->decorator = decs[i].id;
                return true;
            }
        if (strcmp(attr, "cuda") == 0) {
            out->kind = SYM_MODULE;
            out->name = attr;
            out->loc = loc;
            out->module = MOD_CUDA;
            return true;
        }
        Type *t = ty_by_name(attr);
        if (t)
            return set_builtin(out, attr, loc, cast_to(t));
        return false;
    }
    case MOD_CUDA:
        if (strcmp(attr, "jit") == 0) {
            out->kind = SYM_DECORATOR;
            out->name = attr;
            out->loc = loc;
            out->decorator = DEC_CUDA_JIT;
            return true;
        }
        if (strcmp(attr, "vectorize") == 0) {   /* numba-cuda's alias */
            out->kind = SYM_DECORATOR;
            out->name = attr;
            out->loc = loc;
            out->decorator = DEC_VECTORIZE;
            return true;
        }
        return cuda_attr(mod, attr, loc, out);
    case MOD_CUDA_ATOMIC:
    case MOD_CUDA_SHARED:
    case MOD_CUDA_LOCAL:
    case MOD_CUDA_TID:
    case MOD_CUDA_BID:
    case MOD_CUDA_BDIM:
    case MOD_CUDA_GDIM:
        return cuda_attr(mod, attr, loc, out);
    }
    return false;
}
