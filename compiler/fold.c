/* fold.c - module-level constants, evaluated at compile time as Numba
 * freezes globals: SQRT_2PI = np.float32((2 * math.pi) ** 0.5).
 *
 * Values follow the kernel typing rules (ints in int64, floats in double,
 * float32 values rounded to float) and the runtime semantics of the
 * generated code, so a folded constant equals what a kernel would compute. */
#include "ufnc.h"

#include <math.h>
#include <string.h>

static Value mkint(int64_t i) { Value v = {.type = ty_scalar(TY_INT64)}; v.i = i; return v; }
static Value mkuint(uint64_t u) { Value v = {.type = ty_scalar(TY_UINT64)}; v.u = u; return v; }
static Value mkfloat(double f) { Value v = {.type = ty_scalar(TY_FLOAT64)}; v.f = f; return v; }
static Value mkbool(bool b) { Value v = {.type = ty_scalar(TY_BOOL)}; v.i = b; return v; }

static double as_double(Value v)
{
    if (ty_is_float(v.type)) return v.f;
    if (ty_is_complex(v.type)) return v.c[0];
    if (ty_is_unsigned(v.type)) return (double)v.u;
    return (double)v.i;
}

static int64_t sat_i64(double d)
{
    if (d != d) return 0;
    if (d >= 9223372036854775807.0) return INT64_MAX;
    if (d <= -9223372036854775808.0) return INT64_MIN;
    return (int64_t)d;
}

static uint64_t sat_u64(double d)
{
    if (d != d || d <= 0) return 0;
    if (d >= 18446744073709551615.0) return UINT64_MAX;
    return (uint64_t)d;
}

Value value_cast(Value v, Type *to)
{
    Value r = {.type = to};
    if (ty_is_complex(to)) {
        if (ty_is_complex(v.type)) {
            r.c[0] = v.c[0];
            r.c[1] = v.c[1];
        } else
            r.c[0] = as_double(v);
        if (to->kind == TY_COMPLEX64) {
            r.c[0] = (float)r.c[0];
            r.c[1] = (float)r.c[1];
        }
        return r;
    }
    if (ty_is_float(to)) {
        r.f = as_double(v);
        if (to->kind == TY_FLOAT32)
            r.f = (float)r.f;
        return r;
    }
    if (ty_is_bool(to)) {
        r.i = ty_is_complex(v.type) ? (v.c[0] != 0 || v.c[1] != 0) : as_double(v) != 0;
        if (ty_is_int(v.type))
            r.i = ty_is_unsigned(v.type) ? v.u != 0 : v.i != 0;
        return r;
    }
    /* integers: from float saturate; from int wrap to the width */
    uint64_t bits;
    if (ty_is_float(v.type) || ty_is_complex(v.type)) {
        double d = as_double(v);
        if (ty_is_unsigned(to)) {
            double max = to->kind == TY_UINT64 ? 18446744073709551615.0 : ldexp(1, ty_bits(to)) - 1;
            uint64_t u = sat_u64(d);
            r.u = d >= max ? (uint64_t)(to->kind == TY_UINT64 ? UINT64_MAX : (uint64_t)max) : u;
            return r;
        }
        double max = ldexp(1, ty_bits(to) - 1) - 1, min = -ldexp(1, ty_bits(to) - 1);
        int64_t i = sat_i64(d);
        if (to->kind != TY_INT64) {
            if (d != d) i = 0;
            else if (d >= max) i = (int64_t)max;
            else if (d <= min) i = (int64_t)min;
        }
        r.i = i;
        return r;
    }
    bits = ty_is_unsigned(v.type) ? v.u : (uint64_t)v.i;
    int w = ty_bits(to);
    if (w < 64)
        bits &= ((uint64_t)1 << w) - 1;
    if (ty_is_unsigned(to))
        r.u = bits;
    else if (w < 64 && (bits >> (w - 1)) & 1)
        r.i = (int64_t)(bits | ~(((uint64_t)1 << w) - 1));
    else
        r.i = (int64_t)bits;
    return r;
}

typedef struct Folder {
    NameResolver resolve;
    void *ctx;
    bool report;
} Folder;

static bool fold(Folder *f, const Node *e, Value *out);

