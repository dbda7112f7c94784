/* test_kernel_launch.c - ufn_launch_kernel on the host and sim backends,
 * with the hand-written kernels of kernel_kernels.cu: a vector add with a
 * grid-stride loop, a 2-D grid, a tiled matmul in shared memory, a
 * histogram with atomics, a block reduction with barriers and warp
 * shuffles; signature dispatch and its errors; launch limits; the sim
 * checks through the public API.
 *
 * A process has one backend, so each backend runs in a child process
 * (ufn_init) that leaves its results in shared memory; the parent then
 * checks that host (block runners), host (the fiber form) and sim agree
 * bit for bit, and with a reference computed here. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "ufnrt.h"
#include "cuda/cudrv.h"   /* the simulator's statistics and latency */
#include "kernel_module.h"

/* ---- inputs and results ----------------------------------------------------------------- */

enum { N_ADD = 100003, IMG_H = 37, IMG_W = 53, MA = 70, MK = 45, MB = 33, N_HIST = 10000,
       N_BINS = 10, N_SUM = 5000, SUM_BLOCK = 256, SUM_BLOCKS = (N_SUM + SUM_BLOCK - 1) / SUM_BLOCK,
       FILL_H = 7, FILL_W = 5 };

typedef struct results {
    float add[N_ADD];
    int32_t add_i32[1000];
    float grey[IMG_H][IMG_W];
    float mat[MA][MB];
    int32_t hist[N_BINS];
    float sums[SUM_BLOCKS];
    double fill[FILL_H][FILL_W];
    int32_t fill_f[FILL_W][FILL_H];   /* an F-order (FILL_H, FILL_W) array's memory */
    /* the rest of the device API */
    int32_t at_i32[8];
    int64_t at_i64[8];
    uint32_t at_u32[10];
    uint64_t at_u64[10];
    float at_f32[8];
    double at_f64[8];
    int64_t at_old[12];
    double at_oldf[6];
    int64_t warps[64 * KTEST_WARPS];
    char hello[128];
} results;

/* The runs that compute results, then two that only check UFN_SIM_CHECK. */
enum { HOST_RUNNERS, HOST_FIBERS, SIM, NRUNS, SIM_UNCHECKED = NRUNS, SIM_BAD_ENV, NCHILDREN };
static const char *const run_names[NCHILDREN] = { "host (block runners)", "host (fibers)", "sim",
                                                  "sim, UFN_SIM_CHECK=0", "sim, UFN_SIM_CHECK=yes" };

static struct {
    results r[NRUNS];
    int failures[NCHILDREN];
} *shared;

static float x_add[N_ADD], y_add[N_ADD];
static float rgb[IMG_H][IMG_W][3];
static float ma[MA][MK], mb[MK][MB];
static float hist_x[N_HIST];
static float sum_x[N_SUM];

static void make_inputs(void)
{
    uint32_t s = 12345;
#define RAND01() ((s = s * 1664525u + 1013904223u) >> 8) * (1.0f / 16777216.0f)
    for (int i = 0; i < N_ADD; i++) {
        x_add[i] = RAND01() * 100 - 50;
        y_add[i] = RAND01();
    }
    for (int i = 0; i < IMG_H; i++)
        for (int j = 0; j < IMG_W; j++)
            for (int c = 0; c < 3; c++)
                rgb[i][j][c] = RAND01() * 255;
    for (int i = 0; i < MA; i++)
        for (int k = 0; k < MK; k++)
            ma[i][k] = RAND01() - 0.5f;
    for (int k = 0; k < MK; k++)
        for (int j = 0; j < MB; j++)
            mb[k][j] = RAND01() - 0.5f;
    for (int i = 0; i < N_HIST; i++)
        hist_x[i] = RAND01() * 1.2f - 0.1f;     /* some fall outside [0, 1) */
    for (int i = 0; i < N_SUM; i++)
        sum_x[i] = RAND01();
#undef RAND01
}

/* ---- the kernels, as a program calls them ----------------------------------------------------- */

static int run_kernel(const ufn_kernel *k, ufn_launch l, int nargs, ...)
{
    ufn_array *args[8];
    va_list ap;
    va_start(ap, nargs);
    for (int i = 0; i < nargs; i++)
        args[i] = va_arg(ap, ufn_array *);
    va_end(ap);
    int st = ufn_launch_kernel(k, &l, args);
    if (st != 0)
        print_error("%s: %s\n", k->name, ufn_error());
    return st;
}

static int which;          /* the run this child makes: HOST_RUNNERS, HOST_FIBERS, SIM */

static const ufn_kernel *form(const ufn_kernel *runners, const ufn_kernel *fibers)
{
    return which == HOST_FIBERS ? fibers : runners;
}

static void test_add(void **state)
{
    (void)state;
    results *r = &shared->r[which];
    int64_t n = N_ADD;
    ufn_array x = ufn_host(x_add, UFN_FLOAT32, 1, &n), y = ufn_host(y_add, UFN_FLOAT32, 1, &n);
    ufn_array out = ufn_host(r->add, UFN_FLOAT32, 1, &n);
    /* fewer threads than elements: the grid-stride loop covers the rest */
    assert_int_equal(run_kernel(form(&ktest_add, &ktest_add_fibers), ufn_launch_1d(64, 256), 3,
                                &x, &y, &out), 0);

    /* int32 arrays pick the other signature */
    int32_t a[1000], b[1000];
    for (int i = 0; i < 1000; i++) {
        a[i] = INT32_MAX - i;
        b[i] = i * 7;
    }
    int64_t m = 1000;
    ufn_array ai = ufn_host(a, UFN_INT32, 1, &m), bi = ufn_host(b, UFN_INT32, 1, &m);
    ufn_array oi = ufn_host(r->add_i32, UFN_INT32, 1, &m);
    assert_int_equal(run_kernel(form(&ktest_add, &ktest_add_fibers), ufn_launch_1d(3, 128), 3,
                                &ai, &bi, &oi), 0);
}

