/* gaussian - the Gaussian probability density of seeds 001 and 004: three
 * versions of one formula.
 *
 *   gaussian_pdf      float32(float32, float32, float32), the module
 *                     constant SQRT_2PI folded at compile time
 *   cpu_gaussian_pdf  @vectorize without signatures: ufnc compiled it for
 *                     int32, int64, float32 and float64; called here on
 *                     float64 arrays, it returns float64
 *   gaussian          seed 004's float32 variant
 *
 * mean and sigma are C scalars (ufn_scalar_float32), broadcast over x.
 */
#include "gaussian.h"
#include "sample.h"

enum { N = 1000000 };

int main(int argc, char **argv)
{
    static float x[N], pdf[N], pdf3[N];
    static double x64[N], pdf64[N];
    sample_rng rng = {1};
    int failures = 0;

    sample_args(argc, argv);
    for (long i = 0; i < N; i++) {
        x64[i] = sample_uniform(&rng, -3, 3);      /* np.random.uniform(-3, 3, size=n) */
        x[i] = (float)x64[i];
    }

    int64_t n = N;
    ufn_array xs = ufn_host(x, UFN_FLOAT32, 1, &n), xd = ufn_host(x64, UFN_FLOAT64, 1, &n);
    ufn_array mean = ufn_scalar_float32(0.0f), sigma = ufn_scalar_float32(1.0f);
    ufn_array out = ufn_host(pdf, UFN_FLOAT32, 1, &n), out3 = ufn_host(pdf3, UFN_FLOAT32, 1, &n);
    ufn_array out64 = ufn_host(pdf64, UFN_FLOAT64, 1, &n);
    ufn_array mean64 = ufn_scalar_float64(0.0), sigma64 = ufn_scalar_float64(1.0);
    SAMPLE_CALL(gaussian_pdf(&xs, &mean, &sigma, &out));
    SAMPLE_CALL(gaussian(&xs, &mean, &sigma, &out3));
    SAMPLE_CALL(cpu_gaussian_pdf(&xd, &mean64, &sigma64, &out64));

    printf("gaussian: %d points in [-3, 3) on the %s backend\n", N, ufn_backend());
    printf("  pdf(%.4f) = %.7f (float32), %.7f (seed 004), %.15f (float64)\n", x[0], pdf[0],
           pdf3[0], pdf64[0]);

    /* The kernels square z = (x - mean) / sigma in float32 before exp: an
     * error of ~2 ulp in z^2 becomes z^2/2 * 2 ulp (up to 9 ulp at |z| = 3)
     * in the density, plus the float32 SQRT_2PI (the seed's own constant). */
    const double sqrt2pi_f32 = (float)sqrt(2 * SAMPLE_PI), sqrt2pi = sqrt(2 * SAMPLE_PI);
    sample_check c = sample_check_start("gaussian_pdf", 0, 16 * FLT_EPSILON);
    sample_check c3 = sample_check_start("gaussian", 0, 16 * FLT_EPSILON);
    sample_check c64 = sample_check_start("cpu_gaussian_pdf", 0, 32 * DBL_EPSILON);
    for (long i = 0; i < N; i++) {
        double z = x[i], ref = exp(-0.5 * z * z) / sqrt2pi;
        sample_check_value(&c, i, pdf[i], ref);
        sample_check_value(&c3, i, pdf3[i], ref);
        /* float64 throughout, but divided by the float32 constant, as the seed does */
        sample_check_value(&c64, i, pdf64[i], exp(-0.5 * x64[i] * x64[i]) / sqrt2pi_f32);
    }
    failures += sample_check_report(&c) + sample_check_report(&c3) + sample_check_report(&c64);
    sample_dump_close("gaussian_pdf", UFN_FLOAT32, pdf, N, &c);
    sample_dump_close("gaussian", UFN_FLOAT32, pdf3, N, &c3);
    sample_dump_close("cpu_gaussian_pdf", UFN_FLOAT64, pdf64, N, &c64);
    return sample_finish("gaussian", failures);
}
