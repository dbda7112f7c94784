/* fold.c - module-level constants, evaluated at compile time as Python
 * evaluates them at import, then frozen as Numba freezes globals:
 * SQRT_2PI = np.float32((2 * math.pi) ** 0.5).
 *
 * Python runs module-level code, not Numba, so the rules are Python's and
 * NumPy's (1.x), not the kernel typing rules:
 *   - Python numbers ("weak" values): ints are exact (here to 127 bits),
 *     int / int is a float, 2 ** -1 is 0.5, division by zero and math
 *     domain errors are errors (Python would raise at import), and math
 *     functions return Python floats (math.floor returns an int);
 *   - NumPy scalars (np.float32(x), ...): arithmetic in np.promote_types of
 *     the operands, a Python int counting as int64 and a float as float64
 *     (NumPy 1.x: np.float32(1) / 255 is a float64), ints wrapping, int / int
 *     a float64, x // 0 and x % 0 zero, float division by zero inf or nan;
 *   - the frozen value: a Python int is int64 (uint64 above INT64_MAX, an
 *     error beyond), a Python float float64, a NumPy scalar its own type.
 * value_cast, below, is the generated code's conversion, used by the
 * checker for literals and by np.float32(x) and friends here. */
#include "ufnc.h"

#include <math.h>
#include <string.h>


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

/* ---- folding --------------------------------------------------------------------------- */

typedef __int128 Big;
#define BIG_MAX ((Big)(((unsigned __int128)1 << 127) - 1))
/* floats at least this large do not convert to Big (2**127 is 1.70141e38) */
#define BIG_FLOAT_LIMIT 1.7e38
#define BIG_MIN (-BIG_MAX - 1)

/* A value being folded: a NumPy scalar (a Value), or a Python number, whose
 * ints are kept exactly in `big` (type int64 or bool) until frozen. */
typedef struct FVal {
    Value v;                 /* v.weak: a Python number */
    Big big;                 /* Python ints and bools */
} FVal;

typedef struct Folder {
    NameResolver resolve;
    void *ctx;
    bool report;
} Folder;

static bool fold(Folder *f, const Node *e, FVal *out);

static bool not_const(Folder *f, const Node *e, const char *why)
{
    if (f->report)
        diag_error(e->loc, "module-level value is not a constant expression: %s", why);
    return false;
}

/* What Python would raise at import. */
static bool raises(Folder *f, const Node *e, const char *what)
{
    if (f->report)
        diag_error(e->loc, "%s (Python raises it when the module is imported)", what);
    return false;
}

static bool py_int(const FVal *a) { return a->v.weak && (ty_is_int(a->v.type) || ty_is_bool(a->v.type)); }

static FVal weak_int(Big b)
{
    FVal r = {.v = {.type = ty_scalar(TY_INT64), .weak = true}, .big = b};
    return r;
}

static FVal weak_bool(bool b)
{
    FVal r = {.v = {.type = ty_scalar(TY_BOOL), .weak = true}, .big = b};
    return r;
}

static FVal weak_float(double d)
{
    FVal r = {.v = {.type = ty_scalar(TY_FLOAT64), .weak = true}};
    r.v.f = d;
    return r;
}

static FVal numpy(Value v)
{
    FVal r = {.v = v};
    r.v.weak = false;
    return r;
}

/* A Value's integer as a Big. */
static Big big_of(const Value *v)
{
    return ty_is_unsigned(v->type) ? (Big)v->u : (Big)v->i;
}

static double fv_double(const FVal *a)
{
    return py_int(a) ? (double)a->big : as_double(a->v);
}

/* A Python number as the NumPy scalar NumPy 1.x makes of it in arithmetic
 * with another scalar (int64, float64, complex128, bool); false for an int
 * too large for a C long, as NumPy raises. */
