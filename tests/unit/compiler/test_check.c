/* test_check.c - the checker (check.c, instance.c, flow.c, infer.c, names.c),
 * through its passes in main.c's order (passes.h):
 * instances per signature and per helper argument types, the types of the
 * seeds' locals, public C names, dependencies, default signatures, module
 * constants seen from kernels, and what compiles although it looks odd. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "ufnc.h"
#include "passes.h"

static char *diags;

/* Check a module from text; its diagnostics go to `diags`. */
static Module *check_text(const char *name, const char *text, const char *prefix, const char **dirs, int ndirs)
{
    free(diags);
    diags = NULL;
    size_t len;
    FILE *out = open_memstream(&diags, &len);
    diag_init(out, COLOR_NEVER, false, false);
    diag_reset();
    SrcFile *src = src_from_memory(name, text, strlen(text));
    Node *ast = parse_file(src);
    const char *dot = strrchr(name, '.');
    CheckOptions opt = {.module_name = arena_strndup(name, (size_t)(dot - name)), .prefix = prefix,
                        .include_dirs = dirs, .ninclude_dirs = ndirs};
    Module *m = check_passes(ast, src, &opt);
    fclose(out);
    diag_init(stderr, COLOR_NEVER, false, false);
    return m;
}

static Module *ok_module(const char *text)
{
    Module *m = check_text("t.ufn", text, "", NULL, 0);
    if (diag_error_count())
        fail_msg("unexpected errors:\n%s", diags);
    return m;
}

static Func *kernel(Module *m, const char *name)
{
    for (int i = 0; i < m->nfuncs; i++)
        if (strcmp(m->funcs[i]->name, name) == 0)
            return m->funcs[i];
    fail_msg("no function %s", name);
    return NULL;
}

static const char *var_type(const Instance *inst, const char *name)
{
    for (int i = 0; i < inst->nvars; i++)
        if (strcmp(inst->vars[i]->name, name) == 0)
            return type_name(inst->vars[i]->type);
    fail_msg("no variable %s", name);
    return NULL;
}

static int teardown(void **state)
{
    (void)state;
    arena_reset();
    return 0;
}

/* Types of the seeds' locals, as Numba types them (numba-semantics 3.2). */
static void test_seed_locals(void **state)
{
    (void)state;
    Module *m = ok_module(
        "import math\nfrom numba import vectorize, guvectorize, cuda\n"
        "@guvectorize(['(float32[:], float32[:])'], '(i)->()')\n"
        "def l2_norm(vec, out):\n    acc = 0.0\n    for value in vec:\n        acc += value**2\n    out[0] = math.sqrt(acc)\n"
        "@guvectorize(['(float32[:], float32[:])'], '(i)->()')\n"
        "def gpu_average(array, out):\n    acc = 0\n    for val in array:\n        acc += val\n    out[0] = acc/len(array)\n"
        "@vectorize(['int16(int16, int16)'])\n"
        "def zero_suppress(waveform_value, threshold):\n    if waveform_value < threshold:\n        result = 0\n"
        "    else:\n        result = waveform_value\n    return result\n"
        "@cuda.jit(device=True)\ndef polar_to_cartesian(rho, theta):\n    x = rho * math.cos(theta)\n"
        "    y = rho * math.sin(theta)\n    return x, y\n"
        "@vectorize(['float32(float32, float32, float32, float32)'])\n"
        "def polar_distance(rho1, theta1, rho2, theta2):\n    x1, y1 = polar_to_cartesian(rho1, theta1)\n"
        "    return ((x1 - x1)**2 + (y1 - y1)**2)**0.5\n");
    const Instance *l2 = kernel(m, "l2_norm")->instances[0];
    assert_string_equal(var_type(l2, "acc"), "float64");
    assert_string_equal(var_type(l2, "value"), "float32");
    assert_string_equal(var_type(kernel(m, "gpu_average")->instances[0], "acc"), "float64");
    const Instance *zs = kernel(m, "zero_suppress")->instances[0];
    assert_string_equal(var_type(zs, "result"), "int64");       /* 0 is int64; int16 joins it */
    assert_string_equal(type_name(zs->ret), "int16");           /* cast back to the signature */
    const Instance *pd = kernel(m, "polar_distance")->instances[0];
    assert_string_equal(var_type(pd, "x1"), "float32");
    const Func *p2c = kernel(m, "polar_to_cartesian");
    assert_int_equal(p2c->ninstances, 1);
    assert_string_equal(type_name(p2c->instances[0]->ret), "UniTuple(float32 x 2)");
}