static bool not_const(Folder *f, const Node *e, const char *why)
{
    if (f->report)
        diag_error(e->loc, "module-level value is not a constant expression: %s", why);
    return false;
}

static const char *describe_kind(NodeKind k)
{
    switch (k) {
    case N_STR: return "a string";
    case N_TUPLE: return "a tuple";
    case N_LIST: return "a list";
    case N_COMPARE: return "a comparison";
    case N_BOOLOP: return "'and' or 'or'";
    case N_IFEXP: return "a conditional expression";
    case N_SUBSCRIPT: return "indexing";
    case N_NONE: return "None";
    default: return arena_printf("a %s", node_kind_names[k]);
    }
}

static bool fold_unary(Folder *f, const Node *e, Value *out)
{
    Value a;
    if (!fold(f, e->unary.operand, &a))
        return false;
    switch (e->unary.op) {
    case OP_NOT:
        *out = mkbool(!value_cast(a, ty_scalar(TY_BOOL)).i);
        return true;
    case OP_POS:
    case OP_NEG: {
        bool neg = e->unary.op == OP_NEG;
        if (ty_is_complex(a.type)) {
            *out = a;
            if (neg) { out->c[0] = -a.c[0]; out->c[1] = -a.c[1]; }
        } else if (ty_is_float(a.type)) {
            *out = a;
            if (neg) out->f = -a.f;
        } else if (ty_is_unsigned(a.type))
            *out = mkuint(neg ? 0 - a.u : a.u);
        else
            *out = mkint(neg ? (int64_t)(0 - (uint64_t)a.i) : a.i);
        return true;
    }
    case OP_INVERT:
        if (!ty_is_int(a.type) && !ty_is_bool(a.type))
            return not_const(f, e, "'~' needs an integer");
        *out = ty_is_unsigned(a.type) ? mkuint(~a.u) : mkint(~a.i);
        return true;
    default:
        return not_const(f, e, arena_printf("operator '%s' is not supported here", op_names[e->unary.op]));
    }
}

static int64_t ipow(int64_t b, int64_t x)
{
    if (x < 0)
        return b == 1 ? 1 : b == -1 ? (x & 1 ? -1 : 1) : b == 0 ? INT64_MIN : 0;
    uint64_t r = 1, base = (uint64_t)b;
    while (x) {
        if (x & 1) r *= base;
        base *= base;
        x >>= 1;
    }
    return (int64_t)r;
}

static double py_fmod(double a, double b)
{
    double m = fmod(a, b);
    if (b == 0 || a != a || b != b) return NAN;
    if (m != 0 && ((b < 0) != (m < 0))) m += b;
    if (m == 0) m = copysign(0.0, b);
    return m;
}

