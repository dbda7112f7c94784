/* ufn_math.h - the numeric semantics of the ufn language, as C.
 *
 * Every file ufnc generates includes this header: the device code through
 * include/ufn_kernel.h, the host stub directly.  One scalar body is emitted
 * once and compiled three ways -- by nvcc as CUDA C++ for the GPU, by cc as
 * C11 for the host loops, and by cc as C11 again for the simulator -- so every
 * helper here is written in the common subset of CUDA C++ and C11 and must
 * give the same answer in all three.
 *
 * What lives here is exactly what C does not give us with the right meaning:
 *
 *   integer // and % ...... Python floor semantics, x//0 == x%0 == 0 (Numba)
 *   float // and % ........ np.floor_divide / np.remainder, bit for bit
 *   ** .................... Numba's integer and float-by-integer powers
 *   << and >> ............. defined for every count (NumPy's rule)
 *   float -> int .......... truncate, saturate, NaN -> 0 (PTX cvt.rzi.sat)
 *   +, -, *, unary - ...... wrapping int64 arithmetic without C's UB
 *   min, max, abs, round .. Python's builtins as Numba compiles them
 *   isnan, isinf, ... ..... by bit pattern, valid in every world
 *   degrees, radians, log(x, b), ldexp with an int64 exponent
 *   complex numbers ....... ufn_complex.h (included at the end)
 *
 * The math functions (ufn_sqrt_f32, ufn_atan2_f64, ...) are ufn_libm.h's:
 * one implementation for the GPU, the simulator and the host loops, so that
 * all three compute the same bits (DESIGN.md section 9).  compiler/math.def
 * maps each Python name to them.
 *
 * No helper has undefined behaviour for any argument: signed overflow is done
 * in unsigned arithmetic, out-of-range shifts and conversions are tested for
 * first.  (Two implementation-defined conversions remain, uint64 -> int64 and
 * int64 -> narrower ints: gcc, clang and nvcc all define them as wrapping,
 * which is the meaning we want.)  tests/unit/compiler/test_ufn_math.c checks
 * all of this under -fsanitize=address,undefined.
 *
 * Every rule we had to choose where Numba, NumPy and Python disagree is
 * written next to the function as "Rule:".
 */
#ifndef UFN_MATH_H
#define UFN_MATH_H

#include <stdint.h>
#include <math.h>
#include <float.h>
#include <limits.h>

/* ---- how every helper is declared -------------------------------------------------- */

/* static: each generated file gets its own copy, no link-time clashes.
 * __host__ __device__: callable from kernels and from host code under nvcc. */
#if defined(__CUDACC__)
#define UFN_FN static __host__ __device__ __forceinline__
#elif defined(__GNUC__) && defined(__OPTIMIZE__)
/* always inlined: a host loop vectorises only if every call in its body is
 * gone, and gcc's inliner stops at its unit-growth limit in modules with
 * many kernels (a math function is up to a few hundred operations) */
#define UFN_FN static inline __attribute__((always_inline))
#else
#define UFN_FN static inline
#endif

/* A hint that the memory at p is read soon (the gufunc host loops' blocks
 * of rows, compiler/emit_lanes.c); nothing without the builtin. */
#if defined(__GNUC__) || defined(__clang__)
#define UFN_PREFETCH(p) __builtin_prefetch(p)
#else
#define UFN_PREFETCH(p) ((void)0)
#endif

/* Constants C11's <math.h> does not promise (M_PI is POSIX, not C). */
#define UFN_PI    3.141592653589793238462643383279502884
#define UFN_E     2.718281828459045235360287471352662498
#define UFN_TAU   6.283185307179586476925286766559005768
#define UFN_LN2   0.693147180559945309417232121458176568
#define UFN_LN10  2.302585092994045684017991454684364208

/* NAN and INFINITY are float constants; these spell them in each type. */
#define UFN_NAN_F32  NAN
#define UFN_INF_F32  INFINITY
#define UFN_NAN_F64  ((double)NAN)
#define UFN_INF_F64  ((double)INFINITY)

/* ---- raw bits of a float ------------------------------------------------------------ */

