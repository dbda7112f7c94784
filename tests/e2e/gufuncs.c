/* gufuncs - the layouts of gufuncs.ufn: (i)->() with loop dimensions,
 * matmul (m,n),(n,p)->(m,p) batched and with a broadcast ("pinned")
 * operand, a fixed (3) core and its size check, two outputs (i)->(),(), a
 * scalar () input declared as a scalar, the typed entries, and a loop
 * over each row that the host reads in transposed tiles.
 */
#include "e2e.h"
#include "gufuncs.h"

static double value(sample_rng *r)
{
    return (double)(int)sample_uniform(r, -50, 50) / 4;   /* exact in float32 and products */
}

static void reductions(sample_rng *rng)
{
    enum { B = 3, R = 4, I = 5 };
    double a[B][R][I], sum[B][R], lo[B][R], hi[B][R];
    for (int i = 0; i < B * R * I; i++)
        (&a[0][0][0])[i] = value(rng);
    int64_t shape[3] = {B, R, I}, oshape[2] = {B, R};
    ufn_array A = ufn_host(a, UFN_FLOAT64, 3, shape), S = ufn_host(sum, UFN_FLOAT64, 2, oshape);
    ufn_array LO = ufn_host(lo, UFN_FLOAT64, 2, oshape), HI = ufn_host(hi, UFN_FLOAT64, 2, oshape);
    e2e_begin("total (i)->() over a (3, 4, 5) array: two loop dimensions");
    E2E_CALL(total(&A, &S));
    for (int b = 0; b < B; b++)
        for (int r = 0; r < R; r++) {
            double w = 0;
            for (int i = 0; i < I; i++)
                w += a[b][r][i];
            E2E_CHECK(sum[b][r] == w, "total(a[%d][%d]) = %g, expected %g", b, r, sum[b][r], w);
        }
    e2e_end();
    e2e_begin("extremes (i)->(),(): two outputs");
    E2E_CALL(extremes(&A, &LO, &HI));
    for (int b = 0; b < B; b++)
        for (int r = 0; r < R; r++) {
            double wl = a[b][r][0], wh = a[b][r][0];
            for (int i = 1; i < I; i++) {
                wl = fmin(wl, a[b][r][i]);
                wh = fmax(wh, a[b][r][i]);
            }
            E2E_CHECK(lo[b][r] == wl && hi[b][r] == wh, "extremes(a[%d][%d]) = (%g, %g), expected "
                      "(%g, %g)", b, r, lo[b][r], hi[b][r], wl, wh);
        }
    e2e_end();
    sample_dump_exact("total", UFN_FLOAT64, sum, B * R);
    sample_dump_exact("lo", UFN_FLOAT64, lo, B * R);
    sample_dump_exact("hi", UFN_FLOAT64, hi, B * R);

    /* The typed entry: n loop items, then the core size i. */
    double t[B * R];
    e2e_begin("total_float64(n, i, ...)");
    E2E_CALL(total_float64(B * R, I, &a[0][0][0], t));
    for (int k = 0; k < B * R; k++)
        E2E_CHECK(t[k] == sum[k / R][k % R], "row %d: %g, expected %g", k, t[k], sum[k / R][k % R]);
    e2e_end();
}

/* C = A @ B in the kernel's order (k innermost, from 0), so exact. */
static double sumsq_ref(const float *row, int n, int64_t stride)
{
    double acc = 0.0;
    for (int i = 0; i < n; i++)
        acc += (double)(row[i * stride] * row[i * stride]);
    return acc;
}

/* sumsq's `for v in a` on the host: 16 rows at a time, 16 elements of each
 * at a time (emit_lanes.c), whole rows transposed when 16 rows and 16
 * elements are there and the elements are contiguous.  Rows and elements
 * that leave partial blocks and tiles, a row step longer than the row, and
 * a non-unit element stride; random floats, whose sums of squares depend
 * on their order, so each row's order is checked too. */
