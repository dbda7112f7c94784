/* ufn_sim.h - CUDA's built-ins for a generated .cu compiled as C11.
 *
 * The simulator backend runs the kernels of a generated polar.cu on the CPU:
 * the host compiler builds the very same file as C11 (cc -x c -std=c11), and
 * ufn_kernel.h includes this header instead of CUDA's.  It stands in for what
 * generated device code may use:
 *
 *   - the qualifiers __global__, __device__, __host__, __forceinline__,
 *     __noinline__, __launch_bounds__(...), __restrict__, __constant__,
 *     __grid_constant__, __align__(n);
 *   - uint3/dim3 and threadIdx, blockIdx, blockDim, gridDim, warpSize: the
 *     four variables are thread-local, defined in libufnrt (sim/simt.c), and
 *     set by the thread engine before it runs each thread;
 *   - the vector types (char1..4 to double1..2, longlong, ulonglong) with
 *     CUDA's sizes and alignments, and their make_* constructors;
 *   - __ldg (a plain load), the bit-cast and integer intrinsics
 *     (__float_as_int, __double_as_longlong, __popc, __clz, __umulhi, ...);
 *   - <math.h>, <stdint.h>, <string.h> (memcpy), <stdbool.h>, <stdio.h>
 *     (printf, for print);
 *   - the device API of @cuda.jit kernels (ufn_kernel.h lists it): shared
 *     memory, barriers, warp functions, atomics, fences and the checks, as
 *     calls into libufnrt's thread engine (runtime/sim/simt.c), which runs
 *     the threads of a block as fibers when a kernel uses barriers or warp
 *     functions.
 *
 * CUDA's own spellings of shared memory and barriers (__shared__,
 * __syncthreads) are left undefined on purpose: generated code uses the
 * ufn_ names, which carry the .ufn line to the checks.
 *
 * The checks (bounds, shared-memory races, barriers; compute-sanitizer's
 * memcheck, racecheck and synccheck) are compiled in unless UFN_CHECKS is
 * defined to 0 before this header (the host backend's fiber form is
 * compiled so), and UFN_SIM_CHECK=0 turns them off at run time.
 */
#ifndef UFN_SIM_H
#define UFN_SIM_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define UFN_SIM 1   /* compiled for the simulator */

/* ---- qualifiers ---------------------------------------------------------- */

#define __global__
#define __device__
#define __host__
#define __constant__
#define __grid_constant__
#define __forceinline__ inline
#define __noinline__ __attribute__((noinline))
#define __launch_bounds__(...)
#define __restrict__ restrict
#define __align__(n) __attribute__((aligned(n)))

/* ---- thread coordinates ---------------------------------------------------- */

typedef struct uint3 {
    unsigned int x, y, z;
} uint3;
typedef uint3 dim3;

#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif
extern _Thread_local uint3 ufn_sim_threadIdx;
extern _Thread_local uint3 ufn_sim_blockIdx;
extern _Thread_local dim3 ufn_sim_blockDim;
extern _Thread_local dim3 ufn_sim_gridDim;
#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#define threadIdx ufn_sim_threadIdx
#define blockIdx ufn_sim_blockIdx
#define blockDim ufn_sim_blockDim
#define gridDim ufn_sim_gridDim
#define warpSize 32

/* ---- vector types ---------------------------------------------------------- *
 * Sizes and alignments as in CUDA's vector_types.h: a 2- or 4-element vector
 * is aligned to its size (at most 16), a 1- or 3-element one like its
 * element. */

#define UFN_SIM_VEC1(T, name)                                                       \
    typedef struct name { T x; } name;                                          \
    static inline name make_##name(T x)                                         \
    {                                                                           \
        name v = { x };                                                         \
        return v;                                                               \
    }
#define UFN_SIM_VEC2(T, name)                                                       \
    typedef struct name { _Alignas(2 * sizeof(T)) T x; T y; } name;             \
    static inline name make_##name(T x, T y)                                    \
    {                                                                           \
        name v = { x, y };                                                      \
        return v;                                                               \
    }
#define UFN_SIM_VEC3(T, name)                                                       \
    typedef struct name { T x, y, z; } name;                                    \
    static inline name make_##name(T x, T y, T z)                               \
    {                                                                           \
        name v = { x, y, z };                                                   \
        return v;                                                               \
    }
