/* add - the first ufuncs of seed 001: add_ten, a @vectorize without
 * signatures (ufnc compiled it for int32, int64, float32 and float64), and
 * add_ufunc, int64(int64, int64), with NumPy's broadcasting:
 *
 *     a = np.array([1, 2, 3, 4]); b = np.array([10, 20, 30, 40])
 *     c = np.arange(4*4).reshape((4, 4))
 *     add_ufunc(a, b)   ->  [11 22 33 44]
 *     add_ufunc(b, c)   ->  b added to every row of c
 *     add_ten(np.arange(10))
 */
#include "add.h"
#include "sample.h"

static void print_i64(const char *label, const int64_t *v, int rows, int cols)
{
    printf("  %-16s", label);
    for (int r = 0; r < rows; r++) {
        printf(r ? "\n  %-16s[" : "[", "");
        for (int c = 0; c < cols; c++)
            printf(c ? " %3lld" : "%3lld", (long long)v[r * cols + c]);
        printf("]");
    }
    printf("\n");
}

int main(int argc, char **argv)
{
    int64_t a[4] = {1, 2, 3, 4}, b[4] = {10, 20, 30, 40}, c[4][4], nums[10];
    int64_t ab[4], bc[4][4], ten[10];
    float f[3] = {0.5f, -1.25f, 1e8f};
    double ften[3];
    int failures = 0;

    sample_args(argc, argv);
    for (int i = 0; i < 16; i++)
        c[i / 4][i % 4] = i;
    for (int i = 0; i < 10; i++)
        nums[i] = i;

    int64_t s4 = 4, s44[2] = {4, 4}, s10 = 10, s3 = 3;
    ufn_array A = ufn_host(a, UFN_INT64, 1, &s4), B = ufn_host(b, UFN_INT64, 1, &s4);
    ufn_array C = ufn_host(c, UFN_INT64, 2, s44), NUMS = ufn_host(nums, UFN_INT64, 1, &s10);
    ufn_array AB = ufn_host(ab, UFN_INT64, 1, &s4), BC = ufn_host(bc, UFN_INT64, 2, s44);
    ufn_array TEN = ufn_host(ten, UFN_INT64, 1, &s10);
    SAMPLE_CALL(add_ufunc(&A, &B, &AB));
    SAMPLE_CALL(add_ufunc(&B, &C, &BC));       /* (4,) with (4, 4): b is added to each row */
    SAMPLE_CALL(add_ten(&NUMS, &TEN));

    /* add_ten on float32: num + 10 is float32 + int64, which Numba types as
     * float64, so this loop's output is float64. */
    ufn_array F = ufn_host(f, UFN_FLOAT32, 1, &s3), FTEN = {0};
    SAMPLE_CALL(add_ten(&F, &FTEN));
    if (FTEN.dtype != UFN_FLOAT64) {
        printf("  check add_ten(float32) MISMATCH: output dtype %s, expected float64\n",
               ufn_dtype_name(FTEN.dtype));
        failures++;
    } else {
        memcpy(ften, FTEN.data, sizeof ften);
    }
    ufn_free(&FTEN);

    printf("add: on the %s backend\n", ufn_backend());
    print_i64("add_ufunc(a, b)", ab, 1, 4);
    print_i64("add_ufunc(b, c)", &bc[0][0], 4, 4);
    print_i64("add_ten(0..9)", ten, 1, 10);
    printf("  add_ten(float32) [%g %g %g] (float64)\n", ften[0], ften[1], ften[2]);

    sample_check cab = sample_check_start("add_ufunc(a, b)", 0, 0);
    sample_check cbc = sample_check_start("add_ufunc(b, c)", 0, 0);
    sample_check cten = sample_check_start("add_ten(int64)", 0, 0);
    sample_check cf = sample_check_start("add_ten(float32)", 0, 0);
    for (int i = 0; i < 4; i++)
        sample_check_value(&cab, i, (double)ab[i], (double)(a[i] + b[i]));
    for (int i = 0; i < 16; i++)
        sample_check_value(&cbc, i, (double)bc[i / 4][i % 4], (double)(b[i % 4] + c[i / 4][i % 4]));
    for (int i = 0; i < 10; i++)
        sample_check_value(&cten, i, (double)ten[i], (double)(nums[i] + 10));
    for (int i = 0; i < 3; i++)                /* 1e8 + 10 needs float64: float32 would round it */
        sample_check_value(&cf, i, ften[i], (double)f[i] + 10.0);
    failures += sample_check_report(&cab) + sample_check_report(&cbc) +
                sample_check_report(&cten) + sample_check_report(&cf);

    sample_dump_exact("ab", UFN_INT64, ab, 4);
    sample_dump_exact("bc", UFN_INT64, bc, 16);
    sample_dump_exact("ten", UFN_INT64, ten, 10);
    sample_dump_exact("ften", UFN_FLOAT64, ften, 3);
    return sample_finish("add", failures);
}
