/* decorate.c - what a function's decorator says: its kind (@vectorize,
 * @guvectorize, @cuda.jit(device=True), @jit, @njit; a @cuda.jit kernel's
 * signatures are jit.c's), its target=, its signature strings (parsed by sig.c) and
 * a gufunc's layout; and which of a kernel's signatures can be compiled: one
 * that fits the def and the layout and takes input types no earlier one
 * takes. */
#include "ufnc.h"

#include <string.h>

static const char *str_value(Node *e)
{
    return e->kind == N_STR ? e->str.value : NULL;
}

static Node *keyword(Node *call, const char *name)
{
    for (int i = 0; i < call->call.kwargs.len; i++)
        if (strcmp(call->call.kwargs.items[i]->keyword.name, name) == 0)
            return call->call.kwargs.items[i]->keyword.value;
    return NULL;
}

static bool check_keywords(Node *call, const char *const *allowed, const char *decorator)
{
    bool ok = true;
    for (int i = 0; i < call->call.kwargs.len; i++) {
        Node *kw = call->call.kwargs.items[i];
        bool known = false;
        for (const char *const *a = allowed; *a; a++)
            known = known || strcmp(*a, kw->keyword.name) == 0;
        if (!known) {
            Buf list = {0};
            for (const char *const *a = allowed; *a; a++)
                buf_printf(&list, "%s%s=", a == allowed ? "" : ", ", *a);
            diag_error(kw->loc, "@%s does not take the option '%s' (it takes %s)", decorator, kw->keyword.name,
                       list.data);
            buf_free(&list);
            ok = false;
        }
    }
    return ok;
}

static void read_target(Func *f, Node *call, const char *decorator)
{
    Node *t = keyword(call, "target");
    if (!t)
        return;
    const char *v = str_value(t);
    if (!v || (strcmp(v, "cuda") && strcmp(v, "cpu") && strcmp(v, "parallel"))) {
        if (v)
            diag_error(t->loc, "@%s target must be 'cuda', 'cpu' or 'parallel', not '%s'", decorator, v);
        else
            diag_error(t->loc, "@%s target must be a string: 'cuda', 'cpu' or 'parallel'", decorator);
        return;
    }
    f->target = v;
}

/* The source text under a one-line location, for messages; NULL otherwise. */
static const char *one_line_text(Loc loc)
{
    int len;
    const char *line = loc.file ? src_line(loc.file, loc.line, &len) : NULL;
    if (!line || loc.end_line != loc.line || loc.end_col <= loc.col || loc.end_col - 1 > len)
        return NULL;
    return arena_strndup(line + loc.col - 1, (size_t)(loc.end_col - loc.col));
}

/* The list of signature strings: a list or tuple of strings, or one string. */
static void read_signatures(Func *f, Node *arg)
{
    NodeList strs = {0};
    if (arg->kind == N_LIST || arg->kind == N_TUPLE) {
        for (int i = 0; i < arg->tuple.elts.len; i++)
            list_push(&strs, arg->tuple.elts.items[i]);
    } else
        list_push(&strs, arg);
    f->sigs = arena_alloc(sizeof(Signature *) * (size_t)(strs.len ? strs.len : 1));
    for (int i = 0; i < strs.len; i++) {
        Node *s = strs.items[i];
        if (s->kind != N_STR) {
            const char *text = one_line_text(s->loc);
            if (text && s->kind == N_CALL)
                diag_error(s->loc, "a signature must be a string: write '%s' in quotes", text);
            else
                diag_error(s->loc, "a signature must be a string such as 'float32(float32)'");
            continue;
        }
        Signature *sig = sig_parse(s);
        if (sig)
            f->sigs[f->nsigs++] = sig;
    }
}

/* @vectorize without signatures: Numba compiles lazily for whatever it is
 * called with; ahead of time we pick the common homogeneous types. */
static void default_signatures(Func *f, Node *where)
{
    static const TypeKind kinds[] = {TY_INT32, TY_INT64, TY_FLOAT32, TY_FLOAT64};
    int n = f->def->funcdef.params.len;
    f->sigs = arena_alloc(sizeof(Signature *) * 4);
    Buf text = {0};
    for (int k = 0; k < 4; k++) {
        Signature *sig = arena_alloc(sizeof *sig);
        sig->nargs = n;
        sig->args = arena_alloc(sizeof(Type *) * (size_t)(n ? n : 1));
        Buf b = {0};
        buf_putc(&b, '(');
        for (int i = 0; i < n; i++) {
            sig->args[i] = ty_scalar(kinds[k]);
            buf_printf(&b, "%s%s", i ? ", " : "", sig->args[i]->name);
        }
        buf_putc(&b, ')');
        sig->text = arena_strndup(b.data, b.len);
        sig->loc = where->loc;
        buf_printf(&text, "%s'%s'", k ? ", " : "", sig->text);
        buf_free(&b);
        f->sigs[f->nsigs++] = sig;
    }
    f->default_sigs = true;
    diag_warning_group(where->loc, "implicit-signature", "@vectorize without signatures: compiling %s for %s; list the signatures you need",
                 f->name, text.data);
    buf_free(&text);
}