/* One kernel per signature; one helper instance per tuple of argument
 * types, listed callees first. */
static void test_instances(void **state)
{
    (void)state;
    Module *m = ok_module(
        "from numba import vectorize, jit\n"
        "@jit\ndef sq(x):\n    return x * x\n"
        "@jit\ndef norm2(x, y):\n    return sq(x) + sq(y)\n"
        "@vectorize(['float32(float32, float32)', 'float64(float64, float64)', 'float64(int32, float64)'])\n"
        "def f(x, y):\n    return norm2(x, y)\n");
    Func *f = kernel(m, "f");
    assert_int_equal(f->nsigs, 3);
    assert_int_equal(f->ninstances, 3);
    assert_string_equal(f->instances[2]->cname, "t__f__i32_f64");
    assert_int_equal(kernel(m, "sq")->ninstances, 3);           /* f32, f64, i32 */
    assert_int_equal(kernel(m, "norm2")->ninstances, 3);        /* (f32,f32) (f64,f64) (i32,f64) */
    assert_int_equal(m->nhelpers, 6);
    /* every callee before its callers: sq(T) before norm2(T, ...) */
    for (int i = 0; i < m->nhelpers; i++) {
        const Instance *h = m->helpers[i];
        if (h->func != kernel(m, "norm2"))
            continue;
        for (int a = 0; a < 2; a++) {
            int callee = -1;
            for (int k = 0; k < m->nhelpers; k++)
                if (m->helpers[k]->func == kernel(m, "sq") && m->helpers[k]->args[0] == h->args[a])
                    callee = k;
            assert_true(callee >= 0 && callee < i);
        }
    }
    assert_string_equal(type_name(kernel(m, "sq")->instances[2]->ret), "int64");
}

static void test_public_names(void **state)
{
    (void)state;
    const char *text = "from numba import vectorize, guvectorize\n"
                       "@vectorize(['float64(int32, float64)', 'float32(float32, float32)'])\ndef mixed(x, y):\n    return x + y\n"
                       "@guvectorize(['(int16[:], float32[:])'], '(n)->()')\ndef g(a, out):\n    out[0] = a[0]\n";
    Module *m = check_text("t.ufn", text, "my_", NULL, 0);
    assert_int_equal(diag_error_count(), 0);
    Func *f = kernel(m, "mixed");
    assert_string_equal(f->public_name, "my_mixed");
    assert_string_equal(typed_entry_suffix(f, f->sigs[0]), "int32_float64");
    assert_string_equal(typed_entry_suffix(f, f->sigs[1]), "float32");
    Func *g = kernel(m, "g");
    assert_string_equal(typed_entry_suffix(g, g->sigs[0]), "int16");   /* the inputs only */
}

/* The variables of a body are their Python names behind v_ (a_ for the
 * argument of a parameter the body widens), so that any valid name is a
 * valid C name that nothing else uses; temporaries are ufn_t0, ... */
static void test_c_names(void **state)
{
    (void)state;
    assert_true(is_reserved_c_name("double"));
    assert_true(is_reserved_c_name("exp"));
    assert_true(is_reserved_c_name("expf"));
    assert_true(is_reserved_c_name("threadIdx"));
    assert_true(is_reserved_c_name("y1"));
    assert_true(is_reserved_c_name("ufn_anything"));
    assert_false(is_reserved_c_name("gaussian_pdf"));
    Module *m = ok_module("from numba import vectorize\n@vectorize(['float32(float32)'])\n"
                          "def f(x):\n    int = x\n    y1 = int * 2\n    ufn_t0 = (y1, y1)\n    x = 2.0\n"
                          "    a, b = ufn_t0\n    return y1 + a\n");
    const Instance *inst = kernel(m, "f")->instances[0];
    static const struct { const char *name, *cname; } want[] = {
        {"x", "v_x"}, {"int", "v_int"}, {"y1", "v_y1"}, {"ufn_t0", "v_ufn_t0"}, {"a", "v_a"}, {"b", "v_b"},
    };
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++)
        for (int i = 0; i < inst->nvars; i++)
            if (!inst->vars[i]->temp && strcmp(inst->vars[i]->name, want[k].name) == 0)
                assert_string_equal(inst->vars[i]->cname, want[k].cname);
    assert_string_equal(inst->vars[0]->arg_cname, "a_x");      /* x: float32 in, float64 inside */
    bool temp = false;
    for (int i = 0; i < inst->nvars; i++)
        if (inst->vars[i]->temp) {
            assert_string_equal(inst->vars[i]->cname, "ufn_t0");
            temp = true;
        }
    assert_true(temp);
}

