/* nvcc_report.c - what nvcc and ptxas printed, said in ufnc's terms.
 *
 * build.c runs nvcc with ptxas's resource usage on (--resource-usage) and
 * captures everything it prints.  This file reads that text:
 *
 *   ptxas info    : Compiling entry function 'polar__f__f64__contig' for 'sm_90'
 *   ptxas info    : Function properties for polar__f__f64__contig
 *       40 bytes stack frame, 4 bytes spill stores, 4 bytes spill loads
 *
 * (nvcc --threads runs one ptxas per architecture and prints each one's
 * report whole, so a "Function properties" line belongs to the
 * architecture of the entry function named before it.)  Kernel and helper
 * symbols are mapped back to the .ufn functions they come from, so that a
 * spill is a -Wspill warning at the function's name and a failure an error
 * there, each naming the architectures. */
#include "ufnc.h"

#include <stdlib.h>
#include <string.h>

/* ---- symbols to functions ------------------------------------------------------- */

typedef struct Symbol {
    const char *name;           /* as ptxas prints it: a kernel, or a helper's body */
    const Instance *inst;
    bool mangled;               /* a helper: static, so C++-mangled inside an internal namespace */
} Symbol;

typedef struct Symbols {
    Symbol *items;
    int n;
} Symbols;

static void add_symbol(Symbols *t, int *cap, const char *name, const Instance *inst, bool mangled)
{
    if (t->n == *cap) {
        *cap = *cap ? 2 * *cap : 64;
        Symbol *items = arena_alloc(sizeof(Symbol) * (size_t)*cap);
        if (t->n)
            memcpy(items, t->items, sizeof(Symbol) * (size_t)t->n);
        t->items = items;
    }
    t->items[t->n++] = (Symbol){name, inst, mangled};
}

/* Every kernel of the module (kernel_name: the one place that spells them)
 * and every helper instance.  A helper's body is a static function, which
 * nvcc (a C++ compiler) mangles: its name appears in the symbol after its
 * length, as in _ZN..._INTERNAL_..23lucas__lucas_numba__i64El. */
static Symbols symbols_of(const Module *m)
{
    Symbols t = {0};
    int cap = 0;
    for (int i = 0; i < m->nkernels; i++) {
        const Func *f = m->kernels[i];
        KernelForm forms[MAX_KERNEL_FORMS];
        int nforms = kernel_forms(f, forms);
        for (int k = 0; k < f->ninstances; k++)
            for (int v = 0; v < nforms; v++)
                add_symbol(&t, &cap, kernel_name(f->instances[k], forms[v]), f->instances[k], false);
    }
    for (int i = 0; i < m->nhelpers; i++) {
        const Instance *h = m->helpers[i];
        add_symbol(&t, &cap, arena_printf("%zu%s", strlen(h->cname), h->cname), h, true);
    }
    return t;
}

static const Instance *instance_of(const Symbols *t, const char *sym)
{
    for (int i = 0; i < t->n; i++)
        if (t->items[i].mangled ? strstr(sym, t->items[i].name) != NULL : strcmp(sym, t->items[i].name) == 0)
            return t->items[i].inst;
    return NULL;
}

/* "scale('float32(float32)')" for a kernel signature, "helper norm2(float64,
 * float64)" for a helper instance. */
static const char *describe(const Instance *inst)
{
    if (inst->sig)
        return arena_printf("%s('%s')", inst->func->name, inst->sig->text);
    Buf b = {0};
    buf_printf(&b, "helper %s(", inst->func->name);
    for (int i = 0; i < inst->nargs; i++)
        buf_printf(&b, "%s%s", i ? ", " : "", type_name(inst->args[i]));
    buf_putc(&b, ')');
    const char *s = arena_strndup(b.data, b.len);
    buf_free(&b);
    return s;
}

static Loc where(const Instance *inst)
{
    return inst->func->def->funcdef.name_loc;
}

/* ---- architectures ----------------------------------------------------------------- */

typedef struct ArchSet {
    int v[MAX_ARCHS];
    int n;
} ArchSet;

static void arch_add(ArchSet *s, int arch)
{
    for (int i = 0; i < s->n; i++)
        if (s->v[i] == arch)
            return;
    if (s->n < MAX_ARCHS)
        s->v[s->n++] = arch;
}