/* The predicates below look at the bits rather than use isnan(): C's isnan is
 * a macro, C++'s an overload, CUDA's a device overload, and under
 * -ffinite-math-only (a user's --fast-math on the host) "x != x" folds to 0.
 * A bit test means the same everywhere.  A union is defined punning in C11
 * and supported by gcc and clang in C++; device code uses the intrinsics. */
UFN_FN uint32_t ufn_bits_f32(float x)
{
#if defined(__CUDA_ARCH__)
    return __float_as_uint(x);
#else
    union { float f; uint32_t u; } v;
    v.f = x;
    return v.u;
#endif
}

UFN_FN uint64_t ufn_bits_f64(double x)
{
#if defined(__CUDA_ARCH__)
    return (uint64_t)__double_as_longlong(x);
#else
    union { double f; uint64_t u; } v;
    v.f = x;
    return v.u;
#endif
}

/* ---- float predicates: math.isnan, math.isinf, math.isfinite (0 or 1) -------------- */

UFN_FN int ufn_isnan_f32(float x)    { return (ufn_bits_f32(x) & 0x7fffffffu) > 0x7f800000u; }
UFN_FN int ufn_isinf_f32(float x)    { return (ufn_bits_f32(x) & 0x7fffffffu) == 0x7f800000u; }
UFN_FN int ufn_isfinite_f32(float x) { return (ufn_bits_f32(x) & 0x7fffffffu) < 0x7f800000u; }

UFN_FN int ufn_isnan_f64(double x)
{
    return (ufn_bits_f64(x) & 0x7fffffffffffffffull) > 0x7ff0000000000000ull;
}
UFN_FN int ufn_isinf_f64(double x)
{
    return (ufn_bits_f64(x) & 0x7fffffffffffffffull) == 0x7ff0000000000000ull;
}
UFN_FN int ufn_isfinite_f64(double x)
{
    return (ufn_bits_f64(x) & 0x7fffffffffffffffull) < 0x7ff0000000000000ull;
}

/* ---- the math functions (one implementation for every backend) ------------------- */

#include "ufn_libm.h"

/* ---- wrapping integer arithmetic ----------------------------------------------------- */

/* Numba's integers wrap on overflow (they are LLVM's add/sub/mul).  In C a
 * signed overflow is undefined, so int64 +, -, * and unary - go through
 * uint64, where wrapping is the definition.  uint64 needs no helper. */
UFN_FN int64_t ufn_add_i64(int64_t a, int64_t b) { return (int64_t)((uint64_t)a + (uint64_t)b); }
UFN_FN int64_t ufn_sub_i64(int64_t a, int64_t b) { return (int64_t)((uint64_t)a - (uint64_t)b); }
UFN_FN int64_t ufn_mul_i64(int64_t a, int64_t b) { return (int64_t)((uint64_t)a * (uint64_t)b); }
UFN_FN int64_t ufn_neg_i64(int64_t a)            { return (int64_t)(0u - (uint64_t)a); }

/* abs(INT64_MIN) == INT64_MIN, as in Numba and NumPy. */
UFN_FN int64_t ufn_abs_i64(int64_t a) { return a < 0 ? ufn_neg_i64(a) : a; }
UFN_FN float   ufn_abs_f32(float x)   { return ufn_fabs_f32(x); }
UFN_FN double  ufn_abs_f64(double x)  { return ufn_fabs_f64(x); }

/* An array index: a negative one counts from the end, as in Python (Numba
 * wraps them too; neither checks bounds). */
UFN_FN int64_t ufn_wrap_index(int64_t i, int64_t n) { return i < 0 ? i + n : i; }

/* ---- integer // and % ---------------------------------------------------------------- */

/* Python floor semantics: the quotient rounds toward -inf and the remainder
 * takes the divisor's sign (-7 // 2 == -4, -7 % 2 == 1, 7 % -2 == -1).
 * Rule: x // 0 == 0 and x % 0 == 0 (Numba's numpy error model: no trap).
 * Rule: INT64_MIN // -1 == INT64_MIN (it wraps, as NumPy does; Numba's guard
 *       gives 0) and INT64_MIN % -1 == 0.  C's a / -1 would be UB there. */