static bool fold_binary(Folder *f, const Node *e, Value *out)
{
    Value a, b;
    if (!fold(f, e->binary.lhs, &a) || !fold(f, e->binary.rhs, &b))
        return false;
    if (ty_is_complex(a.type) || ty_is_complex(b.type))
        return not_const(f, e, "complex arithmetic is not supported in module constants");
    Type *t = ty_arith(a.type, b.type);
    Op op = e->binary.op;
    if (op == OP_DIV && !ty_is_float(t))
        t = ty_scalar(TY_FLOAT64);
    if (op == OP_POW && ty_is_float(a.type) && !ty_is_float(b.type))
        t = a.type;
    if (ty_is_float(t)) {
        double x = as_double(a), y = as_double(b), r;
        switch (op) {
        case OP_ADD: r = x + y; break;
        case OP_SUB: r = x - y; break;
        case OP_MUL: r = x * y; break;
        case OP_DIV: r = x / y; break;
        case OP_POW: r = pow(x, y); break;
        case OP_MOD: r = py_fmod(x, y); break;
        case OP_FLOORDIV: r = y == 0 ? x / y : floor((x - py_fmod(x, y)) / y); break;
        default: return not_const(f, e, arena_printf("operator '%s' needs integers", op_names[op]));
        }
        Value v = {.type = t};
        v.f = t->kind == TY_FLOAT32 ? (float)r : r;
        *out = v;
        return true;
    }
    if (ty_is_unsigned(t)) {
        uint64_t x = ty_is_unsigned(a.type) ? a.u : (uint64_t)a.i;
        uint64_t y = ty_is_unsigned(b.type) ? b.u : (uint64_t)b.i, r;
        switch (op) {
        case OP_ADD: r = x + y; break;
        case OP_SUB: r = x - y; break;
        case OP_MUL: r = x * y; break;
        case OP_FLOORDIV: r = y ? x / y : 0; break;
        case OP_MOD: r = y ? x % y : 0; break;
        case OP_POW: r = (uint64_t)ipow((int64_t)x, (int64_t)y); break;
        case OP_LSHIFT: r = y >= 64 ? 0 : x << y; break;
        case OP_RSHIFT: r = y >= 64 ? 0 : x >> y; break;
        case OP_BITAND: r = x & y; break;
        case OP_BITOR: r = x | y; break;
        case OP_BITXOR: r = x ^ y; break;
        default: return not_const(f, e, arena_printf("operator '%s' is not supported here", op_names[op]));
        }
        *out = mkuint(r);
        return true;
    }
    int64_t x = value_cast(a, ty_scalar(TY_INT64)).i, y = value_cast(b, ty_scalar(TY_INT64)).i, r;
    uint64_t ux = (uint64_t)x, uy = (uint64_t)y;
    switch (op) {
    case OP_ADD: r = (int64_t)(ux + uy); break;
    case OP_SUB: r = (int64_t)(ux - uy); break;
    case OP_MUL: r = (int64_t)(ux * uy); break;
    case OP_FLOORDIV:
        if (y == 0) r = 0;
        else if (x == INT64_MIN && y == -1) r = INT64_MIN;
        else { r = x / y; if ((x % y != 0) && ((x < 0) != (y < 0))) r--; }
        break;
    case OP_MOD:
        if (y == 0 || (x == INT64_MIN && y == -1)) r = 0;
        else { r = x % y; if (r != 0 && ((r < 0) != (y < 0))) r += y; }
        break;
    case OP_POW: r = ipow(x, y); break;
    case OP_LSHIFT: r = (y < 0 || y >= 64) ? 0 : (int64_t)(ux << y); break;
    case OP_RSHIFT: r = (y < 0 || y >= 64) ? (x < 0 ? -1 : 0) : x >> y; break;
    case OP_BITAND: r = x & y; break;
    case OP_BITOR: r = x | y; break;
    case OP_BITXOR: r = x ^ y; break;
    default: return not_const(f, e, arena_printf("operator '%s' is not supported here", op_names[op]));
    }
    *out = mkint(r);
    return true;
}

/* Double-precision libm for folding math.* calls. */
static const struct { const char *name; double (*fn1)(double); double (*fn2)(double, double); } libm[] = {
    {"sqrt", sqrt, NULL}, {"exp", exp, NULL}, {"log", log, NULL}, {"log10", log10, NULL},
    {"log2", log2, NULL}, {"log1p", log1p, NULL}, {"expm1", expm1, NULL}, {"sin", sin, NULL},
    {"cos", cos, NULL}, {"tan", tan, NULL}, {"asin", asin, NULL}, {"acos", acos, NULL},
    {"atan", atan, NULL}, {"sinh", sinh, NULL}, {"cosh", cosh, NULL}, {"tanh", tanh, NULL},
    {"asinh", asinh, NULL}, {"acosh", acosh, NULL}, {"atanh", atanh, NULL}, {"fabs", fabs, NULL},
    {"erf", erf, NULL}, {"erfc", erfc, NULL}, {"gamma", tgamma, NULL}, {"lgamma", lgamma, NULL},
    {"floor", floor, NULL}, {"ceil", ceil, NULL}, {"trunc", trunc, NULL},
    {"atan2", NULL, atan2}, {"pow", NULL, pow}, {"hypot", NULL, hypot}, {"fmod", NULL, fmod},
    {"copysign", NULL, copysign},
};

