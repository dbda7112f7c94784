/* test_host.c - the host backend: ISA choice, splitting work across the
 * pool (1, 2, 3 and 7 threads give the same results), the contiguous,
 * strided, expanded-scalar and gufunc paths, several application threads
 * calling at once, calls from inside a loop, no threads for small calls,
 * fork. */
#include <dirent.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "testfuncs.h"

/* ---- a loop that records how it is called ------------------------------------------------ */

static atomic_int calls;
static atomic_int unit_steps;       /* calls whose steps were all 8 */
static atomic_int threads_seen;     /* bit per distinct thread slot */
static pthread_t thread_ids[8];
static atomic_int nthread_ids;

static pthread_mutex_t thread_lock = PTHREAD_MUTEX_INITIALIZER;

static void note_thread(void)
{
    pthread_t self = pthread_self();
    pthread_mutex_lock(&thread_lock);
    int n = atomic_load(&nthread_ids);
    bool known = false;
    for (int i = 0; i < n && i < 8; i++)
        known = known || pthread_equal(thread_ids[i], self);
    if (!known && n < 8) {
        thread_ids[n] = self;
        atomic_store(&nthread_ids, n + 1);
    }
    pthread_mutex_unlock(&thread_lock);
}

static void counting_add(char *const *args, const ufn_index *dims, const ufn_index *steps)
{
    atomic_fetch_add(&calls, 1);
    if (steps[0] == 8 && steps[1] == 8 && steps[2] == 8)
        atomic_fetch_add(&unit_steps, 1);
    add_f64(args, dims, steps);
    note_thread();
}

static void reset_counts(void)
{
    pthread_mutex_lock(&thread_lock);
    atomic_store(&calls, 0);
    atomic_store(&unit_steps, 0);
    atomic_store(&nthread_ids, 0);
    atomic_store(&threads_seen, 0);
    pthread_mutex_unlock(&thread_lock);
}

static const ufn_loop count_loops[] = {
    {"float64(float64, float64)", T_DDD, {counting_add, NULL, NULL}, NULL, NULL, NULL, {NULL, NULL, NULL}},
};
static const ufn_func count_func = {"counting_add", &test_module, 2, 1, 1, count_loops,
                                    NULL, 0, NULL, NULL, NULL, NULL, UFN_IDENTITY_NONE, false};

/* ---- ISA ------------------------------------------------------------------------------------ */

static void loop_a(char *const *a, const ufn_index *d, const ufn_index *s) { (void)a; (void)d; (void)s; }
static void loop_b(char *const *a, const ufn_index *d, const ufn_index *s) { (void)a; (void)d; (void)s; }
static void loop_c(char *const *a, const ufn_index *d, const ufn_index *s) { (void)a; (void)d; (void)s; }
static void chunk_a(char *const *a, const ufn_index *d, const ufn_index *s, const ufn_ahead *h) { (void)a, (void)d, (void)s, (void)h; }
static void chunk_b(char *const *a, const ufn_index *d, const ufn_index *s, const ufn_ahead *h) { (void)a, (void)d, (void)s, (void)h; }
static void chunk_c(char *const *a, const ufn_index *d, const ufn_index *s, const ufn_ahead *h) { (void)a, (void)d, (void)s, (void)h; }

