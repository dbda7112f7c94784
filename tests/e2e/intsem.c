/* intsem - integer semantics of intsem.ufn on this backend: Numba's values
 * (reference.h) where ufnc follows Numba, and ufnc's own rules
 * (include/ufn_math.h, "Rule:") where Numba leaves the result to the machine.
 */
#include "e2e.h"
#include "intsem.h"
#include "reference.h"

#define N_OF(a) ((int64_t)(sizeof(a) / sizeof((a)[0])))

typedef int (*binary_fn)(const ufn_array *, const ufn_array *, ufn_array *);

/* out = f(a, b) over n elements of `dtype` (the output has that dtype too). */
static void call2(binary_fn f, ufn_dtype dtype, const void *a, const void *b, void *out, int64_t n)
{
    ufn_array A = ufn_host((void *)a, dtype, 1, &n), B = ufn_host((void *)b, dtype, 1, &n);
    ufn_array O = ufn_host(out, dtype, 1, &n);
    E2E_CALL(f(&A, &B, &O));
}

static void i64_table(const char *op, binary_fn f, const int64_t *a, const int64_t *b,
                      const int64_t *want, int64_t n, const char *dumpname)
{
    int64_t got[128];
    e2e_begin("int64 %s (Numba's values)", op);
    call2(f, UFN_INT64, a, b, got, n);
    for (int64_t i = 0; i < n; i++)
        E2E_CHECK(got[i] == want[i], "%lld %s %lld = %lld, expected %lld", (long long)a[i], op,
                  (long long)b[i], (long long)got[i], (long long)want[i]);
    e2e_end();
    sample_dump_exact(dumpname, UFN_INT64, got, (size_t)n);
}

static void i32_table(const char *op, binary_fn f, const int32_t *a, const int32_t *b,
                      const int32_t *want, int64_t n, const char *dumpname)
{
    int32_t got[128];
    e2e_begin("int32 %s (Numba's values)", op);
    call2(f, UFN_INT32, a, b, got, n);
    for (int64_t i = 0; i < n; i++)
        E2E_CHECK(got[i] == want[i], "%d %s %d = %d, expected %d", a[i], op, b[i], got[i], want[i]);
    e2e_end();
    sample_dump_exact(dumpname, UFN_INT32, got, (size_t)n);
}

static void u64_table(const char *op, binary_fn f, const uint64_t *a, const uint64_t *b,
                      const uint64_t *want, int64_t n, const char *dumpname)
{
    uint64_t got[128];
    e2e_begin("uint64 %s (Numba's values)", op);
    call2(f, UFN_UINT64, a, b, got, n);
    for (int64_t i = 0; i < n; i++)
        E2E_CHECK(got[i] == want[i], "%llu %s %llu = %llu, expected %llu",
                  (unsigned long long)a[i], op, (unsigned long long)b[i],
                  (unsigned long long)got[i], (unsigned long long)want[i]);
    e2e_end();
    sample_dump_exact(dumpname, UFN_UINT64, got, (size_t)n);
}

