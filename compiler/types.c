/* types.c - the type table: scalars, tuples and gufunc arrays, Numba's and
 * NumPy's promotion rules, and unification of a variable's assignments.
 *
 * Every type is unique (tuples and arrays are hash-consed by a linear list:
 * a module has few of them), so types compare with ==. */
#include "ufnc.h"

#include <string.h>

typedef struct ScalarInfo {
    const char *name;
    int size;
} ScalarInfo;

static const ScalarInfo scalar_info[NUM_SCALAR_TYPES] = {
    [TY_BOOL] = {"bool", 1},
    [TY_INT8] = {"int8", 1},
    [TY_INT16] = {"int16", 2},
    [TY_INT32] = {"int32", 4},
    [TY_INT64] = {"int64", 8},
    [TY_UINT8] = {"uint8", 1},
    [TY_UINT16] = {"uint16", 2},
    [TY_UINT32] = {"uint32", 4},
    [TY_UINT64] = {"uint64", 8},
    [TY_FLOAT32] = {"float32", 4},
    [TY_FLOAT64] = {"float64", 8},
    [TY_COMPLEX64] = {"complex64", 8},
    [TY_COMPLEX128] = {"complex128", 16},
};

static Type scalars[NUM_SCALAR_TYPES];
static Type none_type = {.kind = TY_NONE, .name = "none"};

Type *ty_scalar(TypeKind kind)
{
    if (kind < 0 || kind >= NUM_SCALAR_TYPES)
        die("not a scalar kind: %d", (int)kind);
    Type *t = &scalars[kind];
    if (!t->name) {
        t->kind = kind;
        t->name = scalar_info[kind].name;
        t->size = scalar_info[kind].size;
    }
    return t;
}

Type *ty_none(void)
{
    return &none_type;
}

/* Derived types live in the arena; a list is enough for the few a module has.
 * arena_reset() frees them: the list remembers the arena generation it was
 * made in and starts again empty in a later one. */
typedef struct Derived {
    struct Derived *next;
    Type *type;
} Derived;

static Derived *derived;
static unsigned derived_generation;

void types_reset(void)
{
    derived = NULL;
    derived_generation = arena_generation();
}

/* The derived types of this arena generation. */
static Derived *derived_types(void)
{
    if (derived_generation != arena_generation())
        types_reset();
    return derived;
}

static Type *remember(Type *t)
{
    derived_types();
    Derived *d = arena_alloc(sizeof *d);
    d->type = t;
    d->next = derived;
    derived = d;
    return t;
}

Type *ty_tuple(int n, Type *const *elts)
{
    for (Derived *d = derived_types(); d; d = d->next) {
        Type *t = d->type;
        if (t->kind == TY_TUPLE && t->nelts == n && memcmp(t->elts, elts, sizeof(Type *) * (size_t)n) == 0)
            return t;
    }
    Type *t = arena_alloc(sizeof *t);
    t->kind = TY_TUPLE;
    t->nelts = n;
    t->elts = arena_alloc(sizeof(Type *) * (size_t)(n ? n : 1));
    if (n)
        memcpy(t->elts, elts, sizeof(Type *) * (size_t)n);
    Buf name = {0};
    bool uniform = n > 0;
    for (int i = 1; i < n; i++)
        uniform = uniform && elts[i] == elts[0];
    if (uniform)
        buf_printf(&name, "UniTuple(%s x %d)", elts[0]->name, n);
    else {
        buf_puts(&name, "Tuple(");
        for (int i = 0; i < n; i++)
            buf_printf(&name, "%s%s", i ? ", " : "", elts[i]->name);
        buf_puts(&name, ")");
    }
    t->name = arena_strndup(name.data, name.len);
    buf_free(&name);
    return remember(t);
}

Type *ty_array(Type *elt, int ndim, char layout)
{
    for (Derived *d = derived_types(); d; d = d->next) {
        Type *t = d->type;
        if (t->kind == TY_ARRAY && t->elt == elt && t->ndim == ndim && t->layout == layout)
            return t;
    }
    Type *t = arena_alloc(sizeof *t);
    t->kind = TY_ARRAY;
    t->elt = elt;
    t->ndim = ndim;
    t->layout = layout;
    t->name = arena_printf("array(%s, %dd, %c)", elt->name, ndim, layout);
    return remember(t);
}

/* Numba's names and aliases (numba/core/types/__init__.py), minus the ones
 * meaningless for ufuncs. */
