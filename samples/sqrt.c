/* sqrt - seed 000's first GPU ufunc, gpu_sqrt, on np.arange(n) as float32.
 * Both the general entry (an n-d array descriptor) and the typed entry
 * gpu_sqrt_float32 (n, then plain pointers) are used; IEEE sqrt is
 * correctly rounded, so every result equals libm's.
 */
#include "sample.h"
#include "sqrt.h"

enum { N = 1000000 };

int main(int argc, char **argv)
{
    static float a[N], root[N], root2[N];
    int failures = 0;

    sample_args(argc, argv);
    for (long i = 0; i < N; i++)
        a[i] = (float)i;                         /* np.arange(npoints, dtype=np.float32) */

    int64_t n = N;
    ufn_array A = ufn_host(a, UFN_FLOAT32, 1, &n), R = ufn_host(root, UFN_FLOAT32, 1, &n);
    SAMPLE_CALL(gpu_sqrt(&A, &R));
    SAMPLE_CALL(gpu_sqrt_float32(N, a, root2));

    printf("sqrt: %d square roots on the %s backend\n", N, ufn_backend());
    printf("  [%g %g %.7g ... %.7g %.7g]\n", root[0], root[1], root[2], root[N - 2], root[N - 1]);

    sample_check c = sample_check_start("gpu_sqrt", 0, 0);
    sample_check c2 = sample_check_start("gpu_sqrt_float32", 0, 0);
    for (long i = 0; i < N; i++) {
        sample_check_value(&c, i, root[i], (float)sqrt(a[i]));
        sample_check_value(&c2, i, root2[i], (float)sqrt(a[i]));
    }
    failures += sample_check_report(&c) + sample_check_report(&c2);
    sample_dump_exact("sqrt", UFN_FLOAT32, root, N);
    return sample_finish("sqrt", failures);
}
