/* gen.c - random valid .ufn modules (see gen.h): choices, typed trees, text.
 *
 * Every expression is built for a wanted type and has exactly that type by
 * ufnc's rules, so that variables keep one type (no unification across
 * assignments), returns match, and every helper call passes arguments of
 * the helper's parameter types (one instance per helper).  Variables are
 * assigned at the top of the body before anything reads them; loop
 * variables and unpacked temporaries are read only inside their block. */
#include "gen.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ---- choices ------------------------------------------------------------------------------ */

void rng_seed(GenRng *r, uint64_t seed)
{
    *r = (GenRng){0};
    r->state = seed * 0x9E3779B97F4A7C15ull + 0x2545F4914F6CDD1Dull;
    if (!r->state)
        r->state = 1;
}

void rng_bytes(GenRng *r, const uint8_t *data, size_t len)
{
    *r = (GenRng){.data = data, .len = len, .state = 1};
}

uint64_t rng_u64(GenRng *r)
{
    if (r->data) {
        uint64_t v = 0;
        for (int i = 0; i < 8; i++)
            v = v << 8 | (r->pos < r->len ? r->data[r->pos++] : 0);
        return v;
    }
    r->state ^= r->state >> 12;
    r->state ^= r->state << 25;
    r->state ^= r->state >> 27;
    return r->state * 0x2545F4914F6CDD1Dull;
}

unsigned rng_below(GenRng *r, unsigned n)
{
    if (n <= 1)
        return 0;
    if (r->data) {
        if (r->pos >= r->len)
            return 0;
        unsigned v = r->data[r->pos++];
        if (n > 256 && r->pos < r->len)
            v = v << 8 | r->data[r->pos++];
        return v % n;
    }
    return (unsigned)(rng_u64(r) % n);
}

bool rng_chance(GenRng *r, unsigned percent)
{
    /* exhausted bytes answer 0: "yes" only for the simplest branches, so
     * callers ask about the complicated alternative */
    return rng_below(r, 100) >= 100 - percent;
}

/* ---- memory --------------------------------------------------------------------------------- */

typedef struct GenArena {
    struct GenArena *next;
    size_t used;
    max_align_t data[8192];
} GenArena;

static void *galloc(GenProgram *p, size_t size)
{
    size = (size + sizeof(max_align_t) - 1) / sizeof(max_align_t) * sizeof(max_align_t);
    if (!p->arena || p->arena->used + size > sizeof p->arena->data) {
        GenArena *a = calloc(1, sizeof *a);
        if (!a || size > sizeof a->data)
            abort();
        a->next = p->arena;
        p->arena = a;
    }
    void *m = (char *)p->arena->data + p->arena->used;
    p->arena->used += size;
    memset(m, 0, size);
    return m;
}

void gen_free(GenProgram *p)
{
    if (!p)
        return;
    while (p->arena) {
        GenArena *next = p->arena->next;
        free(p->arena);
        p->arena = next;
    }
    free(p);
}

/* ---- types --------------------------------------------------------------------------------- */

static const char *const type_names[G_NTYPES] = {"boolean", "int8", "int32", "int64", "uint8", "uint64",
                                                 "float32", "float64"};

const char *gtype_name(GType t) { return type_names[t]; }
bool gtype_is_int(GType t) { return t == G_I8 || t == G_I32 || t == G_I64 || t == G_U8 || t == G_U64; }
bool gtype_is_unsigned(GType t) { return t == G_U8 || t == G_U64; }
bool gtype_is_float(GType t) { return t == G_F32 || t == G_F64; }

/* Numba's arithmetic: integers and bools in the machine word (uint64 when
 * both are unsigned), floats by NumPy's promotion. */
static GType arith_type(GType a, GType b)
{
    if (!gtype_is_float(a) && !gtype_is_float(b))
        return gtype_is_unsigned(a) && gtype_is_unsigned(b) ? G_U64 : G_I64;
    if (a == G_F32 && b == G_F32)
        return G_F32;
    /* float32 with an integer or float64: float64 (np.promote_types; int8 and
     * uint8 would keep float32 in NumPy, so the generator never mixes those) */
    return G_F64;
}

/* ---- the layouts of gufuncs ------------------------------------------------------------------- */

const GLayout gen_layouts[] = {
    {"(n)->()", 1, 1, {1, 0}, {{0}}, "n"},
    {"(n),(n)->(n)", 2, 1, {1, 1, 1}, {{0}, {0}, {0}}, "n"},
    {"(n)->(n)", 1, 1, {1, 1}, {{0}, {0}}, "n"},
    {"(n),()->(n)", 2, 1, {1, 0, 1}, {{0}, {0}, {0}}, "n"},
    {"(n),(n)->()", 2, 1, {1, 1, 0}, {{0}, {0}}, "n"},
    {"(n)->(),()", 1, 2, {1, 0, 0}, {{0}}, "n"},
    {"(m,n)->(m)", 1, 1, {2, 1}, {{1, 0}, {1}}, "mn"},
    {"(m,n),(n)->(m)", 2, 1, {2, 1, 1}, {{1, 0}, {0}, {1}}, "mn"},
    {"(m,n)->(n,m)", 1, 1, {2, 2}, {{1, 0}, {0, 1}}, "mn"},
    {"(n),(m)->(n,m)", 2, 1, {1, 1, 2}, {{0}, {1}, {0, 1}}, "nm"},
};
const int gen_nlayouts = sizeof gen_layouts / sizeof gen_layouts[0];

/* ---- generation context ---------------------------------------------------------------------- */

typedef struct Ctx {
    GenRng *r;
    const GenOptions *o;
    GenProgram *p;
    GFunc *f;
    int live[48];          /* variables readable here */
    int nlive;
    int first_local;       /* vars [first_local, first_local + assignable) are plain locals */
    int assignable;
    int loops;             /* enclosing loops */
    int depth;             /* enclosing blocks */
    int budget;            /* statements left in this function */
    int counter;           /* for fresh names */
    bool outputs_ready;    /* gufunc outputs are written: they may be read */
} Ctx;

static unsigned below(Ctx *c, unsigned n) { return rng_below(c->r, n); }
static bool chance(Ctx *c, unsigned percent) { return rng_chance(c->r, percent); }

static GExpr *node(Ctx *c, GExprKind kind, GType type, int op, int nargs)
{
    GExpr *e = galloc(c->p, sizeof *e);
    e->kind = kind;
    e->type = type;
    e->op = op;
    e->nargs = nargs;
    if (nargs)
        e->args = galloc(c->p, sizeof(GExpr *) * (size_t)nargs);
    return e;
}

static GExpr *call1(Ctx *c, GFn fn, GType type, GExpr *a)
{
    GExpr *e = node(c, GE_CALL, type, fn, 1);
    e->args[0] = a;
    return e;
}

/* Would CPython fold this at compile time?  Its AST optimiser evaluates
 * operators on literals with Python's numbers: 2**63 becomes a big int
 * (which Numba refuses), (-3) ** -2 a float, 1.1 ** 3 pow() where Numba
 * multiplies.  ufnc gets the source as written. */
static bool foldable(const GExpr *e)
{
    if (e->kind == GE_CONST)
        return e->type != G_F32 && e->type != G_U64;    /* np.float32(...), np.uint64(...): calls */
    if (e->kind != GE_UNARY && e->kind != GE_BINARY)
        return false;
    for (int i = 0; i < e->nargs; i++)
        if (!foldable(e->args[i]))
            return false;
    return true;
}