static bool to_numpy(Folder *f, const Node *e, const FVal *a, Value *out)
{
    if (!a->v.weak) {
        *out = a->v;
        return true;
    }
    if (ty_is_bool(a->v.type)) {
        *out = (Value){.type = ty_scalar(TY_BOOL), .i = a->big != 0};
        return true;
    }
    if (py_int(a)) {
        if (a->big >= INT64_MIN && a->big <= INT64_MAX)
            *out = (Value){.type = ty_scalar(TY_INT64), .i = (int64_t)a->big};
        else if (a->big >= 0 && a->big <= (Big)UINT64_MAX)
            *out = (Value){.type = ty_scalar(TY_UINT64), .u = (uint64_t)a->big};
        else
            return raises(f, e, "OverflowError: Python int too large to convert to C long");
        return true;
    }
    *out = a->v;
    out->weak = false;
    return true;
}

/* ---- Python numbers ---- */

static double py_fmod(double a, double b)
{
    double m = fmod(a, b);
    if (m != 0 && ((b < 0) != (m < 0)))
        m += b;
    if (m == 0)
        m = copysign(0.0, b);
    return m;
}

static bool py_int_binary(Folder *f, const Node *e, Op op, Big x, Big y, bool bools, FVal *out)
{
    Big r;
    bool ovf = false;
    switch (op) {
    case OP_ADD: ovf = __builtin_add_overflow(x, y, &r); break;
    case OP_SUB: ovf = __builtin_sub_overflow(x, y, &r); break;
    case OP_MUL: ovf = __builtin_mul_overflow(x, y, &r); break;
    case OP_DIV:
        if (y == 0)
            return raises(f, e, "ZeroDivisionError: division by zero");
        *out = weak_float((double)x / (double)y);
        return true;
    case OP_FLOORDIV:
    case OP_MOD:
        if (y == 0)
            return raises(f, e, "ZeroDivisionError: integer division or modulo by zero");
        if (x == BIG_MIN && y == -1) {
            ovf = true;
            break;
        }
        r = x / y;
        if (x % y != 0 && ((x < 0) != (y < 0)))
            r--;
        if (op == OP_MOD)
            r = x - r * y;
        break;
    case OP_POW:
        if (y < 0) {                          /* 2 ** -1 is 0.5 */
            if (x == 0)
                return raises(f, e, "ZeroDivisionError: 0.0 cannot be raised to a negative power");
            *out = weak_float(pow((double)x, (double)y));
            return true;
        }
        r = 1;
        for (Big base = x, k = y; k && !ovf; k >>= 1) {
            if (k & 1)
                ovf = __builtin_mul_overflow(r, base, &r);
            if (k > 1 && !ovf)
                ovf = __builtin_mul_overflow(base, base, &base);
        }
        break;
    case OP_LSHIFT:
    case OP_RSHIFT:
        if (y < 0)
            return raises(f, e, "ValueError: negative shift count");
        if (op == OP_RSHIFT)
            r = y >= 127 ? (x < 0 ? -1 : 0) : x >> y;
        else if (x == 0)
            r = 0;
        else {
            ovf = y >= 126;
            /* through unsigned: shifting a negative left is undefined in C */
            r = ovf ? 0 : (Big)((unsigned __int128)x << y);
            ovf = ovf || (r >> y) != x;
        }
        break;
    case OP_BITAND: r = x & y; break;
    case OP_BITOR: r = x | y; break;
    case OP_BITXOR: r = x ^ y; break;
    default:
        return not_const(f, e, arena_printf("operator '%s' is not supported here", op_names[op]));
    }
    if (ovf)
        return not_const(f, e, "the integer is too large (Numba types module-level integers as int64 or uint64)");
    *out = bools && (op == OP_BITAND || op == OP_BITOR || op == OP_BITXOR) ? weak_bool(r != 0) : weak_int(r);
    return true;
}

static bool py_float_binary(Folder *f, const Node *e, Op op, double x, double y, FVal *out)
{
    double r;
    switch (op) {
    case OP_ADD: r = x + y; break;
    case OP_SUB: r = x - y; break;
    case OP_MUL: r = x * y; break;
    case OP_DIV:
    case OP_FLOORDIV:
    case OP_MOD:
        if (y == 0)
            return raises(f, e, "ZeroDivisionError: float division by zero");
        r = op == OP_DIV ? x / y : op == OP_MOD ? py_fmod(x, y) : floor((x - py_fmod(x, y)) / y);
        break;
    case OP_POW:
        if (x < 0 && y != floor(y))
            return not_const(f, e, "a negative number to a fractional power is complex");
        if (x == 0 && y < 0)
            return raises(f, e, "ZeroDivisionError: 0.0 cannot be raised to a negative power");
        r = pow(x, y);
        if (isinf(r) && isfinite(x) && isfinite(y))
            return raises(f, e, "OverflowError: (34, 'Numerical result out of range')");
        break;
    default:
        return not_const(f, e, arena_printf("operator '%s' needs integers", op_names[op]));
    }
    *out = weak_float(r);
    return true;
}

