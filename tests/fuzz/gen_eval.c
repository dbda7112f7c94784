/* gen_eval.c - the reference: an interpreter of the generator's trees.
 *
 * It implements the language's documented rules directly, from the texts
 * rather than from include/ufn_math.h (which it checks):
 *   - integers compute in int64 and wrap; x // 0 == x % 0 == 0; floor
 *     division and modulo round toward -inf; INT64_MIN // -1 == INT64_MIN;
 *   - int ** int: exact by squaring, wrapping; a negative exponent gives
 *     1, +-1, INT64_MIN for a zero base, else 0 (numba-semantics.md 3.3);
 *   - << and >> by a count outside 0..63: 0, or -1 for a negative >>;
 *   - float -> int: truncate, saturate, NaN -> 0 (ufn_math.h "Rule:");
 *   - float // and %: Python's float divmod, in the operands' float type;
 *     a zero divisor gives a / b and fmod(a, b);
 *   - float ** int: square-and-multiply in the float type, 1 / r when the
 *     exponent is negative;
 *   - Python's min/max (keep the first unless the second is strictly
 *     smaller/larger), round half to even, truthiness (NaN is true).
 * Where one of these differs from what Numba's CPU target does (or leaves
 * undefined), the result is marked numba_differs, so the Numba comparison
 * skips it.
 *
 * Build it with -ffp-contract=off: a fused a*b+c would not be the answer. */
#include "gen.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A value and its taint: whether it depends on a result where Numba is
 * expected to differ, through data (a branch on it: branch_on). */
typedef struct TV {
    GVal v;
    bool t;
} TV;

typedef struct Env {
    const GenProgram *p;
    const GFunc *f;
    TV vars[48];
    GVal *arrays[48];      /* gufunc operands */
    bool *taints[48];      /* per element */
    int sizes[2];          /* the core dimensions n and m */
    bool *whole_row;       /* Numba may raise, or its code is undefined: the whole row differs */
    TV ret, ret2;
} Env;

typedef enum Flow { FLOW_NEXT, FLOW_BREAK, FLOW_CONTINUE, FLOW_RETURN } Flow;

/* ---- conversions ------------------------------------------------------------------------------ */

static double as_f64(GType t, GVal v)
{
    switch (t) {
    case G_F32: return (double)v.f32;
    case G_F64: return v.f64;
    case G_U64: return (double)(uint64_t)v.i;
    default: return (double)v.i;
    }
}

/* float -> uint64: truncate, saturate, NaN -> 0 */
static uint64_t float_to_u64(double d, bool *differs)
{
    if (d != d || d <= -1.0 || d >= 18446744073709551616.0) {
        *differs = true;
        return d >= 18446744073709551616.0 ? UINT64_MAX : 0;
    }
    return d <= 0.0 ? 0 : (uint64_t)d;
}

/* float -> an integer type of `bits` bits (signed or not): truncate,
 * saturate, NaN -> 0.  lo and hi1 are the range's ends, hi1 exclusive. */
static int64_t float_to_int(double d, double lo, double hi1, int64_t min, int64_t max, bool *differs)
{
    if (d != d) {
        *differs = true;
        return 0;
    }
    if (d <= lo - 1.0 || d >= hi1) {
        /* out of range: undefined in Numba (x86 gives INT_MIN) */
        *differs = true;
        return d >= hi1 ? max : min;
    }
    double t = trunc(d);
    if (t < lo) {          /* lo - 1 < d < lo rounds up to lo */
        return min;
    }
    return (int64_t)t;
}

static GVal cast(GVal v, GType from, GType to, bool *differs)
{
    GVal r = {0};
    if (from == to)
        return v;
    bool fl = gtype_is_float(from);
    double d = fl ? as_f64(from, v) : 0.0;
    switch (to) {
    case G_BOOL:
        r.i = fl ? d != 0.0 || d != d : v.i != 0;
        break;
    case G_I64:
        r.i = fl ? float_to_int(d, -9223372036854775808.0, 9223372036854775808.0, INT64_MIN, INT64_MAX, differs)
                 : v.i;
        break;
    case G_I32:
        r.i = fl ? float_to_int(d, -2147483648.0, 2147483648.0, INT32_MIN, INT32_MAX, differs)
                 : (int32_t)(uint32_t)(uint64_t)v.i;
        break;
    case G_I8:
        r.i = fl ? float_to_int(d, -128.0, 128.0, INT8_MIN, INT8_MAX, differs) : (int8_t)(uint8_t)(uint64_t)v.i;
        break;
    case G_U8:
        r.i = fl ? float_to_int(d, 0.0, 256.0, 0, UINT8_MAX, differs) : (uint8_t)(uint64_t)v.i;
        break;
    case G_U64:
        r.i = fl ? (int64_t)float_to_u64(d, differs) : v.i;
        break;
    case G_F32:
        r.f32 = from == G_F64 ? (float)v.f64 : fl ? v.f32 : from == G_U64 ? (float)(uint64_t)v.i : (float)v.i;
        break;
    case G_F64:
        r.f64 = fl ? d : as_f64(from, v);
        break;
    default:
        abort();
    }
    return r;
}

