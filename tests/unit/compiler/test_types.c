/* test_types.c - the type table (compiler/types.c) against NumPy and Numba:
 * np.promote_types over every pair of scalars, every type name Numba's
 * signature strings accept (both tables generated once by
 * gen_type_tables.py), unification, implicit conversions, and the
 * uniqueness and spelling of tuple and array types. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "ufnc.h"

#include "type_tables.h"

static Type *T(const char *name)
{
    Type *t = ty_by_name(name);
    if (!t)
        fail_msg("no type named %s", name);
    return t;
}

static void test_promote_matches_numpy(void **state)
{
    (void)state;
    int bad = 0;
    for (size_t i = 0; i < sizeof promote_table / sizeof promote_table[0]; i++) {
        Type *r = ty_promote_numpy(T(promote_table[i][0]), T(promote_table[i][1]));
        if (strcmp(type_name(r), promote_table[i][2]) != 0) {
            print_error("promote(%s, %s) = %s, NumPy says %s\n", promote_table[i][0], promote_table[i][1],
                        type_name(r), promote_table[i][2]);
            bad++;
        }
    }
    assert_int_equal(bad, 0);
}

/* Where paths meet, Numba unifies scalars exactly as np.promote_types. */
static void test_unify_scalars_is_promotion(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof promote_table / sizeof promote_table[0]; i++) {
        Type *r = ty_unify(T(promote_table[i][0]), T(promote_table[i][1]));
        assert_non_null(r);
        assert_string_equal(type_name(r), promote_table[i][2]);
    }
}

static void test_numba_aliases(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof alias_table / sizeof alias_table[0]; i++) {
        Type *t = ty_by_name(alias_table[i][0]);
        if (!t)
            fail_msg("Numba's '%s' is unknown to ufnc", alias_table[i][0]);
        assert_string_equal(type_name(t), alias_table[i][1]);
    }
    /* spellings ufnc takes beyond Numba's (NumPy's) */
    assert_ptr_equal(ty_by_name("single"), ty_scalar(TY_FLOAT32));
    assert_ptr_equal(ty_by_name("csingle"), ty_scalar(TY_COMPLEX64));
    assert_ptr_equal(ty_by_name("cdouble"), ty_scalar(TY_COMPLEX128));
    /* and not: Python's own names, NumPy's float16, nonsense */
    assert_null(ty_by_name("int"));
    assert_null(ty_by_name("float"));
    assert_null(ty_by_name("complex"));
    assert_null(ty_by_name("float16"));
    assert_null(ty_by_name("f2"));
    assert_null(ty_by_name("Float32"));
    assert_null(ty_by_name(""));
}

/* A scalar type's kind is its runtime dtype: the order is ufn_dtype's. */
static void test_scalar_table(void **state)
{
    (void)state;
    static const struct { TypeKind k; const char *name, *cname; int size; } rows[] = {
        {TY_BOOL, "bool", "bool", 1},          {TY_INT8, "int8", "int8_t", 1},
        {TY_INT16, "int16", "int16_t", 2},     {TY_INT32, "int32", "int32_t", 4},
        {TY_INT64, "int64", "int64_t", 8},     {TY_UINT8, "uint8", "uint8_t", 1},
        {TY_UINT16, "uint16", "uint16_t", 2},  {TY_UINT32, "uint32", "uint32_t", 4},
        {TY_UINT64, "uint64", "uint64_t", 8},  {TY_FLOAT32, "float32", "float", 4},
        {TY_FLOAT64, "float64", "double", 8},  {TY_COMPLEX64, "complex64", "ufn_c64", 8},
        {TY_COMPLEX128, "complex128", "ufn_c128", 16},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        Type *t = ty_scalar(rows[i].k);
        assert_int_equal(t->kind, rows[i].k);
        assert_string_equal(t->name, rows[i].name);
        assert_string_equal(c_type(t), rows[i].cname);     /* names.c */
        assert_int_equal(t->size, rows[i].size);
        assert_int_equal(ty_bits(t), 8 * rows[i].size);
        assert_true(ty_is_scalar(t) && ty_is_numeric(t));
    }
    assert_true(ty_is_bool(T("b1")) && !ty_is_int(T("b1")));
    assert_true(ty_is_signed(T("i2")) && !ty_is_unsigned(T("i2")));
    assert_true(ty_is_unsigned(T("u8")) && ty_is_int(T("u8")));
    assert_true(ty_is_float(T("f4")) && !ty_is_complex(T("f4")));
    assert_true(ty_is_complex(T("c8")));
    assert_false(ty_is_scalar(ty_none()));
}

