#define _POSIX_C_SOURCE 200809L
/* jitlang - the @cuda.jit language beyond the seeds (jitlang.ufn): a
 * shared-memory tiled matmul, a histogram with atomics, a block reduction
 * with barriers, dynamic shared memory and warp shuffles, device functions
 * taking local and kernel arrays, a 3-d grid, negative indices, the
 * syncthreads votes, warp functions, the atomics; each result against a
 * rule computed here (exact: the inputs are small integers).  On the
 * simulator, three kernels trip its checks - an index out of bounds, a
 * shared-memory race, a divergent barrier - and each report names the
 * .ufn line.
 */
#include <unistd.h>

#include "e2e.h"
#include "jitlang.h"

static void matmul_case(void)
{
    enum { M = 37, K = 29, P = 23 };
    static float a[M][K], b[K][P], c[M][P];
    for (int i = 0; i < M; i++)
        for (int k = 0; k < K; k++)
            a[i][k] = (float)((i * 3 + k) % 9 - 4);
    for (int k = 0; k < K; k++)
        for (int j = 0; j < P; j++)
            b[k][j] = (float)((k * 5 + j * 2) % 7 - 3);
    int64_t sa[2] = {M, K}, sb[2] = {K, P}, sc[2] = {M, P};
    ufn_array A = ufn_host(a, UFN_FLOAT32, 2, sa), B = ufn_host(b, UFN_FLOAT32, 2, sb);
    ufn_array C = ufn_host(c, UFN_FLOAT32, 2, sc);
    e2e_begin("matmul: 16x16 tiles in shared memory, two barriers per tile");
    E2E_CALL(matmul(ufn_launch_2d((P + 15) / 16, (M + 15) / 16, 16, 16), &A, &B, &C));
    for (int i = 0; i < M; i++)
        for (int j = 0; j < P; j++) {
            double w = 0;
            for (int k = 0; k < K; k++)
                w += (double)a[i][k] * b[k][j];
            E2E_CHECK(c[i][j] == (float)w, "c[%d][%d] = %g, expected %g", i, j, c[i][j], w);
        }
    e2e_end();
    sample_dump_exact("matmul", UFN_FLOAT32, c, M * P);
}

static void histogram_case(void)
{
    enum { N = 1000, NB = 10 };
    static float x[N];
    static double xd[N];
    int32_t bins[NB] = {0}, binsd[NB] = {0}, want[NB] = {0};
    for (int i = 0; i < N; i++) {
        x[i] = (float)((i * 37 % 1000) / 100.0);
        xd[i] = x[i];
        want[(int)x[i]]++;
    }
    int64_t n[1] = {N}, nb[1] = {NB};
    ufn_array X = ufn_host(x, UFN_FLOAT32, 1, n), XD = ufn_host(xd, UFN_FLOAT64, 1, n);
    ufn_array BINS = ufn_host(bins, UFN_INT32, 1, nb), BINSD = ufn_host(binsd, UFN_INT32, 1, nb);
    ufn_array LO = ufn_scalar_float64(0.0), W = ufn_scalar_float64(1.0);
    ufn_array LO32 = ufn_scalar_float32(0.0f), W32 = ufn_scalar_float32(1.0f);
    e2e_begin("histogram: atomic.add, an early return; float32 and float64 signatures");
    E2E_CALL(histogram(ufn_launch_1d(4, 256), &X, &BINS, &LO32, &W32));
    E2E_CALL(histogram(ufn_launch_1d(4, 256), &XD, &BINSD, &LO, &W));
    for (int k = 0; k < NB; k++)
        E2E_CHECK(bins[k] == want[k] && binsd[k] == want[k], "bin %d: %d and %d, expected %d", k, bins[k],
                  binsd[k], want[k]);
    e2e_end();
    sample_dump_exact("histogram", UFN_INT32, bins, NB);
}