/* Device arrays stay on the device, on the thread's stream. */
static void test_add_device_arrays(void **state)
{
    (void)state;
    int64_t n = N_ADD;
    ufn_array x = ufn_host(x_add, UFN_FLOAT32, 1, &n), y = ufn_host(y_add, UFN_FLOAT32, 1, &n);
    ufn_array dx = { 0 }, dy = { 0 }, dout = { 0 };
    ufn_stream s;
    assert_int_equal(ufn_stream_create(&s), 0);
    ufn_set_stream(s);
    assert_int_equal(ufn_to_device(&x, &dx), 0);
    assert_int_equal(ufn_to_device(&y, &dy), 0);
    assert_int_equal(ufn_device_array(UFN_FLOAT32, 1, &n, &dout), 0);
    assert_int_equal(run_kernel(&ktest_add, ufn_launch_1d(128, 128), 3, &dx, &dy, &dout), 0);
    float *back = malloc(sizeof(float) * N_ADD);
    ufn_array hb = ufn_host(back, UFN_FLOAT32, 1, &n);
    assert_int_equal(ufn_copy_to_host(&dout, &hb), 0);
    assert_memory_equal(back, shared->r[which].add, sizeof(float) * N_ADD);
    free(back);
    ufn_set_stream(NULL);
    assert_int_equal(ufn_stream_destroy(s), 0);
    ufn_free(&dx);
    ufn_free(&dy);
    ufn_free(&dout);
}

static void test_grey(void **state)
{
    (void)state;
    int64_t in_shape[3] = { IMG_H, IMG_W, 3 }, out_shape[2] = { IMG_H, IMG_W };
    ufn_array in = ufn_host(rgb, UFN_FLOAT32, 3, in_shape);
    ufn_array out = ufn_host(shared->r[which].grey, UFN_FLOAT32, 2, out_shape);
    ufn_launch l = ufn_launch_2d((IMG_H + 7) / 8, (IMG_W + 15) / 16, 8, 16);
    assert_int_equal(run_kernel(form(&ktest_grey, &ktest_grey_fibers), l, 2, &in, &out), 0);
}

static void test_matmul(void **state)
{
    (void)state;
    int64_t sa[2] = { MA, MK }, sb[2] = { MK, MB }, sc[2] = { MA, MB };
    ufn_array a = ufn_host(ma, UFN_FLOAT32, 2, sa), b = ufn_host(mb, UFN_FLOAT32, 2, sb);
    ufn_array c = ufn_host(shared->r[which].mat, UFN_FLOAT32, 2, sc);
    ufn_launch l = ufn_launch_2d((MB + 15) / 16, (MA + 15) / 16, 16, 16);
    assert_int_equal(run_kernel(form(&ktest_matmul, &ktest_matmul_fibers), l, 3, &a, &b, &c), 0);
}

static void test_hist(void **state)
{
    (void)state;
    int64_t n = N_HIST, nb = N_BINS;
    int32_t *bins = shared->r[which].hist;
    memset(bins, 0, sizeof(int32_t) * N_BINS);
    ufn_array x = ufn_host(hist_x, UFN_FLOAT32, 1, &n), b = ufn_host(bins, UFN_INT32, 1, &nb);
    /* Python numbers for the float32 parameters: an int and a float */
    ufn_array lo = ufn_scalar_int64(0), width = ufn_scalar_float64(0.1);
    assert_int_equal(run_kernel(form(&ktest_hist, &ktest_hist_fibers),
                                ufn_launch_1d((N_HIST + 127) / 128, 128), 4, &x, &b, &lo, &width),
                     0);
}

static void test_block_sum(void **state)
{
    (void)state;
    int64_t n = N_SUM, nb = SUM_BLOCKS;
    ufn_array x = ufn_host(sum_x, UFN_FLOAT32, 1, &n);
    ufn_array out = ufn_host(shared->r[which].sums, UFN_FLOAT32, 1, &nb);
    ufn_launch l = ufn_launch_1d(SUM_BLOCKS, SUM_BLOCK);
    l.shared_bytes = SUM_BLOCK * sizeof(float);
    assert_int_equal(run_kernel(&ktest_block_sum, l, 2, &x, &out), 0);
    /* more dynamic shared memory than 48 KiB: the runtime opts the kernel
     * in (the simulator refuses the launch otherwise, as a GPU does) */
    float again[SUM_BLOCKS];
    ufn_array out2 = ufn_host(again, UFN_FLOAT32, 1, &nb);
    l.shared_bytes = 64 << 10;
    assert_int_equal(run_kernel(&ktest_block_sum, l, 2, &x, &out2), 0);
    assert_memory_equal(again, shared->r[which].sums, sizeof again);
}

/* Standard output of f() in buf. */
static void capture(void (*f)(void), char *buf, size_t size)
{
    fflush(stdout);
    FILE *tmp = tmpfile();
    assert_non_null(tmp);
    int saved = dup(1);
    dup2(fileno(tmp), 1);
    f();
    fflush(stdout);
    dup2(saved, 1);
    close(saved);
    rewind(tmp);
    size_t n = fread(buf, 1, size - 1, tmp);
    buf[n] = '\0';
    fclose(tmp);
}

