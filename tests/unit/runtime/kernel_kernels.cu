/* kernel_kernels.cu - @cuda.jit kernels written by hand the way ufnc is to
 * emit them (the contract of ufn_kernel.h and ufn_abi.h), for the runtime's
 * kernel tests.  Above each kernel, the Python it stands for; #line
 * directives point at that source as "kernels.ufn", so that the checks of
 * the simulator name its lines.
 *
 * mk/kernelsrt.mk compiles this one file three times:
 *   cc -x c               the simulator's build, with the checks
 *   cc -x c -DUFN_HOST_ENTRY   the host backend's thread entries: no checks,
 *                         every kernel named UFN_KNAME(x) = x__host
 *   nvcc --fatbin         sm_75 and sm_90, which proves the file is valid CUDA
 *                         (ptxas -v reports registers)
 * The host side (trampolines, block runners, tables) is kernel_module.c. */
#include "ufn_kernel.h"
#include "kernel_module.h"

/* kernels.ufn:3
 * @cuda.jit
 * def add_kernel(x, y, out):
 *     start = cuda.grid(1)
 *     stride = cuda.gridsize(1)
 *     for i in range(start, x.shape[0], stride):
 *         out[i] = x[i] + y[i]
 */
UFN_JIT_KERNEL UFN_KNAME(ktest__add__f32)(ufn_view_f32_1 x, ufn_view_f32_1 y, ufn_view_f32_1 out)
{
    int64_t start = 0, stride = 0, i = 0;
    float t0;
#line 5 "kernels.ufn"
    start = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
#line 6 "kernels.ufn"
    stride = (int64_t)blockDim.x * gridDim.x;
#line 7 "kernels.ufn"
    for (i = start; i < x.shape[0]; i += stride) {
#line 8 "kernels.ufn"
        t0 = UFN_LOAD(float, &x.data[UFN_BOUNDS(i, x.shape[0], 0, "x") * x.stride[0]]) + UFN_LOAD(float, &y.data[UFN_BOUNDS(i, y.shape[0], 0, "y") * y.stride[0]]);
#line 8 "kernels.ufn"
        UFN_STORE(float, &out.data[UFN_BOUNDS(i, out.shape[0], 0, "out") * out.stride[0]], t0);
    }
}

/* The same for int32 arrays: Numba adds in int64, the store truncates. */
UFN_JIT_KERNEL UFN_KNAME(ktest__add__i32)(ufn_view_i32_1 x, ufn_view_i32_1 y, ufn_view_i32_1 out)
{
    int64_t start = 0, stride = 0, i = 0;
    int32_t t0;
#line 5 "kernels.ufn"
    start = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
#line 6 "kernels.ufn"
    stride = (int64_t)blockDim.x * gridDim.x;
#line 7 "kernels.ufn"
    for (i = start; i < x.shape[0]; i += stride) {
#line 8 "kernels.ufn"
        t0 = (int32_t)((int64_t)UFN_LOAD(int32_t, &x.data[UFN_BOUNDS(i, x.shape[0], 0, "x") * x.stride[0]]) + (int64_t)UFN_LOAD(int32_t, &y.data[UFN_BOUNDS(i, y.shape[0], 0, "y") * y.stride[0]]));
#line 8 "kernels.ufn"
        UFN_STORE(int32_t, &out.data[UFN_BOUNDS(i, out.shape[0], 0, "out") * out.stride[0]], t0);
    }
}

/* kernels.ufn:11
 * @cuda.jit
 * def grey(rgb, out):
 *     i, j = cuda.grid(2)
 *     if i < out.shape[0] and j < out.shape[1]:
 *         out[i, j] = 0.299 * rgb[i, j, 0] + 0.587 * rgb[i, j, 1] + 0.114 * rgb[i, j, 2]
 */
