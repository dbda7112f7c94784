/* test_sig.c - the little languages inside decorator strings (compiler/sig.c):
 * Numba type signatures and NumPy gufunc layouts, what they mean, and where
 * their errors point: the column inside the string, in the source line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ufnc.h"

/* The string literal of the one-line module `S = LITERAL`, where LITERAL is
 * written as in Python ('...', r'...', '''...''').  The value starts at
 * column 6 for a one-quote literal. */
static const Node *literal(const char *python)
{
    char *text = arena_printf("S = %s\n", python);
    SrcFile *src = src_from_memory("t.ufn", text, strlen(text));
    Node *m = parse_file(src);
    assert_int_equal(m->module.body.len, 1);
    Node *s = m->module.body.items[0]->assign.value;
    assert_int_equal(s->kind, N_STR);
    return s;
}

typedef struct Out {
    char *diags;
    size_t len;
    FILE *f;
} Out;

static void capture(Out *o)
{
    o->diags = NULL;
    o->f = open_memstream(&o->diags, &o->len);
    diag_init(o->f, COLOR_NEVER, false, false);
    diag_reset();
}

/* The first line of what was reported ("" if nothing). */
static char *release(Out *o)
{
    fclose(o->f);
    diag_init(stderr, COLOR_NEVER, false, false);
    char *nl = strchr(o->diags, '\n');
    if (nl)
        *nl = '\0';
    char *r = arena_printf("%s", o->diags);
    free(o->diags);
    return r;
}

static Signature *sig(const char *text)
{
    Out o;
    capture(&o);
    Signature *s = sig_parse(literal(arena_printf("'%s'", text)));
    char *d = release(&o);
    if (!s || *d)
        fail_msg("'%s' should parse: %s", text, d);
    return s;
}

/* The error a signature string gives: "COL: message". */
static char *sig_error(const char *python)
{
    Out o;
    capture(&o);
    Signature *s = sig_parse(literal(python));
    char *d = release(&o);
    if (s)
        fail_msg("%s should not parse", python);
    assert_int_equal(diag_error_count(), 1);
    assert_true(strncmp(d, "t.ufn:1:", 8) == 0);
    return d + 8;
}

static void test_every_type_name(void **state)
{
    (void)state;
    static const char *const names[][2] = {
        {"boolean", "bool"}, {"b1", "bool"}, {"bool_", "bool"}, {"int8", "int8"}, {"i1", "int8"},
        {"int16", "int16"}, {"i2", "int16"}, {"int32", "int32"}, {"i4", "int32"}, {"int64", "int64"},
        {"i8", "int64"}, {"intp", "int64"}, {"uint8", "uint8"}, {"u1", "uint8"}, {"uint16", "uint16"},
        {"u2", "uint16"}, {"uint32", "uint32"}, {"u4", "uint32"}, {"uint64", "uint64"}, {"u8", "uint64"},
        {"float32", "float32"}, {"f4", "float32"}, {"float_", "float32"}, {"float64", "float64"},
        {"f8", "float64"}, {"double", "float64"}, {"complex64", "complex64"}, {"c8", "complex64"},
        {"complex128", "complex128"}, {"c16", "complex128"},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        Signature *s = sig(arena_printf("%s(%s, %s[:])", names[i][0], names[i][0], names[i][0]));
        assert_string_equal(type_name(s->ret), names[i][1]);
        assert_int_equal(s->nargs, 2);
        assert_string_equal(type_name(s->args[0]), names[i][1]);
        assert_string_equal(type_name(s->args[1]), arena_printf("array(%s, 1d, A)", names[i][1]));
    }
}

static void test_signature_forms(void **state)
{
    (void)state;
    Signature *s = sig("float32(float32, float32)");
    assert_string_equal(s->text, "float32(float32, float32)");
    assert_int_equal(s->nargs, 2);
    s = sig("f4(f4)");
    assert_ptr_equal(s->ret, ty_scalar(TY_FLOAT32));
    s = sig("float32(float32,)");               /* a trailing comma, as Python allows */
    assert_int_equal(s->nargs, 1);
    s = sig("(float32[:], float32[:])");        /* no return type (gufuncs) */
    assert_null(s->ret);
    assert_int_equal(s->nargs, 2);
    s = sig("float32()");
    assert_int_equal(s->nargs, 0);
    s = sig("void(float64[:, :], float64[:])");
    assert_ptr_equal(s->ret, ty_none());
    assert_ptr_equal(s->args[0], ty_array(ty_scalar(TY_FLOAT64), 2, 'A'));
    assert_ptr_equal(s->args[1], ty_array(ty_scalar(TY_FLOAT64), 1, 'A'));
    s = sig("none(int32)");
    assert_ptr_equal(s->ret, ty_none());
    s = sig("  float32 ( float32 [ : , :: 1 ] , int8 )  ");   /* spaces anywhere */
    assert_ptr_equal(s->args[0], ty_array(ty_scalar(TY_FLOAT32), 2, 'C'));
    assert_ptr_equal(s->args[1], ty_scalar(TY_INT8));
}

