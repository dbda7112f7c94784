/* ufn_math_calls.h - call every row of compiler/math.def once, with the
 * argument types its kind promises (see math.def).  Compiled by
 * test_ufn_math.c (host C) and ufn_math_device.cu (CUDA device code, C++,
 * and C as the simulator compiles it), so a row whose C name does not exist,
 * takes other arguments, or is not callable on the device breaks the build.
 */
#ifndef UFN_MATH_CALLS_H
#define UFN_MATH_CALLS_H

#include "ufn_math.h"

/* One macro per kind and argument count: float32 row + float64 row. */
#define CALL_MK_FLOAT_1(f32, f64)   (double)f32(x) + f64(y)
#define CALL_MK_FLOAT_2(f32, f64)   (double)f32(x, x) + f64(y, y)
#define CALL_MK_ROUND_1(f32, f64)   (double)f32(x) + f64(y)
#define CALL_MK_PRED_1(f32, f64)    (double)(f32(x) + f64(y))
#define CALL_MK_POW_2(f32, f64)     (double)f32(x, x) + f64(y, y)
#define CALL_MK_LDEXP_2(f32, f64)   (double)f32(x, n) + f64(y, n)
#define CALL_CK_COMPLEX_1(c64, c128) (double)c64(w).re + c128(z).im
#define CALL_CK_COMPLEX_2(c64, c128) (double)c64(w, w).im + c128(z, z).re
#define CALL_CK_REAL_1(c64, c128)    (double)c64(w) + c128(z)
#define CALL_CK_PRED_1(c64, c128)    (double)(c64(w) + c128(z))
#define CALL_CK_RECT_2(c64, c128)    (double)c64(x, x).re + c128(y, y).im
#define CALL_CK_POLAR_1(c64, c128)   (double)c64(w) + c128(z)

UFN_FN double ufn_test_math_def(float x, double y, int64_t n, ufn_c64 w, ufn_c128 z)
{
    double acc = 0.0;
#define MATH(py, nargs, kind, f32, f64)    acc += CALL_##kind##_##nargs(f32, f64);
#define CMATH(py, nargs, kind, c64, c128)  acc += CALL_##kind##_##nargs(c64, c128);
#define CONST(py, value)                   acc += (value);
#define CCONST(py, r, i)                   acc += ufn_c128_make(r, i).im;
#include "math.def"
    return acc;
}

#endif /* UFN_MATH_CALLS_H */