static void test_isa_choice(void **state)
{
    (void)state;
    int isa = ufn_host_isa();
    assert_true(isa >= UFN_ISA_BASELINE && isa < UFN_ISA_COUNT);
    ufn_loop l = {"x", T_DDD, {loop_a, NULL, loop_c}, NULL, NULL, NULL, {chunk_a, chunk_b, chunk_c}};
    assert_ptr_equal(ufn_host_pick_loop(&l, UFN_ISA_AVX512), loop_c);
    assert_ptr_equal(ufn_host_pick_loop(&l, UFN_ISA_AVX2), loop_a);
    assert_ptr_equal(ufn_host_pick_loop(&l, UFN_ISA_BASELINE), loop_a);
    /* the chunk loop of the instruction set whose host loop is picked */
    assert_ptr_equal(ufn_host_pick_chunk_loop(&l, UFN_ISA_AVX512), chunk_c);
    assert_ptr_equal(ufn_host_pick_chunk_loop(&l, UFN_ISA_AVX2), chunk_a);
    ufn_loop m = {"x", T_DDD, {NULL, loop_b, NULL}, NULL, NULL, NULL, {NULL, NULL, NULL}};
    assert_ptr_equal(ufn_host_pick_loop(&m, UFN_ISA_AVX512), loop_b);
    assert_null(ufn_host_pick_loop(&m, UFN_ISA_BASELINE));
    /* a module without host code */
    static const ufn_loop none[] = {{"float64(float64, float64)", T_DDD, {NULL, NULL, NULL},
                                     "k_contig", "k_strided", NULL, {NULL, NULL, NULL}}};
    ufn_func f = add_func;
    f.loops = none;
    f.nloops = 1;
    double x[2] = {1, 2};
    ufn_array a = ufn_host(x, UFN_FLOAT64, 1, (int64_t[]){2});
    ufn_array o = {0};
    assert_int_equal(call2(&f, &a, &a, &o), UFN_ERR_NO_CODE);
    assert_non_null(strstr(ufn_error(), "add: the module has no host code"));
    assert_int_equal(o.memory, UFN_MEM_NONE);
    assert_int_equal(ufn_registry_count(), 0);
}

/* ---- splitting --------------------------------------------------------------------------- */

enum { BIG = 1 << 20 };

static double *big_input(int seed)
{
    double *p = malloc(BIG * sizeof *p);
    for (int i = 0; i < BIG; i++)
        p[i] = (double)(((int64_t)i * 7919 + seed) % 1000) - 500;
    return p;
}

static void test_threads_give_equal_results(void **state)
{
    (void)state;
    double *x = big_input(1), *y = big_input(2), *r1 = malloc(BIG * 8), *r = malloc(BIG * 8);
    ufn_array a = ufn_host(x, UFN_FLOAT64, 1, (int64_t[]){BIG});
    ufn_array b = ufn_host(y, UFN_FLOAT64, 1, (int64_t[]){BIG});
    static const int counts[] = {1, 2, 3, 7};
    for (int t = 0; t < 4; t++) {
        ufn_host_set_threads(counts[t]);
        memset(r, 0, BIG * 8);
        ufn_array o = ufn_host(r, UFN_FLOAT64, 1, (int64_t[]){BIG});
        reset_counts();
        assert_int_equal(call2(&count_func, &a, &b, &o), 0);
        if (counts[t] == 1) {
            assert_int_equal(atomic_load(&calls), 1);     /* one call, the whole range */
            memcpy(r1, r, BIG * 8);
        } else {
            assert_int_equal(atomic_load(&calls), 4 * counts[t]);
            assert_memory_equal(r, r1, BIG * 8);
        }
        assert_int_equal(atomic_load(&unit_steps), atomic_load(&calls));
    }
    for (int i = 0; i < BIG; i++)
        assert_true(r1[i] == x[i] + y[i]);
    /* with two threads, the pool's worker takes part (eventually) */
    ufn_host_set_threads(2);
    bool helped = false;
    for (int rep = 0; rep < 200 && !helped; rep++) {
        ufn_array o = ufn_host(r, UFN_FLOAT64, 1, (int64_t[]){BIG});
        reset_counts();
        assert_int_equal(call2(&count_func, &a, &b, &o), 0);
        helped = atomic_load(&nthread_ids) > 1;
    }
    assert_true(helped);
    ufn_host_set_threads(0);
    free(x);
    free(y);
    free(r1);
    free(r);
}