static const struct { const char *name; TypeKind kind; } aliases[] = {
    {"boolean", TY_BOOL}, {"bool_", TY_BOOL}, {"b1", TY_BOOL}, {"bool", TY_BOOL},
    {"int8", TY_INT8}, {"i1", TY_INT8}, {"char", TY_INT8}, {"byte", TY_UINT8},
    {"int16", TY_INT16}, {"i2", TY_INT16}, {"short", TY_INT16},
    {"int32", TY_INT32}, {"i4", TY_INT32}, {"intc", TY_INT32},
    {"int64", TY_INT64}, {"i8", TY_INT64}, {"int_", TY_INT64}, {"long_", TY_INT64},
    {"longlong", TY_INT64}, {"intp", TY_INT64}, {"ssize_t", TY_INT64},
    {"uint8", TY_UINT8}, {"u1", TY_UINT8}, {"uchar", TY_UINT8},
    {"uint16", TY_UINT16}, {"u2", TY_UINT16}, {"ushort", TY_UINT16},
    {"uint32", TY_UINT32}, {"u4", TY_UINT32}, {"uintc", TY_UINT32},
    {"uint64", TY_UINT64}, {"u8", TY_UINT64}, {"uint", TY_UINT64}, {"ulong", TY_UINT64},
    {"ulonglong", TY_UINT64}, {"uintp", TY_UINT64}, {"size_t", TY_UINT64},
    {"float32", TY_FLOAT32}, {"f4", TY_FLOAT32}, {"float_", TY_FLOAT32}, {"single", TY_FLOAT32},
    {"float64", TY_FLOAT64}, {"f8", TY_FLOAT64}, {"double", TY_FLOAT64},
    {"complex64", TY_COMPLEX64}, {"c8", TY_COMPLEX64}, {"csingle", TY_COMPLEX64},
    {"complex128", TY_COMPLEX128}, {"c16", TY_COMPLEX128}, {"cdouble", TY_COMPLEX128},
};

Type *ty_by_name(const char *name)
{
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
        if (strcmp(aliases[i].name, name) == 0)
            return ty_scalar(aliases[i].kind);
    return NULL;
}

bool ty_is_scalar(const Type *t) { return t && t->kind < NUM_SCALAR_TYPES; }
bool ty_is_bool(const Type *t) { return t && t->kind == TY_BOOL; }
bool ty_is_signed(const Type *t) { return t && t->kind >= TY_INT8 && t->kind <= TY_INT64; }
bool ty_is_unsigned(const Type *t) { return t && t->kind >= TY_UINT8 && t->kind <= TY_UINT64; }
bool ty_is_int(const Type *t) { return ty_is_signed(t) || ty_is_unsigned(t); }
bool ty_is_float(const Type *t) { return t && (t->kind == TY_FLOAT32 || t->kind == TY_FLOAT64); }
bool ty_is_complex(const Type *t) { return t && (t->kind == TY_COMPLEX64 || t->kind == TY_COMPLEX128); }
bool ty_is_numeric(const Type *t) { return ty_is_scalar(t); }
int ty_bits(const Type *t) { return t->size * 8; }

/* np.promote_types on the 13 scalar types, computed from the kind ranks
 * rather than tabulated: the smallest type that holds both values. */
Type *ty_promote_numpy(Type *a, Type *b)
{
    if (a == b)
        return a;
    if (ty_is_bool(a))
        return b;
    if (ty_is_bool(b))
        return a;
    if (ty_is_complex(a) || ty_is_complex(b)) {
        /* complex64 holds float32 and ints up to 16 bits; otherwise complex128 */
        Type *c = ty_is_complex(a) ? a : b, *o = c == a ? b : a;
        if (c->kind == TY_COMPLEX128 || o->kind == TY_COMPLEX128 || o->kind == TY_FLOAT64)
            return ty_scalar(TY_COMPLEX128);
        if (ty_is_int(o) && ty_bits(o) > 16)
            return ty_scalar(TY_COMPLEX128);
        return ty_scalar(TY_COMPLEX64);
    }
    if (ty_is_float(a) || ty_is_float(b)) {
        Type *f = ty_is_float(a) ? a : b, *o = f == a ? b : a;
        if (f->kind == TY_FLOAT64 || o->kind == TY_FLOAT64)
            return ty_scalar(TY_FLOAT64);
        if (ty_is_int(o) && ty_bits(o) > 16)
            return ty_scalar(TY_FLOAT64);
        return ty_scalar(TY_FLOAT32);
    }
    /* two integers */
    if (ty_is_signed(a) == ty_is_signed(b))
        return ty_bits(a) >= ty_bits(b) ? a : b;
    Type *s = ty_is_signed(a) ? a : b, *u = s == a ? b : a;
    if (ty_bits(s) > ty_bits(u))
        return s;
    switch (ty_bits(u)) {
    case 8: return ty_scalar(TY_INT16);
    case 16: return ty_scalar(TY_INT32);
    case 32: return ty_scalar(TY_INT64);
    default: return ty_scalar(TY_FLOAT64);    /* uint64 with any signed */
    }
}

