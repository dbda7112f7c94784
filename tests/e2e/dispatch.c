/* dispatch - one ufunc with four signatures (dispatch.ufn): the loop comes
 * from the operands' dtypes (exact match, then NumPy's safe casting in
 * declaration order), weak C scalars follow the arrays (NEP 50), and when
 * nothing fits the error lists the signatures.  The output's dtype, given
 * an empty output, shows which loop ran.
 */
#include "e2e.h"
#include "dispatch.h"

/* mul(a, b) into an empty output: its dtype and first values. */
static void expect_loop(const char *what, ufn_array a, ufn_array b, ufn_dtype want,
                        const double *values, int n)
{
    ufn_array out = {0};
    e2e_begin("%s picks the %s loop", what, ufn_dtype_name(want));
    E2E_CALL(mul(&a, &b, &out));
    E2E_CHECK(out.dtype == want, "the output is %s", ufn_dtype_name(out.dtype));
    for (int i = 0; out.dtype == want && i < n; i++) {
        double got = want == UFN_INT32 ? ((int32_t *)out.data)[i]
                   : want == UFN_INT64 ? (double)((int64_t *)out.data)[i]
                   : want == UFN_FLOAT32 ? ((float *)out.data)[i] : ((double *)out.data)[i];
        E2E_CHECK(got == values[i], "[%d] = %.17g, expected %.17g", i, got, values[i]);
    }
    e2e_end();
    ufn_free(&out);
}

