/* ufn_libm_simd.h - how the vector variants of sin, cos, tan, exp and
 * atan2 for gcc's host loops are made (included by ufn_libm.h; the functions'
 * files instantiate them).
 *
 * A trigonometric function has a cheap path for ordinary arguments and an
 * expensive one (Payne-Hanek) for huge ones.  gcc vectorises a loop only by
 * computing both for every element, which made sin four times slower than
 * libmvec's.  libmvec's answer is a vector function that runs the cheap
 * path on all lanes and the expensive one only on the lanes that need it;
 * this is the same, for gcc on x86-64 (clang and nvcc take the plain
 * functions).  atan2 float32 uses it too: its rare part is the pairs with
 * a magnitude outside [2^-60, 2^60] or a zero (scaled, or a tiny result)
 * and the special cases; float64 exp also: its rare part is
 * the scaling of subnormal and overflowing results and the special cases.
 *
 *   ufn_sin_f32 etc. are declared with gcc's simd attribute, like math.h
 *   declares libmvec's sinf, so that a vectorised loop calls
 *   _ZGVeN16v_ufn_sin_f32 (AVX-512), _ZGVdN8v_ (AVX2), _ZGVcN8v_ (AVX) or
 *   _ZGVbN4v_ (SSE2) on a vector of arguments;
 *   those variants are defined by the macros below, instantiated in
 *   ufn_libm_trig.h, ufn_libm_exp.h and ufn_libm_atan.h, weak and hidden
 *   (every object that includes them defines the same ones): they run the
 *   function's _fast part in a loop that gcc vectorises, then its _big part
 *   on each lane whose argument needs it.  The scalar function (for scalar code) is the
 *   whole function.
 *
 * Every lane computes what the scalar function computes, with the same
 * operations in the same order: the bits are the same (tests/math/lanes.c
 * checks it on every ISA, with rare lanes mixed into the vectors).
 */
#ifndef UFN_LIBM_SIMD_H
#define UFN_LIBM_SIMD_H

#if !defined(__CUDACC__) && !defined(__cplusplus) && defined(__GNUC__) && !defined(__clang__) \
    && defined(__x86_64__) && defined(__ELF__) && defined(__OPTIMIZE__)                       \
    && !defined(UFN_FAST_MATH) && !defined(__FAST_MATH__)
#define UFN_LIBM_SIMD 1

#define UFN_LIBM_SIMD_SSE2   "sse2"
#define UFN_LIBM_SIMD_AVX    "avx"
#define UFN_LIBM_SIMD_AVX2   "avx2,fma"
#define UFN_LIBM_SIMD_AVX512 "avx512f,avx512dq,avx512vl,avx512bw,avx2,fma"

/* An integer as wide as a lane: the or-reduction of `rare` in a narrower
 * one made gcc vectorise the float64 loops at half width (AVX2: 2 lanes,
 * AVX-512: 4), as it does with any int32 beside float64 lanes. */
#define UFN_LIBM_SIMD_INT(T) __typeof__(_Generic((T)0, float: (uint32_t)0, double: (uint64_t)0))

/* One vector variant: N lanes of T, compiled for target ISA.  The _fast
 * loop is vectorised by gcc (it is the same C code as the scalar path), and
 * beside it a lane mask of the arguments that need _big; the _big loop runs
 * only when the mask is not all zero.  The lanes are read and written
 * through a union with the vector: with __builtin_memcpy gcc moved a
 * 256-bit vector through the stack in 64- and 128-bit pieces and read it
 * back whole, a failed store forwarding on every call, which made the AVX2
 * variants 2.5-3x slower than their arithmetic.  The mask is tested with one
 * instruction (any, below): an or-reduction of the lanes in C became five
 * shuffles and ors, and the _big loop's writes kept y in memory (float32
 * sin, AVX2: 0.76 to 0.68 ns an element with both gone). */
