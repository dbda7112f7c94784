/* diag.c - user diagnostics, shaped like gcc's:
 *
 *   polar.ufn:12:9: error: unknown type 'flaot32'
 *      12 |     return math.sqrt(x)
 *         |            ^~~~~~~~~
 *
 * Colour only on a terminal, never with NO_COLOR set or TERM=dumb; never
 * word-wrapped.  Internal errors go through die() instead.
 *
 * While the front end runs (diag_hold), diagnostics are held and printed
 * by diag_flush in source order: the passes find mistakes in their own
 * order (a type error at 12:5 before a flow error at 6:5), and a reader,
 * like gcc's output, goes down the file. */
#include "ufnc.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef enum { D_ERROR, D_WARNING, D_NOTE } DiagKind;

static FILE *out;
static bool color;
static bool werror, no_warnings;
static int nerrors, nwarnings;
static int max_errors;                  /* 0: no limit */
static void (*on_max_errors)(void);

/* Every warning has a name, as gcc's -W<name> (DESIGN 1, ufnc(1)):
 * -Wno-NAME silences, -Werror=NAME makes errors, -Wno-error=NAME keeps a
 * warning under -Werror.  Each message ends with its option, [-Wspill].
 * The table is the one place the names live (--help and ufnc(1) list them). */
typedef enum { GROUP_ON, GROUP_OFF, GROUP_ERROR } GroupState;
static struct {
    const char *name;
    GroupState state;
    bool not_error;                     /* -Wno-error=NAME */
} groups[] = {
    {"spill", GROUP_ON, false},         /* ptxas spills a kernel's registers (nvcc_report.c) */
    {"implicit-signature", GROUP_ON, false},    /* @vectorize without signatures (decorate.c) */
    {"ignored-signature", GROUP_ON, false},     /* a device function's signature (decorate.c) */
    {"ignored-keyword", GROUP_ON, false},       /* fastmath= in a decorator (decorate.c) */
    {"invalid-escape", GROUP_ON, false},        /* a backslash Python does not know (lex.c) */
    {"sign-conversion", GROUP_ON, false},       /* a uint64 literal with a signed integer (infer_node.c) */
    {"unused-function", GROUP_ON, false},       /* a @jit function no kernel calls (infer.c) */
    {"ignored-define", GROUP_ON, false},        /* -DNAME on the command line (options.c) */
};
#define NGROUPS ((int)(sizeof groups / sizeof groups[0]))
/* hashes of what was said (said_before) */
#define SEEN_SLOTS 4096
static uint64_t seen[SEEN_SLOTS];
static int nseen;
static bool last_dropped;

/* Held diagnostics (diag_hold): each with its notes, formatted. */
typedef struct Held {
    char *text;
    size_t len;
    int file_rank;                      /* files in the order they first appear; INT_MAX: no place */
    int line, col;
    int seq;                            /* the order they were reported: ties keep it */
} Held;
static bool holding;
static Held *held;
static int nheld, held_cap;
static int open_entry = -1;             /* the held entry the next notes belong to */
static const SrcFile *ranked[64];
static int nranked;

#define C_BOLD "\033[1m"
#define C_RED "\033[1;31m"
#define C_MAGENTA "\033[1;35m"
#define C_CYAN "\033[1;36m"
#define C_GREEN "\033[1;32m"
#define C_RESET "\033[0m"

void diag_init(FILE *stream, ColorMode mode, bool as_errors, bool quiet)
{
    out = stream;
    werror = as_errors;
    no_warnings = quiet;
    if (mode == COLOR_ALWAYS)
        color = true;
    else if (mode == COLOR_NEVER)
        color = false;
    else {
        const char *nc = getenv("NO_COLOR");
        const char *term = getenv("TERM");
        color = isatty(fileno(stream)) && !(nc && *nc) && !(term && strcmp(term, "dumb") == 0);
    }
}

void diag_reset(void)
{
    for (int i = 0; i < nheld; i++)
        free(held[i].text);
    nheld = 0;
    open_entry = -1;
    nranked = 0;
    holding = false;
    nerrors = nwarnings = 0;
    memset(seen, 0, sizeof seen);
    nseen = 0;
    last_dropped = false;
}

void diag_set_error_limit(int n, void (*stop)(void))
{
    max_errors = n;
    on_max_errors = stop;
}

static int group_index(const char *name)
{
    for (int i = 0; i < NGROUPS; i++)
        if (!strcmp(groups[i].name, name))
            return i;
    return -1;
}

