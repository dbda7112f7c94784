/* test_fold.c - module constants (compiler/fold.c): Python's and NumPy's
 * rules at import, then Numba's freezing; the values were checked against
 * Python 3.11 and NumPy 1.24, except the float-to-int conversions, where
 * NumPy is undefined and ufnc saturates (its documented rule). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ufnc.h"
#include "passes.h"

/* Fold `X = expr` in a module that imports math and numpy; the diagnostics
 * go to *diags. */
static const Sym *fold_x(const char *expr, char **diags)
{
    char *text = arena_printf("import math\nimport numpy as np\nX = %s\n", expr);
    size_t len;
    FILE *out = open_memstream(diags, &len);
    diag_init(out, COLOR_NEVER, false, false);
    diag_reset();
    SrcFile *src = src_from_memory("t.ufn", text, strlen(text));
    Node *ast = parse_file(src);
    CheckOptions opt = {.module_name = "t", .prefix = ""};
    Module *m = check_passes(ast, src, &opt);
    fclose(out);
    diag_init(stderr, COLOR_NEVER, false, false);
    return scope_lookup(m->globals, intern_cstr("X"));
}

typedef struct Case {
    const char *expr, *type;
    double value;          /* ints: exact in a double for the values below */
} Case;

static void check_cases(const Case *cases, size_t n)
{
    int bad = 0;
    for (size_t i = 0; i < n; i++) {
        const Case *c = &cases[i];
        char *diags = NULL;
        const Sym *s = fold_x(c->expr, &diags);
        if (!s || s->kind != SYM_CONST) {
            print_error("%s: not folded: %s", c->expr, diags);
            bad++;
        } else {
            const Value *v = &s->value;
            double got = ty_is_float(v->type) ? v->f : ty_is_unsigned(v->type) ? (double)v->u : (double)v->i;
            bool same = isnan(c->value) ? isnan(got) : got == c->value;
            if (strcmp(type_name(v->type), c->type) != 0 || !same) {
                print_error("%s = %s %.17g, expected %s %.17g\n", c->expr, type_name(v->type), got, c->type,
                            c->value);
                bad++;
            }
        }
        free(diags);
        arena_reset();
        types_reset();
    }
    assert_int_equal(bad, 0);
}

/* Python numbers: exact ints, true division, Python's floor rules. */
static void test_python_numbers(void **state)
{
    (void)state;
    static const Case cases[] = {
        {"2 * math.pi", "float64", 6.283185307179586},
        {"math.e", "float64", 2.718281828459045},
        {"16", "int64", 16},
        {"7 // 2", "int64", 3},
        {"-7 // 2", "int64", -4},
        {"-7 % 2", "int64", 1},
        {"7 % -2", "int64", -1},
        {"7 / 2", "float64", 3.5},
        {"2 ** -1", "float64", 0.5},
        {"2 ** 62", "int64", 4611686018427387904.0},
        {"2 ** 63", "uint64", 9223372036854775808.0},
        {"-2 ** 63", "int64", -9223372036854775808.0},
        {"2 ** 64 - 1", "uint64", 18446744073709551615.0},
        {"2 ** 100 // 2 ** 90", "int64", 1024},       /* exact beyond 64 bits */
        {"7.5 // 2", "float64", 3},
        {"-7.5 % 2", "float64", 0.5},
        {"1 << 40", "int64", 1099511627776.0},
        {"-1 >> 3", "int64", -1},
        {"-3 << 2", "int64", -12},                   /* negative left shifts, as Python */
        {"-1 << 63", "int64", -9223372036854775808.0},
        {"math.floor(-1e18)", "int64", -1e18},
        {"0xff & ~0x0f", "int64", 240},
        {"True + True", "int64", 2},
        {"True & False", "bool", 0},
        {"not 0", "bool", 1},
        {"-True", "int64", -1},
        {"int(3.7)", "int64", 3},
        {"int(-3.7)", "int64", -3},
        {"float(3)", "float64", 3},
        {"abs(-5)", "int64", 5},
        {"math.floor(2.5)", "int64", 2},             /* Python 3: an int */
        {"math.ceil(-2.5)", "int64", -2},
        {"math.sqrt(np.float32(2))", "float64", 1.4142135623730951},
        {"math.atan2(1, 1) * 4", "float64", 3.141592653589793},
        {"np.pi / 2", "float64", 1.5707963267948966},
        {"(2 * math.pi) ** 0.5", "float64", 2.5066282746310002},
    };
    check_cases(cases, sizeof cases / sizeof cases[0]);
}

