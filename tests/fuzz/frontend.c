/* frontend.c - one compilation in process, from bytes to the three generated
 * files, then a full reset (see frontend.h). */
#include "frontend.h"

#include <stdio.h>
#include <stdlib.h>

#include "ufnc.h"

static FILE *null;

void fe_verbose(void)
{
    null = stderr;
}

static FILE *null_stream(void)
{
    if (!null) {
        const char *v = getenv("FUZZ_VERBOSE");
        null = v && *v == '1' ? stderr : fopen("/dev/null", "w");
        if (!null)
            abort();
    }
    return null;
}

static uint64_t fnv(uint64_t h, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    return h;
}

/* Every emitter, as `ufnc -o x.o` runs them (the fatbin name is only
 * printed into an .incbin line, never opened). */
static void emit_all(Module *m, bool line_directives, FeResult *res)
{
    EmitOptions eo = {.cuda = true, .host = true, .sim = true, .line_directives = line_directives,
                      .fatbin_path = "fuzz.fatbin", .fatbin_size = 4096, .output_name = "fuzz.cu"};
    void (*const emit[])(Buf *, Module *, const EmitOptions *) = {emit_cuda, emit_host, emit_header};
    const char *names[] = {"fuzz.cu", "fuzz.host.c", "fuzz.h"};
    uint64_t h = 1469598103934665603ull;
    for (int i = 0; i < 3; i++) {
        Buf b = {0};
        eo.output_name = names[i];
        emit[i](&b, m, &eo);
        h = fnv(h, b.data ? b.data : "", b.len);
        res->bytes += b.len;
        buf_free(&b);
    }
    res->hash = h;
    res->stage = 3;
}

void fe_compile(const char *name, const uint8_t *data, size_t size, int dumps, FeResult *res)
{
    FILE *sink = null_stream();
    *res = (FeResult){0};
    diag_init(sink, COLOR_NEVER, false, false);
    diag_reset();

    SrcFile *src = src_from_memory(name, (const char *)data, size);
    if (dumps)
        dump_tokens(sink, src);
    Node *ast = parse_file(src);
    res->stage = 1;
    if (dumps)
        ast_dump(sink, ast);
    /* The checker runs after syntax errors too (as in ufnc): it must cope
     * with whatever the parser recovered. */
    /* ufnc derives the C module name from the file name (options.c).  The
     * options --prefix, --literals=numpy and --no-line (say) vary with the
     * input's hash, so that one corpus covers both ways of each. */
    uint64_t h = fnv(1469598103934665603ull, (const char *)data, size);
    CheckOptions copt = {.module_name = "fuzz", .prefix = (h & 3) == 0 ? "p_" : "",
                         .numpy_literals = (h & 8) != 0};
    /* main.c's passes */
    Module *m = check_module(ast, src, &copt);
    if (!diag_error_count()) {
        make_instances(m);
        check_flow(m);
        infer_bodies(m);
        name_module(m);
    }
    res->errors = diag_error_count();
    if (!res->errors) {
        res->stage = 2;
        if (dumps)
            dump_types(sink, m);
        emit_all(m, (h & 4) != 0, res);
    }
    fflush(sink);
    arena_reset();
    types_reset();
    diag_reset();
}