/* "sm_90", "sm_90 and sm_100", "sm_75, sm_80 and sm_90" */
static const char *arch_list(const int *v, int n)
{
    Buf b = {0};
    for (int i = 0; i < n; i++)
        buf_printf(&b, "%ssm_%d", i == 0 ? "" : i == n - 1 ? " and " : ", ", v[i]);
    const char *s = arena_strndup(b.data ? b.data : "", b.len);
    buf_free(&b);
    return s;
}

/* ---- reading the text ---------------------------------------------------------------- */

/* The text between the quotes that follow `after` in a line (ptxas quotes
 * with '...'), or NULL. */
static const char *quoted(const char *line, const char *after)
{
    const char *p = strstr(line, after);
    if (!p || !(p = strchr(p + strlen(after), '\'')))
        return NULL;
    const char *e = strchr(p + 1, '\'');
    return e ? arena_strndup(p + 1, (size_t)(e - p - 1)) : NULL;
}

/* "    40 bytes stack frame, 4 bytes spill stores, 4 bytes spill loads" */
static bool usage_line(const char *line, long *stores, long *loads)
{
    long stack;
    return sscanf(line, " %ld bytes stack frame, %ld bytes spill stores, %ld bytes spill loads", &stack, stores,
                  loads) == 3;
}

/* A line of ptxas's resource usage, which ufnc asked for and reads itself. */
static bool is_usage(const char *line)
{
    long st, ld;
    return !strncmp(line, "ptxas info", 10) || usage_line(line, &st, &ld);
}

typedef struct Spill {
    const Instance *inst;       /* the kernel or helper */
    const char *library;        /* or a CUDA library function it calls (NULL: none) */
    ArchSet archs;
    long bytes;                 /* the most spill stores on any of them */
} Spill;

static Spill *spill_for(Spill **list, int *n, const Instance *inst, const char *library)
{
    for (int i = 0; i < *n; i++)
        if ((*list)[i].inst == inst && ((*list)[i].library == library ||
                                        ((*list)[i].library && library && !strcmp((*list)[i].library, library))))
            return &(*list)[i];
    Spill *grown = arena_alloc(sizeof(Spill) * (size_t)(*n + 1));
    if (*n)
        memcpy(grown, *list, sizeof(Spill) * (size_t)*n);
    *list = grown;
    (*list)[*n] = (Spill){.inst = inst, .library = library};
    return &(*list)[(*n)++];
}

/* One -Wspill warning per kernel signature or helper instance, at its name. */
static void warn_spills(const Spill *list, int n)
{
    for (int i = 0; i < n; i++) {
        const Spill *s = &list[i];
        const char *archs = arch_list(s->archs.v, s->archs.n);
        if (s->library)
            diag_warning_group(where(s->inst), "spill",
                               "%s: ptxas spills registers to local memory in CUDA's %s on %s (%ld bytes); the "
                               "kernel may run slower on %s",
                               describe(s->inst), s->library, archs, s->bytes,
                               s->archs.n > 1 ? "those GPUs" : "that GPU");
        else
            diag_warning_group(where(s->inst), "spill",
                               "%s: ptxas spills registers to local memory on %s (%ld bytes); the kernel may run "
                               "slower on %s",
                               describe(s->inst), archs, s->bytes, s->archs.n > 1 ? "those GPUs" : "that GPU");
    }
}

