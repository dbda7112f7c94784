/* typing - Numba's typing rules as ufnc compiles them (typing.ufn), checked
 * bit for bit against what Numba computes from the same source on the CPU
 * (reference.h).
 */
#include "e2e.h"
#include "reference.h"
#include "typing.h"

#define N_OF(a) ((int64_t)(sizeof(a) / sizeof((a)[0])))

/* x * 0.1 + 1.3 under 'float32(float32)': float64 arithmetic, one rounding
 * at the end, which differs from float32 arithmetic for many x. */
static void float_literals(void)
{
    enum { N = N_OF(ref_scale_x) };
    float lit[N], f32[N];
    int64_t n = N;
    ufn_array X = ufn_host((void *)ref_scale_x, UFN_FLOAT32, 1, &n);
    ufn_array L = ufn_host(lit, UFN_FLOAT32, 1, &n), F = ufn_host(f32, UFN_FLOAT32, 1, &n);
    e2e_begin("f32 * 0.1 + 1.3 computes in float64 (Numba's values)");
    E2E_CALL(scale_literal(&X, &L));
    for (int i = 0; i < N; i++)
        E2E_CHECK(e2e_same_f64(lit[i], ref_scale_literal[i]), "x = %.9g: got %.9g (%a), Numba %.9g (%a)",
                  ref_scale_x[i], lit[i], lit[i], ref_scale_literal[i], ref_scale_literal[i]);
    e2e_end();
    e2e_begin("f32 * np.float32(0.1) + np.float32(1.3) stays float32 (Numba's values)");
    E2E_CALL(scale_f32(&X, &F));
    for (int i = 0; i < N; i++)
        E2E_CHECK(e2e_same_f64(f32[i], ref_scale_f32[i]), "x = %.9g: got %.9g (%a), Numba %.9g (%a)",
                  ref_scale_x[i], f32[i], f32[i], ref_scale_f32[i], ref_scale_f32[i]);
    e2e_end();
    int differ = 0;
    for (int i = 0; i < N; i++)
        differ += lit[i] != f32[i];
    e2e_begin("the two roundings really differ");
    E2E_CHECK(differ > N / 20, "only %d of %d results differ between float64 and float32 "
              "arithmetic: is the literal computed in float32?", differ, N);
    e2e_end();
    sample_dump_exact("scale_literal", UFN_FLOAT32, lit, N);
    sample_dump_exact("scale_f32", UFN_FLOAT32, f32, N);
}

static void int_true_division(void)
{
    enum { N = N_OF(ref_div_a) };
    double q[N];
    int64_t n = N;
    ufn_array A = ufn_host((void *)ref_div_a, UFN_INT64, 1, &n);
    ufn_array B = ufn_host((void *)ref_div_b, UFN_INT64, 1, &n);
    ufn_array Q = ufn_host(q, UFN_FLOAT64, 1, &n);
    e2e_begin("int64 / int64 is float64, x / 0 is +-inf or nan (Numba's values)");
    E2E_CALL(true_div(&A, &B, &Q));
    for (int i = 0; i < N; i++)
        E2E_CHECK(e2e_same_f64(q[i], ref_div[i]), "%lld / %lld = %.17g, expected %.17g",
                  (long long)ref_div_a[i], (long long)ref_div_b[i], q[i], ref_div[i]);
    e2e_end();
    sample_dump_exact("true_div", UFN_FLOAT64, q, N);

    /* The int32 loop is chosen for int32 operands and also returns float64. */
    int32_t a[] = {7, -7, 1}, b[] = {2, 2, 0};
    double q32[3];
    int64_t n3 = 3;
    ufn_array A3 = ufn_host(a, UFN_INT32, 1, &n3), B3 = ufn_host(b, UFN_INT32, 1, &n3);
    ufn_array Q3 = ufn_host(q32, UFN_FLOAT64, 1, &n3);
    e2e_begin("int32 / int32 is float64");
    E2E_CALL(true_div(&A3, &B3, &Q3));
    const double want[] = {3.5, -3.5, INFINITY};
    for (int i = 0; i < 3; i++)
        E2E_CHECK(e2e_same_f64(q32[i], want[i]), "%d / %d = %g, expected %g", a[i], b[i], q32[i],
                  want[i]);
    e2e_end();
}

