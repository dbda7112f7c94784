/* dlpack.c - ufn_from_dlpack and ufn_to_dlpack (see ufn_dlpack.h).
 *
 * DLPack counts strides in elements, as ufn_array does, so a tensor and an
 * array describe the same memory field by field.  The bool type code 6
 * (kDLBool) came after DLPack 0.6 and is defined here when the header lacks
 * it.  Without dlpack.h the runtime builds without these two functions.
 */
#if defined(__has_include)
#if __has_include(<dlpack/dlpack.h>)
#define UFN_HAVE_DLPACK 1
#endif
#endif

#ifdef UFN_HAVE_DLPACK
#include <stdlib.h>
#include <string.h>

#include "ufn_dlpack.h"
#include "ufnrt.h"

#define CODE_BOOL 6   /* kDLBool in DLPack >= 0.8 */

static const struct {
    uint8_t code, bits;
} dl_types[UFN_NUM_DTYPES] = {
    [UFN_BOOL] = {CODE_BOOL, 8},
    [UFN_INT8] = {kDLInt, 8},
    [UFN_INT16] = {kDLInt, 16},
    [UFN_INT32] = {kDLInt, 32},
    [UFN_INT64] = {kDLInt, 64},
    [UFN_UINT8] = {kDLUInt, 8},
    [UFN_UINT16] = {kDLUInt, 16},
    [UFN_UINT32] = {kDLUInt, 32},
    [UFN_UINT64] = {kDLUInt, 64},
    [UFN_FLOAT32] = {kDLFloat, 32},
    [UFN_FLOAT64] = {kDLFloat, 64},
    [UFN_COMPLEX64] = {kDLComplex, 64},
    [UFN_COMPLEX128] = {kDLComplex, 128},
};

static const char *code_name(int code)
{
    switch (code) {
    case kDLInt: return "int";
    case kDLUInt: return "uint";
    case kDLFloat: return "float";
    case kDLOpaqueHandle: return "opaque handle";
    case kDLBfloat: return "bfloat";
    case kDLComplex: return "complex";
    case CODE_BOOL: return "bool";
    }
    return "unknown";
}

int ufn_from_dlpack(const DLTensor *t, ufn_array *out)
{
    static const char fn[] = "ufn_from_dlpack";
    if (!t || !out)
        return ufn_fail(UFN_ERR_INVALID, "%s: NULL %s", fn, !t ? "tensor" : "output descriptor");
    if (t->ndim < 0 || t->ndim > UFN_MAXDIMS)
        return ufn_fail(UFN_ERR_NDIM, "%s: ndim %d is outside 0..%d", fn, t->ndim, UFN_MAXDIMS);
    if (t->dtype.lanes != 1)
        return ufn_fail(UFN_ERR_DTYPE, "%s: vector types (%u lanes) are not supported", fn,
                        (unsigned)t->dtype.lanes);
    int dtype = -1;
    for (int k = 0; k < UFN_NUM_DTYPES; k++)
        if (dl_types[k].code == t->dtype.code && dl_types[k].bits == t->dtype.bits)
            dtype = k;
    if (dtype < 0)
        return ufn_fail(UFN_ERR_DTYPE, "%s: the DLPack type %s%u (code %u) is not supported", fn,
                        code_name(t->dtype.code), (unsigned)t->dtype.bits,
                        (unsigned)t->dtype.code);
    ufn_memory memory;
    switch ((int)t->device.device_type) {
    case kDLCPU:
    case kDLCUDAHost:
        memory = UFN_MEM_HOST;
        break;
    case kDLCUDA:
    case kDLCUDAManaged:
        memory = UFN_MEM_DEVICE;
        break;
    default:
        return ufn_fail(UFN_ERR_WRONG_MEMORY, "%s: DLPack device type %d is not supported (CPU, "
                        "CUDA, CUDA host and CUDA managed memory are)", fn,
                        (int)t->device.device_type);
    }
    if (t->ndim > 0 && !t->shape)
        return ufn_fail(UFN_ERR_INVALID, "%s: the tensor's shape is NULL", fn);
    ufn_array a;
    memset(&a, 0, sizeof a);
    a.data = t->data ? (char *)t->data + t->byte_offset : NULL;
    a.dtype = (ufn_dtype)dtype;
    a.ndim = t->ndim;
    a.memory = memory;
    a.device = memory == UFN_MEM_DEVICE ? t->device.device_id : 0;
    for (int d = 0; d < t->ndim; d++)
        a.shape[d] = t->shape[d];
    if (t->strides)
        for (int d = 0; d < t->ndim; d++)
            a.strides[d] = t->strides[d];
    else
        ufn_c_strides(a.ndim, a.shape, a.strides);
    if (a.ndim == 0 && !a.data)
        return ufn_fail(UFN_ERR_INVALID, "%s: the tensor's data pointer is NULL", fn);
    int st = ufn_check_array(&a, fn);
    if (st < 0)
        return st;
    *out = a;
    return UFN_OK;
}

static void delete_tensor(DLManagedTensor *self)
{
    free(self);
}

int ufn_to_dlpack(const ufn_array *a, DLManagedTensor **out)
{
    static const char fn[] = "ufn_to_dlpack";
    int st = ufn_check_array(a, fn);
    if (st < 0)
        return st;
    if (!out)
        return ufn_fail(UFN_ERR_INVALID, "%s: the output pointer is NULL", fn);
    /* One block: the managed tensor, shape, strides, and room for a value. */
    size_t dims = (size_t)a->ndim * sizeof(int64_t);
    size_t size = sizeof(DLManagedTensor) + 2 * dims + 16;
    DLManagedTensor *m = calloc(1, size);
    if (!m)
        return ufn_fail(UFN_ERR_NOMEM, "%s: out of host memory", fn);
    int64_t *shape = (int64_t *)(m + 1), *strides = shape + a->ndim;
    unsigned char *value = (unsigned char *)(strides + a->ndim);
    for (int d = 0; d < a->ndim; d++) {
        shape[d] = a->shape[d];
        strides[d] = a->strides[d];
    }
    DLTensor *t = &m->dl_tensor;
    if (a->data) {
        t->data = a->data;
    } else {
        memcpy(value, &a->value, 16);
        t->data = value;
    }
    t->device.device_type = a->memory == UFN_MEM_DEVICE ? kDLCUDA : kDLCPU;
    t->device.device_id = a->memory == UFN_MEM_DEVICE ? a->device : 0;
    t->ndim = a->ndim;
    t->dtype.code = dl_types[a->dtype].code;
    t->dtype.bits = dl_types[a->dtype].bits;
    t->dtype.lanes = 1;
    t->shape = a->ndim ? shape : NULL;
    t->strides = a->ndim ? strides : NULL;
    t->byte_offset = 0;
    m->manager_ctx = NULL;
    m->deleter = delete_tensor;
    *out = m;
    return UFN_OK;
}

#endif /* UFN_HAVE_DLPACK */
