/* test_abi.c - what the compiler and libufnrt must agree on, where the
 * compiler cannot read it from ufn_abi.h: the runtime's internal limit on
 * the operands of a ufunc (runtime/ufnrt.h).  The kernel limits and dtypes
 * are ufn_abi.h's own, and ufnc.h asserts TypeKind against ufn_dtype. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "ufnrt.h"
#include "ufnc.h"

_Static_assert(UFN_MAX_OPERANDS == UFN_MAXARGS, "a ufunc's operands: ufnc and libufnrt disagree");
_Static_assert(UFN_CORE_MAXDIMS == UFN_KMAXCORE, "core dimensions: ufnc and libufnrt disagree");

/* The size the compiler gives each scalar type is its C type's in ufn.h
 * (the typed entries' pointers, the runtime's element sizes). */
static void test_dtype_sizes(void **state)
{
    (void)state;
    static const struct { TypeKind kind; size_t size; } c[] = {
        {TY_BOOL, sizeof(bool)}, {TY_INT8, sizeof(int8_t)}, {TY_INT16, sizeof(int16_t)},
        {TY_INT32, sizeof(int32_t)}, {TY_INT64, sizeof(int64_t)}, {TY_UINT8, sizeof(uint8_t)},
        {TY_UINT16, sizeof(uint16_t)}, {TY_UINT32, sizeof(uint32_t)}, {TY_UINT64, sizeof(uint64_t)},
        {TY_FLOAT32, sizeof(float)}, {TY_FLOAT64, sizeof(double)}, {TY_COMPLEX64, sizeof(ufn_complex64)},
        {TY_COMPLEX128, sizeof(ufn_complex128)},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++)
        assert_int_equal(ty_scalar(c[i].kind)->size, (int)c[i].size);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dtype_sizes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