/* ---- NumPy scalars ---- */

static bool numpy_binary(Folder *f, const Node *e, Op op, Value a, Value b, FVal *out)
{
    if (ty_is_complex(a.type) || ty_is_complex(b.type))
        return not_const(f, e, "complex arithmetic is not supported in module constants");
    Type *t = ty_promote_numpy(a.type, b.type);
    if (ty_is_bool(t))
        return not_const(f, e, "arithmetic on two np.bool_ values is not supported here");
    if (op == OP_DIV && !ty_is_float(t))
        t = ty_scalar(TY_FLOAT64);              /* true division of ints */
    if (ty_is_float(t)) {
        double x = as_double(a), y = as_double(b), r;
        switch (op) {
        case OP_ADD: r = x + y; break;
        case OP_SUB: r = x - y; break;
        case OP_MUL: r = x * y; break;
        case OP_DIV: r = x / y; break;
        case OP_POW: r = pow(x, y); break;
        case OP_MOD: r = y == 0 ? NAN : py_fmod(x, y); break;
        case OP_FLOORDIV: r = y == 0 ? x / y : floor((x - py_fmod(x, y)) / y); break;
        default: return not_const(f, e, arena_printf("operator '%s' needs integers", op_names[op]));
        }
        Value v = {.type = t};
        v.f = t->kind == TY_FLOAT32 ? (float)r : r;
        *out = numpy(v);
        return true;
    }
    /* integers: compute on 64 bits, wrap to t */
    uint64_t x = ty_is_unsigned(a.type) ? a.u : (uint64_t)a.i, y = ty_is_unsigned(b.type) ? b.u : (uint64_t)b.i;
    bool sgn = ty_is_signed(t);
    int64_t sx = (int64_t)x, sy = (int64_t)y;
    uint64_t r;
    switch (op) {
    case OP_ADD: r = x + y; break;
    case OP_SUB: r = x - y; break;
    case OP_MUL: r = x * y; break;
    case OP_FLOORDIV:
    case OP_MOD:
        if (y == 0) {
            r = 0;                              /* NumPy: 0, with a warning */
            break;
        }
        if (!sgn) {
            r = op == OP_FLOORDIV ? x / y : x % y;
            break;
        }
        if (sx == INT64_MIN && sy == -1) {
            r = op == OP_FLOORDIV ? x : 0;
            break;
        }
        {
            int64_t q = sx / sy;
            if (sx % sy != 0 && ((sx < 0) != (sy < 0)))
                q--;
            r = op == OP_FLOORDIV ? (uint64_t)q : (uint64_t)(sx - q * sy);
        }
        break;
    case OP_POW:
        if (sgn && sy < 0)
            return raises(f, e, "ValueError: Integers to negative integer powers are not allowed");
        r = 1;
        for (uint64_t base = x, k = y; k; k >>= 1) {
            if (k & 1)
                r *= base;
            base *= base;
        }
        break;
    case OP_LSHIFT: r = y >= 64 ? 0 : x << y; break;
    case OP_RSHIFT: r = y >= 64 ? (sgn && sx < 0 ? UINT64_MAX : 0) : sgn ? (uint64_t)(sx >> y) : x >> y; break;
    case OP_BITAND: r = x & y; break;
    case OP_BITOR: r = x | y; break;
    case OP_BITXOR: r = x ^ y; break;
    default: return not_const(f, e, arena_printf("operator '%s' is not supported here", op_names[op]));
    }
    Value w = {.type = sgn ? ty_scalar(TY_INT64) : ty_scalar(TY_UINT64)};
    w.u = r;
    *out = numpy(value_cast(w, t));
    return true;
}

/* ---- the expression kinds ---- */

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

