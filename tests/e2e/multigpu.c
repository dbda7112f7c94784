/* multigpu - several devices in one process (multigpu.ufn): every device
 * of the backend in the device set; the hidden layer of seed 001 over host
 * arrays (each call split into one slab per device) and over sharded arrays
 * (each device computes its rows, nothing crosses between them), the same
 * bits either way; a gufunc on a sharded array; and reductions with ufn_fold
 * by four binary ufuncs, one of them not commutative.  On the host backend,
 * which has one device, the same program runs unchanged.
 *
 * Sums of floats depend on how the rows are spread (each device folds its
 * own, then the devices' results meet): they are checked against a float64
 * reference, and only the exact results (elementwise ones, maxima, integer
 * sums) are dumped for comparison with another backend.
 */
#include "e2e.h"
#include "multigpu.h"

enum { N = 1500000, M = 4000, I = 16, K = 1001 };

/* The hidden layer in float64 from the same inputs. */
static double layer_ref(float grey, float weight)
{
    float normalized = (float)((double)grey / 255);
    float weighted = normalized * weight;
    double e = exp(weighted), f = exp(-(double)weighted);
    return (e - f) / (e + f);
}

static void hidden_layer_split(const float *grey, const float *weights, float *act)
{
    static float normalized[N], weighted[N];
    int64_t n = N;
    ufn_array g = ufn_host((void *)grey, UFN_FLOAT32, 1, &n);
    ufn_array w = ufn_host((void *)weights, UFN_FLOAT32, 1, &n);
    ufn_array nz = ufn_host(normalized, UFN_FLOAT32, 1, &n);
    ufn_array wd = ufn_host(weighted, UFN_FLOAT32, 1, &n);
    ufn_array a = ufn_host(act, UFN_FLOAT32, 1, &n);
    e2e_begin("the hidden layer on host arrays, each call split over the devices");
    E2E_CALL(normalize(&g, &nz));
    E2E_CALL(weigh(&nz, &w, &wd));
    E2E_CALL(activate(&wd, &a));
    sample_check c = sample_check_start("activation", 8 * FLT_EPSILON, 8 * FLT_EPSILON);
    for (long i = 0; i < N; i++)
        sample_check_value(&c, i, act[i], layer_ref(grey[i], weights[i]));
    e2e_group.checks += N;
    if (sample_check_report(&c))
        e2e_fail("activations differ from the float64 reference");
    sample_dump_close("activated", UFN_FLOAT32, act, N, &c);
    e2e_end();
}

/* The same on sharded arrays; act (sharded) is left for the reductions. */
static void hidden_layer_sharded(const float *grey, const float *weights, const float *split,
                                 int nset, ufn_array *act)
{
    static float back[N];
    int64_t n = N;
    ufn_array g = ufn_host((void *)grey, UFN_FLOAT32, 1, &n);
    ufn_array w = ufn_host((void *)weights, UFN_FLOAT32, 1, &n);
    ufn_array gs = {0}, ws = {0}, nz = {0}, wd = {0};
    e2e_begin("the hidden layer on sharded arrays: the same bits, every part on its device");
    E2E_CALL(ufn_to_device_sharded(&g, &gs));
    E2E_CALL(ufn_to_device_sharded(&w, &ws));
    E2E_CHECK(ufn_shard_count(&gs) == nset, "%d parts for %d devices", ufn_shard_count(&gs),
              nset);
    E2E_CALL(normalize(&gs, &nz));
    E2E_CALL(weigh(&nz, &ws, &wd));
    E2E_CALL(activate(&wd, act));
    E2E_CHECK(act->memory == UFN_MEM_SHARDED, "the result is in memory %d, not sharded",
              act->memory);
    for (int p = 0; p < ufn_shard_count(act); p++) {
        ufn_array part;
        int64_t first;
        E2E_CALL(ufn_shard_part(act, p, &first, &part));
        int64_t want_first, want_rows;
        ufn_block_range(N, nset, p, &want_first, &want_rows);
        E2E_CHECK(first == want_first && part.shape[0] == want_rows,
                  "part %d: rows %lld from %lld, expected %lld from %lld", p,
                  (long long)part.shape[0], (long long)first, (long long)want_rows,
                  (long long)want_first);
    }
    ufn_array b = ufn_host(back, UFN_FLOAT32, 1, &n);
    E2E_CALL(ufn_copy_to_host(act, &b));
    for (long i = 0; i < N; i++)
        E2E_CHECK(e2e_same_f64(back[i], split[i]), "activation %ld: %.9g sharded, %.9g split", i,
                  back[i], split[i]);
    ufn_free(&gs);
    ufn_free(&ws);
    ufn_free(&nz);
    ufn_free(&wd);
    e2e_end();
}