static bool truthy(GType t, GVal v)
{
    bool unused = false;
    return cast(v, t, G_BOOL, &unused).i != 0;
}

/* ---- integer rules ----------------------------------------------------------------------------- */

static int64_t wrap_add(int64_t a, int64_t b) { return (int64_t)((uint64_t)a + (uint64_t)b); }
static int64_t wrap_sub(int64_t a, int64_t b) { return (int64_t)((uint64_t)a - (uint64_t)b); }
static int64_t wrap_mul(int64_t a, int64_t b) { return (int64_t)((uint64_t)a * (uint64_t)b); }

static int64_t int_floordiv(int64_t a, int64_t b, bool *differs)
{
    if (b == 0)
        return 0;
    if (b == -1) {
        if (a == INT64_MIN)
            *differs = true;              /* Numba's guard gives 0 */
        return wrap_sub(0, a);
    }
    int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0)))
        q--;
    return q;
}

static int64_t int_mod(int64_t a, int64_t b)
{
    if (b == 0 || b == -1)
        return 0;
    int64_t m = a % b;
    if (m != 0 && ((m < 0) != (b < 0)))
        m += b;
    return m;
}

/* Numba's int_power negates a negative exponent and raises OverflowError
 * when that overflows (INT64_MIN), for every base; past 65536 it calls
 * math.pow instead, and an integer result out of a float is not ours. */
static int64_t int_pow(int64_t base, int64_t e, bool *differs, bool *raises)
{
    if (e == INT64_MIN)
        *raises = true;
    if (e > 65536)
        *differs = true;
    if (e < 0) {
        if (base == 1)
            return 1;
        if (base == -1)
            return (e & 1) ? -1 : 1;
        if (base == 0)
            return INT64_MIN;
        return 0;
    }
    /* square and multiply; __builtin_mul_overflow stores the wrapped
     * product, which is what the kernel computes */
    int64_t r = 1, x = base;
    bool overflow = false;
    for (int64_t n = e; n; n >>= 1) {
        if (n & 1)
            overflow |= __builtin_mul_overflow(r, x, &r);
        if (n > 1)
            overflow |= __builtin_mul_overflow(x, x, &x);
    }
    /* Numba 0.56 passes the result through float64 */
    if (overflow || r > (1ll << 53) || r < -(1ll << 53))
        *differs = true;
    return r;
}

/* uint64 ** uint64, by squaring, wrapping (the exponent is never negative) */
static uint64_t uint_pow(uint64_t base, uint64_t e, bool *differs)
{
    if (e > 65536)
        *differs = true;                  /* math.pow in Numba */
    uint64_t r = 1, x = base;
    bool overflow = false;
    for (uint64_t n = e; n; n >>= 1) {
        if (n & 1)
            overflow |= __builtin_mul_overflow(r, x, &r);
        if (n > 1)
            overflow |= __builtin_mul_overflow(x, x, &x);
    }
    if (overflow || r > (1ull << 53))
        *differs = true;
    return r;
}

static int64_t shift(int op, int64_t a, int64_t n, bool *differs)
{
    if (n < 0 || n >= 64) {
        *differs = true;                  /* the machine's business in Numba */
        return op == OP_SHL ? 0 : a < 0 ? -1 : 0;
    }
    if (op == OP_SHL)
        return (int64_t)((uint64_t)a << n);
    return a < 0 ? ~(~a >> n) : a >> n;
}

/* ---- float rules ---------------------------------------------------------------------------------- */

/* Python's float divmod (CPython's float_divmod, which NumPy's npy_divmod
 * follows): floor division and a modulo with the divisor's sign. */