#define UFN_SIM_VEC4(T, name, align)                                                \
    typedef struct name { _Alignas(align) T x; T y, z, w; } name;               \
    static inline name make_##name(T x, T y, T z, T w)                          \
    {                                                                           \
        name v = { x, y, z, w };                                                \
        return v;                                                               \
    }

UFN_SIM_VEC1(signed char, char1)
UFN_SIM_VEC2(signed char, char2)
UFN_SIM_VEC3(signed char, char3)
UFN_SIM_VEC4(signed char, char4, 4)
UFN_SIM_VEC1(unsigned char, uchar1)
UFN_SIM_VEC2(unsigned char, uchar2)
UFN_SIM_VEC3(unsigned char, uchar3)
UFN_SIM_VEC4(unsigned char, uchar4, 4)
UFN_SIM_VEC1(short, short1)
UFN_SIM_VEC2(short, short2)
UFN_SIM_VEC3(short, short3)
UFN_SIM_VEC4(short, short4, 8)
UFN_SIM_VEC1(unsigned short, ushort1)
UFN_SIM_VEC2(unsigned short, ushort2)
UFN_SIM_VEC3(unsigned short, ushort3)
UFN_SIM_VEC4(unsigned short, ushort4, 8)
UFN_SIM_VEC1(int, int1)
UFN_SIM_VEC2(int, int2)
UFN_SIM_VEC3(int, int3)
UFN_SIM_VEC4(int, int4, 16)
UFN_SIM_VEC1(unsigned int, uint1)
UFN_SIM_VEC2(unsigned int, uint2)
UFN_SIM_VEC4(unsigned int, uint4, 16)
UFN_SIM_VEC1(long long, longlong1)
UFN_SIM_VEC2(long long, longlong2)
UFN_SIM_VEC1(unsigned long long, ulonglong1)
UFN_SIM_VEC2(unsigned long long, ulonglong2)
UFN_SIM_VEC1(float, float1)
UFN_SIM_VEC2(float, float2)
UFN_SIM_VEC3(float, float3)
UFN_SIM_VEC4(float, float4, 16)
UFN_SIM_VEC1(double, double1)
UFN_SIM_VEC2(double, double2)

static inline uint3 make_uint3(unsigned int x, unsigned int y, unsigned int z)
{
    uint3 v = { x, y, z };
    return v;
}

#undef UFN_SIM_VEC1
#undef UFN_SIM_VEC2
#undef UFN_SIM_VEC3
#undef UFN_SIM_VEC4

/* ---- loads and intrinsics ----------------------------------------------------- */

/* A load through the read-only data path: here, a load. */
#define __ldg(p) (*(p))

static inline int __float_as_int(float x)
{
    int i;
    memcpy(&i, &x, sizeof i);
    return i;
}

static inline unsigned int __float_as_uint(float x)
{
    unsigned int i;
    memcpy(&i, &x, sizeof i);
    return i;
}

static inline float __int_as_float(int i)
{
    float x;
    memcpy(&x, &i, sizeof x);
    return x;
}

static inline float __uint_as_float(unsigned int i)
{
    float x;
    memcpy(&x, &i, sizeof x);
    return x;
}

static inline long long __double_as_longlong(double x)
{
    long long i;
    memcpy(&i, &x, sizeof i);
    return i;
}

static inline double __longlong_as_double(long long i)
{
    double x;
    memcpy(&x, &i, sizeof x);
    return x;
}

static inline int __double2hiint(double x)
{
    return (int)((unsigned long long)__double_as_longlong(x) >> 32);
}

static inline int __double2loint(double x)
{
    return (int)(unsigned int)(unsigned long long)__double_as_longlong(x);
}

static inline double __hiloint2double(int hi, int lo)
{
    unsigned long long u = ((unsigned long long)(unsigned int)hi << 32) | (unsigned int)lo;
    return __longlong_as_double((long long)u);
}

static inline int __popc(unsigned int x)
{
    return __builtin_popcount(x);
}

static inline int __popcll(unsigned long long x)
{
    return __builtin_popcountll(x);
}

static inline int __clz(int x)
{
    return x == 0 ? 32 : __builtin_clz((unsigned int)x);
}

static inline int __clzll(long long x)
{
    return x == 0 ? 64 : __builtin_clzll((unsigned long long)x);
}

static inline int __ffs(int x)
{
    return __builtin_ffs(x);
}

static inline int __ffsll(long long x)
{
    return __builtin_ffsll(x);
}

