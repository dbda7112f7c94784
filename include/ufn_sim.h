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
 *     four variables are thread-local, defined in libufnrt (sim.c), and set
 *     by the simulated cuLaunchKernel before it calls each thread;
 *   - the vector types (char1..4 to double1..2, longlong, ulonglong) with
 *     CUDA's sizes and alignments, and their make_* constructors;
 *   - __ldg (a plain load), the bit-cast and integer intrinsics
 *     (__float_as_int, __double_as_longlong, __popc, __clz, __umulhi, ...);
 *   - <math.h>, <stdint.h>, <string.h> (memcpy), <stdbool.h>.
 *
 * Threads of a block run one after another, so kernels must not use shared
 * memory, barriers or warp functions: __shared__ and __syncthreads are left
 * undefined on purpose, and a kernel that uses them does not compile.
 */
#ifndef UFN_SIM_H
#define UFN_SIM_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
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

#endif /* UFN_SIM_H */
