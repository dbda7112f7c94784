/* test_typing.c - the checker's types against Numba's: every row of
 * typing_table.h (generated once from Numba's CUDA typing context by
 * gen_typing_table.py) is compiled as the body of a kernel, and the type
 * the checker gives the local r must be Numba's, or an error where Numba
 * refuses the code.  Deliberate differences are listed below, each with
 * its reason; they are checked too. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ufnc.h"
#include "passes.h"

typedef struct Row {
    const char *stmts, *a, *b, *type;
} Row;

static const Row numba_rows[] = {
#include "typing_table.h"
};

/* Where ufnc's answer differs from Numba's on purpose: ufnc's answer, with
 * the reason in *why; NULL where the two agree. */
static const char *divergence(const Row *r, const char **why)
{
    bool abool = strcmp(r->a, "boolean") == 0, bbool = strcmp(r->b, "boolean") == 0;
    bool starts = false;
    static const char *const python_accepts[] = {"r = min(", "r = max(", "r = complex(a, b)", "r = float(a)",
                                                 "r = complex(a)", "r = a.real", "r = a.imag",
                                                 "r = a.conjugate()"};
    for (size_t i = 0; i < sizeof python_accepts / sizeof python_accepts[0]; i++)
        starts = starts || strncmp(r->stmts, python_accepts[i], strlen(python_accepts[i])) == 0;
    bool complex_arg = strncmp(r->a, "complex", 7) == 0 || strncmp(r->b, "complex", 7) == 0;
    bool is_minmax = strncmp(r->stmts, "r = min(", 8) == 0 || strncmp(r->stmts, "r = max(", 8) == 0;
    if (strcmp(r->type, "error") == 0 && starts && (abool || bbool) && !complex_arg) {
        *why = "Numba refuses a bool here; Python (and ufnc) take it as the integer 0 or 1";
        if (is_minmax)                                  /* np.promote_types(bool, x) is x */
            return abool && bbool ? "bool" : abool ? r->b : r->a;
        if (strcmp(r->stmts, "r = complex(a, b)") == 0 || strcmp(r->stmts, "r = complex(a)") == 0)
            return "complex128";
        if (strcmp(r->stmts, "r = float(a)") == 0)
            return "float64";
        return "bool";                                   /* True.real is True */
    }
    if ((strcmp(r->stmts, "r = a ** b") == 0 || strcmp(r->stmts, "r = pow(a, b)") == 0) && abool
        && strcmp(r->type, "float32") == 0 && strcmp(r->b, "int32") == 0) {
        *why = "Numba's bool ** int32 picks a float32 overload by accident; a bool is an integer (True ** 2 == 1)";
        return "int64";
    }
    if (strcmp(r->stmts, "r = cmath.polar(a)") == 0 && strcmp(r->type, "error") == 0) {
        *why = "Numba's cmath.polar takes only complex numbers; Python's takes any number";
        bool f32 = !strcmp(r->a, "float32") || abool || !strcmp(r->a, "int8") || !strcmp(r->a, "uint8")
                   || !strcmp(r->a, "int16");
        return f32 ? "UniTuple(float32 x 2)" : "UniTuple(float64 x 2)";
    }
    return NULL;
}

/* Compile one row; the type of r, "error", or NULL with *why set. */
static const char *ufnc_type(const char *stmts, const char *a, const char *b, char **diags)
{
    char *text = arena_printf("import math\nimport cmath\nimport numpy as np\nfrom numba import vectorize\n\n"
                              "@vectorize(['int64(%s, %s)'])\ndef k(a, b):\n    %s\n    return 0\n",
                              a, b, stmts);
    size_t len = 0;
    FILE *out = open_memstream(diags, &len);
    diag_init(out, COLOR_NEVER, false, true);
    diag_reset();
    SrcFile *src = src_from_memory("t.ufn", text, strlen(text));
    Node *ast = parse_file(src);
    CheckOptions opt = {.module_name = "t", .prefix = ""};
    Module *m = diag_error_count() ? NULL : check_passes(ast, src, &opt);
    int errors = diag_error_count();
    fclose(out);
    diag_init(stderr, COLOR_NEVER, false, false);
    if (errors)
        return "error";
    if (m->nkernels != 1 || m->kernels[0]->ninstances != 1)
        return "no kernel";
    const Instance *inst = m->kernels[0]->instances[0];
    for (int i = 0; i < inst->nvars; i++)
        if (strcmp(inst->vars[i]->name, "r") == 0)
            return type_name(inst->vars[i]->type);
    return "no r";
}

static void test_numba_table(void **state)
{
    (void)state;
    int bad = 0, n = (int)(sizeof numba_rows / sizeof numba_rows[0]);
    for (int i = 0; i < n; i++) {
        const Row *r = &numba_rows[i];
        const char *why = NULL;
        const char *d = divergence(r, &why);
        const char *want = d ? d : r->type;
        char *diags = NULL;
        const char *got = ufnc_type(r->stmts, r->a, r->b, &diags);
        if (strcmp(got, want) != 0) {
            if (bad < 400)
                print_error("%-28s a=%-10s b=%-10s numba=%-22s ufnc=%s%s%s%s\n", r->stmts, r->a, r->b, r->type,
                            got, d ? " (expected " : "", d ? want : "", d ? ": a deliberate difference)" : "");
            bad++;
        }
        free(diags);
        arena_reset();
        types_reset();
    }
    if (bad)
        print_error("%d of %d rows differ\n", bad, n);
    assert_int_equal(bad, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_numba_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
