/* hypot - seed 001's first @jit function (the overflow-safe hypotenuse from
 * Wikipedia, semicolons and all), called from hypot_ufunc for float64 and
 * float32.
 *
 * Written as x * sqrt(1 + (y/x)^2), it does not overflow where the naive
 * sqrt(x*x + y*y) does: hypot(1e200, 1e200) is 1.414e200, not inf.
 */
#include "hypot.h"
#include "sample.h"

enum { N = 100000 };

int main(int argc, char **argv)
{
    static double x[N], y[N], h[N];
    static float xf[N], yf[N], hf[N];
    sample_rng rng = {5};
    int failures = 0;

    sample_args(argc, argv);
    for (long i = 0; i < N; i++) {
        /* magnitudes from 1e-30 to 1e30, both signs */
        x[i] = (sample_next(&rng) & 1 ? -1 : 1) * pow(10, sample_uniform(&rng, -30, 30));
        y[i] = (sample_next(&rng) & 1 ? -1 : 1) * pow(10, sample_uniform(&rng, -30, 30));
        xf[i] = (float)x[i];
        yf[i] = (float)y[i];
    }
    x[0] = 3, y[0] = 4, xf[0] = 3, yf[0] = 4;
    x[1] = 1e200, y[1] = 1e200;

    int64_t n = N;
    ufn_array X = ufn_host(x, UFN_FLOAT64, 1, &n), Y = ufn_host(y, UFN_FLOAT64, 1, &n);
    ufn_array H = ufn_host(h, UFN_FLOAT64, 1, &n);
    ufn_array XF = ufn_host(xf, UFN_FLOAT32, 1, &n), YF = ufn_host(yf, UFN_FLOAT32, 1, &n);
    ufn_array HF = ufn_host(hf, UFN_FLOAT32, 1, &n);
    SAMPLE_CALL(hypot_ufunc(&X, &Y, &H));      /* the float64 loop */
    SAMPLE_CALL(hypot_ufunc(&XF, &YF, &HF));   /* the float32 loop, chosen by dtype */

    printf("hypot: %d pairs on the %s backend\n", N, ufn_backend());
    printf("  hypot(3, 4) = %g (float64), %g (float32); hypot(1e200, 1e200) = %g\n", h[0], hf[0],
           h[1]);

    /* A division, a product, a sum, a correctly rounded sqrt and a product:
     * a few ulps of the float type against libm's hypot. */
    sample_check c = sample_check_start("hypot_ufunc float64", 0, 4 * DBL_EPSILON);
    sample_check cf = sample_check_start("hypot_ufunc float32", 0, 4 * FLT_EPSILON);
    for (long i = 0; i < N; i++) {
        sample_check_value(&c, i, h[i], hypot(x[i], y[i]));
        sample_check_value(&cf, i, hf[i], hypot(xf[i], yf[i]));
    }
    failures += sample_check_report(&c) + sample_check_report(&cf);
    sample_dump_exact("hypot64", UFN_FLOAT64, h, N);
    sample_dump_exact("hypot32", UFN_FLOAT32, hf, N);
    return sample_finish("hypot", failures);
}