void nvcc_report_built(FILE *out, const Module *m, const char *text, bool show_usage)
{
    Symbols syms = symbols_of(m);
    Spill *spills = NULL;
    int nspills = 0, arch = 0;
    const char *func = NULL;
    const Instance *entry = NULL;
    Buf relay = {0};
    for (const char *next = text; *next;) {
        size_t len = strcspn(next, "\n");
        const char *line = arena_strndup(next, len), *name, *a;
        next += len + (next[len] == '\n');
        long stores, loads;
        if ((name = quoted(line, "Compiling entry function"))) {
            arch = (a = quoted(line, "' for")) && !strncmp(a, "sm_", 3) ? atoi(a + 3) : 0;
            entry = instance_of(&syms, name);
            func = NULL;
        } else if ((name = strstr(line, "Function properties for "))) {
            name += strlen("Function properties for ");
            func = arena_strndup(name, strcspn(name, " \r"));
        } else if (usage_line(line, &stores, &loads) && (stores || loads) && func && arch) {
            /* A function of the module, or one of CUDA's the entry calls.
             * A recursive helper needs a call stack, and ptxas counts the
             * registers it saves there as spills: nothing the source could
             * change, so no warning (ufnc(1)). */
            const Instance *inst = instance_of(&syms, func);
            const Instance *owner = inst ? inst : entry;
            if (owner && !owner->recursive) {
                Spill *s = spill_for(&spills, &nspills, owner, inst ? NULL : func);
                arch_add(&s->archs, arch);
                if (stores > s->bytes)
                    s->bytes = stores;
            }
        }
        if (show_usage || !is_usage(line)) {
            buf_putn(&relay, line, len);
            buf_putc(&relay, '\n');
        }
    }
    if (relay.len)
        fwrite(relay.data, 1, relay.len, out);
    buf_free(&relay);
    warn_spills(spills, nspills);
}

/* ---- failures -------------------------------------------------------------------------- */

/* The functions whose code nvcc's messages name: by a kernel's or a
 * helper's symbol, or by a line of the .ufn file (the generated code has
 * #line directives, so nvcc says "polar.ufn(12): error: ..."). */
static int named_functions(const Module *m, const char *text, const Func **out, int max)
{
    Symbols syms = symbols_of(m);
    int n = 0;
    for (int i = 0; i < syms.n && n < max; i++) {
        const Func *f = syms.items[i].inst->func;
        bool seen = false;
        for (int k = 0; k < n; k++)
            seen = seen || out[k] == f;
        if (!seen && strstr(text, syms.items[i].name))
            out[n++] = f;
    }
    for (int i = 0; i < m->nfuncs && n < max; i++) {
        const Func *f = m->funcs[i];
        const Loc *l = &f->def->loc;
        for (int line = l->line; line <= l->end_line; line++) {
            if (strstr(text, arena_printf("%s(%d)", l->file->name, line))) {
                bool seen = false;
                for (int k = 0; k < n; k++)
                    seen = seen || out[k] == f;
                if (!seen)
                    out[n++] = f;
                break;
            }
        }
    }
    return n;
}

void nvcc_report_failed(FILE *out, const Module *m, const char *text, int status, const int *failed, int nfailed,
                        const int *all, int nall)
{
    /* nvcc's messages, less the other architectures' resource usage */
    for (const char *next = text; *next;) {
        size_t len = strcspn(next, "\n");
        const char *line = arena_strndup(next, len);
        next += len + (next[len] == '\n');
        if (!is_usage(line))
            fprintf(out, "%s\n", line);
    }
    const char *archs = nfailed ? arch_list(failed, nfailed) : arch_list(all, nall);
    const char *how = status >= 0 ? arena_printf("(exit status %d)", status) : "";
    const Func *funcs[16];
    int n = named_functions(m, text, funcs, 16);
    for (int i = 0; i < n; i++)
        diag_error(funcs[i]->def->funcdef.name_loc, "nvcc failed on the device code of %s for %s %s",
                   funcs[i]->name, archs, how);
    if (!n)
        diag_fatal("nvcc failed on the device code of module %s for %s %s", m->name, archs, how);
    /* What a user can do about a compiler's failure on valid source. */
    Buf keep = {0};
    for (int i = 0, k = 0; i < nall; i++) {
        bool bad = false;
        for (int j = 0; j < nfailed; j++)
            bad = bad || failed[j] == all[i];
        if (!bad)
            buf_printf(&keep, "%ssm_%d", k++ ? "," : "", all[i]);
    }
    Loc none = {0};
    if (nfailed && keep.len)
        diag_note(none, "ufnc's generated code should always build: please report this with the module; "
                        "meanwhile --arch=%s leaves %s out, or --target=host,sim builds without GPU code",
                  keep.data, archs);
    else
        diag_note(none, "ufnc's generated code should always build: please report this with the module; "
                        "meanwhile --target=host,sim builds without GPU code");
    buf_free(&keep);
}
