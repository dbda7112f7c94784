/* methods.c - `make bench-methods`: the methods of binary ufuncs against the
 * memory floor (issue 17).  add_ufunc.reduce (samples/pulses.ufn, a body
 * `x + y`, so NumPy's pairwise order) over n float32 on the host backend,
 * interleaved with the harness's floor for reading the same bytes (a
 * threaded read-only sum, floor.c); and l2_norm '(i)->()' over n/100 rows of
 * 16 float32 (a gufunc whose core is a loop: 16 rows at a time, emit_lanes.c)
 * against the floor reading its input.  Prints one line per measurement:
 *
 *     NAME N MEDIAN_SECONDS MIN_SECONDS RESULT_HEX
 *
 * which bench/methods/report.sh turns into bench/methods.md with NumPy's
 * time for np.add.reduce on the same values (numpy_reduce.py). */
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>

#include "l2_norm.h"
#include "pulses.h"

typedef struct ctx {
    ufn_array a, out;
    ufn_reduce_opts opts;
    const float *data;
    size_t n;
    float floor_sum;
} ctx;

static int run_reduce(void *p)
{
    ctx *c = p;
    return add_ufunc_reduce(&c->a, &c->opts, &c->out);
}

static int run_floor(void *p)
{
    ctx *c = p;
    return floor_read(c->data, c->n, &c->floor_sum);
}

typedef struct l2ctx {
    const float *in;
    float *out;
    size_t rows;
    float floor_sum;
} l2ctx;

static int run_l2(void *p)
{
    l2ctx *c = p;
    return l2_norm_float32(c->rows, 16, c->in, c->out);
}

static int run_l2_floor(void *p)
{
    l2ctx *c = p;
    return floor_read(c->in, 16 * c->rows, &c->floor_sum);
}

int main(int argc, char **argv)
{
    int64_t n = argc > 1 ? atoll(argv[1]) : 100000000;
    float *x = bench_alloc((size_t)n * sizeof *x);
    if (!x)
        return 1;
    /* numpy_reduce.py makes the same values */
    for (int64_t i = 0; i < n; i++)
        x[i] = (float)((i * 7919) % 1999 - 999) / 7.0f;
    float result = 0;
    static const float zero = 0;
    int64_t none = 0;
    /* add_ufunc has no identity=, so it would start from the first element;
     * initial=0 starts from np.add's identity, as np.add.reduce does */
    ctx c = {.a = ufn_host(x, UFN_FLOAT32, 1, &n), .out = ufn_host(&result, UFN_FLOAT32, 0, &none),
             .opts = {.initial = &zero}, .data = x, .n = (size_t)n};
    bench_impl impls[2] = {{"ufnc", run_reduce, &c}, {"floor", run_floor, &c}};
    bench_stats st[2];
    bench_policy p = bench_default_policy;
    p.min_reps = 7;
    int rc = bench_measure(2, impls, &p, st);
    if (rc) {
        fprintf(stderr, "add_ufunc_reduce: %s\n", ufn_error());
        return 1;
    }
    for (int i = 0; i < 2; i++)
        printf("%s %lld %.6f %.6f %a\n", impls[i].name, (long long)n, st[i].median, st[i].min,
               i == 0 ? (double)result : (double)c.floor_sum);
    /* l2_norm over the same floats, as n/100 rows of 16 (1e6 at n = 1e8) */
    l2ctx l = {.in = x, .out = bench_alloc((size_t)(n / 100) * sizeof(float)), .rows = (size_t)(n / 100)};
    if (!l.out || (size_t)n < 16 * l.rows)
        return 1;
    bench_impl l2[2] = {{"l2_norm", run_l2, &l}, {"l2_floor", run_l2_floor, &l}};
    if (bench_measure(2, l2, &p, st)) {
        fprintf(stderr, "l2_norm_float32: %s\n", ufn_error());
        return 1;
    }
    for (int i = 0; i < 2; i++)
        printf("%s %lld %.6f %.6f -\n", l2[i].name, (long long)l.rows, st[i].median, st[i].min);
    return 0;
}