UFN_FN int64_t ufn_floordiv_i64(int64_t a, int64_t b)
{
    int64_t q, r;
    if (b == 0)
        return 0;
    if (b == -1)
        return ufn_neg_i64(a);
    q = a / b;
    r = a % b;
    if (r != 0 && ((r < 0) != (b < 0)))
        q -= 1;
    return q;
}

UFN_FN int64_t ufn_mod_i64(int64_t a, int64_t b)
{
    int64_t r;
    if (b == 0 || b == -1)
        return 0;
    r = a % b;
    if (r != 0 && ((r < 0) != (b < 0)))
        r += b;
    return r;
}

UFN_FN uint64_t ufn_floordiv_u64(uint64_t a, uint64_t b) { return b == 0 ? 0 : a / b; }
UFN_FN uint64_t ufn_mod_u64(uint64_t a, uint64_t b)      { return b == 0 ? 0 : a % b; }

/* ---- float // and % ------------------------------------------------------------------ */

/* NumPy's npy_divmod (numpy/core/src/npymath/npy_math_internal.h.src), which
 * is CPython's float_divmod and Numba's real_divmod: the result matches
 * np.floor_divide and np.remainder bit for bit, signed zeros included.
 * A zero divisor gives a / b and fmod(a, b) (so 1 // 0 == inf, 0 // 0 == nan,
 * x % 0 == nan); Python would raise, Numba and NumPy return these.
 * The float32 versions compute in float, like NumPy's float32 loops. */
UFN_FN double ufn_divmod_f64(double a, double b, double *modulus)
{
    double mod = ufn_fmod_f64(a, b), div, floordiv;
    if (b == 0.0) {
        *modulus = mod;
        return a / b;
    }
    /* a - mod is very nearly an integer multiple of b */
    div = (a - mod) / b;
    if (mod != 0.0) {
        /* mod takes the sign of b (Python's convention) */
        if ((b < 0.0) != (mod < 0.0)) {
            mod += b;
            div -= 1.0;
        }
    } else {
        mod = ufn_copysign_f64(0.0, b);
    }
    if (div != 0.0) {
        /* snap the quotient to the nearest integer */
        floordiv = ufn_floor_f64(div);
        if (div - floordiv > 0.5)
            floordiv += 1.0;
    } else {
        floordiv = ufn_copysign_f64(0.0, a / b);
    }
    *modulus = mod;
    return floordiv;
}

UFN_FN float ufn_divmod_f32(float a, float b, float *modulus)
{
    float mod = ufn_fmod_f32(a, b), div, floordiv;
    if (b == 0.0f) {
        *modulus = mod;
        return a / b;
    }
    div = (a - mod) / b;
    if (mod != 0.0f) {
        if ((b < 0.0f) != (mod < 0.0f)) {
            mod += b;
            div -= 1.0f;
        }
    } else {
        mod = ufn_copysign_f32(0.0f, b);
    }
    if (div != 0.0f) {
        floordiv = ufn_floor_f32(div);
        if (div - floordiv > 0.5f)
            floordiv += 1.0f;
    } else {
        floordiv = ufn_copysign_f32(0.0f, a / b);
    }
    *modulus = mod;
    return floordiv;
}

UFN_FN double ufn_floordiv_f64(double a, double b) { double m; return ufn_divmod_f64(a, b, &m); }
UFN_FN float  ufn_floordiv_f32(float a, float b)   { float m;  return ufn_divmod_f32(a, b, &m); }
UFN_FN double ufn_mod_f64(double a, double b)      { double m; ufn_divmod_f64(a, b, &m); return m; }
UFN_FN float  ufn_mod_f32(float a, float b)        { float m;  ufn_divmod_f32(a, b, &m); return m; }

/* ---- division by an integer constant ---------------------------------------------------- */

