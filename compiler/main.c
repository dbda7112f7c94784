/* main.c - ufnc: the command line and the passes, in order. */
#include "ufnc.h"

#include <errno.h>
#include <string.h>

int main(int argc, char **argv)
{
    Options opt;
    parse_options(argc, argv, &opt);
    diag_init(stderr, opt.color, opt.werror, opt.no_warnings);
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
                         .numpy_literals = opt.numpy_literals};
    Module *m = check_module(ast, src, &copt);          /* check.c: imports, constants, decorators */
    if (!diag_error_count()) {
        make_instances(m);                              /* instance.c: kernel signatures, helpers, typed to a fixpoint */
        check_flow(m);                                  /* flow.c: locals used before they are assigned */
        infer_bodies(m);                                /* infer.c: typed bodies, type errors */
        name_module(m);                                 /* names.c: the C names */
    }
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