/* acc = 0; acc += f32 unifies acc to float64; x if x > 0 else 0 is float64;
 * int32 + int32 is int64 (no overflow in (a + b) // 2). */
static void unification(void)
{
    enum { NA = N_OF(ref_acc_x), NP = N_OF(ref_pos_x), NW = N_OF(ref_wide_a) };
    float acc[NA], pos[NP];
    int32_t wide[NW];
    int64_t na = NA, np_ = NP, nw = NW;
    ufn_array X = ufn_host((void *)ref_acc_x, UFN_FLOAT32, 1, &na);
    ufn_array Y = ufn_host((void *)ref_acc_y, UFN_FLOAT32, 1, &na);
    ufn_array ACC = ufn_host(acc, UFN_FLOAT32, 1, &na);
    e2e_begin("acc = 0; acc += float32 accumulates in float64 (Numba's values)");
    E2E_CALL(acc_unify(&X, &Y, &ACC));
    for (int i = 0; i < NA; i++)
        E2E_CHECK(e2e_same_f64(acc[i], ref_acc[i]), "x = %g, y = %g: got %g, expected %g",
                  ref_acc_x[i], ref_acc_y[i], acc[i], ref_acc[i]);
    e2e_end();

    ufn_array PX = ufn_host((void *)ref_pos_x, UFN_FLOAT32, 1, &np_);
    ufn_array POS = ufn_host(pos, UFN_FLOAT32, 1, &np_);
    e2e_begin("x if x > 0 else 0 (Numba's values)");
    E2E_CALL(positive(&PX, &POS));
    for (int i = 0; i < NP; i++)
        E2E_CHECK(e2e_same_f64(pos[i], ref_pos[i]), "x = %g: got %g, expected %g", ref_pos_x[i],
                  pos[i], ref_pos[i]);
    e2e_end();

    ufn_array WA = ufn_host((void *)ref_wide_a, UFN_INT32, 1, &nw);
    ufn_array WB = ufn_host((void *)ref_wide_b, UFN_INT32, 1, &nw);
    ufn_array W = ufn_host(wide, UFN_INT32, 1, &nw);
    e2e_begin("int32 + int32 is int64: (a + b) // 2 (Numba's values)");
    E2E_CALL(wide_add(&WA, &WB, &W));
    for (int i = 0; i < NW; i++)
        E2E_CHECK(wide[i] == ref_wide[i], "(%d + %d) // 2 = %d, expected %d", ref_wide_a[i],
                  ref_wide_b[i], wide[i], ref_wide[i]);
    e2e_end();
    sample_dump_exact("acc_unify", UFN_FLOAT32, acc, NA);
    sample_dump_exact("positive", UFN_FLOAT32, pos, NP);
    sample_dump_exact("wide_add", UFN_INT32, wide, NW);
}

static void gufunc_accumulator(void)
{
    enum { ROWS = 7, COLS = 13 };
    float mean[ROWS];
    int64_t shape[2] = {ROWS, COLS}, rows = ROWS;
    ufn_array A = ufn_host((void *)ref_rows, UFN_FLOAT32, 2, shape);
    ufn_array M = ufn_host(mean, UFN_FLOAT32, 1, &rows);
    e2e_begin("gufunc acc = 0; acc += v; acc / len(a) (Numba's values)");
    E2E_CALL(row_mean(&A, &M));
    for (int i = 0; i < ROWS; i++)
        E2E_CHECK(e2e_same_f64(mean[i], ref_row_mean[i]), "row %d: got %.9g, expected %.9g", i,
                  mean[i], ref_row_mean[i]);
    e2e_end();
    sample_dump_exact("row_mean", UFN_FLOAT32, mean, ROWS);
}

int main(int argc, char **argv)
{
    e2e_start(argc, argv, "typing");
    float_literals();
    int_true_division();
    unification();
    gufunc_accumulator();
    return e2e_finish();
}