static double f64_divmod(double a, double b, double *mod)
{
    double m = fmod(a, b);
    if (b == 0.0) {
        *mod = m;
        return a / b;
    }
    double q = (a - m) / b;
    if (m != 0.0) {
        if ((b < 0.0) != (m < 0.0)) {
            m += b;
            q -= 1.0;
        }
    } else
        m = copysign(0.0, b);
    double fq;
    if (q != 0.0) {
        fq = floor(q);
        if (q - fq > 0.5)
            fq += 1.0;
    } else
        fq = copysign(0.0, a / b);
    *mod = m;
    return fq;
}

static float f32_divmod(float a, float b, float *mod)
{
    float m = fmodf(a, b);
    if (b == 0.0f) {
        *mod = m;
        return a / b;
    }
    float q = (a - m) / b;
    if (m != 0.0f) {
        if ((b < 0.0f) != (m < 0.0f)) {
            m += b;
            q -= 1.0f;
        }
    } else
        m = copysignf(0.0f, b);
    float fq;
    if (q != 0.0f) {
        fq = floorf(q);
        if (q - fq > 0.5f)
            fq += 1.0f;
    } else
        fq = copysignf(0.0f, a / b);
    *mod = m;
    return fq;
}

/* float ** int by Numba's algorithm.  For a negative exponent Numba's CPU
 * target raises ZeroDivisionError, even under the numpy error model, when
 * the product it inverts is 0 (0.0 ** -1, but also 1e-200 ** -2): *raises. */
static double f64_powi(double x, int64_t e, bool *raises)
{
    uint64_t n = e < 0 ? 0 - (uint64_t)e : (uint64_t)e;
    *raises |= e == INT64_MIN;
    if (n > 65536)
        return pow(x, (double)e);
    double r = 1.0;
    for (; n; n >>= 1) {
        if (n & 1)
            r *= x;
        x *= x;
    }
    *raises |= e < 0 && r == 0.0;
    return e < 0 ? 1.0 / r : r;
}

static float f32_powi(float x, int64_t e, bool *raises)
{
    uint64_t n = e < 0 ? 0 - (uint64_t)e : (uint64_t)e;
    *raises |= e == INT64_MIN;
    if (n > 65536)
        return (float)pow((double)x, (double)e);
    float r = 1.0f;
    for (; n; n >>= 1) {
        if (n & 1)
            r *= x;
        x *= x;
    }
    *raises |= e < 0 && r == 0.0f;
    return e < 0 ? 1.0f / r : r;
}

/* Round half to even without depending on the rounding mode. */
static double round_half_even(double x)
{
    double f = floor(x), d = x - f;
    if (d > 0.5 || (d == 0.5 && fmod(f, 2.0) != 0.0))
        f += 1.0;
    return f == 0.0 ? copysign(0.0, x) : f;
}

/* ---- expressions ------------------------------------------------------------------------------------ */

static TV eval(Env *env, const GExpr *e);
static Flow exec_block(Env *env, const GBlock *b);

static TV tv(GVal v, bool t) { return (TV){v, t}; }

/* A branch on a tainted value: Numba may go the other way, and raise there;
 * and where the value is one Numba leaves undefined (an out-of-range
 * conversion, a signed overflow, a shift by 64: LLVM's poison), the branch
 * is undefined behaviour, which may change anything in the row.  Numba 0.68
 * returned 0, or garbage, from kernels whose result is a constant, after
 * a conditional expression on np.int64(nan) in a helper, or x // -np.int64(nan)
 * (its // branches on the divisor).  So the whole row is left out of the
 * Numba comparison. */
static void branch_on(Env *env, bool tainted)
{
    if (tainted)
        *env->whole_row = true;
}