static void row_tiles(sample_rng *rng)
{
    enum { R = 37, C = 35 };
    static float a[R][C];
    double out[R];
    for (int i = 0; i < R * C; i++)
        (&a[0][0])[i] = (float)sample_uniform(rng, -1, 1);
    struct { const char *what; int64_t n, stride; } cases[] = {
        {"sumsq (i)->() over (37, 35): partial blocks and tiles", C, 1},
        {"sumsq over a[:, :32]: rows 35 apart, whole tiles", 32, 1},
        {"sumsq over a[:, ::2]: element stride 2", (C + 1) / 2, 2},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        int64_t shape[2] = {R, cases[c].n}, strides[2] = {C, cases[c].stride};
        ufn_array A = ufn_host_strided(a, UFN_FLOAT32, 2, shape, strides);
        ufn_array O = ufn_host(out, UFN_FLOAT64, 1, shape);
        e2e_begin(cases[c].what);
        E2E_CALL(sumsq(&A, &O));
        for (int r = 0; r < R; r++) {
            double w = sumsq_ref(a[r], (int)cases[c].n, cases[c].stride);
            E2E_CHECK(out[r] == w, "row %d: %a, expected %a", r, out[r], w);
        }
        e2e_end();
        sample_dump_exact("sumsq", UFN_FLOAT64, out, R);
    }
}

/* carry's loop over out writes out's next element: a tile read ahead
 * would see the old one (emit_lanes.c reads such a loop element by
 * element). */
static void carry_rows(sample_rng *rng)
{
    enum { R = 20, N = 20 };
    double a[R][N], out[R][N];
    for (int i = 0; i < R * N; i++)
        (&a[0][0])[i] = value(rng);
    e2e_begin("carry (n)->(n): a loop over out that writes out ahead of it");
    E2E_CALL(carry_float64(R, N, &a[0][0], &out[0][0]));
    for (int r = 0; r < R; r++) {
        double w[N];
        memcpy(w, a[r], sizeof w);
        for (int k = 0; k < N; k++)
            w[(k + 1) % N] += w[k];
        for (int i = 0; i < N; i++)
            E2E_CHECK(out[r][i] == w[i], "row %d, [%d]: %g, expected %g", r, i, out[r][i], w[i]);
    }
    e2e_end();
    sample_dump_exact("carry", UFN_FLOAT64, out, R * N);
}

static void matmul_ref(const double *a, const double *b, double *c, int m, int n, int p)
{
    for (int i = 0; i < m; i++)
        for (int j = 0; j < p; j++) {
            double acc = 0.0;
            for (int k = 0; k < n; k++)
                acc += a[i * n + k] * b[k * p + j];
            c[i * p + j] = acc;
        }
}

