/* average - the mean and the sum of each row of a 2-D array with the
 * gufuncs of seed 000: gpu_average and gpu_average_2 ('(i)->()', the second
 * through the device function add()) and gpu_sum.
 *
 * First the seed's own example, arange(100).reshape(20, 5), then a larger
 * array of random values where rounding matters.  The kernels accumulate in
 * float64 (acc = 0; acc += float32 unifies to float64, as in Numba) and
 * round once when they store: the reference does the same sums in double.
 */
#include "average.h"
#include "sample.h"

enum { ROWS = 20, COLS = 5, BIGROWS = 5000, BIGCOLS = 37 };

/* Row means and sums of an (rows, cols) float32 array, checked against sums
 * in double; returns the number of failed checks. */
static int run(const char *label, const float *a, int64_t rows, int64_t cols, int print)
{
    int64_t shape[2] = {rows, cols};
    ufn_array arr = ufn_host((void *)a, UFN_FLOAT32, 2, shape);
    ufn_array mean = {0}, mean2 = {0}, sum = {0};   /* empty: the entry allocates them */

    SAMPLE_CALL(gpu_average(&arr, &mean));
    SAMPLE_CALL(gpu_average_2(&arr, &mean2));
    SAMPLE_CALL(gpu_sum(&arr, &sum));
    const float *m = mean.data, *m2 = mean2.data, *s = sum.data;

    if (print) {
        printf("  %s: row means", label);
        for (int64_t r = 0; r < rows; r++)
            printf(" %g", m[r]);
        printf("\n  %s: row sums ", label);
        for (int64_t r = 0; r < rows; r++)
            printf(" %g", s[r]);
        printf("\n");
    }

    /* Plain arithmetic: the results must equal the double sums rounded once. */
    sample_check cm = sample_check_start("gpu_average", 0, 0);
    sample_check cm2 = sample_check_start("gpu_average_2", 0, 0);
    sample_check cs = sample_check_start("gpu_sum", 0, 0);
    for (int64_t r = 0; r < rows; r++) {
        double acc = 0;
        for (int64_t c = 0; c < cols; c++)
            acc += a[r * cols + c];
        sample_check_value(&cm, (long)r, m[r], (float)(acc / (double)cols));
        sample_check_value(&cm2, (long)r, m2[r], (float)(acc / (double)cols));
        sample_check_value(&cs, (long)r, s[r], (float)acc);
    }
    int failures = sample_check_report(&cm) + sample_check_report(&cm2) + sample_check_report(&cs);

    char name[64];
    snprintf(name, sizeof name, "%s_mean", label);
    sample_dump_exact(name, UFN_FLOAT32, m, (size_t)rows);
    snprintf(name, sizeof name, "%s_mean2", label);
    sample_dump_exact(name, UFN_FLOAT32, m2, (size_t)rows);
    snprintf(name, sizeof name, "%s_sum", label);
    sample_dump_exact(name, UFN_FLOAT32, s, (size_t)rows);
    ufn_free(&mean);
    ufn_free(&mean2);
    ufn_free(&sum);
    return failures;
}

int main(int argc, char **argv)
{
    static float a[ROWS * COLS], big[BIGROWS * BIGCOLS];
    sample_rng rng = {7};
    int failures = 0;

    sample_args(argc, argv);
    printf("average: row means and sums on the %s backend\n", ufn_backend());

    for (int i = 0; i < ROWS * COLS; i++)      /* np.arange(100).reshape(20, 5) */
        a[i] = (float)i;
    failures += run("arange", a, ROWS, COLS, 1);

    for (int i = 0; i < BIGROWS * BIGCOLS; i++)
        big[i] = (float)sample_uniform(&rng, -1000, 1000);
    printf("  random: %d rows of %d values\n", BIGROWS, BIGCOLS);
    failures += run("random", big, BIGROWS, BIGCOLS, 0);

    return sample_finish("average", failures);
}
