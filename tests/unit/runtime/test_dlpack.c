/* test_dlpack.c - ufn_from_dlpack and ufn_to_dlpack. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "testfuncs.h"
#include "ufn_dlpack.h"

static DLTensor tensor(void *data, DLDataTypeCode code, int bits, int ndim, int64_t *shape,
                       int64_t *strides, uint64_t offset)
{
    DLTensor t;
    memset(&t, 0, sizeof t);
    t.data = data;
    t.device.device_type = kDLCPU;
    t.ndim = ndim;
    t.dtype.code = (uint8_t)code;
    t.dtype.bits = (uint8_t)bits;
    t.dtype.lanes = 1;
    t.shape = shape;
    t.strides = strides;
    t.byte_offset = offset;
    return t;
}

static void test_from_dlpack_cpu(void **state)
{
    (void)state;
    float buf[8] = {-1, 0, 1, 2, 3, 4, 5, 6};
    int64_t shape[] = {2, 3};
    DLTensor t = tensor(buf, kDLFloat, 32, 2, shape, NULL, 2 * sizeof(float));
    ufn_array a;
    assert_int_equal(ufn_from_dlpack(&t, &a), 0);
    assert_ptr_equal(a.data, buf + 2);
    assert_int_equal(a.dtype, UFN_FLOAT32);
    assert_int_equal(a.memory, UFN_MEM_HOST);
    assert_true(a.strides[0] == 3 && a.strides[1] == 1);
    assert_int_equal(a.alloc_id, 0);
    ufn_array o = {0};
    assert_int_equal(call2(&add_func, &a, &a, &o), 0);
    for (int i = 0; i < 6; i++)
        assert_true(((float *)o.data)[i] == 2 * buf[2 + i]);
    ufn_free(&o);
    /* explicit (transposed) strides, pinned host memory */
    int64_t tshape[] = {3, 2}, tstrides[] = {1, 3};
    t = tensor(buf, kDLFloat, 32, 2, tshape, tstrides, 2 * sizeof(float));
    t.device.device_type = kDLCUDAHost;
    assert_int_equal(ufn_from_dlpack(&t, &a), 0);
    assert_int_equal(a.memory, UFN_MEM_HOST);
    assert_true(a.strides[0] == 1 && a.strides[1] == 3);
    /* every supported type */
    static const struct { int code, bits; ufn_dtype t; } map[] = {
        {6, 8, UFN_BOOL}, {kDLInt, 8, UFN_INT8}, {kDLInt, 16, UFN_INT16}, {kDLInt, 32, UFN_INT32},
        {kDLInt, 64, UFN_INT64}, {kDLUInt, 8, UFN_UINT8}, {kDLUInt, 16, UFN_UINT16},
        {kDLUInt, 32, UFN_UINT32}, {kDLUInt, 64, UFN_UINT64}, {kDLFloat, 32, UFN_FLOAT32},
        {kDLFloat, 64, UFN_FLOAT64}, {kDLComplex, 64, UFN_COMPLEX64},
        {kDLComplex, 128, UFN_COMPLEX128},
    };
    static double words[4];
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++) {
        t = tensor(words, (DLDataTypeCode)map[i].code, map[i].bits, 1, (int64_t[]){1}, NULL, 0);
        assert_int_equal(ufn_from_dlpack(&t, &a), 0);
        assert_int_equal(a.dtype, map[i].t);
    }
}