/* NumPy 1.x scalars: promotion with Python ints as int64 and floats as
 * float64, wrapping ints, NumPy's division by zero. */
static void test_numpy_scalars(void **state)
{
    (void)state;
    static const Case cases[] = {
        {"np.float32((2 * math.pi) ** 0.5)", "float32", (float)2.5066282746310002},
        {"np.float32(0.5)", "float32", 0.5},
        {"np.float32(0.5) * np.float32(3)", "float32", 1.5},
        {"np.float32(1) / 255", "float64", 0.00392156862745098},
        {"np.float32(0.1) * 3", "float64", 0.30000000447034836},
        {"np.float32(2) ** 2", "float64", 4},
        {"np.float32(1) + True", "float32", 2},
        {"-np.float32(2)", "float32", -2},
        {"np.sqrt(np.float32(2))", "float32", (float)1.4142135623730951},
        {"np.sqrt(2)", "float64", 1.4142135623730951},
        {"np.uint8(200) + np.uint8(100)", "uint8", 44},
        {"np.uint8(3) - np.uint8(5)", "uint8", 254},
        {"np.int8(-128) * -1", "int64", 128},
        {"np.int8(1) + np.int16(1)", "int16", 2},
        {"np.int8(1) + np.uint8(1)", "int16", 2},
        {"np.float32(1) + np.int32(1)", "float64", 2},
        {"np.int16(-5) % 3", "int64", 1},
        {"np.float32(-7.5) // 2", "float64", -4},
        {"np.int32(7) // 2", "int64", 3},
        {"np.int32(7) / 2", "float64", 3.5},
        {"np.int32(1) // 0", "int64", 0},
        {"np.int32(1) % 0", "int64", 0},
        {"np.float32(1) / 0", "float64", INFINITY},
        {"np.float64(1) // 0", "float64", INFINITY},
        {"np.float64(1) % 0", "float64", NAN},
        {"np.int64(-9223372036854775807 - 1) // -1", "int64", -9223372036854775808.0},
        {"np.int64(2) ** 63", "int64", -9223372036854775808.0},
        {"~np.uint8(5)", "uint8", 250},
        {"np.uint32(1) << 40", "int64", 1099511627776.0},
        {"np.int32(-8) >> 1", "int64", -4},
        {"abs(np.int8(-128))", "int8", -128},
    };
    check_cases(cases, sizeof cases / sizeof cases[0]);
}

/* Casts: ints wrap; floats truncate and saturate, NaN is 0. */
static void test_casts(void **state)
{
    (void)state;
    static const Case cases[] = {
        {"np.int8(300)", "int8", 44},
        {"np.int8(-129)", "int8", 127},
        {"np.uint8(-1)", "uint8", 255},
        {"np.int32(2 ** 31)", "int32", -2147483648.0},
        {"np.uint64(-1)", "uint64", 18446744073709551615.0},
        {"np.uint64(2 ** 63)", "uint64", 9223372036854775808.0},
        {"np.int16(np.int32(70000))", "int16", 4464},
        {"np.int32(1e10)", "int32", 2147483647},
        {"np.int32(-1e10)", "int32", -2147483648.0},
        {"np.int8(300.7)", "int8", 127},
        {"np.int8(-3.9)", "int8", -3},
        {"np.uint32(-1.0)", "uint32", 0},
        {"np.uint8(255.9)", "uint8", 255},
        {"np.int64(math.nan)", "int64", 0},
        {"np.int64(math.inf)", "int64", 9223372036854775807.0},
        {"np.int64(1e19)", "int64", 9223372036854775807.0},
        {"np.uint64(1e20)", "uint64", 18446744073709551615.0},
        {"np.int16(-1e9)", "int16", -32768},
        {"np.float32(1e40)", "float32", INFINITY},
        {"np.float32(16777217)", "float32", 16777216},
        {"np.float64(2 ** 53 + 1)", "float64", 9007199254740992.0},
        {"np.bool_(0.5)", "bool", 1},
        {"np.bool_(math.nan)", "bool", 1},
        {"np.bool_(0)", "bool", 0},
    };
    check_cases(cases, sizeof cases / sizeof cases[0]);
}

