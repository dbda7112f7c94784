/* add_kernel - seed 002's first CUDA kernel, launched as the seed does:
 *
 *     n = 4096
 *     x = np.arange(n).astype(np.int32)
 *     y = np.ones_like(x)
 *     add_kernel[32, 128](x_on_device, y_on_device, out_on_device)
 *
 * The generated entry takes the launch first, then one array per
 * parameter: add_kernel(ufn_launch_1d(32, 128), &x, &y, &out).  Host arrays
 * are copied to the device and back around the launch, as Numba does.
 */
#include "add_kernel.h"
#include "sample.h"

int main(int argc, char **argv)
{
    enum { N = 4096 };
    static int32_t x[N], y[N], out[N];
    sample_args(argc, argv);
    for (int i = 0; i < N; i++) {
        x[i] = i;
        y[i] = 1;
    }
    int64_t n = N;
    ufn_array X = ufn_host(x, UFN_INT32, 1, &n), Y = ufn_host(y, UFN_INT32, 1, &n);
    ufn_array OUT = ufn_host(out, UFN_INT32, 1, &n);
    /* 32 blocks of 128 threads: one thread per element */
    SAMPLE_CALL(add_kernel(ufn_launch_1d(32, 128), &X, &Y, &OUT));

    printf("add_kernel: on the %s backend\n", ufn_backend());
    printf("  out = [%d %d %d ... %d]\n", out[0], out[1], out[2], out[N - 1]);
    sample_check c = sample_check_start("add_kernel", 0, 0);
    for (int i = 0; i < N; i++)
        sample_check_value(&c, i, out[i], x[i] + y[i]);
    int failures = sample_check_report(&c);
    sample_dump_exact("out", UFN_INT32, out, N);
    return sample_finish("add_kernel", failures);
}
