/* fuzz_gen.c - libFuzzer target: the bytes are the choices of the generator
 * of valid modules (gen.c), so every input is a module ufnc must accept.
 * It goes through the whole front end (frontend.c); a diagnostic is a
 * finding (a checker that refuses valid code, or a generator that writes
 * invalid code: either way a bug to fix), as are crashes and internal
 * errors.  The reference interpreter also runs each kernel once, so its
 * own invariants (indices inside arrays) are fuzzed too. */
#include <stdio.h>
#include <stdlib.h>

#include "frontend.h"
#include "gen.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void evaluate(const GenProgram *p, GenRng *r)
{
    for (int i = 0; i < p->nfuncs; i++) {
        const GFunc *f = &p->funcs[i];
        GVal store[8][8] = {{{0}}}, *arrays[8];
        bool flags[8][8] = {{0}}, *differs[8];
        for (int k = 0; k < f->nparams && k < 8; k++) {
            for (int j = 0; j < 8; j++)
                store[k][j].i = (int64_t)rng_below(r, 7) - 3;     /* valid for every type */
            arrays[k] = store[k];
            differs[k] = flags[k];
        }
        if (f->kind == GF_VECTORIZE) {
            GVal args[8];
            for (int k = 0; k < f->nparams; k++)
                args[k] = store[k][0];
            gen_eval_vectorize(p, f, args);
        } else if (f->kind == GF_GUVECTORIZE) {
            int sizes[2] = {1 + (int)rng_below(r, 2), 1 + (int)rng_below(r, 4)};   /* 2-D: <= 8 elements */
            gen_eval_guvectorize(p, f, arrays, differs, sizes);
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    GenRng r;
    rng_bytes(&r, data, size);
    GenOptions o;
    gen_default_options(&o);
    GenProgram *p = gen_program(&r, &o);
    size_t len;
    char *text = gen_print_ufn(p, &len);
    FeResult res;
    fe_compile("/nonexistent/gen.ufn", (const uint8_t *)text, len, 0, &res);
    if (res.errors || res.stage != 3) {
        fprintf(stderr, "fuzz_gen: ufnc refused a module the generator calls valid:\n%s\n", text);
        fe_verbose();
        fe_compile("/nonexistent/gen.ufn", (const uint8_t *)text, len, 0, &res);
        abort();
    }
    evaluate(p, &r);
    free(text);
    gen_free(p);
    return 0;
}
