/* compose - ufuncs that call other ufuncs (compose.ufn): the hidden layer as
 * one composed kernel gives, bit for bit, what the three calls give; the
 * callee's signature follows the argument types (exact, else the first safe
 * cast); an imported ufunc is composed too.
 */
#include "e2e.h"
#include "compose.h"

enum { N = 1000 };

int main(int argc, char **argv)
{
    static float g[N], w[N], t1[N], t2[N], three[N], one[N], s32[N], soft32[N];
    static double d[N], s64[N], soft64[N];
    static int16_t h[N];
    static int32_t k[N];
    sample_rng rng = {19};
    int64_t n = N;

    e2e_start(argc, argv, "compose");
    for (int i = 0; i < N; i++) {
        g[i] = floorf((float)sample_uniform(&rng, 0, 255));
        w[i] = (float)sample_uniform(&rng, -3, 3);
        d[i] = sample_uniform(&rng, -1000, 1000);
        h[i] = (int16_t)sample_uniform(&rng, -30000, 30000);
        k[i] = (int32_t)sample_uniform(&rng, -2e9, 2e9);
    }
    ufn_array G = ufn_host(g, UFN_FLOAT32, 1, &n), W = ufn_host(w, UFN_FLOAT32, 1, &n);
    ufn_array T1 = ufn_host(t1, UFN_FLOAT32, 1, &n), T2 = ufn_host(t2, UFN_FLOAT32, 1, &n);
    ufn_array THREE = ufn_host(three, UFN_FLOAT32, 1, &n), ONE = ufn_host(one, UFN_FLOAT32, 1, &n);

    e2e_begin("hidden(g, w) = activate(weigh(normalize(g), w)) in one kernel");
    E2E_CALL(normalize(&G, &T1));
    E2E_CALL(weigh(&T1, &W, &T2));
    E2E_CALL(activate(&T2, &THREE));
    E2E_CALL(hidden(&G, &W, &ONE));
    for (int i = 0; i < N; i++) {
        E2E_CHECK(e2e_same_f64(one[i], three[i]), "hidden(%g, %g) = %.9g, three calls %.9g", g[i], w[i], one[i],
                  three[i]);
        double x = (double)((float)((double)g[i] / 255) * w[i]);
        E2E_CHECK(fabs(one[i] - tanh(x)) <= 8 * FLT_EPSILON, "hidden(%g, %g) = %.9g, tanh %.9g", g[i], w[i], one[i],
                  tanh(x));
    }
    e2e_end();
    sample_dump_exact("hidden", UFN_FLOAT32, one, N);

    e2e_begin("the callee's signature by argument types: exact, else the first safe cast");
    ufn_array D = ufn_host(d, UFN_FLOAT64, 1, &n), S64 = ufn_host(s64, UFN_FLOAT64, 1, &n);
    ufn_array H = ufn_host(h, UFN_INT16, 1, &n), S32 = ufn_host(s32, UFN_FLOAT32, 1, &n);
    E2E_CALL(scaled(&D, &S64));
    E2E_CALL(scaled(&H, &S32));
    for (int i = 0; i < N; i++) {
        double want64 = d[i] / 255 * 2;    /* float64 throughout */
        E2E_CHECK(s64[i] == want64, "scaled(%.17g) = %.17g, expected %.17g", d[i], s64[i], want64);
        /* int16 -> float32 (normalize's first signature it casts to safely):
         * x / 255 in float64 rounded to float32, times the literal 2 in float64 */
        float want32 = (float)((double)(float)((double)(float)h[i] / 255) * 2);
        E2E_CHECK(s32[i] == want32, "scaled(%d) = %.9g, expected %.9g", h[i], s32[i], want32);
    }
    e2e_end();
    sample_dump_exact("scaled64", UFN_FLOAT64, s64, N);
    sample_dump_exact("scaled32", UFN_FLOAT32, s32, N);

    e2e_begin("an imported ufunc composed");
    ufn_array SOFT32 = ufn_host(soft32, UFN_FLOAT32, 1, &n);
    ufn_array K = ufn_host(k, UFN_INT32, 1, &n), SOFT64 = ufn_host(soft64, UFN_FLOAT64, 1, &n);
    E2E_CALL(soft(&W, &SOFT32));
    E2E_CALL(soft(&K, &SOFT64));
    for (int i = 0; i < N; i++) {
        float x = w[i];
        /* Numba's typing: 1 + abs(x) is float64, softsign rounds to float32 */
        float s = (float)((double)x / (1 + fabs((double)x)));
        float want32 = (float)((double)s + 8.0);
        E2E_CHECK(soft32[i] == want32, "soft(%g) = %.9g, expected %.9g", x, soft32[i], want32);
        double y = k[i], want64 = y / (1 + fabs(y)) + 8.0;
        E2E_CHECK(soft64[i] == want64, "soft(%d) = %.17g, expected %.17g", k[i], soft64[i], want64);
    }
    e2e_end();
    sample_dump_exact("soft32", UFN_FLOAT32, soft32, N);
    sample_dump_exact("soft64", UFN_FLOAT64, soft64, N);

    return e2e_finish();
}
