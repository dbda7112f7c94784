/* ufn_kernel.h - support for the CUDA C that ufnc generates (polar.cu).
 *
 * nvcc compiles a generated .cu for the GPU.  The simulator backend compiles
 * the very same file as C11 for the CPU: then ufn_sim.h stands in for CUDA's
 * built-ins (threadIdx, __global__, __ldg, uint4, ...) and the runtime runs
 * each kernel block by block: thread after thread, or each thread of a block
 * as a fiber when the kernel has barriers or warp functions.  So everything
 * here, and all generated device code, is written in the common subset of
 * CUDA C++ and C11.
 *
 * The scalar bodies themselves use ufn_math.h, which the host stub shares.
 */
#ifndef UFN_KERNEL_H
#define UFN_KERNEL_H

#if defined(__CUDACC__)
#include <stdint.h>
#include <string.h>
#else
#if defined(UFN_HOST_ENTRY) && !defined(UFN_CHECKS)
#define UFN_CHECKS 0      /* the host backend's fiber form runs unchecked */
#endif
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

/* ==== @cuda.jit kernels ============================================================
 * What generated kernel code uses, under the same names for nvcc and for
 * the C build (ufn_sim.h implements them for the CPU).  Scalar types by the
 * suffix: i32 i64 u32 u64 f32 f64 (C has no overloading).
 *
 *   UFN_JIT_KERNEL name(params)            a kernel: extern "C" __global__ void,
 *                                          no launch bounds (blocks up to 1024)
 *   UFN_KNAME(name)                        a kernel's name in this build (below)
 *   UFN_SHARED_ARRAY(T, name, count, off)  declares `T *name`: a static shared
 *                                          array of count elements at byte offset
 *                                          off (a multiple of 16) of the block's
 *                                          static shared memory (ufn_ksig's
 *                                          static_shared covers them all)
 *   ufn_dyn_shared(), ufn_dyn_shared_bytes()   dynamic shared memory (unsigned
 *                                          char *, 16-byte aligned) and its size
 *   ufn_laneid(), ufn_lanemask_lt(), warpSize, threadIdx, blockIdx, blockDim, gridDim
 *   ufn_syncthreads(), ufn_syncthreads_count/_and/_or(pred) -> int
 *   ufn_syncwarp(mask), ufn_threadfence(), _block(), _system()
 *   ufn_shfl_sync_T(mask, v, src_lane), ufn_shfl_up_sync_T(mask, v, delta),
 *   ufn_shfl_down_sync_T(mask, v, delta), ufn_shfl_xor_sync_T(mask, v, lane_mask)
 *                                          -> T; the caller's own value when the
 *                                          source lane is out of range
 *   ufn_ballot_sync(mask, pred) -> unsigned (Numba types it int32),
 *   ufn_all_sync, ufn_any_sync(mask, pred) -> int, ufn_activemask() -> unsigned
 *   ufn_atomic_OP_T(T *p, T v) -> the old value, for OP and T as Numba has them:
 *       add, sub, max, min, exch, and, or, xor     i32 i64 u32 u64 (add, sub,
 *                                                  max, min also f32 f64)
 *       nanmax, nanmin                             f32 f64
 *       inc, dec                                   u32 u64 (CUDA's atomicInc/Dec)
 *     and ufn_atomic_cas_T(T *p, T expected, T v) -> old   i32 i64 u32 u64.
 *     Float max/min do not store when the value or the old one is NaN;
 *     nanmax/nanmin ignore a NaN value and replace a NaN in memory (Numba).
 *   printf                                 print(): Numba's formats (%lld,
 *                                          %llu, %f, %s), items joined by spaces
 *   UFN_BOUNDS(i, n, axis, "name") -> i    every array index (after Python's
 *                                          wrap of a negative one): the simulator
 *                                          reports an index outside [0, n)
 *   UFN_LOAD(T, p), UFN_STORE(T, p, v)     every element read and write, so that
 *                                          the simulator can check shared-memory
 *                                          races; for x += v take p once:
 *                                          UFN_STORE(T, p, UFN_LOAD(T, p) + v)
 *
 * Under nvcc the checks are nothing.  The host backend's fiber form is this
 * same file compiled once more as C with UFN_HOST_ENTRY defined: no checks,
 * and every kernel named UFN_KNAME(name) gets the suffix __host, so that both
 * C builds link into one object. */

#if defined(UFN_HOST_ENTRY)
#define UFN_KNAME(name) name##__host
#else
#define UFN_KNAME(name) name
#endif

#if defined(__CUDACC__)
#include <stdio.h>

#define UFN_JIT_KERNEL extern "C" __global__ void

#define UFN_SHARED_ARRAY(T, name, count, offset) __shared__ __align__(16) T name[count]
extern __shared__ __align__(16) unsigned char ufn_dyn_smem[];