static inline unsigned int __brev(unsigned int x)
{
    x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
    x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
    x = ((x >> 4) & 0x0f0f0f0fu) | ((x & 0x0f0f0f0fu) << 4);
    x = ((x >> 8) & 0x00ff00ffu) | ((x & 0x00ff00ffu) << 8);
    return (x >> 16) | (x << 16);
}

static inline unsigned int __umulhi(unsigned int a, unsigned int b)
{
    return (unsigned int)(((unsigned long long)a * b) >> 32);
}

static inline int __mulhi(int a, int b)
{
    return (int)(((long long)a * b) >> 32);
}

__extension__ typedef unsigned __int128 ufn_sim_u128;
__extension__ typedef __int128 ufn_sim_i128;

static inline unsigned long long __umul64hi(unsigned long long a, unsigned long long b)
{
    return (unsigned long long)(((ufn_sim_u128)a * b) >> 64);
}

static inline long long __mul64hi(long long a, long long b)
{
    return (long long)(((ufn_sim_i128)a * b) >> 64);
}

static inline float __saturatef(float x)
{
    return x >= 1.0f ? 1.0f : x > 0.0f ? x : 0.0f;   /* NaN gives 0, as on the GPU */
}

static inline float __fdividef(float a, float b)
{
    return a / b;
}

/* ==== @cuda.jit kernels: the device API in C ==================================== *
 * ufn_kernel.h documents each name; here is how the simulator and the host
 * backend's fiber form provide them.  Calls that wait for other threads, and
 * every check, take the call site (__FILE__, __LINE__: the .ufn line, through
 * the #line directives of generated code) so that a report can name it.
 * Everything the engine defines is in libufnrt. */

#ifndef UFN_CHECKS
#define UFN_CHECKS 1
#endif

#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

/* The running block's shared memory: static arrays at the offsets the
 * compiler chose, dynamic shared memory after them. */
extern _Thread_local unsigned char *ufn_sim_smem;

/* The bytes of shared memory the race detector watches ([lo, lo + size);
 * size 0 when it is off), so that a check costs one comparison. */
typedef struct ufn_sim_range {
    uintptr_t lo;
    uintptr_t size;
} ufn_sim_range;
extern _Thread_local ufn_sim_range ufn_sim_watch;

/* Barriers: op UFN_SIM_BAR (plain), _COUNT, _AND, _OR; returns the count or
 * the predicate's and/or over the block (0 for a plain barrier). */
enum { UFN_SIM_BAR, UFN_SIM_BAR_COUNT, UFN_SIM_BAR_AND, UFN_SIM_BAR_OR };
int ufn_sim_barrier(int op, int pred, const char *file, int line);

/* Warp functions: every lane of `mask` meets the others at the call and
 * gets its result from all of their values (64 bits, the value's bytes). */
enum {
    UFN_SIM_SHFL, UFN_SIM_SHFL_UP, UFN_SIM_SHFL_DOWN, UFN_SIM_SHFL_XOR,
    UFN_SIM_BALLOT, UFN_SIM_ALL, UFN_SIM_ANY, UFN_SIM_SYNCWARP
};
uint64_t ufn_sim_warp(int op, unsigned mask, uint64_t value, unsigned arg, const char *file,
                      int line);
unsigned ufn_sim_activemask_at(const char *file, int line);

unsigned char *ufn_sim_dyn_shared(void);
uint32_t ufn_sim_dyn_shared_bytes(void);

/* Report an out-of-bounds index and stop the launch (returns only when the
 * checks are off), and record an access of shared memory for the race
 * detector (UFN_ACCESS_READ 0, WRITE 1, ATOMIC 2 of simt.h). */
void ufn_sim_out_of_bounds(int64_t i, int64_t n, int axis, const char *name, const char *file,
                           int line);
void ufn_sim_access(const void *p, size_t bytes, int kind, const char *file, int line);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#define UFN_SIM_SITE __FILE__, __LINE__

/* ---- thread coordinates -------------------------------------------------------- */

static inline int ufn_sim_laneid(void)
{
    return (int)((threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)) & 31u);
}
#define ufn_laneid() ufn_sim_laneid()

/* ---- shared memory ----------------------------------------------------------------- */

#define UFN_SHARED_ARRAY(T, name, count, offset) T *const name = (T *)(ufn_sim_smem + (offset))
#define ufn_dyn_shared() ufn_sim_dyn_shared()
#define ufn_dyn_shared_bytes() ufn_sim_dyn_shared_bytes()

