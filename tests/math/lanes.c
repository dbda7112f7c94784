/* lanes.c - a vectorised host loop computes the same bits as the scalar
 * function, for every function with a vector variant (ufn_libm_simd.h:
 * sin, cos, tan, float64 exp, float32 atan2) and every ISA the host backend compiles its loops for;
 * and the one-kernel float64 sin-or-cos of ufn_libm_trig.h gives the bits
 * of the two kernels it replaced (below), so that the speed-up changed no
 * result.
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

#define NLOOPS 7        /* the functions with vector variants, below */
#define N 4099          /* not a multiple of any vector length: the remainder loop too */

static float xf[N], yf[N], wf[N];      /* wf: atan2's first argument */
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
    static const double edges[] = {0.0, -0.0, 0x1p17, 0x1.fffffep16, 0x1p13, -0x1.fffffep12, 0x1p45, 0x1.fffffffffffffp44,
                                   1e22, 0x1.921fb54442d18p+0, (double)INFINITY, -(double)INFINITY,
                                   708.0, -708.0, 0x1.61fffffffffffp+9, 709.5, -709.5, -720.0, -744.0,
                                   0x1.62e42fefa39efp+9};
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
    /* atan2's y: ordinary, random bits, and values that make the result
     * tiny, subnormal or zero beside an ordinary x, hit its special cases,
     * or lie on either side of the kernel's range [2^-60, 2^60] */
    static const float wedges[] = {0.0f, -0.0f, 0x1p-100f, -0x1p-120f, 0x1p-149f, 1e-30f, INFINITY, -INFINITY, NAN,
                                   0x1p-60f, -0x1.fffffep-61f, 0x1p60f, -0x1.000002p60f};
    for (int i = 0; i < N; i++) {
        uint64_t r = rng();
        uint32_t b32 = (uint32_t)(r >> 32);
        float u = (float)(r >> 40) * 0x1p-24f - 0.5f;
        if (i % 7 == 0)
            wf[i] = wedges[(r >> 8) % (sizeof wedges / sizeof wedges[0])];
        else if (i % 5 == 1)
            memcpy(&wf[i], &b32, 4);
        else
            wf[i] = u * (i % 3 ? 8.0f : 0x1p-90f);
    }
}

/* ---- the one-kernel sin/cos against the two kernels --------------------------------- */

/* r over |r| <= 0.8 (a little over pi/4: the reductions' range) with its
 * low word, the signed zeros included; the count of differences */
static int check_kernels(void)
{
    int bad = 0;
    for (int i = 0; i < 2000000; i++) {
        uint64_t b = rng();
        double r = i < 2 ? (i ? -0.0 : 0.0) : ((double)(b >> 11) * 0x1p-53 - 0.5) * 1.6;
        r = i % 7 == 3 ? r * 0x1p-30 : r;                   /* tiny r too */
        double rl = ((double)(b & 0x3ff) - 512.0) * 0x1p-62 * (r == 0.0 ? 0.0 : r);
        for (int c = 0; c < 2; c++) {
            ufn_dd k = c ? ufn_libm_cos_kernel_f64(r, rl) : ufn_libm_sin_kernel_f64(r, rl);
            double y = k.hi + k.lo, y1 = ufn_libm_sin_or_cos_f64(r, rl, c);
            if (memcmp(&y, &y1, 8)) {
                if (bad == 0)
                    printf("  %s kernel: r = %a, rl = %a: %a, two kernels %a\n", c ? "cos" : "sin", r, rl, y1, y);
                bad++;
            }
        }
    }
    printf("lanes: the one-kernel sin/cos (float64): %s\n",
           bad ? "DIFFERENT from the two kernels" : "bit-identical to the two kernels");
    return bad;
}