/* Keep integer operators and ** off literal-only operands: np.int64(lit)
 * (np.float64(lit)) is a call, evaluated when the kernel runs, by the
 * rules under test. */
static GExpr *unfold(Ctx *c, GExpr *e)
{
    if (!foldable(e))
        return e;
    return call1(c, gtype_is_float(e->type) ? FN_NP_F64 : FN_NP_I64, e->type == G_F64 ? G_F64 : G_I64, e);
}

static GExpr *unary(Ctx *c, int op, GType type, GExpr *a)
{
    GExpr *e = node(c, GE_UNARY, type, op, 1);
    e->args[0] = type == G_I64 ? unfold(c, a) : a;
    return e;
}

static GExpr *binary(Ctx *c, GExprKind kind, int op, GType type, GExpr *a, GExpr *b)
{
    GExpr *e = node(c, kind, type, op, 2);
    bool risky = kind == GE_BINARY && (type == G_I64 || op == OP_POW);
    e->args[0] = risky && foldable(b) ? unfold(c, a) : a;
    e->args[1] = b;
    return e;
}

static GExpr *call2(Ctx *c, GFn fn, GType type, GExpr *a, GExpr *b)
{
    GExpr *e = node(c, GE_CALL, type, fn, 2);
    e->args[0] = a;
    e->args[1] = b;
    return e;
}

static int new_var(Ctx *c, const char *prefix, GType type)
{
    GFunc *f = c->f;
    if (f->nvars >= (int)(sizeof f->vars / sizeof f->vars[0]))
        return -1;
    GVar *v = &f->vars[f->nvars];
    snprintf(v->name, sizeof v->name, "%s%d", prefix, c->counter++);
    v->type = type;
    return f->nvars++;
}

/* ---- constants ------------------------------------------------------------------------------- */

static const int64_t int_pool[] = {
    0, 1, -1, 2, 3, -3, 5, 7, -7, 10, 31, 32, 33, 63, 64, 65, 100, -128, 127, 128, 255, 256,
    1000, 65536, 2147483647, -2147483648ll, 2147483648ll, 4294967296ll, 9007199254740992ll,
    9007199254740993ll, INT64_MAX, -INT64_MAX, INT64_MIN,
};

static const double float_pool[] = {
    0.0, -0.0, 0.5, -0.5, 1.0, -1.0, 1.5, 2.5, -2.5, 3.0, 0.1, -0.7, 10.0, 100.25, 1e10, -1e10,
    1e16, 9.2233720368547758e18, -9.2233720368547758e18, 1.8446744073709552e19, 2147483648.0,
    1e300, -1e300, 1e-310, 3.4028234663852886e38, 1e39, 4.9e-324, INFINITY, -INFINITY, NAN,
};

static GExpr *const_int(Ctx *c, GType t, int64_t v)
{
    GExpr *e = node(c, GE_CONST, t, 0, 0);
    e->val.i = v;
    return e;
}

static GExpr *gen_const(Ctx *c, GType t)
{
    GExpr *e = node(c, GE_CONST, t, 0, 0);
    switch (t) {
    case G_BOOL:
        e->val.i = below(c, 2);
        break;
    case G_F32:
    case G_F64:
        /* the literal as a double; np.float32(<literal>) rounds it, and so
         * does the evaluator */
        if (chance(c, 20))
            e->val.f64 = (double)(int64_t)(rng_u64(c->r) % 2001) / 8.0 - 125.0;
        else
            e->val.f64 = float_pool[below(c, sizeof float_pool / sizeof float_pool[0])];
        break;
    case G_U64: {
        /* written np.uint64(<literal>): a bare literal is an int64 */
        static const uint64_t u[] = {0, 1, 2, 3, 7, 63, 64, 65, 255, 1ull << 32, 1ull << 53, 1ull << 63,
                                     INT64_MAX, UINT64_MAX};
        e->val.i = (int64_t)(chance(c, 30) ? rng_u64(c->r) % 21 : u[below(c, sizeof u / sizeof u[0])]);
        break;
    }
    default:                  /* integers are int64 literals; narrower ones go through casts */
        if (chance(c, 25))
            e->val.i = (int64_t)(rng_u64(c->r) % 41) - 20;
        else
            e->val.i = int_pool[below(c, sizeof int_pool / sizeof int_pool[0])];
        e->type = G_I64;
        break;
    }
    return e;
}

/* ---- expressions -------------------------------------------------------------------------------- */

static GExpr *gen_expr(Ctx *c, GType want, int depth);
static GExpr *gen_arith(Ctx *c, GType want, int depth);

/* A readable variable of type t, or -1. */
static int pick_var(Ctx *c, GType t, bool scalar)
{
    int cand[48], n = 0;
    for (int i = 0; i < c->nlive; i++) {
        GVar *v = &c->f->vars[c->live[i]];
        if (v->type == t && v->array != scalar)
            cand[n++] = c->live[i];
    }
    return n ? cand[below(c, (unsigned)n)] : -1;
}

static GExpr *var_ref(Ctx *c, int v)
{
    GExpr *e = node(c, GE_LOCAL, c->f->vars[v].type, 0, 0);
    e->var = v;
    return e;
}

/* Convert e to type t with the casts a user would write. */
static GExpr *convert(Ctx *c, GExpr *e, GType t)
{
    if (e->type == t)
        return e;
    switch (t) {
    case G_BOOL: return call1(c, FN_BOOL, t, e);
    case G_I8: return call1(c, FN_NP_I8, t, e);
    case G_U8: return call1(c, FN_NP_U8, t, e);
    case G_U64: return call1(c, FN_NP_U64, t, e);
    case G_I32: return call1(c, FN_NP_I32, t, e);
    case G_I64: return call1(c, gtype_is_int(e->type) || chance(c, 50) ? FN_NP_I64 : FN_INT, t, e);
    case G_F32: return call1(c, FN_NP_F32, t, e);
    /* float(bool) is not in Numba's subset and float(float32) is float32:
     * np.float64 is float64 from anything */
    case G_F64:
        return call1(c, e->type != G_BOOL && e->type != G_F32 && chance(c, 50) ? FN_FLOAT : FN_NP_F64, t, e);
    default: abort();
    }
}

static GType any_numeric(Ctx *c)
{
    static const GType ts[] = {G_I64, G_F64, G_F32, G_I64, G_F64, G_BOOL, G_I32, G_U64};
    return ts[below(c, sizeof ts / sizeof ts[0])];
}

static GExpr *leaf(Ctx *c, GType want)
{
    int v = -1;
    if (!chance(c, 35))
        v = pick_var(c, want, true);
    if (v < 0 && chance(c, 30)) {
        /* another variable, converted */
        GType t = any_numeric(c);
        int w = pick_var(c, t, true);
        if (w >= 0)
            return convert(c, var_ref(c, w), want);
    }
    if (v >= 0)
        return var_ref(c, v);
    if (c->p->nglobals && chance(c, 15)) {
        int g = (int)below(c, (unsigned)c->p->nglobals);
        GExpr *e = node(c, GE_GLOBAL, c->p->globals[g].type, 0, 0);
        e->var = g;
        return convert(c, e, want);
    }
    if (want == G_I8 || want == G_I32 || want == G_U8)
        return convert(c, gen_const(c, G_I64), want);
    return gen_const(c, want);
}

/* An array operand of the gufunc, or -1. */
static int pick_array(Ctx *c, bool inputs_only)
{
    int cand[8], n = 0;
    for (int i = 0; i < c->f->nparams; i++) {
        GVar *v = &c->f->vars[i];
        if (v->array && !(inputs_only && v->output))
            cand[n++] = i;
    }
    return n ? cand[below(c, (unsigned)n)] : -1;
}