/* identity= of @vectorize: what Numba's parse_identity takes. */
static void read_identity(Func *f, Node *call)
{
    Node *v = keyword(call, "identity");
    f->identity = ID_NONE;
    if (!v || v->kind == N_NONE)
        return;
    if (v->kind == N_INT && !v->intlit.too_big && v->intlit.value <= 1)
        f->identity = v->intlit.value ? ID_ONE : ID_ZERO;
    else if (v->kind == N_FALSE || v->kind == N_TRUE)
        f->identity = v->kind == N_TRUE ? ID_ONE : ID_ZERO;
    else if (v->kind == N_STR && strcmp(str_value(v), "reorderable") == 0)
        f->identity = ID_REORDERABLE;
    else
        diag_error(v->loc, "invalid identity value: @vectorize takes identity=0, 1, None or 'reorderable', as Numba does");
}

void decorate(Module *m, Func *f, Node *dec)
{
    Node *callee = dec->kind == N_CALL ? dec->call.func : dec;
    Sym s;
    if (!resolve_global(m, callee, &s) || s.kind != SYM_DECORATOR) {
        const char *name = dotted_name(callee);
        diag_error(dec->loc, "unknown decorator '@%s': ufn knows @vectorize, @guvectorize, @cuda.jit(device=True), @jit and @njit",
                   name ? name : "...");
        return;
    }
    bool called = dec->kind == N_CALL;
    NodeList none = {0};
    NodeList *args = called ? &dec->call.args : &none;
    switch (s.decorator) {
    case DEC_VECTORIZE: {
        static const char *const ok[] = {"target", "nopython", "cache", "identity", "fastmath", NULL};
        f->kind = FK_VECTORIZE;
        if (called) {
            check_keywords(dec, ok, "vectorize");
            read_target(f, dec, "vectorize");
            read_identity(f, dec);
            if (keyword(dec, "fastmath"))
                diag_warning_group(keyword(dec, "fastmath")->loc, "ignored-keyword", "fastmath= is ignored; compile with ufnc --fast-math");
        }
        if (args->len > 1)
            diag_error(args->items[1]->loc, "@vectorize takes one positional argument, the list of signatures");
        if (args->len >= 1)
            read_signatures(f, args->items[0]);
        if (f->nsigs == 0 && diag_error_count() == 0)
            default_signatures(f, dec);
        return;
    }
    case DEC_GUVECTORIZE: {
        static const char *const ok[] = {"target", "nopython", "cache", "identity", "fastmath", "writable_args", NULL};
        f->kind = FK_GUVECTORIZE;
        if (!called || args->len < 2) {
            diag_error(dec->loc, "@guvectorize needs the signatures and the layout: @guvectorize(['(float32[:], float32[:])'], '(i)->()')");
            return;
        }
        check_keywords(dec, ok, "guvectorize");
        read_target(f, dec, "guvectorize");
        read_signatures(f, args->items[0]);
        Node *layout = args->items[1];
        if (layout->kind != N_STR)
            diag_error(layout->loc, "the layout must be a string such as '(i)->()'");
        else
            f->layout = layout_parse(layout);
        if (args->len > 2)
            diag_error(args->items[2]->loc, "@guvectorize takes two positional arguments");
        return;
    }
    case DEC_CUDA_JIT: {
        Node *device = called ? keyword(dec, "device") : NULL;
        if (!device || device->kind != N_TRUE) {
            if (args->len > 1)
                diag_error(args->items[1]->loc, "@cuda.jit takes one positional argument, the signature or a list of signatures");
            if (args->len >= 1)
                read_signatures(f, args->items[0]);
            decorate_cuda_kernel(m, f, dec);     /* jit.c: the rest of its signatures */
            return;
        }
        static const char *const ok[] = {"device", "inline", "debug", "opt", "lineinfo", "fastmath", "cache", "forceinline", NULL};
        check_keywords(dec, ok, "cuda.jit");
        f->kind = FK_DEVICE;
        if (args->len)
            diag_warning_group(args->items[0]->loc, "ignored-signature", "the signature of device function '%s' is ignored: ufnc compiles it for the argument types of each call",
                         f->name);
        return;
    }
    case DEC_JIT:
    case DEC_NJIT:
        f->kind = FK_JIT;
        if (args->len)
            diag_warning_group(args->items[0]->loc, "ignored-signature", "the signature of '%s' is ignored: ufnc compiles it for the argument types of each call",
                         f->name);
        return;
    }
}