static TV arith(Env *env, int op, GType rt, GType at, TV ta, GType bt, TV tb)
{
    GVal r = {0}, a = ta.v, b = tb.v;
    bool df = ta.t || tb.t;
    /* Numba's //, % and integer ** branch on their operands (and ** may
     * raise): a tainted one is a tainted branch */
    if (op == OP_FLOORDIV || op == OP_MOD || (op == OP_POW && !gtype_is_float(bt)))
        branch_on(env, df);
    if (rt == G_U64) {
        uint64_t x = (uint64_t)cast(a, at, G_U64, &df).i, y = (uint64_t)cast(b, bt, G_U64, &df).i;
        uint64_t u = 0;
        /* overflow as unsigned or (nsw, see below) as signed bits: not ours */
        int64_t sx = (int64_t)x, sy = (int64_t)y, unused;
        switch (op) {
        case OP_ADD:
            df |= __builtin_add_overflow(sx, sy, &unused);
            df |= __builtin_add_overflow(x, y, &u);
            break;
        case OP_SUB:
            df |= __builtin_sub_overflow(sx, sy, &unused);
            df |= __builtin_sub_overflow(x, y, &u);
            break;
        case OP_MUL:
            df |= __builtin_mul_overflow(sx, sy, &unused);
            df |= __builtin_mul_overflow(x, y, &u);
            break;
        case OP_FLOORDIV: u = y ? x / y : 0; break;
        case OP_MOD: u = y ? x % y : 0; break;
        case OP_POW: u = uint_pow(x, y, &df); break;
        case OP_SHL:
        case OP_SHR:
            /* the count is read as int64: past INT64_MAX it is negative, "too far" */
            if ((int64_t)y < 0 || y >= 64) {
                df = true;
                u = 0;
            } else
                u = op == OP_SHL ? x << y : x >> y;
            break;
        case OP_AND: u = x & y; break;
        case OP_OR: u = x | y; break;
        case OP_XOR: u = x ^ y; break;
        default: abort();
        }
        r.i = (int64_t)u;
        return tv(r, df);
    }
    if (rt == G_I64 && !gtype_is_float(at) && !gtype_is_float(bt)) {
        int64_t x = cast(a, at, G_I64, &df).i, y = cast(b, bt, G_I64, &df).i;
        /* ufnc wraps; Numba's LLVM code may assume no overflow (nsw): it
         * compiled t = 14 - p; t < 6000 to p > -5986, false for INT64_MIN */
        int64_t unused;
        switch (op) {
        case OP_ADD: r.i = wrap_add(x, y); df |= __builtin_add_overflow(x, y, &unused); break;
        case OP_SUB: r.i = wrap_sub(x, y); df |= __builtin_sub_overflow(x, y, &unused); break;
        case OP_MUL: r.i = wrap_mul(x, y); df |= __builtin_mul_overflow(x, y, &unused); break;
        case OP_FLOORDIV: r.i = int_floordiv(x, y, &df); break;
        case OP_MOD: r.i = int_mod(x, y); break;
        case OP_POW: r.i = int_pow(x, y, &df, env->whole_row); break;
        case OP_SHL:
        case OP_SHR: r.i = shift(op, x, y, &df); break;
        case OP_AND: r.i = x & y; break;
        case OP_OR: r.i = x | y; break;
        case OP_XOR: r.i = x ^ y; break;
        default: abort();
        }
        return tv(r, df);
    }
    if (op == OP_POW && !gtype_is_float(bt)) {
        int64_t y = cast(b, bt, G_I64, &df).i;
        if (rt == G_F32) {
            r.f32 = f32_powi(cast(a, at, G_F32, &df).f32, y, env->whole_row);
        } else {
            r.f64 = f64_powi(cast(a, at, G_F64, &df).f64, y, env->whole_row);
        }
        return tv(r, df);
    }
    if (rt == G_F32) {
        float x = cast(a, at, G_F32, &df).f32, y = cast(b, bt, G_F32, &df).f32, m;
        switch (op) {
        case OP_ADD: r.f32 = x + y; break;
        case OP_SUB: r.f32 = x - y; break;
        case OP_MUL: r.f32 = x * y; break;
        case OP_DIV: r.f32 = x / y; break;
        case OP_FLOORDIV: r.f32 = f32_divmod(x, y, &m); break;
        case OP_MOD: f32_divmod(x, y, &m); r.f32 = m; break;
        case OP_POW: r.f32 = powf(x, y); break;
        default: abort();
        }
        return tv(r, df);
    }
    double x = cast(a, at, G_F64, &df).f64, y = cast(b, bt, G_F64, &df).f64, m;
    switch (op) {
    case OP_ADD: r.f64 = x + y; break;
    case OP_SUB: r.f64 = x - y; break;
    case OP_MUL: r.f64 = x * y; break;
    case OP_DIV: r.f64 = x / y; break;
    case OP_FLOORDIV: r.f64 = f64_divmod(x, y, &m); break;
    case OP_MOD: f64_divmod(x, y, &m); r.f64 = m; break;
    case OP_POW: r.f64 = pow(x, y); break;
    default: abort();
    }
    return tv(r, df);
}

/* A comparison in the promoted type of its two operands: floats by NumPy's
 * rule, uint64 against a signed integer in float64 (Numba's overload
 * resolution), against another unsigned type or bool in uint64. */