/* ---- checks ------------------------------------------------------------------------ */

#if UFN_CHECKS
static inline int64_t ufn_sim_bounds(int64_t i, int64_t n, int axis, const char *name,
                                     const char *file, int line)
{
    if (__builtin_expect((uint64_t)i >= (uint64_t)n, 0))
        ufn_sim_out_of_bounds(i, n, axis, name, file, line);
    return i;
}

static inline void *ufn_sim_touch(const void *p, size_t bytes, int kind, const char *file,
                                  int line)
{
    if (__builtin_expect((uintptr_t)p - ufn_sim_watch.lo < ufn_sim_watch.size, 0))
        ufn_sim_access(p, bytes, kind, file, line);
    return (void *)(uintptr_t)p;
}

#define UFN_BOUNDS(i, n, axis, name) ufn_sim_bounds((i), (n), (axis), (name), UFN_SIM_SITE)
#define UFN_LOAD(T, p) (*(const T *)ufn_sim_touch((p), sizeof(T), 0, UFN_SIM_SITE))
#define UFN_STORE(T, p, v) (*(T *)ufn_sim_touch((p), sizeof(T), 1, UFN_SIM_SITE) = (v))
#define UFN_SIM_ATOMIC_TOUCH(p, file, line) ufn_sim_touch((p), sizeof *(p), 2, file, line)
#else
#define UFN_BOUNDS(i, n, axis, name) (i)
#define UFN_LOAD(T, p) (*(p))
#define UFN_STORE(T, p, v) (*(p) = (v))
#define UFN_SIM_ATOMIC_TOUCH(p, file, line) ((void)(file), (void)(line))
#endif

/* ---- barriers and fences ------------------------------------------------------------- */

#define ufn_syncthreads() ((void)ufn_sim_barrier(UFN_SIM_BAR, 0, UFN_SIM_SITE))
#define ufn_syncthreads_count(p) ufn_sim_barrier(UFN_SIM_BAR_COUNT, (p) != 0, UFN_SIM_SITE)
#define ufn_syncthreads_and(p) ufn_sim_barrier(UFN_SIM_BAR_AND, (p) != 0, UFN_SIM_SITE)
#define ufn_syncthreads_or(p) ufn_sim_barrier(UFN_SIM_BAR_OR, (p) != 0, UFN_SIM_SITE)
#define ufn_syncwarp(mask) ((void)ufn_sim_warp(UFN_SIM_SYNCWARP, (mask), 0, 0, UFN_SIM_SITE))
#define ufn_threadfence() __atomic_thread_fence(__ATOMIC_SEQ_CST)
#define ufn_threadfence_block() __atomic_thread_fence(__ATOMIC_SEQ_CST)
#define ufn_threadfence_system() __atomic_thread_fence(__ATOMIC_SEQ_CST)

/* ---- warp functions -------------------------------------------------------------------- */

#define ufn_ballot_sync(mask, p) ((unsigned)ufn_sim_warp(UFN_SIM_BALLOT, (mask), (p) != 0, 0, UFN_SIM_SITE))
#define ufn_all_sync(mask, p) ((int)ufn_sim_warp(UFN_SIM_ALL, (mask), (p) != 0, 0, UFN_SIM_SITE))
#define ufn_any_sync(mask, p) ((int)ufn_sim_warp(UFN_SIM_ANY, (mask), (p) != 0, 0, UFN_SIM_SITE))
#define ufn_activemask() ufn_sim_activemask_at(UFN_SIM_SITE)

static inline unsigned ufn_sim_lanemask_lt(void)
{
    return (1u << ufn_sim_laneid()) - 1u;
}
#define ufn_lanemask_lt() ufn_sim_lanemask_lt()

/* The shuffles of one type S (T its C type): the value travels as its bytes. */
#define UFN_SIM_SHUFFLES(T, S)                                                          \
    static inline T ufn_sim_shfl_##S(int op, unsigned mask, T v, unsigned arg,          \
                                     const char *file, int line)                        \
    {                                                                                   \
        uint64_t bits = 0;                                                              \
        memcpy(&bits, &v, sizeof v);                                                    \
        bits = ufn_sim_warp(op, mask, bits, arg, file, line);                           \
        memcpy(&v, &bits, sizeof v);                                                    \
        return v;                                                                       \
    }
