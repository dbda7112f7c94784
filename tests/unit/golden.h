/* golden.h - golden-file cases for cmocka: one case per input file.
 *
 * For every DIR/NAME.ufn, RUN writes what it makes of the file (and the
 * diagnostics it reports, into the same stream, in the order they happen)
 * and the case compares that with DIR/NAME.EXT.  With UFN_UPDATE_GOLDEN=1
 * in the environment the expected files are rewritten instead: review the
 * diff before committing them.
 *
 * Diagnostics name the file by its base name, so the files read the same
 * wherever the tests run from (make check-unit runs them from the top). */
#ifndef GOLDEN_H
#define GOLDEN_H

#include <glob.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ufnc.h"

typedef void GoldenRun(FILE *out, const SrcFile *src);

typedef struct GoldenCase {
    char *input;        /* DIR/NAME.ufn */
    char *expected;     /* DIR/NAME.EXT */
    GoldenRun *run;
} GoldenCase;

static char *golden_slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *data = NULL;
    size_t cap = 0;
    *len = 0;
    for (;;) {
        if (*len + 4096 + 1 > cap) {
            cap = cap ? cap * 2 : 8192;
            data = realloc(data, cap);
            assert_non_null(data);
        }
        size_t n = fread(data + *len, 1, 4096, f);
        *len += n;
        if (n == 0)
            break;
    }
    fclose(f);
    data[*len] = '\0';
    return data;
}

/* Line number of the first difference, for the failure message. */
static int golden_first_difference(const char *a, const char *b)
{
    int line = 1;
    for (; *a && *a == *b; a++, b++)
        if (*a == '\n')
            line++;
    return line;
}

static void golden_print_line(const char *what, const char *text, int line)
{
    for (int l = 1; l < line && text; l++) {
        text = strchr(text, '\n');
        if (text)
            text++;
    }
    if (!text || !*text) {
        print_error("  %s: (end of output)\n", what);
        return;
    }
    const char *end = strchr(text, '\n');
    print_error("  %s: %.*s\n", what, end ? (int)(end - text) : (int)strlen(text), text);
}

static void golden_test(void **state)
{
    const GoldenCase *c = *state;
    size_t len;
    char *text = golden_slurp(c->input, &len);
    assert_non_null(text);
    const char *base = strrchr(c->input, '/');
    SrcFile *src = src_from_memory(base ? base + 1 : c->input, text, len);
    free(text);

    char *actual = NULL;
    size_t actual_len = 0;
    FILE *out = open_memstream(&actual, &actual_len);
    assert_non_null(out);
    diag_init(out, COLOR_NEVER, false, false);
    diag_reset();
    c->run(out, src);
    fclose(out);
    diag_init(stderr, COLOR_NEVER, false, false);

    if (getenv("UFN_UPDATE_GOLDEN") && *getenv("UFN_UPDATE_GOLDEN") == '1') {
        FILE *f = fopen(c->expected, "wb");
        assert_non_null(f);
        fwrite(actual, 1, actual_len, f);
        fclose(f);
    } else {
        size_t exp_len;
        char *expected = golden_slurp(c->expected, &exp_len);
        if (!expected) {
            print_error("missing %s (UFN_UPDATE_GOLDEN=1 writes it)\n", c->expected);
            free(actual);
            fail();
        }
        if (strcmp(actual, expected) != 0) {
            int line = golden_first_difference(actual, expected);
            print_error("%s differs at line %d (UFN_UPDATE_GOLDEN=1 rewrites it):\n", c->expected, line);
            golden_print_line("expected", expected, line);
            golden_print_line("actual  ", actual, line);
            free(expected);
            free(actual);
            fail();
        }
        free(expected);
    }
    free(actual);
    arena_reset();
}

/* One case per DIR/\*.ufn, in name order; the array and its strings live
 * until the process exits. */
static struct CMUnitTest *golden_cases(const char *dir, const char *ext, GoldenRun *run, size_t *count)
{
    char pattern[512];
    snprintf(pattern, sizeof pattern, "%s/*.ufn", dir);
    glob_t g;
    if (glob(pattern, 0, NULL, &g) != 0) {
        *count = 0;
        return NULL;
    }
    struct CMUnitTest *tests = calloc(g.gl_pathc, sizeof *tests);
    GoldenCase *cases = calloc(g.gl_pathc, sizeof *cases);
    assert_non_null(tests);
    assert_non_null(cases);
    for (size_t i = 0; i < g.gl_pathc; i++) {
        const char *path = g.gl_pathv[i];
        size_t stem = strlen(path) - strlen(".ufn");
        cases[i].input = strdup(path);
        cases[i].expected = malloc(stem + strlen(ext) + 2);
        sprintf(cases[i].expected, "%.*s.%s", (int)stem, path, ext);
        cases[i].run = run;
        const char *base = strrchr(path, '/');
        tests[i].name = strdup(base ? base + 1 : path);
        tests[i].test_func = golden_test;
        tests[i].initial_state = &cases[i];
    }
    *count = g.gl_pathc;
    globfree(&g);
    return tests;
}

static void golden_free(struct CMUnitTest *tests, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        GoldenCase *c = (GoldenCase *)tests[i].initial_state;
        free(c->input);
        free(c->expected);
        free((char *)tests[i].name);
    }
    if (count)
        free(tests[0].initial_state);
    free(tests);
}

/* Run the cases of DIR, named after it, and free them. */
static int golden_run(const char *group, const char *dir, const char *ext, GoldenRun *run)
{
    size_t count;
    struct CMUnitTest *tests = golden_cases(dir, ext, run, &count);
    if (count == 0) {
        print_error("no golden files in %s (run from the top of the tree)\n", dir);
        return 1;
    }
    int failed = _cmocka_run_group_tests(group, tests, count, NULL, NULL);
    golden_free(tests, count);
    return failed;
}

#endif