static int hello_status;

/* A launch with no host arrays may return before the kernel ran (sim, cuda):
 * what it prints is there once the stream is synchronised, as with Numba's
 * cuda.synchronize(). */
static void say_hello(void)
{
    ufn_array n = ufn_scalar_int64(5);
    hello_status = run_kernel(&ktest_hello, ufn_launch_1d(2, 4), 1, &n);
    if (hello_status == 0)
        hello_status = ufn_synchronize();
}

/* Atomics, warp functions, barriers with predicates, fences, print: each
 * call of ufn_kernel.h's list at least once. */
static void test_device_api(void **state)
{
    (void)state;
    results *r = &shared->r[which];
    for (int k = 0; k < 8; k++) {
        r->at_i32[k] = k == 4 ? -1 : k == 7 ? 7 : 0;
        r->at_i64[k] = k == 4 ? -1 : k == 7 ? 7 : 0;
        r->at_u32[k] = k == 4 ? UINT32_MAX : k == 3 ? 100 : k == 7 ? 7 : 0;
        r->at_u64[k] = k == 4 ? UINT64_MAX : k == 3 ? 100 : k == 7 ? 7 : 0;
        double f = k == 4 ? 1.0 : k == 5 || k == 6 ? NAN : k == 7 ? 5.0 : 0.0;
        r->at_f32[k] = (float)f;
        r->at_f64[k] = f;
    }
    r->at_u32[8] = r->at_u32[9] = 0;
    r->at_u64[8] = r->at_u64[9] = 0;
    int64_t n8 = 8, n10 = 10, n12 = 12, n6 = 6, nw = 64 * KTEST_WARPS;
    ufn_array a[8] = {
        ufn_host(r->at_i32, UFN_INT32, 1, &n8), ufn_host(r->at_i64, UFN_INT64, 1, &n8),
        ufn_host(r->at_u32, UFN_UINT32, 1, &n10), ufn_host(r->at_u64, UFN_UINT64, 1, &n10),
        ufn_host(r->at_f32, UFN_FLOAT32, 1, &n8), ufn_host(r->at_f64, UFN_FLOAT64, 1, &n8),
        ufn_host(r->at_old, UFN_INT64, 1, &n12), ufn_host(r->at_oldf, UFN_FLOAT64, 1, &n6),
    };
    assert_int_equal(run_kernel(&ktest_atomics, ufn_launch_1d(1, 32), 8, &a[0], &a[1], &a[2],
                                &a[3], &a[4], &a[5], &a[6], &a[7]), 0);
    ufn_array w = ufn_host(r->warps, UFN_INT64, 1, &nw);
    assert_int_equal(run_kernel(&ktest_warps, ufn_launch_1d(1, 64), 1, &w), 0);
    capture(say_hello, r->hello, sizeof r->hello);
    assert_int_equal(hello_status, 0);
}

/* A recursive helper deeper than UFN_MAX_DEPTH: the launch fails with
 * UFN_ERR_RECURSION on every backend (the deepest call returned 0), as a
 * ufunc's call does, and the next launch works. */
static void test_recursion(void **state)
{
    (void)state;
    int64_t n = 64, out[64];
    ufn_array ao = ufn_host(out, UFN_INT64, 1, &n);
    ufn_array deep = ufn_scalar_int64(UFN_MAX_DEPTH + 10), shallow = ufn_scalar_int64(100);
    ufn_array *args[2] = { &deep, &ao };
    ufn_launch l = ufn_launch_1d(2, 32);
    assert_int_equal(ufn_launch_kernel(&ktest_deep, &l, args), UFN_ERR_RECURSION);
    assert_string_equal(ufn_error(), "deep: a recursive helper went deeper than 256 calls");
    args[0] = &shallow;
    assert_int_equal(ufn_launch_kernel(&ktest_deep, &l, args), 0);
    for (int i = 0; i < 64; i++)
        assert_int_equal(out[i], 100);
}

/* The scalar conversions of dispatch, and the F layout. */
static void test_fill_dispatch(void **state)
{
    (void)state;
    results *r = &shared->r[which];
    int64_t shape[2] = { FILL_H, FILL_W };
    ufn_array c = ufn_host(r->fill, UFN_FLOAT64, 2, shape);
    ufn_array v = ufn_scalar_int64(40);            /* an int into a float64 parameter */
    ufn_launch l = ufn_launch_2d(2, 2, 4, 4);
    assert_int_equal(run_kernel(&ktest_fill, l, 2, &c, &v), 0);
    int64_t fstrides[2] = { 1, FILL_H };
    ufn_array f = ufn_host_strided(r->fill_f, UFN_INT32, 2, shape, fstrides);
    ufn_array w = ufn_scalar_int64(-3);            /* fits int32 */
    assert_int_equal(run_kernel(&ktest_fill, l, 2, &f, &w), 0);
}

/* Which signature an argument picks, seen in the trace's kernel name. */
static char picked[64];

static void pick_hook(const ufn_event *ev, void *ctx)
{
    (void)ctx;
    if (ev->kind == UFN_EV_KERNEL)
        snprintf(picked, sizeof picked, "%s", ev->name);
}