static int array_ndim(Ctx *c, int a)
{
    return gen_layouts[c->f->layout].ndims[a] ? gen_layouts[c->f->layout].ndims[a] : 1;
}

/* The extent of axis `axis` of array a: len(a) or a.shape[k]. */
static GExpr *array_len_axis(Ctx *c, int a, int axis)
{
    GExpr *e = node(c, GE_LEN, G_I64, axis == 0 ? (int)below(c, 2) : 2, 0);
    e->var = a;
    return e;
}

static GExpr *array_len(Ctx *c, int a)
{
    return array_len_axis(c, a, (int)below(c, (unsigned)array_ndim(c, a)));
}

/* An index that is inside axis `axis` of array a (whose extents are >= 1). */
static GExpr *safe_index(Ctx *c, int a, int axis, int depth)
{
    switch (below(c, 4)) {
    case 0: return const_int(c, G_I64, 0);
    case 1: return const_int(c, G_I64, -1);
    default: {
        /* e % a.shape[axis] is in [0, extent) by Python's floor rule */
        GExpr *e = gen_expr(c, G_I64, depth + 1);
        return binary(c, GE_BINARY, OP_MOD, G_I64, e, array_len_axis(c, a, axis));
    }
    }
}

static GExpr *array_read(Ctx *c, GType want, int depth)
{
    int a = pick_array(c, !c->outputs_ready);
    if (a < 0)
        return NULL;
    int nd = array_ndim(c, a);
    GExpr *e = node(c, GE_INDEX, c->f->vars[a].type, 0, nd);
    e->var = a;
    for (int d = 0; d < nd; d++)
        e->args[d] = safe_index(c, a, d, depth);
    return convert(c, e, want);
}

/* A helper call whose result converts to `want`. */
static GExpr *helper_call(Ctx *c, GType want, int depth)
{
    int cand[12], n = 0;
    for (int i = 0; i < c->p->nfuncs; i++) {
        GFunc *h = &c->p->funcs[i];
        if (h->kind == GF_HELPER && !h->pair && h != c->f && h->nparams >= 0 && h->body.len)
            cand[n++] = i;
    }
    if (!n)
        return NULL;
    GFunc *h = &c->p->funcs[cand[below(c, (unsigned)n)]];
    GExpr *e = node(c, GE_HELPER, h->ret, 0, h->nparams);
    e->var = (int)(h - c->p->funcs);
    for (int i = 0; i < h->nparams; i++)
        e->args[i] = gen_expr(c, h->vars[i].type, depth + 1);
    return convert(c, e, want);
}

static GExpr *gen_bool(Ctx *c, int depth)
{
    switch (below(c, 8)) {
    case 0: return leaf(c, G_BOOL);
    case 1:
    case 2: {
        /* a comparison, sometimes a chain */
        int n = 1 + (chance(c, 25) ? 1 : 0);
        GExpr *e = node(c, GE_COMPARE, G_BOOL, 0, 2 * n + 1);
        e->nargs = n + 1;
        GType t = any_numeric(c);
        for (int i = 0; i <= n; i++)
            e->args[i] = gen_expr(c, chance(c, 70) ? t : any_numeric(c), depth + 1);
        /* the operators follow the operands in args[n + 1 ..] as constants */
        for (int i = 0; i < n; i++)
            e->args[n + 1 + i] = const_int(c, G_I64, OP_LT + (int)below(c, 6));
        return e;
    }
    case 3: return unary(c, OP_NOT, G_BOOL, gen_expr(c, G_BOOL, depth + 1));
    case 4:
        return binary(c, GE_BOOLOP, chance(c, 50) ? OP_LOR : OP_LAND, G_BOOL, gen_expr(c, G_BOOL, depth + 1),
                      gen_expr(c, G_BOOL, depth + 1));
    case 5: {
        GFn fn = (GFn)(FN_ISNAN + (int)below(c, 3));
        return call1(c, fn, G_BOOL, gen_expr(c, chance(c, 80) ? (chance(c, 50) ? G_F32 : G_F64) : G_I64,
                                             depth + 1));
    }
    case 6: return call1(c, FN_BOOL, G_BOOL, gen_expr(c, any_numeric(c), depth + 1));
    default: {
        GExpr *e = node(c, GE_IFEXP, G_BOOL, 0, 3);
        e->args[0] = gen_expr(c, G_BOOL, depth + 1);
        e->args[1] = gen_expr(c, G_BOOL, depth + 1);
        e->args[2] = gen_expr(c, G_BOOL, depth + 1);
        return e;
    }
    }
}

/* The type of `a op b` for arithmetic operators (Numba's rules). */
static GType binop_type(int op, GType a, GType b)
{
    if (op == OP_DIV && !gtype_is_float(a) && !gtype_is_float(b))
        return G_F64;                   /* int / int */
    return arith_type(a, b);
}

/* An operand type for integer arithmetic: mostly int64, sometimes int32 or
 * (for + - * // % only: Python's bool arithmetic) bool. */
static GType int_operand(Ctx *c, int op)
{
    if (!chance(c, 20))
        return G_I64;
    bool bool_ok = op == OP_ADD || op == OP_SUB || op == OP_MUL || op == OP_FLOORDIV || op == OP_MOD;
    switch (below(c, 3)) {
    case 0: return bool_ok ? G_BOOL : G_I32;
    case 1: return G_I32;
    default: return chance(c, 50) ? G_U64 : G_U8;      /* against a signed one: int64 */
    }
}

/* Binary arithmetic with result type want. */
static GExpr *gen_arith(Ctx *c, GType want, int depth)
{
    static const int int_ops[] = {OP_ADD, OP_SUB, OP_MUL, OP_FLOORDIV, OP_MOD, OP_POW,
                                  OP_SHL, OP_SHR, OP_AND, OP_OR, OP_XOR, OP_ADD, OP_MUL};
    static const int float_ops[] = {OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_FLOORDIV, OP_MOD, OP_POW,
                                    OP_ADD, OP_MUL, OP_DIV};
    if (want == G_I64 || want == G_U64) {
        int op = int_ops[below(c, sizeof int_ops / sizeof int_ops[0])];
        GType lt, rt;
        if (want == G_U64) {
            /* uint64 only from two unsigned operands */
            lt = chance(c, 80) ? G_U64 : G_U8;
            rt = chance(c, 80) ? G_U64 : G_U8;
        } else {
            lt = int_operand(c, op);
            rt = int_operand(c, op);
            if (gtype_is_unsigned(lt) && gtype_is_unsigned(rt))
                rt = G_I64;
            /* a shift takes the left operand's signedness (Numba) */
            if ((op == OP_SHL || op == OP_SHR) && (gtype_is_unsigned(lt) || lt == G_BOOL))
                lt = G_I64;
            /* bool meets only signed integers (its unsigned mix is murky) */
            if ((lt == G_BOOL && gtype_is_unsigned(rt)) || (rt == G_BOOL && gtype_is_unsigned(lt)))
                lt = rt = G_I64;
        }
        GExpr *a = gen_expr(c, lt, depth + 1), *b;
        bool small = want == G_I64 && rt == G_I64;
        if (op == OP_POW && small && !chance(c, 20))
            b = const_int(c, G_I64, (int64_t)below(c, 8) - 2);    /* mostly small exponents */
        else if ((op == OP_SHL || op == OP_SHR) && small && !chance(c, 25))
            b = const_int(c, G_I64, (int64_t)below(c, 70));
        else
            b = gen_expr(c, rt, depth + 1);
        return binary(c, GE_BINARY, op, want, a, b);
    }
    int op = float_ops[below(c, sizeof float_ops / sizeof float_ops[0])];
    GType lt = want, rt = want;
    if (want == G_F64) {
        switch (below(c, 5)) {
        case 0: lt = G_I64; break;
        case 1: rt = chance(c, 50) ? G_F32 : G_I64; break;
        case 2: lt = G_F32; rt = G_I64; break;
        default: break;
        }
        if (op == OP_DIV && chance(c, 20))
            lt = rt = G_I64;                 /* int / int is float64 */
    }
    if (op == OP_POW) {
        if (c->o->exact_only || chance(c, 60)) {
            /* float ** int: repeated multiplication, exact to reproduce */
            GExpr *b = chance(c, 80) ? const_int(c, G_I64, (int64_t)below(c, 9) - 3)
                                     : gen_expr(c, G_I64, depth + 1);
            return binary(c, GE_BINARY, op, want, gen_expr(c, want, depth + 1), b);
        }
        c->f->inexact = true;            /* pow() */
        lt = rt = want;
    }
    if (binop_type(op, lt, rt) != want)
        lt = rt = want;
    return binary(c, GE_BINARY, op, want, gen_expr(c, lt, depth + 1), gen_expr(c, rt, depth + 1));
}