static void block_sum_case(void)
{
    enum { N = 1000, BLOCKS = 4, T = 256 };
    static float x[N];
    float out[BLOCKS];
    for (int i = 0; i < N; i++)
        x[i] = (float)(i % 11 - 5);
    int64_t n[1] = {N}, nb[1] = {BLOCKS};
    ufn_array X = ufn_host(x, UFN_FLOAT32, 1, n), O = ufn_host(out, UFN_FLOAT32, 1, nb);
    ufn_launch l = ufn_launch_1d(BLOCKS, T);
    l.shared_bytes = T * sizeof(float);
    e2e_begin("block_sum: dynamic shared memory, syncthreads, shfl_down_sync");
    E2E_CALL(block_sum(l, &X, &O));
    for (int b = 0; b < BLOCKS; b++) {
        float w = 0;
        for (int i = b * T; i < (b + 1) * T && i < N; i++)
            w += x[i];
        E2E_CHECK(out[b] == w, "block %d: %g, expected %g", b, out[b], w);
    }
    e2e_end();
    sample_dump_exact("block_sum", UFN_FLOAT32, out, BLOCKS);
}

static void norms_case(void)
{
    enum { N = 50 };
    static double x[N][3], out[N];
    for (int i = 0; i < N; i++)
        for (int k = 0; k < 3; k++)
            x[i][k] = (i + k * 7) % 13 - 6;
    int64_t s2[2] = {N, 3}, s1[1] = {N};
    ufn_array X = ufn_host(x, UFN_FLOAT64, 2, s2), O = ufn_host(out, UFN_FLOAT64, 1, s1);
    e2e_begin("norms: a local array filled by a device function, another reading it");
    E2E_CALL(norms(ufn_launch_1d(1, 64), &X, &O));
    for (int i = 0; i < N; i++) {
        double w = sqrt(x[i][0] * x[i][0] + x[i][1] * x[i][1] + x[i][2] * x[i][2]);
        E2E_CHECK(out[i] == w, "norm of row %d: %g, expected %g", i, out[i], w);
    }
    e2e_end();
    sample_dump_exact("norms", UFN_FLOAT64, out, N);
}

static void grid3_case(void)
{
    static int64_t out[5][6][7];
    int64_t s[3] = {5, 6, 7};
    ufn_array O = ufn_host(out, UFN_INT64, 3, s);
    ufn_dim3 grid = {2, 2, 2}, block = {4, 4, 4};
    e2e_begin("coords: grid(3) and gridsize(3) on a (2, 2, 2) x (4, 4, 4) launch");
    E2E_CALL(coords(ufn_launch_3d(grid, block), &O));
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < 6; j++)
            for (int k = 0; k < 7; k++)
                E2E_CHECK(out[i][j][k] == 100 * i + 10 * j + k + 8000, "out[%d][%d][%d] = %lld", i, j, k,
                          (long long)out[i][j][k]);
    e2e_end();
    sample_dump_exact("coords", UFN_INT64, out, 5 * 6 * 7);
}

static void reverse_case(void)
{
    enum { N = 100 };
    int32_t x[N], out[N];
    for (int i = 0; i < N; i++)
        x[i] = i * i;
    int64_t n[1] = {N};
    ufn_array X = ufn_host(x, UFN_INT32, 1, n), O = ufn_host(out, UFN_INT32, 1, n);
    e2e_begin("reverse: out[-1 - i], Python's negative index");
    E2E_CALL(reverse(ufn_launch_1d(1, 128), &X, &O));
    for (int i = 0; i < N; i++)
        E2E_CHECK(out[N - 1 - i] == x[i], "out[%d] = %d, expected %d", N - 1 - i, out[N - 1 - i], x[i]);
    e2e_end();
    sample_dump_exact("reverse", UFN_INT32, out, N);
}

static void votes_case(void)
{
    int32_t x[64], out[3] = {-1, -1, -1};
    for (int i = 0; i < 64; i++)
        x[i] = i % 7 == 0 ? 1 : 0;    /* 10 of them */
    int64_t n[1] = {64}, n3[1] = {3};
    ufn_array X = ufn_host(x, UFN_INT32, 1, n), O = ufn_host(out, UFN_INT32, 1, n3);
    e2e_begin("votes: syncthreads_count, _and, _or");
    E2E_CALL(votes(ufn_launch_1d(1, 64), &X, &O));
    E2E_CHECK(out[0] == 10 && out[1] == 0 && out[2] == 1, "count, and, or = %d %d %d, expected 10 0 1", out[0],
              out[1], out[2]);
    e2e_end();
}