static const char *pick(ufn_array *v, int expect)
{
    double d[FILL_H * FILL_W];
    int64_t shape[2] = { FILL_H, FILL_W };
    ufn_array c = ufn_host(d, UFN_FLOAT64, 2, shape);
    ufn_array *args[2] = { &c, v };
    ufn_launch l = ufn_launch_2d(2, 2, 4, 4);
    picked[0] = '\0';
    ufn_set_trace_hook(pick_hook, NULL);
    int st = ufn_launch_kernel(&ktest_pick, &l, args);
    ufn_set_trace_hook(NULL, NULL);
    assert_int_equal(st, expect);
    if (st == 0)
        assert_true(d[FILL_W + 2] == 12.0);    /* a[1, 2] = 0 + 10 + 2 */
    return picked;
}

static void test_fewest_conversions(void **state)
{
    (void)state;
    /* a Python int: exact for int64, a conversion for float64 */
    ufn_array i = ufn_scalar_int64(0);
    assert_string_equal(pick(&i, 0), "ktest__fill__f64_i64");
    /* a Python float: float64 only */
    ufn_array f = ufn_scalar_float64(0.0);
    assert_string_equal(pick(&f, 0), "ktest__fill__f64");
    /* a typed int32 0-d array casts safely to both: the first declared */
    int32_t zero = 0;
    ufn_array t = ufn_host(&zero, UFN_INT32, 0, NULL);
    assert_string_equal(pick(&t, 0), "ktest__fill__f64");
    /* a bool goes only into bool */
    ufn_array b = ufn_scalar_bool(1);
    pick(&b, UFN_ERR_DTYPE);
}

static void test_dispatch_errors(void **state)
{
    (void)state;
    int64_t shape[2] = { FILL_H, FILL_W }, fstrides[2] = { 1, FILL_H };
    double d[FILL_H * FILL_W];
    int32_t i32[FILL_H * FILL_W];
    ufn_launch l = ufn_launch_1d(1, 32);
    ufn_array *args[2];
    /* an int32 array with a value int32 cannot hold */
    ufn_array f = ufn_host_strided(i32, UFN_INT32, 2, shape, fstrides);
    ufn_array big = ufn_scalar_int64((int64_t)1 << 40);
    args[0] = &f;
    args[1] = &big;
    assert_int_equal(ufn_launch_kernel(&ktest_fill, &l, args), UFN_ERR_DTYPE);
    assert_string_equal(ufn_error(),
                        "fill: no signature matches the arguments (int32[::1, :], int64); the "
                        "signatures are: void(float64[:, ::1], float64), void(int32[::1, :], "
                        "int32)");
    /* float64 in Fortran order: the float64 signature wants C order */
    ufn_array fd = ufn_host_strided(d, UFN_FLOAT64, 2, shape, fstrides);
    ufn_array one = ufn_scalar_float64(1.0);
    args[0] = &fd;
    args[1] = &one;
    assert_int_equal(ufn_launch_kernel(&ktest_fill, &l, args), UFN_ERR_DTYPE);
    assert_non_null(strstr(ufn_error(), "(float64[::1, :], float64)"));
    /* a float into an int32 parameter */
    f = ufn_host_strided(i32, UFN_INT32, 2, shape, fstrides);
    args[0] = &f;
    args[1] = &one;
    assert_int_equal(ufn_launch_kernel(&ktest_fill, &l, args), UFN_ERR_DTYPE);
    /* an array where a scalar goes, and a wrong ndim */
    ufn_array c = ufn_host(d, UFN_FLOAT64, 2, shape);
    args[0] = &c;
    args[1] = &c;
    assert_int_equal(ufn_launch_kernel(&ktest_fill, &l, args), UFN_ERR_DTYPE);
    int64_t n = 35;
    ufn_array flat = ufn_host(d, UFN_FLOAT64, 1, &n);
    args[0] = &flat;
    args[1] = &one;
    assert_int_equal(ufn_launch_kernel(&ktest_fill, &l, args), UFN_ERR_DTYPE);
    assert_non_null(strstr(ufn_error(), "(float64[::1], float64)"));
    /* a bad descriptor is named by its parameter */
    ufn_array bad = c;
    bad.ndim = 40;
    args[0] = &bad;
    assert_int_equal(ufn_launch_kernel(&ktest_fill, &l, args), UFN_ERR_NDIM);
    assert_string_equal(ufn_error(), "fill: argument a: ndim 40 is outside 0..32");
    /* nothing was written by any refused launch */
    assert_int_equal(ufn_launch_kernel(&ktest_fill, NULL, args), UFN_ERR_INVALID);
}

static void expect_launch(ufn_launch l, const char *text)
{
    int64_t n = 64;
    float x[64], y[64], o[64];
    memset(o, 0, sizeof o);
    ufn_array ax = ufn_host(x, UFN_FLOAT32, 1, &n), ay = ufn_host(y, UFN_FLOAT32, 1, &n);
    ufn_array ao = ufn_host(o, UFN_FLOAT32, 1, &n);
    ufn_array *args[3] = { &ax, &ay, &ao };
    assert_int_equal(ufn_launch_kernel(&ktest_add, &l, args), UFN_ERR_LAUNCH);
    if (!strstr(ufn_error(), text))
        fail_msg("\"%s\" lacks \"%s\"", ufn_error(), text);
}