static GExpr *gen_call(Ctx *c, GType want, int depth)
{
    if (want == G_I64) {
        switch (below(c, 7)) {
        case 0: return call1(c, FN_ABS, G_I64, gen_expr(c, G_I64, depth + 1));
        case 1: return call2(c, chance(c, 50) ? FN_MIN : FN_MAX, G_I64, gen_expr(c, G_I64, depth + 1),
                             gen_expr(c, G_I64, depth + 1));
        case 2: {
            /* int() of a float is int64; of an integer it keeps the integer's type */
            GExpr *a = gen_expr(c, any_numeric(c), depth + 1);
            return call1(c, gtype_is_float(a->type) ? FN_INT : FN_NP_I64, G_I64, a);
        }
        case 3: return call1(c, FN_ROUND, G_I64, gen_expr(c, chance(c, 50) ? G_F64 : G_F32, depth + 1));
        case 4: return call1(c, FN_NP_I64, G_I64, gen_expr(c, any_numeric(c), depth + 1));
        case 5: {
            /* narrowing wraps, then back to int64 */
            GFn fn = chance(c, 50) ? FN_NP_I32 : (chance(c, 50) ? FN_NP_I8 : FN_NP_U8);
            GType t = fn == FN_NP_I32 ? G_I32 : fn == FN_NP_I8 ? G_I8 : G_U8;
            return call1(c, FN_NP_I64, G_I64, call1(c, fn, t, gen_expr(c, any_numeric(c), depth + 1)));
        }
        default: {
            /* floor, ceil, trunc of an int give float64 (Numba's CUDA typing) */
            GFn fn = (GFn)(FN_FLOOR + (int)below(c, 3));
            return call1(c, FN_INT, G_I64, call1(c, fn, G_F64, gen_expr(c, G_I64, depth + 1)));
        }
        }
    }
    /* want is float32 or float64 */
    GType other = want == G_F64 && chance(c, 40) ? any_numeric(c) : want;
    if (other == G_BOOL)
        other = G_I64;
    unsigned n = c->o->exact_only ? 9 : 12;
    switch (below(c, n)) {
    case 0: return call1(c, FN_ABS, want, gen_expr(c, want, depth + 1));
    case 1: {
        GExpr *a = gen_expr(c, want, depth + 1), *b = gen_expr(c, want, depth + 1);
        return call2(c, chance(c, 50) ? FN_MIN : FN_MAX, want, a, b);
    }
    case 2: {
        GExpr *a = gen_expr(c, any_numeric(c), depth + 1);
        bool plain = a->type != G_BOOL && a->type != G_F32;      /* float() of these is float64 */
        return call1(c, want == G_F32 ? FN_NP_F32 : plain ? FN_FLOAT : FN_NP_F64, want, a);
    }
    case 3: {
        /* sqrt of an int is float64 */
        GType t = want == G_F32 ? G_F32 : (chance(c, 70) ? G_F64 : G_I64);
        return call1(c, FN_SQRT, want, gen_expr(c, t, depth + 1));
    }
    case 4: return call1(c, FN_FABS, want, gen_expr(c, want, depth + 1));
    case 5: {
        /* floor, ceil, trunc of a float keep its type in ufnc (CUDA's rule;
         * Numba's CPU target gives int64): written inside a cast to the
         * float type, so both agree wherever the integer fits */
        GFn fn = (GFn)(FN_FLOOR + (int)below(c, 3));
        GType at = want == G_F64 && chance(c, 25) ? G_I64 : want;      /* of an int: float64 */
        GExpr *inner = call1(c, fn, want, gen_expr(c, at, depth + 1));
        return call1(c, want == G_F32 ? FN_NP_F32 : FN_FLOAT, want, inner);
    }
    case 6: {
        GType t = want == G_F64 && chance(c, 30) ? G_I64 : want;
        return call2(c, FN_COPYSIGN, want, gen_expr(c, want, depth + 1), gen_expr(c, t, depth + 1));
    }
    case 7: return call2(c, FN_FMOD, want, gen_expr(c, want, depth + 1), gen_expr(c, want, depth + 1));
    case 8: return call1(c, want == G_F32 ? FN_NP_F32 : FN_NP_F64, want, gen_expr(c, other, depth + 1));
    case 9: {
        c->f->inexact = true;
        GFn fn = (GFn)(FN_EXP + (int)below(c, 5));
        return call1(c, fn, want, gen_expr(c, want, depth + 1));
    }
    default: {
        c->f->inexact = true;
        GFn fn = (GFn)(FN_ATAN2 + (int)below(c, 3));
        return call2(c, fn, want, gen_expr(c, want, depth + 1), gen_expr(c, want, depth + 1));
    }
    }
}

/* uint64 arithmetic: operators, abs, min, max, casts, a branch. */
static GExpr *gen_u64(Ctx *c, int depth)
{
    switch (below(c, 7)) {
    case 0: return leaf(c, G_U64);
    case 1:
    case 2: return gen_arith(c, G_U64, depth);
    case 3: return unary(c, chance(c, 50) ? OP_NEG : OP_INV, G_U64, gen_expr(c, G_U64, depth + 1));
    case 4: return call1(c, FN_NP_U64, G_U64, gen_expr(c, any_numeric(c), depth + 1));
    case 5:
        if (chance(c, 30))
            return call1(c, FN_ABS, G_U64, gen_expr(c, G_U64, depth + 1));
        return call2(c, chance(c, 50) ? FN_MIN : FN_MAX, G_U64, gen_expr(c, G_U64, depth + 1),
                     gen_expr(c, G_U64, depth + 1));
    default: {
        GExpr *x = node(c, GE_IFEXP, G_U64, 0, 3);
        x->args[0] = gen_expr(c, G_BOOL, depth + 1);
        x->args[1] = gen_expr(c, G_U64, depth + 1);
        x->args[2] = gen_expr(c, G_U64, depth + 1);
        return x;
    }
    }
}