UFN_JIT_KERNEL UFN_KNAME(ktest__grey__f32)(ufn_view_f32_3 rgb, ufn_view_f32_2 out)
{
    int64_t i = 0, j = 0;
    float t0;
#line 13 "kernels.ufn"
    i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
#line 13 "kernels.ufn"
    j = (int64_t)blockIdx.y * blockDim.y + threadIdx.y;
#line 14 "kernels.ufn"
    if (i < out.shape[0] && j < out.shape[1]) {
#line 15 "kernels.ufn"
        t0 = (float)(0.299 * UFN_LOAD(float, &rgb.data[UFN_BOUNDS(i, rgb.shape[0], 0, "rgb") * rgb.stride[0] + UFN_BOUNDS(j, rgb.shape[1], 1, "rgb") * rgb.stride[1] + UFN_BOUNDS(0, rgb.shape[2], 2, "rgb") * rgb.stride[2]]) + 0.587 * UFN_LOAD(float, &rgb.data[UFN_BOUNDS(i, rgb.shape[0], 0, "rgb") * rgb.stride[0] + UFN_BOUNDS(j, rgb.shape[1], 1, "rgb") * rgb.stride[1] + UFN_BOUNDS(1, rgb.shape[2], 2, "rgb") * rgb.stride[2]]) + 0.114 * UFN_LOAD(float, &rgb.data[UFN_BOUNDS(i, rgb.shape[0], 0, "rgb") * rgb.stride[0] + UFN_BOUNDS(j, rgb.shape[1], 1, "rgb") * rgb.stride[1] + UFN_BOUNDS(2, rgb.shape[2], 2, "rgb") * rgb.stride[2]]));
#line 15 "kernels.ufn"
        UFN_STORE(float, &out.data[UFN_BOUNDS(i, out.shape[0], 0, "out") * out.stride[0] + UFN_BOUNDS(j, out.shape[1], 1, "out") * out.stride[1]], t0);
    }
}

/* kernels.ufn:18
 * TPB = 16
 * @cuda.jit
 * def matmul(a, b, c):
 *     sa = cuda.shared.array((TPB, TPB), float32)
 *     sb = cuda.shared.array((TPB, TPB), float32)
 *     col, row = cuda.grid(2)
 *     tx = cuda.threadIdx.x
 *     ty = cuda.threadIdx.y
 *     acc = float32(0)
 *     for t in range((a.shape[1] + TPB - 1) // TPB):
 *         sa[ty, tx] = 0
 *         sb[ty, tx] = 0
 *         if row < a.shape[0] and t * TPB + tx < a.shape[1]:
 *             sa[ty, tx] = a[row, t * TPB + tx]
 *         if col < b.shape[1] and t * TPB + ty < b.shape[0]:
 *             sb[ty, tx] = b[t * TPB + ty, col]
 *         cuda.syncthreads()
 *         for k in range(TPB):
 *             acc += sa[ty, k] * sb[k, tx]
 *         cuda.syncthreads()
 *     if row < c.shape[0] and col < c.shape[1]:
 *         c[row, col] = acc
 *
 * Shared arrays: sa at offset 0, sb at 1024; 2048 bytes in all.
 */
