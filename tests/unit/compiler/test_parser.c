/* test_parser.c - the parser: every file in tests/golden/ast/ against its
 * .ast file (diagnostics first, then the AST dump), precedence written as
 * S-expressions, error counts, and inputs too big or too deep for a golden
 * file. */
#include "golden.h"

#include <time.h>

static void run_ast(FILE *out, const SrcFile *src)
{
    Node *module = parse_file(src);
    ast_dump(out, module);
}

/* ---- helpers ---------------------------------------------------------------------------- */

typedef struct Parsed {
    Node *module;
    char *diags;        /* everything diag printed */
    int errors;
} Parsed;

static Parsed parse_text(const char *text)
{
    Parsed r = {0};
    size_t len = 0;
    FILE *out = open_memstream(&r.diags, &len);
    diag_init(out, COLOR_NEVER, false, false);
    diag_reset();
    r.module = parse_file(src_from_memory("t.ufn", text, strlen(text)));
    r.errors = diag_error_count();
    fclose(out);
    diag_init(stderr, COLOR_NEVER, false, false);
    return r;
}

static void sexpr(Buf *b, const Node *n);

static void sexpr_list(Buf *b, NodeList l)
{
    for (int i = 0; i < l.len; i++) {
        buf_putc(b, ' ');
        sexpr(b, l.items[i]);
    }
}

/* Expressions fully parenthesised, prefix style: -x**2 is (- (** x 2)). */
static void sexpr(Buf *b, const Node *n)
{
    switch (n->kind) {
    case N_NAME: buf_puts(b, n->name.id); break;
    case N_INT: buf_printf(b, "%llu", (unsigned long long)n->intlit.value); break;
    case N_FLOAT: buf_printf(b, "%g", n->floatlit.value); break;
    case N_STR: buf_printf(b, "'%s'", n->str.value); break;
    case N_TRUE: case N_FALSE: case N_NONE: buf_puts(b, node_kind_names[n->kind]); break;
    case N_UNARY:
        buf_printf(b, "(%s ", op_names[n->unary.op]);
        sexpr(b, n->unary.operand);
        buf_putc(b, ')');
        break;
    case N_BINARY:
    case N_BOOLOP:
        buf_printf(b, "(%s ", op_names[n->binary.op]);
        sexpr(b, n->kind == N_BINARY ? n->binary.lhs : n->boolop.lhs);
        buf_putc(b, ' ');
        sexpr(b, n->kind == N_BINARY ? n->binary.rhs : n->boolop.rhs);
        buf_putc(b, ')');
        break;
    case N_COMPARE:
        buf_puts(b, "(cmp ");
        sexpr(b, n->compare.operands[0]);
        for (int i = 0; i < n->compare.n; i++) {
            buf_printf(b, " %s ", op_names[n->compare.ops[i]]);
            sexpr(b, n->compare.operands[i + 1]);
        }
        buf_putc(b, ')');
        break;
    case N_IFEXP:
        buf_puts(b, "(if ");
        sexpr(b, n->ifexp.cond);
        buf_putc(b, ' ');
        sexpr(b, n->ifexp.then);
        buf_putc(b, ' ');
        sexpr(b, n->ifexp.orelse);
        buf_putc(b, ')');
        break;
    case N_CALL:
        buf_puts(b, "(call ");
        sexpr(b, n->call.func);
        sexpr_list(b, n->call.args);
        sexpr_list(b, n->call.kwargs);
        buf_putc(b, ')');
        break;
    case N_KEYWORD:
        buf_printf(b, "%s=", n->keyword.name);
        sexpr(b, n->keyword.value);
        break;
    case N_ATTR:
        buf_puts(b, "(. ");
        sexpr(b, n->attr.value);
        buf_printf(b, " %s)", n->attr.attr);
        break;
    case N_SUBSCRIPT:
        buf_puts(b, "([] ");
        sexpr(b, n->subscript.value);
        sexpr_list(b, n->subscript.index);
        buf_putc(b, ')');
        break;
    case N_SLICE:
        buf_puts(b, "(:");
        for (const Node *const *p = (const Node *const[]){n->slice.lo, n->slice.hi, n->slice.step},
                        *const *e = p + 3; p < e; p++) {
            buf_putc(b, ' ');
            if (*p)
                sexpr(b, *p);
            else
                buf_putc(b, '_');
        }
        buf_putc(b, ')');
        break;
    case N_TUPLE:
    case N_LIST:
        buf_puts(b, n->kind == N_TUPLE ? "(tuple" : "(list");
        sexpr_list(b, n->tuple.elts);
        buf_putc(b, ')');
        break;
    default: buf_printf(b, "<%s>", node_kind_names[n->kind]); break;
    }
}