static void test_strided_paths_in_parallel(void **state)
{
    (void)state;
    enum { N = 1024 };
    double *x = big_input(3), *y = big_input(4), *r1 = malloc(BIG * 8), *r2 = malloc(BIG * 8);
    /* x transposed + y, into a C-ordered result: not mergeable, strided path */
    ufn_array a = ufn_host_strided(x, UFN_FLOAT64, 2, (int64_t[]){N, N}, (int64_t[]){1, N});
    ufn_array b = ufn_host(y, UFN_FLOAT64, 2, (int64_t[]){N, N});
    for (int t = 1; t <= 2; t++) {
        ufn_host_set_threads(t);
        ufn_array o = ufn_host(t == 1 ? r1 : r2, UFN_FLOAT64, 2, (int64_t[]){N, N});
        reset_counts();
        assert_int_equal(call2(&count_func, &a, &b, &o), 0);
        assert_true(atomic_load(&calls) >= N);      /* a call per row at least */
    }
    assert_memory_equal(r1, r2, BIG * 8);
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j += 97)
            assert_true(r1[i * N + j] == x[j * N + i] + y[i * N + j]);
    /* every other element of x: one strided dimension */
    ufn_array s = ufn_host_strided(x, UFN_FLOAT64, 1, (int64_t[]){BIG / 2}, (int64_t[]){2});
    ufn_array sy = ufn_host(y, UFN_FLOAT64, 1, (int64_t[]){BIG / 2});
    ufn_array o = ufn_host(r1, UFN_FLOAT64, 1, (int64_t[]){BIG / 2});
    reset_counts();
    assert_int_equal(call2(&count_func, &s, &sy, &o), 0);
    assert_true(atomic_load(&calls) == 8);
    assert_int_equal(atomic_load(&unit_steps), 0);
    for (int i = 0; i < BIG / 2; i++)
        assert_true(r1[i] == x[2 * i] + y[i]);
    ufn_host_set_threads(0);
    free(x);
    free(y);
    free(r1);
    free(r2);
}

static void test_scalar_expansion(void **state)
{
    (void)state;
    double *x = big_input(5), *r = malloc(BIG * 8);
    ufn_array a = ufn_host(x, UFN_FLOAT64, 1, (int64_t[]){BIG});
    ufn_array s = ufn_scalar_float64(0.5);
    ufn_array o = ufn_host(r, UFN_FLOAT64, 1, (int64_t[]){BIG});
    for (int t = 1; t <= 2; t++) {
        ufn_host_set_threads(t);
        reset_counts();
        assert_int_equal(call2(&count_func, &s, &a, &o), 0);
        /* the scalar is expanded: every call has unit steps, in blocks */
        assert_true(atomic_load(&calls) > 1);
        assert_int_equal(atomic_load(&unit_steps), atomic_load(&calls));
        for (int i = 0; i < BIG; i++)
            assert_true(r[i] == x[i] + 0.5);
    }
    /* a size-1 array broadcast along a row works the same way */
    double one = 3;
    ufn_array b1 = ufn_host(&one, UFN_FLOAT64, 1, (int64_t[]){1});
    reset_counts();
    assert_int_equal(call2(&count_func, &b1, &a, &o), 0);
    assert_int_equal(atomic_load(&unit_steps), atomic_load(&calls));
    assert_true(r[BIG - 1] == x[BIG - 1] + 3);
    /* the first input contiguous and the scalars after it: the loops take
     * that at step 0, unexpanded (ufn_abi.h), a call per task */
    for (int t = 1; t <= 2; t++) {
        ufn_host_set_threads(t);
        reset_counts();
        assert_int_equal(call2(&count_func, &a, &s, &o), 0);
        assert_int_equal(atomic_load(&unit_steps), 0);
        assert_true(atomic_load(&calls) <= 4 * t);
        for (int i = 0; i < BIG; i++)
            assert_true(r[i] == x[i] + 0.5);
    }
    /* small: one call, step 0, no expansion needed */
    ufn_array small = ufn_host(x, UFN_FLOAT64, 1, (int64_t[]){100});
    ufn_array so = ufn_host(r, UFN_FLOAT64, 1, (int64_t[]){100});
    reset_counts();
    assert_int_equal(call2(&count_func, &small, &s, &so), 0);
    assert_true(r[99] == x[99] + 0.5);
    ufn_host_set_threads(0);
    free(x);
    free(r);
}

