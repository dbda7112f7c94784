/* main.c - ufnc: the command line and the passes, in order. */
#include "ufnc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Standard output (-d, --help, --version) is checked when the process
 * exits, as GNU tools do: output that could not be written (a full disk,
 * /dev/full, a closed pipe) is an error, not exit status 0.  Registered
 * first, so it runs after every other exit handler. */
static void check_standard_output(void)
{
    if (fflush(stdout) != 0 || ferror(stdout)) {
        int err = errno;
        fprintf(stderr, "ufnc: error: cannot write standard output: %s\n", strerror(err ? err : EIO));
        _exit(EXIT_TOOL);
    }
    if (fflush(stderr) != 0 || ferror(stderr))
        _exit(EXIT_TOOL);
}

/* -fmax-errors: the rest of the run would only say more. */
static _Noreturn void stop_after_errors(void)
{
    driver_discard_outputs();
    exit(EXIT_SOURCE);
}

int main(int argc, char **argv)
{
    atexit(check_standard_output);
    Options opt;
    parse_options(argc, argv, &opt);
    diag_init(stderr, opt.color, opt.werror, opt.no_warnings);
    diag_set_error_limit(opt.max_errors, stop_after_errors);
    /* The front end's diagnostics come out in source order (diag.c); the
     * exit handler prints them on any early exit, and runs before the
     * check of standard output. */
    diag_hold();
    atexit(diag_flush);
    options_note_ignored(&opt);
    if (!opt.dump)
        claim_outputs(&opt);                            /* a failed run removes them */

    SrcFile *src = src_read(opt.input);
    if (!src) {
        diag_fatal("cannot read %s: %s", opt.input, strerror(errno));
        driver_discard_outputs();
        return EXIT_SOURCE;
    }
    if (opt.dump && !strcmp(opt.dump, "tokens")) {
        dump_tokens(stdout, src);
        return diag_error_count() ? EXIT_SOURCE : EXIT_OK;
    }

    Node *ast = parse_file(src);                       /* grammar/ufn.y */
    if (opt.dump && !strcmp(opt.dump, "ast")) {
        ast_dump(stdout, ast);
        return diag_error_count() ? EXIT_SOURCE : EXIT_OK;
    }

    CheckOptions copt = {.module_name = opt.module_name, .prefix = opt.prefix,
                         .include_dirs = opt.include_dirs, .ninclude_dirs = opt.ninclude_dirs,
                         .numpy_literals = opt.numpy_literals, .signatures = opt.signatures,
                         .nsignatures = opt.nsignatures};
    Module *m = check_module(ast, src, &copt);          /* check.c: imports, constants, decorators */
    if (!diag_error_count()) {
        make_instances(m);                              /* instance.c: kernel signatures, helpers, typed to a fixpoint */
        check_flow(m);                                  /* flow.c: locals used before they are assigned */
        infer_bodies(m);                                /* infer.c: typed bodies, type errors */
        name_module(m);                                 /* names.c: the C names */
    }
    diag_flush();                                       /* the build's own messages come as they happen */
    if (opt.drv.verbose)
        fprintf(stderr, "ufnc: front end: %.2f s\n", (double)clock() / CLOCKS_PER_SEC);
    if (diag_error_count()) {
        driver_discard_outputs();
        return EXIT_SOURCE;
    }
    if (opt.dump && !strcmp(opt.dump, "types")) {
        dump_types(stdout, m);
        return EXIT_OK;
    }

    int status = build_outputs(m, &opt);                /* emit_*.c, driver.c */
    if (status)
        driver_discard_outputs();
    return status;
}