static bool compare(int op, GType at, GVal a, GType bt, GVal b)
{
    bool unused = false;
    bool u64 = at == G_U64 || bt == G_U64;
    GType other = at == G_U64 ? bt : at;
    if (u64 && !gtype_is_float(other) && !gtype_is_unsigned(other) && other != G_BOOL) {
        double x = as_f64(at, a), y = as_f64(bt, b);
        switch (op) {
        case OP_LT: return x < y;
        case OP_LE: return x <= y;
        case OP_GT: return x > y;
        case OP_GE: return x >= y;
        case OP_EQ: return x == y;
        default: return x != y;
        }
    }
    if (u64 && !gtype_is_float(other)) {
        uint64_t x = (uint64_t)a.i, y = (uint64_t)b.i;
        switch (op) {
        case OP_LT: return x < y;
        case OP_LE: return x <= y;
        case OP_GT: return x > y;
        case OP_GE: return x >= y;
        case OP_EQ: return x == y;
        default: return x != y;
        }
    }
    if (gtype_is_float(at) || gtype_is_float(bt)) {
        GType t = at == G_F32 && bt == G_F32 ? G_F32 : G_F64;
        double x = as_f64(t, cast(a, at, t, &unused)), y = as_f64(t, cast(b, bt, t, &unused));
        switch (op) {
        case OP_LT: return x < y;
        case OP_LE: return x <= y;
        case OP_GT: return x > y;
        case OP_GE: return x >= y;
        case OP_EQ: return x == y;
        default: return x != y;
        }
    }
    int64_t x = a.i, y = b.i;
    switch (op) {
    case OP_LT: return x < y;
    case OP_LE: return x <= y;
    case OP_GT: return x > y;
    case OP_GE: return x >= y;
    case OP_EQ: return x == y;
    default: return x != y;
    }
}

/* floor, ceil and trunc keep the float type in ufnc; the generator wraps
 * them in a cast to the float type, which Numba's CPU target reaches
 * through int64: equal only for finite results that fit, and not for -0.0. */
static TV round_fn(int fn, GType t, TV a)
{
    double d = as_f64(t, a.v), v = fn == FN_FLOOR ? floor(d) : fn == FN_CEIL ? ceil(d) : trunc(d);
    if (!gtype_is_float(t)) {
        /* an integer becomes float64 (compiler/math.def, MK_ROUND); Numba's CPU
         * target floors it as a float64 too, then makes an int64 of it */
        if (!(fabs(v) < 9223372036854775808.0))
            a.t = true;
        a.v.f64 = v;
        return a;
    }
    if (!(fabs(v) < 9223372036854775808.0) || (v == 0.0 && signbit(v)))
        a.t = true;
    if (t == G_F32)
        a.v.f32 = (float)v;
    else
        a.v.f64 = v;
    return a;
}