/* Check a kernel signature against the def and (for gufuncs) the layout. */
static bool kernel_signature_ok(const Func *f, const Signature *sig)
{
    const Node *def = f->def;
    int nparams = def->funcdef.params.len;
    if (f->kind == FK_CUDA_KERNEL)
        return jit_signature_ok(f, sig);
    if (sig->nargs != nparams) {
        diag_error(sig->loc, "signature '%s' has %d argument%s but %s() takes %d", sig->text, sig->nargs,
                   sig->nargs == 1 ? "" : "s", f->name, nparams);
        return false;
    }
    if (f->kind == FK_VECTORIZE) {
        if (sig->nargs + 1 > UFN_MAX_OPERANDS) {
            diag_error(sig->loc, "signature '%s' has %d arguments, but a ufunc takes at most %d (the runtime's %d operands, with its output)",
                       sig->text, sig->nargs, UFN_MAX_OPERANDS - 1, UFN_MAX_OPERANDS);
            return false;
        }
        for (int i = 0; i < sig->nargs; i++)
            if (sig->args[i]->kind == TY_ARRAY) {
                diag_error(sig->loc, "@vectorize signatures take scalars; '%s' has an array argument (use @guvectorize for arrays)",
                           sig->text);
                return false;
            }
        if (sig->ret && sig->ret->kind == TY_NONE) {
            diag_error(sig->loc, "a @vectorize function must return a value; '%s' returns void", sig->text);
            return false;
        }
        return true;
    }
    const Layout *l = f->layout;
    if (!l)
        return false;
    if (sig->ret && sig->ret->kind != TY_NONE) {
        diag_error(sig->loc, "guvectorized functions cannot return values: signature '%s' specifies %s return type",
                   sig->text, sig->ret->name);
        return false;
    }
    if (sig->nargs != l->nin + l->nout) {
        diag_error(sig->loc, "signature '%s' has %d arguments but the layout '%s' has %d operands", sig->text,
                   sig->nargs, l->text, l->nin + l->nout);
        diag_note(l->loc, "the layout has %d input%s and %d output%s", l->nin, l->nin == 1 ? "" : "s", l->nout,
                  l->nout == 1 ? "" : "s");
        return false;
    }
    for (int i = 0; i < sig->nargs; i++) {
        Type *t = sig->args[i];
        int core = l->ndim[i];
        bool out = i >= l->nin;
        if (t->kind != TY_ARRAY) {
            if (core > 0) {
                diag_error(sig->loc, "argument %d of '%s' is a scalar but its core dimensions in '%s' are not '()'",
                           i + 1, sig->text, l->text);
                return false;
            }
            if (out) {
                diag_error(sig->loc, "output argument %d of '%s' must be an array (write %s[:] and assign out[0])",
                           i + 1, sig->text, t->name);
                return false;
            }
            continue;
        }
        /* a '()' operand may be declared as a 1-d array of one element */
        if (t->ndim != core && !(core == 0 && t->ndim == 1)) {
            diag_error(sig->loc, "argument %d of '%s' has %d dimension%s but %d core dimension%s in the layout '%s'",
                       i + 1, sig->text, t->ndim, t->ndim == 1 ? "" : "s", core, core == 1 ? "" : "s", l->text);
            return false;
        }
    }
    return true;
}


int kernel_nin(const Func *f)
{
    return f->kind == FK_GUVECTORIZE ? f->layout->nin : f->def->funcdef.params.len;
}

/* A @cuda.jit kernel's operands are its parameters, all of them "inputs"
 * (any may be written). */
int kernel_nops(const Func *f)
{
    if (f->kind == FK_CUDA_KERNEL)
        return f->def->funcdef.params.len;
    return f->kind == FK_GUVECTORIZE ? f->layout->nin + f->layout->nout : f->def->funcdef.params.len + 1;
}

int kernel_signatures(const Func *f, Signature **usable)
{
    int n = 0;
    if (f->kind == FK_GUVECTORIZE && f->layout && f->layout->nnames > UFN_CORE_MAXDIMS)
        diag_error(f->layout->loc, "at most %d distinct core dimensions are supported", UFN_CORE_MAXDIMS);
    for (int k = 0; k < f->nsigs; k++) {
        Signature *sig = f->sigs[k];
        if (!kernel_signature_ok(f, sig))
            continue;
        bool duplicate = false;
        for (int j = 0; j < k && !duplicate; j++) {
            bool same = f->sigs[j]->nargs == sig->nargs;
            int nin = f->kind == FK_GUVECTORIZE && f->layout ? f->layout->nin : sig->nargs;
            for (int i = 0; same && i < nin; i++)
                same = f->sigs[j]->args[i] == sig->args[i];
            if (same) {
                diag_error(sig->loc, "signature '%s' takes the same input types as '%s'", sig->text, f->sigs[j]->text);
                duplicate = true;
            }
        }
        if (!duplicate)               /* reported: no second kernel, nor a second C name */
            usable[n++] = sig;
    }
    return n;
}
