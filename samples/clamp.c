/* clamp - seed 004's helper compiled for both CPU and GPU: the @numba.jit
 * clamp(x, xmin, xmax) called from the ufunc clamp_array, in float32 and
 * float64.
 *
 * The bounds are C doubles given as weak scalars (ufn_scalar_float64): as
 * with Python floats, the array's dtype chooses the loop, so a float32 array
 * gets the float32 loop and a float32 result.  A NaN passes through: it is
 * neither below xmin nor above xmax.
 */
#include "clamp.h"
#include "sample.h"

enum { N = 100000 };

static double clamp_ref(double x, double lo, double hi)
{
    return x < lo ? lo : x > hi ? hi : x;
}

int main(int argc, char **argv)
{
    static float x[N], out[N];
    static double xd[N], outd[N];
    sample_rng rng = {4};
    int failures = 0;

    sample_args(argc, argv);
    for (long i = 0; i < N; i++) {
        xd[i] = sample_uniform(&rng, -2, 2);
        x[i] = (float)xd[i];
    }
    x[1] = NAN, xd[1] = NAN;

    int64_t n = N;
    ufn_array X = ufn_host(x, UFN_FLOAT32, 1, &n), XD = ufn_host(xd, UFN_FLOAT64, 1, &n);
    ufn_array lo = ufn_scalar_float64(-1.0), hi = ufn_scalar_float64(1.0);
    ufn_array OUT = {0}, OUTD = ufn_host(outd, UFN_FLOAT64, 1, &n);
    SAMPLE_CALL(clamp_array(&X, &lo, &hi, &OUT));     /* allocated by the call */
    SAMPLE_CALL(clamp_array(&XD, &lo, &hi, &OUTD));
    if (OUT.dtype != UFN_FLOAT32) {
        printf("  check clamp_array(float32) MISMATCH: output dtype %s, expected float32\n",
               ufn_dtype_name(OUT.dtype));
        return sample_finish("clamp", 1);
    }
    memcpy(out, OUT.data, sizeof out);
    ufn_free(&OUT);

    long below = 0, above = 0;
    for (long i = 0; i < N; i++) {
        below += out[i] == -1.0f;
        above += out[i] == 1.0f;
    }
    printf("clamp: %d values in [-2, 2) clamped to [-1, 1] on the %s backend\n", N, ufn_backend());
    printf("  %ld at -1, %ld at +1; clamp(%g) = %g, clamp(nan) = %g\n", below, above, x[0],
           out[0], out[1]);

    sample_check c = sample_check_start("clamp_array float32", 0, 0);
    sample_check cd = sample_check_start("clamp_array float64", 0, 0);
    for (long i = 0; i < N; i++) {
        sample_check_value(&c, i, out[i], clamp_ref(x[i], -1, 1));
        sample_check_value(&cd, i, outd[i], clamp_ref(xd[i], -1, 1));
    }
    failures += sample_check_report(&c) + sample_check_report(&cd);
    sample_dump_exact("clamp32", UFN_FLOAT32, out, N);
    sample_dump_exact("clamp64", UFN_FLOAT64, outd, N);
    return sample_finish("clamp", failures);
}
