/* cmplx - complex64 and complex128 kernels (cmplx.ufn) against C99's
 * <complex.h> in double precision.  (Not "complex.ufn": the generated
 * complex.h would hide <complex.h>.)  Arithmetic is checked exactly on inputs
 * whose products are exact (quarters up to 8); cmath functions within a few
 * ulps of |result|.
 */
#include <complex.h>

#include "cmplx.h"
#include "e2e.h"

enum { N = 40 };

/* |got - ref| <= tol * |ref| for each part (tol 0: equal); a zero result
 * gets an absolute tolerance of tol. */
static void check_c(const char *fn, int i, double complex z, double gre, double gim,
                    double complex ref, double tol)
{
    double scale = cabs(ref) > 1 ? cabs(ref) : 1;
    int ok = tol == 0 ? gre == creal(ref) && gim == cimag(ref)
                      : fabs(gre - creal(ref)) <= tol * scale && fabs(gim - cimag(ref)) <= tol * scale;
    E2E_CHECK(ok, "%s(%g%+gj) [%d] = %.17g%+.17gj, expected %.17g%+.17gj", fn, creal(z), cimag(z),
              i, gre, gim, creal(ref), cimag(ref));
}

int main(int argc, char **argv)
{
    static ufn_complex128 z[N], r128[N], e128[N], s128[N], sw[N], q[N], rect[N];
    static ufn_complex64 z64[N], r64[N], e64[N];
    static double mag[N], ph[N], rr[N], phi[N];
    static float mag64[N];
    sample_rng rng = {64};
    int64_t n = N;

    e2e_start(argc, argv, "cmplx");
    for (int i = 0; i < N; i++) {
        z[i].re = (int)sample_uniform(&rng, -32, 32) / 4.0;
        z[i].im = (int)sample_uniform(&rng, -32, 32) / 4.0;
        z64[i].re = (float)z[i].re;
        z64[i].im = (float)z[i].im;
        rr[i] = sample_uniform(&rng, 0, 3);
        phi[i] = sample_uniform(&rng, -SAMPLE_PI, SAMPLE_PI);
    }
    z[0].re = 3, z[0].im = 4;           /* |z| = 5 exactly */
    z64[0].re = 3, z64[0].im = 4;

    ufn_array Z = ufn_host(z, UFN_COMPLEX128, 1, &n), Z64 = ufn_host(z64, UFN_COMPLEX64, 1, &n);
    ufn_array R128 = ufn_host(r128, UFN_COMPLEX128, 1, &n), R64 = ufn_host(r64, UFN_COMPLEX64, 1, &n);

    e2e_begin("z * z + 1, complex128 and complex64 (exact)");
    E2E_CALL(square_plus_one(&Z, &R128));
    E2E_CALL(square_plus_one(&Z64, &R64));
    for (int i = 0; i < N; i++) {
        double complex c = z[i].re + z[i].im * I, w = c * c + 1;
        check_c("square_plus_one", i, c, r128[i].re, r128[i].im, w, 0);
        check_c("square_plus_one64", i, c, r64[i].re, r64[i].im, w, 0);
    }
    e2e_end();
    sample_dump_exact("square_plus_one", UFN_COMPLEX128, r128, N);
    sample_dump_exact("square_plus_one64", UFN_COMPLEX64, r64, N);

    ufn_array SW = ufn_host(sw, UFN_COMPLEX128, 1, &n);
    e2e_begin("complex(z.imag, z.real) + z.conjugate() (exact)");
    E2E_CALL(swap_conj(&Z, &SW));
    for (int i = 0; i < N; i++) {
        double complex c = z[i].re + z[i].im * I;
        check_c("swap_conj", i, c, sw[i].re, sw[i].im, (cimag(c) + creal(c) * I) + conj(c), 0);
    }
    e2e_end();
    sample_dump_exact("swap_conj", UFN_COMPLEX128, sw, N);

    ufn_array MAG = ufn_host(mag, UFN_FLOAT64, 1, &n), MAG64 = ufn_host(mag64, UFN_FLOAT32, 1, &n);
    sample_check cm = sample_check_start("abs(z)", 0, 2 * DBL_EPSILON);
    sample_check cm64 = sample_check_start("abs(z64)", 0, 2 * FLT_EPSILON);
    e2e_begin("abs(z): float64 for complex128, float32 for complex64");
    E2E_CALL(magnitude(&Z, &MAG));
    E2E_CALL(magnitude(&Z64, &MAG64));
    for (int i = 0; i < N; i++) {
        double w = hypot(z[i].re, z[i].im);
        sample_check_value(&cm, i, mag[i], w);
        sample_check_value(&cm64, i, mag64[i], w);
        E2E_CHECK(fabs(mag[i] - w) <= 2 * DBL_EPSILON * w && fabs(mag64[i] - w) <= 2 * FLT_EPSILON * w,
                  "abs(%g%+gj) = %.17g / %.9g, expected %.17g", z[i].re, z[i].im, mag[i], mag64[i], w);
    }
    E2E_CHECK(mag[0] == 5 && mag64[0] == 5, "abs(3+4j) = %g / %g, expected 5", mag[0], mag64[0]);
    e2e_end();
    sample_dump_close("abs", UFN_FLOAT64, mag, N, &cm);
    sample_dump_close("abs64", UFN_FLOAT32, mag64, N, &cm64);

    /* cmath: exp, sqrt, rect, phase, and division */
    ufn_array E128 = ufn_host(e128, UFN_COMPLEX128, 1, &n), E64 = ufn_host(e64, UFN_COMPLEX64, 1, &n);
    ufn_array S128 = ufn_host(s128, UFN_COMPLEX128, 1, &n), PH = ufn_host(ph, UFN_FLOAT64, 1, &n);
    ufn_array RR = ufn_host(rr, UFN_FLOAT64, 1, &n), PHI = ufn_host(phi, UFN_FLOAT64, 1, &n);
    ufn_array RECT = ufn_host(rect, UFN_COMPLEX128, 1, &n), Q = ufn_host(q, UFN_COMPLEX128, 1, &n);
    e2e_begin("cmath.exp, sqrt, rect, phase and z / w (a few ulps of |result|)");
    E2E_CALL(exp_z(&Z, &E128));
    E2E_CALL(exp_z(&Z64, &E64));
    E2E_CALL(sqrt_z(&Z, &S128));
    E2E_CALL(from_polar(&RR, &PHI, &RECT));
    E2E_CALL(phase(&Z, &PH));
    E2E_CALL(cdiv(&SW, &Z, &Q));
    for (int i = 0; i < N; i++) {
        double complex c = z[i].re + z[i].im * I, s = sw[i].re + sw[i].im * I;
        check_c("exp", i, c, e128[i].re, e128[i].im, cexp(c), 8 * DBL_EPSILON);
        check_c("exp64", i, c, e64[i].re, e64[i].im, cexp(c), 8 * FLT_EPSILON);
        check_c("sqrt", i, c, s128[i].re, s128[i].im, csqrt(c), 4 * DBL_EPSILON);
        check_c("rect", i, rr[i] + phi[i] * I, rect[i].re, rect[i].im,
                rr[i] * cos(phi[i]) + rr[i] * sin(phi[i]) * I, 4 * DBL_EPSILON);
        check_c("phase", i, c, ph[i], 0, carg(c), 4 * DBL_EPSILON);
        if (cabs(c) != 0)
            check_c("div", i, s, q[i].re, q[i].im, s / c, 4 * DBL_EPSILON);
    }
    e2e_end();
    return e2e_finish();
}
