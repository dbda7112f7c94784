/* kernels - the seven @cuda.jit kernels of the seeds (kernels.ufn), lazy,
 * launched through their generated entries int NAME(ufn_launch, ufn_array
 * *...) with the seeds' own argument types and launch shapes, each result
 * against what Numba's CUDA simulator computed on the same inputs
 * (kernels_reference.h; the inputs are built here as
 * gen_kernels_reference.py builds them).  Bit for bit, but for cos, which
 * the simulator computes in float64 and kernels in float32, and the
 * greyscale sum, which the simulator computes in float32 (NumPy 2) and
 * Numba's compiled kernels in float64: 1 ulp there.
 */
#include <complex.h>

#include "e2e.h"
#include "kernels.h"
#include "kernels_reference.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* got[i] == ref[i] bit for bit (as float or double), one check each. */
static void same_f32(const char *what, const float *got, const float *ref, size_t n)
{
    e2e_begin("%s", what);
    for (size_t i = 0; i < n; i++)
        E2E_CHECK(e2e_same_f64(got[i], ref[i]), "[%zu] = %a, Numba's simulator: %a", i, got[i], ref[i]);
    e2e_end();
}

static void same_f64(const char *what, const double *got, const double *ref, size_t n)
{
    e2e_begin("%s", what);
    for (size_t i = 0; i < n; i++)
        E2E_CHECK(e2e_same_f64(got[i], ref[i]), "[%zu] = %a, Numba's simulator: %a", i, got[i], ref[i]);
    e2e_end();
}

static void same_i32(const char *what, const int32_t *got, const int32_t *ref, size_t n)
{
    e2e_begin("%s", what);
    for (size_t i = 0; i < n; i++)
        E2E_CHECK(got[i] == ref[i], "[%zu] = %d, Numba's simulator: %d", i, (int)got[i], (int)ref[i]);
    e2e_end();
}

static void add(void)
{
    enum { N = 300, NI = 1024 };
    static float x[N], y[N], out[N];
    static int32_t xi[NI], ones[NI], outi[NI];
    for (int i = 0; i < N; i++) {
        x[i] = (float)(i * 0.5);
        y[i] = (float)(i % 7 - 3);
    }
    int64_t n[1] = {N}, ni[1] = {NI};
    ufn_array X = ufn_host(x, UFN_FLOAT32, 1, n), Y = ufn_host(y, UFN_FLOAT32, 1, n);
    ufn_array O = ufn_host(out, UFN_FLOAT32, 1, n);
    e2e_begin("add_kernel[2, 64] on float32[300]: a grid-stride loop");
    E2E_CALL(add_kernel(ufn_launch_1d(2, 64), &X, &Y, &O));
    e2e_end();
    same_f32("add_kernel float32 against Numba", out, ref_add_f32, N);
    for (int i = 0; i < NI; i++) {
        xi[i] = i;
        ones[i] = 1;
    }
    ufn_array XI = ufn_host(xi, UFN_INT32, 1, ni), ONES = ufn_host(ones, UFN_INT32, 1, ni);
    ufn_array OI = ufn_host(outi, UFN_INT32, 1, ni);
    e2e_begin("add_kernel[8, 128] on int32[1024] (seed 002)");
    E2E_CALL(add_kernel(ufn_launch_1d(8, 128), &XI, &ONES, &OI));
    e2e_end();
    same_i32("add_kernel int32 against Numba", outi, ref_add_i32, NI);
    sample_dump_exact("add_f32", UFN_FLOAT32, out, N);
    sample_dump_exact("add_i32", UFN_INT32, outi, NI);
}

static void loop_test(void)
{
    static double r[300];
    int64_t n[1] = {300};
    ufn_array R = ufn_host(r, UFN_FLOAT64, 1, n);
    e2e_begin("loop_test_kernel[2, 256] on float64[300] (seed 003)");
    E2E_CALL(loop_test_kernel(ufn_launch_1d(2, 256), &R));
    e2e_end();
    same_f64("loop_test_kernel against Numba", r, ref_loop_test, COUNT(r));
    sample_dump_exact("loop_test", UFN_FLOAT64, r, COUNT(r));
}

static void lucas(void)
{
    int32_t res[41] = {0};
    int64_t n[1] = {41};
    ufn_array N40 = ufn_scalar_int64(40), R = ufn_host(res, UFN_INT32, 1, n);
    e2e_begin("lucas_cuda[1, 256](40, int32[41]) (seed 003)");
    E2E_CALL(lucas_cuda(ufn_launch_1d(1, 256), &N40, &R));
    e2e_end();
    same_i32("lucas_cuda against Numba", res, ref_lucas, COUNT(res));
    sample_dump_exact("lucas", UFN_INT32, res, COUNT(res));
}

