/* kernel_module.h - the hand-made module of kernel_kernels.cu (@cuda.jit
 * kernels written as ufnc is to emit them), as the tests see it: the array
 * views kernels take, and the kernel descriptors of kernel_module.c.
 *
 * Each kernel exists in three descriptors that differ only in the host code
 * they offer: ktest_* (a block runner where the kernel can be split at its
 * barriers, else the thread entry), ktest_*_fibers (the thread entry on the
 * engine: the compiler's other form) and nothing else changes. */
#ifndef KERNEL_MODULE_H
#define KERNEL_MODULE_H

#include "ufn_abi.h"

/* Array parameters, as generated code declares them (ufn_abi.h). */
typedef struct { float *data; int64_t shape[1]; int64_t stride[1]; } ufn_view_f32_1;
typedef struct { float *data; int64_t shape[2]; int64_t stride[2]; } ufn_view_f32_2;
typedef struct { float *data; int64_t shape[3]; int64_t stride[3]; } ufn_view_f32_3;
typedef struct { int32_t *data; int64_t shape[1]; int64_t stride[1]; } ufn_view_i32_1;
typedef struct { int32_t *data; int64_t shape[2]; int64_t stride[2]; } ufn_view_i32_2;
typedef struct { double *data; int64_t shape[2]; int64_t stride[2]; } ufn_view_f64_2;
typedef struct { double *data; int64_t shape[1]; int64_t stride[1]; } ufn_view_f64_1;
typedef struct { int64_t *data; int64_t shape[1]; int64_t stride[1]; } ufn_view_i64_1;
typedef struct { uint32_t *data; int64_t shape[1]; int64_t stride[1]; } ufn_view_u32_1;
typedef struct { uint64_t *data; int64_t shape[1]; int64_t stride[1]; } ufn_view_u64_1;

#define KTEST_TPB 16     /* the tiled matmul's tile edge */
#define KTEST_WARPS 14   /* values warps() records per thread */

#ifndef __CUDACC__
extern ufn_module ktest_module;

/* add_kernel(x, y, out), grid-stride: void(float32[:] x3), void(int32[:] x3) */
extern const ufn_kernel ktest_add, ktest_add_fibers;
/* grey(rgb, out) on a 2-D grid: void(float32[:, :, :], float32[:, :]) */
extern const ufn_kernel ktest_grey, ktest_grey_fibers;
/* matmul(a, b, c), 16x16 tiles in shared memory: void(float32[:, :] x3) */
extern const ufn_kernel ktest_matmul, ktest_matmul_fibers;
/* hist(x, bins, lo, width) with atomics: void(float32[:], int32[:], float32, float32) */
extern const ufn_kernel ktest_hist, ktest_hist_fibers;
/* block_sum(x, out): dynamic shared memory, syncthreads, warp shuffles
 * (thread entry only: warp functions) */
extern const ufn_kernel ktest_block_sum;
/* fill(a, v): a[i, j] = v + 10 i + j; void(float64[:, ::1], float64) and
 * void(int32[::1, :], int32) */
extern const ufn_kernel ktest_fill;
/* fill again: void(float64[:, ::1], float64), void(float64[:, ::1], int64) */
extern const ufn_kernel ktest_pick;
/* checks: reads x[i] for every thread with no guard; shared-memory race;
 * barrier at two sites */
extern const ufn_kernel ktest_oob, ktest_race, ktest_divergent;
/* the rest of the device API (thread entries only): atomics(i32, i64, u32,
 * u64, f32, f64, old, oldf) with 32 threads, warps(out) with 64, hello(n),
 * which prints */
extern const ufn_kernel ktest_atomics, ktest_warps, ktest_hello;
/* deep(n, out): out[i] = depth(n), a recursive helper n calls deep, in a
 * module of its own that says it recurses: void(int64, int64[:]) */
extern const ufn_kernel ktest_deep;
/* one kernel whose module was built without host code */
extern const ufn_kernel ktest_no_host;
#endif

#endif
