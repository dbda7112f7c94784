/* ufn_dlpack.h - passing arrays to and from DLPack (CuPy, PyTorch, JAX, ...)
 * without a copy.  Part of libufnrt's public interface; needs dlpack.h
 * (Debian: libdlpack-dev), or the copy installed with it. */
#ifndef UFN_DLPACK_H
#define UFN_DLPACK_H

/* The system's DLPack header when there is one (it is what the tensors' producer
 * was built with); else the copy of the one libufnrt was built against, which
 * `make install` puts in ufn/dlpack/ beside this file. */
#if defined(__has_include)
#if __has_include(<dlpack/dlpack.h>)
#include <dlpack/dlpack.h>
#else
#include "ufn/dlpack/dlpack.h"
#endif
#else
#include <dlpack/dlpack.h>
#endif

#include "ufn.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

/* Describe a DLPack tensor as a ufn_array view (not owned: the tensor's
 * producer keeps the memory alive).  kDLCPU and kDLCUDAHost tensors become
 * host arrays, kDLCUDA and kDLCUDAManaged ones device arrays of device_id
 * (refused with UFN_ERR_WRONG_MEMORY when the backend has no device memory).
 * NULL strides mean row-major; byte_offset is honoured.  Types: bool (kDLBool,
 * code 6, 8 bits), int/uint 8..64, float 32/64, complex 64/128, one lane. */
int ufn_from_dlpack(const DLTensor *t, ufn_array *out);

/* A DLPack view of `a`: *out's deleter frees only what this call allocated
 * (the DLManagedTensor and its shape and strides), never the elements, so
 * `a`'s memory must outlive the tensor.  A scalar value (ufn_scalar_*) is
 * copied into the tensor's own block. */
int ufn_to_dlpack(const ufn_array *a, DLManagedTensor **out);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#ifdef __cplusplus
}
#endif
#endif /* UFN_DLPACK_H */
