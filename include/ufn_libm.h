/* ufn_libm.h - the math functions of the ufn language, one implementation
 * for every backend (included by ufn_math.h; include that one).
 *
 * DESIGN.md section 9: the same inputs give the same bits on the GPU, in the
 * simulator and in the host loops, whatever the layout, thread split,
 * instruction set or C compiler.  So every function here is built only from
 * operations that IEEE 754 defines exactly and that every target performs
 * alike in round-to-nearest:
 *
 *   + - * / and sqrt       correctly rounded (nvcc: -prec-div, -prec-sqrt,
 *                          the defaults; no -ftz)
 *   fma(a, b, c)           one rounding; written out wherever wanted, never
 *                          left to the compiler (cc -ffp-contract=off, nvcc
 *                          -fmad=false).  With FMA hardware (the host's
 *                          AVX2 and AVX-512 loops, every GPU) an instruction;
 *                          in the baseline SSE2 loops and the simulator
 *                          glibc's fma(), which is exact: the same bits.
 *   conversions, integer and bit operations
 *
 * and from no table: a table lookup in a vectorised loop is a gather, slow
 * on every x86 (and emulated with scalar loads by gcc's default tuning).
 * Branches are written as selects of values computed unconditionally where a
 * loop should vectorise (gcc if-converts them under -fno-trapping-math,
 * which ufnc passes); rare special cases may branch.
 *
 * Each function's error bound in ulp, measured against the correctly
 * rounded result with MPFR (tests/math/), is in ufn(7).  Most float32
 * functions compute in float64 and round once: their error is the float64
 * evaluation's (below 1e-8 float32 ulp) plus the final rounding; exp, atan,
 * atan2, and sin and cos below 2^13, compute in float (twice the lanes).
 *
 * --fast-math (UFN_FAST_MATH, and gcc's __FAST_MATH__) trades all this for
 * the vendor's functions: libmvec in the host loops, libdevice and its
 * approximate instructions on the GPU.  Each public function starts with
 * UFN_VENDOR(call), which returns that call when the trade is on.
 *
 * Special values follow C99 Annex F, which is what Python's math module and
 * Numba give (Numba raises nowhere): nan in, nan out (computed as x + x, so
 * a host run gives the same nan bits whatever the loop shape); an invalid
 * argument gives the positive quiet nan UFN_LIBM_NAN (ufn(7): the sign and
 * payload of a nan are not specified).
 *
 * The files, in the order they are included:
 *   ufn_libm_simd.h     how vector variants for gcc's host loops are made
 *   ufn_libm_exact.h    floor ceil trunc rint fmod remainder nextafter ldexp
 *   ufn_libm_exp.h      exp exp2 expm1
 *   ufn_libm_log.h      log log2 log10 log1p
 *   ufn_libm_trig.h     sin cos tan
 *   ufn_libm_atan.h     atan atan2 asin acos
 *   ufn_libm_hyp.h      sinh cosh tanh asinh acosh atanh
 *   ufn_libm_pow.h      pow hypot
 *   ufn_libm_special.h  erf erfc tgamma lgamma
 * The coefficients are minimax polynomials from the Sollya scripts in
 * tools/libm/.
 */
#ifndef UFN_LIBM_H
#define UFN_LIBM_H

/* float must be float and double double: x87 extended precision (i386)
 * would round differently from the GPU. */
#if defined(FLT_EVAL_METHOD) && FLT_EVAL_METHOD != 0 && !defined(__CUDA_ARCH__)
#error "ufn_math.h needs FLT_EVAL_METHOD == 0 (SSE2 math on x86)"
#endif

#if defined(UFN_FAST_MATH) || defined(__FAST_MATH__)
#define UFN_VENDOR(call) return (call)
#else
#define UFN_VENDOR(call) ((void)0)
#endif

#define UFN_LIBM_NAN_F32 ufn_f32_from_bits(0x7fc00000u)
#define UFN_LIBM_NAN_F64 ufn_f64_from_bits(0x7ff8000000000000ull)

/* ---- bits ------------------------------------------------------------------------------ */

UFN_FN float ufn_f32_from_bits(uint32_t u)
{
#if defined(__CUDA_ARCH__)
    return __uint_as_float(u);
#else
    union { float f; uint32_t u; } v;
    v.u = u;
    return v.f;
#endif
}

UFN_FN double ufn_f64_from_bits(uint64_t u)
{
#if defined(__CUDA_ARCH__)
    return __longlong_as_double((long long)u);
#else
    union { double f; uint64_t u; } v;
    v.u = u;
    return v.f;
#endif
}

/* |x| by clearing the sign bit: fabs() with a nan keeps its payload too,
 * but this spelling needs no library on any target. */
UFN_FN float  ufn_libm_abs_f32(float x)  { return ufn_f32_from_bits(ufn_bits_f32(x) & 0x7fffffffu); }
UFN_FN double ufn_libm_abs_f64(double x) { return ufn_f64_from_bits(ufn_bits_f64(x) & 0x7fffffffffffffffull); }