static void test_from_dlpack_refusals(void **state)
{
    (void)state;
    double buf[4] = {0};
    int64_t shape[] = {4};
    ufn_array a, before;
    memset(&a, 0x33, sizeof a);
    before = a;
    DLTensor t = tensor(buf, kDLFloat, 16, 1, shape, NULL, 0);
    assert_int_equal(ufn_from_dlpack(&t, &a), UFN_ERR_DTYPE);
    assert_string_equal(ufn_error(), "ufn_from_dlpack: the DLPack type float16 (code 2) is not "
                                     "supported");
    t = tensor(buf, kDLBfloat, 16, 1, shape, NULL, 0);
    assert_int_equal(ufn_from_dlpack(&t, &a), UFN_ERR_DTYPE);
    t = tensor(buf, kDLFloat, 32, 1, shape, NULL, 0);
    t.dtype.lanes = 4;
    assert_int_equal(ufn_from_dlpack(&t, &a), UFN_ERR_DTYPE);
    assert_non_null(strstr(ufn_error(), "4 lanes"));
    t = tensor(buf, kDLFloat, 64, 1, shape, NULL, 0);
    t.device.device_type = kDLOpenCL;
    assert_int_equal(ufn_from_dlpack(&t, &a), UFN_ERR_WRONG_MEMORY);
    t.device.device_type = kDLCUDA;     /* the host backend has no device memory */
    assert_int_equal(ufn_from_dlpack(&t, &a), UFN_ERR_WRONG_MEMORY);
    t = tensor(buf, kDLFloat, 64, 1, shape, NULL, 3);
    assert_int_equal(ufn_from_dlpack(&t, &a), UFN_ERR_ALIGN);
    t = tensor(buf, kDLFloat, 64, 40, shape, NULL, 0);
    assert_int_equal(ufn_from_dlpack(&t, &a), UFN_ERR_NDIM);
    t = tensor(buf, kDLFloat, 64, 1, NULL, NULL, 0);
    assert_int_equal(ufn_from_dlpack(&t, &a), UFN_ERR_INVALID);
    t = tensor(buf, kDLFloat, 64, 1, (int64_t[]){-2}, NULL, 0);
    assert_int_equal(ufn_from_dlpack(&t, &a), UFN_ERR_SHAPE);
    t = tensor(NULL, kDLFloat, 64, 1, shape, NULL, 0);
    assert_int_equal(ufn_from_dlpack(&t, &a), UFN_ERR_INVALID);
    t = tensor(NULL, kDLFloat, 64, 0, NULL, NULL, 0);
    assert_int_equal(ufn_from_dlpack(&t, &a), UFN_ERR_INVALID);
    assert_int_equal(ufn_from_dlpack(NULL, &a), UFN_ERR_INVALID);
    assert_int_equal(ufn_from_dlpack(&t, NULL), UFN_ERR_INVALID);
    assert_memory_equal(&a, &before, sizeof a);
}

static void test_to_dlpack(void **state)
{
    (void)state;
    double buf[12];
    for (int i = 0; i < 12; i++)
        buf[i] = i;
    ufn_array a = ufn_host_strided(buf + 11, UFN_FLOAT64, 2, (int64_t[]){3, 2},
                                   (int64_t[]){-4, -1});
    DLManagedTensor *m = NULL;
    assert_int_equal(ufn_to_dlpack(&a, &m), 0);
    DLTensor *t = &m->dl_tensor;
    assert_ptr_equal(t->data, buf + 11);
    assert_int_equal(t->device.device_type, kDLCPU);
    assert_true(t->ndim == 2 && t->shape[0] == 3 && t->shape[1] == 2);
    assert_true(t->strides[0] == -4 && t->strides[1] == -1);
    assert_true(t->dtype.code == kDLFloat && t->dtype.bits == 64 && t->dtype.lanes == 1);
    /* and back */
    ufn_array b;
    assert_int_equal(ufn_from_dlpack(t, &b), 0);
    assert_ptr_equal(b.data, a.data);
    assert_memory_equal(b.strides, a.strides, 2 * sizeof(int64_t));
    m->deleter(m);
    assert_true(buf[11] == 11);         /* the elements are not the tensor's */
    /* a scalar value travels inside the tensor */
    ufn_array s = ufn_scalar_int16(-5);
    assert_int_equal(ufn_to_dlpack(&s, &m), 0);
    assert_true(m->dl_tensor.ndim == 0 && *(int16_t *)m->dl_tensor.data == -5);
    assert_true(m->dl_tensor.dtype.code == kDLInt && m->dl_tensor.dtype.bits == 16);
    m->deleter(m);
    ufn_array bl = ufn_scalar_bool(1);
    assert_int_equal(ufn_to_dlpack(&bl, &m), 0);
    assert_int_equal(m->dl_tensor.dtype.code, 6);
    m->deleter(m);
    /* refusals */
    assert_int_equal(ufn_to_dlpack(NULL, &m), UFN_ERR_INVALID);
    assert_int_equal(ufn_to_dlpack(&a, NULL), UFN_ERR_INVALID);
    ufn_array d;
    assert_int_equal(ufn_to_device(&a, &d), 0);
    ufn_array stale = d;
    ufn_free(&d);
    assert_int_equal(ufn_to_dlpack(&stale, &m), UFN_ERR_FREED);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_from_dlpack_cpu),
        cmocka_unit_test(test_from_dlpack_refusals),
        cmocka_unit_test(test_to_dlpack),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