/* ufn_div_const_f32(x, d, y) and ufn_div_const_f64(x, d, y): x / d, the IEEE
 * quotient's bits on every x, without the divider, for a constant divisor
 * the emitter has checked (compiler/emit_expr.c, div_const): d is an odd
 * integer, 3 <= d < 2^22 (float32) or 2^50 (float64), and y = RN(1/d), both
 * written into the generated code.  A negative divisor is -(x / |d|): the
 * emitter negates the result (IEEE rounding is symmetric).  An element costs
 * a product, two fmas and a select (ports the divider does not need, on
 * every x86 with FMA; the baseline SSE2 loops call glibc's exact fma, slower
 * but the same bits).
 *
 *   q0 = RN(x y);  r = fma(q0, d, -x) = q0 d - x;  q = fma(r, -y, q0)
 *   the result: q, or q0 where r is 0 or nan
 *
 * Why q = RN(x/d).  p is the precision (24, 53), g the spacing of the
 * result's grid at x/d (its ulp; 2^-149 / 2^-1074 below the normal range).
 * 1. delta = d y - 1: |delta| < 2^-p (y is within half an ulp of 1/d, and
 *    1/d is not a float).
 * 2. |q0 - x/d| < 1.5 g: |x y - x/d| = |delta x/d| < g (|x/d| < 2^p g), and
 *    the rounding adds half an ulp of q0 (<= g/2: when x y rounds up to the
 *    next binade, it is within 2^-p |x/d| < g/2 of that power of two).
 * 3. r is exact: |x| >= 3 |x/d|, so x is a multiple of 2g (of the subnormal
 *    spacing below), and q0 d of ulp(q0) >= g/2; r = d (q0 - x/d) is a
 *    multiple of g/2 below 3 d (g/2) < 2^p (g/2) for d < 2^p / 3.  An fma
 *    has no intermediate overflow, and q0 is finite for finite x.
 * 4. The last fma rounds v = q0 - r y = x/d + delta (x/d - q0) once, and
 *    |v - x/d| < 1.5 2^-p g.
 * 5. RN(v) differs from RN(x/d) only if a midpoint m of the grid (an odd
 *    multiple of g/2; 2^k itself is a float, and the midpoints beside it
 *    are g/4 or more away) lies between them or equals one.  If x/d != m,
 *    x - d m is a nonzero multiple of g/2 (x of 2g, d m of g/2, d an
 *    integer), so |x/d - m| >= g / (2d) > 1.5 2^-p g for d < 2^p / 3: m is
 *    not between them, and v != m.  x/d = m exactly cannot happen: for a
 *    normal m, x = d m would need more than p bits (m's odd significand
 *    has p + 1, and d's odd part is >= 1); for a subnormal m = M 2^-150
 *    (M odd), x = d M 2^-150 is a float only for an even d.  Hence odd d
 *    only: for an even one an exact subnormal midpoint x/d (0x1.26p-142 /
 *    98 = 3 2^-150) can round the wrong way.  (A power of two is an exact
 *    product, which the C compiler makes itself.)
 * 6. r = 0 means q0 = x/d exactly, and q0 is the answer; that includes
 *    x = +-0, where q0 = x y is the zero of x's sign (q would be +0 - 0 =
 *    +0 for both, and gcc folds a negation of the result, the emitter's
 *    for a negative d, into the last fma, which changes a zero's sign but
 *    no other value).  x = +-inf or nan makes r nan: q0 = x y is the
 *    infinity of the right sign, or nan.  The quotient neither overflows
 *    (|x/d| < |x|) nor needs a case for underflow (step 5 covers the
 *    subnormal grid).  The select is one compare (equal or unordered)
 *    and a blend in a vector loop.
 * tests/math/cdiv.c checks this against `/` on sampled x for many divisors
 * (make check-math) and on every float32 x for 255, 3, 2^22 - 1 and more
 * (make math-cdiv-exhaustive, tests/math/RESULTS-cdiv.md).
 *
 * On the GPU it is `x / d`: the same bits by the proof, and nvcc's code
 * stays as it was.  Under --fast-math too (-ffast-math makes its own
 * reciprocal product). */
UFN_FN float ufn_div_const_f32(float x, float d, float y)
{
#if defined(__CUDA_ARCH__) || defined(UFN_FAST_MATH) || defined(__FAST_MATH__)
    (void)y;
    return x / d;
#else
    float q0 = x * y, r = fmaf(q0, d, -x), q = fmaf(r, -y, q0);
    return r < 0.0f || r > 0.0f ? q : q0;
#endif
}