static void warps_case(void)
{
    enum { T = 64 };
    int64_t x[T], out[T * 6];
    for (int i = 0; i < T; i++)
        x[i] = i;
    int64_t n[1] = {T}, n6[1] = {T * 6};
    ufn_array X = ufn_host(x, UFN_INT64, 1, n), O = ufn_host(out, UFN_INT64, 1, n6);
    e2e_begin("warps: shuffles, ballot, all, any, laneid, warpsize, syncwarp (two warps)");
    E2E_CALL(warps(ufn_launch_1d(1, T), &X, &O));
    for (int t = 0; t < T; t++) {
        int w = t / 32 * 32, lane = t % 32;
        int64_t want[6] = {x[w + 3], lane ? x[t - 1] : x[t], x[t ^ 1], 0x55555555, w == 0 ? 3 : 1, lane + 3200};
        for (int k = 0; k < 6; k++)
            E2E_CHECK(out[t * 6 + k] == want[k], "thread %d, value %d: %lld, expected %lld", t, k,
                      (long long)out[t * 6 + k], (long long)want[k]);
    }
    e2e_end();
    sample_dump_exact("warps", UFN_INT64, out, T * 6);
}

static void atomics_case(void)
{
    uint32_t u[4] = {0, 0, 0, 12}, w[1] = {1};
    double f[3] = {0, -1, 10};
    int64_t old[6] = {0};
    int64_t n4[1] = {4}, n3[1] = {3}, n6[1] = {6}, n1[1] = {1};
    ufn_array U = ufn_host(u, UFN_UINT32, 1, n4), F = ufn_host(f, UFN_FLOAT64, 1, n3);
    ufn_array OLD = ufn_host(old, UFN_INT64, 1, n6), W = ufn_host(w, UFN_UINT32, 1, n1);
    e2e_begin("atomics: inc, max, min, nanmax, sub, exch, cas, compare_and_swap, xor, or_, and_");
    E2E_CALL(atomics(ufn_launch_1d(1, 8), &U, &F, &OLD, &W));
    E2E_CHECK(u[0] == 2 && u[1] == 7 && u[2] == 9 && u[3] == 3, "u = %u %u %u %u, expected 2 7 9 3", u[0], u[1],
              u[2], u[3]);
    E2E_CHECK(f[0] == -10.5 && f[1] == 3.5 && f[2] == 2, "f = %g %g %g, expected -10.5 3.5 2", f[0], f[1], f[2]);
    int64_t want[6] = {0, 7, 1, 12, 10, 11};
    for (int k = 0; k < 6; k++)
        E2E_CHECK(old[k] == want[k], "old value %d: %lld, expected %lld", k, (long long)old[k], (long long)want[k]);
    E2E_CHECK(w[0] == 2, "compare_and_swap stored %u, expected 2", w[0]);
    e2e_end();
}

/* print() in a kernel, as Numba formats it: what the kernel writes to
 * standard output is caught in a file (one block: its threads in order on
 * the host and the simulator). */
static void print_case(void)
{
    fflush(stdout);
    FILE *tmp = tmpfile();
    int saved = dup(1);
    dup2(fileno(tmp), 1);
    ufn_array N = ufn_scalar_int64(2), X = ufn_scalar_float32(1.5f), U = ufn_scalar_uint32(7);
    ufn_array B = ufn_scalar_bool(1);
    int status = hello(ufn_launch_1d(1, 4), &N, &X, &U, &B);
    if (status == 0)    /* no host arrays: the launch does not wait for the kernel */
        status = ufn_synchronize();
    fflush(stdout);
    dup2(saved, 1);
    close(saved);
    char text[256] = {0};
    rewind(tmp);
    size_t got = fread(text, 1, sizeof text - 1, tmp);
    fclose(tmp);
    (void)got;
    e2e_begin("hello: print() of strings, int64, float32, uint32 and bool");
    E2E_CHECK(status == 0, "hello: %s", ufn_error());
    const char *want = "thread 0 of 2 1.500000 7 True\nthread 1 of 2 1.500000 7 True\n";
    E2E_CHECK(!strcmp(text, want), "printed \"%s\", expected \"%s\"", text, want);
    e2e_end();
}

/* Grid-stride loops: stride_scale and stride_count in the host's
 * grid-stride form (one loop over i per stride), stride_count also on a
 * 2-d block (the form's fallback: every y repeats grid(1)), stride_shape
 * with a tuple local, stride_carry and stride_return in the plain block
 * runner; every result by CUDA's rule, thread by thread. */
