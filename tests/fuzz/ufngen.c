/* ufngen.c - the generator on the command line (see gen.h):
 *
 *   ufngen [--seed N] [--exact] [--no-gufuncs] [--print]
 *   ufngen --seed N --exact --dir DIR [--module NAME]
 *
 * --print writes the module to stdout; --dir writes one differential test
 * (gen_drive.c) into DIR, which must exist.  --exact restricts the module
 * to correctly rounded operations, so results compare bit for bit. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"

int main(int argc, char **argv)
{
    uint64_t seed = 1;
    const char *dir = NULL, *module = "m";
    GenOptions o;
    gen_default_options(&o);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            seed = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--exact"))
            o.exact_only = true;
        else if (!strcmp(argv[i], "--no-gufuncs"))
            o.gufuncs = false;
        else if (!strcmp(argv[i], "--dir") && i + 1 < argc)
            dir = argv[++i];
        else if (!strcmp(argv[i], "--module") && i + 1 < argc)
            module = argv[++i];
        else if (!strcmp(argv[i], "--print"))
            dir = NULL;
        else {
            fprintf(stderr, "usage: ufngen [--seed N] [--exact] [--no-gufuncs] [--print | --dir DIR [--module NAME]]\n");
            return 2;
        }
    }
    GenRng r;
    rng_seed(&r, seed);
    GenProgram *p = gen_program(&r, &o);
    int rc = 0;
    if (dir)
        rc = gen_write_test(p, &r, dir, module) ? 1 : 0;
    else {
        size_t len;
        char *text = gen_print_ufn(p, &len);
        fwrite(text, 1, len, stdout);
        free(text);
    }
    gen_free(p);
    return rc;
}
