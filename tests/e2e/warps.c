/* warps - warp functions on the host's split runner (warps.ufn): a block
 * sum through a warp reduction, every shuffle and vote with activemask's
 * mask in a block of 100 threads (its last warp has 4 lanes), and a
 * kernel that keeps the fiber form; each result against CUDA's rule
 * spelt here (exact: the inputs are small integers).
 */
#include "e2e.h"
#include "warps.h"

static void block_sum_case(int n, int blocks, int threads)
{
    static float x[2048], out[64];
    for (int i = 0; i < n; i++)
        x[i] = (float)(i % 11 - 5);
    int64_t nx = n, nb = blocks;
    ufn_array X = ufn_host(x, UFN_FLOAT32, 1, &nx), O = ufn_host(out, UFN_FLOAT32, 1, &nb);
    e2e_begin("warp_block_sum: for off in (16, 8, 4, 2, 1): shfl_down_sync, %d blocks of %d", blocks, threads);
    E2E_CALL(warp_block_sum(ufn_launch_1d((uint32_t)blocks, (uint32_t)threads), &X, &O));
    for (int b = 0; b < blocks; b++) {
        float want = 0;
        for (int i = b * threads; i < (b + 1) * threads && i < n; i++)
            want += x[i];
        E2E_CHECK(out[b] == want, "block %d: %g, expected %g", b, out[b], want);
    }
    e2e_end();
    sample_dump_exact(threads == 256 ? "warp_block_sum" : "warp_block_sum_96", UFN_FLOAT32, out, blocks);
}

/* What lane `lane` of a warp with `have` lanes gets from each function. */
static void lanes_rule(const int32_t *x, int base, int have, int lane, int64_t *want)
{
    int64_t s[32];
    for (int l = 0; l < have; l++)
        s[l] = x[base + l];
    for (int off = 16; off >= 1; off /= 2) {
        int64_t next[32];
        for (int l = 0; l < have; l++)
            next[l] = s[l] + (l + off < have ? s[l + off] : s[l]);
        for (int l = 0; l < have; l++)
            s[l] = next[l];
    }
    int32_t v = x[base + lane];
    uint32_t ballot = 0, mask = have == 32 ? 0xffffffffu : (1u << have) - 1u;
    int all = 1, any = 0;
    for (int l = 0; l < have; l++) {
        ballot |= (x[base + l] % 3 == 0) ? 1u << l : 0;
        all = all && x[base + l] >= 0;
        any = any || x[base + l] > 90;
    }
    want[0] = s[lane];
    want[1] = lane >= 1 ? x[base + lane - 1] : v;
    want[2] = (lane ^ 3) < have ? x[base + (lane ^ 3)] : v;
    want[3] = 5 < have ? x[base + 5] : v;
    want[4] = (int32_t)ballot;
    want[5] = all;
    want[6] = any;
    want[7] = mask;
    want[8] = lane;
}

static void lanes_case(void)
{
    enum { T = 100 };
    int32_t x[T];
    int64_t out[T * 9];
    for (int i = 0; i < T; i++)
        x[i] = (i * 37) % 97 - 3;
    int64_t n = T, no = T * 9;
    ufn_array X = ufn_host(x, UFN_INT32, 1, &n), O = ufn_host(out, UFN_INT64, 1, &no);
    e2e_begin("lanes: shuffles, ballot, all, any, activemask, syncwarp, laneid in 100 threads (a partial warp)");
    E2E_CALL(lanes(ufn_launch_1d(1, T), &X, &O));
    static const char *const what[] = {"shfl_down sum", "shfl_up 1", "shfl_xor 3", "shfl 5", "ballot", "all",
                                       "any", "activemask", "laneid"};
    for (int i = 0; i < T; i++) {
        int base = i / 32 * 32, have = T - base < 32 ? T - base : 32;
        int64_t want[9];
        lanes_rule(x, base, have, i - base, want);
        for (int k = 0; k < 9; k++)
            E2E_CHECK(out[i * 9 + k] == want[k], "thread %d, %s: %lld, expected %lld", i, what[k],
                      (long long)out[i * 9 + k], (long long)want[k]);
    }
    e2e_end();
    sample_dump_exact("lanes", UFN_INT64, out, T * 9);
}

static void divergent_case(void)
{
    enum { T = 96 };
    int32_t x[T], out[T];
    for (int i = 0; i < T; i++)
        x[i] = i * 3 - 50;
    int64_t n = T;
    ufn_array X = ufn_host(x, UFN_INT32, 1, &n), O = ufn_host(out, UFN_INT32, 1, &n);
    e2e_begin("divergent_shuffle: shfl_xor_sync under if i < 64 (the fiber form)");
    E2E_CALL(divergent_shuffle(ufn_launch_1d(1, T), &X, &O));
    for (int i = 0; i < T; i++) {
        int32_t want = i < 64 ? x[i ^ 1] : x[i];
        E2E_CHECK(out[i] == want, "thread %d: %d, expected %d", i, out[i], want);
    }
    e2e_end();
    sample_dump_exact("divergent_shuffle", UFN_INT32, out, T);
}

int main(int argc, char **argv)
{
    e2e_start(argc, argv, "warps");
    block_sum_case(1000, 4, 256);
    block_sum_case(1000, 11, 96);
    lanes_case();
    divergent_case();
    return e2e_finish();
}
