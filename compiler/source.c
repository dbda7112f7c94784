/* source.c - source files and locations. */
#include "ufnc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Inputs larger than this are refused rather than read: a .ufn module is
 * source code, and a huge file is far more likely a mistake. */
#define SRC_MAX_BYTES (64u << 20)

/* Python's universal newlines: a CRLF or a lone CR ends a line as LF does
 * (in strings too), so the scanner and the snippets of diagnostics see LF
 * only.  Columns do not change: the CR is at the end of its line. */
static char *normalise_newlines(const char *text, size_t *len)
{
    char *out = arena_strndup(text, *len);
    size_t k = 0;
    for (size_t i = 0; i < *len; i++) {
        if (text[i] == '\r') {
            out[k++] = '\n';
            if (i + 1 < *len && text[i + 1] == '\n')
                i++;
        } else
            out[k++] = text[i];
    }
    out[k] = '\0';
    *len = k;
    return out;
}

SrcFile *src_from_memory(const char *name, const char *text, size_t len)
{
    SrcFile *f = arena_alloc(sizeof *f);
    f->name = intern_cstr(name);
    text = f->text = normalise_newlines(text, &len);
    f->len = len;
    int n = 1;
    for (size_t i = 0; i < len; i++)
        if (text[i] == '\n' && i + 1 < len)
            n++;
    int *starts = arena_alloc(sizeof(int) * (size_t)n);
    int k = 0;
    starts[k++] = 0;
    for (size_t i = 0; i < len && k < n; i++)
        if (text[i] == '\n' && i + 1 < len)
            starts[k++] = (int)(i + 1);
    f->line_start = starts;
    f->nlines = n;
    return f;
}

SrcFile *src_read(const char *path)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return NULL;
    struct stat st;
    if (fstat(fileno(fp), &st) == 0 && S_ISDIR(st.st_mode)) {
        fclose(fp);
        errno = EISDIR;
        return NULL;
    }
    Buf b = {0};
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, fp)) > 0) {
        if (b.len + n > SRC_MAX_BYTES) {
            fclose(fp);
            buf_free(&b);
            errno = EFBIG;
            return NULL;
        }
        buf_putn(&b, chunk, n);
    }
    int err = ferror(fp);
    fclose(fp);
    if (err) {
        buf_free(&b);
        errno = EIO;
        return NULL;
    }
    SrcFile *f = src_from_memory(path, b.data ? b.data : "", b.len);
    buf_free(&b);
    return f;
}

const char *src_line(const SrcFile *f, int line, int *len)
{
    if (!f || line < 1 || line > f->nlines) {
        *len = 0;
        return "";
    }
    const char *start = f->text + f->line_start[line - 1];
    const char *end = start;
    const char *limit = f->text + f->len;
    while (end < limit && *end != '\n' && *end != '\r')
        end++;
    *len = (int)(end - start);
    return start;
}

Loc loc_join(Loc a, Loc b)
{
    Loc r = a;
    r.end_line = b.end_line;
    r.end_col = b.end_col;
    return r;
}