UFN_JIT_KERNEL UFN_KNAME(ktest__matmul__f32)(ufn_view_f32_2 a, ufn_view_f32_2 b, ufn_view_f32_2 c)
{
    UFN_SHARED_ARRAY(float, sa_mem, KTEST_TPB * KTEST_TPB, 0);
    UFN_SHARED_ARRAY(float, sb_mem, KTEST_TPB * KTEST_TPB, 1024);
    ufn_view_f32_2 sa = { sa_mem, { KTEST_TPB, KTEST_TPB }, { KTEST_TPB, 1 } };
    ufn_view_f32_2 sb = { sb_mem, { KTEST_TPB, KTEST_TPB }, { KTEST_TPB, 1 } };
    int64_t col = 0, row = 0, tx = 0, ty = 0, t = 0, k = 0, n = 0;
    float acc = 0;
#line 24 "kernels.ufn"
    col = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
#line 24 "kernels.ufn"
    row = (int64_t)blockIdx.y * blockDim.y + threadIdx.y;
#line 25 "kernels.ufn"
    tx = threadIdx.x;
#line 26 "kernels.ufn"
    ty = threadIdx.y;
#line 27 "kernels.ufn"
    acc = 0.0f;
#line 28 "kernels.ufn"
    n = (a.shape[1] + KTEST_TPB - 1) / KTEST_TPB;
    for (t = 0; t < n; t++) {
#line 29 "kernels.ufn"
        UFN_STORE(float, &sa.data[UFN_BOUNDS(ty, sa.shape[0], 0, "sa") * sa.stride[0] + UFN_BOUNDS(tx, sa.shape[1], 1, "sa") * sa.stride[1]], 0.0f);
#line 30 "kernels.ufn"
        UFN_STORE(float, &sb.data[UFN_BOUNDS(ty, sb.shape[0], 0, "sb") * sb.stride[0] + UFN_BOUNDS(tx, sb.shape[1], 1, "sb") * sb.stride[1]], 0.0f);
#line 31 "kernels.ufn"
        if (row < a.shape[0] && t * KTEST_TPB + tx < a.shape[1]) {
#line 32 "kernels.ufn"
            float v = UFN_LOAD(float, &a.data[UFN_BOUNDS(row, a.shape[0], 0, "a") * a.stride[0] + UFN_BOUNDS(t * KTEST_TPB + tx, a.shape[1], 1, "a") * a.stride[1]]);
#line 32 "kernels.ufn"
            UFN_STORE(float, &sa.data[UFN_BOUNDS(ty, sa.shape[0], 0, "sa") * sa.stride[0] + UFN_BOUNDS(tx, sa.shape[1], 1, "sa") * sa.stride[1]], v);
        }
#line 33 "kernels.ufn"
        if (col < b.shape[1] && t * KTEST_TPB + ty < b.shape[0]) {
#line 34 "kernels.ufn"
            float v = UFN_LOAD(float, &b.data[UFN_BOUNDS(t * KTEST_TPB + ty, b.shape[0], 0, "b") * b.stride[0] + UFN_BOUNDS(col, b.shape[1], 1, "b") * b.stride[1]]);
#line 34 "kernels.ufn"
            UFN_STORE(float, &sb.data[UFN_BOUNDS(ty, sb.shape[0], 0, "sb") * sb.stride[0] + UFN_BOUNDS(tx, sb.shape[1], 1, "sb") * sb.stride[1]], v);
        }
#line 35 "kernels.ufn"
        ufn_syncthreads();
#line 36 "kernels.ufn"
        for (k = 0; k < KTEST_TPB; k++) {
#line 37 "kernels.ufn"
            acc = acc + UFN_LOAD(float, &sa.data[UFN_BOUNDS(ty, sa.shape[0], 0, "sa") * sa.stride[0] + UFN_BOUNDS(k, sa.shape[1], 1, "sa") * sa.stride[1]]) * UFN_LOAD(float, &sb.data[UFN_BOUNDS(k, sb.shape[0], 0, "sb") * sb.stride[0] + UFN_BOUNDS(tx, sb.shape[1], 1, "sb") * sb.stride[1]]);
        }
#line 38 "kernels.ufn"
        ufn_syncthreads();
    }
#line 39 "kernels.ufn"
    if (row < c.shape[0] && col < c.shape[1]) {
#line 40 "kernels.ufn"
        UFN_STORE(float, &c.data[UFN_BOUNDS(row, c.shape[0], 0, "c") * c.stride[0] + UFN_BOUNDS(col, c.shape[1], 1, "c") * c.stride[1]], acc);
    }
}

/* kernels.ufn:43
 * @cuda.jit
 * def hist(x, bins, lo, width):
 *     i = cuda.grid(1)
 *     if i < x.shape[0]:
 *         k = int((x[i] - lo) / width)
 *         if 0 <= k < bins.shape[0]:
 *             cuda.atomic.add(bins, k, 1)
 */
UFN_JIT_KERNEL UFN_KNAME(ktest__hist__f32)(ufn_view_f32_1 x, ufn_view_i32_1 bins, float lo, float width)
{
    int64_t i = 0, k = 0;
#line 45 "kernels.ufn"
    i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
#line 46 "kernels.ufn"
    if (i < x.shape[0]) {
#line 47 "kernels.ufn"
        k = ufn_f32_to_i64((UFN_LOAD(float, &x.data[UFN_BOUNDS(i, x.shape[0], 0, "x") * x.stride[0]]) - lo) / width);
#line 48 "kernels.ufn"
        if (0 <= k && k < bins.shape[0]) {
#line 49 "kernels.ufn"
            (void)ufn_atomic_add_i32(&bins.data[UFN_BOUNDS(k, bins.shape[0], 0, "bins") * bins.stride[0]], 1);
        }
    }
}

