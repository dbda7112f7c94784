/* main.c - bench-ufnc: time ufnc's host backend on the seeds' workloads, or
 * write their inputs and outputs for the cross-check.
 *
 *   bench-ufnc time  [--sizes 1e3,1e4,...] [--long] [--only a,b] [--round R]
 *       For each workload and size: the ufnc implementations and the memory
 *       floor that moves the same bytes, interleaved; one JSON line each.
 *   bench-ufnc check --n N --dir DIR
 *       Run each workload once at N and write its inputs and output (raw,
 *       C order) into DIR with a manifest line; the backend is UFN_BACKEND's,
 *       so one run per backend (host, sim) is compared by bench/python/check.py.
 */
#include "bench.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ufnrt.h"

#define MAX_IMPLS 4
#define MAX_SIZES 16

/* ---- the floor as one more implementation --------------------------------------------- */

typedef struct floor_ctx {
    const workload *w;
    int64_t n;
    char *src, *dst;                    /* memcpy */
    float *a, *b, *c;                   /* add */
    float sink;
} floor_ctx;

static int floor_run(void *ctx)
{
    floor_ctx *f = ctx;
    int rc = 0;
    if (f->w->floor_copy_bytes)
        rc = floor_memcpy(f->dst, f->src, (size_t)f->n * (size_t)f->w->floor_copy_bytes);
    if (!rc && f->w->floor_add_floats)
        rc = floor_add(f->c, f->a, f->b, (size_t)f->n * (size_t)f->w->floor_add_floats);
    if (!rc && f->w->floor_read_bytes)
        rc = floor_read((const float *)f->src, (size_t)f->n * (size_t)f->w->floor_read_bytes / 4, &f->sink);
    return rc;
}

static int floor_setup(floor_ctx *f, const workload *w, int64_t n)
{
    memset(f, 0, sizeof *f);
    f->w = w;
    f->n = n;
    size_t copy = (size_t)n * (size_t)(w->floor_copy_bytes > w->floor_read_bytes ? w->floor_copy_bytes
                                                                                   : w->floor_read_bytes);
    size_t add = (size_t)n * (size_t)w->floor_add_floats * sizeof(float);
    if (copy && (!(f->src = bench_alloc(copy)) || !(f->dst = bench_alloc(copy))))
        return -1;
    if (add && (!(f->a = bench_alloc(add)) || !(f->b = bench_alloc(add)) || !(f->c = bench_alloc(add))))
        return -1;
    return 0;
}

static void floor_teardown(floor_ctx *f)
{
    free(f->src), free(f->dst), free(f->a), free(f->b), free(f->c);
}

/* ---- time ------------------------------------------------------------------------------- */

static const char *isa_name(int isa)
{
    static const char *const names[] = {"baseline", "avx2", "avx512"};
    return isa >= 0 && isa < 3 ? names[isa] : "?";
}

static void print_stats(FILE *out, int round, const workload *w, const char *impl, int64_t n,
                        const bench_stats *s)
{
    fprintf(out, "{\"source\": \"c\", \"round\": %d, \"workload\": \"%s\", \"impl\": \"%s\", "
            "\"n\": %lld, \"core\": %d, \"bytes\": %.0f, \"threads\": %d, \"isa\": \"%s\", "
            "\"reps\": %d, \"min\": %.9g, \"median\": %.9g, \"p90\": %.9g}\n",
            round, w->name, impl, (long long)n, w->core, (w->read_bytes + w->write_bytes) * (double)n,
            ufn_host_threads(), isa_name(ufn_host_isa()), s->reps, s->min, s->median, s->p90);
    fflush(out);
}