/* The value of `x = EXPR` as an S-expression. */
static char *expr_of(const char *expr)
{
    char *text = arena_printf("x = %s\n", expr);
    Parsed r = parse_text(text);
    if (r.errors || r.module->module.body.len != 1) {
        print_error("%s", r.diags);
        free(r.diags);
        fail_msg("'%s' did not parse as one statement", expr);
    }
    free(r.diags);
    Buf b = {0};
    sexpr(&b, r.module->module.body.items[0]->assign.value);
    char *s = arena_strndup(b.data, b.len);
    buf_free(&b);
    return s;
}

/* The "file:line:col: error: ..." lines of a run, one per line. */
static char *error_lines(const char *diags)
{
    Buf b = {0};
    for (const char *line = diags; *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        if (strstr(line, ": error: ") && strstr(line, ": error: ") < line + len) {
            buf_putn(&b, line, len);
            buf_putc(&b, '\n');
        }
        line += len + (end ? 1 : 0);
    }
    char *s = arena_strndup(b.data ? b.data : "", b.len);
    buf_free(&b);
    return s;
}

/* ---- precedence and associativity --------------------------------------------------------- */

static void test_precedence(void **state)
{
    (void)state;
    static const char *const cases[][2] = {
        {"-x**2", "(- (** x 2))"},
        {"2**-1", "(** 2 (- 1))"},
        {"a**b**c", "(** a (** b c))"},
        {"-a**-b**c", "(- (** a (- (** b c))))"},
        {"a-b-c", "(- (- a b) c)"},
        {"a/b*c//d%e@f", "(@ (% (// (* (/ a b) c) d) e) f)"},
        {"a+b*c", "(+ a (* b c))"},
        {"a<<b+c", "(<< a (+ b c))"},
        {"a&b<<c", "(& a (<< b c))"},
        {"a^b&c", "(^ a (& b c))"},
        {"a|b^c", "(| a (^ b c))"},
        {"a|b<c", "(cmp (| a b) < c)"},
        {"0 < a < 1", "(cmp 0 < a < 1)"},
        {"a is not b is c", "(cmp a is not b is c)"},
        {"a not in b", "(cmp a not in b)"},
        {"not a < b", "(not (cmp a < b))"},
        {"not not a", "(not (not a))"},
        {"a and not b", "(and a (not b))"},
        {"a or b and c", "(or a (and b c))"},
        {"a or b or c", "(or (or a b) c)"},
        {"a if b else c", "(if b a c)"},
        {"a if b else c if d else e", "(if b a (if d c e))"},
        {"a or b if c and d else e", "(if (and c d) (or a b) e)"},
        {"~-+a", "(~ (- (+ a)))"},
        {"-a.b(c)[d]", "(- ([] (call (. a b) c) d))"},
        {"(a + b) * c", "(* (+ a b) c)"},
        {"f(a, b=1)", "(call f a b=1)"},
        {"f(a, b,)", "(call f a b)"},
        {"f()()", "(call (call f))"},
        {"a[i, j]", "([] a i j)"},
        {"a[i,]", "([] a (tuple i))"},
        {"a[(i, j)]", "([] a (tuple i j))"},
        {"a[1:2]", "([] a (: 1 2 _))"},
        {"float32[:, ::1]", "([] float32 (: _ _ _) (: _ _ 1))"},
        {"a[::-1]", "([] a (: _ _ (- 1)))"},
        {"a, b", "(tuple a b)"},
        {"a,", "(tuple a)"},
        {"()", "(tuple)"},
        {"(a,)", "(tuple a)"},
        {"[a, b,]", "(list a b)"},
        {"'a' 'b'", "'ab'"},
        {"-1", "(- 1)"},
        {"x.shape[0]", "([] (. x shape) 0)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *got = expr_of(cases[i][0]);
        if (strcmp(got, cases[i][1]) != 0)
            fail_msg("%s: expected %s, got %s", cases[i][0], cases[i][1], got);
    }
    arena_reset();
}

/* ---- errors ------------------------------------------------------------------------------ */

/* One run, three mistakes, three messages: recovery resumes at each line. */
static void test_three_errors(void **state)
{
    (void)state;
    Parsed r = parse_text("def f(x):\n"
                          "    y = x +\n"
                          "    z = 1\n"
                          "    w = (1 2)\n"
                          "    return x ] 2\n"
                          "v = 4\n");
    assert_int_equal(r.errors, 3);
    assert_string_equal(error_lines(r.diags),
        "t.ufn:2:12: error: syntax error, unexpected end of line\n"
        "t.ufn:4:12: error: syntax error, unexpected integer; perhaps you forgot a ','?\n"
        "t.ufn:5:14: error: unmatched ']'\n");
    /* What parsed is kept: f with z = 1, then v = 4. */
    NodeList body = r.module->module.body;
    assert_int_equal(body.len, 2);
    assert_int_equal(body.items[0]->kind, N_FUNCDEF);
    assert_int_equal(body.items[0]->funcdef.body.len, 1);
    assert_int_equal(body.items[1]->kind, N_ASSIGN);
    free(r.diags);
    arena_reset();
}

/* An unsupported statement is the checker's to report, not the parser's. */
static void test_unsupported_statements_are_silent(void **state)
{
    (void)state;
    Parsed r = parse_text("try:\n    x = 1\nexcept E:\n    pass\nglobal g\nclass A: pass\n");
    assert_int_equal(r.errors, 0);
    NodeList body = r.module->module.body;
    assert_int_equal(body.len, 3);
    assert_string_equal(body.items[0]->unsupported.what, "a 'try' statement");
    assert_string_equal(body.items[1]->unsupported.what, "a 'global' statement");
    assert_string_equal(body.items[2]->unsupported.what, "a 'class' definition");
    free(r.diags);
    arena_reset();
}

static void test_never_null(void **state)
{
    (void)state;
    static const char *const texts[] = {"", "\n", "(", ")", "def", "'''", "\\", "\xff", "    x\n"};
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        Parsed r = parse_text(texts[i]);
        assert_non_null(r.module);
        assert_int_equal(r.module->kind, N_MODULE);
        free(r.diags);
    }
    arena_reset();
}