/* What every backend refuses, with the limits in the message. */
static void test_launch_limits(void **state)
{
    (void)state;
    expect_launch(ufn_launch_1d(0, 32), "add_kernel: a launch of 0 x 1 x 1 blocks of 32 x 1 x 1 "
                                        "threads: the x dimensions of the grid and of the block "
                                        "must be at least 1");
    expect_launch(ufn_launch_1d(1, 0), "of 0 x 1 x 1 threads");
    expect_launch(ufn_launch_1d(1, 1025), "add_kernel: a block of 1025 threads in x; the device "
                                          "allows 1024 x 1024 x 64 at most");
    expect_launch(ufn_launch_2d(1, 1, 64, 32), "add_kernel: a block of 2048 threads (64 x 32 x "
                                               "1); the device allows 1024 per block");
    expect_launch(ufn_launch_3d((ufn_dim3){ 1, 1, 1 }, (ufn_dim3){ 1, 1, 65 }),
                  "a block of 65 threads in z");
    expect_launch(ufn_launch_2d(1, 70000, 32, 1), "add_kernel: a grid of 70000 blocks in y; the "
                                                  "device allows 2147483647 x 65535 x 65535 at "
                                                  "most");
    ufn_launch l = ufn_launch_1d(1, 32);
    l.shared_bytes = 200000;
    expect_launch(l, "add_kernel: 200000 bytes of shared memory per block (0 static + 200000 "
                     "dynamic); the device allows 166912 (49152 without opting in");
    /* 0 in y and z means 1 */
    int64_t n = 64;
    float x[64] = { 1 }, y[64] = { 2 }, o[64];
    ufn_array ax = ufn_host(x, UFN_FLOAT32, 1, &n), ay = ufn_host(y, UFN_FLOAT32, 1, &n);
    ufn_array ao = ufn_host(o, UFN_FLOAT32, 1, &n);
    l = (ufn_launch){ { 2, 0, 0 }, { 32, 0, 0 }, 0 };
    assert_int_equal(run_kernel(&ktest_add, l, 3, &ax, &ay, &ao), 0);
    assert_true(o[0] == 3.0f && o[63] == 0.0f);
}

static void test_host_without_code(void **state)
{
    (void)state;
    int64_t n = 8;
    float x[8] = { 0 }, o[8];
    ufn_array ax = ufn_host(x, UFN_FLOAT32, 1, &n), ao = ufn_host(o, UFN_FLOAT32, 1, &n);
    ufn_array *args[3] = { &ax, &ax, &ao };
    ufn_launch l = ufn_launch_1d(1, 8);
    int st = ufn_launch_kernel(&ktest_no_host, &l, args);
    if (which == SIM) {
        assert_int_equal(st, 0);      /* it has simulator code */
    } else {
        assert_int_equal(st, UFN_ERR_NO_CODE);
        assert_non_null(strstr(ufn_error(), "built without host code"));
    }
}

/* ---- the simulator's checks through the public API ------------------------------------------- */

static void expect_fault(const ufn_kernel *k, ufn_launch l, int nargs, ufn_array **args,
                         const char *text)
{
    assert_int_equal(ufn_launch_kernel(k, &l, args), UFN_ERR_KERNEL);
    if (strcmp(ufn_error(), text) != 0)
        fail_msg("\"%s\" is not \"%s\"", ufn_error(), text);
    (void)nargs;
}

static void test_sim_checks(void **state)
{
    (void)state;
    int64_t n = 8, n64 = 64;
    float x[64], out[64];
    for (int i = 0; i < 64; i++)
        x[i] = (float)i;
    memset(out, 0, sizeof out);
    ufn_array ax = ufn_host(x, UFN_FLOAT32, 1, &n), ao = ufn_host(out, UFN_FLOAT32, 1, &n);
    ufn_array *args[2] = { &ax, &ao };
    expect_fault(&ktest_oob, ufn_launch_1d(2, 6), 2, args,
                 "oob: index 8 is out of bounds for axis 0 of x with size 8, in thread (2,0,0) "
                 "of block (1,0,0) at kernels.ufn:86");
    /* a failed launch copies nothing back */
    for (int i = 0; i < 8; i++)
        assert_true(out[i] == 0.0f);
    ufn_array bx = ufn_host(x, UFN_FLOAT32, 1, &n64), bo = ufn_host(out, UFN_FLOAT32, 1, &n64);
    args[0] = &bx;
    args[1] = &bo;
    expect_fault(&ktest_race, ufn_launch_1d(1, 64), 2, args,
                 "race: shared-memory race in block (0,0,0): thread (1,0,0) writes 4 bytes at "
                 "shared offset 4 (kernels.ufn:93) that thread (0,0,0) read (kernels.ufn:94) "
                 "with no barrier in between");
    args[0] = &bo;
    expect_fault(&ktest_divergent, ufn_launch_1d(1, 64), 1, args,
                 "divergent: divergent barrier in block (0,0,0): thread (0,0,0) waits at "
                 "kernels.ufn:101, thread (16,0,0) at kernels.ufn:103");
    /* the context survives: the next launch works */
    ufn_array small = ufn_host(x, UFN_FLOAT32, 1, &n), o8 = ufn_host(out, UFN_FLOAT32, 1, &n);
    args[0] = &small;
    args[1] = &o8;
    assert_int_equal(ufn_launch_kernel(&ktest_oob, &(ufn_launch){ { 1, 1, 1 }, { 8, 1, 1 }, 0 },
                                       args), 0);
    assert_true(out[7] == 14.0f);
}

/* A launch on device arrays only is queued work: the call returns before
 * the kernel ran (a latency holds the simulated device back), and the
 * parameters were copied when it was queued (kernel.c frees its buffer on
 * return: ASan would see the kernel read it otherwise). */
