/* util.c - the arena, interned names, growable buffers and die().
 *
 * The compiler never frees single objects: everything comes from one arena
 * of large chunks that lives until the process exits or arena_reset(). */
#include "ufnc.h"

#include <stdlib.h>
#include <string.h>

/* ---- arena ---------------------------------------------------------------- */

typedef struct Chunk {
    struct Chunk *next;
    size_t used, size;
    max_align_t data[];
} Chunk;

static Chunk *chunks;

static _Noreturn void out_of_memory(size_t size)
{
    fprintf(stderr, "ufnc: fatal error: out of memory (asked for %zu bytes)\n", size);
    exit(3);
}

void *arena_alloc(size_t size)
{
    size = (size + sizeof(max_align_t) - 1) & ~(sizeof(max_align_t) - 1);
    if (!chunks || chunks->size - chunks->used < size) {
        size_t cap = size > (1u << 20) ? size : (1u << 20);
        Chunk *c = malloc(sizeof(Chunk) + cap);
        if (!c)
            out_of_memory(size);
        c->next = chunks;
        c->used = 0;
        c->size = cap;
        chunks = c;
    }
    void *p = (char *)chunks->data + chunks->used;
    chunks->used += size;
    memset(p, 0, size);
    return p;
}

char *arena_strndup(const char *s, size_t len)
{
    char *p = arena_alloc(len + 1);
    memcpy(p, s, len);
    p[len] = '\0';
    return p;
}

char *arena_printf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *p = arena_alloc((size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(p, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return p;
}

/* ---- interned names ----------------------------------------------------------- */

typedef struct Interned {
    struct Interned *next;
    size_t len;
    char text[];
} Interned;

static Interned **itab;
static size_t itab_cap, itab_len;

static uint64_t hash_bytes(const char *s, size_t len)
{
    uint64_t h = 1469598103934665603ull;           /* FNV-1a */
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    return h;
}

static void itab_grow(void)
{
    size_t cap = itab_cap ? itab_cap * 2 : 1024;
    Interned **t = calloc(cap, sizeof *t);
    if (!t)
        out_of_memory(cap * sizeof *t);
    for (size_t i = 0; i < itab_cap; i++) {
        for (Interned *e = itab[i], *next; e; e = next) {
            next = e->next;
            size_t slot = hash_bytes(e->text, e->len) & (cap - 1);
            e->next = t[slot];
            t[slot] = e;
        }
    }
    free(itab);
    itab = t;
    itab_cap = cap;
}

const char *intern(const char *s, size_t len)
{
    if (itab_len * 2 >= itab_cap)
        itab_grow();
    size_t slot = hash_bytes(s, len) & (itab_cap - 1);
    for (Interned *e = itab[slot]; e; e = e->next)
        if (e->len == len && memcmp(e->text, s, len) == 0)
            return e->text;
    Interned *e = arena_alloc(sizeof *e + len + 1);
    e->len = len;
    memcpy(e->text, s, len);
    e->next = itab[slot];
    itab[slot] = e;
    itab_len++;
    return e->text;
}

const char *intern_cstr(const char *s)
{
    return intern(s, strlen(s));
}

/* Counts resets, so that caches of arena pointers (types.c) can tell theirs
 * are gone without arena_reset knowing about them. */
static unsigned generation;

void arena_reset(void)
{
    while (chunks) {
        Chunk *next = chunks->next;
        free(chunks);
        chunks = next;
    }
    free(itab);
    itab = NULL;
    itab_cap = itab_len = 0;
    generation++;
}

unsigned arena_generation(void)
{
    return generation;
}

/* ---- die ---------------------------------------------------------------------- */

_Noreturn void die_at(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "ufnc: internal error at %s:%d: ", file, line);
    vfprintf(stderr, fmt, ap);
    fputs("\nufnc: this is a bug in ufnc; please report it with the input file\n", stderr);
    va_end(ap);
    abort();
}

/* ---- Buf ------------------------------------------------------------------------ */

static void buf_reserve(Buf *b, size_t extra)
{
    if (b->len + extra + 1 <= b->cap)
        return;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + extra + 1)
        cap *= 2;
    char *p = realloc(b->data, cap);
    if (!p)
        out_of_memory(cap);
    b->data = p;
    b->cap = cap;
}

void buf_putn(Buf *b, const char *s, size_t n)
{
    buf_reserve(b, n);
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = '\0';
}

void buf_putc(Buf *b, char c)
{
    buf_putn(b, &c, 1);
}

void buf_puts(Buf *b, const char *s)
{
    buf_putn(b, s, strlen(s));
}

void buf_vprintf(Buf *b, const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    buf_reserve(b, (size_t)n);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    b->len += (size_t)n;
}

void buf_printf(Buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    buf_vprintf(b, fmt, ap);
    va_end(ap);
}

void buf_free(Buf *b)
{
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}
