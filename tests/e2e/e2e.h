/* e2e.h - what the end-to-end feature tests share (tests/e2e/NAME.c, each
 * with its module NAME.ufn).
 *
 * A test program runs on whatever backend UFN_BACKEND chose, checks every
 * result against a reference (libm in double, Numba's values generated once
 * into reference.h, or a rule spelt in the test), and with --dump FILE
 * writes its results for tests/e2e/cmpdump.c to compare two backends.  It
 * prints one line per group of checks and, for each mismatch, what was
 * computed from what, what came out and what was expected; it exits 0 when
 * everything passed and 1 otherwise.
 *
 * The checking, the random numbers and the dump format are samples/sample.h's.
 */
#ifndef E2E_H
#define E2E_H

#include <stdarg.h>

#include "sample.h"

#define E2E_SHOW 6          /* mismatches printed per group */

static const char *e2e_name;
static int e2e_failed_groups;
static struct {
    char what[96];
    long checks, failures;
} e2e_group;

/* --dump FILE, and the first line: which program, which backend. */
static inline void e2e_start(int argc, char **argv, const char *name)
{
    sample_args(argc, argv);
    e2e_name = name;
    printf("%s: on the %s backend\n", name, ufn_backend());
}

static inline void e2e_begin(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e2e_group.what, sizeof e2e_group.what, fmt, ap);
    va_end(ap);
    e2e_group.checks = e2e_group.failures = 0;
}

/* One mismatch of the current group: "what differed", printf-style. */
static inline void e2e_fail(const char *fmt, ...)
{
    if (e2e_group.failures++ < E2E_SHOW) {
        va_list ap;
        va_start(ap, fmt);
        printf("    %s: ", e2e_group.what);
        vprintf(fmt, ap);
        printf("\n");
        va_end(ap);
    }
}

static inline int e2e_end(void)
{
    if (e2e_group.failures == 0) {
        printf("  ok    %s (%ld checks)\n", e2e_group.what, e2e_group.checks);
        return 0;
    }
    printf("  FAIL  %s: %ld of %ld checks failed%s\n", e2e_group.what, e2e_group.failures,
           e2e_group.checks, e2e_group.failures > E2E_SHOW ? " (first ones shown above)" : "");
    e2e_failed_groups++;
    return 1;
}

/* A condition, with the message to print when it does not hold. */
#define E2E_CHECK(cond, ...)                                                          \
    do {                                                                              \
        e2e_group.checks++;                                                           \
        if (!(cond))                                                                  \
            e2e_fail(__VA_ARGS__);                                                    \
    } while (0)

/* A call that must succeed; a refused one fails the group with its message. */
#define E2E_CALL(call)                                                                \
    do {                                                                              \
        int e2e_status_ = (call);                                                     \
        E2E_CHECK(e2e_status_ == 0, "%s returned %s: %s", #call,                       \
                  ufn_status_name(e2e_status_), ufn_error());                         \
    } while (0)

/* A call that must be refused with `status` and a message containing `text`. */
#define E2E_REFUSED(call, status, text)                                               \
    do {                                                                              \
        int e2e_status_ = (call);                                                     \
        const char *e2e_msg_ = ufn_error();                                           \
        E2E_CHECK(e2e_status_ == (status) && strstr(e2e_msg_, (text)) != NULL,        \
                  "%s returned %s (\"%s\"), expected %s with a message containing \"%s\"", \
                  #call, ufn_status_name(e2e_status_), e2e_msg_, ufn_status_name(status), \
                  (text));                                                            \
    } while (0)

/* Bit-for-bit equality of floats (NaN equals NaN; -0.0 is not 0.0). */
static inline int e2e_same_f64(double a, double b)
{
    return (isnan(a) && isnan(b)) || (a == b && signbit(a) == signbit(b));
}

static inline int e2e_finish(void)
{
    return sample_finish(e2e_name, e2e_failed_groups);
}

#endif /* E2E_H */