static void test_sim_async(void **state)
{
    (void)state;
    int64_t n = N_ADD;
    ufn_array x = ufn_host(x_add, UFN_FLOAT32, 1, &n), y = ufn_host(y_add, UFN_FLOAT32, 1, &n);
    ufn_array dx = { 0 }, dy = { 0 }, dout = { 0 };
    assert_int_equal(ufn_to_device(&x, &dx), 0);
    assert_int_equal(ufn_to_device(&y, &dy), 0);
    assert_int_equal(ufn_device_array(UFN_FLOAT32, 1, &n, &dout), 0);
    assert_int_equal(ufn_synchronize(), 0);
    ufn_sim_stats before, after;
    assert_int_equal(ufn_sim_get_stats(0, &before), 0);
    ufn_sim_set_latency(50000);
    assert_int_equal(run_kernel(&ktest_add, ufn_launch_1d(128, 128), 3, &dx, &dy, &dout), 0);
    assert_int_equal(ufn_sim_get_stats(0, &after), 0);
    ufn_sim_set_latency(0);
    assert_int_equal(after.pending, before.pending + 1);
    assert_int_equal(after.launches, before.launches + 1);
    float *back = malloc(sizeof(float) * N_ADD);
    ufn_array hb = ufn_host(back, UFN_FLOAT32, 1, &n);
    assert_int_equal(ufn_copy_to_host(&dout, &hb), 0);
    assert_memory_equal(back, shared->r[which].add, sizeof(float) * N_ADD);
    free(back);
    ufn_free(&dx);
    ufn_free(&dy);
    ufn_free(&dout);
}

/* A launch on device arrays returns before its kernel failed a check: the
 * next call that waits for the stream reports it, once. */
static void test_sim_fault_later(void **state)
{
    (void)state;
    int64_t n = 8;
    float x[8] = { 0 }, back[8];
    ufn_array hx = ufn_host(x, UFN_FLOAT32, 1, &n), hb = ufn_host(back, UFN_FLOAT32, 1, &n);
    ufn_array dx = { 0 }, dout = { 0 };
    assert_int_equal(ufn_to_device(&hx, &dx), 0);
    assert_int_equal(ufn_device_array(UFN_FLOAT32, 1, &n, &dout), 0);
    ufn_array *args[2] = { &dx, &dout };
    ufn_launch l = ufn_launch_1d(2, 6);
    assert_int_equal(ufn_launch_kernel(&ktest_oob, &l, args), 0);
    assert_int_equal(ufn_stream_synchronize(NULL), UFN_ERR_KERNEL);
    assert_non_null(strstr(ufn_error(), "index 8 is out of bounds for axis 0 of x with size 8, "
                                        "in thread (2,0,0) of block (1,0,0) at kernels.ufn:86"));
    assert_int_equal(ufn_stream_synchronize(NULL), 0);
    /* a copy to the host waits too */
    assert_int_equal(ufn_launch_kernel(&ktest_oob, &l, args), 0);
    assert_int_equal(ufn_copy_to_host(&dout, &hb), UFN_ERR_KERNEL);
    assert_non_null(strstr(ufn_error(), "out of bounds"));
    /* and so does the synchronisation of every stream */
    assert_int_equal(ufn_launch_kernel(&ktest_oob, &l, args), 0);
    assert_int_equal(ufn_synchronize(), UFN_ERR_KERNEL);
    assert_non_null(strstr(ufn_error(), "out of bounds"));
    assert_int_equal(ufn_synchronize(), 0);
    ufn_free(&dx);
    ufn_free(&dout);
}

/* The trace names each launch and its threads. */
static struct {
    int kernels, h2d, d2h;
    size_t threads;
    char name[64];
} seen;

static void hook(const ufn_event *ev, void *ctx)
{
    (void)ctx;
    seen.h2d += ev->kind == UFN_EV_H2D;
    seen.d2h += ev->kind == UFN_EV_D2H;
    if (ev->kind == UFN_EV_KERNEL) {
        seen.kernels++;
        seen.threads = ev->bytes;
        snprintf(seen.name, sizeof seen.name, "%s", ev->name);
    }
}

static void test_trace(void **state)
{
    (void)state;
    memset(&seen, 0, sizeof seen);
    ufn_set_trace_hook(hook, NULL);
    int64_t n = 100;
    float x[100] = { 0 }, o[100];
    ufn_array ax = ufn_host(x, UFN_FLOAT32, 1, &n), ao = ufn_host(o, UFN_FLOAT32, 1, &n);
    assert_int_equal(run_kernel(&ktest_add, ufn_launch_1d(3, 64), 3, &ax, &ax, &ao), 0);
    ufn_set_trace_hook(NULL, NULL);
    assert_int_equal(seen.kernels, 1);
    assert_int_equal(seen.threads, 192);
    assert_string_equal(seen.name, "ktest__add__f32");
    /* x passed twice is one device array: two arrays in, two back */
    assert_int_equal(seen.h2d, which == SIM ? 2 : 0);
    assert_int_equal(seen.d2h, which == SIM ? 2 : 0);
}

/* UFN_SIM_CHECK=0: the racy and the divergent kernel run to the end. */
static void test_sim_unchecked(void **state)
{
    (void)state;
    int64_t n64 = 64;
    float x[64] = { 0 }, out[64];
    ufn_array bx = ufn_host(x, UFN_FLOAT32, 1, &n64), bo = ufn_host(out, UFN_FLOAT32, 1, &n64);
    ufn_array *args[2] = { &bx, &bo };
    ufn_launch l = ufn_launch_1d(1, 64);
    assert_int_equal(ufn_launch_kernel(&ktest_race, &l, args), 0);
    args[0] = &bo;
    assert_int_equal(ufn_launch_kernel(&ktest_divergent, &l, args), 0);
    assert_true(out[63] == 63.0f);
}