static void norms_sharded(void)
{
    static float v[M * I], norms[M];
    sample_rng rng = {5};
    for (int i = 0; i < M * I; i++)
        v[i] = (float)sample_uniform(&rng, -2, 2);
    ufn_array h = ufn_host(v, UFN_FLOAT32, 2, (int64_t[]){M, I}), s = {0}, r = {0};
    ufn_array back = ufn_host(norms, UFN_FLOAT32, 1, (int64_t[]){M});
    e2e_begin("a gufunc on a sharded array: its core dimension whole on every device");
    E2E_CALL(ufn_to_device_sharded(&h, &s));
    E2E_CALL(l2_norm(&s, &r));
    E2E_CHECK(r.memory == UFN_MEM_SHARDED && r.ndim == 1 && r.shape[0] == M,
              "the norms: memory %d, %d-d", r.memory, r.ndim);
    E2E_CALL(ufn_copy_to_host(&r, &back));
    for (int i = 0; i < M; i++) {
        double acc = 0;
        for (int k = 0; k < I; k++)
            acc += (double)v[i * I + k] * v[i * I + k];
        E2E_CHECK(fabs(norms[i] - sqrt(acc)) <= 4 * FLT_EPSILON * sqrt(acc),
                  "norm %d: %.9g, expected %.9g", i, norms[i], sqrt(acc));
    }
    sample_dump_exact("norms", UFN_FLOAT32, norms, M);
    ufn_free(&s);
    ufn_free(&r);
    e2e_end();
}

/* ufn_fold(f, a) into a host value. */
static int fold_to_host(ufn_binary_ufunc f, const ufn_array *a, void *value)
{
    ufn_array r = {0}, h = ufn_host(value, a->dtype, a->ndim - 1, a->shape + 1);
    int st = ufn_fold(f, a, &r);
    if (st == 0)
        st = ufn_copy_to_host(&r, &h);
    ufn_free(&r);
    return st;
}

