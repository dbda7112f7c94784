/* test_codegen.c - golden files of the code generators: for every
 * tests/golden/codegen/NAME.ufn, what `ufnc NAME.ufn -o NAME.cu`, `-o
 * NAME.host.c` and `-o NAME.h` write, compared with NAME.cu, NAME.host.c
 * and NAME.h.  UFN_UPDATE_GOLDEN=1 rewrites them: read the diff, the
 * generated code is what a user opens when something goes wrong.  Any
 * diagnostics (gaussian.ufn has a warning) come first in the file. */
#include "golden.h"
#include "compiler/passes.h"

static Module *checked(FILE *out, const SrcFile *src)
{
    Node *ast = parse_file(src);
    const char *dot = strrchr(src->name, '.');
    CheckOptions opt = {.module_name = arena_strndup(src->name, (size_t)(dot - src->name)), .prefix = ""};
    Module *m = check_passes(ast, src, &opt);
    if (diag_error_count()) {
        fprintf(out, "(errors: no code)\n");
        return NULL;
    }
    return m;
}

static void emit(FILE *out, const SrcFile *src, const char *ext,
                 void (*emitter)(Buf *, Module *, const EmitOptions *), bool cuda)
{
    Module *m = checked(out, src);
    if (!m)
        return;
    EmitOptions eo = {.cuda = cuda, .host = true, .sim = true, .line_directives = true,
                      .output_name = arena_printf("%s.%s", m->name, ext)};
    Buf b = {0};
    emitter(&b, m, &eo);
    fwrite(b.data, 1, b.len, out);
    buf_free(&b);
}

/* as ufnc writes them: the .c stub alone has no fatbin (it lives in the object) */
static void run_cu(FILE *out, const SrcFile *src) { emit(out, src, "cu", emit_cuda, true); }
static void run_host(FILE *out, const SrcFile *src) { emit(out, src, "host.c", emit_host, false); }
static void run_header(FILE *out, const SrcFile *src) { emit(out, src, "h", emit_header, true); }

int main(void)
{
    int failed = golden_run("codegen .cu", "tests/golden/codegen", "cu", run_cu);
    failed += golden_run("codegen .host.c", "tests/golden/codegen", "host.c", run_host);
    failed += golden_run("codegen .h", "tests/golden/codegen", "h", run_header);
    return failed;
}
