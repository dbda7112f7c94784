/* zero_suppress - seed 001's exercise: force the samples of a noisy int16
 * waveform that are below a threshold to zero, so that only the pulses
 * remain.
 *
 * The waveform is built as the notebook builds it: a pulse train
 * max(sin(i / (n / 23)) - 0.3, 0) * 300 plus Gaussian noise (sigma 3),
 * converted to int16.  The threshold 15 is a C scalar: a weak
 * ufn_scalar_int64, like the Python int of the seed, so the int16 signature
 * is chosen by the waveform.
 */
#include "sample.h"
#include "zero_suppress.h"

enum { N = 100000, THRESHOLD = 15 };

int main(int argc, char **argv)
{
    static int16_t waveform[N], suppressed[N];
    sample_rng rng = {3};
    int failures = 0;

    sample_args(argc, argv);
    for (long i = 0; i < N; i++) {
        double pulse = fmax(sin(i / (N / 23.0)) - 0.3, 0.0);
        waveform[i] = (int16_t)(pulse * 300 + sample_normal(&rng) * 3);   /* .astype(np.int16) */
    }

    int64_t n = N;
    ufn_array w = ufn_host(waveform, UFN_INT16, 1, &n);
    ufn_array threshold = ufn_scalar_int64(THRESHOLD);
    ufn_array out = ufn_host(suppressed, UFN_INT16, 1, &n);
    SAMPLE_CALL(zero_suppress(&w, &threshold, &out));

    long nonzero_before = 0, nonzero_after = 0;
    for (long i = 0; i < N; i++) {
        nonzero_before += waveform[i] != 0;
        nonzero_after += suppressed[i] != 0;
    }
    printf("zero_suppress: %d int16 samples on the %s backend, threshold %d\n", N, ufn_backend(),
           THRESHOLD);
    printf("  non-zero samples: %ld before, %ld after (the baseline noise is gone)\n",
           nonzero_before, nonzero_after);

    sample_check c = sample_check_start("zero_suppress", 0, 0);
    for (long i = 0; i < N; i++)
        sample_check_value(&c, i, suppressed[i], waveform[i] < THRESHOLD ? 0 : waveform[i]);
    failures += sample_check_report(&c);
    sample_dump_exact("suppressed", UFN_INT16, suppressed, N);
    return sample_finish("zero_suppress", failures);
}