/* Numba's arithmetic typing (numba-semantics 3.2), the rows that matter
 * most for float32 kernels. */
static void test_arith(void **state)
{
    (void)state;
    static const char *const rows[][3] = {
        {"int32", "int32", "int64"},       {"int8", "int8", "int64"},       {"uint8", "uint8", "uint64"},
        {"uint32", "uint32", "uint64"},    {"int32", "int64", "int64"},     {"uint64", "int64", "int64"},
        {"uint32", "int32", "int64"},      {"bool", "bool", "int64"},       {"int8", "float32", "float32"},
        {"int16", "float32", "float32"},   {"uint16", "float32", "float64"}, {"int32", "float32", "float64"},
        {"int64", "float32", "float64"},   {"float32", "float64", "float64"}, {"float32", "float32", "float32"},
        {"complex64", "float64", "complex128"}, {"complex64", "int8", "complex64"},
        {"complex64", "int32", "complex128"}, {"complex64", "float32", "complex64"},
        {"bool", "float32", "float32"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        assert_string_equal(type_name(ty_arith(T(rows[i][0]), T(rows[i][1]))), rows[i][2]);
        assert_string_equal(type_name(ty_arith(T(rows[i][1]), T(rows[i][0]))), rows[i][2]);
    }
}

static void test_can_convert(void **state)
{
    (void)state;
    /* every scalar converts to every non-complex scalar but complex; complex only to complex */
    for (int a = 0; a < NUM_SCALAR_TYPES; a++)
        for (int b = 0; b < NUM_SCALAR_TYPES; b++) {
            Type *from = ty_scalar((TypeKind)a), *to = ty_scalar((TypeKind)b);
            bool want = !(ty_is_complex(from) && !ty_is_complex(to));
            assert_int_equal(ty_can_convert(from, to), want);
        }
    Type *f32 = T("f4"), *f64 = T("f8"), *c64 = T("c8");
    Type *p1[2] = {f32, f32}, *p2[2] = {f64, f64}, *p3[2] = {c64, f32}, *p4[3] = {f32, f32, f32};
    assert_true(ty_can_convert(ty_tuple(2, p1), ty_tuple(2, p2)));
    assert_false(ty_can_convert(ty_tuple(2, p3), ty_tuple(2, p2)));
    assert_false(ty_can_convert(ty_tuple(2, p1), ty_tuple(3, p4)));
    assert_false(ty_can_convert(ty_array(f32, 1, 'A'), f32));
    assert_false(ty_can_convert(f32, ty_array(f32, 1, 'A')));
}

/* np.can_cast(from, to, 'safe'), the rows as NumPy 2.4 answers them:
 * composition chooses a ufunc's signature with it (infer_call.c). */
static void test_can_cast_safe(void **state)
{
    (void)state;
    static const struct { const char *from, *to; bool safe; } rows[] = {
        {"bool", "int8", true},          {"int8", "bool", false},          {"int8", "uint8", false},
        {"uint8", "int8", false},        {"uint8", "int16", true},         {"uint8", "uint16", true},
        {"int16", "float32", true},      {"uint16", "float32", true},      {"int32", "float32", false},
        {"int32", "float64", true},      {"int64", "float64", true},       {"uint64", "float64", true},
        {"uint64", "int64", false},      {"int64", "uint64", false},       {"float32", "float64", true},
        {"float64", "float32", false},   {"float32", "complex64", true},   {"float64", "complex64", false},
        {"float64", "complex128", true}, {"complex64", "complex128", true}, {"complex128", "complex64", false},
        {"complex64", "float64", false}, {"float32", "int64", false},      {"int16", "complex64", true},
        {"int32", "complex64", false},   {"int32", "complex128", true},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        assert_int_equal(ty_can_cast_safe(T(rows[i].from), T(rows[i].to)), rows[i].safe);
    for (int a = 0; a < NUM_SCALAR_TYPES; a++)
        assert_true(ty_can_cast_safe(ty_scalar((TypeKind)a), ty_scalar((TypeKind)a)));
}

static void test_tuples(void **state)
{
    (void)state;
    Type *f32 = T("float32"), *i64 = T("int64"), *f64 = T("float64");
    Type *ff[2] = {f32, f32}, *fi[2] = {f32, i64}, *dd[2] = {f64, f64}, *fd[2] = {f32, f64};
    Type *a = ty_tuple(2, ff);
    assert_ptr_equal(a, ty_tuple(2, ff));                  /* unique: compare with == */
    assert_string_equal(a->name, "UniTuple(float32 x 2)");
    assert_string_equal(c_type(a), "ufn_tup2_f32_f32");
    Type *b = ty_tuple(2, fi);
    assert_ptr_not_equal(a, b);
    assert_string_equal(b->name, "Tuple(float32, int64)");
    assert_string_equal(type_tag(b), "t2_f32_i64");
    /* unification element by element, as promotion */
    assert_ptr_equal(ty_unify(a, ty_tuple(2, dd)), ty_tuple(2, dd));
    assert_ptr_equal(ty_unify(a, b), ty_tuple(2, (Type *[]){f32, f64}));
    assert_ptr_equal(ty_unify(ty_tuple(2, fd), a), ty_tuple(2, fd));
    Type *three[3] = {f32, f32, f32};
    assert_null(ty_unify(a, ty_tuple(3, three)));
    assert_null(ty_unify(a, f32));
    assert_null(ty_unify(f32, ty_array(f32, 1, 'A')));
}

static void test_arrays(void **state)
{
    (void)state;
    Type *f32 = T("float32");
    Type *a = ty_array(f32, 2, 'C');
    assert_ptr_equal(a, ty_array(f32, 2, 'C'));
    assert_ptr_not_equal(a, ty_array(f32, 2, 'F'));
    assert_ptr_not_equal(a, ty_array(f32, 1, 'C'));
    assert_string_equal(a->name, "array(float32, 2d, C)");
    assert_string_equal(ty_array(T("u1"), 1, 'A')->name, "array(uint8, 1d, A)");
    /* the layout does not change the C view: strides are always carried */
    assert_string_equal(c_type(a), c_type(ty_array(f32, 2, 'A')));
    assert_string_equal(c_type(a), "ufn_view_f32_2");
    assert_int_equal(a->ndim, 2);
    assert_ptr_equal(a->elt, f32);
}

/* arena_reset frees derived types; types.c must notice by itself (the
 * arena's generation changed) and not hand out the freed ones. */
static void test_reset(void **state)
{
    (void)state;
    Type *f32 = T("float32");
    Type *ff[2] = {f32, f32};
    (void)ty_tuple(2, ff);
    arena_reset();
    Type *t = ty_tuple(2, ff);
    assert_string_equal(t->name, "UniTuple(float32 x 2)");
    assert_ptr_equal(ty_tuple(2, ff), t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_promote_matches_numpy), cmocka_unit_test(test_unify_scalars_is_promotion),
        cmocka_unit_test(test_numba_aliases),         cmocka_unit_test(test_scalar_table),
        cmocka_unit_test(test_arith),                 cmocka_unit_test(test_can_convert),
        cmocka_unit_test(test_can_cast_safe),
        cmocka_unit_test(test_tuples),                cmocka_unit_test(test_arrays),
        cmocka_unit_test(test_reset),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
