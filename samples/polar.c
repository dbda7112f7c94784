/* polar - cartesian to polar coordinates of correlated 2-D Gaussian points,
 * as seed 000 does with gpu_polar ('(i)->(i)') and gpu_arctan2.
 *
 * The points are one (n, 2) array of float32 [x, y] rows.  gpu_polar maps
 * each row to [rho, theta].  gpu_arctan2 is called on the columns y and x
 * directly: strided views, which Numba refuses ("non-contiguous buffer") and
 * ufnc's runtime takes as they are.  Because x and y are correlated (0.9),
 * theta peaks at pi/4 and -3pi/4.
 */
#include "polar.h"
#include "sample.h"

/* 20 bins: pi/4 and -3pi/4 fall in the middle of two of them. */
enum { NPOINTS = 200000, NBINS = 20 };

/* theta's histogram, and the centres of its two fullest bins. */
static void theta_peaks(const float *polar, long n, double peak[2])
{
    long count[NBINS] = {0};
    int first = 0, second = 1;
    for (long i = 0; i < n; i++) {
        int b = (int)((polar[2 * i + 1] + SAMPLE_PI) / (2 * SAMPLE_PI) * NBINS);
        count[b < 0 ? 0 : b >= NBINS ? NBINS - 1 : b]++;
    }
    for (int b = 0; b < NBINS; b++) {
        if (count[b] > count[first]) {
            second = first;
            first = b;
        } else if (b != first && count[b] > count[second]) {
            second = b;
        }
    }
    peak[0] = -SAMPLE_PI + (first + 0.5) * 2 * SAMPLE_PI / NBINS;
    peak[1] = -SAMPLE_PI + (second + 0.5) * 2 * SAMPLE_PI / NBINS;
}

int main(int argc, char **argv)
{
    static float points[NPOINTS][2], polar[NPOINTS][2], theta[NPOINTS];
    sample_rng rng = {2019};
    int failures = 0;

    sample_args(argc, argv);

    /* multivariate_normal([0, 0], [[1, 0.9], [0.9, 1]]) */
    for (long i = 0; i < NPOINTS; i++) {
        double z1 = sample_normal(&rng), z2 = sample_normal(&rng);
        points[i][0] = (float)z1;
        points[i][1] = (float)(0.9 * z1 + sqrt(1 - 0.9 * 0.9) * z2);
    }

    /* polar_coords = gpu_polar(points) */
    int64_t shape[2] = {NPOINTS, 2};
    ufn_array pts = ufn_host(points, UFN_FLOAT32, 2, shape);
    ufn_array out = ufn_host(polar, UFN_FLOAT32, 2, shape);
    SAMPLE_CALL(gpu_polar(&pts, &out));

    /* theta = gpu_arctan2(points[:, 1], points[:, 0]): column views, stride 2 */
    int64_t n = NPOINTS, stride = 2;
    ufn_array y = ufn_host_strided(&points[0][1], UFN_FLOAT32, 1, &n, &stride);
    ufn_array x = ufn_host_strided(&points[0][0], UFN_FLOAT32, 1, &n, &stride);
    ufn_array th = ufn_host(theta, UFN_FLOAT32, 1, &n);
    SAMPLE_CALL(gpu_arctan2(&y, &x, &th));

    double peak[2];
    theta_peaks(&polar[0][0], NPOINTS, peak);
    printf("polar: %d correlated Gaussian points on the %s backend\n", NPOINTS, ufn_backend());
    printf("  first point (%.4f, %.4f) -> rho %.4f, theta %.4f\n", points[0][0], points[0][1],
           polar[0][0], polar[0][1]);
    printf("  theta peaks near %+.3f and %+.3f (expected pi/4 = +0.785 and -3pi/4 = -2.356)\n",
           peak[0], peak[1]);

    /* rho is float32 arithmetic and a correctly rounded sqrt: a few roundings
     * of float32 (2 ulp).  atan2f: glibc documents at most 4 ulp for its
     * vector math (libmvec), which the host backend uses. */
    sample_check rho = sample_check_start("gpu_polar rho", 0.0, 2 * FLT_EPSILON);
    sample_check ang = sample_check_start("gpu_polar theta", 0.0, 4 * FLT_EPSILON);
    sample_check a2 = sample_check_start("gpu_arctan2 (strided)", 0.0, 4 * FLT_EPSILON);
    for (long i = 0; i < NPOINTS; i++) {
        double px = points[i][0], py = points[i][1];
        sample_check_value(&rho, i, polar[i][0], sqrt(px * px + py * py));
        sample_check_value(&ang, i, polar[i][1], atan2(py, px));
        sample_check_value(&a2, i, theta[i], atan2(py, px));
    }
    failures += sample_check_report(&rho) + sample_check_report(&ang) + sample_check_report(&a2);
    if (!(fabs(peak[0] - SAMPLE_PI / 4) < 0.3 && fabs(peak[1] + 3 * SAMPLE_PI / 4) < 0.3) &&
        !(fabs(peak[1] - SAMPLE_PI / 4) < 0.3 && fabs(peak[0] + 3 * SAMPLE_PI / 4) < 0.3)) {
        printf("  check theta peaks MISMATCH: found %+.3f and %+.3f\n", peak[0], peak[1]);
        failures++;
    }

    /* For tests/e2e: rho must be bit-identical on every backend, theta close. */
    static float col[NPOINTS];
    for (long i = 0; i < NPOINTS; i++)
        col[i] = polar[i][0];
    sample_dump_exact("rho", UFN_FLOAT32, col, NPOINTS);
    for (long i = 0; i < NPOINTS; i++)
        col[i] = polar[i][1];
    sample_dump_close("theta", UFN_FLOAT32, col, NPOINTS, &ang);
    sample_dump_close("arctan2", UFN_FLOAT32, theta, NPOINTS, &a2);
    return sample_finish("polar", failures);
}
