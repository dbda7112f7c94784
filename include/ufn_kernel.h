/* ufn_kernel.h - support for the CUDA C that ufnc generates (polar.cu).
 *
 * nvcc compiles a generated .cu for the GPU.  The simulator backend compiles
 * the very same file as C11 for the CPU: then ufn_sim.h stands in for CUDA's
 * built-ins (threadIdx, __global__, __ldg, uint4, ...) and the runtime runs
 * each kernel block by block, thread by thread.  So everything here, and all
 * generated device code, is written in the common subset of CUDA C++ and C11.
 *
 * The scalar bodies themselves use ufn_math.h, which the host stub shares.
 */
#ifndef UFN_KERNEL_H
#define UFN_KERNEL_H

#if defined(__CUDACC__)
#include <stdint.h>
#include <string.h>
#else
#include "ufn_sim.h"
#endif

#include "ufn_abi.h"
#include "ufn_math.h"

/* Recursive helpers report a call too deep here (ufn_abi.h, "recursion"):
 * one flag per module and device, which the runtime reads and clears. */
#if defined(__CUDACC__)
extern "C" __device__ unsigned ufn_depth_flag;
__device__ unsigned ufn_depth_flag;

static __host__ __device__ __forceinline__ void ufn_depth_exceeded(void)
{
#if defined(__CUDA_ARCH__)
    atomicOr(&ufn_depth_flag, 1u);
#endif
}
#endif

/* Threads per block: every kernel is built for at most this many. */
#define UFN_BLOCK 256

#if defined(__CUDACC__)
#define UFN_KERNEL extern "C" __global__ void __launch_bounds__(UFN_BLOCK)
#define UFN_DEVICE static __device__ __forceinline__
#else
#define UFN_KERNEL void
#define UFN_DEVICE static inline
#endif

/* This thread's first index and the grid-stride step. */
#define UFN_FIRST_INDEX() (blockIdx.x * blockDim.x + threadIdx.x)
#define UFN_GRID_STRIDE() (gridDim.x * blockDim.x)

/* 2- to 16-byte moves between global memory and a register array, so that
 * the contiguous kernels issue one wide load or store per operand and step
 * (LDG.E.128 / STG.E.128 for 16 bytes); loads use the read-only data path. */
#define UFN_DEFINE_MOVE(bytes, type)                                      \
    UFN_DEVICE void ufn_load##bytes(void *dst, const void *src)           \
    {                                                                     \
        type t = __ldg((const type *)src);                                \
        memcpy(dst, &t, bytes);                                           \
    }                                                                     \
    UFN_DEVICE void ufn_store##bytes(void *dst, const void *src)          \
    {                                                                     \
        type t;                                                           \
        memcpy(&t, src, bytes);                                           \
        *(type *)dst = t;                                                 \
    }

UFN_DEFINE_MOVE(16, uint4)
UFN_DEFINE_MOVE(8, uint2)
UFN_DEFINE_MOVE(4, unsigned int)
UFN_DEFINE_MOVE(2, unsigned short)

/* Scalars passed by value to strided ufunc kernels (ufn_abi.h): the value
 * lies in the input's ufn_kstrides in 32-bit pieces, s[j] holding bits
 * 32j..32j+31.  One reader per element type, named by its suffix in kernel
 * names. */
UFN_DEVICE uint64_t ufn_kpiece64(ufn_kstrides s, int j)
{
    return (uint64_t)(uint32_t)s.s[j] | (uint64_t)(uint32_t)s.s[j + 1] << 32;
}

UFN_DEVICE bool ufn_kscalar_b1(ufn_kstrides s) { return (s.s[0] & 0xff) != 0; }
UFN_DEVICE int8_t ufn_kscalar_i8(ufn_kstrides s) { return (int8_t)(uint8_t)s.s[0]; }
UFN_DEVICE int16_t ufn_kscalar_i16(ufn_kstrides s) { return (int16_t)(uint16_t)s.s[0]; }
UFN_DEVICE int32_t ufn_kscalar_i32(ufn_kstrides s) { return (int32_t)(uint32_t)s.s[0]; }
UFN_DEVICE int64_t ufn_kscalar_i64(ufn_kstrides s) { return (int64_t)ufn_kpiece64(s, 0); }
UFN_DEVICE uint8_t ufn_kscalar_u8(ufn_kstrides s) { return (uint8_t)s.s[0]; }
UFN_DEVICE uint16_t ufn_kscalar_u16(ufn_kstrides s) { return (uint16_t)s.s[0]; }
UFN_DEVICE uint32_t ufn_kscalar_u32(ufn_kstrides s) { return (uint32_t)s.s[0]; }
UFN_DEVICE uint64_t ufn_kscalar_u64(ufn_kstrides s) { return ufn_kpiece64(s, 0); }
UFN_DEVICE float ufn_kscalar_f32(ufn_kstrides s) { return __int_as_float((int)(uint32_t)s.s[0]); }

UFN_DEVICE double ufn_kscalar_f64(ufn_kstrides s)
{
    return __longlong_as_double((long long)ufn_kpiece64(s, 0));
}

UFN_DEVICE ufn_c64 ufn_kscalar_c64(ufn_kstrides s)
{
    ufn_c64 v;
    v.re = __int_as_float((int)(uint32_t)s.s[0]);
    v.im = __int_as_float((int)(uint32_t)s.s[1]);
    return v;
}

UFN_DEVICE ufn_c128 ufn_kscalar_c128(ufn_kstrides s)
{
    ufn_c128 v;
    v.re = __longlong_as_double((long long)ufn_kpiece64(s, 0));
    v.im = __longlong_as_double((long long)ufn_kpiece64(s, 2));
    return v;
}

/* Is p aligned for a move of `bytes` (a power of two)? */
UFN_DEVICE int ufn_aligned(const void *p, unsigned bytes)
{
    return ((uintptr_t)p & (bytes - 1u)) == 0;
}

#endif /* UFN_KERNEL_H */