UFN_FN double ufn_div_const_f64(double x, double d, double y)
{
#if defined(__CUDA_ARCH__) || defined(UFN_FAST_MATH) || defined(__FAST_MATH__)
    (void)y;
    return x / d;
#else
    double q0 = x * y, r = fma(q0, d, -x), q = fma(r, -y, q0);
    return r < 0.0 || r > 0.0 ? q : q0;
#endif
}

/* ---- ** -------------------------------------------------------------------------------- */

/* int ** int: exponentiation by squaring in uint64, so overflow wraps.
 * Rule (Numba's int_power_impl with the numpy error model), for e < 0:
 *       1 ** e == 1, (-1) ** e == +-1 by parity, 0 ** e == INT64_MIN (Numba's
 *       "zerodiv return", 0x8000...), anything else ** e == 0.
 * Rule: exponents above 65536 also wrap.  Numba switches to float pow there and
 *       converts inf to int64, which is undefined; only |b| >= 2 is affected.
 * Rule: the result is exact.  Numba 0.56 passes it through float64 (its
 *       int_power returns `1.0 / r if invert else r`, which types as float64),
 *       so its results beyond 2**53 lose their low bits (3 ** 40) and
 *       INT64_MAX ** 1 becomes INT64_MIN; we take that for a bug, not a rule. */
UFN_FN int64_t ufn_pow_i64(int64_t b, int64_t e)
{
    uint64_t r = 1, x = (uint64_t)b, n = (uint64_t)e;
    if (e < 0) {
        if (b == 1)
            return 1;
        if (b == -1)
            return (e & 1) ? -1 : 1;
        if (b == 0)
            return INT64_MIN;
        return 0;
    }
    while (n != 0) {
        if (n & 1)
            r *= x;
        x *= x;
        n >>= 1;
    }
    return (int64_t)r;
}

UFN_FN uint64_t ufn_pow_u64(uint64_t b, uint64_t e)
{
    uint64_t r = 1;
    while (e != 0) {
        if (e & 1)
            r *= b;
        b *= b;
        e >>= 1;
    }
    return r;
}

/* float ** int: repeated squaring in the float type, the same multiplications
 * in the same order as Numba (so x ** 2 is exactly x * x), then 1 / r for a
 * negative exponent.  |e| > 65536 falls back to pow in double, as Numba does.
 * The small exponents come first, written out as the loop would compute them:
 * with a constant exponent (x ** 2 in a kernel) the branch folds away and no
 * loop is left, which is what lets gcc vectorise the host loops. */
UFN_FN double ufn_powi_f64(double x, int64_t e)
{
    switch (e) {
    case 0: return 1.0;
    case 1: return x;
    case 2: return x * x;
    case 3: return x * (x * x);
    case 4: { double x2 = x * x; return x2 * x2; }
    case -1: return 1.0 / x;
    case -2: return 1.0 / (x * x);
    default: break;
    }
    uint64_t n = e < 0 ? 0u - (uint64_t)e : (uint64_t)e;
    double r = 1.0;
    if (n > 0x10000u)
        return ufn_pow_f64(x, (double)e);
    while (n != 0) {
        if (n & 1)
            r *= x;
        n >>= 1;
        x *= x;
    }
    return e < 0 ? 1.0 / r : r;
}

UFN_FN float ufn_powi_f32(float x, int64_t e)
{
    switch (e) {
    case 0: return 1.0f;
    case 1: return x;
    case 2: return x * x;
    case 3: return x * (x * x);
    case 4: { float x2 = x * x; return x2 * x2; }
    case -1: return 1.0f / x;
    case -2: return 1.0f / (x * x);
    default: break;
    }
    uint64_t n = e < 0 ? 0u - (uint64_t)e : (uint64_t)e;
    float r = 1.0f;
    if (n > 0x10000u)
        return (float)ufn_pow_f64((double)x, (double)e);
    while (n != 0) {
        if (n & 1)
            r *= x;
        n >>= 1;
        x *= x;
    }
    return e < 0 ? 1.0f / r : r;
}