/* kernels.ufn:52
 * @cuda.jit
 * def block_sum(x, out):
 *     s = cuda.shared.array(0, float32)
 *     t = cuda.threadIdx.x
 *     i = cuda.grid(1)
 *     v = float32(0)
 *     if i < x.shape[0]:
 *         v = x[i]
 *     s[t] = v
 *     cuda.syncthreads()
 *     half = cuda.blockDim.x // 2
 *     while half >= 32:
 *         if t < half:
 *             s[t] += s[t + half]
 *         cuda.syncthreads()
 *         half //= 2
 *     if t < 32:
 *         v = s[t]
 *         for d in (16, 8, 4, 2, 1):
 *             v += cuda.shfl_down_sync(0xffffffff, v, d)
 *         if t == 0:
 *             out[cuda.blockIdx.x] = v
 */
UFN_JIT_KERNEL UFN_KNAME(ktest__block_sum__f32)(ufn_view_f32_1 x, ufn_view_f32_1 out)
{
    ufn_view_f32_1 s = { (float *)ufn_dyn_shared(), { (int64_t)(ufn_dyn_shared_bytes() / 4) }, { 1 } };
    int64_t t = 0, i = 0, half = 0;
    float v = 0;
    static const int64_t ds[5] = { 16, 8, 4, 2, 1 };
#line 55 "kernels.ufn"
    t = threadIdx.x;
#line 56 "kernels.ufn"
    i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
#line 57 "kernels.ufn"
    v = 0.0f;
#line 58 "kernels.ufn"
    if (i < x.shape[0]) {
#line 59 "kernels.ufn"
        v = UFN_LOAD(float, &x.data[UFN_BOUNDS(i, x.shape[0], 0, "x") * x.stride[0]]);
    }
#line 60 "kernels.ufn"
    UFN_STORE(float, &s.data[UFN_BOUNDS(t, s.shape[0], 0, "s") * s.stride[0]], v);
#line 61 "kernels.ufn"
    ufn_syncthreads();
#line 62 "kernels.ufn"
    half = (int64_t)blockDim.x / 2;
#line 63 "kernels.ufn"
    while (half >= 32) {
#line 64 "kernels.ufn"
        if (t < half) {
#line 65 "kernels.ufn"
            float *p0 = &s.data[UFN_BOUNDS(t, s.shape[0], 0, "s") * s.stride[0]];
#line 65 "kernels.ufn"
            UFN_STORE(float, p0, UFN_LOAD(float, p0) + UFN_LOAD(float, &s.data[UFN_BOUNDS(t + half, s.shape[0], 0, "s") * s.stride[0]]));
        }
#line 66 "kernels.ufn"
        ufn_syncthreads();
#line 67 "kernels.ufn"
        half = half / 2;
    }
#line 68 "kernels.ufn"
    if (t < 32) {
#line 69 "kernels.ufn"
        v = UFN_LOAD(float, &s.data[UFN_BOUNDS(t, s.shape[0], 0, "s") * s.stride[0]]);
#line 70 "kernels.ufn"
        for (int d = 0; d < 5; d++) {
#line 71 "kernels.ufn"
            v = v + ufn_shfl_down_sync_f32(0xffffffffu, v, (unsigned)ds[d]);
        }
#line 72 "kernels.ufn"
        if (t == 0) {
#line 73 "kernels.ufn"
            UFN_STORE(float, &out.data[UFN_BOUNDS((int64_t)blockIdx.x, out.shape[0], 0, "out") * out.stride[0]], v);
        }
    }
}

/* kernels.ufn:76
 * @cuda.jit(['void(float64[:, ::1], float64)', 'void(int32[::1, :], int32)'])
 * def fill(a, v):
 *     i, j = cuda.grid(2)
 *     if i < a.shape[0] and j < a.shape[1]:
 *         a[i, j] = v + 10 * i + j
 */
UFN_JIT_KERNEL UFN_KNAME(ktest__fill__f64)(ufn_view_f64_2 a, double v)
{
    int64_t i = 0, j = 0;
#line 78 "kernels.ufn"
    i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
#line 78 "kernels.ufn"
    j = (int64_t)blockIdx.y * blockDim.y + threadIdx.y;
#line 79 "kernels.ufn"
    if (i < a.shape[0] && j < a.shape[1]) {
#line 80 "kernels.ufn"
        UFN_STORE(double, &a.data[UFN_BOUNDS(i, a.shape[0], 0, "a") * a.stride[0] + UFN_BOUNDS(j, a.shape[1], 1, "a") * a.stride[1]], v + (double)(10 * i) + (double)j);
    }
}