static GExpr *gen_expr(Ctx *c, GType want, int depth)
{
    if (want == G_BOOL)
        return depth >= c->o->max_depth ? leaf(c, want) : gen_bool(c, depth);
    if (want == G_I8 || want == G_I32 || want == G_U8) {
        if (depth >= c->o->max_depth || chance(c, 40))
            return leaf(c, want);
        return convert(c, gen_expr(c, chance(c, 70) ? G_I64 : G_F64, depth + 1), want);
    }
    if (depth >= c->o->max_depth)
        return leaf(c, want);
    if (want == G_U64)
        return gen_u64(c, depth);
    GExpr *e = NULL;
    switch (below(c, 12)) {
    case 0:
    case 1: return leaf(c, want);
    case 2:
    case 3:
    case 4: return gen_arith(c, want, depth);
    case 5:
        if (want == G_I64 && chance(c, 40))
            return unary(c, OP_INV, want, gen_expr(c, want, depth + 1));
        return unary(c, chance(c, 80) ? OP_NEG : OP_POS, want, gen_expr(c, want, depth + 1));
    case 6:
    case 7: return gen_call(c, want, depth);
    case 8: {
        GExpr *x = node(c, GE_IFEXP, want, 0, 3);
        x->args[0] = gen_expr(c, G_BOOL, depth + 1);
        x->args[1] = gen_expr(c, want, depth + 1);
        x->args[2] = gen_expr(c, want, depth + 1);
        return x;
    }
    case 9: e = helper_call(c, want, depth); break;
    case 10: e = array_read(c, want, depth); break;
    default:
        if (want == G_I64) {
            int a = pick_array(c, false);
            if (a >= 0)
                e = array_len(c, a);
        } else
            return convert(c, gen_expr(c, any_numeric(c), depth + 1), want);
        break;
    }
    return e ? e : leaf(c, want);
}

/* ---- statements ------------------------------------------------------------------------------- */

static GStmt *stmt(Ctx *c, GStmtKind kind)
{
    GStmt *s = galloc(c->p, sizeof *s);
    s->kind = kind;
    c->budget--;
    return s;
}

static void push(Ctx *c, GBlock *b, GStmt *s)
{
    GStmt **items = galloc(c->p, sizeof(GStmt *) * (size_t)(b->len + 1));
    if (b->len)
        memcpy(items, b->items, sizeof(GStmt *) * (size_t)b->len);
    items[b->len++] = s;
    b->items = items;
}

static void gen_block(Ctx *c, GBlock *b);

static GExpr *return_value(Ctx *c)
{
    GFunc *f = c->f;
    if (f->kind == GF_HELPER)
        return gen_expr(c, f->ret, 0);
    /* a kernel's result is cast to the signature's type */
    return gen_expr(c, f->rexpr, 0);
}

static GStmt *gen_return(Ctx *c)
{
    GStmt *s = stmt(c, GS_RETURN);
    GFunc *f = c->f;
    if (f->kind == GF_GUVECTORIZE)
        return s;
    s->e = return_value(c);
    if (f->pair)
        s->e2 = gen_expr(c, f->ret2, 0);
    return s;
}

/* A guarded break, continue or return: if cond: <it> */
static GStmt *guarded(Ctx *c, GStmt *inner)
{
    GStmt *s = stmt(c, GS_IF);
    s->e = gen_expr(c, G_BOOL, 1);
    push(c, &s->body, inner);
    return s;
}

static GStmt *gen_assign(Ctx *c)
{
    int v = c->first_local + (int)below(c, (unsigned)c->assignable);
    GStmt *s = stmt(c, GS_ASSIGN);
    s->var = v;
    s->e = gen_expr(c, c->f->vars[v].type, 0);
    return s;
}

static GStmt *gen_aug(Ctx *c)
{
    int v = c->first_local + (int)below(c, (unsigned)c->assignable);
    GType t = c->f->vars[v].type;
    if (t == G_BOOL)
        return gen_assign(c);
    GStmt *s = stmt(c, GS_AUG);
    s->var = v;
    if (t == G_I64 || t == G_U64) {
        static const int ops[] = {OP_ADD, OP_SUB, OP_MUL, OP_FLOORDIV, OP_MOD, OP_AND, OP_OR, OP_XOR,
                                  OP_SHL, OP_SHR};
        s->op = ops[below(c, sizeof ops / sizeof ops[0])];
        /* a uint64 variable stays uint64 only with an unsigned operand */
        s->e = gen_expr(c, t == G_U64 ? (chance(c, 80) ? G_U64 : G_U8) : G_I64, 1);
    } else {
        static const int ops[] = {OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_FLOORDIV, OP_MOD};
        s->op = ops[below(c, sizeof ops / sizeof ops[0])];
        /* the result must keep the variable's type: float32 only with float32 */
        s->e = gen_expr(c, t == G_F32 ? G_F32 : (chance(c, 70) ? G_F64 : G_I64), 1);
    }
    return s;
}

static void with_var(Ctx *c, int v, GBlock *b)
{
    int saved = c->nlive;
    if (v >= 0)
        c->live[c->nlive++] = v;
    c->loops++;
    gen_block(c, b);
    c->loops--;
    c->nlive = saved;
}

static GStmt *gen_for(Ctx *c)
{
    int v = new_var(c, "i", G_I64);
    if (v < 0)
        return stmt(c, GS_PASS);
    GStmt *s = stmt(c, GS_FOR);
    s->var = v;
    switch (below(c, 4)) {
    case 0:
        s->e2 = const_int(c, G_I64, (int64_t)below(c, 6));
        break;
    case 1: {
        /* range(e % 5): 0..4 iterations */
        s->e2 = binary(c, GE_BINARY, OP_MOD, G_I64, gen_expr(c, G_I64, 2), const_int(c, G_I64, 5));
        break;
    }
    case 2: {
        /* range(lo, hi, step) with a negative or positive step */
        int64_t lo = (int64_t)below(c, 7) - 3, hi = (int64_t)below(c, 7) - 3, step = (int64_t)below(c, 3) + 1;
        if (chance(c, 40))
            step = -step;
        s->e = const_int(c, G_I64, lo);
        s->e2 = const_int(c, G_I64, hi);
        s->e3 = const_int(c, G_I64, step);
        break;
    }
    default: {
        int a = pick_array(c, false);
        s->e2 = a >= 0 ? array_len(c, a) : const_int(c, G_I64, 3);
        break;
    }
    }
    with_var(c, v, &s->body);
    return s;
}

static GStmt *gen_for_array(Ctx *c)
{
    int a = pick_array(c, true);
    if (a < 0 || array_ndim(c, a) != 1)        /* the rows of a 2-D array are arrays */
        return gen_for(c);
    int v = new_var(c, "v", c->f->vars[a].type);
    if (v < 0)
        return stmt(c, GS_PASS);
    GStmt *s = stmt(c, GS_FOR_ARRAY);
    s->var = v;
    s->var2 = a;
    with_var(c, v, &s->body);
    return s;
}

static GStmt *gen_while(Ctx *c)
{
    int v = new_var(c, "w", G_I64);
    if (v < 0)
        return stmt(c, GS_PASS);
    GStmt *s = stmt(c, GS_WHILE);
    s->var = v;
    s->e = const_int(c, G_I64, (int64_t)below(c, 5));
    with_var(c, v, &s->body);
    return s;
}

static GStmt *gen_if(Ctx *c)
{
    GStmt *s = stmt(c, GS_IF);
    s->e = gen_expr(c, G_BOOL, 0);
    c->depth++;
    gen_block(c, &s->body);
    if (chance(c, 50)) {
        if (chance(c, 40) && c->budget > 0)
            push(c, &s->orelse, gen_if(c));            /* elif */
        else
            gen_block(c, &s->orelse);
    }
    c->depth--;
    return s;
}