UFN_SIM_SHUFFLES(int32_t, i32)
UFN_SIM_SHUFFLES(int64_t, i64)
UFN_SIM_SHUFFLES(uint32_t, u32)
UFN_SIM_SHUFFLES(uint64_t, u64)
UFN_SIM_SHUFFLES(float, f32)
UFN_SIM_SHUFFLES(double, f64)
#undef UFN_SIM_SHUFFLES

#define UFN_SIM_SHFL_CALL(S, op, mask, v, arg) ufn_sim_shfl_##S(op, (mask), (v), (unsigned)(arg), UFN_SIM_SITE)
#define ufn_shfl_sync_i32(m, v, l) UFN_SIM_SHFL_CALL(i32, UFN_SIM_SHFL, m, v, l)
#define ufn_shfl_sync_i64(m, v, l) UFN_SIM_SHFL_CALL(i64, UFN_SIM_SHFL, m, v, l)
#define ufn_shfl_sync_u32(m, v, l) UFN_SIM_SHFL_CALL(u32, UFN_SIM_SHFL, m, v, l)
#define ufn_shfl_sync_u64(m, v, l) UFN_SIM_SHFL_CALL(u64, UFN_SIM_SHFL, m, v, l)
#define ufn_shfl_sync_f32(m, v, l) UFN_SIM_SHFL_CALL(f32, UFN_SIM_SHFL, m, v, l)
#define ufn_shfl_sync_f64(m, v, l) UFN_SIM_SHFL_CALL(f64, UFN_SIM_SHFL, m, v, l)
#define ufn_shfl_up_sync_i32(m, v, d) UFN_SIM_SHFL_CALL(i32, UFN_SIM_SHFL_UP, m, v, d)
#define ufn_shfl_up_sync_i64(m, v, d) UFN_SIM_SHFL_CALL(i64, UFN_SIM_SHFL_UP, m, v, d)
#define ufn_shfl_up_sync_u32(m, v, d) UFN_SIM_SHFL_CALL(u32, UFN_SIM_SHFL_UP, m, v, d)
#define ufn_shfl_up_sync_u64(m, v, d) UFN_SIM_SHFL_CALL(u64, UFN_SIM_SHFL_UP, m, v, d)
#define ufn_shfl_up_sync_f32(m, v, d) UFN_SIM_SHFL_CALL(f32, UFN_SIM_SHFL_UP, m, v, d)
#define ufn_shfl_up_sync_f64(m, v, d) UFN_SIM_SHFL_CALL(f64, UFN_SIM_SHFL_UP, m, v, d)
#define ufn_shfl_down_sync_i32(m, v, d) UFN_SIM_SHFL_CALL(i32, UFN_SIM_SHFL_DOWN, m, v, d)
#define ufn_shfl_down_sync_i64(m, v, d) UFN_SIM_SHFL_CALL(i64, UFN_SIM_SHFL_DOWN, m, v, d)
#define ufn_shfl_down_sync_u32(m, v, d) UFN_SIM_SHFL_CALL(u32, UFN_SIM_SHFL_DOWN, m, v, d)
#define ufn_shfl_down_sync_u64(m, v, d) UFN_SIM_SHFL_CALL(u64, UFN_SIM_SHFL_DOWN, m, v, d)
#define ufn_shfl_down_sync_f32(m, v, d) UFN_SIM_SHFL_CALL(f32, UFN_SIM_SHFL_DOWN, m, v, d)
#define ufn_shfl_down_sync_f64(m, v, d) UFN_SIM_SHFL_CALL(f64, UFN_SIM_SHFL_DOWN, m, v, d)
#define ufn_shfl_xor_sync_i32(m, v, x) UFN_SIM_SHFL_CALL(i32, UFN_SIM_SHFL_XOR, m, v, x)
#define ufn_shfl_xor_sync_i64(m, v, x) UFN_SIM_SHFL_CALL(i64, UFN_SIM_SHFL_XOR, m, v, x)
#define ufn_shfl_xor_sync_u32(m, v, x) UFN_SIM_SHFL_CALL(u32, UFN_SIM_SHFL_XOR, m, v, x)
#define ufn_shfl_xor_sync_u64(m, v, x) UFN_SIM_SHFL_CALL(u64, UFN_SIM_SHFL_XOR, m, v, x)
#define ufn_shfl_xor_sync_f32(m, v, x) UFN_SIM_SHFL_CALL(f32, UFN_SIM_SHFL_XOR, m, v, x)
#define ufn_shfl_xor_sync_f64(m, v, x) UFN_SIM_SHFL_CALL(f64, UFN_SIM_SHFL_XOR, m, v, x)