/* What Python would raise at import, and what Numba cannot freeze. */
static void test_errors(void **state)
{
    (void)state;
    static const char *const rows[][2] = {
        {"1 / 0", "3:5: error: ZeroDivisionError: division by zero (Python raises it when the module is imported)"},
        {"1 // 0", "3:5: error: ZeroDivisionError: integer division or modulo by zero (Python raises it when the module is imported)"},
        {"1.5 % 0.0", "3:5: error: ZeroDivisionError: float division by zero (Python raises it when the module is imported)"},
        {"math.sqrt(-1)", "3:5: error: ValueError: math domain error (Python raises it when the module is imported)"},
        {"math.log(0)", "3:5: error: ValueError: math domain error (Python raises it when the module is imported)"},
        {"math.exp(1000)", "3:5: error: OverflowError: math range error (Python raises it when the module is imported)"},
        {"10.0 ** 400", "3:5: error: OverflowError: (34, 'Numerical result out of range') (Python raises it when the module is imported)"},
        {"np.int32(2) ** -1", "3:5: error: ValueError: Integers to negative integer powers are not allowed (Python raises it when the module is imported)"},
        {"np.int64(2 ** 64)", "3:5: error: OverflowError: Python int too large to convert to C long (Python raises it when the module is imported)"},
        {"int(math.nan)", "3:5: error: ValueError: cannot convert float NaN to integer (Python raises it when the module is imported)"},
        {"2 ** 64", "3:5: error: module-level value is not a constant expression: the integer is too large (Numba types module-level integers as int64 or uint64)"},
        {"2 ** 200", "3:5: error: module-level value is not a constant expression: the integer is too large (Numba types module-level integers as int64 or uint64)"},
        {"-1 << 100", "3:5: error: module-level value is not a constant expression: the integer is too large (Numba types module-level integers as int64 or uint64)"},
        {"math.floor(-9.2e57)", "3:5: error: module-level value is not a constant expression: the integer is too large (Numba types module-level integers as int64 or uint64)"},
        {"math.ceil(1e300)", "3:5: error: module-level value is not a constant expression: the integer is too large (Numba types module-level integers as int64 or uint64)"},
        {"(-8) ** (1 / 3)", "3:5: error: module-level value is not a constant expression: a negative number to a fractional power is complex"},
        {"1j * 2", "3:5: error: module-level value is not a constant expression: complex arithmetic is not supported in module constants"},
        {"Y + 1", "3:5: error: module-level value is not a constant expression: name 'Y' is not defined (constants must be defined before use)"},
        {"math.sqrt", "3:5: error: module-level value is not a constant expression: 'math.sqrt' is not a number"},
        {"np.zeros(3)", "3:5: error: module-level value is not a constant expression: np.zeros() is not a number, a cast such as np.float32(x) or a math function"},
        {"(1, 2)", "3:5: error: module-level value is not a constant expression: a tuple is not supported in a module constant"},
        {"'text' * 2", "3:5: error: module-level value is not a constant expression: a string is not supported in a module constant"},
        {"1 if True else 2", "3:5: error: module-level value is not a constant expression: a conditional expression is not supported in a module constant"},
        {"3 @ 4", "3:5: error: module-level value is not a constant expression: operator '@' is not supported here"},
        {"1.5 & 1", "3:5: error: module-level value is not a constant expression: operator '&' needs integers"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        char *diags = NULL;
        const Sym *s = fold_x(rows[i][0], &diags);
        char *nl = strchr(diags, '\n');
        if (nl)
            *nl = '\0';
        if (s || strncmp(diags, "t.ufn:", 6) != 0 || strcmp(diags + 6, rows[i][1]) != 0)
            fail_msg("X = %s:\n  got      %s\n  expected t.ufn:%s", rows[i][0], diags, rows[i][1]);
        free(diags);
        arena_reset();
        types_reset();
    }
}

/* Constants built from constants keep what they are: a Python int stays
 * exact, a NumPy scalar keeps its type. */
static void test_chains(void **state)
{
    (void)state;
    char *text = "import math\nimport numpy as np\nBIG = 2 ** 63\nLESS = BIG - 1\nHALF = np.float32(0.5)\n"
                 "ONE = HALF * 2\nTWO = HALF + HALF + np.float32(1)\nLO = HI = 1.5\nA, B = 1, 2.5\n__all__ = ['x']\n";
    char *diags = NULL;
    size_t len;
    FILE *out = open_memstream(&diags, &len);
    diag_init(out, COLOR_NEVER, false, false);
    diag_reset();
    SrcFile *src = src_from_memory("t.ufn", text, strlen(text));
    CheckOptions opt = {.module_name = "t", .prefix = ""};
    Module *m = check_passes(parse_file(src), src, &opt);
    fclose(out);
    diag_init(stderr, COLOR_NEVER, false, false);
    assert_string_equal(diags, "");
    free(diags);
    static const struct { const char *name, *type; double value; } rows[] = {
        {"BIG", "uint64", 9223372036854775808.0}, {"LESS", "int64", 9223372036854775807.0},
        {"HALF", "float32", 0.5}, {"ONE", "float64", 1}, {"TWO", "float32", 2},
        {"LO", "float64", 1.5}, {"HI", "float64", 1.5}, {"A", "int64", 1}, {"B", "float64", 2.5},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const Sym *s = scope_lookup(m->globals, intern_cstr(rows[i].name));
        assert_non_null(s);
        assert_int_equal(s->kind, SYM_CONST);
        const Value *v = &s->value;
        double got = ty_is_float(v->type) ? v->f : ty_is_unsigned(v->type) ? (double)v->u : (double)v->i;
        if (strcmp(type_name(v->type), rows[i].type) != 0 || got != rows[i].value)
            fail_msg("%s = %s %.17g, expected %s %.17g", rows[i].name, type_name(v->type), got, rows[i].type,
                     rows[i].value);
    }
    assert_null(scope_lookup(m->globals, intern_cstr("__all__")));   /* Python metadata: skipped */
    /* a string is fine for Python; kernels that use it get an error */
    diags = NULL;
    const Sym *str = fold_x("'fast'", &diags);
    assert_string_equal(diags, "");
    free(diags);
    assert_non_null(str);
    assert_int_equal(str->kind, SYM_CONST);
    assert_null(str->value.type);
}

/* value_cast is the generated code's conversion: the checker folds
 * literals with it, so it must agree with the runtime helpers' rules. */
static void test_value_cast(void **state)
{
    (void)state;
    Value f = {.type = ty_scalar(TY_FLOAT64), .f = -0.5};
    assert_int_equal(value_cast(f, ty_scalar(TY_INT32)).i, 0);
    f.f = 2147483647.5;
    assert_int_equal(value_cast(f, ty_scalar(TY_INT32)).i, 2147483647);
    f.f = -2147483649.0;
    assert_int_equal(value_cast(f, ty_scalar(TY_INT32)).i, -2147483648LL);
    f.f = 4294967296.0;
    assert_int_equal(value_cast(f, ty_scalar(TY_UINT32)).u, 4294967295u);
    f.f = 1.0000001;
    assert_true(value_cast(f, ty_scalar(TY_FLOAT32)).f == (double)1.0000001f);
    Value i = {.type = ty_scalar(TY_INT64), .i = -1};
    assert_int_equal(value_cast(i, ty_scalar(TY_UINT16)).u, 65535);
    assert_int_equal(value_cast(i, ty_scalar(TY_BOOL)).i, 1);
    Value u = {.type = ty_scalar(TY_UINT64), .u = UINT64_MAX};
    assert_int_equal(value_cast(u, ty_scalar(TY_INT64)).i, -1);
    assert_true(value_cast(u, ty_scalar(TY_FLOAT64)).f == 18446744073709551616.0);
    Value c = {.type = ty_scalar(TY_COMPLEX128), .c = {0, 2}};
    assert_int_equal(value_cast(c, ty_scalar(TY_BOOL)).i, 1);
    Value z = value_cast(i, ty_scalar(TY_COMPLEX64));
    assert_true(z.c[0] == -1 && z.c[1] == 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_python_numbers), cmocka_unit_test(test_numpy_scalars),
        cmocka_unit_test(test_casts),          cmocka_unit_test(test_errors),
        cmocka_unit_test(test_chains),         cmocka_unit_test(test_value_cast),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