/* float ** float is ufn_pow_f32/f64 (ufn_libm_pow.h): a negative base with a
 * fractional exponent gives nan, 0 ** -1 gives inf, as in Numba. */

/* ---- << and >> ------------------------------------------------------------------------ */

/* Rule (NumPy's npy_lshift/npy_rshift): a count < 0 or >= 64 shifts every bit
 * out: << gives 0, >> gives 0, or -1 for a negative int64.  Numba leaves this
 * to the machine (x86: 1 << 64 == 1; PTX clamps).  Counts are int64; a uint64
 * count above INT64_MAX arrives negative and still means "too far".
 * << works in uint64 (shifting a negative int64 left is UB in C); >> of a
 * negative value is written as ~(~a >> n), which C defines, and compilers
 * turn into one arithmetic shift. */
UFN_FN int64_t ufn_shl_i64(int64_t a, int64_t n)
{
    return (n < 0 || n >= 64) ? 0 : (int64_t)((uint64_t)a << n);
}

UFN_FN int64_t ufn_shr_i64(int64_t a, int64_t n)
{
    if (n < 0 || n >= 64)
        return a < 0 ? -1 : 0;
    return a < 0 ? ~(~a >> n) : a >> n;
}

UFN_FN uint64_t ufn_shl_u64(uint64_t a, int64_t n) { return (n < 0 || n >= 64) ? 0 : a << n; }
UFN_FN uint64_t ufn_shr_u64(uint64_t a, int64_t n) { return (n < 0 || n >= 64) ? 0 : a >> n; }

/* ---- float -> integer ------------------------------------------------------------------ */

/* Rule: ONE conversion everywhere, what PTX cvt.rzi.sat does on the GPU:
 *       truncate toward zero, saturate to the target's range, NaN -> 0.
 *       (Numba leaves out-of-range values undefined; x86 gives INT_MIN.)
 * LO is the target's minimum and HI1 its maximum + 1; both are powers of two
 * (or 0), so exactly representable in float and double.  Inside (LO, HI1) the
 * C cast is defined and truncates; anything else is tested for explicitly.
 * NaN fails every comparison and ends in the last arm.  int() of a float
 * (int64) and every np.intN(x) of a float use these. */
#define UFN_F2I(T, x, LO, HI1, MAX) \
    ((x) > (LO) && (x) < (HI1) ? (T)(x) : (x) >= (HI1) ? (T)(MAX) : (x) <= (LO) ? (T)(LO) : (T)0)

UFN_FN int8_t   ufn_f32_to_i8(float x)   { return UFN_F2I(int8_t, x, -128.0f, 128.0f, INT8_MAX); }
UFN_FN int16_t  ufn_f32_to_i16(float x)  { return UFN_F2I(int16_t, x, -32768.0f, 32768.0f, INT16_MAX); }
UFN_FN int32_t  ufn_f32_to_i32(float x)  { return UFN_F2I(int32_t, x, -2147483648.0f, 2147483648.0f, INT32_MAX); }
UFN_FN int64_t  ufn_f32_to_i64(float x)
{
    return UFN_F2I(int64_t, x, -9223372036854775808.0f, 9223372036854775808.0f, INT64_MAX);
}
UFN_FN uint8_t  ufn_f32_to_u8(float x)   { return UFN_F2I(uint8_t, x, 0.0f, 256.0f, UINT8_MAX); }
UFN_FN uint16_t ufn_f32_to_u16(float x)  { return UFN_F2I(uint16_t, x, 0.0f, 65536.0f, UINT16_MAX); }
UFN_FN uint32_t ufn_f32_to_u32(float x)  { return UFN_F2I(uint32_t, x, 0.0f, 4294967296.0f, UINT32_MAX); }
UFN_FN uint64_t ufn_f32_to_u64(float x)
{
    return UFN_F2I(uint64_t, x, 0.0f, 18446744073709551616.0f, UINT64_MAX);
}