UFN_JIT_KERNEL UFN_KNAME(ktest__fill__i32)(ufn_view_i32_2 a, int32_t v)
{
    int64_t i = 0, j = 0;
#line 78 "kernels.ufn"
    i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
#line 78 "kernels.ufn"
    j = (int64_t)blockIdx.y * blockDim.y + threadIdx.y;
#line 79 "kernels.ufn"
    if (i < a.shape[0] && j < a.shape[1]) {
#line 80 "kernels.ufn"
        UFN_STORE(int32_t, &a.data[UFN_BOUNDS(i, a.shape[0], 0, "a") * a.stride[0] + UFN_BOUNDS(j, a.shape[1], 1, "a") * a.stride[1]], (int32_t)((int64_t)v + 10 * i + j));
    }
}

/* The same source, compiled for another signature (dispatch tests):
 * 'void(float64[:, ::1], int64)' */
UFN_JIT_KERNEL UFN_KNAME(ktest__fill__f64_i64)(ufn_view_f64_2 a, int64_t v)
{
    int64_t i = 0, j = 0;
#line 78 "kernels.ufn"
    i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
#line 78 "kernels.ufn"
    j = (int64_t)blockIdx.y * blockDim.y + threadIdx.y;
#line 79 "kernels.ufn"
    if (i < a.shape[0] && j < a.shape[1]) {
#line 80 "kernels.ufn"
        UFN_STORE(double, &a.data[UFN_BOUNDS(i, a.shape[0], 0, "a") * a.stride[0] + UFN_BOUNDS(j, a.shape[1], 1, "a") * a.stride[1]], (double)(v + 10 * i + j));
    }
}

/* kernels.ufn:83
 * @cuda.jit
 * def oob(x, out):
 *     i = cuda.grid(1)
 *     out[i] = x[i] * 2
 */
UFN_JIT_KERNEL UFN_KNAME(ktest__oob__f32)(ufn_view_f32_1 x, ufn_view_f32_1 out)
{
    int64_t i = 0;
    float t0;
#line 85 "kernels.ufn"
    i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
#line 86 "kernels.ufn"
    t0 = UFN_LOAD(float, &x.data[UFN_BOUNDS(i, x.shape[0], 0, "x") * x.stride[0]]) * 2.0f;
#line 86 "kernels.ufn"
    UFN_STORE(float, &out.data[UFN_BOUNDS(i, out.shape[0], 0, "out") * out.stride[0]], t0);
}

/* kernels.ufn:89
 * @cuda.jit
 * def race(x, out):
 *     s = cuda.shared.array(64, float32)
 *     t = cuda.threadIdx.x
 *     s[t] = x[t]
 *     out[t] = s[(t + 1) % 64]
 */
UFN_JIT_KERNEL UFN_KNAME(ktest__race__f32)(ufn_view_f32_1 x, ufn_view_f32_1 out)
{
    UFN_SHARED_ARRAY(float, s_mem, 64, 0);
    ufn_view_f32_1 s = { s_mem, { 64 }, { 1 } };
    int64_t t = 0;
    float t0;
#line 92 "kernels.ufn"
    t = threadIdx.x;
#line 93 "kernels.ufn"
    t0 = UFN_LOAD(float, &x.data[UFN_BOUNDS(t, x.shape[0], 0, "x") * x.stride[0]]);
#line 93 "kernels.ufn"
    UFN_STORE(float, &s.data[UFN_BOUNDS(t, s.shape[0], 0, "s") * s.stride[0]], t0);
#line 94 "kernels.ufn"
    t0 = UFN_LOAD(float, &s.data[UFN_BOUNDS((t + 1) % 64, s.shape[0], 0, "s") * s.stride[0]]);
#line 94 "kernels.ufn"
    UFN_STORE(float, &out.data[UFN_BOUNDS(t, out.shape[0], 0, "out") * out.stride[0]], t0);
}

/* kernels.ufn:97
 * @cuda.jit
 * def divergent(x):
 *     t = cuda.threadIdx.x
 *     if t < 16:
 *         cuda.syncthreads()
 *     else:
 *         cuda.syncthreads()
 *     x[t] = t
 */
