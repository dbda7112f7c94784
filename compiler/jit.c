/* jit.c - the signatures of a @cuda.jit kernel.
 *
 * Eager: the strings of the decorator ('void(float32[:], int64)', one or a
 * list), checked as Numba checks them (void return, one type per
 * parameter).  --signature KERNEL=SIG adds more without editing the source.
 *
 * Lazy (no signature, as in the seeds): Numba compiles one specialisation
 * per call; ahead of time ufnc compiles a default set.  Each parameter's
 * ndim is read from the body - the number of subscripts it is indexed with,
 * an array if it only has .shape, .size or .ndim read or is handed to an
 * atomic - and a parameter never used as an array is a scalar.  Then one
 * signature per dtype of JIT_DEFAULT_DTYPES, every parameter of that dtype;
 * the instance pass keeps those for which the kernel types (instance.c) and
 * reports the first one's errors when none does. */
#include "ufnc.h"

#include <string.h>

static const TypeKind JIT_DEFAULT_DTYPES[] = {TY_INT32, TY_INT64, TY_FLOAT32, TY_FLOAT64, TY_COMPLEX64,
                                              TY_COMPLEX128};
#define NUM_DEFAULT_DTYPES ((int)(sizeof JIT_DEFAULT_DTYPES / sizeof JIT_DEFAULT_DTYPES[0]))

/* "void(float32[:, ::1], int64)": layouts as Numba spells them. */
const char *jit_signature_text(const Signature *sig)
{
    Buf b = {0};
    buf_puts(&b, "void(");
    for (int i = 0; i < sig->nargs; i++) {
        Type *t = sig->args[i];
        buf_printf(&b, "%s%s", i ? ", " : "", t->kind == TY_ARRAY ? t->elt->name : t->name);
        if (t->kind != TY_ARRAY)
            continue;
        buf_putc(&b, '[');
        for (int d = 0; d < t->ndim; d++) {
            bool unit = (t->layout == 'C' && d == t->ndim - 1) || (t->layout == 'F' && d == 0);
            buf_printf(&b, "%s%s", d ? ", " : "", unit ? "::1" : ":");
        }
        buf_putc(&b, ']');
    }
    buf_putc(&b, ')');
    const char *s = intern(b.data, b.len);
    buf_free(&b);
    return s;
}

bool jit_signature_ok(const Func *f, const Signature *sig)
{
    int nparams = f->def->funcdef.params.len;
    if (sig->ret && sig->ret->kind != TY_NONE) {
        diag_error(sig->loc, "CUDA kernel must have void return type: signature '%s' returns %s", sig->text,
                   sig->ret->name);
        return false;
    }
    if (sig->nargs != nparams) {
        diag_error(sig->loc, "signature '%s' has %d argument%s but %s() takes %d", sig->text, sig->nargs,
                   sig->nargs == 1 ? "" : "s", f->name, nparams);
        return false;
    }
    for (int i = 0; i < sig->nargs; i++)
        if (sig->args[i]->kind == TY_ARRAY && sig->args[i]->ndim > UFN_KMAXDIM) {
            diag_error(sig->loc, "argument %d of '%s' has %d dimensions; kernels take arrays of at most %d",
                       i + 1, sig->text, sig->args[i]->ndim, UFN_KMAXDIM);
            return false;
        }
    return true;
}

/* ---- the ndim of each parameter, from the body ------------------------------------ */

typedef struct Usage {
    const Func *f;
    int *ndim;                /* per parameter: 0 scalar, else the ndim seen */
    bool *array;              /* used as an array at all */
} Usage;

static int param_of(const Usage *u, const Node *e)
{
    if (!e || e->kind != N_NAME)
        return -1;
    const NodeList *p = &u->f->def->funcdef.params;
    for (int i = 0; i < p->len; i++)
        if (p->items[i]->name.id == e->name.id)
            return i;
    return -1;
}