static bool truthy(const FVal *a)
{
    if (py_int(a))
        return a->big != 0;
    return value_cast(a->v, ty_scalar(TY_BOOL)).i != 0;
}

static bool fold_unary(Folder *f, const Node *e, FVal *out)
{
    FVal a;
    if (!fold(f, e->unary.operand, &a))
        return false;
    Op op = e->unary.op;
    if (op == OP_NOT) {
        *out = weak_bool(!truthy(&a));
        return true;
    }
    if (py_int(&a)) {                           /* -True is -1: bools count as ints */
        if (op == OP_INVERT)
            *out = weak_int(-a.big - 1);
        else
            *out = weak_int(op == OP_NEG ? -a.big : a.big);
        return true;
    }
    if (ty_is_complex(a.v.type)) {
        if (op == OP_INVERT)
            return not_const(f, e, "'~' needs an integer");
        *out = a;
        if (op == OP_NEG) {
            out->v.c[0] = -a.v.c[0];
            out->v.c[1] = -a.v.c[1];
        }
        return true;
    }
    if (ty_is_float(a.v.type)) {
        if (op == OP_INVERT)
            return not_const(f, e, "'~' needs an integer");
        *out = a;
        if (op == OP_NEG)
            out->v.f = -a.v.f;
        return true;
    }
    if (ty_is_bool(a.v.type))                    /* an np.bool_ */
        return not_const(f, e, arena_printf("operator '%s' on an np.bool_ is not supported here", op_names[op]));
    /* a NumPy int: in its own type, wrapping */
    Value w = {.type = ty_scalar(ty_is_unsigned(a.v.type) ? TY_UINT64 : TY_INT64)};
    uint64_t x = ty_is_unsigned(a.v.type) ? a.v.u : (uint64_t)a.v.i;
    w.u = op == OP_NEG ? 0 - x : op == OP_INVERT ? ~x : x;
    *out = numpy(value_cast(w, a.v.type));
    return true;
}