#define LOOPS(isa, target)                                                                  \
    target static void sin_f32_##isa(void) { for (int i = 0; i < N; i++) yf[i] = ufn_sin_f32(xf[i]); } \
    target static void cos_f32_##isa(void) { for (int i = 0; i < N; i++) yf[i] = ufn_cos_f32(xf[i]); } \
    target static void sin_f64_##isa(void) { for (int i = 0; i < N; i++) yd[i] = ufn_sin_f64(xd[i]); } \
    target static void cos_f64_##isa(void) { for (int i = 0; i < N; i++) yd[i] = ufn_cos_f64(xd[i]); } \
    target static void tan_f64_##isa(void) { for (int i = 0; i < N; i++) yd[i] = ufn_tan_f64(xd[i]); } \
    target static void exp_f64_##isa(void) { for (int i = 0; i < N; i++) yd[i] = ufn_exp_f64(xd[i]); } \
    target static void atan2_f32_##isa(void) { for (int i = 0; i < N; i++) yf[i] = ufn_atan2_f32(wf[i], xf[i]); }

/* the targets of the host backend's loop variants (compiler/emit_host.c) */
LOOPS(baseline, )
LOOPS(avx2, __attribute__((target("avx2,fma"))))
LOOPS(avx512, __attribute__((target("avx512f,avx512dq,avx512vl,avx512bw,avx2,fma"))))

typedef struct isa_loops {
    const char *name;
    int supported;
    void (*loop[NLOOPS])(void);
} isa_loops;

static float (*volatile ref_f32[2])(float) = {ufn_libm_sin_f32, ufn_libm_cos_f32};
static double (*volatile ref_f64[4])(double) = {ufn_libm_sin_f64, ufn_libm_cos_f64, ufn_libm_tan_f64,
                                                ufn_libm_exp_f64};
static float (*volatile ref_atan2_f32)(float, float) = ufn_libm_atan2_f32;
static const char *const names[NLOOPS] = {"sin float32", "cos float32", "sin float64", "cos float64",
                                          "tan float64", "atan2 float32", "exp float64"};

/* loop k of one ISA against the scalar function; the number of differences */
static int check(const isa_loops *isa, int k)
{
    int bad = 0;
    isa->loop[k]();
    for (int i = 0; i < N; i++) {
        int same;
        if (k < 2 || k == 5) {
            float r = k == 5 ? ref_atan2_f32(wf[i], xf[i]) : ref_f32[k](xf[i]);
            same = !memcmp(&r, &yf[i], 4);
            if (!same && bad == 0)
                printf("  %s %s: x = %a: %a, scalar %a\n", isa->name, names[k], (double)xf[i], (double)yf[i], (double)r);
        } else {
            double r = ref_f64[k == 6 ? 3 : k - 2](xd[i]);
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
        {"baseline", 1, {sin_f32_baseline, cos_f32_baseline, sin_f64_baseline, cos_f64_baseline, tan_f64_baseline,
                         atan2_f32_baseline, exp_f64_baseline}},
        {"avx2", __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"),
         {sin_f32_avx2, cos_f32_avx2, sin_f64_avx2, cos_f64_avx2, tan_f64_avx2, atan2_f32_avx2, exp_f64_avx2}},
        {"avx512", __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq")
                       && __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bw"),
         {sin_f32_avx512, cos_f32_avx512, sin_f64_avx512, cos_f64_avx512, tan_f64_avx512, atan2_f32_avx512,
          exp_f64_avx512}},
    };
    int failed = 0;
    fill();
    for (size_t s = 0; s < sizeof isas / sizeof isas[0]; s++) {
        if (!isas[s].supported) {
            printf("lanes: %s skipped: this CPU lacks it\n", isas[s].name);
            continue;
        }
        int bad = 0;
        for (int k = 0; k < NLOOPS; k++)
            bad += check(&isas[s], k);
        printf("lanes: %-8s sin, cos (float32, float64), tan, exp (float64), atan2 (float32): %s\n", isas[s].name,
               bad ? "DIFFERENT from the scalar functions" : "bit-identical to the scalar functions");
        failed |= bad != 0;
    }
    failed |= check_kernels() != 0;
    return failed;
}
