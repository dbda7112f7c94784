/* diag.c - user diagnostics, shaped like gcc's:
 *
 *   polar.ufn:12:9: error: unknown type 'flaot32'
 *      12 |     return math.sqrt(x)
 *         |            ^~~~~~~~~
 *
 * Colour only on a terminal, never with NO_COLOR set or TERM=dumb; never
 * word-wrapped.  Internal errors go through die() instead. */
#include "ufnc.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef enum { D_ERROR, D_WARNING, D_NOTE } DiagKind;

static FILE *out;
static bool color;
static bool werror, no_warnings;
static int nerrors, nwarnings;
/* hashes of what was said (said_before) */
#define SEEN_SLOTS 4096
static uint64_t seen[SEEN_SLOTS];
static int nseen;
static bool last_dropped;

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
    nerrors = nwarnings = 0;
    memset(seen, 0, sizeof seen);
    nseen = 0;
    last_dropped = false;
}

int diag_error_count(void) { return nerrors; }
int diag_warning_count(void) { return nwarnings; }

static FILE *stream(void)
{
    return out ? out : stderr;
}

static void print_snippet(Loc loc)
{
    int len;
    const char *text = src_line(loc.file, loc.line, &len);
    if (!loc.file || loc.line < 1 || loc.line > loc.file->nlines)
        return;
    FILE *f = stream();
    fprintf(f, " %5d | ", loc.line);
    /* Copy the line, expanding tabs to 8 columns so the caret lines up. */
    int vcol = 0, caret_start = -1, caret_end = -1;
    for (int i = 0; i <= len; i++) {
        if (i == loc.col - 1)
            caret_start = vcol;
        if (loc.end_line == loc.line && i == loc.end_col - 1)
            caret_end = vcol;
        if (i == len)
            break;
        unsigned char c = (unsigned char)text[i];
        if (c == '\t') {
            do
                fputc(' ', f);
            while (++vcol % 8);
        } else {
            fputc(c, f);
            vcol++;
        }
    }
    fputc('\n', f);
    if (caret_start < 0)
        caret_start = vcol;
    if (caret_end <= caret_start)
        caret_end = loc.end_line > loc.line ? vcol : caret_start + 1;
    if (caret_end <= caret_start)
        caret_end = caret_start + 1;
    fprintf(f, " %5s | ", "");
    for (int i = 0; i < caret_start; i++)
        fputc(' ', f);
    if (color)
        fputs(C_GREEN, f);
    fputc('^', f);
    for (int i = caret_start + 1; i < caret_end; i++)
        fputc('~', f);
    if (color)
        fputs(C_RESET, f);
    fputc('\n', f);
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

static void report(DiagKind kind, Loc loc, const char *fmt, va_list ap)
{
    if (kind == D_WARNING && no_warnings)
        return;
    if (kind == D_WARNING && werror)
        kind = D_ERROR;
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
    FILE *f = stream();
    if (color)
        fputs(C_BOLD, f);
    if (loc.file)
        fprintf(f, "%s:%d:%d: ", loc.file->name, loc.line, loc.col);
    else
        fputs("ufnc: ", f);
    if (color)
        fprintf(f, "%s%s:%s ", paint[kind], label[kind], C_RESET);
    else
        fprintf(f, "%s: ", label[kind]);
    fputs(text, f);
    fputc('\n', f);
    if (loc.file)
        print_snippet(loc);
}

void diag_error(Loc loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    report(D_ERROR, loc, fmt, ap);
    va_end(ap);
}

void diag_warning(Loc loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    report(D_WARNING, loc, fmt, ap);
    va_end(ap);
}

void diag_note(Loc loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    report(D_NOTE, loc, fmt, ap);
    va_end(ap);
}

void diag_fatal(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    Loc none = {0};
    report(D_ERROR, none, fmt, ap);
    va_end(ap);
}
