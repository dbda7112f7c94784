/* sig.c - the two little languages inside decorator strings: Numba type
 * signatures ('float32(float32, float32)', '(float32[:], float32[:, ::1])')
 * and NumPy gufunc layouts ('(m,n),(n,p)->(m,p)').  Numba eval()s the
 * former; we parse the subset that real code uses (numba-semantics.md 1.1)
 * and point errors at the column inside the string. */
#include "ufnc.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

Loc str_loc(const Node *str, int offset, int len)
{
    Loc loc = str->loc;
    if (!loc.file || loc.line != loc.end_line)
        return loc;
    /* Find the opening quote in the source: skip a prefix (r, u, ...) and
     * the quote characters.  Signature strings have no escapes, so bytes of
     * the value map one to one onto source columns. */
    int linelen;
    const char *line = src_line(loc.file, loc.line, &linelen);
    int i = loc.col - 1;
    while (i < linelen && isalpha((unsigned char)line[i]))
        i++;
    if (i >= linelen || (line[i] != '\'' && line[i] != '"'))
        return loc;
    char q = line[i];
    int nq = (i + 2 < linelen && line[i + 1] == q && line[i + 2] == q) ? 3 : 1;
    Loc r = loc;
    r.col = i + nq + offset + 1;
    r.end_col = r.col + (len > 0 ? len : 1);
    if (r.end_col > loc.end_col)
        r.end_col = loc.end_col;
    if (r.col >= loc.end_col)
        r.col = loc.end_col > loc.col ? loc.end_col - 1 : loc.col;
    return r;
}

/* ---- a tiny cursor over the string ------------------------------------------ */

typedef struct Cursor {
    const Node *str;
    const char *s;
    int pos, len;
    bool failed;
} Cursor;

static void skip_space(Cursor *c)
{
    while (c->pos < c->len && isspace((unsigned char)c->s[c->pos]))
        c->pos++;
}

static int peek(Cursor *c)
{
    skip_space(c);
    return c->pos < c->len ? (unsigned char)c->s[c->pos] : 0;
}

static bool accept(Cursor *c, char ch)
{
    if (peek(c) == ch) {
        c->pos++;
        return true;
    }
    return false;
}

static void fail(Cursor *c, int pos, int len, const char *fmt, const char *arg)
{
    if (c->failed)
        return;
    c->failed = true;
    char msg[256];
    snprintf(msg, sizeof msg, fmt, arg);
    diag_error(str_loc(c->str, pos, len), "%s", msg);
}

static const char *seen(Cursor *c)
{
    static char buf[32];
    skip_space(c);
    if (c->pos >= c->len)
        return "end of string";
    snprintf(buf, sizeof buf, "'%c'", c->s[c->pos]);
    return buf;
}

static bool expect(Cursor *c, char ch, const char *what)
{
    if (accept(c, ch))
        return true;
    char msg[128];
    snprintf(msg, sizeof msg, "expected %s, found %%s", what);
    fail(c, c->pos, 1, msg, seen(c));
    return false;
}

/* An identifier at the cursor, interned; NULL if none. */
static const char *ident(Cursor *c, int *start)
{
    skip_space(c);
    *start = c->pos;
    if (c->pos >= c->len || !(isalpha((unsigned char)c->s[c->pos]) || c->s[c->pos] == '_'))
        return NULL;
    while (c->pos < c->len && (isalnum((unsigned char)c->s[c->pos]) || c->s[c->pos] == '_'))
        c->pos++;
    return intern(c->s + *start, (size_t)(c->pos - *start));
}

/* ---- signatures ---------------------------------------------------------------- */

/* Edit distance, for "did you mean": type names are short. */
static int distance(const char *a, const char *b)
{
    int la = (int)strlen(a), lb = (int)strlen(b);
    if (la > 30 || lb > 30)
        return 99;
    int d[32][32];
    for (int i = 0; i <= la; i++)
        d[i][0] = i;
    for (int j = 0; j <= lb; j++)
        d[0][j] = j;
    for (int i = 1; i <= la; i++)
        for (int j = 1; j <= lb; j++) {
            int best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            if (d[i - 1][j] + 1 < best)
                best = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < best)
                best = d[i][j - 1] + 1;
            d[i][j] = best;
        }
    return d[la][lb];
}

/* "unknown type 'flaot32'; did you mean 'float32'?"  Python's own type
 * names get a hint of their own: Numba's are sized. */
static const char *unknown_type_message(const char *name)
{
    if (strcmp(name, "int") == 0)
        return "unknown type 'int': Numba's integer types are sized (int64, int32, ...)";
    if (strcmp(name, "float") == 0)
        return "unknown type 'float': Numba's float types are sized (float64, float32)";
    if (strcmp(name, "complex") == 0)
        return "unknown type 'complex': Numba's complex types are sized (complex128, complex64)";
    static const char *const names[] = {
        "boolean", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
        "float32", "float64", "complex64", "complex128",
    };
    const char *best = NULL;
    int best_d = 3;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        int d = distance(name, names[i]);
        if (d < best_d) {
            best_d = d;
            best = names[i];
        }
    }
    if (best && best_d * 3 <= (int)strlen(name))
        return arena_printf("unknown type '%s'; did you mean '%s'?", name, best);
    return arena_printf("unknown type '%s'", name);
}

