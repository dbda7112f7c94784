/* tuples - device functions returning tuples (tuples.ufn): unpacked,
 * indexed, passed through a second helper, and tuples built in a kernel.
 */
#include "e2e.h"
#include "tuples.h"

int main(int argc, char **argv)
{
    e2e_start(argc, argv, "tuples");

    /* q, r = a // b, a % b; q * b + r == a (and 0 for b == 0: 0 * 0 + 0) */
    int64_t a[] = {7, -7, 7, -7, 0, 123456789, -1, INT64_MAX, 5};
    int64_t b[] = {2, 2, -2, -2, 3, -1000, 7, 10, 0};
    int64_t r[9], n = 9;
    ufn_array A = ufn_host(a, UFN_INT64, 1, &n), B = ufn_host(b, UFN_INT64, 1, &n);
    ufn_array R = ufn_host(r, UFN_INT64, 1, &n);
    e2e_begin("q, r = divmod_floor(a, b); q * b + r");
    E2E_CALL(recombine(&A, &B, &R));
    for (int i = 0; i < 9; i++) {
        int64_t want = b[i] == 0 ? 0 : a[i];
        E2E_CHECK(r[i] == want, "a = %lld, b = %lld: got %lld, expected %lld", (long long)a[i],
                  (long long)b[i], (long long)r[i], (long long)want);
    }
    e2e_end();
    sample_dump_exact("recombine", UFN_INT64, r, 9);

    /* lo, hi = bounds(a, b, c) inside a helper; float64 and int64 loops */
    double x[] = {1, 5, -2, 0.5}, y[] = {3, 1, -8, 0.5}, z[] = {2, 9, 4, 0.5}, s[4];
    int64_t xi[] = {1, 5, -2, INT64_MIN}, yi[] = {3, 1, -8, 0}, zi[] = {2, 9, 4, 5}, si[4], n4 = 4;
    ufn_array X = ufn_host(x, UFN_FLOAT64, 1, &n4), Y = ufn_host(y, UFN_FLOAT64, 1, &n4);
    ufn_array Z = ufn_host(z, UFN_FLOAT64, 1, &n4), S = ufn_host(s, UFN_FLOAT64, 1, &n4);
    ufn_array XI = ufn_host(xi, UFN_INT64, 1, &n4), YI = ufn_host(yi, UFN_INT64, 1, &n4);
    ufn_array ZI = ufn_host(zi, UFN_INT64, 1, &n4), SI = ufn_host(si, UFN_INT64, 1, &n4);
    e2e_begin("lo, hi = bounds(a, b, c) in a helper: hi - lo");
    E2E_CALL(spread(&X, &Y, &Z, &S));
    E2E_CALL(spread(&XI, &YI, &ZI, &SI));
    for (int i = 0; i < 4; i++) {
        double w = fmax(fmax(x[i], y[i]), z[i]) - fmin(fmin(x[i], y[i]), z[i]);
        int64_t hi = xi[i] > yi[i] ? xi[i] : yi[i], lo = xi[i] < yi[i] ? xi[i] : yi[i];
        hi = zi[i] > hi ? zi[i] : hi;
        lo = zi[i] < lo ? zi[i] : lo;
        E2E_CHECK(s[i] == w, "spread(%g, %g, %g) = %g, expected %g", x[i], y[i], z[i], s[i], w);
        /* int64 wraps: 5 - INT64_MIN is INT64_MIN + 5 */
        int64_t wi = (int64_t)((uint64_t)hi - (uint64_t)lo);
        E2E_CHECK(si[i] == wi, "spread(%lld, %lld, %lld) = %lld, expected %lld", (long long)xi[i],
                  (long long)yi[i], (long long)zi[i], (long long)si[i], (long long)wi);
    }
    e2e_end();
    sample_dump_exact("spread", UFN_FLOAT64, s, 4);
    sample_dump_exact("spread_i64", UFN_INT64, si, 4);

    /* p = polar(x, y); p[1]: atan2, within libm's float64 accuracy */
    double px[] = {1, -1, 0, 3, -2}, py[] = {1, 1, -1, 4, -0.0}, ang[5];
    int64_t n5 = 5;
    ufn_array PX = ufn_host(px, UFN_FLOAT64, 1, &n5), PY = ufn_host(py, UFN_FLOAT64, 1, &n5);
    ufn_array ANG = ufn_host(ang, UFN_FLOAT64, 1, &n5);
    sample_check c = sample_check_start("angle", 0, 4 * DBL_EPSILON);
    e2e_begin("p = polar(x, y); p[1]");
    E2E_CALL(angle(&PX, &PY, &ANG));
    for (int i = 0; i < 5; i++) {
        double w = atan2(py[i], px[i]);
        sample_check_value(&c, i, ang[i], w);
        E2E_CHECK(fabs(ang[i] - w) <= 4 * DBL_EPSILON * fabs(w) && signbit(ang[i]) == signbit(w),
                  "atan2(%g, %g) = %.17g, expected %.17g", py[i], px[i], ang[i], w);
    }
    e2e_end();
    sample_dump_close("angle", UFN_FLOAT64, ang, 5, &c);

    /* t = (x, y); a, b = t; t[0] * t[1] + (a - b), all float32 */
    float fx[] = {1.5f, -2.25f, 1e20f, 3.0f}, fy[] = {2.0f, 4.0f, 1e20f, 1e-8f}, fo[4];
    ufn_array FX = ufn_host(fx, UFN_FLOAT32, 1, &n4), FY = ufn_host(fy, UFN_FLOAT32, 1, &n4);
    ufn_array FO = ufn_host(fo, UFN_FLOAT32, 1, &n4);
    e2e_begin("a tuple built, unpacked and indexed in a kernel");
    E2E_CALL(packed(&FX, &FY, &FO));
    for (int i = 0; i < 4; i++) {
        float w = fx[i] * fy[i] + (fx[i] - fy[i]);
        E2E_CHECK(e2e_same_f64(fo[i], w), "packed(%g, %g) = %.9g, expected %.9g", fx[i], fy[i],
                  fo[i], w);
    }
    e2e_end();
    sample_dump_exact("packed", UFN_FLOAT32, fo, 4);
    return e2e_finish();
}
