/* ufn_math.h (tests' stand-in) - used only while stdlib/ufn_math.h is not in
 * the tree: -Istdlib comes first on the include path, so the real header
 * wins as soon as it exists.  The hand-written kernels of sim_kernels.cu need
 * nothing from it beyond <math.h>. */
#ifndef UFN_MATH_H
#define UFN_MATH_H
#include <math.h>
#include <stdint.h>
#endif