static void reductions(const ufn_array *act, const float *split)
{
    e2e_begin("ufn_fold over a sharded array: sum, max_abs, logaddexp, first, integer sum");
    float sum = 0, peak = 0;
    double want_sum = 0;
    float want_peak = 0;
    for (long i = 0; i < N; i++) {
        want_sum += split[i];
        want_peak = fabsf(split[i]) > want_peak ? fabsf(split[i]) : want_peak;
    }
    E2E_CALL(fold_to_host(plus, act, &sum));
    E2E_CHECK(fabs(sum - want_sum) <= 1e-5 * fabs(want_sum), "sum %.9g, expected %.9g", sum,
              want_sum);
    E2E_CALL(fold_to_host(max_abs, act, &peak));
    E2E_CHECK(peak == want_peak, "max_abs %.9g, expected %.9g", peak, want_peak);
    sample_dump_exact("max_abs", UFN_FLOAT32, &peak, 1);

    static double x[K];
    static int64_t rows[K][3];
    double lse = 0, want_lse = 0, top = -INFINITY;
    int64_t total = 0, want_total = 0, firsts[3];
    for (int i = 0; i < K; i++) {
        x[i] = sin(i * 0.37) * 20;
        top = x[i] > top ? x[i] : top;
        for (int j = 0; j < 3; j++)
            rows[i][j] = (int64_t)i * 1000003 + j;
        want_total += rows[i][0];
    }
    for (int i = 0; i < K; i++)
        want_lse += exp(x[i] - top);
    want_lse = top + log(want_lse);
    ufn_array xh = ufn_host(x, UFN_FLOAT64, 1, (int64_t[]){K}), xs = {0};
    ufn_array rh = ufn_host(rows, UFN_INT64, 2, (int64_t[]){K, 3}), rs = {0};
    ufn_array col = ufn_host_strided(rows, UFN_INT64, 1, (int64_t[]){K}, (int64_t[]){3}), cs = {0};
    E2E_CALL(ufn_to_device_sharded(&xh, &xs));
    E2E_CALL(ufn_to_device_sharded(&rh, &rs));
    E2E_CALL(ufn_to_device_sharded(&col, &cs));
    E2E_CALL(fold_to_host(logaddexp, &xs, &lse));
    E2E_CHECK(fabs(lse - want_lse) <= 1e-13 * fabs(want_lse), "logaddexp %.17g, expected %.17g",
              lse, want_lse);
    E2E_CALL(fold_to_host(first, &rs, firsts));
    for (int j = 0; j < 3; j++)   /* not commutative: rows met in order only */
        E2E_CHECK(firsts[j] == rows[0][j], "first, column %d: %lld, expected %lld", j,
                  (long long)firsts[j], (long long)rows[0][j]);
    E2E_CALL(fold_to_host(plus, &cs, &total));
    E2E_CHECK(total == want_total, "integer sum %lld, expected %lld", (long long)total,
              (long long)want_total);
    sample_dump_exact("firsts", UFN_INT64, firsts, 3);
    sample_dump_exact("total", UFN_INT64, &total, 1);
    ufn_free(&xs);
    ufn_free(&rs);
    ufn_free(&cs);
    e2e_end();

    e2e_begin("ufn_fold refuses what has no answer");
    ufn_array none = ufn_host(x, UFN_FLOAT64, 1, (int64_t[]){0}), r = {0};
    E2E_REFUSED(ufn_fold(plus, &none, &r), UFN_ERR_SHAPE,
                "zero-size array to reduction operation plus which has no identity");
    E2E_REFUSED(ufn_fold(dot, &xh, &r), UFN_ERR_INVALID,
                "is not a binary ufunc");
    E2E_REFUSED(ufn_fold(max_abs, &xh, &r), UFN_ERR_DTYPE,
                "max_abs has no signature float64(float64, float64)");
    e2e_end();
}

int main(int argc, char **argv)
{
    static float grey[N], weights[N], split[N];
    sample_rng rng = {42};
    e2e_start(argc, argv, "multigpu");
    for (long i = 0; i < N; i++) {
        grey[i] = floorf((float)sample_uniform(&rng, 0, 255));
        weights[i] = (float)(0.5 + 0.1 * sample_normal(&rng));
    }

    /* MULTIGPU_ENV_SET=1 keeps the set UFN_DEVICES made (tests/multi/run.sh) */
    bool keep = getenv("MULTIGPU_ENV_SET") != NULL;
    e2e_begin(keep ? "the devices UFN_DEVICES names" : "every device in the set");
    int all[64], set[64], ndev = ufn_device_count();
    for (int i = 0; i < ndev && i < 64; i++)
        all[i] = i;
    if (!keep)
        E2E_CALL(ufn_set_devices(all, ndev));
    int nset = ufn_get_devices(set, 64);
    int want = keep ? nset : strcmp(ufn_backend(), "host") == 0 ? 1 : ndev;
    E2E_CHECK(nset == want && nset >= 1, "%d devices in the set, expected %d", nset, want);
    if (nset < 1) {
        printf("    %s\n", ufn_error());
        e2e_end();
        return e2e_finish();
    }
    printf("  %d device%s in the set\n", nset, nset == 1 ? "" : "s");
    e2e_end();

    hidden_layer_split(grey, weights, split);
    ufn_array act = {0};
    hidden_layer_sharded(grey, weights, split, nset, &act);
    norms_sharded();
    reductions(&act, split);
    ufn_free(&act);
    return e2e_finish();
}
