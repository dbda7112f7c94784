/* test_diag.c - diag.c: held diagnostics come out in source order with
 * their notes, every warning has a name, and the -W options apply. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ufnc.h"

static char *said;
static size_t said_len;
static FILE *sink;

static int setup(void **state)
{
    (void)state;
    sink = open_memstream(&said, &said_len);
    diag_init(sink, COLOR_NEVER, false, false);
    diag_reset();
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    diag_reset();
    fclose(sink);
    free(said);
    said = NULL;
    diag_init(stderr, COLOR_NEVER, false, false);
    return 0;
}

static const char *output(void)
{
    fflush(sink);
    return said ? said : "";
}

static Loc at(const SrcFile *f, int line, int col)
{
    return (Loc){.file = f, .line = line, .col = col, .end_line = line, .end_col = col + 1};
}

static const char text[] = "a\nb\nc\nd\ne\nf\ng\nh\n";

static void test_held_in_source_order(void **state)
{
    (void)state;
    SrcFile *f = src_from_memory("m.ufn", text, strlen(text));
    diag_hold();
    diag_error(at(f, 6, 1), "six");
    diag_note(at(f, 1, 1), "note of six");
    diag_fatal("no place");
    diag_warning_group(at(f, 2, 1), "spill", "two");
    diag_error(at(f, 6, 1), "six again, later");     /* same place, other text: after the first */
    diag_error(at(f, 3, 1), "three");
    assert_string_equal(output(), "");                /* nothing yet */
    diag_flush();
    const char *o = output();
    const char *two = strstr(o, "m.ufn:2:1: warning: two [-Wspill]");
    const char *three = strstr(o, "m.ufn:3:1: error: three");
    const char *six = strstr(o, "m.ufn:6:1: error: six\n");
    const char *note = strstr(o, "m.ufn:1:1: note: note of six");
    const char *again = strstr(o, "m.ufn:6:1: error: six again");
    const char *none = strstr(o, "ufnc: error: no place");
    assert_non_null(two);
    assert_non_null(three);
    assert_non_null(six);
    assert_non_null(note);
    assert_non_null(again);
    assert_non_null(none);
    assert_true(two < three && three < six && six < note && note < again && again < none);
    assert_int_equal(diag_error_count(), 4);
}

static void test_not_held_prints_at_once(void **state)
{
    (void)state;
    SrcFile *f = src_from_memory("m.ufn", text, strlen(text));
    diag_error(at(f, 6, 1), "six");
    assert_non_null(strstr(output(), "m.ufn:6:1: error: six"));
}

static void test_files_in_order_of_appearance(void **state)
{
    (void)state;
    SrcFile *a = src_from_memory("a.ufn", text, strlen(text));
    SrcFile *b = src_from_memory("b.ufn", text, strlen(text));
    diag_hold();
    diag_error(at(b, 7, 1), "b7");
    diag_error(at(a, 2, 1), "a2");
    diag_error(at(b, 1, 1), "b1");
    diag_flush();
    const char *o = output();
    const char *b1 = strstr(o, "b.ufn:1:1"), *b7 = strstr(o, "b.ufn:7:1"), *a2 = strstr(o, "a.ufn:2:1");
    assert_true(b1 && b7 && a2 && b1 < b7 && b7 < a2);
}

static void test_warning_options(void **state)
{
    (void)state;
    SrcFile *f = src_from_memory("m.ufn", text, strlen(text));
    assert_true(diag_warning_option("-Wno-invalid-escape"));
    assert_true(diag_warning_option("-Werror=unused-function"));
    assert_false(diag_warning_option("-Wfrobnicate"));
    diag_warning_group(at(f, 1, 1), "invalid-escape", "off");
    diag_warning_group(at(f, 2, 1), "unused-function", "promoted");
    assert_null(strstr(output(), "off"));
    assert_non_null(strstr(output(), "m.ufn:2:1: error: promoted [-Werror=unused-function]"));
    assert_true(diag_warning_option("-Winvalid-escape"));
    assert_true(diag_warning_option("-Wunused-function"));
    assert_non_null(strstr(diag_warning_names(), "spill, "));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_held_in_source_order, setup, teardown),
        cmocka_unit_test_setup_teardown(test_not_held_prints_at_once, setup, teardown),
        cmocka_unit_test_setup_teardown(test_files_in_order_of_appearance, setup, teardown),
        cmocka_unit_test_setup_teardown(test_warning_options, setup, teardown),
    };
    return cmocka_run_group_tests_name("diag", tests, NULL, NULL);
}