static void matmuls(sample_rng *rng)
{
    enum { B = 5, M = 3, N = 4, P = 2 };
    double a[B][M][N], b[B][N][P], c[B][M][P], pinned[B][M][P], w[M * P];
    for (int i = 0; i < B * M * N; i++)
        (&a[0][0][0])[i] = value(rng);
    for (int i = 0; i < B * N * P; i++)
        (&b[0][0][0])[i] = value(rng);
    int64_t as[3] = {B, M, N}, bs[3] = {B, N, P}, cs[3] = {B, M, P};
    ufn_array A = ufn_host(a, UFN_FLOAT64, 3, as), Bm = ufn_host(b, UFN_FLOAT64, 3, bs);
    ufn_array C = ufn_host(c, UFN_FLOAT64, 3, cs), PC = ufn_host(pinned, UFN_FLOAT64, 3, cs);
    e2e_begin("matmul (m,n),(n,p)->(m,p) over a batch of 5");
    E2E_CALL(matmul(&A, &Bm, &C));
    for (int k = 0; k < B; k++) {
        matmul_ref(&a[k][0][0], &b[k][0][0], w, M, N, P);
        for (int i = 0; i < M * P; i++)
            E2E_CHECK((&c[k][0][0])[i] == w[i], "batch %d, element (%d, %d): %g, expected %g", k,
                      i / P, i % P, (&c[k][0][0])[i], w[i]);
    }
    e2e_end();
    /* (5, 3, 4) @ (4, 2): the second operand has no loop dimension and is
     * used for every item (Numba's "pinned" argument, NumPy broadcasting). */
    ufn_array B0 = ufn_host(&b[0][0][0], UFN_FLOAT64, 2, &bs[1]);
    e2e_begin("matmul with a broadcast (4, 2) operand");
    E2E_CALL(matmul(&A, &B0, &PC));
    for (int k = 0; k < B; k++) {
        matmul_ref(&a[k][0][0], &b[0][0][0], w, M, N, P);
        for (int i = 0; i < M * P; i++)
            E2E_CHECK((&pinned[k][0][0])[i] == w[i], "batch %d, element (%d, %d): %g, expected %g",
                      k, i / P, i % P, (&pinned[k][0][0])[i], w[i]);
    }
    e2e_end();
    /* a[0].T (4, 3) @ a[0] (3, 4): the left operand a transposed view of
     * a[0] (element strides 1, 4), read in place. */
    double at[N][M], aw[N * M], sq[N][N], wsq[N * N];
    for (int i = 0; i < N; i++)
        for (int j = 0; j < M; j++)
            at[i][j] = a[0][j][i];
    int64_t ts[2] = {N, M}, tstr[2] = {1, N}, sqs[2] = {N, N};
    ufn_array AT = ufn_host_strided(&a[0][0][0], UFN_FLOAT64, 2, ts, tstr);   /* a[0].T, no copy */
    ufn_array A0 = ufn_host(&a[0][0][0], UFN_FLOAT64, 2, &as[1]);
    ufn_array SQ = ufn_host(sq, UFN_FLOAT64, 2, sqs);
    e2e_begin("matmul of a transposed view: a[0].T @ a[0]");
    E2E_CALL(matmul(&AT, &A0, &SQ));
    memcpy(aw, at, sizeof aw);
    matmul_ref(aw, &a[0][0][0], wsq, N, M, N);
    for (int i = 0; i < N * N; i++)
        E2E_CHECK((&sq[0][0])[i] == wsq[i], "element (%d, %d): %g, expected %g", i / N, i % N,
                  (&sq[0][0])[i], wsq[i]);
    e2e_end();
    /* Core dimensions that disagree: n is 4 in a, 3 in b. */
    double bad[3][2], untouched[B][M][P];
    memset(untouched, 0x5a, sizeof untouched);
    int64_t bads[2] = {3, 2};
    ufn_array BAD = ufn_host(bad, UFN_FLOAT64, 2, bads);
    ufn_array U = ufn_host(untouched, UFN_FLOAT64, 3, cs);
    e2e_begin("matmul with mismatched core dimensions is refused");
    E2E_REFUSED(matmul(&A, &BAD, &U), UFN_ERR_CORE_DIM, "matmul");
    unsigned char pattern[sizeof untouched];
    memset(pattern, 0x5a, sizeof pattern);
    E2E_CHECK(!memcmp(untouched, pattern, sizeof pattern), "the refused call wrote its output");
    e2e_end();
    sample_dump_exact("matmul", UFN_FLOAT64, c, B * M * P);
    sample_dump_exact("matmul_pinned", UFN_FLOAT64, pinned, B * M * P);
    sample_dump_exact("matmul_t", UFN_FLOAT64, sq, N * N);

    double typed[B][M][P];
    e2e_begin("matmul_float64(n, m, n_, p, ...)");
    E2E_CALL(matmul_float64(B, M, N, P, &a[0][0][0], &b[0][0][0], &typed[0][0][0]));
    E2E_CHECK(!memcmp(typed, c, sizeof c), "the typed entry's products differ from the general "
              "entry's");
    e2e_end();
}