UFN_JIT_KERNEL UFN_KNAME(ktest__divergent__f32)(ufn_view_f32_1 x)
{
    int64_t t = 0;
#line 99 "kernels.ufn"
    t = threadIdx.x;
#line 100 "kernels.ufn"
    if (t < 16) {
#line 101 "kernels.ufn"
        ufn_syncthreads();
    } else {
#line 103 "kernels.ufn"
        ufn_syncthreads();
    }
#line 104 "kernels.ufn"
    UFN_STORE(float, &x.data[UFN_BOUNDS(t, x.shape[0], 0, "x") * x.stride[0]], (float)t);
}

/* ---- the rest of the device API, each call at least once (so that nvcc
 * builds all of it, and the C builds are tested against it) ------------------ */

/* kernels.ufn:107, 32 threads of one block
 * @cuda.jit
 * def atomics(i32, i64, u32, u64, f32, f64, old):
 *     t = cuda.threadIdx.x
 *     for a in (i32, i64): add v = t + 1 to a[0], subtract it from a[1],
 *         max and min of t - 16 into a[2], a[3], and a[4] with ~(1 << t),
 *         or a[5] with 1 << t, xor a[6] with t * t
 *     for a in (u32, u64): the same with t for max and min, and
 *         inc(a, 8, 10), dec(a, 9, 10)
 *     for a in (f32, f64): add t + 1 to a[0], subtract it from a[1],
 *         max and min of t - 16.5 into a[2], a[3]
 *     if t == 0: exch and compare_and_swap on element 7 of every integer
 *         array, and the NaN rules of max, nanmax and nanmin on the float
 *         arrays' elements 4 to 7; each old value into old[]
 */
#define KTEST_ATOMIC_INTS(A, T, S, MAXV)                                                    \
    (void)ufn_atomic_add_##S(&A.data[0], (T)(t + 1));                                       \
    (void)ufn_atomic_sub_##S(&A.data[1 * A.stride[0]], (T)(t + 1));                         \
    (void)ufn_atomic_max_##S(&A.data[2 * A.stride[0]], (T)(MAXV));                          \
    (void)ufn_atomic_min_##S(&A.data[3 * A.stride[0]], (T)(MAXV));                          \
    (void)ufn_atomic_and_##S(&A.data[4 * A.stride[0]], (T)~((uint64_t)1 << t));             \
    (void)ufn_atomic_or_##S(&A.data[5 * A.stride[0]], (T)((uint64_t)1 << t));               \
    (void)ufn_atomic_xor_##S(&A.data[6 * A.stride[0]], (T)(t * t))