static TV call(Env *env, const GExpr *e)
{
    TV ta = eval(env, e->args[0]);
    GVal a = ta.v, r = {0};
    GType at = e->args[0]->type, t = e->type;
    bool df = ta.t;
    switch (e->op) {
    case FN_ABS:
        if (t == G_U64)
            r.i = a.i;
        else if (t == G_I64)
            r.i = a.i < 0 ? wrap_sub(0, a.i) : a.i;
        else if (t == G_F32)
            r.f32 = fabsf(a.f32);
        else
            r.f64 = fabs(a.f64);
        return tv(r, df);
    case FN_MIN:
    case FN_MAX: {
        TV tb = eval(env, e->args[1]);
        bool take_b = compare(e->op == FN_MIN ? OP_LT : OP_GT, e->args[1]->type, tb.v, at, a);
        df |= tb.t;
        r = cast(take_b ? tb.v : a, take_b ? e->args[1]->type : at, t, &df);
        return tv(r, df);
    }
    case FN_INT:
    case FN_FLOAT:
    case FN_BOOL:
    case FN_NP_F32:
    case FN_NP_F64:
    case FN_NP_I64:
    case FN_NP_I32:
    case FN_NP_I8:
    case FN_NP_U8:
    case FN_NP_U64:
        r = cast(a, at, t, &df);
        return tv(r, df);
    case FN_ROUND: {
        if (!gtype_is_float(at))
            r = cast(a, at, G_I64, &df);
        else {
            GVal v = {.f64 = round_half_even(as_f64(at, a))};
            r = cast(v, G_F64, G_I64, &df);
        }
        return tv(r, df);
    }
    case FN_SQRT:
        if (t == G_F32)
            r.f32 = sqrtf(a.f32);
        else
            r.f64 = sqrt(as_f64(at, a));
        return tv(r, df);
    case FN_FABS:
        if (t == G_F32)
            r.f32 = fabsf(a.f32);
        else
            r.f64 = fabs(as_f64(at, a));
        return tv(r, df);
    case FN_FLOOR:
    case FN_CEIL:
    case FN_TRUNC:
        return round_fn(e->op, at, ta);
    case FN_ISNAN:
    case FN_ISINF:
    case FN_ISFINITE: {
        double d = gtype_is_float(at) ? as_f64(at, a) : 0.0;
        r.i = e->op == FN_ISNAN ? isnan(d) != 0 : e->op == FN_ISINF ? isinf(d) != 0 : isfinite(d) != 0;
        return tv(r, df);
    }
    case FN_EXP: case FN_LOG: case FN_SIN: case FN_COS: case FN_TANH: {
        double d = as_f64(at, a);
        double (*f64[])(double) = {exp, log, sin, cos, tanh};
        float (*f32[])(float) = {expf, logf, sinf, cosf, tanhf};
        if (t == G_F32)
            r.f32 = f32[e->op - FN_EXP](a.f32);
        else
            r.f64 = f64[e->op - FN_EXP](d);
        return tv(r, df);
    }
    default: {              /* two float arguments */
        TV tb = eval(env, e->args[1]);
        GVal b = tb.v;
        GType bt = e->args[1]->type;
        df |= tb.t;
        if (t == G_F32) {
            float x = cast(a, at, G_F32, &df).f32, y = cast(b, bt, G_F32, &df).f32;
            switch (e->op) {
            case FN_COPYSIGN: r.f32 = copysignf(x, y); break;
            case FN_FMOD: r.f32 = fmodf(x, y); break;
            case FN_ATAN2: r.f32 = atan2f(x, y); break;
            case FN_HYPOT: r.f32 = hypotf(x, y); break;
            default: r.f32 = powf(x, y); break;
            }
        } else {
            double x = as_f64(at, a), y = as_f64(bt, b);
            switch (e->op) {
            case FN_COPYSIGN: r.f64 = copysign(x, y); break;
            case FN_FMOD: r.f64 = fmod(x, y); break;
            case FN_ATAN2: r.f64 = atan2(x, y); break;
            case FN_HYPOT: r.f64 = hypot(x, y); break;
            default: r.f64 = pow(x, y); break;
            }
        }
        return tv(r, df);
    }
    }
}

static void call_helper(Env *env, const GExpr *e, TV *ret, TV *ret2)
{
    const GFunc *h = &env->p->funcs[e->var];
    Env inner = {.p = env->p, .f = h, .whole_row = env->whole_row};
    for (int i = 0; i < h->nparams; i++)
        inner.vars[i] = eval(env, e->args[i]);
    exec_block(&inner, &h->body);
    *ret = inner.ret;
    if (ret2)
        *ret2 = inner.ret2;
}

static int64_t index_of(int64_t i, int64_t n)
{
    if (i < 0)
        i += n;
    if (i < 0 || i >= n)
        abort();                          /* the generator promised an index inside */
    return i;
}

/* The extent of axis `axis` of gufunc operand a ("()" operands: 1). */
static int64_t extent(Env *env, int a, int axis)
{
    const GLayout *l = &gen_layouts[env->f->layout];
    return axis < l->ndims[a] ? env->sizes[l->dims[a][axis]] : 1;
}

/* Its number of elements. */
static int64_t length_of(Env *env, int a)
{
    return extent(env, a, 0) * extent(env, a, 1);
}