static Type *scalar_type(Cursor *c, bool allow_void)
{
    int start;
    const char *name = ident(c, &start);
    if (!name) {
        fail(c, c->pos, 1, "expected a type name, found %s", seen(c));
        return NULL;
    }
    if (allow_void && (strcmp(name, "void") == 0 || strcmp(name, "none") == 0))
        return ty_none();
    Type *t = ty_by_name(name);
    if (!t) {
        if (strcmp(name, "void") == 0 || strcmp(name, "none") == 0)
            fail(c, start, c->pos - start, "'%s' is only valid as a return type", name);
        else if (strcmp(name, "float16") == 0 || strcmp(name, "f2") == 0)
            fail(c, start, c->pos - start, "'%s' is not supported by ufnc (use float32)", name);
        else
            fail(c, start, c->pos - start, "%s", unknown_type_message(name));
    }
    return t;
}

/* '[' dims ']' after a scalar: ':' {',' ':'} with at most one '::1', first
 * (F layout) or last (C layout). */
static Type *array_dims(Cursor *c, Type *elt)
{
    int open = c->pos - 1;
    int ndim = 0, unit_at = -1;
    for (;;) {
        int at = c->pos;
        skip_space(c);
        at = c->pos;
        if (!expect(c, ':', "':' (only whole-axis slices are allowed)"))
            return NULL;
        if (accept(c, ':')) {
            skip_space(c);
            if (c->pos < c->len && c->s[c->pos] == '1') {
                c->pos++;
                if (unit_at >= 0) {
                    fail(c, at, c->pos - at, "%s", "only one axis may be contiguous ('::1')");
                    return NULL;
                }
                unit_at = ndim;
            } else {
                fail(c, c->pos, 1, "expected '1' after '::', found %s", seen(c));
                return NULL;
            }
        }
        ndim++;
        if (accept(c, ','))
            continue;
        break;
    }
    if (!expect(c, ']', "']'"))
        return NULL;
    if (ndim > UFN_CORE_MAXDIMS) {
        fail(c, open, c->pos - open, "%s", "too many dimensions in an array type");
        return NULL;
    }
    char layout = 'A';
    if (unit_at == ndim - 1)
        layout = 'C';
    else if (unit_at == 0)
        layout = 'F';
    else if (unit_at > 0) {
        fail(c, open, c->pos - open, "%s",
             "'::1' must be on the first (F order) or last (C order) axis");
        return NULL;
    }
    if (peek(c) == '[') {
        fail(c, c->pos, 1, "%s", "an array of arrays is not a type");
        return NULL;
    }
    return ty_array(elt, ndim, layout);
}

static Type *arg_type(Cursor *c)
{
    Type *t = scalar_type(c, false);
    if (!t)
        return NULL;
    if (accept(c, '['))
        return array_dims(c, t);
    if (peek(c) == '(') {
        fail(c, c->pos, 1, "%s", "nested signatures are not supported");
        return NULL;
    }
    return t;
}

Signature *sig_parse(const Node *str)
{
    Cursor c = {.str = str, .s = str->str.value, .len = (int)str->str.len};
    Signature *sig = arena_alloc(sizeof *sig);
    sig->text = str->str.value;
    sig->loc = str->loc;
    if (peek(&c) != '(') {
        Type *ret = scalar_type(&c, true);
        if (!ret)
            return NULL;
        if (peek(&c) == '[') {
            fail(&c, c.pos, 1, "%s", "a return type cannot be an array");
            return NULL;
        }
        if (peek(&c) != '(') {
            fail(&c, c.pos, 1, "expected '(' and the argument types, found %s", seen(&c));
            return NULL;
        }
        sig->ret = ret;
    }
    expect(&c, '(', "'('");
    Type *args[UFN_MAX_OPERANDS];
    int n = 0;
    while (!c.failed && peek(&c) != ')') {
        int at = c.pos;
        Type *t = arg_type(&c);
        if (!t)
            return NULL;
        if (n == UFN_MAX_OPERANDS) {
            fail(&c, at, c.pos - at, "%s", "too many arguments");
            return NULL;
        }
        args[n++] = t;
        if (!accept(&c, ',')) {
            if (peek(&c) != ')')
                fail(&c, c.pos, 1, "expected ',' or ')', found %s", seen(&c));
            break;
        }
    }
    if (c.failed || !expect(&c, ')', "')'"))
        return NULL;
    if (peek(&c) != 0) {
        fail(&c, c.pos, c.len - c.pos, "unexpected %s after the signature", seen(&c));
        return NULL;
    }
    sig->nargs = n;
    sig->args = arena_alloc(sizeof(Type *) * (size_t)(n ? n : 1));
    memcpy(sig->args, args, sizeof(Type *) * (size_t)n);
    return sig;
}

