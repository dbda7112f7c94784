/* sim_module.h - the hand-made module of sim_kernels.cu, as the CUDA
 * backend's tests see it (see sim_module.c). */
#ifndef SIM_MODULE_H
#define SIM_MODULE_H

#include "ufn_abi.h"

/* The module with simulator code (and no fatbin), and one built without
 * either (as --target=host would make it). */
extern ufn_module test_module;
extern ufn_module test_module_host_only;

extern const ufn_func test_add;        /* float32(float32, float32) */
extern const ufn_func test_half;       /* float64(int16) */
extern const ufn_func test_divmod;     /* (int32, int32) -> (int32, int32), no contiguous kernel */
extern const ufn_func test_l2_norm;    /* '(i)->()' float32 */
extern const ufn_func test_cumsum;     /* '(n)->(n)' float64 */
extern const ufn_func test_add_host_only;  /* test_add in test_module_host_only */
extern const ufn_func test_missing;    /* names kernels the module does not have */

/* The coords kernel, for launching it through the driver table. */
#define TEST_COORDS_KERNEL "ufn_test_coords"

#endif