static TV eval(Env *env, const GExpr *e)
{
    GVal r = {0};
    switch (e->kind) {
    case GE_CONST:
        if (e->type == G_F32)
            r.f32 = (float)e->val.f64;
        else
            r = e->val;
        return tv(r, false);
    case GE_LOCAL: return env->vars[e->var];
    case GE_GLOBAL: return tv(env->p->globals[e->var].val, false);
    case GE_UNARY: {
        TV a = eval(env, e->args[0]);
        GType t = e->args[0]->type;
        bool df = a.t;
        switch (e->op) {
        case OP_NOT: r.i = !truthy(t, a.v); break;
        case OP_POS: r = cast(a.v, t, e->type, &df); break;
        case OP_INV: r.i = ~cast(a.v, t, G_I64, &df).i; break;
        default:
            if (e->type == G_F32)
                r.f32 = -a.v.f32;
            else if (e->type == G_F64)
                r.f64 = -as_f64(t, a.v);
            else {
                r.i = wrap_sub(0, cast(a.v, t, G_I64, &df).i);
                df |= r.i == INT64_MIN;          /* -INT64_MIN overflows (nsw) */
            }
            break;
        }
        return tv(r, df);
    }
    case GE_BINARY:
        return arith(env, e->op, e->type, e->args[0]->type, eval(env, e->args[0]), e->args[1]->type,
                     eval(env, e->args[1]));
    case GE_BOOLOP: {
        TV a = eval(env, e->args[0]);
        bool av = truthy(e->args[0]->type, a.v);
        branch_on(env, a.t);              /* whether b is evaluated */
        if (e->op == OP_LAND ? !av : av) {
            r.i = av;
            return tv(r, a.t);
        }
        TV b = eval(env, e->args[1]);
        r.i = truthy(e->args[1]->type, b.v);
        return tv(r, a.t || b.t);
    }
    case GE_COMPARE: {
        /* a < b < c: each operand evaluated once, stopping at the first false link */
        int n = e->nargs - 1;
        TV left = eval(env, e->args[0]);
        bool df = left.t;
        r.i = 1;
        for (int i = 0; i < n; i++) {
            TV right = eval(env, e->args[i + 1]);
            int op = (int)e->args[e->nargs + i]->val.i;
            df |= right.t;
            if (i + 1 < n)                /* whether the chain goes on */
                branch_on(env, df);
            if (!compare(op, e->args[i]->type, left.v, e->args[i + 1]->type, right.v)) {
                r.i = 0;
                break;
            }
            left = right;
        }
        return tv(r, df);
    }
    case GE_IFEXP: {
        TV c = eval(env, e->args[0]);
        branch_on(env, c.t);
        return truthy(e->args[0]->type, c.v) ? eval(env, e->args[1]) : eval(env, e->args[2]);
    }
    case GE_CALL: return call(env, e);
    case GE_HELPER: {
        TV ret;
        call_helper(env, e, &ret, NULL);
        return ret;
    }
    case GE_INDEX: {
        TV idx = eval(env, e->args[0]);
        int64_t i = index_of(idx.v.i, extent(env, e->var, 0));
        if (e->nargs == 2) {
            TV idx1 = eval(env, e->args[1]);
            i = i * extent(env, e->var, 1) + index_of(idx1.v.i, extent(env, e->var, 1));
            idx.t |= idx1.t;
        }
        branch_on(env, idx.t);            /* Numba wraps a negative index around */
        return tv(env->arrays[e->var][i], env->taints[e->var][i]);
    }
    case GE_LEN:
        r.i = extent(env, e->var, e->op == 2 ? 1 : 0);
        return tv(r, false);
    }
    abort();
}

/* ---- statements --------------------------------------------------------------------------------------- */

/* An if: the branch it takes (see branch_on). */
static bool decide(Env *env, const GExpr *cond)
{
    TV c = eval(env, cond);
    branch_on(env, c.t);
    return truthy(cond->type, c.v);
}

static Flow exec_loop_body(Env *env, const GBlock *b, bool *stop)
{
    Flow fl = exec_block(env, b);
    if (fl == FLOW_BREAK)
        *stop = true;
    if (fl == FLOW_RETURN) {
        *stop = true;
        return FLOW_RETURN;
    }
    return FLOW_NEXT;
}