bool diag_warning_option(const char *opt)
{
    static const struct {
        const char *prefix;
        GroupState state;
        int not_error;              /* -1: unchanged */
    } forms[] = {
        {"-Wno-error=", GROUP_ON, 1}, {"-Werror=", GROUP_ERROR, 0}, {"-Wno-", GROUP_OFF, -1}, {"-W", GROUP_ON, -1},
    };
    for (size_t f = 0; f < sizeof forms / sizeof forms[0]; f++) {
        size_t n = strlen(forms[f].prefix);
        if (strncmp(opt, forms[f].prefix, n) != 0)
            continue;
        int g = group_index(opt + n);
        if (g < 0)
            return false;
        if (forms[f].not_error == 1) {      /* -Wno-error=NAME: on, never an error */
            groups[g].not_error = true;
            if (groups[g].state == GROUP_ERROR)
                groups[g].state = GROUP_ON;
        } else {
            groups[g].state = forms[f].state;
            if (forms[f].state == GROUP_ERROR)
                groups[g].not_error = false;
        }
        return true;
    }
    return false;
}

const char *diag_warning_names(void)
{
    Buf b = {0};
    for (int i = 0; i < NGROUPS; i++)
        buf_printf(&b, "%s%s", i ? ", " : "", groups[i].name);
    const char *r = arena_strndup(b.data, b.len);
    buf_free(&b);
    return r;
}

int diag_error_count(void) { return nerrors; }
int diag_warning_count(void) { return nwarnings; }

static FILE *stream(void)
{
    return out ? out : stderr;
}

static void print_snippet(Buf *b, Loc loc)
{
    int len;
    const char *text = src_line(loc.file, loc.line, &len);
    if (!loc.file || loc.line < 1 || loc.line > loc.file->nlines)
        return;
    buf_printf(b, " %5d | ", loc.line);
    /* Copy the line, expanding tabs to 8 columns so the caret lines up. */
    int vcol = 0, caret_start = -1, caret_end = -1;
    for (int i = 0; i <= len; i++) {
        if (i == loc.col - 1)
            caret_start = vcol;
        if (loc.end_line == loc.line && i == loc.end_col - 1)
            caret_end = vcol;
        if (i == len)
            break;
        char c = text[i];
        if (c == '\t') {
            do
                buf_putc(b, ' ');
            while (++vcol % 8);
        } else {
            buf_putc(b, c);
            vcol++;
        }
    }
    buf_putc(b, '\n');
    if (caret_start < 0)
        caret_start = vcol;
    if (caret_end <= caret_start)
        caret_end = loc.end_line > loc.line ? vcol : caret_start + 1;
    if (caret_end <= caret_start)
        caret_end = caret_start + 1;
    buf_printf(b, " %5s | ", "");
    for (int i = 0; i < caret_start; i++)
        buf_putc(b, ' ');
    if (color)
        buf_puts(b, C_GREEN);
    buf_putc(b, '^');
    for (int i = caret_start + 1; i < caret_end; i++)
        buf_putc(b, '~');
    if (color)
        buf_puts(b, C_RESET);
    buf_putc(b, '\n');
}

/* The same message at the same place is said once: a kernel with several
 * signatures is checked once per signature, and a mistake that does not
 * depend on the types would otherwise be reported for each.  A note goes
 * with the error or warning before it. */

static bool said_before(DiagKind kind, Loc loc, const char *text)
{
    if (kind == D_NOTE)
        return last_dropped;
    uint64_t h = 1469598103934665603u;        /* FNV-1a over place and text */
    char place[96];
    snprintf(place, sizeof place, "%p:%d:%d:%d:", (const void *)loc.file, loc.line, loc.col, (int)kind);
    for (const char *p = place; *p; p++)
        h = (h ^ (unsigned char)*p) * 1099511628211u;
    for (const char *p = text; *p; p++)
        h = (h ^ (unsigned char)*p) * 1099511628211u;
    h |= 1;
    unsigned i = (unsigned)(h % SEEN_SLOTS);
    for (int k = 0; k < SEEN_SLOTS && seen[i]; k++, i = (i + 1) % SEEN_SLOTS)
        if (seen[i] == h)
            return last_dropped = true;
    if (nseen < SEEN_SLOTS / 2) {
        seen[i] = h;
        nseen++;
    }
    return last_dropped = false;
}

static int file_rank(const SrcFile *f)
{
    if (!f)
        return INT_MAX;
    for (int i = 0; i < nranked; i++)
        if (ranked[i] == f)
            return i;
    if (nranked == (int)(sizeof ranked / sizeof ranked[0]))
        return nranked;                 /* the rest tie, in the order reported */
    ranked[nranked] = f;
    return nranked++;
}