/* ---- one backend per child ------------------------------------------------------------------------ */

static int run_child(int run)
{
    which = run;
    const char *backend = run >= SIM ? "sim" : "host";
    printf("---- %s\n", run_names[run]);
    fflush(stdout);
    if (run == SIM_UNCHECKED)
        setenv("UFN_SIM_CHECK", "0", 1);
    if (run == SIM_BAD_ENV) {
        setenv("UFN_SIM_CHECK", "yes", 1);
        int st = ufn_init(backend);
        printf("ufn_init(sim): %s\n", ufn_error());
        return st != UFN_ERR_INVALID ||
               strcmp(ufn_error(), "ufn_init: UFN_SIM_CHECK=yes is neither 1 (check kernels, "
                                   "the default) nor 0") != 0;
    }
    if (ufn_init(backend) != 0) {
        printf("ufn_init(%s): %s\n", backend, ufn_error());
        return 1;
    }
    ufn_host_set_threads(4);   /* several pool threads even on a small machine */
    const struct CMUnitTest all[] = {
        cmocka_unit_test(test_add),
        cmocka_unit_test(test_add_device_arrays),
        cmocka_unit_test(test_grey),
        cmocka_unit_test(test_matmul),
        cmocka_unit_test(test_hist),
        cmocka_unit_test(test_block_sum),
        cmocka_unit_test(test_device_api),
        cmocka_unit_test(test_recursion),
        cmocka_unit_test(test_fill_dispatch),
        cmocka_unit_test(test_fewest_conversions),
        cmocka_unit_test(test_dispatch_errors),
        cmocka_unit_test(test_launch_limits),
        cmocka_unit_test(test_host_without_code),
        cmocka_unit_test(test_trace),
        cmocka_unit_test(test_sim_checks),
        cmocka_unit_test(test_sim_async),
        cmocka_unit_test(test_sim_fault_later),
    };
    if (run == SIM_UNCHECKED) {
        const struct CMUnitTest unchecked[] = { cmocka_unit_test(test_sim_unchecked) };
        return cmocka_run_group_tests(unchecked, NULL, NULL);
    }
    /* the checks need the simulator; the forms need only run their kernels */
    size_t count = run == SIM ? 17 : run == HOST_FIBERS ? 8 : 14;
    return _cmocka_run_group_tests(run_names[run], all, count, NULL, NULL);
}

/* ---- the parent: results agree across runs and with a reference -------------------------------- */

static void test_runs_passed(void **state)
{
    (void)state;
    for (int r = 0; r < NCHILDREN; r++)
        if (shared->failures[r])
            fail_msg("%s: %d failures", run_names[r], shared->failures[r]);
}

static void test_runs_agree(void **state)
{
    (void)state;
    for (int r = 1; r < NRUNS; r++) {
        const results *a = &shared->r[0], *b = &shared->r[r];
        assert_memory_equal(a->add, b->add, sizeof a->add);
        assert_memory_equal(a->grey, b->grey, sizeof a->grey);
        assert_memory_equal(a->mat, b->mat, sizeof a->mat);
        assert_memory_equal(a->hist, b->hist, sizeof a->hist);
        assert_memory_equal(a->sums, b->sums, sizeof a->sums);
        assert_memory_equal(a->at_i32, b->at_i32, sizeof a->at_i32);
        assert_memory_equal(a->at_i64, b->at_i64, sizeof a->at_i64);
        assert_memory_equal(a->at_u32, b->at_u32, sizeof a->at_u32);
        assert_memory_equal(a->at_u64, b->at_u64, sizeof a->at_u64);
        assert_memory_equal(a->at_f32, b->at_f32, sizeof a->at_f32);
        assert_memory_equal(a->at_f64, b->at_f64, sizeof a->at_f64);
        assert_memory_equal(a->at_old, b->at_old, sizeof a->at_old);
        assert_memory_equal(a->at_oldf, b->at_oldf, sizeof a->at_oldf);
        assert_memory_equal(a->warps, b->warps, sizeof a->warps);
        assert_string_equal(a->hello, b->hello);
        if (r != HOST_FIBERS) {
            assert_memory_equal(a->add_i32, b->add_i32, sizeof a->add_i32);
            assert_memory_equal(a->fill, b->fill, sizeof a->fill);
            assert_memory_equal(a->fill_f, b->fill_f, sizeof a->fill_f);
        }
    }
}