/* -MD lists the .ufn modules read, the compiled one first; the standard
 * library inside ufnc is not a file to depend on. */
static void test_deps(void **state)
{
    (void)state;
    char dir[] = "/tmp/ufn-test-check-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char *path = arena_printf("%s/helpers.ufn", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("from numba import cuda\n@cuda.jit(device=True)\ndef twice(x):\n    return 2 * x\n", f);
    fclose(f);
    const char *dirs[] = {dir};
    Module *m = check_text("t.ufn",
                           "from numba import vectorize\nfrom helpers import twice\nfrom geometry import polar_to_cartesian\n"
                           "@vectorize(['float32(float32)'])\ndef f(x):\n    return twice(x)\n",
                           "", dirs, 1);
    assert_int_equal(diag_error_count(), 0);
    assert_int_equal(m->ndeps, 2);
    assert_string_equal(m->deps[0], "t.ufn");
    assert_string_equal(m->deps[1], path);
    unlink(path);
    rmdir(dir);
}

static void test_default_signatures(void **state)
{
    (void)state;
    Module *m = check_text("t.ufn", "from numba import vectorize\n@vectorize\ndef add_ten(num):\n    return num + 10\n",
                           "", NULL, 0);
    assert_int_equal(diag_error_count(), 0);
    assert_int_equal(diag_warning_count(), 1);
    Func *f = kernel(m, "add_ten");
    assert_int_equal(f->ninstances, 4);
    static const char *const rets[] = {"int64", "int64", "float64", "float64"};
    for (int i = 0; i < 4; i++)
        assert_string_equal(type_name(f->instances[i]->ret), rets[i]);
}

/* Module constants keep their frozen type inside kernels. */
static void test_constants_in_kernels(void **state)
{
    (void)state;
    Module *m = ok_module("import math\nimport numpy as np\nfrom numba import vectorize\n"
                          "HALF = np.float32(0.5)\nTWO_PI = 2 * math.pi\nN = 3\n"
                          "@vectorize(['float32(float32)'])\ndef f(x):\n"
                          "    a = x * HALF\n    b = x * TWO_PI\n    c = x * N\n    return a + b + c\n");
    const Instance *inst = kernel(m, "f")->instances[0];
    assert_string_equal(var_type(inst, "a"), "float32");
    assert_string_equal(var_type(inst, "b"), "float64");
    assert_string_equal(var_type(inst, "c"), "float64");       /* f32 * int64, as Numba */
}