/* x with the sign of s. */
UFN_FN float ufn_libm_copysign_f32(float x, float s)
{
    return ufn_f32_from_bits((ufn_bits_f32(x) & 0x7fffffffu) | (ufn_bits_f32(s) & 0x80000000u));
}
UFN_FN double ufn_libm_copysign_f64(double x, double s)
{
    return ufn_f64_from_bits((ufn_bits_f64(x) & 0x7fffffffffffffffull) | (ufn_bits_f64(s) & 0x8000000000000000ull));
}

/* x if it is finite, else 0.0: a mask, not a branch (with a branch, gcc
 * compiles a function twice, once for the constant, and its table loads
 * become conditional loads that do not vectorise).  Keeps inf and nan away
 * from float-to-integer conversions, whose result C leaves undefined. */
UFN_FN double ufn_libm_finite_or_zero_f64(double x)
{
    return ufn_f64_from_bits(ufn_bits_f64(x) & (0u - (uint64_t)ufn_isfinite_f64(x)));
}
UFN_FN float ufn_libm_finite_or_zero_f32(float x)
{
    return ufn_f32_from_bits(ufn_bits_f32(x) & (0u - (uint32_t)ufn_isfinite_f32(x)));
}

/* 2^k for k in [-1022, 1023] (-126..127 for float), from the exponent bits. */
UFN_FN double ufn_libm_pow2_f64(int64_t k) { return ufn_f64_from_bits((uint64_t)(k + 1023) << 52); }
UFN_FN float  ufn_libm_pow2_f32(int32_t k) { return ufn_f32_from_bits((uint32_t)(k + 127) << 23); }

/* ---- rounding to an integer ------------------------------------------------------------- */

/* Adding and subtracting 1.5 * 2^52 rounds |x| < 2^51 to the nearest
 * integer (ties to even) with two exact-or-correctly-rounded additions, on
 * every target and without SSE4.1's roundsd.  The _bits form also returns
 * the integer, read from the low bits of the sum: k = bits(t) - bits(shift)
 * for the t = x + shift computed once. */
#define UFN_LIBM_SHIFT_F64 0x1.8p52
#define UFN_LIBM_SHIFT_F32 0x1.8p23f

UFN_FN double ufn_libm_rint_small_f64(double x) { return (x + UFN_LIBM_SHIFT_F64) - UFN_LIBM_SHIFT_F64; }
UFN_FN float  ufn_libm_rint_small_f32(float x)  { return (x + UFN_LIBM_SHIFT_F32) - UFN_LIBM_SHIFT_F32; }

/* ---- double-word arithmetic ------------------------------------------------------------- */

/* A number as an unevaluated sum hi + lo with |lo| <= ulp(hi) / 2: the
 * extra bits an argument reduction or a logarithm must carry. */
typedef struct { double hi, lo; } ufn_dd;

UFN_FN ufn_dd ufn_dd_make(double hi, double lo)
{
    ufn_dd r;
    r.hi = hi;
    r.lo = lo;
    return r;
}

/* c ? a : b, word by word: clang does not vectorise a select of structs. */
UFN_FN ufn_dd ufn_dd_select(int c, ufn_dd a, ufn_dd b)
{
    return ufn_dd_make(c ? a.hi : b.hi, c ? a.lo : b.lo);
}

/* a + b exactly, when |a| >= |b| or a == 0 (Fast2Sum). */
UFN_FN ufn_dd ufn_dd_fast2sum(double a, double b)
{
    double s = a + b;
    return ufn_dd_make(s, (a - s) + b);
}

/* a + b exactly, in any order (Knuth's TwoSum). */
UFN_FN ufn_dd ufn_dd_twosum(double a, double b)
{
    double s = a + b, v = s - a;
    return ufn_dd_make(s, (a - (s - v)) + (b - v));
}

/* a * b exactly. */
UFN_FN ufn_dd ufn_dd_twoprod(double a, double b)
{
    double p = a * b;
    return ufn_dd_make(p, fma(a, b, -p));
}

/* (a.hi + a.lo) * (b.hi + b.lo), to about 2^-104 relative. */
UFN_FN ufn_dd ufn_dd_mul(ufn_dd a, ufn_dd b)
{
    ufn_dd p = ufn_dd_twoprod(a.hi, b.hi);
    double lo = fma(a.hi, b.lo, fma(a.lo, b.hi, p.lo));
    return ufn_dd_fast2sum(p.hi, lo);
}

/* (a.hi + a.lo) * b, to about 2^-104 relative. */
UFN_FN ufn_dd ufn_dd_mul_d(ufn_dd a, double b)
{
    ufn_dd p = ufn_dd_twoprod(a.hi, b);
    return ufn_dd_fast2sum(p.hi, fma(a.lo, b, p.lo));
}

#include "ufn_libm_simd.h"
#include "ufn_libm_exact.h"
#include "ufn_libm_exp.h"
#include "ufn_libm_log.h"
#include "ufn_libm_trig.h"
#include "ufn_libm_atan.h"
#include "ufn_libm_hyp.h"
#include "ufn_libm_pow.h"
#include "ufn_libm_special.h"

#endif /* UFN_LIBM_H */
