/* frontend.h - the whole front end of ufnc in process, for the fuzz targets:
 * scanner -> parser -> checker -> the three emitters, no nvcc and no cc
 * (unless FUZZ_CC=1: fe_cc_mode).
 *
 * Each call starts from a clean compiler (arena, interned names, derived
 * types and diagnostic counts reset), so that one process can compile
 * millions of inputs; diagnostics go to /dev/null unless FUZZ_VERBOSE=1. */
#ifndef FUZZ_FRONTEND_H
#define FUZZ_FRONTEND_H

#include <stddef.h>
#include <stdint.h>

typedef struct FeResult {
    int errors;              /* diagnostics reported (parse and check) */
    int stage;               /* how far it got: 1 parsed, 2 checked, 3 emitted */
    uint64_t hash;           /* of every emitted file, when stage == 3 */
    size_t bytes;            /* their total size */
} FeResult;

/* Compile `size` bytes as the module `name` (a path: imports are looked for
 * next to it, so give one in a directory that does not exist to reach only
 * the embedded standard library).  `dumps` also runs -d tokens, -d ast and
 * -d types into the null stream. */
void fe_compile(const char *name, const uint8_t *data, size_t size, int dumps, FeResult *res);
/* Diagnostics to stderr from now on (to show why an input failed). */
void fe_verbose(void);
/* Nonzero with FUZZ_CC=1 in the environment: every module that compiles is
 * also built by cc for host and sim, its header compiled as C99, and a
 * failure aborts (a finding).  Hundreds of times slower per module. */
int fe_cc_mode(void);

#endif