/* ---- atomics ------------------------------------------------------------------------------ *
 * Relaxed, as Numba's; each returns the old value.  Integers use the
 * compiler's __atomic built-ins (two's complement wrap-around); everything
 * else is a compare-and-swap loop on the value's bits. */

#define UFN_SIM_ATOMIC_INT(T, S)                                                        \
    static inline T ufn_sim_atomic_add_##S(T *p, T v, const char *f, int l)             \
    { UFN_SIM_ATOMIC_TOUCH(p, f, l); return __atomic_fetch_add(p, v, __ATOMIC_RELAXED); } \
    static inline T ufn_sim_atomic_sub_##S(T *p, T v, const char *f, int l)             \
    { UFN_SIM_ATOMIC_TOUCH(p, f, l); return __atomic_fetch_sub(p, v, __ATOMIC_RELAXED); } \
    static inline T ufn_sim_atomic_and_##S(T *p, T v, const char *f, int l)             \
    { UFN_SIM_ATOMIC_TOUCH(p, f, l); return __atomic_fetch_and(p, v, __ATOMIC_RELAXED); } \
    static inline T ufn_sim_atomic_or_##S(T *p, T v, const char *f, int l)              \
    { UFN_SIM_ATOMIC_TOUCH(p, f, l); return __atomic_fetch_or(p, v, __ATOMIC_RELAXED); }  \
    static inline T ufn_sim_atomic_xor_##S(T *p, T v, const char *f, int l)             \
    { UFN_SIM_ATOMIC_TOUCH(p, f, l); return __atomic_fetch_xor(p, v, __ATOMIC_RELAXED); } \
    static inline T ufn_sim_atomic_exch_##S(T *p, T v, const char *f, int l)            \
    { UFN_SIM_ATOMIC_TOUCH(p, f, l); return __atomic_exchange_n(p, v, __ATOMIC_RELAXED); } \
    static inline T ufn_sim_atomic_cas_##S(T *p, T cmp, T v, const char *f, int l)      \
    {                                                                                   \
        UFN_SIM_ATOMIC_TOUCH(p, f, l);                                                  \
        __atomic_compare_exchange_n(p, &cmp, v, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED); \
        return cmp;                                                                     \
    }                                                                                   \
    static inline T ufn_sim_atomic_max_##S(T *p, T v, const char *f, int l)             \
    {                                                                                   \
        UFN_SIM_ATOMIC_TOUCH(p, f, l);                                                  \
        T old = __atomic_load_n(p, __ATOMIC_RELAXED);                                   \
        while (old < v && !__atomic_compare_exchange_n(p, &old, v, 1, __ATOMIC_RELAXED, \
                                                        __ATOMIC_RELAXED))              \
            ;                                                                           \
        return old;                                                                     \
    }                                                                                   \
    static inline T ufn_sim_atomic_min_##S(T *p, T v, const char *f, int l)             \
    {                                                                                   \
        UFN_SIM_ATOMIC_TOUCH(p, f, l);                                                  \
        T old = __atomic_load_n(p, __ATOMIC_RELAXED);                                   \
        while (v < old && !__atomic_compare_exchange_n(p, &old, v, 1, __ATOMIC_RELAXED, \
                                                        __ATOMIC_RELAXED))              \
            ;                                                                           \
        return old;                                                                     \
    }
UFN_SIM_ATOMIC_INT(int32_t, i32)
UFN_SIM_ATOMIC_INT(int64_t, i64)
UFN_SIM_ATOMIC_INT(uint32_t, u32)
UFN_SIM_ATOMIC_INT(uint64_t, u64)
#undef UFN_SIM_ATOMIC_INT

/* inc: 0 when old >= v, else old + 1; dec: v when old == 0 or old > v, else
 * old - 1 (CUDA's atomicInc/atomicDec). */