static void saw(Usage *u, const Node *e, int ndim)
{
    int k = param_of(u, e);
    if (k < 0)
        return;
    u->array[k] = true;
    if (ndim > u->ndim[k])
        u->ndim[k] = ndim;
}

static int index_count(const Node *sub)
{
    const NodeList *ix = &sub->subscript.index;
    if (ix->len == 1 && ix->items[0]->kind == N_TUPLE)
        return ix->items[0]->tuple.elts.len;
    return ix->len;
}

static bool is_atomic(const Node *fn)
{
    return fn->kind == N_ATTR && fn->attr.value->kind == N_ATTR && !strcmp(fn->attr.value->attr.attr, "atomic");
}

static void scan(Usage *u, const Node *n);

static void scan_list(Usage *u, const NodeList *l)
{
    for (int i = 0; i < l->len; i++)
        scan(u, l->items[i]);
}

static void scan(Usage *u, const Node *n)
{
    if (!n)
        return;
    switch (n->kind) {
    case N_ASSIGN: scan_list(u, &n->assign.targets); scan(u, n->assign.value); break;
    case N_AUGASSIGN: scan(u, n->augassign.target); scan(u, n->augassign.value); break;
    case N_EXPRSTMT: scan(u, n->exprstmt.expr); break;
    case N_IF: scan(u, n->ifstmt.cond); scan_list(u, &n->ifstmt.then); scan_list(u, &n->ifstmt.orelse); break;
    case N_WHILE: scan(u, n->whilestmt.cond); scan_list(u, &n->whilestmt.body); scan_list(u, &n->whilestmt.orelse); break;
    case N_FOR:
        scan(u, n->forstmt.target);
        scan(u, n->forstmt.iter);
        scan_list(u, &n->forstmt.body);
        scan_list(u, &n->forstmt.orelse);
        break;
    case N_RETURN: scan(u, n->ret.value); break;
    case N_UNARY: scan(u, n->unary.operand); break;
    case N_BINARY: scan(u, n->binary.lhs); scan(u, n->binary.rhs); break;
    case N_BOOLOP: scan(u, n->boolop.lhs); scan(u, n->boolop.rhs); break;
    case N_COMPARE:
        for (int i = 0; i <= n->compare.n; i++)
            scan(u, n->compare.operands[i]);
        break;
    case N_IFEXP: scan(u, n->ifexp.cond); scan(u, n->ifexp.then); scan(u, n->ifexp.orelse); break;
    case N_CALL:
        /* cuda.atomic.add(a, (i, j), v): a is an array of as many dimensions */
        if (is_atomic(n->call.func) && n->call.args.len >= 2) {
            const Node *ix = n->call.args.items[1];
            saw(u, n->call.args.items[0], ix->kind == N_TUPLE ? ix->tuple.elts.len : 1);
        }
        scan(u, n->call.func);
        scan_list(u, &n->call.args);
        scan_list(u, &n->call.kwargs);
        break;
    case N_KEYWORD: scan(u, n->keyword.value); break;
    case N_ATTR:
        if (!strcmp(n->attr.attr, "shape") || !strcmp(n->attr.attr, "size") || !strcmp(n->attr.attr, "ndim")
            || !strcmp(n->attr.attr, "strides"))
            saw(u, n->attr.value, 1);
        scan(u, n->attr.value);
        break;
    case N_SUBSCRIPT:
        /* a.shape[2]: at least three dimensions */
        if (n->subscript.value->kind == N_ATTR && !strcmp(n->subscript.value->attr.attr, "shape")
            && n->subscript.index.len == 1 && n->subscript.index.items[0]->kind == N_INT)
            saw(u, n->subscript.value->attr.value, (int)n->subscript.index.items[0]->intlit.value + 1);
        saw(u, n->subscript.value, index_count(n));
        scan(u, n->subscript.value);
        scan_list(u, &n->subscript.index);
        break;
    case N_SLICE: scan(u, n->slice.lo); scan(u, n->slice.hi); scan(u, n->slice.step); break;
    case N_TUPLE:
    case N_LIST: scan_list(u, &n->tuple.elts); break;
    default: break;
    }
}

