/* lanes.c - a vectorised host loop computes the same bits as the scalar
 * function, for every function with a vector variant (ufn_libm_simd.h:
 * sin, cos, tan) and every ISA the host backend compiles its loops for.
 *
 * The loops below are the shape of a generated host loop: gcc vectorises
 * them into calls of _ZGV*_ufn_sin_f32 and friends, whose lanes run the
 * Cody-Waite path on all elements and Payne-Hanek on the ones that need
 * it.  The reference is ufn_libm_sin_f32 etc., the whole scalar function,
 * called through a volatile pointer so that nothing vectorises it.  The
 * inputs mix ordinary arguments with huge ones, inf and nan in the same
 * vector, so that both paths and the merge are exercised.  Run by
 * `make check-math`; exit status 1 on the first difference.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "ufn_math.h"

#define N 4099          /* not a multiple of any vector length: the remainder loop too */

static float xf[N], yf[N];
static double xd[N], yd[N];

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rng(void)                       /* splitmix64 */
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Input i: mostly ordinary arguments, every fifth one random bits (huge
 * values, subnormals, inf and nan among them), and the limits of the
 * Cody-Waite path. */
static void fill(void)
{
    static const double edges[] = {0.0, -0.0, 0x1p17, 0x1.fffffep16, 0x1p45, 0x1.fffffffffffffp44,
                                   1e22, 0x1.921fb54442d18p+0, (double)INFINITY, -(double)INFINITY};
    for (int i = 0; i < N; i++) {
        uint64_t r = rng();
        double u = (double)(r >> 11) * 0x1p-53;
        if (i < (int)(sizeof edges / sizeof edges[0])) {
            xd[i] = edges[i];
            xf[i] = (float)edges[i];
        } else if (i % 5 == 0) {
            uint32_t b32 = (uint32_t)r;
            memcpy(&xf[i], &b32, 4);
            memcpy(&xd[i], &r, 8);
        } else {
            xd[i] = (u - 0.5) * (i % 3 ? 20.0 : 2e6);
            xf[i] = (float)xd[i];
        }
    }
    xd[N - 1] = (double)NAN;
    xf[N - 2] = NAN;
}

#define LOOPS(isa, target)                                                                  \
    target static void sin_f32_##isa(void) { for (int i = 0; i < N; i++) yf[i] = ufn_sin_f32(xf[i]); } \
    target static void cos_f32_##isa(void) { for (int i = 0; i < N; i++) yf[i] = ufn_cos_f32(xf[i]); } \
    target static void sin_f64_##isa(void) { for (int i = 0; i < N; i++) yd[i] = ufn_sin_f64(xd[i]); } \
    target static void cos_f64_##isa(void) { for (int i = 0; i < N; i++) yd[i] = ufn_cos_f64(xd[i]); } \
    target static void tan_f64_##isa(void) { for (int i = 0; i < N; i++) yd[i] = ufn_tan_f64(xd[i]); }

/* the targets of the host backend's loop variants (compiler/emit_host.c) */
LOOPS(baseline, )
LOOPS(avx2, __attribute__((target("avx2,fma"))))
LOOPS(avx512, __attribute__((target("avx512f,avx512dq,avx512vl,avx512bw,avx2,fma"))))

typedef struct isa_loops {
    const char *name;
    int supported;
    void (*loop[5])(void);
} isa_loops;

static float (*volatile ref_f32[2])(float) = {ufn_libm_sin_f32, ufn_libm_cos_f32};
static double (*volatile ref_f64[3])(double) = {ufn_libm_sin_f64, ufn_libm_cos_f64, ufn_libm_tan_f64};
static const char *const names[5] = {"sin float32", "cos float32", "sin float64", "cos float64", "tan float64"};

/* loop k of one ISA against the scalar function; the number of differences */
static int check(const isa_loops *isa, int k)
{
    int bad = 0;
    isa->loop[k]();
    for (int i = 0; i < N; i++) {
        int same;
        if (k < 2) {
            float r = ref_f32[k](xf[i]);
            same = !memcmp(&r, &yf[i], 4);
            if (!same && bad == 0)
                printf("  %s %s: x = %a: %a, scalar %a\n", isa->name, names[k], (double)xf[i], (double)yf[i], (double)r);
        } else {
            double r = ref_f64[k - 2](xd[i]);
            same = !memcmp(&r, &yd[i], 8);
            if (!same && bad == 0)
                printf("  %s %s: x = %a: %a, scalar %a\n", isa->name, names[k], xd[i], yd[i], r);
        }
        bad += !same;
    }
    return bad;
}

int main(void)
{
    __builtin_cpu_init();
    const isa_loops isas[] = {
        {"baseline", 1, {sin_f32_baseline, cos_f32_baseline, sin_f64_baseline, cos_f64_baseline, tan_f64_baseline}},
        {"avx2", __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"),
         {sin_f32_avx2, cos_f32_avx2, sin_f64_avx2, cos_f64_avx2, tan_f64_avx2}},
        {"avx512", __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq")
                       && __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bw"),
         {sin_f32_avx512, cos_f32_avx512, sin_f64_avx512, cos_f64_avx512, tan_f64_avx512}},
    };
    int failed = 0;
    fill();
    for (size_t s = 0; s < sizeof isas / sizeof isas[0]; s++) {
        if (!isas[s].supported) {
            printf("lanes: %s skipped: this CPU lacks it\n", isas[s].name);
            continue;
        }
        int bad = 0;
        for (int k = 0; k < 5; k++)
            bad += check(&isas[s], k);
        printf("lanes: %-8s sin, cos (float32, float64), tan (float64): %s\n", isas[s].name,
               bad ? "DIFFERENT from the scalar functions" : "bit-identical to the scalar functions");
        failed |= bad != 0;
    }
    return failed;
}