static int time_one(FILE *out, int round, const workload *w, int64_t n)
{
    void *state = NULL;
    int rc = w->setup(&state, n);
    if (rc) {
        fprintf(stderr, "bench-ufnc: %s at n=%lld: setup failed: %s\n", w->name, (long long)n, ufn_error());
        return rc;
    }
    bench_impl impls[MAX_IMPLS + 1];
    int k = w->impls(state, impls, MAX_IMPLS);
    floor_ctx f;
    rc = floor_setup(&f, w, n);
    if (!rc) {
        impls[k++] = (bench_impl){"floor", floor_run, &f};
        bench_stats stats[MAX_IMPLS + 1];
        rc = bench_measure(k, impls, &bench_default_policy, stats);
        if (rc)
            fprintf(stderr, "bench-ufnc: %s at n=%lld: %s\n", w->name, (long long)n, ufn_error());
        for (int i = 0; !rc && i < k; i++)
            print_stats(out, round, w, impls[i].name, n, &stats[i]);
    } else {
        fprintf(stderr, "bench-ufnc: %s at n=%lld: out of memory for the floor\n", w->name, (long long)n);
    }
    floor_teardown(&f);
    w->teardown(state);
    return rc;
}

static int parse_sizes(const char *s, int64_t *sizes)
{
    int n = 0;
    while (*s && n < MAX_SIZES) {
        char *end;
        double v = strtod(s, &end);
        if (end == s || v < 1)
            return -1;
        sizes[n++] = (int64_t)(v + 0.5);
        s = *end == ',' ? end + 1 : end;
    }
    return n;
}

static bool listed(const char *list, const char *name)
{
    if (!list)
        return true;
    size_t len = strlen(name);
    for (const char *p = list; *p;) {
        size_t l = strcspn(p, ",");
        if (l == len && !strncmp(p, name, len))
            return true;
        p += l + (p[l] == ',');
    }
    return false;
}

static int cmd_time(int argc, char **argv)
{
    int64_t sizes[MAX_SIZES] = {1000, 10000, 100000, 1000000, 10000000};
    int nsizes = 5, round = 0;
    bool long_mode = false;
    const char *only = NULL;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--sizes") && i + 1 < argc) {
            if ((nsizes = parse_sizes(argv[++i], sizes)) <= 0)
                return fprintf(stderr, "bench-ufnc: bad --sizes\n"), 2;
        } else if (!strcmp(argv[i], "--long")) {
            long_mode = true;
        } else if (!strcmp(argv[i], "--only") && i + 1 < argc) {
            only = argv[++i];
        } else if (!strcmp(argv[i], "--round") && i + 1 < argc) {
            round = atoi(argv[++i]);
        } else {
            return fprintf(stderr, "bench-ufnc: unknown argument %s\n", argv[i]), 2;
        }
    }
    if (long_mode && nsizes < MAX_SIZES && sizes[nsizes - 1] < 100000000)
        sizes[nsizes++] = 100000000;
    if (ufn_init("host") != 0)
        return fprintf(stderr, "bench-ufnc: %s\n", ufn_error()), 1;
    int failed = 0;
    for (int s = 0; s < nsizes; s++)
        for (int i = 0; i < bench_nworkloads; i++) {
            const workload *w = &bench_workloads[i];
            /* long mode goes one size beyond each workload's largest */
            int64_t limit = long_mode ? w->max_n * 10 : w->max_n;
            if (listed(only, w->name) && sizes[s] <= limit)
                failed |= time_one(stdout, round, w, sizes[s]) != 0;
        }
    return failed;
}

/* ---- check -------------------------------------------------------------------------------- */

static int write_array(const char *dir, const char *name, const wl_output *a, FILE *manifest,
                       bool comma)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    size_t elsize = !strcmp(a->dtype, "int16") ? 2 : 4;
    size_t count = (size_t)a->shape[0] * (size_t)(a->ndim > 1 ? a->shape[1] : 1);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(a->data, elsize, count, f) != count || fclose(f) != 0) {
        fprintf(stderr, "bench-ufnc: cannot write %s: %s\n", path, strerror(errno));
        return -1;
    }
    fprintf(manifest, "%s{\"file\": \"%s\", \"dtype\": \"%s\", \"shape\": [%lld", comma ? ", " : "",
            name, a->dtype, (long long)a->shape[0]);
    if (a->ndim > 1)
        fprintf(manifest, ", %lld", (long long)a->shape[1]);
    fprintf(manifest, "]}");
    return 0;
}

