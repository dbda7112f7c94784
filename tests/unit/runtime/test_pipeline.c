/* test_pipeline.c - deferred pipelines on the host backend (pipeline.c):
 * chunks and tasks over a ragged loop, a temporary never written, in-place
 * steps, the chunk loops' share of the next chunk to prefetch (as the calls'
 * times), and each reason a call cannot join - refused at the call, then at
 * the run, with nothing run and nothing leaked. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "testfuncs.h"

#define SENTINEL -777.0
enum { N = 3 * 4096 + 5 };      /* whole chunks and a ragged one: chunks are whole 256s */

typedef struct data {
    double a[N], b[N], t[2 * N], o[N];
    ufn_array A, B, T, O;
} data;

static data *setup(void)
{
    data *d = malloc(sizeof *d);
    assert_non_null(d);
    int64_t n = N, n2 = 2 * N;
    for (int i = 0; i < N; i++) {
        d->a[i] = i;
        d->b[i] = 0.5 * i;
        d->o[i] = SENTINEL;
    }
    for (int i = 0; i < 2 * N; i++)
        d->t[i] = SENTINEL;
    d->A = ufn_host(d->a, UFN_FLOAT64, 1, &n);
    d->B = ufn_host(d->b, UFN_FLOAT64, 1, &n);
    d->T = ufn_host(d->t, UFN_FLOAT64, 1, &n);      /* the first half of t */
    d->O = ufn_host(d->o, UFN_FLOAT64, 1, &n);
    (void)n2;
    return d;
}

static bool all(const double *p, int n, double v)
{
    for (int i = 0; i < n; i++)
        if (p[i] != v)
            return false;
    return true;
}

static void expect(int st, int status, const char *text)
{
    if (st != status)
        fail_msg("status %s, expected %s: %s", ufn_status_name(st), ufn_status_name(status), ufn_error());
    if (!strstr(ufn_error(), text))
        fail_msg("message \"%s\" lacks \"%s\"", ufn_error(), text);
}

static void test_chunks_and_temporary(void **state)
{
    (void)state;
    for (int threads = 1; threads <= 3; threads += 2) {
        ufn_host_set_threads(threads);
        data *d = setup();
        size_t live = ufn_registry_count();
        assert_int_equal(ufn_pipeline_begin(), UFN_OK);
        assert_int_equal(ufn_pipeline_temp(&d->T), UFN_OK);
        assert_int_equal(call2(&add_func, &d->A, &d->B, &d->T), UFN_OK);   /* t = a + b */
        assert_int_equal(call2(&add_func, &d->T, &d->A, &d->O), UFN_OK);   /* o = t + a */
        assert_int_equal(call2(&add_func, &d->O, &d->O, &d->O), UFN_OK);   /* o += o, in place */
        assert_true(all(d->o, N, SENTINEL));                                /* recorded, not run */
        assert_int_equal(ufn_pipeline_run(), UFN_OK);
        for (int i = 0; i < N; i++)
            assert_true(d->o[i] == 2 * (2.5 * i));
        assert_true(all(d->t, 2 * N, SENTINEL));                            /* the scratch stood in */
        assert_int_equal(ufn_registry_count(), live);
        free(d);
    }
    ufn_host_set_threads(0);
}

static void test_scalar_kept_by_value(void **state)
{
    (void)state;
    data *d = setup();
    ufn_array two = ufn_scalar_float64(2.0);
    assert_int_equal(ufn_pipeline_begin(), UFN_OK);
    assert_int_equal(call2(&add_func, &d->A, &two, &d->O), UFN_OK);
    two.value.f64 = 100;       /* the call took the value when it was made */
    assert_int_equal(ufn_pipeline_run(), UFN_OK);
    for (int i = 0; i < N; i++)
        assert_true(d->o[i] == i + 2.0);
    free(d);
}

/* ---- the chunk loops and what they are asked to prefetch -------------------------- */

enum { MAX_SEEN = 64 };
static struct seen {
    ufn_index n;
    const char *out;
    ufn_ahead ahead;
} seen[MAX_SEEN];
static int nseen;

static void add_chunk(char *const *args, const ufn_index *dims, const ufn_index *steps, const ufn_ahead *ahead)
{
    assert_non_null(ahead);
    if (nseen < MAX_SEEN)
        seen[nseen++] = (struct seen){dims[0], args[2], *ahead};
    for (ufn_index i = 0; i < dims[0]; i++)
        *(double *)(args[2] + i * steps[2]) = *(double *)(args[0] + i * steps[0]) + *(double *)(args[1] + i * steps[1]);
}