int main(int argc, char **argv)
{
    e2e_start(argc, argv, "dispatch");
    int64_t n = 3;
    int32_t i32[] = {2, -3, 65536};
    int64_t i64[] = {2, -3, 4294967296};
    float f32[] = {1.5f, 0.1f, 3e38f};
    double f64[] = {1.5, 0.1, 1e300};
    uint8_t u8[] = {2, 3, 255};
    bool b1[] = {true, false, true};
    ufn_complex64 c64[] = {{1, 0}, {0, 1}, {2, 2}};
    ufn_array I32 = ufn_host(i32, UFN_INT32, 1, &n), I64 = ufn_host(i64, UFN_INT64, 1, &n);
    ufn_array F32 = ufn_host(f32, UFN_FLOAT32, 1, &n), F64 = ufn_host(f64, UFN_FLOAT64, 1, &n);
    ufn_array U8 = ufn_host(u8, UFN_UINT8, 1, &n), B1 = ufn_host(b1, UFN_BOOL, 1, &n);
    ufn_array C64 = ufn_host(c64, UFN_COMPLEX64, 1, &n);

    /* Exact matches.  int32 65536 * 65536 wraps in int32 (stored from int64). */
    expect_loop("int32 * int32", I32, I32, UFN_INT32, (double[]){4, 9, 0}, 3);
    expect_loop("int64 * int64", I64, I64, UFN_INT64, (double[]){4, 9, 0}, 3);
    expect_loop("float32 * float32", F32, F32, UFN_FLOAT32,
                (double[]){2.25, (float)(0.1f * 0.1f), INFINITY}, 3);
    expect_loop("float64 * float64", F64, F64, UFN_FLOAT64, (double[]){2.25, 0.1 * 0.1, INFINITY}, 3);
    /* Safe casting, first fitting signature in declaration order. */
    expect_loop("int32 * int64", I32, I64, UFN_INT64, (double[]){4, 9, 281474976710656.0}, 3);
    expect_loop("uint8 * uint8", U8, U8, UFN_INT32, (double[]){4, 9, 65025}, 3);
    expect_loop("bool * int32", B1, I32, UFN_INT32, (double[]){2, 0, 65536}, 3);
    expect_loop("float32 * int32", F32, I32, UFN_FLOAT64,
                (double[]){3.0, (double)0.1f * -3, (double)3e38f * 65536}, 3);
    expect_loop("float32 * float64", F32, F64, UFN_FLOAT64, (double[]){2.25, (double)0.1f * 0.1}, 2);
    /* Weak scalars take the arrays' type: a C double with a float32 array
     * runs the float32 loop (like a Python float with NumPy 2 / Numba). */
    expect_loop("float32 * scalar 2.0", F32, ufn_scalar_float64(2.0), UFN_FLOAT32,
                (double[]){3.0, (float)(0.1f * 2.0f), INFINITY}, 3);
    expect_loop("scalar 2.0 * float32", ufn_scalar_float64(2.0), F32, UFN_FLOAT32,
                (double[]){3.0, (float)(0.1f * 2.0f)}, 2);
    expect_loop("int32 * scalar 3 (int64)", I32, ufn_scalar_int64(3), UFN_INT32,
                (double[]){6, -9, 196608}, 3);
    expect_loop("int32 * scalar 0.5", I32, ufn_scalar_float64(0.5), UFN_FLOAT64,
                (double[]){1, -1.5, 32768}, 3);
    expect_loop("scalar * scalar (int64)", ufn_scalar_int64(6), ufn_scalar_int64(7), UFN_INT64,
                (double[]){42}, 1);

    /* No signature takes complex64: the error lists the signatures. */
    float untouched[3] = {-1, -1, -1};
    ufn_array OUT = ufn_host(untouched, UFN_FLOAT32, 1, &n);
    e2e_begin("complex64 * complex64 is refused, naming the signatures");
    E2E_REFUSED(mul(&C64, &C64, &OUT), UFN_ERR_DTYPE, "mul");
    const char *msg = ufn_error();
    const char *sigs[] = {"int32(int32, int32)", "int64(int64, int64)",
                          "float32(float32, float32)", "float64(float64, float64)", "complex64"};
    for (int i = 0; i < 5; i++)
        E2E_CHECK(strstr(msg, sigs[i]) != NULL, "the message \"%s\" does not mention %s", msg,
                  sigs[i]);
    E2E_CHECK(untouched[0] == -1 && untouched[1] == -1 && untouched[2] == -1,
              "the refused call wrote its output");
    e2e_end();
    printf("    (the message: %s)\n", msg);

    /* A given output of another dtype: cast as NumPy's casting='same_kind'
     * allows (float64 results into float32), refused across kinds. */
    float f32out[3];
    int32_t i32out[3] = {7, 7, 7};
    ufn_array O32 = ufn_host(f32out, UFN_FLOAT32, 1, &n), OI = ufn_host(i32out, UFN_INT32, 1, &n);
    e2e_begin("float64 results into a float32 output are rounded; into int32 refused");
    E2E_CALL(mul(&F64, &F64, &O32));
    for (int i = 0; i < 3; i++)
        E2E_CHECK(f32out[i] == (float)(f64[i] * f64[i]), "[%d] = %.9g, expected %.9g", i,
                  f32out[i], (float)(f64[i] * f64[i]));
    E2E_REFUSED(mul(&F64, &F64, &OI), UFN_ERR_OUTPUT, "int32");
    E2E_CHECK(i32out[0] == 7 && i32out[1] == 7 && i32out[2] == 7, "the refused call wrote its output");
    e2e_end();

    /* The typed entries run their loop directly. */
    int32_t t32[3];
    double t64[3];
    e2e_begin("typed entries mul_int32 and mul_float64");
    E2E_CALL(mul_int32(3, i32, i32, t32));
    E2E_CALL(mul_float64(3, f64, f64, t64));
    E2E_CHECK(t32[0] == 4 && t32[1] == 9 && t32[2] == 0, "mul_int32: %d %d %d", t32[0], t32[1],
              t32[2]);
    E2E_CHECK(t64[0] == 2.25 && t64[1] == 0.1 * 0.1 && isinf(t64[2]), "mul_float64: %g %g %g",
              t64[0], t64[1], t64[2]);
    e2e_end();
    sample_dump_exact("mul_int32", UFN_INT32, t32, 3);
    sample_dump_exact("mul_float64", UFN_FLOAT64, t64, 3);
    return e2e_finish();
}