#define KTEST_ATOMIC_SWAPS(A, T, S, K)                                                      \
    UFN_STORE(int64_t, &old.data[(K) * old.stride[0]], (int64_t)ufn_atomic_exch_##S(&A.data[7 * A.stride[0]], (T)5)); \
    UFN_STORE(int64_t, &old.data[((K) + 1) * old.stride[0]], (int64_t)ufn_atomic_cas_##S(&A.data[7 * A.stride[0]], (T)5, (T)9)); \
    UFN_STORE(int64_t, &old.data[((K) + 2) * old.stride[0]], (int64_t)ufn_atomic_cas_##S(&A.data[7 * A.stride[0]], (T)5, (T)11))
#define KTEST_ATOMIC_FLOATS(A, T, S, K)                                                     \
    UFN_STORE(double, &oldf.data[(K) * oldf.stride[0]], (double)ufn_atomic_max_##S(&A.data[4 * A.stride[0]], (T)NAN)); \
    UFN_STORE(double, &oldf.data[((K) + 1) * oldf.stride[0]], (double)ufn_atomic_max_##S(&A.data[5 * A.stride[0]], (T)2)); \
    UFN_STORE(double, &oldf.data[((K) + 2) * oldf.stride[0]], (double)ufn_atomic_nanmax_##S(&A.data[6 * A.stride[0]], (T)3)); \
    (void)ufn_atomic_nanmax_##S(&A.data[6 * A.stride[0]], (T)NAN);                          \
    (void)ufn_atomic_nanmin_##S(&A.data[7 * A.stride[0]], (T)4);                            \
    (void)ufn_atomic_nanmin_##S(&A.data[7 * A.stride[0]], (T)NAN)

UFN_JIT_KERNEL UFN_KNAME(ktest__atomics)(ufn_view_i32_1 i32, ufn_view_i64_1 i64, ufn_view_u32_1 u32, ufn_view_u64_1 u64, ufn_view_f32_1 f32, ufn_view_f64_1 f64, ufn_view_i64_1 old, ufn_view_f64_1 oldf)
{
    int64_t t = threadIdx.x;
    (void)oldf;
#line 120 "kernels.ufn"
    KTEST_ATOMIC_INTS(i32, int32_t, i32, t - 16);
#line 121 "kernels.ufn"
    KTEST_ATOMIC_INTS(i64, int64_t, i64, t - 16);
#line 122 "kernels.ufn"
    KTEST_ATOMIC_INTS(u32, uint32_t, u32, t);
#line 123 "kernels.ufn"
    KTEST_ATOMIC_INTS(u64, uint64_t, u64, t);
#line 124 "kernels.ufn"
    (void)ufn_atomic_inc_u32(&u32.data[8 * u32.stride[0]], 10u); (void)ufn_atomic_dec_u32(&u32.data[9 * u32.stride[0]], 10u);
#line 125 "kernels.ufn"
    (void)ufn_atomic_inc_u64(&u64.data[8 * u64.stride[0]], 10u); (void)ufn_atomic_dec_u64(&u64.data[9 * u64.stride[0]], 10u);
#line 126 "kernels.ufn"
    (void)ufn_atomic_add_f32(&f32.data[0], (float)(t + 1)); (void)ufn_atomic_sub_f32(&f32.data[f32.stride[0]], (float)(t + 1));
#line 127 "kernels.ufn"
    (void)ufn_atomic_max_f32(&f32.data[2 * f32.stride[0]], (float)t - 16.5f); (void)ufn_atomic_min_f32(&f32.data[3 * f32.stride[0]], (float)t - 16.5f);
#line 128 "kernels.ufn"
    (void)ufn_atomic_add_f64(&f64.data[0], (double)(t + 1)); (void)ufn_atomic_sub_f64(&f64.data[f64.stride[0]], (double)(t + 1));
#line 129 "kernels.ufn"
    (void)ufn_atomic_max_f64(&f64.data[2 * f64.stride[0]], (double)t - 16.5); (void)ufn_atomic_min_f64(&f64.data[3 * f64.stride[0]], (double)t - 16.5);
#line 130 "kernels.ufn"
    if (t == 0) {
#line 131 "kernels.ufn"
        KTEST_ATOMIC_SWAPS(i32, int32_t, i32, 0);
#line 132 "kernels.ufn"
        KTEST_ATOMIC_SWAPS(i64, int64_t, i64, 3);
#line 133 "kernels.ufn"
        KTEST_ATOMIC_SWAPS(u32, uint32_t, u32, 6);
#line 134 "kernels.ufn"
        KTEST_ATOMIC_SWAPS(u64, uint64_t, u64, 9);
#line 135 "kernels.ufn"
        KTEST_ATOMIC_FLOATS(f32, float, f32, 0);
#line 136 "kernels.ufn"
        KTEST_ATOMIC_FLOATS(f64, double, f64, 3);
    }
}

/* kernels.ufn:139, 64 threads of one block (two warps)
 * @cuda.jit
 * def warps(out):    # out[t, k] for k in 0..13
 *     lane id, lane mask below it, a shuffle of each type and kind, a ballot,
 *     all and any, activemask, syncwarp and the fences, syncthreads_count,
 *     _and and _or
 */

UFN_JIT_KERNEL UFN_KNAME(ktest__warps)(ufn_view_i64_1 out)
{
    int64_t t = threadIdx.x;
    int64_t *o = &out.data[UFN_BOUNDS(t * KTEST_WARPS, out.shape[0], 0, "out") * out.stride[0]];
    unsigned full = 0xffffffffu;
#line 142 "kernels.ufn"
    UFN_STORE(int64_t, &o[0], (int64_t)ufn_laneid());
#line 143 "kernels.ufn"
    UFN_STORE(int64_t, &o[1], (int64_t)ufn_lanemask_lt());
#line 144 "kernels.ufn"
    UFN_STORE(int64_t, &o[2], (int64_t)ufn_shfl_sync_i32(full, (int32_t)(t * 3), 5));
#line 145 "kernels.ufn"
    UFN_STORE(int64_t, &o[3], (int64_t)ufn_shfl_up_sync_i64(full, (int64_t)t << 33, 3));
#line 146 "kernels.ufn"
    UFN_STORE(int64_t, &o[4], (int64_t)ufn_shfl_down_sync_u32(full, (uint32_t)(t + 7), 4));
#line 147 "kernels.ufn"
    UFN_STORE(int64_t, &o[5], (int64_t)ufn_shfl_xor_sync_u64(full, (uint64_t)t << 40, 31));
#line 148 "kernels.ufn"
    UFN_STORE(int64_t, &o[6], (int64_t)(ufn_shfl_sync_f32(full, (float)t * 0.5f, 31) * 2.0f));
#line 149 "kernels.ufn"
    UFN_STORE(int64_t, &o[7], (int64_t)(ufn_shfl_down_sync_f64(full, (double)t * 0.25, 1) * 4.0));
#line 150 "kernels.ufn"
    UFN_STORE(int64_t, &o[8], (int64_t)ufn_ballot_sync(full, ufn_laneid() % 2));
#line 151 "kernels.ufn"
    UFN_STORE(int64_t, &o[9], (int64_t)(ufn_all_sync(full, t >= 0) + 2 * ufn_any_sync(full, t == 5)));
#line 152 "kernels.ufn"
    UFN_STORE(int64_t, &o[10], (int64_t)ufn_activemask());
#line 153 "kernels.ufn"
    ufn_syncwarp(full);
    ufn_threadfence();
    ufn_threadfence_block();
    ufn_threadfence_system();
#line 154 "kernels.ufn"
    UFN_STORE(int64_t, &o[11], (int64_t)ufn_syncthreads_count(t % 3 == 0));
#line 155 "kernels.ufn"
    UFN_STORE(int64_t, &o[12], (int64_t)ufn_syncthreads_and(t < 64));
#line 156 "kernels.ufn"
    UFN_STORE(int64_t, &o[13], (int64_t)ufn_syncthreads_or(t == 63));
}

/* kernels.ufn:159
 * @cuda.jit
 * def hello(n):
 *     i = cuda.grid(1)
 *     if i < n:
 *         print("thread", i, "of", n)
 */
UFN_JIT_KERNEL UFN_KNAME(ktest__hello)(int64_t n)
{
    int64_t i = 0;
#line 161 "kernels.ufn"
    i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
#line 162 "kernels.ufn"
    if (i < n) {
#line 163 "kernels.ufn"
        printf("%s %lld %s %lld\n", "thread", (long long)i, "of", (long long)n);
    }
}

/* kernels.ufn:166 (a module of its own: ufn_module.recursion_frame says it
 * recurses)
 * @cuda.jit(device=True)
 * def depth(n):
 *     if n == 0:
 *         return 0
 *     return 1 + depth(n - 1)
 *
 * @cuda.jit
 * def deep(n, out):
 *     i = cuda.grid(1)
 *     if i < out.shape[0]:
 *         out[i] = depth(n)
 */
#if defined(__CUDACC__)
#define UFN_RECURSIVE static __host__ __device__
#else
#define UFN_RECURSIVE static
#endif

UFN_RECURSIVE int64_t ktest__depth__i64(int ufn_depth, int64_t n)
{
    UFN_DEPTH_CHECK(ufn_depth, int64_t)
#line 169 "kernels.ufn"
    if (n == 0) {
#line 170 "kernels.ufn"
        return 0;
    }
#line 171 "kernels.ufn"
    return ufn_add_i64(1, ktest__depth__i64(ufn_depth + 1, ufn_sub_i64(n, 1)));
}

UFN_JIT_KERNEL UFN_KNAME(ktest__deep)(int64_t n, ufn_view_i64_1 out)
{
    int64_t i = 0;
#line 176 "kernels.ufn"
    i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
#line 177 "kernels.ufn"
    if (i < out.shape[0]) {
#line 178 "kernels.ufn"
        UFN_STORE(int64_t, &out.data[UFN_BOUNDS(i, out.shape[0], 0, "out") * out.stride[0]], ktest__depth__i64(0, n));
    }
}