UFN_DEVICE unsigned char *ufn_dyn_shared(void)
{
    return ufn_dyn_smem;
}

UFN_DEVICE uint32_t ufn_dyn_shared_bytes(void)
{
    uint32_t r;
    asm volatile("mov.u32 %0, %%dynamic_smem_size;" : "=r"(r));
    return r;
}

UFN_DEVICE int ufn_laneid(void)
{
    unsigned r;
    asm volatile("mov.u32 %0, %%laneid;" : "=r"(r));
    return (int)r;
}

UFN_DEVICE unsigned ufn_lanemask_lt(void)
{
    unsigned r;
    asm volatile("mov.u32 %0, %%lanemask_lt;" : "=r"(r));
    return r;
}

#define UFN_BOUNDS(i, n, axis, name) (i)
#define UFN_LOAD(T, p) (*(p))
#define UFN_STORE(T, p, v) (*(p) = (v))

#define ufn_syncthreads() __syncthreads()
#define ufn_syncthreads_count(p) __syncthreads_count(p)
#define ufn_syncthreads_and(p) __syncthreads_and(p)
#define ufn_syncthreads_or(p) __syncthreads_or(p)
#define ufn_syncwarp(mask) __syncwarp(mask)
#define ufn_threadfence() __threadfence()
#define ufn_threadfence_block() __threadfence_block()
#define ufn_threadfence_system() __threadfence_system()
#define ufn_ballot_sync(mask, p) __ballot_sync((mask), (p))
#define ufn_all_sync(mask, p) __all_sync((mask), (p))
#define ufn_any_sync(mask, p) __any_sync((mask), (p))
#define ufn_activemask() __activemask()

#define UFN_SHUFFLES(T, S)                                                              \
    UFN_DEVICE T ufn_shfl_sync_##S(unsigned m, T v, int lane) { return __shfl_sync(m, v, lane); } \
    UFN_DEVICE T ufn_shfl_up_sync_##S(unsigned m, T v, unsigned d) { return __shfl_up_sync(m, v, d); } \
    UFN_DEVICE T ufn_shfl_down_sync_##S(unsigned m, T v, unsigned d) { return __shfl_down_sync(m, v, d); } \
    UFN_DEVICE T ufn_shfl_xor_sync_##S(unsigned m, T v, int x) { return __shfl_xor_sync(m, v, x); }
UFN_SHUFFLES(int32_t, i32)
UFN_SHUFFLES(int64_t, i64)
UFN_SHUFFLES(uint32_t, u32)
UFN_SHUFFLES(uint64_t, u64)
UFN_SHUFFLES(float, f32)
UFN_SHUFFLES(double, f64)
#undef UFN_SHUFFLES

/* Integer atomics through CUDA's int, unsigned, long long and unsigned long
 * long forms (two's complement: add and sub of int64 are the unsigned ones). */
#define UFN_ATOMICS_INT(T, S, U)                                                        \
    UFN_DEVICE T ufn_atomic_add_##S(T *p, T v) { return (T)atomicAdd((U *)p, (U)v); }   \
    UFN_DEVICE T ufn_atomic_sub_##S(T *p, T v) { return (T)atomicAdd((U *)p, (U)0 - (U)v); } \
    UFN_DEVICE T ufn_atomic_and_##S(T *p, T v) { return (T)atomicAnd((U *)p, (U)v); }   \
    UFN_DEVICE T ufn_atomic_or_##S(T *p, T v) { return (T)atomicOr((U *)p, (U)v); }     \
    UFN_DEVICE T ufn_atomic_xor_##S(T *p, T v) { return (T)atomicXor((U *)p, (U)v); }   \
    UFN_DEVICE T ufn_atomic_exch_##S(T *p, T v) { return (T)atomicExch((U *)p, (U)v); } \
    UFN_DEVICE T ufn_atomic_cas_##S(T *p, T c, T v) { return (T)atomicCAS((U *)p, (U)c, (U)v); }
UFN_ATOMICS_INT(int32_t, i32, unsigned int)
UFN_ATOMICS_INT(uint32_t, u32, unsigned int)
UFN_ATOMICS_INT(int64_t, i64, unsigned long long)
UFN_ATOMICS_INT(uint64_t, u64, unsigned long long)
#undef UFN_ATOMICS_INT