static void test_reference(void **state)
{
    (void)state;
    const results *r = &shared->r[SIM];
    for (int i = 0; i < N_ADD; i++)
        assert_true(r->add[i] == x_add[i] + y_add[i]);
    for (int i = 0; i < 1000; i++)
        assert_int_equal(r->add_i32[i], (int32_t)(uint32_t)((int64_t)(INT32_MAX - i) + i * 7));
    for (int i = 0; i < IMG_H; i++)
        for (int j = 0; j < IMG_W; j++)
            assert_true(r->grey[i][j] == (float)(0.299 * rgb[i][j][0] + 0.587 * rgb[i][j][1] +
                                                 0.114 * rgb[i][j][2]));
    for (int i = 0; i < MA; i++)
        for (int j = 0; j < MB; j++) {
            float acc = 0;
            for (int k = 0; k < MK; k++)
                acc = acc + ma[i][k] * mb[k][j];
            assert_float_equal(r->mat[i][j], acc, 1e-5);
        }
    int32_t bins[N_BINS] = { 0 };
    for (int i = 0; i < N_HIST; i++) {
        int64_t k = (int64_t)((hist_x[i] - 0.0f) / (float)0.1);
        if (k >= 0 && k < N_BINS)
            bins[k]++;
    }
    assert_memory_equal(r->hist, bins, sizeof bins);
    for (int b = 0; b < SUM_BLOCKS; b++) {
        double s = 0;
        for (int i = b * SUM_BLOCK; i < (b + 1) * SUM_BLOCK && i < N_SUM; i++)
            s += sum_x[i];
        assert_float_equal(r->sums[b], s, 1e-3);
    }
    for (int i = 0; i < FILL_H; i++)
        for (int j = 0; j < FILL_W; j++) {
            assert_true(r->fill[i][j] == 40.0 + 10 * i + j);
            assert_int_equal(r->fill_f[j][i], -3 + 10 * i + j);
        }
}

/* What atomics(), warps() and hello() must leave, worked out here. */
static void test_device_api_reference(void **state)
{
    (void)state;
    const results *r = &shared->r[SIM];
    int64_t x = 0;
    for (int t = 0; t < 32; t++)
        x ^= (int64_t)t * t;
    /* add, sub, max, min, and, or, xor, then 5 / 9 / 9 after exch and two cas */
    const int64_t i32[8] = { 528, -528, 15, -16, 0, -1, x, 9 };
    const int64_t i64[8] = { 528, -528, 15, -16, (int64_t)0xFFFFFFFF00000000ull, 0xFFFFFFFF, x, 9 };
    for (int k = 0; k < 8; k++) {
        assert_int_equal(r->at_i32[k], i32[k]);
        assert_int_equal(r->at_i64[k], i64[k]);
    }
    uint64_t inc = 0, dec = 0;
    for (int t = 0; t < 32; t++) {
        inc = inc >= 10 ? 0 : inc + 1;
        dec = dec == 0 || dec > 10 ? 10 : dec - 1;
    }
    const uint64_t u32[10] = { 528, (uint32_t)-528, 31, 0, 0, 0xFFFFFFFF, (uint64_t)x, 9, inc, dec };
    const uint64_t u64[10] = { 528, (uint64_t)-528, 31, 0, 0xFFFFFFFF00000000ull, 0xFFFFFFFF,
                               (uint64_t)x, 9, inc, dec };
    for (int k = 0; k < 10; k++) {
        assert_int_equal(r->at_u32[k], u32[k]);
        assert_int_equal(r->at_u64[k], u64[k]);
    }
    static const int64_t olds[3] = { 7, 5, 9 };
    for (int k = 0; k < 12; k++)
        assert_int_equal(r->at_old[k], olds[k % 3]);
    /* max with a NaN stores nothing, nor does max into a NaN; nanmax and
     * nanmin replace a NaN in memory and ignore a NaN value */
    const double f[8] = { 528, -528, 14.5, -16.5, 1.0, NAN, 3.0, 4.0 };
    for (int k = 0; k < 8; k++) {
        if (isnan(f[k])) {
            assert_true(isnan(r->at_f32[k]) && isnan(r->at_f64[k]));
        } else {
            assert_true(r->at_f32[k] == (float)f[k]);
            assert_true(r->at_f64[k] == f[k]);
        }
    }
    for (int k = 0; k < 6; k++)
        assert_true(k % 3 == 0 ? r->at_oldf[k] == 1.0 : isnan(r->at_oldf[k]));
    for (int t = 0; t < 64; t++) {
        const int64_t *o = &r->warps[t * KTEST_WARPS];
        int l = t % 32, base = t - l;
        int64_t want[KTEST_WARPS] = {
            l, ((int64_t)1 << l) - 1, (base + 5) * 3,
            l >= 3 ? (int64_t)(t - 3) << 33 : (int64_t)t << 33,
            l + 4 < 32 ? t + 4 + 7 : t + 7, (int64_t)(base + (l ^ 31)) << 40,
            base + 31, l < 31 ? t + 1 : t, 0xAAAAAAAA, base == 0 ? 3 : 1, 0xFFFFFFFF,
            22, 1, 1,
        };
        for (int k = 0; k < KTEST_WARPS; k++)
            if (o[k] != want[k])
                fail_msg("warps: thread %d, value %d: %lld, not %lld", t, k, (long long)o[k],
                         (long long)want[k]);
    }
    assert_string_equal(r->hello, "thread 0 of 5\nthread 1 of 5\nthread 2 of 5\nthread 3 of 5\n"
                                  "thread 4 of 5\n");
}

int main(void)
{
    make_inputs();
    shared = mmap(NULL, sizeof *shared, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (shared == MAP_FAILED)
        return 1;
    for (int r = 0; r < NCHILDREN; r++) {
        fflush(NULL);
        pid_t pid = fork();
        if (pid == 0)
            { int failed = run_child(r); fflush(NULL); _exit(failed ? 1 : 0); }
        int status = 0;
        if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
            shared->failures[r] = 1;
        else if (WEXITSTATUS(status))
            shared->failures[r] = WEXITSTATUS(status);
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_runs_passed),
        cmocka_unit_test(test_runs_agree),
        cmocka_unit_test(test_reference),
        cmocka_unit_test(test_device_api_reference),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