static void add_host(char *const *args, const ufn_index *dims, const ufn_index *steps)
{
    (void)args, (void)dims, (void)steps;
    fail_msg("a pipeline called the host loop of a ufunc that has a chunk loop");
}

static const ufn_loop chunked_loops[] = {
    {"float64(float64, float64)", T_DDD, {add_host, NULL, NULL}, NULL, NULL, NULL, {add_chunk, NULL, NULL}},
};
static const ufn_func chunked_func = {"chunked_add", &test_module, 2, 1, 1, chunked_loops,
                                      NULL, 0, NULL, NULL, NULL, NULL, UFN_IDENTITY_NONE, false};

/* The bytes [lo, hi) of array p that the calls of the chunk beginning with
 * call `first` of `calls` were asked for, each line once. */
static void asked(int first, int calls, const char *p, size_t *lo, size_t *hi)
{
    *lo = *hi = 0;
    for (int c = first; c < first + calls; c++)
        for (int k = 0; k < seen[c].ahead.n; k++) {
            const char *at = seen[c].ahead.at[k];
            if (at < p || at >= p + N * sizeof(double))
                continue;
            size_t from = (size_t)(at - p);
            if (*hi == *lo)
                *lo = from;
            else if (from != *hi)
                fail_msg("call %d: a range at %zu does not follow the last, which ended at %zu", c, from, *hi);
            *hi = from + seen[c].ahead.bytes[k];
        }
}

/* One thread, t = a + b (t temporary), o = t + a: each chunk's two calls
 * ask, between them, for the next chunk of a and b (a once) - never for
 * the temporary or the output - and the last chunk for nothing. */
static void test_chunk_loops_prefetch_next_chunk(void **state)
{
    (void)state;
    ufn_host_set_threads(1);
    data *d = setup();
    nseen = 0;
    assert_int_equal(ufn_pipeline_begin(), UFN_OK);
    assert_int_equal(ufn_pipeline_temp(&d->T), UFN_OK);
    assert_int_equal(call2(&chunked_func, &d->A, &d->B, &d->T), UFN_OK);
    assert_int_equal(call2(&chunked_func, &d->T, &d->A, &d->O), UFN_OK);
    assert_int_equal(ufn_pipeline_run(), UFN_OK);
    for (int i = 0; i < N; i++)
        assert_true(d->o[i] == 2.5 * i);
    assert_true(all(d->t, 2 * N, SENTINEL));
    ufn_index chunk = seen[0].n;
    assert_true(chunk >= 1024 && chunk <= 16384 && chunk % 256 == 0);
    int chunks = (int)((N + chunk - 1) / chunk);
    assert_int_equal(nseen, 2 * chunks);
    for (int c = 0; c < chunks; c++) {
        int64_t next = (int64_t)(c + 1) * chunk, m = N - next < chunk ? N - next : chunk;
        if (m < 0)
            m = 0;
        assert_int_equal(seen[2 * c].n, c + 1 < chunks ? chunk : N - c * chunk);
        assert_ptr_equal(seen[2 * c + 1].out, (const char *)(d->o + c * chunk));
        size_t want = ((size_t)m * sizeof(double) + 63) / 64 * 64, lo, hi;
        const char *arrays[] = {(const char *)d->a, (const char *)d->b};
        for (int k = 0; k < 2; k++) {
            asked(2 * c, 2, arrays[k], &lo, &hi);
            assert_int_equal(hi - lo, want);
            if (want)
                assert_int_equal(lo, (size_t)next * sizeof(double));
        }
        for (int i = 2 * c; i < 2 * c + 2; i++)
            for (int k = 0; k < seen[i].ahead.n; k++) {
                const char *at = seen[i].ahead.at[k];
                assert_false(at >= (const char *)d->t && at < (const char *)(d->t + 2 * N));
                assert_false(at >= (const char *)d->o && at < (const char *)(d->o + N));
            }
    }
    free(d);
    ufn_host_set_threads(0);
}

/* ---- the shares follow the calls' own times --------------------------------------------- */

enum { SHARE_CHUNKS = 8 };
static int share_calls;                       /* calls of both loops so far */
static size_t share_bytes[2][SHARE_CHUNKS];   /* bytes each loop was asked for, per chunk */