static bool fold_binary(Folder *f, const Node *e, FVal *out)
{
    FVal a, b;
    if (!fold(f, e->binary.lhs, &a) || !fold(f, e->binary.rhs, &b))
        return false;
    Op op = e->binary.op;
    if (op == OP_MATMUL)
        return not_const(f, e, "operator '@' is not supported here");
    if (a.v.weak && b.v.weak) {
        if (ty_is_complex(a.v.type) || ty_is_complex(b.v.type))
            return not_const(f, e, "complex arithmetic is not supported in module constants");
        if (py_int(&a) && py_int(&b))
            return py_int_binary(f, e, op, a.big, b.big, ty_is_bool(a.v.type) && ty_is_bool(b.v.type), out);
        return py_float_binary(f, e, op, fv_double(&a), fv_double(&b), out);
    }
    Value x, y;
    if (!to_numpy(f, e, &a, &x) || !to_numpy(f, e, &b, &y))
        return false;
    return numpy_binary(f, e, op, x, y, out);
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

/* Is the callee an attribute of numpy (np.sqrt), rather than of math? */
static bool numpy_callee(Folder *f, const Node *fn)
{
    Sym base;
    return fn->kind == N_ATTR && f->resolve(f->ctx, fn->attr.value, &base) && base.kind == SYM_MODULE
           && base.module == MOD_NUMPY;
}

static bool fold_math(Folder *f, const Node *e, BuiltinRef b, FVal *a, int n, FVal *out)
{
    const MathFn *m = b.fn;
    if (!math_row(B_MATH, m->name, n))
        return not_const(f, e, arena_printf("%s() takes %d argument%s", builtin_name(b), m->nargs,
                                            m->nargs == 1 ? "" : "s"));
    double x[2];
    bool f32 = numpy_callee(f, e->call.func);   /* np.sqrt(np.float32(2)) stays float32 */
    for (int k = 0; k < n; k++) {
        if (ty_is_complex(a[k].v.type))
            return not_const(f, e, arena_printf("%s() of a complex number", builtin_name(b)));
        x[k] = fv_double(&a[k]);
        f32 = f32 && !a[k].v.weak && a[k].v.type->kind == TY_FLOAT32;
    }
    for (size_t i = 0; i < sizeof libm / sizeof libm[0]; i++) {
        if (strcmp(libm[i].name, m->name) != 0 || (n == 1) != (libm[i].fn1 != NULL))
            continue;
        double r = n == 1 ? libm[i].fn1(x[0]) : libm[i].fn2(x[0], x[1]);
        bool rounding = !strcmp(m->name, "floor") || !strcmp(m->name, "ceil") || !strcmp(m->name, "trunc");
        if (numpy_callee(f, e->call.func)) {
            Value v = {.type = ty_scalar(f32 ? TY_FLOAT32 : TY_FLOAT64)};
            v.f = f32 ? (float)r : r;
            *out = numpy(v);
            return true;
        }
        /* Python's math module */
        bool finite = isfinite(x[0]) && (n == 1 || isfinite(x[1]));
        if (isnan(r) && !isnan(x[0]) && (n == 1 || !isnan(x[1])))
            return raises(f, e, "ValueError: math domain error");
        if (isinf(r) && finite) {
            /* a pole (log(0), gamma(0), pow(0, -1)) or an overflow (exp(1000)) */
            static const char *const poles[] = {"log", "log2", "log10", "log1p", "atanh", "gamma", "lgamma", "pow"};
            bool pole = false;
            for (size_t k = 0; k < sizeof poles / sizeof poles[0]; k++)
                pole = pole || strcmp(poles[k], m->name) == 0;
            pole = pole && !(strcmp(m->name, "pow") == 0 && x[0] != 0);
            return raises(f, e, pole ? "ValueError: math domain error" : "OverflowError: math range error");
        }
        if (rounding) {                          /* Python 3: math.floor returns an int */
            if (!isfinite(r))
                return raises(f, e, "OverflowError: cannot convert float infinity to integer");
            if (fabs(r) >= BIG_FLOAT_LIMIT)      /* Python has the int; no C type holds it */
                return not_const(f, e, "the integer is too large (Numba types module-level integers as int64 or uint64)");
            *out = weak_int((Big)r);
            return true;
        }
        *out = weak_float(r);
        return true;
    }
    return not_const(f, e, arena_printf("%s() cannot be evaluated at compile time", builtin_name(b)));
}

static bool fold_call(Folder *f, const Node *e, FVal *out)
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
    FVal a[2];
    if (n > 2)
        return not_const(f, e, arena_printf("%s() takes at most 2 arguments here", builtin_name(s.builtin)));
    for (int i = 0; i < n; i++)
        if (!fold(f, e->call.args.items[i], &a[i]))
            return false;
    BuiltinRef b = s.builtin;
    if (b.id == B_CAST && n == 1) {
        /* np.float32(x): the generated code's conversion (ints wrap as NumPy
         * does; floats saturate where NumPy leaves it undefined) */
        Value v;
        if (!to_numpy(f, e, &a[0], &v))
            return false;
        *out = numpy(value_cast(v, b.cast));
        return true;
    }
    if (b.id == B_INT && n == 1) {
        if (py_int(&a[0]) || ty_is_int(a[0].v.type) || ty_is_bool(a[0].v.type)) {
            *out = weak_int(py_int(&a[0]) ? a[0].big : big_of(&a[0].v));
            return true;
        }
        double d = fv_double(&a[0]);
        if (ty_is_complex(a[0].v.type))
            return raises(f, e, "TypeError: can't convert complex to int");
        if (!isfinite(d))
            return raises(f, e, isnan(d) ? "ValueError: cannot convert float NaN to integer"
                                         : "OverflowError: cannot convert float infinity to integer");
        if (fabs(d) >= BIG_FLOAT_LIMIT)
            return not_const(f, e, "the integer is too large (Numba types module-level integers as int64 or uint64)");
        *out = weak_int((Big)d);
        return true;
    }
    if (b.id == B_FLOAT && n == 1) {
        if (ty_is_complex(a[0].v.type))
            return raises(f, e, "TypeError: can't convert complex to float");
        *out = weak_float(fv_double(&a[0]));
        return true;
    }
    if (b.id == B_BOOL && n == 1) {
        *out = weak_bool(truthy(&a[0]));
        return true;
    }
    if (b.id == B_ABS && n == 1) {
        *out = a[0];
        if (py_int(&a[0]))
            *out = weak_int(a[0].big < 0 ? -a[0].big : a[0].big);
        else if (ty_is_float(a[0].v.type))
            out->v.f = fabs(a[0].v.f);
        else if (ty_is_complex(a[0].v.type))
            return not_const(f, e, "abs() of a complex number is not supported here");
        else if (ty_is_signed(a[0].v.type) && a[0].v.i < 0) {
            /* NumPy: in the value's own type, so abs(np.int8(-128)) wraps */
            Value neg = {.type = ty_scalar(TY_INT64), .i = (int64_t)(0 - (uint64_t)a[0].v.i)};
            *out = numpy(value_cast(neg, a[0].v.type));
        }
        return true;
    }
    if (b.id == B_MATH)
        return fold_math(f, e, b, a, n, out);
    return not_const(f, e, arena_printf("%s() cannot be evaluated at compile time", builtin_name(b)));
}

