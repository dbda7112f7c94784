/* trig - seed 002's identity cos(x)**2 + sin(x)**2, which is 1 up to
 * rounding: my_serial_function_for_gpu (float32) and the @njit helper
 * my_serial_function_for_cpu, written with np.cos/np.sin, called from
 * trig_identity_cpu (float64).
 */
#include "sample.h"
#include "trig.h"

enum { N = 1000000 };

int main(int argc, char **argv)
{
    static float x[N], one[N];
    static double xd[N], oned[N];
    sample_rng rng = {2};
    int failures = 0;

    sample_args(argc, argv);
    for (long i = 0; i < N; i++) {
        xd[i] = sample_uniform(&rng, -100, 100);
        x[i] = (float)xd[i];
    }

    int64_t n = N;
    ufn_array X = ufn_host(x, UFN_FLOAT32, 1, &n), OUT = ufn_host(one, UFN_FLOAT32, 1, &n);
    ufn_array XD = ufn_host(xd, UFN_FLOAT64, 1, &n), OUTD = ufn_host(oned, UFN_FLOAT64, 1, &n);
    SAMPLE_CALL(my_serial_function_for_gpu(&X, &OUT));
    SAMPLE_CALL(trig_identity_cpu(&XD, &OUTD));

    double lo = 2, hi = 0;
    for (long i = 0; i < N; i++) {
        lo = fmin(lo, one[i]);
        hi = fmax(hi, one[i]);
    }
    printf("trig: cos(x)**2 + sin(x)**2 for %d x in [-100, 100) on the %s backend\n", N,
           ufn_backend());
    printf("  float32 results between %.8f and %.8f\n", lo, hi);

    /* cosf and sinf within 4 ulp (libmvec) of values up to 1, squared and
     * summed in float32: a few float32 ulps of 1. */
    sample_check c = sample_check_start("float32 identity", 16 * FLT_EPSILON, 0);
    sample_check cd = sample_check_start("float64 identity", 16 * DBL_EPSILON, 0);
    for (long i = 0; i < N; i++) {
        double cx = cos(x[i]), sx = sin(x[i]), cxd = cos(xd[i]), sxd = sin(xd[i]);
        sample_check_value(&c, i, one[i], cx * cx + sx * sx);
        sample_check_value(&cd, i, oned[i], cxd * cxd + sxd * sxd);
    }
    failures += sample_check_report(&c) + sample_check_report(&cd);
    sample_dump_close("identity32", UFN_FLOAT32, one, N, &c);
    sample_dump_close("identity64", UFN_FLOAT64, oned, N, &cd);
    return sample_finish("trig", failures);
}