/* ufnc's rules where Numba's result is the machine's or a guard's. */
static void own_rules(void)
{
    /* Rule: INT64_MIN // -1 wraps to INT64_MIN (NumPy; Numba's guard gives
     * 0), INT64_MIN % -1 == 0, and // and % by zero give 0. */
    int64_t a[] = {INT64_MIN, INT64_MIN, 5, -5}, b[] = {-1, -1, 0, 0}, q[4], r[4];
    call2(floordiv, UFN_INT64, a, b, q, 4);
    call2(mod, UFN_INT64, a, b, r, 4);
    e2e_begin("int64 INT64_MIN // -1 and division by zero (ufn_math.h rules)");
    const int64_t wq[] = {INT64_MIN, INT64_MIN, 0, 0}, wr[] = {0, 0, 0, 0};
    for (int i = 0; i < 4; i++) {
        E2E_CHECK(q[i] == wq[i], "%lld // %lld = %lld, expected %lld", (long long)a[i],
                  (long long)b[i], (long long)q[i], (long long)wq[i]);
        E2E_CHECK(r[i] == wr[i], "%lld %% %lld = %lld, expected %lld", (long long)a[i],
                  (long long)b[i], (long long)r[i], (long long)wr[i]);
    }
    e2e_end();

    /* Rule: int ** int is exact and wraps (Numba goes through float64 and
     * loses the low bits beyond 2**53, or is undefined beyond 2**63). */
    int64_t pb[] = {3, 2, 2, 7}, pe[] = {40, 63, 64, 23}, p[4];
    /* 3**40 and 7**23 modulo 2**64, as two's complement int64 */
    const int64_t wp[] = {-6289078614652622815ll, INT64_MIN, 0, 8922003266371364727ll};
    call2(power, UFN_INT64, pb, pe, p, 4);
    e2e_begin("int64 ** beyond 2**53: exact, wrapping (ufn_math.h rule)");
    for (int i = 0; i < 4; i++)
        E2E_CHECK(p[i] == wp[i], "%lld ** %lld = %lld, expected %lld", (long long)pb[i],
                  (long long)pe[i], (long long)p[i], (long long)wp[i]);
    e2e_end();

    /* float ** negative int with x ** n == 0: 1 / 0.0 (Numba's CPU raises). */
    double fx[] = {0.0, -0.0, 1e-200}, fr[3];
    int64_t fn[] = {-1, -1, -3}, sz = 3;
    ufn_array X = ufn_host(fx, UFN_FLOAT64, 1, &sz), Nn = ufn_host(fn, UFN_INT64, 1, &sz);
    ufn_array R = ufn_host(fr, UFN_FLOAT64, 1, &sz);
    E2E_CALL(fpower(&X, &Nn, &R));
    e2e_begin("float64 ** negative int of a zero power: +-inf");
    const double wf[] = {INFINITY, -INFINITY, INFINITY};
    for (int i = 0; i < 3; i++)
        E2E_CHECK(e2e_same_f64(fr[i], wf[i]), "%g ** %lld = %g, expected %g", fx[i],
                  (long long)fn[i], fr[i], wf[i]);
    e2e_end();
    sample_dump_exact("fpower_zero", UFN_FLOAT64, fr, 3);
}

/* Rule (NumPy's): a shift count < 0 or >= 64 shifts every bit out: << gives
 * 0, >> gives 0, or -1 for a negative value.  int32 operands are shifted in
 * int64 (Numba's typing) and stored back as int32. */
static void shift_rules(void)
{
    int64_t a[] = {1, -1, 5, -8, INT64_MIN, INT64_MAX, 1, -1};
    int64_t n[] = {64, 64, 65, 100, 64, 1000, -1, -3};
    int64_t l[8], r[8];
    call2(shl, UFN_INT64, a, n, l, 8);
    call2(shr, UFN_INT64, a, n, r, 8);
    e2e_begin("int64 shifts by >= 64 or < 0 (ufn_math.h rule)");
    for (int i = 0; i < 8; i++) {
        int64_t wr = a[i] < 0 ? -1 : 0;
        E2E_CHECK(l[i] == 0, "%lld << %lld = %lld, expected 0", (long long)a[i], (long long)n[i],
                  (long long)l[i]);
        E2E_CHECK(r[i] == wr, "%lld >> %lld = %lld, expected %lld", (long long)a[i],
                  (long long)n[i], (long long)r[i], (long long)wr);
    }
    e2e_end();
    sample_dump_exact("shl_wide", UFN_INT64, l, 8);
    sample_dump_exact("shr_wide", UFN_INT64, r, 8);

    int32_t a32[] = {1, 1, -1, 3}, n32[] = {32, 40, 40, 33}, l32[4], r32[4];
    call2(shl, UFN_INT32, a32, n32, l32, 4);
    call2(shr, UFN_INT32, a32, n32, r32, 4);
    e2e_begin("int32 shifts by 32..63: done in int64, stored as int32");
    const int32_t wl32[] = {0, 0, 0, 0}, wr32[] = {0, 0, -1, 0};
    for (int i = 0; i < 4; i++) {
        E2E_CHECK(l32[i] == wl32[i], "%d << %d = %d, expected %d", a32[i], n32[i], l32[i], wl32[i]);
        E2E_CHECK(r32[i] == wr32[i], "%d >> %d = %d, expected %d", a32[i], n32[i], r32[i], wr32[i]);
    }
    e2e_end();

    uint64_t au[] = {1, UINT64_MAX, 12345}, nu[] = {64, 64, 200}, lu[3], ru[3];
    call2(shl, UFN_UINT64, au, nu, lu, 3);
    call2(shr, UFN_UINT64, au, nu, ru, 3);
    e2e_begin("uint64 shifts by >= 64");
    for (int i = 0; i < 3; i++)
        E2E_CHECK(lu[i] == 0 && ru[i] == 0, "%llu << / >> %llu = %llu / %llu, expected 0 / 0",
                  (unsigned long long)au[i], (unsigned long long)nu[i],
                  (unsigned long long)lu[i], (unsigned long long)ru[i]);
    e2e_end();
}

