/* test_codegen.c - golden files of the code generators: for every
 * tests/golden/codegen/NAME.ufn, what `ufnc NAME.ufn -o NAME.cu`, `-o
 * NAME.host.c` and `-o NAME.h` write, compared with NAME.cu, NAME.host.c
 * and NAME.h.  UFN_UPDATE_GOLDEN=1 rewrites them: read the diff, the
 * generated code is what a user opens when something goes wrong.  Any
 * diagnostics (gaussian.ufn has a warning) come first in the file. */
#include "golden.h"
#include "compiler/passes.h"

static Module *checked(FILE *out, const SrcFile *src)
{
    Node *ast = parse_file(src);
    const char *dot = strrchr(src->name, '.');
    CheckOptions opt = {.module_name = arena_strndup(src->name, (size_t)(dot - src->name)), .prefix = ""};
    Module *m = check_passes(ast, src, &opt);
    if (diag_error_count()) {
        fprintf(out, "(errors: no code)\n");
        return NULL;
    }
    return m;
}

static void emit(FILE *out, const SrcFile *src, const char *ext,
                 void (*emitter)(Buf *, Module *, const EmitOptions *), bool cuda)
{
    Module *m = checked(out, src);
    if (!m)
        return;
    EmitOptions eo = {.cuda = cuda, .host = true, .sim = true, .line_directives = true,
                      .output_name = arena_printf("%s.%s", m->name, ext)};
    Buf b = {0};
    emitter(&b, m, &eo);
    fwrite(b.data, 1, b.len, out);
    buf_free(&b);
}

/* as ufnc writes them: the .c stub alone has no fatbin (it lives in the object) */
static void run_cu(FILE *out, const SrcFile *src) { emit(out, src, "cu", emit_cuda, true); }
static void run_host(FILE *out, const SrcFile *src) { emit(out, src, "host.c", emit_host, false); }
static void run_header(FILE *out, const SrcFile *src) { emit(out, src, "h", emit_header, true); }

/* A module with more tuple types than any fixed table: each emitter writes
 * one struct per type (ufnc once stopped with an internal error past 512
 * tuple and array types). */
static void test_many_types(void **state)
{
    (void)state;
    static const char *const casts[] = {"np.int8", "np.int16", "np.int32", "np.int64", "np.uint8",
                                        "np.uint16", "np.uint32", "np.uint64", "np.float32"};
    Buf text = {0};
    buf_puts(&text, "import numpy as np\nfrom numba import vectorize\n\n@vectorize(['float64(float64)'])\ndef f(x):\n");
    int ntypes = 0;
    for (int a = 0; a < 9; a++)
        for (int b = 0; b < 9; b++)
            for (int c = 0; c < 9; c++, ntypes++)
                buf_printf(&text, "    t%d = (%s(x), %s(x), %s(x))\n", ntypes, casts[a], casts[b], casts[c]);
    buf_puts(&text, "    return x\n");
    SrcFile *src = src_from_memory("many.ufn", text.data, text.len);
    CheckOptions opt = {.module_name = "many", .prefix = ""};
    Module *m = check_passes(parse_file(src), src, &opt);
    assert_int_equal(diag_error_count(), 0);
    EmitOptions eo = {.host = true, .sim = true, .output_name = "many.cu"};
    void (*const emit[])(Buf *, Module *, const EmitOptions *) = {emit_cuda, emit_host};
    for (int i = 0; i < 2; i++) {
        Buf out = {0};
        emit[i](&out, m, &eo);
        int structs = 0;
        for (const char *p = out.data; (p = strstr(p, "typedef struct {")); p++)
            structs++;
        assert_int_equal(structs, ntypes);
        buf_free(&out);
    }
    buf_free(&text);
    arena_reset();
}

/* The host C of a module's source. */
static char *module_host_code(const char *text)
{
    SrcFile *src = src_from_memory("dc.ufn", text, strlen(text));
    CheckOptions opt = {.module_name = "dc", .prefix = ""};
    Module *m = check_passes(parse_file(src), src, &opt);
    assert_int_equal(diag_error_count(), 0);
    EmitOptions eo = {.host = true, .sim = true, .output_name = "dc.host.c"};
    Buf out = {0};
    emit_host(&out, m, &eo);
    char *code = arena_strndup(out.data, out.len);
    buf_free(&out);
    return code;
}

/* The host C of a module of one ufunc, `@vectorize(['<sig>']) def f(x):
 * return <body>`. */
