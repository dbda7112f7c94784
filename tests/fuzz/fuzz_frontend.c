/* fuzz_frontend.c - libFuzzer target: any bytes as a .ufn module, through the
 * whole front end (frontend.c).  Crashes, sanitizer reports, leaks and
 * internal errors (die() aborts) are findings.
 *
 * One more oracle: a module that compiles must compile again to the same
 * bytes after the reset, or some global state survived arena_reset(),
 * types_reset() or diag_reset() (and two runs of ufnc would differ). */
#include <stdio.h>
#include <stdlib.h>

#include "frontend.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* A directory that does not exist: imports reach only the embedded stdlib. */
    const char *name = "/nonexistent/fuzz.ufn";
    FeResult first, again;
    fe_compile(name, data, size, 1, &first);
    if (first.stage == 3) {
        fe_compile(name, data, size, 0, &again);
        if (again.stage != 3 || again.hash != first.hash || again.bytes != first.bytes) {
            fprintf(stderr, "fuzz_frontend: a second compilation of the same module differs "
                            "(%zu bytes, hash %016llx; then stage %d, %zu bytes, hash %016llx)\n",
                    first.bytes, (unsigned long long)first.hash, again.stage, again.bytes,
                    (unsigned long long)again.hash);
            abort();
        }
    }
    return 0;
}