typedef int (*unary_fn)(const ufn_array *, ufn_array *);

static void unary(unary_fn f, ufn_dtype in_type, const void *in, ufn_dtype out_type, void *out,
                  int64_t n)
{
    ufn_array I = ufn_host((void *)in, in_type, 1, &n), O = ufn_host(out, out_type, 1, &n);
    E2E_CALL(f(&I, &O));
}

/* Rule: float -> int truncates toward zero, saturates to the target's
 * range and turns NaN into 0 (PTX cvt.rzi.sat; Numba leaves it undefined):
 * for return casts, int() and np.intN(). */
static void conversions(void)
{
    double x[] = {1e10, -1e10, NAN, INFINITY, -INFINITY, 2147483648.0, -2147483649.0, 2147483647.9};
    const int32_t w32[] = {INT32_MAX, INT32_MIN, 0, INT32_MAX, INT32_MIN, INT32_MAX, INT32_MIN,
                           INT32_MAX};
    int32_t g32[8];
    unary(ret_i32, UFN_FLOAT64, x, UFN_INT32, g32, 8);
    e2e_begin("float64 -> int32 return cast out of range: saturates, NaN -> 0");
    for (int i = 0; i < 8; i++)
        E2E_CHECK(g32[i] == w32[i], "int32(%g) = %d, expected %d", x[i], g32[i], w32[i]);
    e2e_end();
    sample_dump_exact("ret_i32", UFN_INT32, g32, 8);

    double xu[] = {300.7, -1.0, 255.9, NAN, -0.5, 1e300};
    const uint8_t wu8[] = {255, 0, 255, 0, 0, 255};
    uint8_t gu8[6];
    unary(ret_u8, UFN_FLOAT64, xu, UFN_UINT8, gu8, 6);
    e2e_begin("float64 -> uint8 return cast");
    for (int i = 0; i < 6; i++)
        E2E_CHECK(gu8[i] == wu8[i], "uint8(%g) = %d, expected %d", xu[i], gu8[i], wu8[i]);
    e2e_end();

    float xf[] = {40000.0f, -40000.0f, 32767.9f, -32768.5f, NAN, -7.9f};
    const int16_t w16[] = {32767, -32768, 32767, -32768, 0, -7};
    int16_t g16[6];
    unary(ret_i16, UFN_FLOAT32, xf, UFN_INT16, g16, 6);
    e2e_begin("float32 -> int16 return cast");
    for (int i = 0; i < 6; i++)
        E2E_CHECK(g16[i] == w16[i], "int16(%g) = %d, expected %d", xf[i], g16[i], w16[i]);
    e2e_end();

    double x64[] = {18446744073709551616.0, -5.0, 1e19, NAN, 1e30};
    const uint64_t wu64[] = {UINT64_MAX, 0, 10000000000000000000ull, 0, UINT64_MAX};
    uint64_t gu64[5];
    unary(ret_u64, UFN_FLOAT64, x64, UFN_UINT64, gu64, 5);
    e2e_begin("float64 -> uint64 return cast");
    for (int i = 0; i < 5; i++)
        E2E_CHECK(gu64[i] == wu64[i], "uint64(%g) = %llu, expected %llu", x64[i],
                  (unsigned long long)gu64[i], (unsigned long long)wu64[i]);
    e2e_end();

    double xi[] = {1e300, -1e300, NAN, -2.5, 9.2233720368547758e18, 3.99};
    const int64_t wi[] = {INT64_MAX, INT64_MIN, 0, -2, INT64_MAX, 3};
    int64_t gi[6];
    unary(int_builtin, UFN_FLOAT64, xi, UFN_INT64, gi, 6);
    e2e_begin("int(float64)");
    for (int i = 0; i < 6; i++)
        E2E_CHECK(gi[i] == wi[i], "int(%g) = %lld, expected %lld", xi[i], (long long)gi[i],
                  (long long)wi[i]);
    e2e_end();

    /* np.int8 saturates to int8 first; the int64 result then holds it. */
    double x8[] = {200.0, -129.5, NAN, 127.9, -5.5};
    const int64_t w8[] = {127, -128, 0, 127, -5};
    int64_t g8[5];
    unary(np_int8, UFN_FLOAT64, x8, UFN_INT64, g8, 5);
    e2e_begin("np.int8(float64)");
    for (int i = 0; i < 5; i++)
        E2E_CHECK(g8[i] == w8[i], "np.int8(%g) = %lld, expected %lld", x8[i], (long long)g8[i],
                  (long long)w8[i]);
    e2e_end();

    /* Inside the range: plain truncation, and int narrowing wraps (Numba). */
    int32_t gt[N_OF(ref_trunc_x)];
    unary(ret_i32, UFN_FLOAT64, ref_trunc_x, UFN_INT32, gt, N_OF(ref_trunc_x));
    e2e_begin("float64 -> int32 inside the range (Numba's values)");
    for (int64_t i = 0; i < N_OF(ref_trunc_x); i++)
        E2E_CHECK(gt[i] == ref_trunc_i32[i], "int32(%g) = %d, expected %d", ref_trunc_x[i], gt[i],
                  ref_trunc_i32[i]);
    e2e_end();
    int8_t gn[N_OF(ref_narrow_x)];
    unary(narrow, UFN_INT64, ref_narrow_x, UFN_INT8, gn, N_OF(ref_narrow_x));
    e2e_begin("int64 -> int8 return cast wraps (Numba's values)");
    for (int64_t i = 0; i < N_OF(ref_narrow_x); i++)
        E2E_CHECK(gn[i] == ref_narrow_i8[i], "int8(%lld) = %d, expected %d",
                  (long long)ref_narrow_x[i], gn[i], ref_narrow_i8[i]);
    e2e_end();
}