static char *host_code(const char *sig, const char *body)
{
    Buf text = {0};
    buf_printf(&text, "import math\nfrom numba import vectorize\n\n@vectorize(['%s'])\ndef f(x):\n    return %s\n", sig, body);
    char *code = module_host_code(text.data);
    buf_free(&text);
    return code;
}

/* Which divisions are spelled ufn_div_const_f32/_f64 (emit_expr.c,
 * div_const): odd integer constants 3 <= |d| < 2^22 (float32), 2^50
 * (float64); Numba's float32 x / 255 (a float64 division rounded to
 * float32 at once) in float32; a float64 quotient kept float64; none in a
 * body that calls a math function. */
static void test_div_const(void **state)
{
    (void)state;
    static const struct { const char *sig, *body, *want; } cases[] = {
        {"float32(float32)", "x / 255", "return ufn_div_const_f32(v_x, 255.0f, 0x1.010102p-8f);"},
        {"float32(float32)", "x / -255", "return -ufn_div_const_f32(v_x, 255.0f, 0x1.010102p-8f);"},
        {"float32(float32)", "x / 3.0", "return ufn_div_const_f32(v_x, 3.0f, 0x1.555556p-2f);"},
        {"float32(float32)", "x / 4194303", "return ufn_div_const_f32(v_x, 4194303.0f, 0x1.000004p-22f);"},
        /* the quotient is added in float64 before the rounding: not narrowed */
        {"float32(float32)", "1 + x / -3", "(float)(1.0 + (-ufn_div_const_f64((double)v_x, 3.0, 0x1.5555555555555p-2)))"},
        {"float64(float64)", "x / 255", "return ufn_div_const_f64(v_x, 255.0, 0x1.010101010101p-8);"},
        {"float64(float64)", "x / 1125899906842623", "ufn_div_const_f64(v_x, 1125899906842623.0, "},
        {"float64(float32)", "x / 255", "return ufn_div_const_f64((double)v_x, 255.0, 0x1.010101010101p-8);"},
        {"float32(float32)", "x / 256", "return (float)(((double)v_x) / 256.0);"},
        {"float32(float32)", "x / 0", "return (float)(((double)v_x) / 0.0);"},
        {"float32(float32)", "x / 0.5", "return (float)(((double)v_x) / 0.5);"},
        {"float32(float32)", "x / 2.5", "return (float)(((double)v_x) / 2.5);"},
        {"float32(float32)", "x / 1", "return (float)(((double)v_x) / 1.0);"},
        {"float32(float32)", "x / 8388608", "return (float)(((double)v_x) / 8388608.0);"},
        {"float32(float32)", "x / 6", "return (float)(((double)v_x) / 6.0);"},
        {"float32(float32)", "x / x", "return v_x / v_x;"},
        {"float64(float64)", "x / 1125899906842625", "return v_x / 1125899906842625.0;"},
        /* a body with a math call keeps the divider (the cost model in div_const) */
        {"float32(float32)", "math.exp(x) / 255", "return (float)(((double)ufn_exp_f32(v_x)) / 255.0);"},
        {"float64(float64)", "math.sqrt(x) / 3", "return ufn_sqrt_f64(v_x) / 3.0;"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *code = host_code(cases[i].sig, cases[i].body);
        if (!strstr(code, cases[i].want))
            fail_msg("%s: %s: no `%s` in\n%s", cases[i].sig, cases[i].body, cases[i].want, strstr(code, " v_x)") ? strstr(code, " v_x)") : code);
        bool helper = strstr(cases[i].want, "ufn_div_const") != NULL;
        assert_int_equal(strstr(code, "ufn_div_const") != NULL, helper);
        arena_reset();
    }
}

/* A body inlined into a loop that evaluates a math function keeps `/`
 * there and only there: normalize composed into hidden() beside exp gets a
 * divider copy with `/` that hidden() calls, while its own body (its host
 * loop's) takes the helper; so does a body between them that does not divide
 * itself (scaled).  Composed without math, or calling math itself, there is
 * no copy.  (emit_expr.c, div_const and has_divider_copy.) */
static void test_div_const_composed(void **state)
{
    (void)state;
    static const char *const with_math =
        "import math\nfrom numba import vectorize\n\n"
        "@vectorize(['float32(float32)'])\ndef normalize(x):\n    return x / 255\n\n"
        "@vectorize(['float32(float32)'])\ndef scaled(x):\n    return normalize(x) * 2\n\n"
        "@vectorize(['float32(float32)'])\ndef hidden(g):\n    return math.exp(normalize(g)) + math.exp(scaled(g))\n";
    char *code = module_host_code(with_math);
    const char *own = strstr(code, "UFN_BODY float dc__normalize__f32(float v_x)\n{");
    const char *copy = strstr(code, "UFN_BODY float dc__normalize__f32__divider(float v_x)\n{");
    assert_non_null(own);
    assert_non_null(copy);
    assert_non_null(strstr(own, "return ufn_div_const_f32(v_x, 255.0f, 0x1.010102p-8f);"));
    assert_true(strstr(own, "return ufn_div_const_f32(") < copy);
    assert_non_null(strstr(copy, "return (float)(((double)v_x) / 255.0);"));
    assert_non_null(strstr(code, "its copy with `/` for loops that evaluate math functions"));
    assert_non_null(strstr(code, "UFN_BODY float dc__normalize__f32__divider(float v_x);"));
    /* scaled's copy calls normalize's, its own body normalize */
    assert_non_null(strstr(code, "return (float)(((double)dc__normalize__f32__divider(v_x)) * 2.0);"));
    assert_non_null(strstr(code, "return (float)(((double)dc__normalize__f32(v_x)) * 2.0);"));
    assert_non_null(strstr(code, "ufn_exp_f32(dc__normalize__f32__divider(v_g))"));
    assert_non_null(strstr(code, "ufn_exp_f32(dc__scaled__f32__divider(v_g))"));
    assert_null(strstr(code, "dc__hidden__f32__divider"));
    /* host loops call the bodies by their own names */
    assert_non_null(strstr(code, "r[i] = dc__normalize__f32(a0[i]);"));
    arena_reset();
    static const char *const without_math =
        "from numba import vectorize\n\n"
        "@vectorize(['float32(float32)'])\ndef normalize(x):\n    return x / 255\n\n"
        "@vectorize(['float32(float32)'])\ndef twice(g):\n    return normalize(g) * 2\n";
    code = module_host_code(without_math);
    assert_non_null(strstr(code, "return ufn_div_const_f32(v_x, 255.0f, 0x1.010102p-8f);"));
    assert_null(strstr(code, "__divider"));
    arena_reset();
    static const char *const math_itself =
        "import math\nfrom numba import vectorize\n\n"
        "@vectorize(['float32(float32)'])\ndef normalize(x):\n    return math.exp(x / 255)\n\n"
        "@vectorize(['float32(float32)'])\ndef hidden(g):\n    return math.exp(normalize(g))\n";
    code = module_host_code(math_itself);
    assert_non_null(strstr(code, "return (float)ufn_exp_f64(((double)v_x) / 255.0);"));
    assert_non_null(strstr(code, "return ufn_exp_f32(dc__normalize__f32(v_g));"));
    assert_null(strstr(code, "ufn_div_const"));
    assert_null(strstr(code, "__divider"));
    arena_reset();
}

/* A recursive helper is called by its own name and calls its callees by
 * theirs: no divider copy of it, nor of a body reached only through it. */
static void test_div_const_recursive(void **state)
{
    (void)state;
    static const char *const text =
        "import math\nfrom numba import vectorize, jit\n\n"
        "@jit\ndef scale(x):\n    return x / 255\n\n"
        "@jit\ndef down(x, k):\n    if k == 0:\n        return scale(x)\n    return down(x, k - 1) / 3\n\n"
        "@vectorize(['float32(float32)'])\ndef hidden(g):\n    return math.exp(down(g, 2))\n";
    char *code = module_host_code(text);
    assert_null(strstr(code, "__divider"));
    assert_non_null(strstr(code, "return ufn_div_const_f64((double)v_x, 255.0, 0x1.010101010101p-8);"));
    assert_non_null(strstr(code, "return ufn_div_const_f64(dc__down__f32_i64(ufn_depth + 1, "));
    assert_non_null(strstr(code, "ufn_exp_f64(dc__down__f32_i64(0, v_g, 2))"));
    arena_reset();
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_many_types), cmocka_unit_test(test_div_const),
                                       cmocka_unit_test(test_div_const_composed),
                                       cmocka_unit_test(test_div_const_recursive)};
    if (cmocka_run_group_tests(tests, NULL, NULL))
        return 1;
    int failed = golden_run("codegen .cu", "tests/golden/codegen", "cu", run_cu);
    failed += golden_run("codegen .host.c", "tests/golden/codegen", "host.c", run_host);
    failed += golden_run("codegen .h", "tests/golden/codegen", "h", run_header);
    return failed;
}
