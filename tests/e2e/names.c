/* names - a module whose Python names were C's, the compilers', the
 * runtime's or ufnc's own (names.ufn): it compiles, and each entry computes
 * with the right variables, through the general and the typed entries. */
#include "e2e.h"
#include "names.h"

/* mix(n, n_, int, int_, out) in C, as names.ufn spells it */
static double mix_ref(double n, double n2, double i, double i2, double out)
{
    double g = (n + n2) + i * i2;
    double pragma = (g + out) * 2;
    double v_x = pragma + 1.0 + 0.5 + 0.5;
    return (v_x - 1.0 + 1) + 3 * 1.0 + 2 * 1.0;
}

int main(int argc, char **argv)
{
    e2e_start(argc, argv, "names");

    double a[] = {1, -2, 0.5, 8}, b[] = {3, 4, -1, 0}, c[] = {2, 2, 3, -1}, d[] = {0.5, 1, 2, 4},
           e[] = {7, 0, -3, 1}, r[4], t[4];
    int64_t n4 = 4;
    ufn_array A = ufn_host(a, UFN_FLOAT64, 1, &n4), B = ufn_host(b, UFN_FLOAT64, 1, &n4);
    ufn_array C = ufn_host(c, UFN_FLOAT64, 1, &n4), D = ufn_host(d, UFN_FLOAT64, 1, &n4);
    ufn_array E = ufn_host(e, UFN_FLOAT64, 1, &n4), R = ufn_host(r, UFN_FLOAT64, 1, &n4);
    e2e_begin("mix(n, n_, int, int_, out): locals UFN_LOOP, _Complex, NULL, INT64_C, stdin, ...");
    E2E_CALL(mix(&A, &B, &C, &D, &E, &R));
    E2E_CALL(mix_float64(4, a, b, c, d, e, t));
    for (int i = 0; i < 4; i++) {
        double want = mix_ref(a[i], b[i], c[i], d[i], e[i]);
        E2E_CHECK(r[i] == want && t[i] == want, "mix(%g, %g, %g, %g, %g) = %g (typed: %g), expected %g", a[i], b[i],
                  c[i], d[i], e[i], r[i], t[i], want);
    }
    e2e_end();
    sample_dump_exact("mix", UFN_FLOAT64, r, 4);

    /* x arrives as float32 in a_x's C name's neighbour, then widens */
    float x[] = {1.5f, -2, 0, 3};
    double w[4];
    e2e_begin("widened(x, a_x): a parameter widened in the body next to one named a_x");
    E2E_CALL(widened_float32_float64(4, x, a, w));
    for (int i = 0; i < 4; i++)
        E2E_CHECK(w[i] == (double)x[i] * 2.0 + a[i], "widened(%g, %g) = %g, expected %g", x[i], a[i], w[i],
                  (double)x[i] * 2.0 + a[i]);
    e2e_end();
    sample_dump_exact("widened", UFN_FLOAT64, w, 4);

    int64_t p[] = {5, -1, 100}, q[] = {2, 7, -100}, o[3], n3 = 3;
    ufn_array P = ufn_host(p, UFN_INT64, 1, &n3), Q = ufn_host(q, UFN_INT64, 1, &n3), O = {0};
    e2e_begin("outs(out, out_): the output parameter is out_2");
    E2E_CALL(outs(&P, &Q, &O));
    E2E_CALL(outs_int64(3, p, q, o));
    for (int i = 0; i < 3; i++) {
        const int64_t *g = O.data;
        E2E_CHECK(g && g[i] == p[i] - q[i] && o[i] == p[i] - q[i], "outs(%lld, %lld) = %lld (typed: %lld)",
                  (long long)p[i], (long long)q[i], g ? (long long)g[i] : 0LL, (long long)o[i]);
    }
    e2e_end();
    ufn_free(&O);

    /* dims(n, out, int), layout (n),(out)->(int): sizes 2, 3 -> 5; one loop item */
    double nn[] = {1, 2}, oo[] = {10, 20, 30}, ii[5], jj[5];
    int64_t s2 = 2, s3 = 3, s5 = 5;
    ufn_array NN = ufn_host(nn, UFN_FLOAT64, 1, &s2), OO = ufn_host(oo, UFN_FLOAT64, 1, &s3);
    ufn_array II = ufn_host(ii, UFN_FLOAT64, 1, &s5);
    e2e_begin("dims(n, out, int): core dimensions n, out, int; a local ufn_t0 in a hoisted index");
    E2E_CALL(dims(&NN, &OO, &II));
    E2E_CALL(dims_float64(1, 2, 3, 5, nn, oo, jj));
    for (int i = 0; i < 5; i++) {
        double want = nn[i % 2] + oo[i % 3] + (i == 1 ? 100.0 : 0.0);
        E2E_CHECK(ii[i] == want && jj[i] == want, "int[%d] = %g (typed: %g), expected %g", i, ii[i], jj[i], want);
    }
    e2e_end();
    sample_dump_exact("dims", UFN_FLOAT64, ii, 5);
    return e2e_finish();
}