#define UFN_SIM_ATOMIC_INCDEC(T, S)                                                     \
    static inline T ufn_sim_atomic_inc_##S(T *p, T v, const char *f, int l)             \
    {                                                                                   \
        UFN_SIM_ATOMIC_TOUCH(p, f, l);                                                  \
        T old = __atomic_load_n(p, __ATOMIC_RELAXED);                                   \
        while (!__atomic_compare_exchange_n(p, &old, old >= v ? 0 : old + 1, 1,         \
                                            __ATOMIC_RELAXED, __ATOMIC_RELAXED))        \
            ;                                                                           \
        return old;                                                                     \
    }                                                                                   \
    static inline T ufn_sim_atomic_dec_##S(T *p, T v, const char *f, int l)             \
    {                                                                                   \
        UFN_SIM_ATOMIC_TOUCH(p, f, l);                                                  \
        T old = __atomic_load_n(p, __ATOMIC_RELAXED);                                   \
        while (!__atomic_compare_exchange_n(p, &old, old == 0 || old > v ? v : old - 1, \
                                            1, __ATOMIC_RELAXED, __ATOMIC_RELAXED))     \
            ;                                                                           \
        return old;                                                                     \
    }
UFN_SIM_ATOMIC_INCDEC(uint32_t, u32)
UFN_SIM_ATOMIC_INCDEC(uint64_t, u64)
#undef UFN_SIM_ATOMIC_INCDEC

/* Floats: add, sub, exch, and max/min with Numba's rules (no store when
 * the value or the old one is NaN; nanmax/nanmin ignore a NaN value and
 * replace a NaN in memory). */
#define UFN_SIM_ATOMIC_FLOAT(T, U, S)                                                   \
    static inline T ufn_sim_fl_##S(U u) { T x; memcpy(&x, &u, sizeof x); return x; }    \
    static inline U ufn_sim_fb_##S(T x) { U u; memcpy(&u, &x, sizeof u); return u; }    \
    /* op: 0 add, 1 exch, 2 max, 3 min, 4 nanmax, 5 nanmin */                           \
    static inline T ufn_sim_atomic_fop_##S(T *p, T v, int op, const char *f, int l)     \
    {                                                                                   \
        UFN_SIM_ATOMIC_TOUCH(p, f, l);                                                  \
        U *q = (U *)p, oldb = __atomic_load_n(q, __ATOMIC_RELAXED);                     \
        for (;;) {                                                                      \
            T old = ufn_sim_fl_##S(oldb), nv;                                           \
            switch (op) {                                                               \
            case 0: nv = old + v; break;                                                \
            case 1: nv = v; break;                                                      \
            case 2: if (!(old < v)) return old; nv = v; break;                          \
            case 3: if (!(v < old)) return old; nv = v; break;                          \
            case 4: if (v != v || !(old != old || v > old)) return old; nv = v; break;  \
            default: if (v != v || !(old != old || v < old)) return old; nv = v; break; \
            }                                                                           \
            if (__atomic_compare_exchange_n(q, &oldb, ufn_sim_fb_##S(nv), 1,            \
                                            __ATOMIC_RELAXED, __ATOMIC_RELAXED))        \
                return old;                                                             \
        }                                                                               \
    }
UFN_SIM_ATOMIC_FLOAT(float, uint32_t, f32)
UFN_SIM_ATOMIC_FLOAT(double, uint64_t, f64)
#undef UFN_SIM_ATOMIC_FLOAT

