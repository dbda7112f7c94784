/* hidden_layer - the assessment of seed 001: normalise greyscale values,
 * weigh them and apply the activation function, with every intermediate
 * result left in device memory.
 *
 * As the seed's solution does with Numba: the two inputs go to the device
 * once (ufn_to_device), the intermediate and final results are device arrays
 * (ufn_device_array), the three ufuncs are called on device operands, and
 * only the activations come back (ufn_copy_to_host).  Run it with
 * UFN_TRACE=1 to see each transfer: data crosses once each way.
 */
#include "hidden_layer.h"
#include "sample.h"

enum { N = 1000000 };

int main(int argc, char **argv)
{
    static float greyscales[N], weights[N], activated[N];
    sample_rng rng = {42};
    int failures = 0;

    sample_args(argc, argv);
    for (long i = 0; i < N; i++) {
        greyscales[i] = floorf((float)sample_uniform(&rng, 0, 255));
        weights[i] = (float)(0.5 + 0.1 * sample_normal(&rng));
    }

    /* greyscales_dev = cuda.to_device(greyscales), and so on */
    int64_t n = N;
    ufn_array grey_h = ufn_host(greyscales, UFN_FLOAT32, 1, &n);
    ufn_array weights_h = ufn_host(weights, UFN_FLOAT32, 1, &n);
    ufn_array grey_d, weights_d, normalized_d, weighted_d, activated_d;
    SAMPLE_CALL(ufn_to_device(&grey_h, &grey_d));
    SAMPLE_CALL(ufn_to_device(&weights_h, &weights_d));
    SAMPLE_CALL(ufn_device_array(UFN_FLOAT32, 1, &n, &normalized_d));
    SAMPLE_CALL(ufn_device_array(UFN_FLOAT32, 1, &n, &weighted_d));
    SAMPLE_CALL(ufn_device_array(UFN_FLOAT32, 1, &n, &activated_d));

    SAMPLE_CALL(gpu_normalize(&grey_d, &normalized_d));
    SAMPLE_CALL(gpu_weigh(&normalized_d, &weights_d, &weighted_d));
    SAMPLE_CALL(gpu_activate(&weighted_d, &activated_d));

    ufn_array activated_h = ufn_host(activated, UFN_FLOAT32, 1, &n);
    SAMPLE_CALL(ufn_copy_to_host(&activated_d, &activated_h));
    ufn_free(&grey_d);
    ufn_free(&weights_d);
    ufn_free(&normalized_d);
    ufn_free(&weighted_d);
    ufn_free(&activated_d);

    double mean = 0;
    for (long i = 0; i < N; i++)
        mean += activated[i];
    printf("hidden_layer: %d neurons on the %s backend\n", N, ufn_backend());
    printf("  greyscale %.0f, weight %.4f -> activation %.6f; mean activation %.6f\n",
           greyscales[0], weights[0], activated[0], mean / N);

    /* normalize (x / 255, in float64, rounded to float32) and weigh (one
     * float32 product) are exact; activate is tanh written with four expf:
     * libmvec's 4 ulp on values up to e^1 and the subtraction give an
     * absolute error of a few float32 ulps of 1, relative to the tanh. */
    sample_check c = sample_check_start("activation", 8 * FLT_EPSILON, 8 * FLT_EPSILON);
    for (long i = 0; i < N; i++) {
        float normalized = (float)((double)greyscales[i] / 255);
        float weighted = normalized * weights[i];
        double e = exp(weighted), f = exp(-(double)weighted);
        sample_check_value(&c, i, activated[i], (e - f) / (e + f));
    }
    failures += sample_check_report(&c);
    sample_dump_close("activated", UFN_FLOAT32, activated, N, &c);
    return sample_finish("hidden_layer", failures);
}