static Flow exec_stmt(Env *env, const GStmt *s)
{
    const GFunc *f = env->f;
    switch (s->kind) {
    case GS_ASSIGN:
        env->vars[s->var] = eval(env, s->e);
        return FLOW_NEXT;
    case GS_AUG: {
        GType t = f->vars[s->var].type;
        TV rhs = eval(env, s->e);
        env->vars[s->var] = arith(env, s->op, t, t, env->vars[s->var], s->e->type, rhs);
        return FLOW_NEXT;
    }
    case GS_UNPACK: {
        TV a, b;
        call_helper(env, s->e, &a, &b);
        env->vars[s->var] = a;
        env->vars[s->var2] = b;
        return FLOW_NEXT;
    }
    case GS_IF:
        return exec_block(env, decide(env, s->e) ? &s->body : &s->orelse);
    case GS_FOR: {
        TV start = s->e ? eval(env, s->e) : tv((GVal){.i = 0}, false), stop = eval(env, s->e2);
        TV step = s->e3 ? eval(env, s->e3) : tv((GVal){.i = 1}, false);
        branch_on(env, start.t || stop.t || step.t);
        bool done = false;
        for (int64_t i = start.v.i; !done && (step.v.i > 0 ? i < stop.v.i : i > stop.v.i); i += step.v.i) {
            env->vars[s->var] = tv((GVal){.i = i}, false);
            if (exec_loop_body(env, &s->body, &done) == FLOW_RETURN)
                return FLOW_RETURN;
        }
        return FLOW_NEXT;
    }
    case GS_FOR_ARRAY: {
        bool done = false;
        int64_t n = extent(env, s->var2, 0);
        for (int64_t i = 0; !done && i < n; i++) {
            env->vars[s->var] = tv(env->arrays[s->var2][i], env->taints[s->var2][i]);
            if (exec_loop_body(env, &s->body, &done) == FLOW_RETURN)
                return FLOW_RETURN;
        }
        return FLOW_NEXT;
    }
    case GS_WHILE: {
        bool done = false;
        TV limit = eval(env, s->e);
        branch_on(env, limit.t);
        env->vars[s->var] = tv((GVal){.i = 0}, false);
        while (!done && env->vars[s->var].v.i < limit.v.i) {
            env->vars[s->var].v.i++;
            if (exec_loop_body(env, &s->body, &done) == FLOW_RETURN)
                return FLOW_RETURN;
        }
        return FLOW_NEXT;
    }
    case GS_BREAK: return FLOW_BREAK;
    case GS_CONTINUE: return FLOW_CONTINUE;
    case GS_RETURN:
        if (s->e)
            env->ret = eval(env, s->e);
        if (s->e2)
            env->ret2 = eval(env, s->e2);
        return FLOW_RETURN;
    case GS_STORE: {
        TV idx = eval(env, s->e);
        int64_t i = index_of(idx.v.i, extent(env, s->var, 0));
        if (s->e3) {
            TV idx1 = eval(env, s->e3);
            i = i * extent(env, s->var, 1) + index_of(idx1.v.i, extent(env, s->var, 1));
            idx.t |= idx1.t;
        }
        branch_on(env, idx.t);            /* Numba wraps a negative index around */
        TV v = eval(env, s->e2);
        env->arrays[s->var][i] = v.v;
        env->taints[s->var][i] = v.t;
        return FLOW_NEXT;
    }
    case GS_PASS: return FLOW_NEXT;
    }
    abort();
}

static Flow exec_block(Env *env, const GBlock *b)
{
    for (int i = 0; i < b->len; i++) {
        Flow fl = exec_stmt(env, b->items[i]);
        if (fl != FLOW_NEXT)
            return fl;
    }
    return FLOW_NEXT;
}

/* ---- entry points ------------------------------------------------------------------------------------- */

GEvalResult gen_eval_vectorize(const GenProgram *p, const GFunc *f, const GVal *args)
{
    GEvalResult res = {0};
    bool whole_row = false;
    Env env = {.p = p, .f = f, .whole_row = &whole_row};
    for (int i = 0; i < f->nparams; i++)
        env.vars[i] = tv(args[i], false);
    exec_block(&env, &f->body);
    res.numba_differs = env.ret.t || whole_row;
    res.ret = cast(env.ret.v, f->rexpr, f->ret, &res.numba_differs);
    return res;
}

void gen_eval_guvectorize(const GenProgram *p, const GFunc *f, GVal **arrays, bool **differs, const int *sizes)
{
    bool whole_row = false;
    Env env = {.p = p, .f = f, .sizes = {sizes[0], sizes[1]}, .whole_row = &whole_row};
    for (int k = 0; k < f->nparams; k++) {
        if (f->vars[k].array) {
            env.arrays[k] = arrays[k];
            env.taints[k] = differs[k];
        } else
            env.vars[k] = tv(arrays[k][0], false);
    }
    exec_block(&env, &f->body);
    /* a tainted decision may have skipped a store, and an exception stops
     * the row: every output is suspect */
    if (whole_row)
        for (int k = 0; k < f->nparams; k++)
            if (f->vars[k].output)
                for (int64_t i = 0; i < length_of(&env, k); i++)
                    differs[k][i] = true;
}

GVal gen_eval_const(const GenProgram *p, const GExpr *e)
{
    GFunc none = {0};
    bool whole_row = false;
    Env env = {.p = p, .f = &none, .whole_row = &whole_row};
    return eval(&env, e).v;
}
