/* l2_norm - the length of each row vector, with seed 001's gufunc
 * '(i)->()'.
 *
 * The seed's test first: points on the unit circle, whose norm is 1 "up to
 * rounding errors".  Then 100000 random vectors of 16 components.  The
 * kernel accumulates float32 squares in float64 (acc = 0.0) and rounds the
 * square root to float32.
 */
#include "l2_norm.h"
#include "sample.h"

enum { NCIRCLE = 10, NVEC = 100000, DIM = 16 };

int main(int argc, char **argv)
{
    static float coords[NCIRCLE][2], circle[NCIRCLE], vecs[NVEC][DIM], norms[NVEC];
    sample_rng rng = {16};
    int failures = 0;

    sample_args(argc, argv);
    for (int i = 0; i < NCIRCLE; i++) {           /* np.stack([cos(angles), sin(angles)], 1) */
        double angle = sample_uniform(&rng, -SAMPLE_PI, SAMPLE_PI);
        coords[i][0] = (float)cos(angle);
        coords[i][1] = (float)sin(angle);
    }
    for (long i = 0; i < NVEC; i++)
        for (int j = 0; j < DIM; j++)
            vecs[i][j] = (float)sample_normal(&rng);

    int64_t cshape[2] = {NCIRCLE, 2}, vshape[2] = {NVEC, DIM}, nc = NCIRCLE, nv = NVEC;
    ufn_array c_in = ufn_host(coords, UFN_FLOAT32, 2, cshape);
    ufn_array c_out = ufn_host(circle, UFN_FLOAT32, 1, &nc);
    ufn_array v_in = ufn_host(vecs, UFN_FLOAT32, 2, vshape);
    ufn_array v_out = ufn_host(norms, UFN_FLOAT32, 1, &nv);
    SAMPLE_CALL(l2_norm(&c_in, &c_out));
    SAMPLE_CALL(l2_norm(&v_in, &v_out));

    printf("l2_norm: on the %s backend\n", ufn_backend());
    printf("  unit circle:");
    for (int i = 0; i < NCIRCLE; i++)
        printf(" %.7f", circle[i]);
    printf("\n  %d random vectors of %d: first norm %.6f\n", NVEC, DIM, norms[0]);

    /* float32 squares summed in float64, one rounding at the end: within
     * 1 ulp of the exact norm (the squares' roundings are below it). */
    sample_check cc = sample_check_start("unit circle", 0, 2 * FLT_EPSILON);
    sample_check cv = sample_check_start("random vectors", 0, 2 * FLT_EPSILON);
    for (int i = 0; i < NCIRCLE; i++)
        sample_check_value(&cc, i, circle[i], hypot(coords[i][0], coords[i][1]));
    for (long i = 0; i < NVEC; i++) {
        double acc = 0;
        for (int j = 0; j < DIM; j++)
            acc += (double)vecs[i][j] * vecs[i][j];
        sample_check_value(&cv, i, norms[i], sqrt(acc));
    }
    failures += sample_check_report(&cc) + sample_check_report(&cv);
    sample_dump_exact("circle", UFN_FLOAT32, circle, NCIRCLE);
    sample_dump_exact("norms", UFN_FLOAT32, norms, NVEC);
    return sample_finish("l2_norm", failures);
}