/* Accepted although it looks odd, as Python and Numba accept it. */
static void test_accepted(void **state)
{
    (void)state;
    static const char *const texts[] = {
        /* a variable assigned on one path only starts as zero (Numba) */
        "from numba import vectorize\n@vectorize(['float64(float64)'])\ndef f(x):\n"
        "    if x > 0:\n        y = 1.0\n    return y\n",
        /* an assignment late in a loop reaches the next iteration */
        "from numba import vectorize\n@vectorize(['float64(float64)'])\ndef f(x):\n    acc = 0.0\n"
        "    for i in range(3):\n        if i > 0:\n            acc += prev\n        prev = x * i\n"
        "    while acc < 10:\n        acc += step\n        step = 1.0\n    return acc\n",
        /* while True without a break returns on every path */
        "from numba import vectorize\n@vectorize(['float32(float32)'])\ndef f(x):\n"
        "    while True:\n        for i in range(2):\n            break\n        if x > 1:\n            return x\n"
        "        x = x * 2\n",
        /* a script guard, the target options, docstrings, a module docstring */
        "'''doc'''\nfrom numba import vectorize\n@vectorize(['f4(f4)'], target='parallel')\ndef f(x):\n"
        "    '''doc'''\n    return x\n@vectorize(['f8(f8)'], target='cpu', nopython=True, cache=True)\ndef g(x):\n"
        "    return x\nif __name__ == '__main__':\n    print(f(1.0))\n",
        /* numba.vectorize and numba.cuda.jit spelled out, njit helpers */
        "import numba\n@numba.njit\ndef h(x):\n    return x + 1\n@numba.cuda.jit(device=True)\ndef k(x):\n    return h(x)\n"
        "@numba.vectorize(['int64(int64)'])\ndef f(x):\n    return k(x)\n",
        /* recursion with a base case, also mutual */
        "from numba import vectorize, jit\n@jit\ndef ping(n):\n    if n <= 0:\n        return 0\n    return pong(n - 1) + 1\n"
        "@jit\ndef pong(n):\n    return ping(n - 1) * 2\n@vectorize(['int64(int64)'])\ndef f(x):\n    return ping(x)\n",
        /* LO = HI = ... at module level, tuple constants unpacked */
        "from numba import vectorize\nLO = HI = 1.5\nA, B = 1, 2.5\n@vectorize(['float64(float64)'])\ndef f(x):\n"
        "    return x * LO + HI + A + B\n",
    };
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        ok_module(texts[i]);
        arena_reset();
    }
}

/* A helper's return type can depend on a helper typed after it: the
 * instances are typed to a fixpoint.  A helper without a return statement
 * returns None, also through `return h(x)` (ufnc once stopped with an
 * internal error: "type of a variable of g changed in the final pass"), and
 * so does a recursion that can fall off its end (it was refused as "calls
 * itself on every path"; Numba types it as none). */
static void test_helpers_returning_none(void **state)
{
    (void)state;
    Module *m = ok_module("from numba import vectorize, jit, cuda\n"
                          "@jit\ndef h(x):\n    pass\n"
                          "@jit\ndef g(x):\n    return h(x)\n"
                          "@cuda.jit(device=True)\ndef down(n):\n    if n > 0:\n        return down(n - 1)\n"
                          "@vectorize(['float64(float64)'])\ndef f(x):\n    g(x)\n    down(x)\n    return x\n");
    assert_string_equal(type_name(kernel(m, "h")->instances[0]->ret), "none");
    assert_string_equal(type_name(kernel(m, "g")->instances[0]->ret), "none");
    const Func *down = kernel(m, "down");
    assert_int_equal(down->ninstances, 1);
    assert_string_equal(type_name(down->instances[0]->ret), "none");
    assert_true(down->instances[0]->recursive);
    assert_true(m->recursive);
}

/* An integer literal under minus signs is typed by its value, as CPython
 * folds it before Numba sees it: -9223372036854775808 is int64 (ufnc typed
 * it uint64, as the negation of the uint64 9223372036854775808, so y / 2
 * was +4.6e18); a Python int of 2**63 or more is uint64. */
static void test_integer_literals(void **state)
{
    (void)state;
    Module *m = ok_module("from numba import vectorize\n@vectorize(['float64(int64)'])\ndef f(x):\n"
                          "    a = -9223372036854775808\n    b = -(-5)\n    c = 9223372036854775808\n"
                          "    d = -9223372036854775807\n    return a / 2 + b + c + d\n");
    const Instance *inst = kernel(m, "f")->instances[0];
    assert_string_equal(var_type(inst, "a"), "int64");
    assert_string_equal(var_type(inst, "b"), "int64");
    assert_string_equal(var_type(inst, "c"), "uint64");
    assert_string_equal(var_type(inst, "d"), "int64");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_seed_locals, teardown),
        cmocka_unit_test_teardown(test_instances, teardown),
        cmocka_unit_test_teardown(test_public_names, teardown),
        cmocka_unit_test_teardown(test_c_names, teardown),
        cmocka_unit_test_teardown(test_deps, teardown),
        cmocka_unit_test_teardown(test_default_signatures, teardown),
        cmocka_unit_test_teardown(test_constants_in_kernels, teardown),
        cmocka_unit_test_teardown(test_accepted, teardown),
        cmocka_unit_test_teardown(test_helpers_returning_none, teardown),
        cmocka_unit_test_teardown(test_integer_literals, teardown),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    free(diags);
    return failed;
}