static int check_one(const char *dir, FILE *manifest, const workload *w, int64_t n)
{
    const char *backend = ufn_backend();
    void *state = NULL;
    int rc = w->setup(&state, n);
    bench_impl impls[MAX_IMPLS];
    if (!rc && w->impls(state, impls, MAX_IMPLS) > 0)
        rc = impls[0].run(impls[0].ctx);
    if (rc) {
        fprintf(stderr, "bench-ufnc: check %s on %s: %s\n", w->name, backend, ufn_error());
        if (state)
            w->teardown(state);
        return rc;
    }
    wl_output in[4], out;
    int nin = w->inputs(state, in, 4);
    w->output(state, &out);
    char name[256];
    fprintf(manifest, "{\"workload\": \"%s\", \"backend\": \"%s\", \"n\": %lld, \"inputs\": [",
            w->name, backend, (long long)n);
    for (int k = 0; !rc && k < nin; k++) {
        snprintf(name, sizeof name, "%s.in%d.%s.bin", w->name, k, backend);
        rc = write_array(dir, name, &in[k], manifest, k > 0);
    }
    fprintf(manifest, "], \"output\": ");
    snprintf(name, sizeof name, "%s.out.%s.bin", w->name, backend);
    if (!rc)
        rc = write_array(dir, name, &out, manifest, false);
    fprintf(manifest, "}\n");
    w->teardown(state);
    return rc;
}

static int cmd_check(int argc, char **argv)
{
    int64_t n = 100003;     /* odd: every loop's tail runs */
    const char *dir = NULL, *only = NULL;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--n") && i + 1 < argc)
            n = (int64_t)strtod(argv[++i], NULL);
        else if (!strcmp(argv[i], "--dir") && i + 1 < argc)
            dir = argv[++i];
        else if (!strcmp(argv[i], "--only") && i + 1 < argc)
            only = argv[++i];
        else
            return fprintf(stderr, "bench-ufnc: unknown argument %s\n", argv[i]), 2;
    }
    if (!dir || n < 1)
        return fprintf(stderr, "bench-ufnc: check needs --dir DIR\n"), 2;
    const char *backend = ufn_backend();
    if (!backend)
        return fprintf(stderr, "bench-ufnc: %s\n", ufn_error()), 1;
    char path[4096];
    snprintf(path, sizeof path, "%s/manifest.%s.jsonl", dir, backend);
    FILE *manifest = fopen(path, "w");
    if (!manifest)
        return fprintf(stderr, "bench-ufnc: cannot write %s: %s\n", path, strerror(errno)), 1;
    int failed = 0;
    for (int i = 0; i < bench_nworkloads; i++)
        if (listed(only, bench_workloads[i].name))
            failed |= check_one(dir, manifest, &bench_workloads[i], n) != 0;
    fclose(manifest);
    return failed;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && !strcmp(argv[1], "time"))
        return cmd_time(argc - 2, argv + 2);
    if (argc >= 2 && !strcmp(argv[1], "check"))
        return cmd_check(argc - 2, argv + 2);
    if (argc >= 2 && !strcmp(argv[1], "info")) {
        printf("{\"gauss_f32\": \"%s\", \"threads\": %d, \"isa\": \"%s\"}\n", bench_gauss_f32_how,
               ufn_host_threads(), isa_name(ufn_host_isa()));
        return 0;
    }
    fprintf(stderr, "usage: bench-ufnc time [--sizes LIST] [--long] [--only LIST] [--round R]\n"
                    "       bench-ufnc check --dir DIR [--n N] [--only LIST]\n"
                    "       bench-ufnc info\n");
    return 2;
}