static GStmt *gen_unpack(Ctx *c)
{
    int cand[12], n = 0;
    for (int i = 0; i < c->p->nfuncs; i++) {
        GFunc *h = &c->p->funcs[i];
        if (h->kind == GF_HELPER && h->pair && h != c->f && h->body.len)
            cand[n++] = i;
    }
    if (!n)
        return gen_assign(c);
    GFunc *h = &c->p->funcs[cand[below(c, (unsigned)n)]];
    int a = new_var(c, "t", h->ret), b = new_var(c, "t", h->ret2);
    if (a < 0 || b < 0)
        return stmt(c, GS_PASS);
    GStmt *s = stmt(c, GS_UNPACK);
    s->var = a;
    s->var2 = b;
    GExpr *e = node(c, GE_HELPER, h->ret, 0, h->nparams);
    e->var = (int)(h - c->p->funcs);
    for (int i = 0; i < h->nparams; i++)
        e->args[i] = gen_expr(c, h->vars[i].type, 1);
    s->e = e;
    /* readable for the rest of this block (the caller keeps nlive) */
    c->live[c->nlive++] = a;
    c->live[c->nlive++] = b;
    return s;
}

static GStmt *gen_store(Ctx *c)
{
    int cand[8], n = 0;
    for (int i = 0; i < c->f->nparams; i++)
        if (c->f->vars[i].output)
            cand[n++] = i;
    if (!n)
        return gen_assign(c);
    int a = cand[below(c, (unsigned)n)];
    GStmt *s = stmt(c, GS_STORE);
    s->var = a;
    s->e = safe_index(c, a, 0, 1);
    if (array_ndim(c, a) == 2)
        s->e3 = safe_index(c, a, 1, 1);
    s->e2 = gen_expr(c, c->f->vars[a].type, 0);
    return s;
}

static GStmt *gen_stmt(Ctx *c)
{
    bool guf = c->f->kind == GF_GUVECTORIZE, deep = c->depth >= 3 || c->budget < 4;
    switch (below(c, 14)) {
    case 0:
    case 1:
    case 2: return gen_assign(c);
    case 3:
    case 4: return gen_aug(c);
    case 5: return deep ? gen_assign(c) : gen_if(c);
    case 6: return deep ? gen_aug(c) : gen_for(c);
    case 7: return deep ? gen_assign(c) : gen_while(c);
    case 8: return gen_unpack(c);
    case 9:
        if (c->loops)
            return guarded(c, stmt(c, chance(c, 50) ? GS_BREAK : GS_CONTINUE));
        return gen_assign(c);
    case 10: return c->depth > 0 ? guarded(c, gen_return(c)) : gen_assign(c);
    case 11: return guf ? gen_store(c) : gen_assign(c);
    case 12: return guf && !deep ? gen_for_array(c) : gen_aug(c);
    default: return chance(c, 10) ? stmt(c, GS_PASS) : gen_assign(c);
    }
}

static void gen_block(Ctx *c, GBlock *b)
{
    int saved = c->nlive;
    int n = 1 + (int)below(c, (unsigned)c->o->max_stmts);
    c->depth++;
    for (int i = 0; i < n && c->budget > 0; i++)
        push(c, b, gen_stmt(c));
    if (!b->len)
        push(c, b, stmt(c, GS_PASS));
    c->depth--;
    c->nlive = saved;
}

/* ---- functions -------------------------------------------------------------------------------- */

static GType scalar_type(Ctx *c, bool narrow)
{
    static const GType ts[] = {G_F64, G_F32, G_I64, G_F64, G_I64, G_U64, G_BOOL, G_I32, G_I8, G_U8};
    return ts[below(c, narrow ? 10 : 6)];
}

/* Locals x0.. with their first assignments at the top of the body. */
static void declare_locals(Ctx *c, GBlock *body)
{
    int n = 1 + (int)below(c, 4);
    c->assignable = 0;
    c->first_local = c->f->nvars;
    for (int i = 0; i < n; i++) {
        int v = new_var(c, "x", scalar_type(c, false));
        GStmt *s = stmt(c, GS_ASSIGN);
        s->var = v;
        s->e = gen_expr(c, c->f->vars[v].type, 1);
        push(c, body, s);
        c->live[c->nlive++] = v;
        c->assignable++;
    }
}

static void start_function(Ctx *c, GFunc *f)
{
    c->f = f;
    c->nlive = 0;
    c->counter = 0;
    c->budget = 12 + c->o->max_stmts * 4;
    c->loops = c->depth = 0;
    c->outputs_ready = false;
}

static void add_param(Ctx *c, GFunc *f, GType t, bool array, bool output)
{
    GVar *v = &f->vars[f->nvars];
    snprintf(v->name, sizeof v->name, "%s%d", array ? (output ? "o" : "a") : "p", f->nvars);
    v->type = t;
    v->array = array;
    v->output = output;
    v->param = true;
    if (!array)
        c->live[c->nlive++] = f->nvars;
    f->nvars++;
    f->nparams = f->nvars;
}

static void gen_helper(Ctx *c, GFunc *f, int index)
{
    start_function(c, f);
    f->kind = GF_HELPER;
    snprintf(f->name, sizeof f->name, "h%d", index);
    f->decorator = (int)below(c, 3);
    int np = 1 + (int)below(c, 3);
    for (int i = 0; i < np; i++)
        add_param(c, f, scalar_type(c, true), false, false);
    f->ret = scalar_type(c, false);
    f->pair = chance(c, 30);
    if (f->pair)
        f->ret2 = scalar_type(c, false);
    c->budget = 6 + c->o->max_stmts;
    declare_locals(c, &f->body);
    if (chance(c, 60))
        gen_block(c, &f->body);
    c->budget = 1;
    push(c, &f->body, gen_return(c));
}

static void gen_vectorize(Ctx *c, GFunc *f, int index)
{
    start_function(c, f);
    f->kind = GF_VECTORIZE;
    snprintf(f->name, sizeof f->name, "k%d", index);
    int np = 1 + (int)below(c, 3);
    for (int i = 0; i < np; i++)
        add_param(c, f, scalar_type(c, true), false, false);
    f->ret = scalar_type(c, true);
    /* every return gives one type (sometimes not the signature's, to test
     * the cast); mixed types would first unify, then cast */
    f->rexpr = chance(c, 20) ? any_numeric(c) : f->ret;
    declare_locals(c, &f->body);
    gen_block(c, &f->body);
    c->budget = 1;
    push(c, &f->body, gen_return(c));
}