UFN_FN int8_t   ufn_f64_to_i8(double x)  { return UFN_F2I(int8_t, x, -128.0, 128.0, INT8_MAX); }
UFN_FN int16_t  ufn_f64_to_i16(double x) { return UFN_F2I(int16_t, x, -32768.0, 32768.0, INT16_MAX); }
UFN_FN int32_t  ufn_f64_to_i32(double x) { return UFN_F2I(int32_t, x, -2147483648.0, 2147483648.0, INT32_MAX); }
UFN_FN int64_t  ufn_f64_to_i64(double x)
{
    return UFN_F2I(int64_t, x, -9223372036854775808.0, 9223372036854775808.0, INT64_MAX);
}
UFN_FN uint8_t  ufn_f64_to_u8(double x)  { return UFN_F2I(uint8_t, x, 0.0, 256.0, UINT8_MAX); }
UFN_FN uint16_t ufn_f64_to_u16(double x) { return UFN_F2I(uint16_t, x, 0.0, 65536.0, UINT16_MAX); }
UFN_FN uint32_t ufn_f64_to_u32(double x) { return UFN_F2I(uint32_t, x, 0.0, 4294967296.0, UINT32_MAX); }
UFN_FN uint64_t ufn_f64_to_u64(double x)
{
    return UFN_F2I(uint64_t, x, 0.0, 18446744073709551616.0, UINT64_MAX);
}

#undef UFN_F2I

/* ---- min and max ----------------------------------------------------------------------- */

/* Python's min(a, b) keeps a unless b < a; max keeps a unless b > a.  So NaN
 * is not propagated: min(nan, 1) == nan but min(1, nan) == 1, and min(0.0,
 * -0.0) == 0.0.  This is Numba's behaviour, not np.minimum's or fmin's.  The
 * compiler folds min(a, b, c) as min(min(a, b), c), which is Python's order. */
UFN_FN int64_t  ufn_min_i64(int64_t a, int64_t b)   { return b < a ? b : a; }
UFN_FN uint64_t ufn_min_u64(uint64_t a, uint64_t b) { return b < a ? b : a; }
UFN_FN float    ufn_min_f32(float a, float b)       { return b < a ? b : a; }
UFN_FN double   ufn_min_f64(double a, double b)     { return b < a ? b : a; }
UFN_FN int64_t  ufn_max_i64(int64_t a, int64_t b)   { return b > a ? b : a; }
UFN_FN uint64_t ufn_max_u64(uint64_t a, uint64_t b) { return b > a ? b : a; }
UFN_FN float    ufn_max_f32(float a, float b)       { return b > a ? b : a; }
UFN_FN double   ufn_max_f64(double a, double b)     { return b > a ? b : a; }

/* ---- round ----------------------------------------------------------------------------- */

/* round(x): half to even (0.5 -> 0, 1.5 -> 2, 2.5 -> 2, -0.5 -> -0), returned
 * as a float; the compiler then applies ufn_f64_to_i64 (Numba's round(f)
 * returns int64), so inf -> INT64_MAX and nan -> 0 by the saturating rule.
 * Written with floor and exact arithmetic only, so the answer does not depend
 * on the current rounding mode (rint/nearbyint would).  |x| below 2^52 (2^23)
 * makes a - r exact: r = floor(a) is at least a/2 or 0 (Sterbenz). */
UFN_FN double ufn_round_f64(double x)
{
    double a = ufn_fabs_f64(x), r, d;
    if (!(a < 4503599627370496.0))      /* 2^52: already an integer, or inf/nan */
        return x;
    r = ufn_floor_f64(a);
    d = a - r;
    if (d > 0.5 || (d == 0.5 && ufn_floor_f64(0.5 * r) != 0.5 * r))
        r += 1.0;
    return ufn_copysign_f64(r, x);
}

UFN_FN float ufn_round_f32(float x)
{
    float a = ufn_fabs_f32(x), r, d;
    if (!(a < 8388608.0f))              /* 2^23 */
        return x;
    r = ufn_floor_f32(a);
    d = a - r;
    if (d > 0.5f || (d == 0.5f && ufn_floor_f32(0.5f * r) != 0.5f * r))
        r += 1.0f;
    return ufn_copysign_f32(r, x);
}