/* ---- limits -------------------------------------------------------------------------------- */

static char *repeat(const char *head, const char *unit, int n, const char *tail)
{
    Buf b = {0};
    buf_puts(&b, head);
    for (int i = 0; i < n; i++)
        buf_puts(&b, unit);
    buf_puts(&b, tail);
    char *s = arena_strndup(b.data, b.len);
    buf_free(&b);
    return s;
}

/* Brackets stop at 200 levels, with one message and no crash. */
static void test_deep_brackets(void **state)
{
    (void)state;
    Buf b = {0};
    buf_puts(&b, "x = ");
    for (int i = 0; i < 250; i++)
        buf_putc(&b, '(');
    buf_putc(&b, '1');
    for (int i = 0; i < 250; i++)
        buf_putc(&b, ')');
    buf_puts(&b, "\ny = 2\n");
    Parsed r = parse_text(b.data);
    buf_free(&b);
    assert_int_equal(r.errors, 1);
    assert_non_null(strstr(r.diags, "too many nested parentheses (the limit is 200)"));
    assert_int_equal(r.module->module.body.len, 2);
    free(r.diags);

    /* 199 levels are fine. */
    r = parse_text(arena_printf("x = %s1%s\n", repeat("", "(", 199, ""), repeat("", ")", 199, "")));
    assert_int_equal(r.errors, 0);
    free(r.diags);
    arena_reset();
}