#define UFN_LIBM_SIMD_VARIANT(vname, isa, T, N, fast, big, ok, any)               \
    typedef T vname##_v __attribute__((vector_size((N) * sizeof(T))));            \
    typedef UFN_LIBM_SIMD_INT(T) vname##_m __attribute__((vector_size((N) * sizeof(T)))); \
    vname##_v vname(vname##_v v);                                                 \
    __attribute__((weak, visibility("hidden"), target(isa)))                      \
    vname##_v vname(vname##_v v)                                                  \
    {                                                                             \
        union { vname##_v v; T a[N]; } x, y;                                      \
        union { vname##_m v; UFN_LIBM_SIMD_INT(T) a[N]; } rare;                   \
        int i;                                                                    \
        x.v = v;                                                                  \
        _Pragma("GCC ivdep")                                                      \
        for (i = 0; i < (N); i++) {                                               \
            y.a[i] = fast(x.a[i]);                                                \
            rare.a[i] = 0u - (UFN_LIBM_SIMD_INT(T))!ok(x.a[i]);                   \
        }                                                                         \
        if (__builtin_expect(any(rare.v), 0)) {                                   \
            union { vname##_v v; T a[N]; } b;       /* y stays in a register */   \
            b.v = y.v;                                                            \
            for (i = 0; i < (N); i++)                                             \
                if (!ok(x.a[i]))                                                  \
                    b.a[i] = big(x.a[i]);                                         \
            return b.v;                                                           \
        }                                                                         \
        return y.v;                                                               \
    }

/* The same for a function of two arguments (atan2): ok and the parts
 * take both.  The lanes that fail ok are patched in a function of their
 * own, kept out of line: inline, its loop made the hot function save five
 * registers and store both argument vectors on every call (float32 atan2,
 * AVX2: about a fifth of its instructions). */
#define UFN_LIBM_SIMD_VARIANT2(vname, isa, T, N, fast, big, rare, any)              \
    typedef T vname##_v __attribute__((vector_size((N) * sizeof(T))));            \
    typedef UFN_LIBM_SIMD_INT(T) vname##_m __attribute__((vector_size((N) * sizeof(T)))); \
    __attribute__((noinline, cold, target(isa)))                                  \
    static vname##_v vname##_big(vname##_v v, vname##_v w, vname##_v r)           \
    {                                                                             \
        union { vname##_v v; T a[N]; } x, z, y;                                   \
        int i;                                                                    \
        x.v = v;                                                                  \
        z.v = w;                                                                  \
        y.v = r;                                                                  \
        for (i = 0; i < (N); i++)                                                 \
            if (rare(x.a[i], z.a[i]))                                              \
                y.a[i] = big(x.a[i], z.a[i]);                                     \
        return y.v;                                                               \
    }                                                                             \
    vname##_v vname(vname##_v v, vname##_v w);                                    \
    __attribute__((weak, visibility("hidden"), target(isa)))                      \
    vname##_v vname(vname##_v v, vname##_v w)                                     \
    {                                                                             \
        union { vname##_v v; T a[N]; } x, z, y;                                   \
        union { vname##_m v; UFN_LIBM_SIMD_INT(T) a[N]; } lanes;                   \
        int i;                                                                    \
        x.v = v;                                                                  \
        z.v = w;                                                                  \
        _Pragma("GCC ivdep")                                                      \
        for (i = 0; i < (N); i++) {                                               \
            y.a[i] = fast(x.a[i], z.a[i]);                                        \
            lanes.a[i] = 0u - (UFN_LIBM_SIMD_INT(T))rare(x.a[i], z.a[i]);           \
        }                                                                         \
        if (__builtin_expect(any(lanes.v), 0))                                     \
            return vname##_big(v, w, y.v);                                        \
        return y.v;                                                               \
    }

/* Whether a lane mask of 16, 32 or 64 bytes has a bit set: SSE2's
 * pmovmskb, AVX's vptest (AVX-512: on the or of the two halves). */
typedef char ufn_libm_simd_b16 __attribute__((vector_size(16)));
typedef long long ufn_libm_simd_q4 __attribute__((vector_size(32)));
typedef long long ufn_libm_simd_q8 __attribute__((vector_size(64)));
#define UFN_LIBM_SIMD_ANY16(m) (__builtin_ia32_pmovmskb128((ufn_libm_simd_b16)(m)) != 0)
#define UFN_LIBM_SIMD_ANY32(m) (!__builtin_ia32_ptestz256((ufn_libm_simd_q4)(m), (ufn_libm_simd_q4)(m)))
#define UFN_LIBM_SIMD_ANY64(m) __extension__ ({                                    \
        ufn_libm_simd_q8 q_ = (ufn_libm_simd_q8)(m);                                  \
        ufn_libm_simd_q4 h_ = __builtin_shufflevector(q_, q_, 0, 1, 2, 3)             \
                              | __builtin_shufflevector(q_, q_, 4, 5, 6, 7);          \
        !__builtin_ia32_ptestz256(h_, h_); })

/* The scalar function `name` (declared for the vectoriser, defined through
 * an assembler name so that gcc does not make clones of its own) and its
 * four variants, with float lanes (4, 8, 8, 16) or double ones (2, 4, 4, 8). */
#define UFN_LIBM_SIMD_F32(name, whole, fast, big, ok)                                 \
    __attribute__((simd("notinbranch"), const)) float name(float);                    \
    __attribute__((weak, visibility("hidden"))) float name##__scalar(float x) __asm__(#name); \
    float name##__scalar(float x) { return whole(x); }                                \
    UFN_LIBM_SIMD_VARIANT(_ZGVbN4v_##name, UFN_LIBM_SIMD_SSE2, float, 4, fast, big, ok, UFN_LIBM_SIMD_ANY16)   \
    UFN_LIBM_SIMD_VARIANT(_ZGVcN8v_##name, UFN_LIBM_SIMD_AVX, float, 8, fast, big, ok, UFN_LIBM_SIMD_ANY32)    \
    UFN_LIBM_SIMD_VARIANT(_ZGVdN8v_##name, UFN_LIBM_SIMD_AVX2, float, 8, fast, big, ok, UFN_LIBM_SIMD_ANY32)   \
    UFN_LIBM_SIMD_VARIANT(_ZGVeN16v_##name, UFN_LIBM_SIMD_AVX512, float, 16, fast, big, ok, UFN_LIBM_SIMD_ANY64)

#define UFN_LIBM_SIMD_F64(name, whole, fast, big, ok)                                 \
    __attribute__((simd("notinbranch"), const)) double name(double);                  \
    __attribute__((weak, visibility("hidden"))) double name##__scalar(double x) __asm__(#name); \
    double name##__scalar(double x) { return whole(x); }                              \
    UFN_LIBM_SIMD_VARIANT(_ZGVbN2v_##name, UFN_LIBM_SIMD_SSE2, double, 2, fast, big, ok, UFN_LIBM_SIMD_ANY16)  \
    UFN_LIBM_SIMD_VARIANT(_ZGVcN4v_##name, UFN_LIBM_SIMD_AVX, double, 4, fast, big, ok, UFN_LIBM_SIMD_ANY32)   \
    UFN_LIBM_SIMD_VARIANT(_ZGVdN4v_##name, UFN_LIBM_SIMD_AVX2, double, 4, fast, big, ok, UFN_LIBM_SIMD_ANY32)  \
    UFN_LIBM_SIMD_VARIANT(_ZGVeN8v_##name, UFN_LIBM_SIMD_AVX512, double, 8, fast, big, ok, UFN_LIBM_SIMD_ANY64)

#define UFN_LIBM_SIMD_F32_2(name, whole, fast, big, rare)                               \
    __attribute__((simd("notinbranch"), const)) float name(float, float);             \
    __attribute__((weak, visibility("hidden"))) float name##__scalar(float y, float x) __asm__(#name); \
    float name##__scalar(float y, float x) { return whole(y, x); }                    \
    UFN_LIBM_SIMD_VARIANT2(_ZGVbN4vv_##name, UFN_LIBM_SIMD_SSE2, float, 4, fast, big, rare, UFN_LIBM_SIMD_ANY16)   \
    UFN_LIBM_SIMD_VARIANT2(_ZGVcN8vv_##name, UFN_LIBM_SIMD_AVX, float, 8, fast, big, rare, UFN_LIBM_SIMD_ANY32)    \
    UFN_LIBM_SIMD_VARIANT2(_ZGVdN8vv_##name, UFN_LIBM_SIMD_AVX2, float, 8, fast, big, rare, UFN_LIBM_SIMD_ANY32)   \
    UFN_LIBM_SIMD_VARIANT2(_ZGVeN16vv_##name, UFN_LIBM_SIMD_AVX512, float, 16, fast, big, rare, UFN_LIBM_SIMD_ANY64)

#endif

#endif /* UFN_LIBM_SIMD_H */
