/* lucas - seed 003's @jit functions behind two ufuncs: lucas, the
 * recursive Lucas numbers (2, 1, 3, 4, 7, 11, ...), and plus_loop_test,
 * x + the seed's nested loop of 10000 x 10000 multiply-adds.
 *
 * The recursion takes 2^n steps, so n stays small; the loop is 10^8
 * iterations for each element, so x has two.
 */
#include "lucas.h"
#include "sample.h"

enum { NMAX = 25, NLOOP = 2 };

int main(int argc, char **argv)
{
    int64_t n[NMAX + 1], l[NMAX + 1];
    double x[NLOOP] = {0.0, -1.5}, y[NLOOP];
    int failures = 0;

    sample_args(argc, argv);
    for (int i = 0; i <= NMAX; i++)
        n[i] = i;

    int64_t len = NMAX + 1, nloop = NLOOP;
    ufn_array N = ufn_host(n, UFN_INT64, 1, &len), L = ufn_host(l, UFN_INT64, 1, &len);
    ufn_array X = ufn_host(x, UFN_FLOAT64, 1, &nloop), Y = ufn_host(y, UFN_FLOAT64, 1, &nloop);
    SAMPLE_CALL(lucas(&N, &L));
    SAMPLE_CALL(plus_loop_test(&X, &Y));

    printf("lucas: on the %s backend\n", ufn_backend());
    printf("  lucas(0..%d):", NMAX);
    for (int i = 0; i <= NMAX; i++)
        printf(" %lld", (long long)l[i]);
    printf("\n  plus_loop_test(%g) = %.17g\n", x[0], y[0]);

    /* Iteratively, and the same double loop in the same order: the kernel's
     * float64 sum must match it exactly. */
    sample_check cl = sample_check_start("lucas", 0, 0);
    int64_t a = 2, b = 1;
    for (int i = 0; i <= NMAX; i++) {
        sample_check_value(&cl, i, (double)l[i], (double)a);
        int64_t next = a + b;
        a = b;
        b = next;
    }
    double loop = 0.0;
    for (int64_t i = 0; i < 10000; i++)
        for (int64_t j = 0; j < 10000; j++)
            loop += (double)(i * j) * 0.1;
    sample_check cx = sample_check_start("plus_loop_test", 0, 0);
    for (int i = 0; i < NLOOP; i++)
        sample_check_value(&cx, i, y[i], x[i] + loop);
    failures += sample_check_report(&cl) + sample_check_report(&cx);
    sample_dump_exact("lucas", UFN_INT64, l, NMAX + 1);
    sample_dump_exact("plus_loop_test", UFN_FLOAT64, y, NLOOP);
    return sample_finish("lucas", failures);
}