static void gen_guvectorize(Ctx *c, GFunc *f, int index)
{
    start_function(c, f);
    f->kind = GF_GUVECTORIZE;
    snprintf(f->name, sizeof f->name, "g%d", index);
    f->layout = (int)below(c, (unsigned)gen_nlayouts);
    const GLayout *l = &gen_layouts[f->layout];
    static const GType elts[] = {G_F64, G_F32, G_I64, G_I32, G_U64};
    for (int k = 0; k < l->nin + l->nout; k++) {
        bool out = k >= l->nin;
        GType t = elts[below(c, 5)];
        if (!out && !l->ndims[k])
            add_param(c, f, t, false, false);              /* a "()" input is a scalar */
        else
            add_param(c, f, t, true, out);
    }
    /* write every output element first: the driver compares all of them */
    for (int k = l->nin; k < l->nin + l->nout; k++) {
        int i = new_var(c, "i", G_I64), j = -1;
        GStmt *s = stmt(c, GS_FOR), *inner = s;
        s->var = i;
        s->e2 = array_len_axis(c, k, 0);
        c->live[c->nlive++] = i;
        if (l->ndims[k] == 2) {
            j = new_var(c, "j", G_I64);
            inner = stmt(c, GS_FOR);
            inner->var = j;
            inner->e2 = array_len_axis(c, k, 1);
            c->live[c->nlive++] = j;
            push(c, &s->body, inner);
        }
        GStmt *st = stmt(c, GS_STORE);
        st->var = k;
        st->e = var_ref(c, i);
        if (j >= 0)
            st->e3 = var_ref(c, j);
        st->e2 = gen_expr(c, f->vars[k].type, 2);
        c->nlive -= j >= 0 ? 2 : 1;
        push(c, &inner->body, st);
        push(c, &f->body, s);
    }
    c->outputs_ready = true;
    declare_locals(c, &f->body);
    gen_block(c, &f->body);
}

static void gen_globals(Ctx *c)
{
    GenProgram *p = c->p;
    GFunc scratch = {0};
    start_function(c, &scratch);
    p->nglobals = (int)below(c, 4);
    for (int g = 0; g < p->nglobals; g++) {
        GGlobal *gl = &p->globals[g];
        snprintf(gl->name, sizeof gl->name, "C%d", g);
        GType t = (GType)(chance(c, 50) ? G_F64 : (chance(c, 50) ? G_I64 : G_F32));
        /* a literal, or a folded expression of small literals (Python
         * folds with big ints and raises on a division by zero: neither
         * belongs here) */
        GExpr *e = gen_const(c, t);
        if (t != G_F32 && chance(c, 50)) {
            int op = chance(c, 50) ? OP_MUL : (chance(c, 50) ? OP_ADD : OP_SUB);
            GExpr *a = t == G_I64 ? const_int(c, t, (int64_t)below(c, 2001) - 1000) : e;
            GExpr *b = t == G_I64 ? const_int(c, t, (int64_t)below(c, 2001) - 1000) : gen_const(c, t);
            e = binary(c, GE_BINARY, op, t, a, b);
        }
        gl->type = t;
        gl->init = e;
        gl->val = gen_eval_const(p, e);
    }
}

void gen_default_options(GenOptions *o)
{
    *o = (GenOptions){.max_kernels = 3, .max_helpers = 3, .max_depth = 4, .max_stmts = 4,
                      .exact_only = false, .gufuncs = true};
}

GenProgram *gen_program(GenRng *r, const GenOptions *o)
{
    GenProgram *p = calloc(1, sizeof *p);
    if (!p)
        abort();
    Ctx c = {.r = r, .o = o, .p = p};
    gen_globals(&c);
    int nh = o->max_helpers ? (int)below(&c, (unsigned)o->max_helpers + 1) : 0;
    for (int i = 0; i < nh; i++) {
        gen_helper(&c, &p->funcs[p->nfuncs], i);
        p->nfuncs++;
    }
    int nk = 1 + (int)below(&c, (unsigned)o->max_kernels);
    for (int i = 0; i < nk && p->nfuncs < 12; i++) {
        GFunc *f = &p->funcs[p->nfuncs];
        if (o->gufuncs && chance(&c, 35))
            gen_guvectorize(&c, f, i);
        else
            gen_vectorize(&c, f, i);
        p->nfuncs++;
    }
    return p;
}

/* ---- printing --------------------------------------------------------------------------------- */

typedef struct Out {
    char *data;
    size_t len, cap;
} Out;

static void put(Out *o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (o->len + (size_t)n + 1 > o->cap) {
        o->cap = (o->len + (size_t)n + 1) * 2;
        o->data = realloc(o->data, o->cap);
        if (!o->data)
            abort();
    }
    vsnprintf(o->data + o->len, (size_t)n + 1, fmt, ap);
    o->len += (size_t)n;
    va_end(ap);
}

static const char *const op_text[] = {
    [OP_ADD] = "+", [OP_SUB] = "-", [OP_MUL] = "*", [OP_DIV] = "/", [OP_FLOORDIV] = "//",
    [OP_MOD] = "%", [OP_POW] = "**", [OP_SHL] = "<<", [OP_SHR] = ">>", [OP_AND] = "&",
    [OP_OR] = "|", [OP_XOR] = "^", [OP_LT] = "<", [OP_LE] = "<=", [OP_GT] = ">", [OP_GE] = ">=",
    [OP_EQ] = "==", [OP_NE] = "!=", [OP_NEG] = "-", [OP_POS] = "+", [OP_INV] = "~",
    [OP_NOT] = "not ", [OP_LAND] = "and", [OP_LOR] = "or",
};

static const char *const fn_text[FN_COUNT] = {
    [FN_ABS] = "abs", [FN_MIN] = "min", [FN_MAX] = "max", [FN_INT] = "int", [FN_FLOAT] = "float",
    [FN_BOOL] = "bool", [FN_ROUND] = "round", [FN_NP_F32] = "np.float32", [FN_NP_F64] = "np.float64",
    [FN_NP_I64] = "np.int64", [FN_NP_I32] = "np.int32", [FN_NP_I8] = "np.int8", [FN_NP_U8] = "np.uint8",
    [FN_NP_U64] = "np.uint64",
    [FN_SQRT] = "math.sqrt", [FN_FABS] = "math.fabs", [FN_FLOOR] = "math.floor", [FN_CEIL] = "math.ceil",
    [FN_TRUNC] = "math.trunc", [FN_COPYSIGN] = "math.copysign", [FN_FMOD] = "math.fmod",
    [FN_ISNAN] = "math.isnan", [FN_ISINF] = "math.isinf", [FN_ISFINITE] = "math.isfinite",
    [FN_EXP] = "math.exp", [FN_LOG] = "math.log", [FN_SIN] = "math.sin", [FN_COS] = "math.cos",
    [FN_TANH] = "math.tanh", [FN_ATAN2] = "math.atan2", [FN_HYPOT] = "math.hypot", [FN_POWF] = "math.pow",
};

static void print_double(Out *o, double d)
{
    if (isnan(d))
        put(o, "math.nan");
    else if (isinf(d))
        put(o, d < 0 ? "(-math.inf)" : "math.inf");
    else {
        char buf[40];
        snprintf(buf, sizeof buf, "%.17g", d);
        bool neg = buf[0] == '-';
        if (!strpbrk(buf, ".e"))
            strcat(buf, ".0");
        put(o, neg ? "(%s)" : "%s", buf);
    }
}

