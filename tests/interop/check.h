/* check.h - what the C interop tests share: CHECK counts failures, each
 * printed with its line; a program exits with done()'s status. */
#ifndef INTEROP_CHECK_H
#define INTEROP_CHECK_H

#include <stdio.h>

#include "ufn.h"

static int failures;

#define CHECK(cond)                                                                     \
    do {                                                                                \
        if (!(cond)) {                                                                  \
            fprintf(stderr, "%s:%d: failed: %s (ufn_error: %s)\n", __FILE__, __LINE__, \
                    #cond, ufn_error());                                                \
            failures++;                                                                 \
        }                                                                               \
    } while (0)

static inline int done(const char *name)
{
    printf("%s: %s on the %s backend\n", name, failures ? "FAILED" : "passed", ufn_backend());
    return failures != 0;
}

#endif
