/* imports - kernels built from the standard library modules ufnc carries
 * (imports.ufn: from ufnmath import clamp, lerp, sigmoid; from geometry
 * import polar_to_cartesian), against the same formulas in C.
 */
#include "e2e.h"
#include "imports.h"

enum { N = 64 };

int main(int argc, char **argv)
{
    static float x[N], u[N];
    static double a[N], b[N], t[N], m[N], s[N], rho[N], th[N], px[N], py[N];
    sample_rng rng = {9};
    int64_t n = N;

    e2e_start(argc, argv, "imports");
    for (int i = 0; i < N; i++) {
        x[i] = (float)sample_uniform(&rng, -0.5, 1.5);
        a[i] = sample_uniform(&rng, -10, 10);
        b[i] = sample_uniform(&rng, -10, 10);
        t[i] = sample_uniform(&rng, 0, 1);
        rho[i] = sample_uniform(&rng, 0, 2);
        th[i] = sample_uniform(&rng, -SAMPLE_PI, SAMPLE_PI);
    }
    a[0] = 800, a[1] = -800;    /* sigmoid must not overflow either way */

    ufn_array X = ufn_host(x, UFN_FLOAT32, 1, &n), U = ufn_host(u, UFN_FLOAT32, 1, &n);
    e2e_begin("clamp(x, 0.0, 1.0) on float32");
    E2E_CALL(unit(&X, &U));
    for (int i = 0; i < N; i++) {
        float w = x[i] < 0 ? 0.0f : x[i] > 1 ? 1.0f : x[i];
        E2E_CHECK(u[i] == w, "clamp(%g) = %g, expected %g", x[i], u[i], w);
    }
    e2e_end();
    sample_dump_exact("clamp", UFN_FLOAT32, u, N);

    ufn_array A = ufn_host(a, UFN_FLOAT64, 1, &n), B = ufn_host(b, UFN_FLOAT64, 1, &n);
    ufn_array T = ufn_host(t, UFN_FLOAT64, 1, &n), M = ufn_host(m, UFN_FLOAT64, 1, &n);
    e2e_begin("lerp(a, b, t) = a + (b - a) * t");
    E2E_CALL(mix(&A, &B, &T, &M));
    for (int i = 0; i < N; i++)
        E2E_CHECK(m[i] == a[i] + (b[i] - a[i]) * t[i], "lerp(%g, %g, %g) = %.17g, expected %.17g",
                  a[i], b[i], t[i], m[i], a[i] + (b[i] - a[i]) * t[i]);
    e2e_end();
    sample_dump_exact("lerp", UFN_FLOAT64, m, N);

    ufn_array S = ufn_host(s, UFN_FLOAT64, 1, &n);
    sample_check cs = sample_check_start("sigmoid", 0, 4 * DBL_EPSILON);
    e2e_begin("sigmoid(x), finite for x = +-800");
    E2E_CALL(logistic(&A, &S));
    for (int i = 0; i < N; i++) {
        double w = a[i] >= 0 ? 1 / (1 + exp(-a[i])) : exp(a[i]) / (1 + exp(a[i]));
        sample_check_value(&cs, i, s[i], w);
        E2E_CHECK(fabs(s[i] - w) <= 4 * DBL_EPSILON * w && !isnan(s[i]),
                  "sigmoid(%g) = %.17g, expected %.17g", a[i], s[i], w);
    }
    e2e_end();
    sample_dump_close("sigmoid", UFN_FLOAT64, s, N, &cs);

    ufn_array R = ufn_host(rho, UFN_FLOAT64, 1, &n), TH = ufn_host(th, UFN_FLOAT64, 1, &n);
    ufn_array PX = ufn_host(px, UFN_FLOAT64, 1, &n), PY = ufn_host(py, UFN_FLOAT64, 1, &n);
    sample_check cx = sample_check_start("x", 4 * DBL_EPSILON, 0), cy = cx;
    e2e_begin("x, y = polar_to_cartesian(rho, theta); and [1] of it");
    E2E_CALL(x_of(&R, &TH, &PX));
    E2E_CALL(y_of(&R, &TH, &PY));
    for (int i = 0; i < N; i++) {
        double wx = rho[i] * cos(th[i]), wy = rho[i] * sin(th[i]);
        sample_check_value(&cx, i, px[i], wx);
        sample_check_value(&cy, i, py[i], wy);
        E2E_CHECK(fabs(px[i] - wx) <= 4 * DBL_EPSILON && fabs(py[i] - wy) <= 4 * DBL_EPSILON,
                  "polar_to_cartesian(%g, %g) = (%.17g, %.17g), expected (%.17g, %.17g)", rho[i],
                  th[i], px[i], py[i], wx, wy);
    }
    e2e_end();
    sample_dump_close("x", UFN_FLOAT64, px, N, &cx);
    sample_dump_close("y", UFN_FLOAT64, py, N, &cy);
    return e2e_finish();
}
