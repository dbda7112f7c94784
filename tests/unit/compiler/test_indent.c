/* test_indent.c - the Indenter (compiler/indent.c), without the scanner. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "ufnc.h"

static void test_same_level(void **state)
{
    (void)state;
    Indenter in;
    indent_init(&in);
    assert_int_equal(indent_line(&in, 0), INDENT_SAME);
    assert_int_equal(indent_line(&in, 0), INDENT_SAME);
    assert_int_equal(in.depth, 1);
    assert_int_equal(indent_finish(&in), 0);
}

static void test_open_and_close(void **state)
{
    (void)state;
    Indenter in;
    indent_init(&in);
    assert_int_equal(indent_line(&in, 4), INDENT_OPEN);
    assert_int_equal(indent_line(&in, 4), INDENT_SAME);
    assert_int_equal(indent_line(&in, 0), INDENT_CLOSE);
    assert_int_equal(in.pending_dedents, 1);
    assert_int_equal(in.depth, 1);
}

/* Any deeper column opens one level, whatever the step (1 space is fine). */
static void test_uneven_steps(void **state)
{
    (void)state;
    Indenter in;
    indent_init(&in);
    assert_int_equal(indent_line(&in, 1), INDENT_OPEN);
    assert_int_equal(indent_line(&in, 2), INDENT_OPEN);
    assert_int_equal(indent_line(&in, 7), INDENT_OPEN);
    assert_int_equal(in.depth, 4);
    assert_int_equal(indent_line(&in, 1), INDENT_CLOSE);
    assert_int_equal(in.pending_dedents, 2);
}

static void test_several_dedents_at_once(void **state)
{
    (void)state;
    Indenter in;
    indent_init(&in);
    indent_line(&in, 4);
    indent_line(&in, 8);
    indent_line(&in, 12);
    assert_int_equal(indent_line(&in, 0), INDENT_CLOSE);
    assert_int_equal(in.pending_dedents, 3);
}

/* Dedent to the middle level, then to the outermost. */
static void test_dedent_to_middle(void **state)
{
    (void)state;
    Indenter in;
    indent_init(&in);
    indent_line(&in, 4);
    indent_line(&in, 8);
    indent_line(&in, 12);
    assert_int_equal(indent_line(&in, 4), INDENT_CLOSE);
    assert_int_equal(in.pending_dedents, 2);
    in.pending_dedents = 0;             /* the scanner hands them out */
    assert_int_equal(indent_line(&in, 4), INDENT_SAME);
    assert_int_equal(indent_line(&in, 0), INDENT_CLOSE);
    assert_int_equal(in.pending_dedents, 1);
}

/* Between two levels: CPython's "unindent does not match".  The outermost
 * block the line would close stays open at the new column, so the next line
 * at that column is fine. */
static void test_bad_dedent(void **state)
{
    (void)state;
    Indenter in;
    indent_init(&in);
    indent_line(&in, 4);
    indent_line(&in, 8);
    assert_int_equal(indent_line(&in, 6), INDENT_BAD_DEDENT);
    assert_int_equal(in.pending_dedents, 0);
    assert_int_equal(in.depth, 3);
    assert_int_equal(indent_line(&in, 6), INDENT_SAME);
    assert_int_equal(indent_line(&in, 4), INDENT_CLOSE);
    assert_int_equal(in.pending_dedents, 1);
}

static void test_bad_dedent_closes_inner_blocks(void **state)
{
    (void)state;
    Indenter in;
    indent_init(&in);
    indent_line(&in, 4);
    indent_line(&in, 8);
    indent_line(&in, 12);
    assert_int_equal(indent_line(&in, 2), INDENT_BAD_DEDENT);
    assert_int_equal(in.pending_dedents, 2);    /* 12 and 8 close; 4 is now 2 */
    assert_int_equal(in.depth, 2);
    assert_int_equal(in.stack[1], 2);
}

static void test_too_deep(void **state)
{
    (void)state;
    Indenter in;
    indent_init(&in);
    for (int i = 1; i < INDENT_MAX_DEPTH; i++)
        assert_int_equal(indent_line(&in, i), INDENT_OPEN);
    assert_int_equal(indent_line(&in, INDENT_MAX_DEPTH), INDENT_TOO_DEEP);
    assert_int_equal(in.depth, INDENT_MAX_DEPTH);
    assert_int_equal(indent_finish(&in), INDENT_MAX_DEPTH - 1);
    assert_int_equal(in.pending_dedents, INDENT_MAX_DEPTH - 1);
}

static void test_finish(void **state)
{
    (void)state;
    Indenter in;
    indent_init(&in);
    indent_line(&in, 2);
    indent_line(&in, 3);
    assert_int_equal(indent_finish(&in), 2);
    assert_int_equal(in.pending_dedents, 2);
    assert_int_equal(in.depth, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_level),
        cmocka_unit_test(test_open_and_close),
        cmocka_unit_test(test_uneven_steps),
        cmocka_unit_test(test_several_dedents_at_once),
        cmocka_unit_test(test_dedent_to_middle),
        cmocka_unit_test(test_bad_dedent),
        cmocka_unit_test(test_bad_dedent_closes_inner_blocks),
        cmocka_unit_test(test_too_deep),
        cmocka_unit_test(test_finish),
    };
    return cmocka_run_group_tests_name("indent", tests, NULL, NULL);
}