static void spin_us(long us)
{
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do
        clock_gettime(CLOCK_MONOTONIC, &t);
    while ((t.tv_sec - t0.tv_sec) * 1000000L + (t.tv_nsec - t0.tv_nsec) / 1000 < us);
}

/* Call `which` of a two-call pipeline: its chunk is the calls so far / 2. */
static void share_chunk(int which, char *const *args, const ufn_index *dims, const ufn_index *steps,
                        const ufn_ahead *ahead)
{
    int chunk = share_calls++ / 2;
    for (int k = 0; k < ahead->n && chunk < SHARE_CHUNKS; k++)
        share_bytes[which][chunk] += ahead->bytes[k];
    if (which == 0 && chunk == 1)
        spin_us(20000);       /* the chunk an interrupt lengthened: the one first timed */
    if (which == 1 && chunk < SHARE_CHUNKS)
        spin_us(2000);        /* every chunk the test looks at: far longer than the additions */
    for (ufn_index i = 0; i < dims[0]; i++)
        *(double *)(args[2] + i * steps[2]) = *(double *)(args[0] + i * steps[0]) + *(double *)(args[1] + i * steps[1]);
}

static void first_chunk(char *const *a, const ufn_index *d, const ufn_index *s, const ufn_ahead *h)
{
    share_chunk(0, a, d, s, h);
}

static void second_chunk(char *const *a, const ufn_index *d, const ufn_index *s, const ufn_ahead *h)
{
    share_chunk(1, a, d, s, h);
}

static const ufn_loop first_loops[] = {
    {"float64(float64, float64)", T_DDD, {add_host, NULL, NULL}, NULL, NULL, NULL, {first_chunk, NULL, NULL}},
};
static const ufn_loop second_loops[] = {
    {"float64(float64, float64)", T_DDD, {add_host, NULL, NULL}, NULL, NULL, NULL, {second_chunk, NULL, NULL}},
};
static const ufn_func first_func = {"first", &test_module, 2, 1, 1, first_loops,
                                    NULL, 0, NULL, NULL, NULL, NULL, UFN_IDENTITY_NONE, false};
static const ufn_func second_func = {"second", &test_module, 2, 1, 1, second_loops,
                                     NULL, 0, NULL, NULL, NULL, NULL, UFN_IDENTITY_NONE, false};

/* One thread, t = a + b, o = t + b, chunks 0..SHARE_CHUNKS-1 looked at
 * (more follow).  The first call is slow on chunk 1 only, the one first
 * timed, the second slow on each chunk looked at: chunks 2 and 3 follow
 * chunk 1's times (the first call asks for most), but from chunk 4 on,
 * after chunk 3 was timed again, the second call asks for nearly all of
 * it: its part of the time, as it is now. */
static void test_shares_follow_times(void **state)
{
    (void)state;
    ufn_host_set_threads(1);
    int64_t n = (int64_t)(SHARE_CHUNKS + 1) * 16384;   /* chunks 0..SHARE_CHUNKS-1 have a next: a chunk is 16384 at most */
    double *a = malloc(4 * (size_t)n * sizeof *a);
    assert_non_null(a);
    double *b = a + n, *t = b + n, *o = t + n;
    for (int64_t i = 0; i < n; i++)
        a[i] = (double)i, b[i] = 1;
    ufn_array A = ufn_host(a, UFN_FLOAT64, 1, &n), B = ufn_host(b, UFN_FLOAT64, 1, &n),
              T = ufn_host(t, UFN_FLOAT64, 1, &n), O = ufn_host(o, UFN_FLOAT64, 1, &n);
    share_calls = 0;
    memset(share_bytes, 0, sizeof share_bytes);
    assert_int_equal(ufn_pipeline_begin(), UFN_OK);
    assert_int_equal(ufn_pipeline_temp(&T), UFN_OK);
    assert_int_equal(call2(&first_func, &A, &B, &T), UFN_OK);
    assert_int_equal(call2(&second_func, &T, &B, &O), UFN_OK);
    assert_int_equal(ufn_pipeline_run(), UFN_OK);
    for (int64_t i = 0; i < n; i++)
        assert_true(o[i] == (double)i + 2);
    assert_true(share_calls >= 2 * SHARE_CHUNKS);
    for (int c = 0; c < SHARE_CHUNKS; c++) {
        double all = (double)(share_bytes[0][c] + share_bytes[1][c]), second = (double)share_bytes[1][c] / all;
        if (c < 2)
            assert_true(second > 0.4 && second < 0.6);       /* equal shares */
        else if (c == 2 || c == 3)
            assert_true(second < 0.5);                       /* chunk 1's times: the first call was slow */
        else
            assert_true(second > 0.8);                       /* chunk 3's: the second call is */
    }
    free(a);
    ufn_host_set_threads(0);
}

