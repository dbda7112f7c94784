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

/* ---- the slow mode: the emitted C through the C compiler ---------------------------- */

/* FUZZ_CC=1: a module that compiles is also built as `ufnc --target=host,sim
 * -O0` builds it (build.c: the simulator's kernels and the host code by cc,
 * the relocatable link of the two), and its header is compiled as C99 with
 * -Werror.  cc failing on a module ufnc accepted is a finding: the class of
 * bug ("a valid name collides in the generated C") that the in-process
 * targets cannot see.  FUZZ_CC_CC names the compiler (default cc). */
int fe_cc_mode(void)
{
    static int mode = -1;
    if (mode < 0) {
        const char *v = getenv("FUZZ_CC");
        mode = v && *v == '1';
    }
    return mode;
}

static void cc_failed(const char *what, const uint8_t *data, size_t size)
{
    fprintf(stderr, "fuzz: ufnc accepted this module, but %s failed:\n%.*s\n", what, (int)size, (const char *)data);
    abort();
}

static void build_with_cc(Module *m, bool line_directives, const uint8_t *data, size_t size)
{
    const char *cc = getenv("FUZZ_CC_CC");
    Options opt = {.input = "fuzz.ufn", .kind = OUT_OBJECT, .host = true, .sim = true, .module_name = m->name,
                   .line_directives = line_directives,
                   .drv = {.cc = cc && *cc ? cc : "cc", .opt_level = 0}};
    const char *tmp = driver_tempdir(&opt.drv);
    if (!tmp)
        abort();
    opt.output = arena_printf("%s/result.o", tmp);
    opt.header = arena_printf("%s/result.h", tmp);
    if (build_outputs(m, &opt) != 0)
        cc_failed("building it with cc (host and sim)", data, size);
    /* the header as a C program sees it: C99, every warning an error */
    const char *c = arena_printf("%s/use_header.c", tmp);
    static const char use[] = "#include \"result.h\"\nint main(void) { return 0; }\n";
    if (write_file_atomic(c, use, sizeof use - 1) != 0)
        abort();
    const char *argv[] = {opt.drv.cc, "-std=c99", "-Wall", "-Wextra", "-Werror", "-fsyntax-only", "-Iinclude",
                          "use_header.c", NULL};
    if (run_tool_in(&opt.drv, tmp, argv) != 0)
        cc_failed("compiling its header as C99", data, size);
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
        if (fe_cc_mode())
            build_with_cc(m, (h & 4) != 0, data, size);
    }
    fflush(sink);
    arena_reset();
    types_reset();
    diag_reset();
}