static void hold(Buf *b, DiagKind kind, Loc loc)
{
    if (kind == D_NOTE && open_entry >= 0) {
        Held *h = &held[open_entry];
        h->text = realloc(h->text, h->len + b->len);
        if (!h->text)
            die("out of memory");
        memcpy(h->text + h->len, b->data, b->len);
        h->len += b->len;
        return;
    }
    if (nheld == held_cap) {
        held_cap = held_cap ? 2 * held_cap : 64;
        held = realloc(held, sizeof *held * (size_t)held_cap);
        if (!held)
            die("out of memory");
    }
    Held *h = &held[nheld];
    *h = (Held){.text = malloc(b->len ? b->len : 1), .len = b->len, .file_rank = file_rank(loc.file),
                .line = loc.line, .col = loc.col, .seq = nheld};
    if (!h->text)
        die("out of memory");
    memcpy(h->text, b->data, b->len);
    open_entry = kind == D_NOTE ? -1 : nheld;   /* a note with nothing held before it stands alone */
    nheld++;
}

static int by_position(const void *pa, const void *pb)
{
    const Held *a = pa, *b = pb;
    if (a->file_rank != b->file_rank)
        return a->file_rank < b->file_rank ? -1 : 1;
    if (a->line != b->line)
        return a->line < b->line ? -1 : 1;
    if (a->col != b->col)
        return a->col < b->col ? -1 : 1;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

void diag_hold(void)
{
    holding = true;
}

void diag_flush(void)
{
    if (nheld)
        qsort(held, (size_t)nheld, sizeof *held, by_position);
    for (int i = 0; i < nheld; i++) {
        fwrite(held[i].text, 1, held[i].len, stream());
        free(held[i].text);
    }
    nheld = 0;
    open_entry = -1;
    holding = false;
}

/* One diagnostic is formatted whole, then written with one call: a flood
 * of them is not a flood of system calls on unbuffered stderr, and
 * messages of parallel builds do not interleave within one.  (stderr
 * stays unbuffered, so that nothing is lost when ufnc aborts.) */
static void report(DiagKind kind, int group, Loc loc, const char *fmt, va_list ap)
{
    if (kind == D_WARNING && (no_warnings || (group >= 0 && groups[group].state == GROUP_OFF)))
        return;
    bool promoted = false;
    if (kind == D_WARNING && group >= 0 && groups[group].state == GROUP_ERROR)
        kind = D_ERROR, promoted = true;
    else if (kind == D_WARNING && werror && !(group >= 0 && groups[group].not_error))
        kind = D_ERROR, promoted = group >= 0;
    char text[2048];
    vsnprintf(text, sizeof text, fmt, ap);
    if (said_before(kind, loc, text))
        return;
    if (kind == D_ERROR)
        nerrors++;
    else if (kind == D_WARNING)
        nwarnings++;

    static const char *const label[] = {"error", "warning", "note"};
    static const char *const paint[] = {C_RED, C_MAGENTA, C_CYAN};
    Buf b = {0};
    if (color)
        buf_puts(&b, C_BOLD);
    if (loc.file)
        buf_printf(&b, "%s:%d:%d: ", loc.file->name, loc.line, loc.col);
    else
        buf_puts(&b, "ufnc: ");
    if (color)
        buf_printf(&b, "%s%s:%s ", paint[kind], label[kind], C_RESET);
    else
        buf_printf(&b, "%s: ", label[kind]);
    buf_puts(&b, text);
    if (group >= 0)
        buf_printf(&b, " [-W%s%s]", promoted ? "error=" : "", groups[group].name);
    buf_putc(&b, '\n');
    if (loc.file)
        print_snippet(&b, loc);
    if (holding)
        hold(&b, kind, loc);
    else
        fwrite(b.data, 1, b.len, stream());
    buf_free(&b);
    if (kind == D_ERROR && max_errors > 0 && nerrors == max_errors) {
        diag_flush();
        fprintf(stream(), "ufnc: note: stopping after %d errors (-fmax-errors=%d; 0 for no limit)\n", nerrors,
                max_errors);
        if (on_max_errors)
            on_max_errors();
    }
}

void diag_error(Loc loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    report(D_ERROR, -1, loc, fmt, ap);
    va_end(ap);
}

void diag_warning_group(Loc loc, const char *group, const char *fmt, ...)
{
    int g = group_index(group);
    if (g < 0)
        die("unknown warning group '%s'", group);
    va_list ap;
    va_start(ap, fmt);
    report(D_WARNING, g, loc, fmt, ap);
    va_end(ap);
}

void diag_note(Loc loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    report(D_NOTE, -1, loc, fmt, ap);
    va_end(ap);
}

void diag_fatal(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    Loc none = {0};
    report(D_ERROR, -1, none, fmt, ap);
    va_end(ap);
}