static void stride_case(void)
{
    enum { N = 1000, B = 3, T = 64, S = B * T };
    static float x[N], out[N], want[N];
    static int32_t xi[N];
    int32_t bins[8] = {0}, bins2[8] = {0}, wbins[8] = {0};
    for (int i = 0; i < N; i++) {
        x[i] = (float)((i * 7) % 23 - 3);
        xi[i] = i * 5 % 37;
        wbins[xi[i] % 8]++;
    }
    int64_t n[1] = {N}, n8[1] = {8};
    ufn_array X = ufn_host(x, UFN_FLOAT32, 1, n), O = ufn_host(out, UFN_FLOAT32, 1, n);
    ufn_array XI = ufn_host(xi, UFN_INT32, 1, n), BINS = ufn_host(bins, UFN_INT32, 1, n8);
    ufn_array BINS2 = ufn_host(bins2, UFN_INT32, 1, n8), A = ufn_scalar_float32(2.0f);
    e2e_begin("grid-stride loops: the host's grid-stride form and its fallbacks");
    E2E_CALL(stride_scale(ufn_launch_1d(B, T), &X, &A, &O));
    for (int i = 0; i < N; i++)
        E2E_CHECK(out[i] == (x[i] * 2 < 0 ? 0.0f : (float)(x[i] * 2.0f + (double)N)), "stride_scale: out[%d] = %g", i,
                  out[i]);
    E2E_CALL(stride_count(ufn_launch_1d(B, T), &XI, &BINS));
    ufn_dim3 grid = {B, 1, 1}, block = {T / 2, 2, 1};
    E2E_CALL(stride_count(ufn_launch_3d(grid, block), &XI, &BINS2));
    for (int k = 0; k < 8; k++)
        E2E_CHECK(bins[k] == wbins[k] && bins2[k] == 2 * wbins[k], "stride_count: bin %d: %d and %d, expected %d and %d",
                  k, bins[k], bins2[k], wbins[k], 2 * wbins[k]);
    E2E_CALL(stride_carry(ufn_launch_1d(B, T), &X, &O));
    for (int t = 0; t < S; t++) {
        float acc = 0;
        for (int i = t; i < N; i += S)
            want[i] = acc += x[i];
    }
    for (int i = 0; i < N; i++)
        E2E_CHECK(out[i] == want[i], "stride_carry: out[%d] = %g, expected %g", i, out[i], want[i]);
    for (int i = 0; i < N; i++)
        out[i] = want[i] = -1;
    E2E_CALL(stride_return(ufn_launch_1d(B, T), &X, &O));
    for (int t = 0; t < S; t++)
        for (int i = t; i < N && x[i] >= 0; i += S)
            want[i] = x[i] * 2;
    for (int i = 0; i < N; i++)
        E2E_CHECK(out[i] == want[i], "stride_return: out[%d] = %g, expected %g", i, out[i], want[i]);
    E2E_CALL(stride_shape(ufn_launch_1d(B, T), &X, &O));
    for (int i = 0; i < N; i++)
        E2E_CHECK(out[i] == (float)((double)x[i] * N), "stride_shape: out[%d] = %g", i, out[i]);
    e2e_end();
    sample_dump_exact("stride_return", UFN_FLOAT32, out, N);
}

/* A split kernel with a loop per thread and an interchanged one. */
static void prefix_case(void)
{
    enum { B = 3, T = 64, N = B * T };
    static float x[N], out[N];
    for (int i = 0; i < N; i++)
        x[i] = (float)((i * 11) % 17 - 8) * 0.25f;
    int64_t n[1] = {N};
    ufn_array X = ufn_host(x, UFN_FLOAT32, 1, n), O = ufn_host(out, UFN_FLOAT32, 1, n);
    e2e_begin("prefix_sums: a split kernel's loops inside and outside the threads");
    E2E_CALL(prefix_sums(ufn_launch_1d(B, T), &X, &O));
    for (int b = 0; b < B; b++)
        for (int t = 0; t < T; t++) {
            const float *s = x + b * T;
            float acc = 0;
            for (int k = 0; k <= t; k++)
                acc += s[k];
            for (int k = 0; k < 4; k++)
                acc += s[(t + k) % 64];
            float w = (float)((double)acc + 3);
            E2E_CHECK(out[b * T + t] == w, "out[%d] = %g, expected %g", b * T + t, out[b * T + t], w);
        }
    e2e_end();
    sample_dump_exact("prefix_sums", UFN_FLOAT32, out, N);
}