static void fixed_and_scalar(sample_rng *rng)
{
    enum { K = 6, L = 5 };
    float u[K][3], v[K][3], x[K][3];
    for (int i = 0; i < K * 3; i++) {
        (&u[0][0])[i] = (float)value(rng);
        (&v[0][0])[i] = (float)value(rng);
    }
    int64_t s[2] = {K, 3};
    ufn_array U = ufn_host(u, UFN_FLOAT32, 2, s), V = ufn_host(v, UFN_FLOAT32, 2, s);
    ufn_array X = ufn_host(x, UFN_FLOAT32, 2, s);
    e2e_begin("cross (3),(3)->(3)");
    E2E_CALL(cross(&U, &V, &X));
    for (int k = 0; k < K; k++) {
        float w[3] = {u[k][1] * v[k][2] - u[k][2] * v[k][1], u[k][2] * v[k][0] - u[k][0] * v[k][2],
                      u[k][0] * v[k][1] - u[k][1] * v[k][0]};
        for (int i = 0; i < 3; i++)
            E2E_CHECK(x[k][i] == w[i], "cross of row %d, [%d]: %g, expected %g", k, i, x[k][i], w[i]);
    }
    e2e_end();
    sample_dump_exact("cross", UFN_FLOAT32, x, K * 3);

    float four[2][4], out4[2][4] = {{0}};
    int64_t s4[2] = {2, 4};
    ufn_array F = ufn_host(four, UFN_FLOAT32, 2, s4), O4 = ufn_host(out4, UFN_FLOAT32, 2, s4);
    memset(four, 0, sizeof four);
    e2e_begin("cross of 4-vectors is refused: the layout fixes 3");
    E2E_REFUSED(cross(&F, &F, &O4), UFN_ERR_CORE_DIM, "cross");
    e2e_end();

    /* (n),()->(n): the factor is a scalar per loop item, or one weak scalar */
    float rows[K][L], f[K], scaled[K][L], by2[K][L];
    for (int i = 0; i < K * L; i++)
        (&rows[0][0])[i] = (float)value(rng);
    for (int k = 0; k < K; k++)
        f[k] = (float)(k - 2) * 0.5f;
    int64_t rs[2] = {K, L}, nk = K;
    ufn_array RW = ufn_host(rows, UFN_FLOAT32, 2, rs), FA = ufn_host(f, UFN_FLOAT32, 1, &nk);
    ufn_array SC = ufn_host(scaled, UFN_FLOAT32, 2, rs), S2 = ufn_host(by2, UFN_FLOAT32, 2, rs);
    ufn_array two = ufn_scalar_float64(2.0);
    e2e_begin("scale (n),()->(n) with a scalar per row and with one C scalar");
    E2E_CALL(scale(&RW, &FA, &SC));
    E2E_CALL(scale(&RW, &two, &S2));
    for (int k = 0; k < K; k++)
        for (int i = 0; i < L; i++) {
            E2E_CHECK(scaled[k][i] == rows[k][i] * f[k], "row %d, [%d]: %g, expected %g * %g", k,
                      i, scaled[k][i], rows[k][i], f[k]);
            E2E_CHECK(by2[k][i] == rows[k][i] * 2.0f, "row %d, [%d]: %g, expected %g * 2", k, i,
                      by2[k][i], rows[k][i]);
        }
    e2e_end();
    sample_dump_exact("scaled", UFN_FLOAT32, scaled, K * L);

    float typed[K][L];
    e2e_begin("scale_float32(n, n_, a, factor, out): a () argument is n values");
    E2E_CALL(scale_float32(K, L, &rows[0][0], f, &typed[0][0]));
    E2E_CHECK(!memcmp(typed, scaled, sizeof typed), "the typed entry differs from the general one");
    e2e_end();
}

/* out[i] = a[n-1-i] + 100 a[i]: a[-1 - i] and a loop from -n, both
 * negative indices, which must count from the end. */
static void negative_indices(void)
{
    enum { R = 3, N = 5 };
    int64_t a[R][N], out[R][N];
    for (int r = 0; r < R; r++)
        for (int i = 0; i < N; i++)
            a[r][i] = 10 * r + i;
    e2e_begin("reverse (n)->(n) with negative indices");
    E2E_CALL(reverse_int64(R, N, &a[0][0], &out[0][0]));
    for (int r = 0; r < R; r++)
        for (int i = 0; i < N; i++)
            E2E_CHECK(out[r][i] == a[r][N - 1 - i] + 100 * a[r][i], "row %d, [%d]: %lld, expected %lld", r, i,
                      (long long)out[r][i], (long long)(a[r][N - 1 - i] + 100 * a[r][i]));
    e2e_end();
}

int main(int argc, char **argv)
{
    sample_rng rng = {77};
    e2e_start(argc, argv, "gufuncs");
    reductions(&rng);
    row_tiles(&rng);
    carry_rows(&rng);
    matmuls(&rng);
    fixed_and_scalar(&rng);
    negative_indices();
    return e2e_finish();
}