static void test_array_layouts(void **state)
{
    (void)state;
    static const struct { const char *dims; int ndim; char layout; } rows[] = {
        {"[:]", 1, 'A'},          {"[::1]", 1, 'C'},          {"[:, :]", 2, 'A'},
        {"[:, ::1]", 2, 'C'},     {"[::1, :]", 2, 'F'},       {"[:, :, ::1]", 3, 'C'},
        {"[::1, :, :]", 3, 'F'},  {"[:,:,:,:,:,:,:,:]", 8, 'A'},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        Signature *s = sig(arena_printf("(int16%s,)", rows[i].dims));
        Type *t = s->args[0];
        assert_int_equal(t->kind, TY_ARRAY);
        assert_int_equal(t->ndim, rows[i].ndim);
        assert_int_equal(t->layout, rows[i].layout);
        assert_ptr_equal(t->elt, ty_scalar(TY_INT16));
    }
}

/* Errors point inside the string: 'S = ' is 4 columns, the quote the 5th,
 * so the string's byte k is at column 6 + k. */
static void test_signature_errors(void **state)
{
    (void)state;
    static const char *const rows[][2] = {
        {"'flaot32(float32)'", "6: error: unknown type 'flaot32'; did you mean 'float32'?"},
        {"'float32(flaot32)'", "14: error: unknown type 'flaot32'; did you mean 'float32'?"},
        {"'float32(int)'", "14: error: unknown type 'int': Numba's integer types are sized (int64, int32, ...)"},
        {"'float32(banana)'", "14: error: unknown type 'banana'"},
        {"'int64'", "11: error: expected '(' and the argument types, found end of string"},
        {"'float32(float32'", "21: error: expected ',' or ')', found end of string"},
        {"'float32(float32))'", "22: error: unexpected ')' after the signature"},
        {"'float32(float32 float32)'", "22: error: expected ',' or ')', found 'f'"},
        {"'float32[:](float32)'", "13: error: a return type cannot be an array"},
        {"'(float32[1:],)'", "15: error: expected ':' (only whole-axis slices are allowed), found '1'"},
        {"'(float32[::2],)'", "17: error: expected '1' after '::', found '2'"},
        {"'(float32[:, ::1, :],)'", "14: error: '::1' must be on the first (F order) or last (C order) axis"},
        {"'(float32[::1, ::1],)'", "20: error: only one axis may be contiguous ('::1')"},
        {"'(float32[:][:],)'", "17: error: an array of arrays is not a type"},
        {"'(float32[:,:,:,:,:,:,:,:,:],)'", "14: error: too many dimensions in an array type"},
        {"'float32(float32(float32))'", "21: error: nested signatures are not supported"},
        {"'float32(void)'", "14: error: 'void' is only valid as a return type"},
        {"'float16(float16)'", "6: error: 'float16' is not supported by ufnc (use float32)"},
        {"''", "6: error: expected a type name, found end of string"},
        {"'float32(,)'", "14: error: expected a type name, found ','"},
        {"'(float32[:) '", "16: error: expected ']', found ')'"},
        /* the column counts the prefix and all three quotes */
        {"r'f4(flaot32)'", "10: error: unknown type 'flaot32'; did you mean 'float32'?"},
        {"'''f4(flaot32)'''", "11: error: unknown type 'flaot32'; did you mean 'float32'?"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        char *got = sig_error(rows[i][0]);
        if (strcmp(got, rows[i][1]) != 0)
            fail_msg("%s:\n  got      %s\n  expected %s", rows[i][0], got, rows[i][1]);
        arena_reset();
        types_reset();
    }
}

static void test_too_many_arguments(void **state)
{
    (void)state;
    Buf b = {0};
    buf_puts(&b, "'f4(");
    for (int i = 0; i < UFN_MAX_OPERANDS; i++)
        buf_puts(&b, "f4,");
    assert_non_null(sig(arena_printf("f4(%.*s)", (int)b.len - 4, b.data + 4)));
    buf_puts(&b, "f4)'");
    char *got = sig_error(b.data);
    assert_string_equal(got, arena_printf("%d: error: too many arguments", 6 + 3 + 3 * UFN_MAX_OPERANDS));
    buf_free(&b);
}

/* A string split over lines has no column inside it: the error points at
 * the whole literal. */
static void test_multiline_string(void **state)
{
    (void)state;
    char *got = sig_error("('float32('\n     'flaot32)')");
    assert_string_equal(got, "6: error: unknown type 'flaot32'; did you mean 'float32'?");
}

/* ---- layouts ---- */

static Layout *layout(const char *text)
{
    Out o;
    capture(&o);
    Layout *l = layout_parse(literal(arena_printf("'%s'", text)));
    char *d = release(&o);
    if (!l || *d)
        fail_msg("'%s' should parse: %s", text, d);
    return l;
}

/* The layout back as text, names and fixed sizes resolved. */
static char *unparse(const Layout *l)
{
    Buf b = {0};
    for (int k = 0; k < l->nin + l->nout; k++) {
        buf_puts(&b, k == l->nin ? "->(" : k ? ",(" : "(");
        for (int d = 0; d < l->ndim[k]; d++)
            buf_printf(&b, "%s%s", d ? "," : "", l->names[l->dims[k][d]]);
        buf_putc(&b, ')');
    }
    char *s = arena_printf("%s", b.data);
    buf_free(&b);
    return s;
}

static void test_layouts(void **state)
{
    (void)state;
    static const struct { const char *text, *canon; int nin, nout, nnames; } rows[] = {
        {"(i)->()", "(i)->()", 1, 1, 1},
        {"(i)->(i)", "(i)->(i)", 1, 1, 1},
        {"(m,n),(n,p)->(m,p)", "(m,n),(n,p)->(m,p)", 2, 1, 3},
        {"(),()->()", "(),()->()", 2, 1, 0},
        {"(3)->(3)", "(3)->(3)", 1, 1, 1},
        {"(i)->(),()", "(i)->(),()", 1, 2, 1},
        {" ( i ) , ( i ) -> ( ) ", "(i),(i)->()", 2, 1, 1},
        {"(i,)->()", "(i)->()", 1, 1, 1},            /* Numba's trailing commas */
        {"(i),(i)->(),", "(i),(i)->()", 2, 1, 1},
        {"(n,3),(3)->(n)", "(n,3),(3)->(n)", 2, 1, 2},
        {"(i)->(j)", "(i)->(j)", 1, 1, 2},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        Layout *l = layout(rows[i].text);
        assert_string_equal(unparse(l), rows[i].canon);
        assert_int_equal(l->nin, rows[i].nin);
        assert_int_equal(l->nout, rows[i].nout);
        assert_int_equal(l->nnames, rows[i].nnames);
    }
    Layout *l = layout("(n,3),(3)->(n)");
    assert_string_equal(l->names[0], "n");
    assert_int_equal(l->fixed[0], -1);
    assert_string_equal(l->names[1], "3");
    assert_int_equal(l->fixed[1], 3);
    assert_int_equal(l->dims[1][0], 1);        /* both 3s are one name */
}

static void test_layout_errors(void **state)
{
    (void)state;
    static const char *const rows[][2] = {
        {"'(i)'", "9: error: expected '->' and the outputs' core dimensions, found end of string"},
        {"'(i)->'", "11: error: expected at least one output, found end of string"},
        {"'(i)->[i]'", "11: error: expected at least one output, found '['"},
        {"'i->()'", "6: error: expected '(' starting an operand's core dimensions, found 'i'"},
        {"'(m?,n)->(n)'", "8: error: optional core dimensions ('?') are not supported"},
        {"'(i)->()x'", "13: error: unexpected 'x' after the layout"},
        {"'(1x)->()'", "8: error: expected ',' or ')', found 'x'"},
        {"'(i j)->()'", "9: error: expected ',' or ')', found 'j'"},
        {"'(,)->()'", "7: error: expected a dimension name or size, found ','"},
        {"'(99999999999999)->()'", "7: error: fixed dimension too large"},
        {"'(a,b,c,d,e,f,g,h,i)->()'", "23: error: too many core dimensions"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        Out o;
        capture(&o);
        Layout *l = layout_parse(literal(rows[i][0]));
        char *d = release(&o);
        if (l)
            fail_msg("%s should not parse", rows[i][0]);
        if (strncmp(d, "t.ufn:1:", 8) != 0 || strcmp(d + 8, rows[i][1]) != 0)
            fail_msg("%s:\n  got      %s\n  expected t.ufn:1:%s", rows[i][0], d, rows[i][1]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_type_name),  cmocka_unit_test(test_signature_forms),
        cmocka_unit_test(test_array_layouts),    cmocka_unit_test(test_signature_errors),
        cmocka_unit_test(test_too_many_arguments), cmocka_unit_test(test_multiline_string),
        cmocka_unit_test(test_layouts),          cmocka_unit_test(test_layout_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