static void test_gufunc_in_parallel(void **state)
{
    (void)state;
    enum { ROWS = 100000, I = 8 };
    double *v = malloc(ROWS * I * 8), *r1 = malloc(ROWS * 8), *r2 = malloc(ROWS * 8);
    for (int i = 0; i < ROWS * I; i++)
        v[i] = (double)(i % 13) - 6;
    ufn_array V = ufn_host(v, UFN_FLOAT64, 2, (int64_t[]){ROWS, I});
    for (int t = 1; t <= 2; t++) {
        ufn_host_set_threads(t == 1 ? 1 : 4);
        ufn_array o = ufn_host(t == 1 ? r1 : r2, UFN_FLOAT64, 1, (int64_t[]){ROWS});
        assert_int_equal(call1(&l2_func, &V, &o), 0);
    }
    assert_memory_equal(r1, r2, ROWS * 8);
    for (int i = 0; i < ROWS; i += 1001) {
        double acc = 0;
        for (int k = 0; k < I; k++)
            acc += v[i * I + k] * v[i * I + k];
        assert_true(r1[i] == sqrt(acc));
    }
    /* a batch of matrices, transposed view as the first operand */
    enum { B = 4096 };
    double *A = malloc(B * 9 * 8), *C1 = malloc(B * 9 * 8), *C2 = malloc(B * 9 * 8);
    for (int i = 0; i < B * 9; i++)
        A[i] = i % 5;
    ufn_array At = ufn_host_strided(A, UFN_FLOAT64, 3, (int64_t[]){B, 3, 3}, (int64_t[]){9, 1, 3});
    ufn_array An = ufn_host(A, UFN_FLOAT64, 3, (int64_t[]){B, 3, 3});
    for (int t = 1; t <= 2; t++) {
        ufn_host_set_threads(t);
        ufn_array o = ufn_host(t == 1 ? C1 : C2, UFN_FLOAT64, 3, (int64_t[]){B, 3, 3});
        assert_int_equal(call2(&matmul_func, &At, &An, &o), 0);
    }
    assert_memory_equal(C1, C2, B * 9 * 8);
    ufn_host_set_threads(0);
    free(v);
    free(r1);
    free(r2);
    free(A);
    free(C1);
    free(C2);
}

/* ---- concurrency ------------------------------------------------------------------------------ */

typedef struct job {
    int id;
    int failures;
} job;

static void *app_thread(void *arg)
{
    job *j = arg;
    enum { N = 100000 };
    double *x = malloc(N * 8), *r = malloc(N * 8);
    for (int i = 0; i < N; i++)
        x[i] = i + j->id;
    for (int rep = 0; rep < 30; rep++) {
        int64_t n = rep % 3 == 0 ? 1000 : N;     /* small and large calls mixed */
        ufn_array a = ufn_host(x, UFN_FLOAT64, 1, &n);
        ufn_array o = ufn_host(r, UFN_FLOAT64, 1, &n);
        ufn_array s = ufn_scalar_float64(rep);
        if (call2(&add_func, &a, &s, &o) != 0)
            j->failures++;
        for (int64_t i = 0; i < n; i += 997)
            if (r[i] != x[i] + rep)
                j->failures++;
        ufn_array e = {0};
        if (call2(&add_func, &a, &a, &e) != 0 || ((double *)e.data)[n - 1] != 2 * x[n - 1])
            j->failures++;
        ufn_free(&e);
        /* errors are per thread */
        ufn_array bad = ufn_host(x, UFN_FLOAT64, 1, (int64_t[]){3});
        if (call2(&add_func, &a, &bad, &e) != UFN_ERR_SHAPE ||
            !strstr(ufn_error(), "could not be broadcast"))
            j->failures++;
    }
    free(x);
    free(r);
    return NULL;
}

static void test_application_threads(void **state)
{
    (void)state;
    ufn_host_set_threads(3);
    enum { T = 8 };
    pthread_t t[T];
    job jobs[T];
    for (int i = 0; i < T; i++) {
        jobs[i] = (job){i, 0};
        assert_int_equal(pthread_create(&t[i], NULL, app_thread, &jobs[i]), 0);
    }
    for (int i = 0; i < T; i++) {
        pthread_join(t[i], NULL);
        assert_int_equal(jobs[i].failures, 0);
    }
    ufn_host_set_threads(0);
    assert_int_equal(ufn_registry_count(), 0);
}

/* A loop that itself calls a ufunc big enough for the pool: runs inline. */
static void nested_loop(char *const *args, const ufn_index *dims, const ufn_index *steps)
{
    enum { M = 40000 };
    static _Thread_local double tmp[M], out[M];
    for (int i = 0; i < M; i++)
        tmp[i] = i;
    void *ptrs[] = {tmp, tmp, out};
    if (ufn_call_typed(&add_func, 1, M, NULL, ptrs) != 0 || out[M - 1] != 2.0 * (M - 1))
        return;     /* leaves the output unwritten: the test sees it */
    add_f64(args, dims, steps);
}