/* How a chunk loop spreads a range over its blocks of 256 (ufn_abi.h):
 * from 0 to the range's end with no gap, the blocks in order, each a
 * proportional share give or take the line where the last one stopped. */
static void test_ahead_spans(void **state)
{
    (void)state;
    const ufn_index lengths[] = {1, 5, 256, 1024, 1536, 1537, 4095, 16384};
    const size_t bytes[] = {0, 1, 64, 1000, 6144, 65536, (size_t)16384 * 16};
    for (size_t i = 0; i < sizeof lengths / sizeof *lengths; i++)
        for (size_t j = 0; j < sizeof bytes / sizeof *bytes; j++) {
            ufn_index n = lengths[i];
            ufn_ahead h = {.n = 1, .at = {NULL}, .bytes = {bytes[j]}};
            ufn_ahead_rate r;
            ufn_ahead_start(&h, n, &r);
            size_t reached = 0;
            for (ufn_index b = 0; b < n; b += 256) {
                ufn_index e = n - b < 256 ? n : b + 256;
                size_t lo, hi;
                ufn_ahead_span(&h, &r, 0, b, e, &lo, &hi);
                assert_true(lo % 64 == 0);
                assert_true(lo <= reached && (reached < 64 || lo >= reached - 64));   /* no gap, a line back at most */
                double share = (double)bytes[j] * (double)(e - b) / (double)n;
                assert_true((double)(hi > lo ? hi - lo : 0) <= share + 64 + 1);
                if (hi > reached)
                    reached = hi;
            }
            assert_int_equal(reached, bytes[j]);
        }
}

static void test_cannot_join(void **state)
{
    (void)state;
    data *d = setup();
    int64_t n = N, half = N / 2, stride2 = 2;
    /* a strided view */
    ufn_array S = ufn_host_strided(d->t, UFN_FLOAT64, 1, &half, &stride2), H = ufn_host(d->b, UFN_FLOAT64, 1, &half);
    assert_int_equal(ufn_pipeline_begin(), UFN_OK);
    expect(call2(&add_func, &S, &H, &H), UFN_ERR_INVALID, "operand 0 is strided");
    expect(ufn_pipeline_run(), UFN_ERR_INVALID, "nothing ran");
    /* a broadcast element an earlier call writes */
    ufn_array o0 = ufn_host(d->o, UFN_FLOAT64, 0, NULL);
    assert_int_equal(ufn_pipeline_begin(), UFN_OK);
    assert_int_equal(call2(&add_func, &d->A, &d->B, &d->O), UFN_OK);
    expect(call2(&add_func, &d->A, &o0, &d->B), UFN_ERR_INVALID, "broadcast element that call 1");
    ufn_pipeline_abort();
    /* part of a temporary */
    ufn_array T2 = ufn_host(d->t, UFN_FLOAT64, 1, (int64_t[]){2 * N});
    assert_int_equal(ufn_pipeline_begin(), UFN_OK);
    assert_int_equal(ufn_pipeline_temp(&T2), UFN_OK);
    assert_int_equal(call2(&add_func, &d->A, &d->B, &d->T), UFN_OK);
    expect(ufn_pipeline_run(), UFN_ERR_INVALID, "uses part of a temporary");
    /* another backend's memory than the first call's is caught by the
     * memory check; a temporary must be contiguous */
    assert_int_equal(ufn_pipeline_begin(), UFN_OK);
    expect(ufn_pipeline_temp(&S), UFN_ERR_INVALID, "whole C-contiguous array");
    expect(ufn_pipeline_run(), UFN_ERR_INVALID, "nothing ran");
    assert_true(all(d->o, N, SENTINEL) && all(d->t, 2 * N, SENTINEL));
    (void)n;
    free(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_chunks_and_temporary),
        cmocka_unit_test(test_scalar_kept_by_value),
        cmocka_unit_test(test_chunk_loops_prefetch_next_chunk),
        cmocka_unit_test(test_shares_follow_times),
        cmocka_unit_test(test_ahead_spans),
        cmocka_unit_test(test_cannot_join),
    };
    ufn_init("host");
    return cmocka_run_group_tests(tests, NULL, NULL);
}
