/* polar_distance - seed 001's device function returning a tuple,
 * polar_to_cartesian, used twice inside the ufunc polar_distance: the
 * distance between two points given in polar coordinates.
 */
#include "polar_distance.h"
#include "sample.h"

enum { N = 200000 };

int main(int argc, char **argv)
{
    static float rho1[N], theta1[N], rho2[N], theta2[N], dist[N];
    sample_rng rng = {1001};
    int failures = 0;

    sample_args(argc, argv);
    for (long i = 0; i < N; i++) {
        rho1[i] = (float)sample_uniform(&rng, 0.5, 1.5);
        theta1[i] = (float)sample_uniform(&rng, -SAMPLE_PI, SAMPLE_PI);
        rho2[i] = (float)sample_uniform(&rng, 0.5, 1.5);
        theta2[i] = (float)sample_uniform(&rng, -SAMPLE_PI, SAMPLE_PI);
    }

    int64_t n = N;
    ufn_array r1 = ufn_host(rho1, UFN_FLOAT32, 1, &n), t1 = ufn_host(theta1, UFN_FLOAT32, 1, &n);
    ufn_array r2 = ufn_host(rho2, UFN_FLOAT32, 1, &n), t2 = ufn_host(theta2, UFN_FLOAT32, 1, &n);
    ufn_array d = ufn_host(dist, UFN_FLOAT32, 1, &n);
    SAMPLE_CALL(polar_distance(&r1, &t1, &r2, &t2, &d));

    double mean = 0;
    for (long i = 0; i < N; i++)
        mean += dist[i];
    printf("polar_distance: %d pairs of points on the %s backend\n", N, ufn_backend());
    printf("  (%.3f, %.3f) to (%.3f, %.3f): %.6f; mean distance %.4f\n", rho1[0], theta1[0],
           rho2[0], theta2[0], dist[0], mean / N);

    /* The reference is the law of cosines in double.  The kernel works in
     * float32 cartesian coordinates: cosf/sinf within 4 ulp, products and
     * differences of values up to 1.5 give an absolute error of a few
     * float32 ulps of 1, which can dominate when the points nearly meet. */
    sample_check c = sample_check_start("polar_distance", 16 * FLT_EPSILON, 4 * FLT_EPSILON);
    for (long i = 0; i < N; i++) {
        double a = rho1[i], b = rho2[i], g = (double)theta1[i] - theta2[i];
        sample_check_value(&c, i, dist[i], sqrt(fmax(a * a + b * b - 2 * a * b * cos(g), 0)));
    }
    failures += sample_check_report(&c);
    sample_dump_close("distance", UFN_FLOAT32, dist, N, &c);
    return sample_finish("polar_distance", failures);
}