static void print_expr(Out *o, const GenProgram *p, const GFunc *f, const GExpr *e)
{
    switch (e->kind) {
    case GE_CONST:
        if (e->type == G_BOOL)
            put(o, e->val.i ? "True" : "False");
        else if (e->type == G_F32) {
            put(o, "np.float32(");
            print_double(o, e->val.f64);
            put(o, ")");
        } else if (e->type == G_F64)
            print_double(o, e->val.f64);
        else if (e->type == G_U64)
            put(o, "np.uint64(%llu)", (unsigned long long)(uint64_t)e->val.i);
        else if (e->val.i == INT64_MIN)
            put(o, "(-9223372036854775807 - 1)");
        else
            put(o, e->val.i < 0 ? "(%lld)" : "%lld", (long long)e->val.i);
        break;
    case GE_LOCAL: put(o, "%s", f->vars[e->var].name); break;
    case GE_GLOBAL: put(o, "%s", p->globals[e->var].name); break;
    case GE_UNARY:
        put(o, "(%s", op_text[e->op]);
        print_expr(o, p, f, e->args[0]);
        put(o, ")");
        break;
    case GE_BINARY:
    case GE_BOOLOP:
        put(o, "(");
        print_expr(o, p, f, e->args[0]);
        put(o, " %s ", op_text[e->op]);
        print_expr(o, p, f, e->args[1]);
        put(o, ")");
        break;
    case GE_COMPARE:
        put(o, "(");
        for (int i = 0; i < e->nargs; i++) {
            if (i)
                put(o, " %s ", op_text[e->args[e->nargs + i - 1]->val.i]);
            print_expr(o, p, f, e->args[i]);
        }
        put(o, ")");
        break;
    case GE_IFEXP:
        put(o, "(");
        print_expr(o, p, f, e->args[1]);
        put(o, " if ");
        print_expr(o, p, f, e->args[0]);
        put(o, " else ");
        print_expr(o, p, f, e->args[2]);
        put(o, ")");
        break;
    case GE_CALL:
    case GE_HELPER:
        put(o, "%s(", e->kind == GE_CALL ? fn_text[e->op] : p->funcs[e->var].name);
        for (int i = 0; i < e->nargs; i++) {
            if (i)
                put(o, ", ");
            print_expr(o, p, f, e->args[i]);
        }
        put(o, ")");
        break;
    case GE_INDEX:
        put(o, "%s[", f->vars[e->var].name);
        for (int i = 0; i < e->nargs; i++) {
            if (i)
                put(o, ", ");
            print_expr(o, p, f, e->args[i]);
        }
        put(o, "]");
        break;
    case GE_LEN:
        if (e->op == 0)
            put(o, "len(%s)", f->vars[e->var].name);
        else
            put(o, "%s.shape[%d]", f->vars[e->var].name, e->op - 1);
        break;
    }
}

static void print_block(Out *o, const GenProgram *p, const GFunc *f, const GBlock *b, int ind);

static void print_stmt(Out *o, const GenProgram *p, const GFunc *f, const GStmt *s, int ind, bool elif)
{
    if (!elif)
        put(o, "%*s", ind * 4, "");
    const char *name = f->vars[s->var].name;
    switch (s->kind) {
    case GS_ASSIGN:
        put(o, "%s = ", name);
        print_expr(o, p, f, s->e);
        put(o, "\n");
        break;
    case GS_AUG:
        put(o, "%s %s= ", name, op_text[s->op]);
        print_expr(o, p, f, s->e);
        put(o, "\n");
        break;
    case GS_UNPACK:
        put(o, "%s, %s = ", name, f->vars[s->var2].name);
        print_expr(o, p, f, s->e);
        put(o, "\n");
        break;
    case GS_IF:
        put(o, "%s ", elif ? "elif" : "if");
        print_expr(o, p, f, s->e);
        put(o, ":\n");
        print_block(o, p, f, &s->body, ind + 1);
        if (s->orelse.len == 1 && s->orelse.items[0]->kind == GS_IF) {
            put(o, "%*s", ind * 4, "");
            print_stmt(o, p, f, s->orelse.items[0], ind, true);
        } else if (s->orelse.len) {
            put(o, "%*selse:\n", ind * 4, "");
            print_block(o, p, f, &s->orelse, ind + 1);
        }
        break;
    case GS_FOR:
        put(o, "for %s in range(", name);
        if (s->e) {
            print_expr(o, p, f, s->e);
            put(o, ", ");
        }
        print_expr(o, p, f, s->e2);
        if (s->e3) {
            put(o, ", ");
            print_expr(o, p, f, s->e3);
        }
        put(o, "):\n");
        print_block(o, p, f, &s->body, ind + 1);
        break;
    case GS_FOR_ARRAY:
        put(o, "for %s in %s:\n", name, f->vars[s->var2].name);
        print_block(o, p, f, &s->body, ind + 1);
        break;
    case GS_WHILE:
        put(o, "%s = 0\n%*swhile %s < ", name, ind * 4, "", name);
        print_expr(o, p, f, s->e);
        put(o, ":\n%*s%s += 1\n", ind * 4 + 4, "", name);
        print_block(o, p, f, &s->body, ind + 1);
        break;
    case GS_BREAK: put(o, "break\n"); break;
    case GS_CONTINUE: put(o, "continue\n"); break;
    case GS_RETURN:
        put(o, "return");
        if (s->e) {
            put(o, " ");
            print_expr(o, p, f, s->e);
        }
        if (s->e2) {
            put(o, ", ");
            print_expr(o, p, f, s->e2);
        }
        put(o, "\n");
        break;
    case GS_STORE:
        put(o, "%s[", name);
        print_expr(o, p, f, s->e);
        if (s->e3) {
            put(o, ", ");
            print_expr(o, p, f, s->e3);
        }
        put(o, "] = ");
        print_expr(o, p, f, s->e2);
        put(o, "\n");
        break;
    case GS_PASS: put(o, "pass\n"); break;
    }
}

static void print_block(Out *o, const GenProgram *p, const GFunc *f, const GBlock *b, int ind)
{
    for (int i = 0; i < b->len; i++)
        print_stmt(o, p, f, b->items[i], ind, false);
}

static void print_signature(Out *o, const GFunc *f)
{
    if (f->kind == GF_VECTORIZE) {
        put(o, "%s(", gtype_name(f->ret));
        for (int i = 0; i < f->nparams; i++)
            put(o, "%s%s", i ? ", " : "", gtype_name(f->vars[i].type));
        put(o, ")");
        return;
    }
    put(o, "void(");
    for (int i = 0; i < f->nparams; i++) {
        const char *dims = !f->vars[i].array ? "" : gen_layouts[f->layout].ndims[i] == 2 ? "[:, :]" : "[:]";
        put(o, "%s%s%s", i ? ", " : "", gtype_name(f->vars[i].type), dims);
    }
    put(o, ")");
}

char *gen_print_ufn(const GenProgram *p, size_t *len)
{
    Out o = {0};
    put(&o, "\"\"\"A module written by tests/fuzz/gen.c.\"\"\"\n");
    put(&o, "import math\nimport numpy as np\nfrom numba import vectorize, guvectorize, jit, njit, cuda\n\n");
    for (int g = 0; g < p->nglobals; g++) {
        put(&o, "%s = ", p->globals[g].name);
        print_expr(&o, p, NULL, p->globals[g].init);
        put(&o, "\n");
    }
    static const char *const decorators[] = {"@jit", "@njit", "@cuda.jit(device=True)"};
    for (int i = 0; i < p->nfuncs; i++) {
        const GFunc *f = &p->funcs[i];
        put(&o, "\n\n");
        if (f->kind == GF_HELPER)
            put(&o, "%s\n", decorators[f->decorator]);
        else if (f->kind == GF_VECTORIZE) {
            put(&o, "@vectorize(['");
            print_signature(&o, f);
            put(&o, "'])\n");
        } else {
            put(&o, "@guvectorize(['");
            print_signature(&o, f);
            put(&o, "'], '%s')\n", gen_layouts[f->layout].text);
        }
        put(&o, "def %s(", f->name);
        for (int k = 0; k < f->nparams; k++)
            put(&o, "%s%s", k ? ", " : "", f->vars[k].name);
        put(&o, "):\n");
        print_block(&o, p, f, &f->body, 1);
    }
    *len = o.len;
    return o.data;
}