UFN_DEVICE int32_t ufn_atomic_max_i32(int32_t *p, int32_t v) { return atomicMax((int *)p, (int)v); }
UFN_DEVICE int32_t ufn_atomic_min_i32(int32_t *p, int32_t v) { return atomicMin((int *)p, (int)v); }
UFN_DEVICE uint32_t ufn_atomic_max_u32(uint32_t *p, uint32_t v) { return atomicMax((unsigned *)p, v); }
UFN_DEVICE uint32_t ufn_atomic_min_u32(uint32_t *p, uint32_t v) { return atomicMin((unsigned *)p, v); }
UFN_DEVICE int64_t ufn_atomic_max_i64(int64_t *p, int64_t v) { return atomicMax((long long *)p, (long long)v); }
UFN_DEVICE int64_t ufn_atomic_min_i64(int64_t *p, int64_t v) { return atomicMin((long long *)p, (long long)v); }
UFN_DEVICE uint64_t ufn_atomic_max_u64(uint64_t *p, uint64_t v)
{
    return atomicMax((unsigned long long *)p, (unsigned long long)v);
}
UFN_DEVICE uint64_t ufn_atomic_min_u64(uint64_t *p, uint64_t v)
{
    return atomicMin((unsigned long long *)p, (unsigned long long)v);
}
UFN_DEVICE uint32_t ufn_atomic_inc_u32(uint32_t *p, uint32_t v) { return atomicInc((unsigned *)p, v); }
UFN_DEVICE uint32_t ufn_atomic_dec_u32(uint32_t *p, uint32_t v) { return atomicDec((unsigned *)p, v); }
UFN_DEVICE uint64_t ufn_atomic_inc_u64(uint64_t *p, uint64_t v)
{
    unsigned long long *q = (unsigned long long *)p, old = *q, seen;
    do {
        seen = old;
        old = atomicCAS(q, seen, seen >= v ? 0ull : seen + 1);
    } while (old != seen);
    return old;
}
UFN_DEVICE uint64_t ufn_atomic_dec_u64(uint64_t *p, uint64_t v)
{
    unsigned long long *q = (unsigned long long *)p, old = *q, seen;
    do {
        seen = old;
        old = atomicCAS(q, seen, seen == 0 || seen > v ? (unsigned long long)v : seen - 1);
    } while (old != seen);
    return old;
}

UFN_DEVICE float ufn_atomic_add_f32(float *p, float v) { return atomicAdd(p, v); }
UFN_DEVICE float ufn_atomic_sub_f32(float *p, float v) { return atomicAdd(p, -v); }
UFN_DEVICE double ufn_atomic_add_f64(double *p, double v) { return atomicAdd(p, v); }
UFN_DEVICE double ufn_atomic_sub_f64(double *p, double v) { return atomicAdd(p, -v); }

/* Float max/min: a compare-and-swap loop that stores only when the rule
 * says so (op: 2 max, 3 min, 4 nanmax, 5 nanmin, as in ufn_sim.h). */
#define UFN_ATOMIC_FMINMAX(T, U, S, TOBITS, FROMBITS)                                   \
    UFN_DEVICE T ufn_atomic_fop_##S(T *p, T v, int op)                                  \
    {                                                                                   \
        U *q = (U *)p, old = *q, seen;                                                  \
        do {                                                                            \
            seen = old;                                                                 \
            T o = FROMBITS(seen);                                                       \
            bool store = op == 2   ? o < v                                              \
                         : op == 3 ? v < o                                              \
                         : op == 4 ? v == v && (o != o || v > o)                        \
                                   : v == v && (o != o || v < o);                       \
            if (!store)                                                                 \
                return o;                                                               \
            old = atomicCAS(q, seen, TOBITS(v));                                        \
        } while (old != seen);                                                          \
        return FROMBITS(old);                                                           \
    }                                                                                   \
    UFN_DEVICE T ufn_atomic_max_##S(T *p, T v) { return ufn_atomic_fop_##S(p, v, 2); }  \
    UFN_DEVICE T ufn_atomic_min_##S(T *p, T v) { return ufn_atomic_fop_##S(p, v, 3); }  \
    UFN_DEVICE T ufn_atomic_nanmax_##S(T *p, T v) { return ufn_atomic_fop_##S(p, v, 4); } \
    UFN_DEVICE T ufn_atomic_nanmin_##S(T *p, T v) { return ufn_atomic_fop_##S(p, v, 5); }
UFN_ATOMIC_FMINMAX(float, unsigned int, f32, __float_as_uint, __uint_as_float)
UFN_DEVICE unsigned long long ufn_f64_bits(double x) { return (unsigned long long)__double_as_longlong(x); }
UFN_DEVICE double ufn_bits_f64(unsigned long long u) { return __longlong_as_double((long long)u); }
UFN_ATOMIC_FMINMAX(double, unsigned long long, f64, ufn_f64_bits, ufn_bits_f64)
#undef UFN_ATOMIC_FMINMAX
#else
#define UFN_JIT_KERNEL void
#endif /* __CUDACC__ */

#endif /* UFN_KERNEL_H */