/* An interchanged loop in its strip form (64 threads), interchanged where
 * the block does not fit the strips (40), and one that stores (never in
 * the strip form): each thread's sums in their order, so exact. */
static void strip_case(void)
{
    enum { B = 3, N = B * 64 };
    static float x[N], out[N];
    for (int i = 0; i < N; i++)
        x[i] = (float)((i * 7) % 13 - 6) * 0.5f;
    e2e_begin("row_dots, row_scatter: an interchanged loop per strip of threads, and not");
    static const int threads[2] = {64, 40};
    for (int c = 0; c < 2; c++) {
        const int T = threads[c];
        int64_t n[1] = {(int64_t)B * T};
        ufn_array X = ufn_host(x, UFN_FLOAT32, 1, n), O = ufn_host(out, UFN_FLOAT32, 1, n);
        E2E_CALL(row_dots(ufn_launch_1d(B, (uint32_t)T), &X, &O));
        for (int i = 0; i < B * T; i++) {
            const float *s = x + i / T * T;
            float acc = 0, last = 0;
            for (int k = 0; k < 5; k++) {
                float v = s[(i % T + k) % T];
                acc += v * v;
                last = v;
            }
            E2E_CHECK(out[i] == acc - last, "row_dots[%d threads]: out[%d] = %g, expected %g", T, i, out[i],
                      acc - last);
        }
        if (c == 0)
            sample_dump_exact("row_dots", UFN_FLOAT32, out, N);
    }
    int64_t n[1] = {N};
    ufn_array X = ufn_host(x, UFN_FLOAT32, 1, n), O = ufn_host(out, UFN_FLOAT32, 1, n);
    for (int i = 0; i < N; i++)
        out[i] = 1;
    E2E_CALL(row_scatter(ufn_launch_1d(B, 64), &X, &O));
    for (int i = 0; i < N; i++) {
        const float *s = x + i / 64 * 64;
        float want = 1;
        for (int k = 0; k < 3; k++)
            want += s[(i % 64 + 64 - k) % 64];
        E2E_CHECK(out[i] == want, "row_scatter: out[%d] = %g, expected %g", i, out[i], want);
    }
    e2e_end();
    sample_dump_exact("row_scatter", UFN_FLOAT32, out, N);
}

/* The simulator's checks, each at its .ufn line. */
static void checks_case(void)
{
    float x[64] = {0}, out[64];
    int64_t n8[1] = {8}, n64[1] = {64};
    ufn_array X8 = ufn_host(x, UFN_FLOAT32, 1, n8), O8 = ufn_host(out, UFN_FLOAT32, 1, n8);
    ufn_array X = ufn_host(x, UFN_FLOAT32, 1, n64), O = ufn_host(out, UFN_FLOAT32, 1, n64);
    e2e_begin("the simulator's checks name the .ufn line");
    E2E_REFUSED(out_of_bounds(ufn_launch_1d(2, 8), &X8, &O8), UFN_ERR_KERNEL,
                "is out of bounds for axis 0 of x with size 8, in thread (0,0,0) of block (1,0,0) at tests/e2e/jitlang.ufn:153");
    E2E_REFUSED(racy(ufn_launch_1d(1, 64), &X, &O), UFN_ERR_KERNEL, "(tests/e2e/jitlang.ufn:160)");
    E2E_REFUSED(divergent(ufn_launch_1d(1, 64), &X), UFN_ERR_KERNEL, "at tests/e2e/jitlang.ufn:170");
    e2e_end();
}

int main(int argc, char **argv)
{
    e2e_start(argc, argv, "jitlang");
    matmul_case();
    histogram_case();
    block_sum_case();
    norms_case();
    grid3_case();
    reverse_case();
    votes_case();
    warps_case();
    atomics_case();
    print_case();
    stride_case();
    prefix_case();
    strip_case();
    if (!strcmp(ufn_backend(), "sim"))
        checks_case();
    return e2e_finish();
}