/* Numba's safe conversions of an integer (or bool) to a float: only types
 * of at most 16 bits that float32 holds exactly, and not uint16 (numba's
 * typeconv rules stop there; np.promote_types does not). */
static bool int_fits_float32(const Type *t)
{
    return t->kind == TY_BOOL || t->kind == TY_INT8 || t->kind == TY_UINT8 || t->kind == TY_INT16;
}

Type *ty_arith(Type *a, Type *b)
{
    bool ai = ty_is_int(a) || ty_is_bool(a), bi = ty_is_int(b) || ty_is_bool(b);
    if (ai && bi) {
        /* NBEP 1: integer arithmetic happens in the machine word. */
        if (ty_is_unsigned(a) && ty_is_unsigned(b))
            return ty_scalar(TY_UINT64);
        return ty_scalar(TY_INT64);
    }
    if (ai || bi) {
        /* an integer meets a float or a complex: the narrow one only if the
         * integer converts to it safely */
        Type *i = ai ? a : b, *x = ai ? b : a;
        if (x->kind == TY_FLOAT32 || x->kind == TY_COMPLEX64)
            return int_fits_float32(i) ? x : ty_scalar(x->kind == TY_FLOAT32 ? TY_FLOAT64 : TY_COMPLEX128);
        return x;
    }
    return ty_promote_numpy(a, b);
}

/* Where paths meet (branches, loops), Numba unifies a variable's types
 * with NumPy's promotion: int8 and uint8 make int16, int64 and uint64
 * float64. */
Type *ty_unify(Type *a, Type *b)
{
    if (a == b)
        return a;
    if (ty_is_scalar(a) && ty_is_scalar(b))
        return ty_promote_numpy(a, b);
    if (a->kind == TY_TUPLE && b->kind == TY_TUPLE && a->nelts == b->nelts) {
        Type *elts[64];
        if (a->nelts > 64)
            return NULL;
        for (int i = 0; i < a->nelts; i++)
            if (!(elts[i] = ty_unify(a->elts[i], b->elts[i])))
                return NULL;
        return ty_tuple(a->nelts, elts);
    }
    return NULL;
}

bool ty_can_convert(Type *from, Type *to)
{
    if (from == to)
        return true;
    if (ty_is_scalar(from) && ty_is_scalar(to))
        return !(ty_is_complex(from) && !ty_is_complex(to));
    if (from->kind == TY_TUPLE && to->kind == TY_TUPLE && from->nelts == to->nelts) {
        for (int i = 0; i < from->nelts; i++)
            if (!ty_can_convert(from->elts[i], to->elts[i]))
                return false;
        return true;
    }
    return false;
}

bool ty_can_cast_safe(const Type *from, const Type *to)
{
    if (from == to || ty_is_bool(from))
        return true;
    if (!ty_is_scalar(from) || !ty_is_scalar(to) || ty_is_bool(to))
        return false;
    int fs = from->size, ts = to->size;
    if (ty_is_int(from)) {
        if (ty_is_int(to)) {
            if (ty_is_unsigned(to))
                return ty_is_unsigned(from) && ts >= fs;
            return ty_is_signed(from) ? ts >= fs : ts > fs;
        }
        /* float32 (and complex64's parts) hold integers of 16 bits exactly */
        return ts == (ty_is_complex(to) ? 16 : 8) || fs <= 2;
    }
    if (ty_is_float(from))
        return ty_is_float(to) ? ts >= fs : ty_is_complex(to) && ts >= 2 * fs;
    return ty_is_complex(to) && ts >= fs;
}

const char *type_name(const Type *t)
{
    return t ? t->name : "<untyped>";
}