/* ---- layouts -------------------------------------------------------------------------- */

typedef struct LayoutBuilder {
    const char *names[UFN_MAX_OPERANDS * UFN_CORE_MAXDIMS];
    int64_t fixed[UFN_MAX_OPERANDS * UFN_CORE_MAXDIMS];
    int nnames;
    int ndim[UFN_MAX_OPERANDS];
    int dims[UFN_MAX_OPERANDS][UFN_CORE_MAXDIMS];
    int nargs;
} LayoutBuilder;

static int name_index(LayoutBuilder *b, const char *name, int64_t fixed)
{
    for (int i = 0; i < b->nnames; i++)
        if (b->names[i] == name)
            return i;
    b->names[b->nnames] = name;
    b->fixed[b->nnames] = fixed;
    return b->nnames++;
}

/* One '(' dim {',' dim} [','] ')' group. */
static bool layout_operand(Cursor *c, LayoutBuilder *b)
{
    int open = c->pos;
    if (!expect(c, '(', "'(' starting an operand's core dimensions"))
        return false;
    if (b->nargs == UFN_MAX_OPERANDS) {
        fail(c, open, 1, "%s", "too many operands");
        return false;
    }
    int k = b->nargs++;
    b->ndim[k] = 0;
    while (peek(c) != ')') {
        int start = c->pos;
        const char *name = NULL;
        int64_t fixed = -1;
        if (isdigit(peek(c))) {
            int64_t v = 0;
            while (c->pos < c->len && isdigit((unsigned char)c->s[c->pos])) {
                v = v * 10 + (c->s[c->pos] - '0');
                if (v > (int64_t)1 << 40) {
                    fail(c, start, c->pos - start, "%s", "fixed dimension too large");
                    return false;
                }
                c->pos++;
            }
            fixed = v;
            name = intern(c->s + start, (size_t)(c->pos - start));
        } else if (!(name = ident(c, &start))) {
            fail(c, c->pos, 1, "expected a dimension name or size, found %s", seen(c));
            return false;
        }
        if (peek(c) == '?') {
            fail(c, c->pos, 1, "%s", "optional core dimensions ('?') are not supported");
            return false;
        }
        if (b->ndim[k] == UFN_CORE_MAXDIMS) {
            fail(c, start, c->pos - start, "%s", "too many core dimensions");
            return false;
        }
        b->dims[k][b->ndim[k]++] = name_index(b, name, fixed);
        if (!accept(c, ',')) {
            if (peek(c) != ')') {
                fail(c, c->pos, 1, "expected ',' or ')', found %s", seen(c));
                return false;
            }
        }
    }
    return expect(c, ')', "')'");
}

static bool layout_list(Cursor *c, LayoutBuilder *b)
{
    do {
        if (!layout_operand(c, b))
            return false;
    } while (accept(c, ',') && peek(c) == '(');
    return true;
}

Layout *layout_parse(const Node *str)
{
    Cursor c = {.str = str, .s = str->str.value, .len = (int)str->str.len};
    LayoutBuilder b = {0};
    if (!layout_list(&c, &b))
        return NULL;
    int nin = b.nargs;
    skip_space(&c);
    if (!(c.pos + 1 < c.len && c.s[c.pos] == '-' && c.s[c.pos + 1] == '>')) {
        fail(&c, c.pos, 1, "expected '->' and the outputs' core dimensions, found %s", seen(&c));
        return NULL;
    }
    c.pos += 2;
    if (peek(&c) != '(') {
        fail(&c, c.pos, 1, "expected at least one output, found %s", seen(&c));
        return NULL;
    }
    if (!layout_list(&c, &b))
        return NULL;
    if (peek(&c) != 0) {
        fail(&c, c.pos, c.len - c.pos, "unexpected %s after the layout", seen(&c));
        return NULL;
    }
    Layout *l = arena_alloc(sizeof *l);
    l->text = str->str.value;
    l->loc = str->loc;
    l->nin = nin;
    l->nout = b.nargs - nin;
    l->ndim = arena_alloc(sizeof(int) * (size_t)b.nargs);
    l->dims = arena_alloc(sizeof(int *) * (size_t)b.nargs);
    for (int k = 0; k < b.nargs; k++) {
        l->ndim[k] = b.ndim[k];
        l->dims[k] = arena_alloc(sizeof(int) * (size_t)(b.ndim[k] ? b.ndim[k] : 1));
        memcpy(l->dims[k], b.dims[k], sizeof(int) * (size_t)b.ndim[k]);
    }
    l->nnames = b.nnames;
    l->names = arena_alloc(sizeof(char *) * (size_t)(b.nnames ? b.nnames : 1));
    l->fixed = arena_alloc(sizeof(int64_t) * (size_t)(b.nnames ? b.nnames : 1));
    memcpy(l->names, b.names, sizeof(char *) * (size_t)b.nnames);
    memcpy(l->fixed, b.fixed, sizeof(int64_t) * (size_t)b.nnames);
    return l;
}