static Signature *default_signature(const Func *f, const Usage *u, TypeKind kind, Loc loc)
{
    int n = f->def->funcdef.params.len;
    Signature *sig = arena_alloc(sizeof *sig);
    sig->nargs = n;
    sig->args = arena_alloc(sizeof(Type *) * (size_t)(n ? n : 1));
    sig->ret = ty_none();
    sig->loc = loc;
    for (int i = 0; i < n; i++) {
        Type *t = ty_scalar(kind);
        sig->args[i] = u->array[i] ? ty_array(t, u->ndim[i] ? u->ndim[i] : 1, 'A') : t;
    }
    sig->text = jit_signature_text(sig);
    sig->lazy = true;
    return sig;
}

static void push_sig(Func *f, Signature *sig, int cap)
{
    if (f->nsigs < cap)
        f->sigs[f->nsigs++] = sig;
}

/* --signature NAME=SIG for this kernel: a string node for sig.c, located
 * at the decorator (the command line has no place in the source). */
static void option_signatures(Func *f, Node *dec, int cap)
{
    const CheckOptions *o = f->module->opt;
    size_t len = strlen(f->name);
    for (int i = 0; i < o->nsignatures; i++) {
        const char *s = o->signatures[i];
        if (strncmp(s, f->name, len) != 0 || s[len] != '=')
            continue;
        Node *str = new_str(dec->loc, s + len + 1, strlen(s + len + 1));
        Signature *sig = sig_parse(str);
        if (sig)
            push_sig(f, sig, cap);
        else
            diag_note(dec->loc, "the signature is --signature %s", s);
    }
}

static void boundscheck(Node *dec)
{
    for (int i = 0; dec->kind == N_CALL && i < dec->call.kwargs.len; i++) {
        Node *kw = dec->call.kwargs.items[i];
        static const char *const ok[] = {"device", "inline", "forceinline", "link", "debug", "opt", "lineinfo",
                                         "cache", "fastmath", "max_registers", "lto", "boundscheck", NULL};
        bool known = false;
        for (const char *const *a = ok; *a; a++)
            known = known || !strcmp(*a, kw->keyword.name);
        if (!known)
            diag_error(kw->loc, "@cuda.jit does not take the option '%s'", kw->keyword.name);
        else if (!strcmp(kw->keyword.name, "boundscheck") && kw->keyword.value->kind == N_TRUE)
            diag_error(kw->loc, "bounds checking is not supported for CUDA (Numba refuses boundscheck=True; the simulator backend checks every index)");
    }
}

void decorate_cuda_kernel(Module *m, Func *f, Node *dec)
{
    (void)m;
    f->kind = FK_CUDA_KERNEL;
    boundscheck(dec);
    NodeList none = {0};
    NodeList *args = dec->kind == N_CALL ? &dec->call.args : &none;
    int declared = f->nsigs;
    int cap = declared + f->module->opt->nsignatures + NUM_DEFAULT_DTYPES;
    Signature **sigs = arena_alloc(sizeof(Signature *) * (size_t)(cap ? cap : 1));
    if (declared)
        memcpy(sigs, f->sigs, sizeof(Signature *) * (size_t)declared);
    f->sigs = sigs;
    option_signatures(f, dec, cap);
    if (args->len >= 1)
        return;
    /* lazy: the default set after any --signature */
    int n = f->def->funcdef.params.len;
    Usage u = {.f = f, .ndim = arena_alloc(sizeof(int) * (size_t)(n ? n : 1)),
               .array = arena_alloc(sizeof(bool) * (size_t)(n ? n : 1))};
    scan_list(&u, &f->def->funcdef.body);
    f->lazy = true;
    for (int k = 0; k < NUM_DEFAULT_DTYPES; k++)
        push_sig(f, default_signature(f, &u, JIT_DEFAULT_DTYPES[k], dec->loc), cap);
}