static const ufn_loop nested_loops[] = {
    {"float64(float64, float64)", T_DDD, {nested_loop, NULL, NULL}, NULL, NULL, NULL, {NULL, NULL, NULL}},
};
static const ufn_func nested_func = {"nested", &test_module, 2, 1, 1, nested_loops,
                                     NULL, 0, NULL, NULL, NULL, NULL, UFN_IDENTITY_NONE, false};

static void test_call_from_inside_a_loop(void **state)
{
    (void)state;
    ufn_host_set_threads(2);
    double *x = big_input(6), *r = calloc(BIG, 8);
    ufn_array a = ufn_host(x, UFN_FLOAT64, 1, (int64_t[]){BIG});
    ufn_array o = ufn_host(r, UFN_FLOAT64, 1, (int64_t[]){BIG});
    assert_int_equal(call2(&nested_func, &a, &a, &o), 0);
    for (int i = 0; i < BIG; i++)
        assert_true(r[i] == 2 * x[i]);
    ufn_host_set_threads(0);
    free(x);
    free(r);
}

/* ---- threads are made only for big calls; fork ------------------------------------------------ */

static int count_threads(void)
{
    DIR *d = opendir("/proc/self/task");
    if (!d)
        return -1;
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

/* Run fn in a child process; its exit status must be 0. */
static void in_child(int (*fn)(void))
{
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0)
        _exit(fn());
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
}

static int small_calls_make_no_threads(void)
{
    /* The pool may exist from the parent's tests; forked children have none. */
    ufn_host_set_threads(4);
    int before = count_threads();
    enum { N = 20000 };
    static double x[N], r[N];
    void *p[] = {x, x, r};
    for (int i = 0; i < 100; i++)
        if (ufn_call_typed(&add_func, 1, N, NULL, p) != 0)
            return 1;
    if (count_threads() != before)
        return 2;
    static double big[BIG], rb[BIG];
    void *q[] = {big, big, rb};
    if (ufn_call_typed(&add_func, 1, BIG, NULL, q) != 0)
        return 3;
    if (count_threads() != before + 3)
        return 4;
    return 0;
}

static void test_no_threads_for_small_calls(void **state)
{
    (void)state;
#if defined(__SANITIZE_THREAD__)
    skip();     /* TSan cannot start threads after a multi-threaded fork */
#endif
    /* start the pool here first, so the child inherits a started one */
    ufn_host_set_threads(2);
    double *x = big_input(7), *r = malloc(BIG * 8);
    void *p[] = {x, x, r};
    assert_int_equal(ufn_call_typed(&add_func, 1, BIG, NULL, p), 0);
    in_child(small_calls_make_no_threads);
    /* and the parent's pool still works */
    assert_int_equal(ufn_call_typed(&add_func, 1, BIG, NULL, p), 0);
    assert_true(r[BIG - 1] == 2 * x[BIG - 1]);
    ufn_host_set_threads(0);
    free(x);
    free(r);
}

/* The split of a call (and of a pipeline, whose work is its elements times
 * its calls): one task for little work or one thread, one per 16384 of work
 * up to four a thread, never more than the pieces. */
static void test_task_split(void **state)
{
    (void)state;
    assert_int_equal(ufn_host_tasks(1, 1 << 30, 1 << 30), 1);
    assert_int_equal(ufn_host_tasks(8, 32767, 32767), 1);
    assert_int_equal(ufn_host_tasks(8, 32768, 32768), 2);
    assert_int_equal(ufn_host_tasks(8, 3 * 100000, 100000), 18);
    assert_int_equal(ufn_host_tasks(2, 3 * 100000, 100000), 8);
    assert_int_equal(ufn_host_tasks(8, 1 << 30, 5), 5);
    assert_int_equal(ufn_host_tasks(8, 1 << 30, 1), 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_isa_choice),
        cmocka_unit_test(test_threads_give_equal_results),
        cmocka_unit_test(test_strided_paths_in_parallel),
        cmocka_unit_test(test_scalar_expansion),
        cmocka_unit_test(test_gufunc_in_parallel),
        cmocka_unit_test(test_application_threads),
        cmocka_unit_test(test_call_from_inside_a_loop),
        cmocka_unit_test(test_no_threads_for_small_calls),
        cmocka_unit_test(test_task_split),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
