/* pulses - seed 001's exercise "optimize memory movement": make a pulse
 * train with make_pulses, add noise with add_ufunc, and keep everything on
 * the device in between.
 *
 * t and noise go to the device once, the pulses and the waveform are device
 * arrays, and only the waveform comes back.  period and amplitude are C
 * scalars (ufn_scalar_float64, like Python floats): they take the float32
 * of the signature and travel as kernel arguments, not as arrays.  Run it
 * with UFN_TRACE=1 to see the two copies in and the one copy out.
 */
#include "pulses.h"
#include "sample.h"

enum { N = 100000 };

int main(int argc, char **argv)
{
    static float t[N], noise[N], waveform[N];
    sample_rng rng = {23};
    int failures = 0;

    sample_args(argc, argv);
    for (long i = 0; i < N; i++) {
        t[i] = (float)i;                                   /* np.arange(n, dtype=np.float32) */
        noise[i] = (float)(sample_normal(&rng) * 3);
    }
    double period = N / 23.0;

    int64_t n = N;
    ufn_array t_h = ufn_host(t, UFN_FLOAT32, 1, &n), noise_h = ufn_host(noise, UFN_FLOAT32, 1, &n);
    ufn_array t_d, noise_d, pulses_d, waveform_d;
    SAMPLE_CALL(ufn_to_device(&t_h, &t_d));
    SAMPLE_CALL(ufn_to_device(&noise_h, &noise_d));
    SAMPLE_CALL(ufn_device_array(UFN_FLOAT32, 1, &n, &pulses_d));
    SAMPLE_CALL(ufn_device_array(UFN_FLOAT32, 1, &n, &waveform_d));

    ufn_array per = ufn_scalar_float64(period), amp = ufn_scalar_float64(100.0);
    SAMPLE_CALL(make_pulses(&t_d, &per, &amp, &pulses_d));
    SAMPLE_CALL(add_ufunc(&pulses_d, &noise_d, &waveform_d));

    ufn_array waveform_h = ufn_host(waveform, UFN_FLOAT32, 1, &n);
    SAMPLE_CALL(ufn_copy_to_host(&waveform_d, &waveform_h));
    ufn_free(&t_d);
    ufn_free(&noise_d);
    ufn_free(&pulses_d);
    ufn_free(&waveform_d);

    /* A pulse: samples above 20 (7 sigma of the noise), where gaps shorter
     * than 2000 samples (the noise at its edges) do not end it. */
    int pulses = 0;
    long last = -1000000;
    float peak = 0;
    for (long i = 0; i < N; i++) {
        if (waveform[i] > 20) {
            if (i - last > 2000)
                pulses++;
            last = i;
        }
        if (waveform[i] > peak)
            peak = waveform[i];
    }
    printf("pulses: %d samples on the %s backend: %d pulses, peak %.1f\n", N, ufn_backend(),
           pulses, peak);

    /* make_pulses: sinf of the float32 quotient, then float64 arithmetic.
     * sinf is within 4 ulp (libmvec), about 2.4e-7 on values up to 1, scaled
     * by the amplitude 100; add_ufunc adds one float32 rounding. */
    sample_check c = sample_check_start("waveform", 100 * 4 * FLT_EPSILON, 2 * FLT_EPSILON);
    for (long i = 0; i < N; i++) {
        float q = t[i] / (float)period;
        double p = fmax(sin((double)q) - 0.3, 0.0) * 100.0;
        sample_check_value(&c, i, waveform[i], (double)(float)p + noise[i]);
    }
    failures += sample_check_report(&c);
    if (pulses != 4) {
        printf("  check pulse count MISMATCH: %d pulses, expected 4 (sin over 0..23 rad)\n", pulses);
        failures++;
    }
    sample_dump_close("waveform", UFN_FLOAT32, waveform, N, &c);
    return sample_finish("pulses", failures);
}