static bool fold(Folder *f, const Node *e, FVal *out)
{
    switch (e->kind) {
    case N_INT:
        if (e->intlit.too_big)
            return not_const(f, e, "the integer is too large (Numba types module-level integers as int64 or uint64)");
        *out = weak_int((Big)e->intlit.value);
        return true;
    case N_FLOAT:
        *out = weak_float(e->floatlit.value);
        return true;
    case N_IMAG: {
        FVal v = {.v = {.type = ty_scalar(TY_COMPLEX128), .weak = true}};
        v.v.c[1] = e->floatlit.value;
        *out = v;
        return true;
    }
    case N_TRUE:
    case N_FALSE:
        *out = weak_bool(e->kind == N_TRUE);
        return true;
    case N_NAME:
    case N_ATTR: {
        Sym s;
        const char *name = dotted_name(e);
        if (!f->resolve(f->ctx, e, &s))
            return not_const(f, e, arena_printf("name '%s' is not defined (constants must be defined before use)",
                                                name ? name : "?"));
        if (s.kind != SYM_CONST || !s.value.type)
            return not_const(f, e, arena_printf("'%s' is not a number", name ? name : "?"));
        out->v = s.value;
        out->big = (s.value.weak && (ty_is_int(s.value.type) || ty_is_bool(s.value.type))) ? big_of(&s.value) : 0;
        if (out->big && ty_is_unsigned(s.value.type))
            out->v.type = ty_scalar(TY_INT64);   /* a Python int above INT64_MAX */
        return true;
    }
    case N_UNARY:
        return fold_unary(f, e, out);
    case N_BINARY:
        return fold_binary(f, e, out);
    case N_CALL:
        return fold_call(f, e, out);
    case N_CONST:                       /* a value the checker folded already */
        out->v = (Value){.type = e->type, .weak = e->konst.weak};
        memcpy(&out->v.i, &e->konst.v, sizeof e->konst.v);
        out->big = e->konst.weak && ty_is_int(e->type) ? big_of(&out->v) : 0;
        if (out->big && ty_is_unsigned(e->type))
            out->v.type = ty_scalar(TY_INT64);
        return true;
    default:
        return not_const(f, e, arena_printf("%s is not supported in a module constant", describe_kind(e->kind)));
    }
}

bool fold_const(const Node *e, NameResolver resolve, void *ctx, bool report, Value *out)
{
    Folder f = {resolve, ctx, report};
    FVal v;
    if (!fold(&f, e, &v))
        return false;
    /* freeze: Numba types a Python int as int64, or uint64 above INT64_MAX */
    if (py_int(&v) && !ty_is_bool(v.v.type)) {
        if (v.big >= INT64_MIN && v.big <= INT64_MAX)
            v.v = (Value){.type = ty_scalar(TY_INT64), .weak = true, .i = (int64_t)v.big};
        else if (v.big >= 0 && v.big <= (Big)UINT64_MAX)
            v.v = (Value){.type = ty_scalar(TY_UINT64), .weak = true, .u = (uint64_t)v.big};
        else
            return not_const(&f, e, "the integer is too large (Numba types module-level integers as int64 or uint64)");
    } else if (py_int(&v))
        v.v.i = v.big != 0;
    *out = v.v;
    return true;
}
