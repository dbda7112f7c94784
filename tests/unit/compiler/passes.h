/* passes.h - the checker's passes in the order main.c runs them, for tests
 * that check a module from text. */
#ifndef TEST_PASSES_H
#define TEST_PASSES_H

#include "ufnc.h"

static inline Module *check_passes(Node *ast, const SrcFile *src, const CheckOptions *opt)
{
    Module *m = check_module(ast, src, opt);
    if (!diag_error_count()) {
        make_instances(m);
        check_flow(m);
        infer_bodies(m);
        name_module(m);
    }
    return m;
}

#endif