/* Long chains of prefix operators fill the parser's stack: a message, no crash. */
static void test_deep_expression(void **state)
{
    (void)state;
    Parsed r = parse_text(repeat("x = 1\ny = ", "-", 20000, "1\n"));
    assert_int_equal(r.errors, 1);
    assert_non_null(strstr(r.diags, "too deeply nested"));
    assert_int_equal(r.module->module.body.len, 1);      /* x = 1 survives */
    free(r.diags);

    r = parse_text(repeat("y = ", "not ", 999, "1\n"));
    assert_int_equal(r.errors, 0);
    free(r.diags);
    arena_reset();
}

/* Left-associative chains build tall trees on a shallow parser stack: the
 * statement is dropped with an error, the rest of the module stays. */
static void test_tall_expression(void **state)
{
    (void)state;
    Parsed r = parse_text(repeat("x = 1\ny = a", " + a", 5000, "\nz = 2\n"));
    assert_int_equal(r.errors, 1);
    assert_non_null(strstr(r.diags, "t.ufn:2:1: error: expression too deeply nested (5001 levels; the limit is 1000)"));
    assert_int_equal(r.module->module.body.len, 2);
    free(r.diags);

    r = parse_text(repeat("def f(x):\n    if x:\n        return f", "(x)", 2000, "\n    return x\n"));
    assert_int_equal(r.errors, 1);
    assert_int_equal(r.module->module.body.items[0]->funcdef.body.len, 2);
    assert_int_equal(r.module->module.body.items[0]->funcdef.body.items[0]->ifstmt.then.len, 0);
    free(r.diags);

    r = parse_text(repeat("y = a", ".b", 999, "\n"));
    assert_int_equal(r.errors, 0);
    free(r.diags);
    arena_reset();
}

/* Blocks stop at 100 levels of indentation. */
static void test_deep_blocks(void **state)
{
    (void)state;
    Buf b = {0};
    for (int i = 0; i < 120; i++) {
        for (int k = 0; k < i; k++)
            buf_putc(&b, ' ');
        buf_puts(&b, "if x:\n");
    }
    for (int k = 0; k < 120; k++)
        buf_putc(&b, ' ');
    buf_puts(&b, "pass\n");
    Parsed r = parse_text(b.data);
    buf_free(&b);
    assert_true(r.errors >= 1);
    assert_non_null(strstr(r.diags, "too many levels of indentation (the limit is 100)"));
    free(r.diags);
    arena_reset();
}

/* A 10,000-line module parses, and in linear time (informally: well under
 * a second even under the sanitizers). */
static void test_big_module(void **state)
{
    (void)state;
    Buf b = {0};
    buf_puts(&b, "import math\n");
    for (int i = 0; i < 1000; i++) {
        buf_printf(&b, "@vectorize(['float32(float32, float32)'], target='cuda')\n"
                       "def k%d(x, y):\n"
                       "    '''Kernel %d.'''\n"
                       "    acc = 0.0\n"
                       "    for i in range(10):\n"
                       "        if x < y and i %% 2 == 0:\n"
                       "            acc += math.sqrt(x * x + y * y) ** 0.5\n"
                       "        else:\n"
                       "            acc -= -x // 3\n"
                       "    return acc\n", i, i);
    }
    clock_t start = clock();
    Parsed r = parse_text(b.data);
    double seconds = (double)(clock() - start) / CLOCKS_PER_SEC;
    buf_free(&b);
    assert_int_equal(r.errors, 0);
    assert_int_equal(r.module->module.body.len, 1001);
    if (seconds > 2.0)
        fail_msg("10,000 lines took %.2f s", seconds);
    free(r.diags);
    arena_reset();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_precedence),
        cmocka_unit_test(test_three_errors),
        cmocka_unit_test(test_unsupported_statements_are_silent),
        cmocka_unit_test(test_never_null),
        cmocka_unit_test(test_deep_brackets),
        cmocka_unit_test(test_deep_expression),
        cmocka_unit_test(test_tall_expression),
        cmocka_unit_test(test_deep_blocks),
        cmocka_unit_test(test_big_module),
    };
    int failed = cmocka_run_group_tests_name("parser", tests, NULL, NULL);
    failed += golden_run("parser golden", "tests/golden/ast", "ast", run_ast);
    return failed ? 1 : 0;
}