static bool fold_call(Folder *f, const Node *e, Value *out)
{
    Sym s;
    if (!f->resolve(f->ctx, e->call.func, &s) || s.kind != SYM_BUILTIN) {
        const char *name = dotted_name(e->call.func);
        return not_const(f, e, arena_printf("%s%s is not a number, a cast such as np.float32(x) or a math function",
                                            name ? name : "the callee", name ? "()" : ""));
    }
    if (e->call.kwargs.len)
        return not_const(f, e, "keyword arguments are not supported here");
    int n = e->call.args.len;
    Value a[2];
    if (n > 2)
        return not_const(f, e, arena_printf("%s() takes at most 2 arguments here", dotted_name(e->call.func) ? dotted_name(e->call.func) : "the function"));
    for (int i = 0; i < n; i++)
        if (!fold(f, e->call.args.items[i], &a[i]))
            return false;
    int b = s.builtin;
    if (b >= B_CAST && b < B_MATH && n == 1) {
        *out = value_cast(a[0], ty_scalar((TypeKind)(b - B_CAST)));
        return true;
    }
    if ((b == B_INT || b == B_FLOAT || b == B_BOOL) && n == 1) {
        Type *t = ty_scalar(b == B_INT ? TY_INT64 : b == B_FLOAT ? TY_FLOAT64 : TY_BOOL);
        *out = value_cast(a[0], t);
        return true;
    }
    if (b == B_ABS && n == 1) {
        *out = a[0];
        if (ty_is_float(a[0].type)) out->f = fabs(a[0].f);
        else if (ty_is_signed(a[0].type) && a[0].i < 0) out->i = (int64_t)(0 - (uint64_t)a[0].i);
        return true;
    }
    if (b >= B_MATH && b < B_CMATH) {
        const MathFn *m = &math_fns[b - B_MATH];
        for (size_t i = 0; i < sizeof libm / sizeof libm[0]; i++) {
            if (strcmp(libm[i].name, m->name) != 0 || n != m->nargs)
                continue;
            bool f32 = true;
            for (int k = 0; k < n; k++)
                f32 = f32 && a[k].type->kind == TY_FLOAT32;
            double r = n == 1 ? libm[i].fn1(as_double(a[0])) : libm[i].fn2(as_double(a[0]), as_double(a[1]));
            Value v = {.type = ty_scalar(f32 ? TY_FLOAT32 : TY_FLOAT64)};
            v.f = f32 ? (float)r : r;
            *out = v;
            return true;
        }
    }
    return not_const(f, e, arena_printf("%s() cannot be evaluated at compile time", builtin_name(b)));
}

static bool fold(Folder *f, const Node *e, Value *out)
{
    switch (e->kind) {
    case N_INT:
        if (e->intlit.too_big)
            return not_const(f, e, "integer literal too large");
        *out = e->intlit.value > INT64_MAX ? mkuint(e->intlit.value) : mkint((int64_t)e->intlit.value);
        return true;
    case N_FLOAT:
        *out = mkfloat(e->floatlit.value);
        return true;
    case N_IMAG: {
        Value v = {.type = ty_scalar(TY_COMPLEX128)};
        v.c[1] = e->floatlit.value;
        *out = v;
        return true;
    }
    case N_TRUE:
    case N_FALSE:
        *out = mkbool(e->kind == N_TRUE);
        return true;
    case N_NAME:
    case N_ATTR: {
        Sym s;
        const char *name = dotted_name(e);
        if (!f->resolve(f->ctx, e, &s))
            return not_const(f, e, arena_printf("name '%s' is not defined (constants must be defined before use)",
                                                name ? name : "?"));
        if (s.kind != SYM_CONST)
            return not_const(f, e, arena_printf("'%s' is not a number", name ? name : "?"));
        *out = s.value;
        return true;
    }
    case N_UNARY:
        return fold_unary(f, e, out);
    case N_BINARY:
        return fold_binary(f, e, out);
    case N_CALL:
        return fold_call(f, e, out);
    case N_CONST:
        out->type = e->type;
        memcpy(&out->i, &e->konst.v, sizeof e->konst.v);
        return true;
    default:
        return not_const(f, e, arena_printf("%s is not supported in a module constant", describe_kind(e->kind)));
    }
}

bool fold_const(const Node *e, NameResolver resolve, void *ctx, bool report, Value *out)
{
    Folder f = {resolve, ctx, report};
    return fold(&f, e, out);
}
