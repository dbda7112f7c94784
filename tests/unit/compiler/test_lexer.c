/* test_lexer.c - the scanner, through its token dump: every file in
 * tests/golden/tokens/ against its .tokens file (golden.h), plus a few
 * cases that are easier to state in code. */
#include "golden.h"

static void run_tokens(FILE *out, const SrcFile *src)
{
    dump_tokens(out, src);
}

/* The dump of a source string, for the cases below. */
static char *tokens_of(const char *text)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    diag_init(out, COLOR_NEVER, false, false);
    diag_reset();
    dump_tokens(out, src_from_memory("t.ufn", text, strlen(text)));
    fclose(out);
    diag_init(stderr, COLOR_NEVER, false, false);
    return buf;
}

/* No newline at the end of a file still ends the line and every block. */
static void test_eof_without_newline(void **state)
{
    (void)state;
    char *t = tokens_of("if x:\n    if y:\n        z");
    assert_string_equal(t,
        "1:1-1:3 if\n1:4-1:5 NAME x\n1:5-1:6 :\n1:6-1:7 NEWLINE\n"
        "2:5 INDENT\n2:5-2:7 if\n2:8-2:9 NAME y\n2:9-2:10 :\n2:10-2:11 NEWLINE\n"
        "3:9 INDENT\n3:9-3:10 NAME z\n3:10 NEWLINE\n3:10 DEDENT\n3:10 DEDENT\n3:10 EOF\n");
    free(t);
}

static void test_empty_file(void **state)
{
    (void)state;
    char *t = tokens_of("");
    assert_string_equal(t, "1:1 EOF\n");
    free(t);
    t = tokens_of("\n\n   \n# only a comment\n   # indented comment");
    assert_string_equal(t, "5:22 EOF\n");
    free(t);
}

/* A lone CR ends a line as LF and CRLF do (Python's universal newlines),
 * inside triple-quoted strings and after a line continuation too. */
static void test_line_endings(void **state)
{
    (void)state;
    char *lf = tokens_of("def f(x):\n    y = x + \\\n        1\n    '''a\nb'''\n    return y\n");
    char *crlf = tokens_of("def f(x):\r\n    y = x + \\\r\n        1\r\n    '''a\r\nb'''\r\n    return y\r\n");
    char *cr = tokens_of("def f(x):\r    y = x + \\\r        1\r    '''a\rb'''\r    return y\r");
    assert_string_equal(crlf, lf);
    assert_string_equal(cr, lf);
    free(lf);
    free(crlf);
    free(cr);
}

/* Token names as the parser's messages show them. */
static void test_token_names(void **state)
{
    (void)state;
    assert_string_equal(token_name(0), "end of file");
    assert_null(token_name(-1));
    assert_null(token_name('+'));
    assert_null(token_name(100000));
}

/* Integers of 2**64 and more are flagged, the rest exact. */
static void test_integer_limits(void **state)
{
    (void)state;
    Loc l = {0};
    Node *n = lex_int("18446744073709551615", 20, 10, l);
    assert_false(n->intlit.too_big);
    assert_true(n->intlit.value == UINT64_MAX);
    n = lex_int("18446744073709551616", 20, 10, l);
    assert_true(n->intlit.too_big);
    n = lex_int("0xffff_ffff_ffff_ffff", 21, 16, l);
    assert_false(n->intlit.too_big);
    assert_true(n->intlit.value == UINT64_MAX);
    n = lex_int("0x1_0000_0000_0000_0000", 23, 16, l);
    assert_true(n->intlit.too_big);
    n = lex_int("0b1_01", 6, 2, l);
    assert_true(n->intlit.value == 5);
    arena_reset();
}

/* A string keeps NUL bytes and its exact length. */
static void test_string_with_nul(void **state)
{
    (void)state;
    Loc l = {0};
    Node *n = lex_string("'a\\0b'", 6, l, STR_CLOSED);
    assert_int_equal(n->str.len, 3);
    assert_memory_equal(n->str.value, "a\0b", 3);
    arena_reset();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_eof_without_newline),
        cmocka_unit_test(test_empty_file),
        cmocka_unit_test(test_line_endings),
        cmocka_unit_test(test_token_names),
        cmocka_unit_test(test_integer_limits),
        cmocka_unit_test(test_string_with_nul),
    };
    int failed = cmocka_run_group_tests_name("lexer", tests, NULL, NULL);
    failed += golden_run("lexer golden", "tests/golden/tokens", "tokens", run_tokens);
    return failed ? 1 : 0;
}