static void grey(void)
{
    static float rgb[20][30][3], g[20][30];
    for (int i = 0; i < 20; i++)
        for (int j = 0; j < 30; j++)
            for (int c = 0; c < 3; c++)
                rgb[i][j][c] = (float)(((i * 7 + j * 3 + c * 5) % 11) / 10.0);
    int64_t s3[3] = {20, 30, 3}, s2[2] = {20, 30};
    ufn_array RGB = ufn_host(rgb, UFN_FLOAT32, 3, s3), G = ufn_host(g, UFN_FLOAT32, 2, s2);
    e2e_begin("rgb_to_grayscale_cuda[(2, 2), (16, 16)] on a 20x30 image (seed 003)");
    E2E_CALL(rgb_to_grayscale_cuda(ufn_launch_2d(2, 2, 16, 16), &RGB, &G));
    e2e_end();
    /* Numba types 0.299 * float32 as float64 (so do ufnc and the GPU), and
     * its simulator, under NumPy 2's promotion, computes in float32: the
     * float64 sum rounded once, exactly, and the simulator within 1 ulp */
    e2e_begin("rgb_to_grayscale_cuda: the float64 sum, rounded to float32");
    for (int i = 0; i < 20; i++)
        for (int j = 0; j < 30; j++) {
            float want = (float)(0.299 * rgb[i][j][0] + 0.587 * rgb[i][j][1] + 0.114 * rgb[i][j][2]);
            E2E_CHECK(e2e_same_f64(g[i][j], want), "[%d, %d] = %a, expected %a", i, j, g[i][j], want);
        }
    e2e_end();
    e2e_begin("rgb_to_grayscale_cuda within 1 ulp of Numba's simulator");
    for (int i = 0; i < 600; i++)
        E2E_CHECK(fabsf((&g[0][0])[i] - ref_grey[i]) <= 1.2e-7f * fabsf(ref_grey[i]), "[%d] = %a, Numba: %a", i,
                  (&g[0][0])[i], ref_grey[i]);
    e2e_end();
    sample_dump_exact("grey", UFN_FLOAT32, g, 600);
}

static void mask(void)
{
    static float frame[24][40][2], m[24][40][2];
    for (int i = 0; i < 24; i++)
        for (int j = 0; j < 40; j++) {
            frame[i][j][0] = (float)(i % 5 - 2);
            frame[i][j][1] = (float)((j % 3) * 0.5);
            m[i][j][0] = (float)(((i + j) % 4) * 0.25);
            m[i][j][1] = (float)(-((i * j) % 3) * 0.5);
        }
    int64_t s[2] = {24, 40};
    ufn_array F = ufn_host(frame, UFN_COMPLEX64, 2, s), M = ufn_host(m, UFN_COMPLEX64, 2, s);
    e2e_begin("apply_mask[(3, 5), (8, 8)] on complex64 24x40 frames (seed 004)");
    E2E_CALL(apply_mask(ufn_launch_2d(3, 5, 8, 8), &F, &M));
    e2e_end();
    same_f32("apply_mask against Numba", &frame[0][0][0], ref_mask, COUNT(ref_mask));
    sample_dump_exact("mask", UFN_COMPLEX64, frame, 960);
}

static void clamp(void)
{
    static double x[500], out[500];
    for (int i = 0; i < 500; i++)
        x[i] = (i % 13) * 0.5 - 3;
    int64_t n[1] = {500};
    ufn_array X = ufn_host(x, UFN_FLOAT64, 1, n), O = ufn_host(out, UFN_FLOAT64, 1, n);
    ufn_array LO = ufn_scalar_float64(-1.5), HI = ufn_scalar_float64(2.0);
    e2e_begin("clamp_array[2, 64](float64[500], -1.5, 2.0, out), @jit clamp (seed 004)");
    E2E_CALL(clamp_array(ufn_launch_1d(2, 64), &X, &LO, &HI, &O));
    e2e_end();
    same_f64("clamp_array against Numba", out, ref_clamp, COUNT(out));
    sample_dump_exact("clamp", UFN_FLOAT64, out, 500);
}

static void cosines(void)
{
    static float x[1000], out[1000];
    for (int i = 0; i < 1000; i++)
        x[i] = (float)(-10 + 20 * (double)i / 999);
    int64_t n[1] = {1000};
    ufn_array X = ufn_host(x, UFN_FLOAT32, 1, n), O = ufn_host(out, UFN_FLOAT32, 1, n);
    e2e_begin("gpu_cos[64, 64] on float32[1000] (seed 004)");
    E2E_CALL(gpu_cos(ufn_launch_1d(64, 64), &X, &O));
    e2e_end();
    sample_check c = sample_check_start("gpu_cos", 0, 1.2e-7);
    e2e_begin("gpu_cos within 1 ulp of Numba's simulator");
    for (int i = 0; i < 1000; i++) {
        sample_check_value(&c, i, out[i], ref_cos[i]);
        E2E_CHECK(fabsf(out[i] - ref_cos[i]) <= 1.2e-7f * fabsf(ref_cos[i]) + 1e-7f, "cos(%a) = %a, Numba: %a", x[i],
                  out[i], ref_cos[i]);
    }
    e2e_end();
    sample_dump_close("cos", UFN_FLOAT32, out, 1000, &c);
}

int main(int argc, char **argv)
{
    e2e_start(argc, argv, "kernels");
    add();
    loop_test();
    lucas();
    grey();
    mask();
    clamp();
    cosines();
    return e2e_finish();
}