/* round(x, n): scale by 10**n, round half to even, scale back -- NumPy's
 * np.round method, which Numba uses: round(0.35, 1) == 0.4 (Python says 0.3),
 * round(0.25, 1) == 0.2, round(2.675, 1) == 2.7, round(1234.5, -2) == 1200.
 * 10**n is Numba's `10.0 ** n` (ufn_powi_f64), exact up to 1e22; beyond, the
 * scale is split as 10**(n-22) * 1e22 so it does not overflow (Numba's code).
 * Rule: when x * 10**n overflows (or 10**n does), round returns x unchanged
 *       (Numba; NumPy gives inf or nan).
 * Rule: when 10**-n overflows (n < -308), the result is a zero of x's sign
 *       (Python's answer; Numba and NumPy compute 0 * inf = nan).
 * Rule: float32 computes in float32 with the scale rounded to float32 -- what
 *       np.round does for a float32 array and what Numba's CPU target gets
 *       (round(np.float32(0.35), 1) == 0.4); Numba's CUDA target computes in
 *       float64 and gets 0.3 there. */
UFN_FN double ufn_round_ndigits_f64(double x, int64_t n)
{
    double p1, p2 = 1.0, y;
    if (!ufn_isfinite_f64(x))
        return x;
    if (n >= 0) {
        if (n > 22) {
            p1 = ufn_powi_f64(10.0, n - 22);
            p2 = 1e22;
        } else {
            p1 = ufn_powi_f64(10.0, n);
        }
        y = (x * p1) * p2;
        if (!ufn_isfinite_f64(y))
            return x;
        return (ufn_round_f64(y) / p2) / p1;
    }
    p1 = ufn_powi_f64(10.0, ufn_neg_i64(n));
    if (ufn_isinf_f64(p1))
        return ufn_copysign_f64(0.0, x);
    return ufn_round_f64(x / p1) * p1;
}

UFN_FN float ufn_round_ndigits_f32(float x, int64_t n)
{
    float p, y;
    if (!ufn_isfinite_f32(x))
        return x;
    if (n >= 0) {
        p = (float)ufn_powi_f64(10.0, n);   /* 10**n correctly rounded to float */
        y = x * p;
        if (!ufn_isfinite_f32(y))
            return x;
        return ufn_round_f32(y) / p;
    }
    p = (float)ufn_powi_f64(10.0, ufn_neg_i64(n));
    if (ufn_isinf_f32(p))
        return ufn_copysign_f32(0.0f, x);
    return ufn_round_f32(x / p) * p;
}

/* ---- math functions C does not have ---------------------------------------------------- */

/* math.degrees / math.radians: one multiplication by the constant rounded to
 * the float type, exactly as Numba (and CPython for float64) compute them. */
UFN_FN double ufn_degrees_f64(double x) { return x * (180.0 / UFN_PI); }
UFN_FN float  ufn_degrees_f32(float x)  { return x * (float)(180.0 / UFN_PI); }
UFN_FN double ufn_radians_f64(double x) { return x * (UFN_PI / 180.0); }
UFN_FN float  ufn_radians_f32(float x)  { return x * (float)(UFN_PI / 180.0); }

/* math.log(x, base) == log(x) / log(base), as CPython and Numba compute it. */
UFN_FN double ufn_log_base_f64(double x, double base) { return ufn_log_f64(x) / ufn_log_f64(base); }
UFN_FN float  ufn_log_base_f32(float x, float base)   { return ufn_log_f32(x) / ufn_log_f32(base); }

/* math.ldexp(x, i) with Numba's int64 i, rounded once (ufn_libm_exact.h;
 * any |i| above 2200 over- or underflows every double, so 1.0 * 2**(2**32)
 * is inf, not 1.0). */
UFN_FN double ufn_ldexp_f64(double x, int64_t i) { return ufn_libm_ldexp_f64(x, i); }
UFN_FN float  ufn_ldexp_f32(float x, int64_t i)   { return ufn_libm_ldexp_f32(x, i); }

#include "ufn_complex.h"

#endif /* UFN_MATH_H */