int main(int argc, char **argv)
{
    e2e_start(argc, argv, "intsem");
    i64_table("//", floordiv, ref_i64_a, ref_i64_b, ref_i64_floordiv, N_OF(ref_i64_a), "i64_floordiv");
    i64_table("%", mod, ref_i64_a, ref_i64_b, ref_i64_mod, N_OF(ref_i64_a), "i64_mod");
    i32_table("//", floordiv, ref_i32_a, ref_i32_b, ref_i32_floordiv, N_OF(ref_i32_a), "i32_floordiv");
    i32_table("%", mod, ref_i32_a, ref_i32_b, ref_i32_mod, N_OF(ref_i32_a), "i32_mod");
    u64_table("//", floordiv, ref_u64_a, ref_u64_b, ref_u64_floordiv, N_OF(ref_u64_a), "u64_floordiv");
    u64_table("%", mod, ref_u64_a, ref_u64_b, ref_u64_mod, N_OF(ref_u64_a), "u64_mod");
    i64_table("**", power, ref_pow_a, ref_pow_b, ref_pow, N_OF(ref_pow_a), "pow");
    i64_table("<<", shl, ref_shift_a, ref_shift_n, ref_shl, N_OF(ref_shift_a), "shl");
    i64_table(">>", shr, ref_shift_a, ref_shift_n, ref_shr, N_OF(ref_shift_a), "shr");
    i32_table("<<", shl, ref_shift32_a, ref_shift32_n, ref_shl32, N_OF(ref_shift32_a), "shl32");
    i32_table(">>", shr, ref_shift32_a, ref_shift32_n, ref_shr32, N_OF(ref_shift32_a), "shr32");

    double fp[128];
    int64_t nfp = N_OF(ref_fpow_x);
    ufn_array X = ufn_host((void *)ref_fpow_x, UFN_FLOAT64, 1, &nfp);
    ufn_array Nn = ufn_host((void *)ref_fpow_n, UFN_INT64, 1, &nfp);
    ufn_array R = ufn_host(fp, UFN_FLOAT64, 1, &nfp);
    e2e_begin("float64 ** int64, bit for bit (Numba's values)");
    E2E_CALL(fpower(&X, &Nn, &R));
    for (int64_t i = 0; i < nfp; i++)
        E2E_CHECK(e2e_same_f64(fp[i], ref_fpow[i]), "%.17g ** %lld = %.17g, expected %.17g",
                  ref_fpow_x[i], (long long)ref_fpow_n[i], fp[i], ref_fpow[i]);
    e2e_end();
    sample_dump_exact("fpow", UFN_FLOAT64, fp, (size_t)nfp);

    own_rules();
    shift_rules();
    conversions();
    return e2e_finish();
}
