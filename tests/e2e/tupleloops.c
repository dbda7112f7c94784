/* tupleloops - loops over tuples (tupleloops.ufn): a literal tuple in a
 * @vectorize body, a tuple argument of a device function, an array's shape
 * and a literal tuple with break and continue in a kernel; each result bit
 * for bit against Numba's (tupleloops_reference.h; the inputs are built
 * here as gen_tupleloops_reference.py builds them).
 */
#include "e2e.h"
#include "tupleloops.h"
#include "tupleloops_reference.h"

static void same_f64(const char *what, const double *got, const double *ref, int n)
{
    e2e_begin("%s", what);
    for (int i = 0; i < n; i++)
        E2E_CHECK(e2e_same_f64(got[i], ref[i]), "[%d] = %a, Numba: %a", i, got[i], ref[i]);
    e2e_end();
}

static void same_i64(const char *what, const int64_t *got, const int64_t *ref, int n)
{
    e2e_begin("%s", what);
    for (int i = 0; i < n; i++)
        E2E_CHECK(got[i] == ref[i], "[%d] = %lld, Numba: %lld", i, (long long)got[i], (long long)ref[i]);
    e2e_end();
}

static void horner_case(void)
{
    enum { N = 40 };
    double x[N], y[N], yf64[N];
    float xf[N], yf[N];
    for (int i = 0; i < N; i++) {
        x[i] = i * 0.125 - 2.5;
        xf[i] = (float)x[i];
    }
    int64_t n = N;
    ufn_array X = ufn_host(x, UFN_FLOAT64, 1, &n), Y = ufn_host(y, UFN_FLOAT64, 1, &n);
    ufn_array XF = ufn_host(xf, UFN_FLOAT32, 1, &n), YF = ufn_host(yf, UFN_FLOAT32, 1, &n);
    e2e_begin("horner: for c in (0.5, -1.25, 2.0, 3.0) in a @vectorize body");
    E2E_CALL(horner(&X, &Y));
    E2E_CALL(horner(&XF, &YF));
    e2e_end();
    same_f64("horner float64 against Numba", y, ref_horner_f64, N);
    for (int i = 0; i < N; i++)
        yf64[i] = yf[i];
    double want[N];
    for (int i = 0; i < N; i++)
        want[i] = ref_horner_f32[i];
    same_f64("horner float32 against Numba", yf64, want, N);
    sample_dump_exact("horner", UFN_FLOAT64, y, N);
    sample_dump_exact("horner_f32", UFN_FLOAT32, yf, N);
}

static void smooth_case(void)
{
    enum { N = 100 };
    float x[N], o[N] = {0};
    for (int i = 0; i < N; i++)
        x[i] = (float)((i * 7) % 13 - 6) * 0.75f;
    int64_t n = N;
    ufn_array X = ufn_host(x, UFN_FLOAT32, 1, &n), O = ufn_host(o, UFN_FLOAT32, 1, &n);
    e2e_begin("smooth: a device function loops over its tuple argument");
    E2E_CALL(smooth(ufn_launch_1d(2, 64), &X, &O));
    e2e_end();
    double got[N], want[N];
    for (int i = 0; i < N; i++) {
        got[i] = o[i];
        want[i] = ref_smooth[i];
    }
    same_f64("smooth against Numba's simulator", got, want, N);
    sample_dump_exact("smooth", UFN_FLOAT32, o, N);
}

static void shape_walk_case(int rows, int cols, const int64_t *ref, const char *what)
{
    enum { N = 20 };
    static double a[5 * 7];
    int64_t o[N] = {0}, sa[2] = {rows, cols}, n = N;
    ufn_array A = ufn_host(a, UFN_FLOAT64, 2, sa), O = ufn_host(o, UFN_INT64, 1, &n);
    e2e_begin("shape_walk %dx%d: for n in a.shape, for m in (3, 0, 5, 0) with break and continue", rows, cols);
    E2E_CALL(shape_walk(ufn_launch_1d(1, 32), &A, &O));
    e2e_end();
    same_i64(what, o, ref, N);
    sample_dump_exact(rows ? "shape_walk" : "shape_walk_empty", UFN_INT64, o, N);
}

int main(int argc, char **argv)
{
    e2e_start(argc, argv, "tupleloops");
    horner_case();
    smooth_case();
    shape_walk_case(5, 7, ref_shape_walk, "shape_walk 5x7 against Numba's simulator");
    shape_walk_case(0, 3, ref_shape_walk_empty, "shape_walk 0x3 against Numba's simulator");
    return e2e_finish();
}