#define UFN_SIM_A2(op, S, p, v) ufn_sim_atomic_##op##_##S((p), (v), UFN_SIM_SITE)
#define UFN_SIM_AF(op, S, p, v) ufn_sim_atomic_fop_##S((p), (v), op, UFN_SIM_SITE)
#define ufn_atomic_add_i32(p, v) UFN_SIM_A2(add, i32, p, v)
#define ufn_atomic_add_i64(p, v) UFN_SIM_A2(add, i64, p, v)
#define ufn_atomic_add_u32(p, v) UFN_SIM_A2(add, u32, p, v)
#define ufn_atomic_add_u64(p, v) UFN_SIM_A2(add, u64, p, v)
#define ufn_atomic_add_f32(p, v) UFN_SIM_AF(0, f32, p, v)
#define ufn_atomic_add_f64(p, v) UFN_SIM_AF(0, f64, p, v)
#define ufn_atomic_sub_i32(p, v) UFN_SIM_A2(sub, i32, p, v)
#define ufn_atomic_sub_i64(p, v) UFN_SIM_A2(sub, i64, p, v)
#define ufn_atomic_sub_u32(p, v) UFN_SIM_A2(sub, u32, p, v)
#define ufn_atomic_sub_u64(p, v) UFN_SIM_A2(sub, u64, p, v)
#define ufn_atomic_sub_f32(p, v) UFN_SIM_AF(0, f32, p, -(v))
#define ufn_atomic_sub_f64(p, v) UFN_SIM_AF(0, f64, p, -(v))
#define ufn_atomic_max_i32(p, v) UFN_SIM_A2(max, i32, p, v)
#define ufn_atomic_max_i64(p, v) UFN_SIM_A2(max, i64, p, v)
#define ufn_atomic_max_u32(p, v) UFN_SIM_A2(max, u32, p, v)
#define ufn_atomic_max_u64(p, v) UFN_SIM_A2(max, u64, p, v)
#define ufn_atomic_max_f32(p, v) UFN_SIM_AF(2, f32, p, v)
#define ufn_atomic_max_f64(p, v) UFN_SIM_AF(2, f64, p, v)
#define ufn_atomic_min_i32(p, v) UFN_SIM_A2(min, i32, p, v)
#define ufn_atomic_min_i64(p, v) UFN_SIM_A2(min, i64, p, v)
#define ufn_atomic_min_u32(p, v) UFN_SIM_A2(min, u32, p, v)
#define ufn_atomic_min_u64(p, v) UFN_SIM_A2(min, u64, p, v)
#define ufn_atomic_min_f32(p, v) UFN_SIM_AF(3, f32, p, v)
#define ufn_atomic_min_f64(p, v) UFN_SIM_AF(3, f64, p, v)
#define ufn_atomic_nanmax_f32(p, v) UFN_SIM_AF(4, f32, p, v)
#define ufn_atomic_nanmax_f64(p, v) UFN_SIM_AF(4, f64, p, v)
#define ufn_atomic_nanmin_f32(p, v) UFN_SIM_AF(5, f32, p, v)
#define ufn_atomic_nanmin_f64(p, v) UFN_SIM_AF(5, f64, p, v)
#define ufn_atomic_exch_i32(p, v) UFN_SIM_A2(exch, i32, p, v)
#define ufn_atomic_exch_i64(p, v) UFN_SIM_A2(exch, i64, p, v)
#define ufn_atomic_exch_u32(p, v) UFN_SIM_A2(exch, u32, p, v)
#define ufn_atomic_exch_u64(p, v) UFN_SIM_A2(exch, u64, p, v)
#define ufn_atomic_and_i32(p, v) UFN_SIM_A2(and, i32, p, v)
#define ufn_atomic_and_i64(p, v) UFN_SIM_A2(and, i64, p, v)
#define ufn_atomic_and_u32(p, v) UFN_SIM_A2(and, u32, p, v)
#define ufn_atomic_and_u64(p, v) UFN_SIM_A2(and, u64, p, v)
#define ufn_atomic_or_i32(p, v) UFN_SIM_A2(or, i32, p, v)
#define ufn_atomic_or_i64(p, v) UFN_SIM_A2(or, i64, p, v)
#define ufn_atomic_or_u32(p, v) UFN_SIM_A2(or, u32, p, v)
#define ufn_atomic_or_u64(p, v) UFN_SIM_A2(or, u64, p, v)
#define ufn_atomic_xor_i32(p, v) UFN_SIM_A2(xor, i32, p, v)
#define ufn_atomic_xor_i64(p, v) UFN_SIM_A2(xor, i64, p, v)
#define ufn_atomic_xor_u32(p, v) UFN_SIM_A2(xor, u32, p, v)
#define ufn_atomic_xor_u64(p, v) UFN_SIM_A2(xor, u64, p, v)
#define ufn_atomic_inc_u32(p, v) UFN_SIM_A2(inc, u32, p, v)
#define ufn_atomic_inc_u64(p, v) UFN_SIM_A2(inc, u64, p, v)
#define ufn_atomic_dec_u32(p, v) UFN_SIM_A2(dec, u32, p, v)
#define ufn_atomic_dec_u64(p, v) UFN_SIM_A2(dec, u64, p, v)
#define ufn_atomic_cas_i32(p, c, v) ufn_sim_atomic_cas_i32((p), (c), (v), UFN_SIM_SITE)
#define ufn_atomic_cas_i64(p, c, v) ufn_sim_atomic_cas_i64((p), (c), (v), UFN_SIM_SITE)
#define ufn_atomic_cas_u32(p, c, v) ufn_sim_atomic_cas_u32((p), (c), (v), UFN_SIM_SITE)
#define ufn_atomic_cas_u64(p, c, v) ufn_sim_atomic_cas_u64((p), (c), (v), UFN_SIM_SITE)

#endif /* UFN_SIM_H */
