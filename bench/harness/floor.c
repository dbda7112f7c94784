/* floor.c - the memory floors a ufunc is measured against: a threaded
 * memcpy (one stream in, one out: the floor of unary ufuncs) and a threaded
 * 2-in-1-out add loop (the floor of binary ufuncs).
 *
 * They are threaded as the host backend is: UFN_NUM_THREADS threads (default
 * every online CPU), none below 32768 elements, each thread one contiguous
 * slice.  Workers persist and spin briefly before sleeping, like the host
 * backend's pool, so that a floor does not lose to ufnc on thread wake-up
 * alone at small sizes. */
#include "bench.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PARALLEL_MIN 32768   /* elements: the host backend's threshold */
#define MAX_THREADS 256
#define SPIN 20000

typedef struct job {
    int kind;                /* 0 memcpy, 1 add, 2 read */
    char *dst;
    float sums[MAX_THREADS];  /* kind 2: one partial sum per part */
    const char *a, *b;
    size_t n;                /* bytes (memcpy) or floats (add) */
    int parts;
} job;

static struct {
    pthread_mutex_t lock;
    pthread_cond_t wake;
    int started, sleeping;
    atomic_uint gen;
    atomic_int pending;
    job j;
} pool = {.lock = PTHREAD_MUTEX_INITIALIZER, .wake = PTHREAD_COND_INITIALIZER};

/* Several ISAs: the floor should be as fast as the best loop ufnc can pick. */
__attribute__((target_clones("avx512f", "avx2", "default")))
static void add_loop(float *restrict c, const float *restrict a, const float *restrict b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        c[i] = a[i] + b[i];
}

__attribute__((target_clones("avx512f", "avx2", "default")))
static float read_loop(const float *restrict a, size_t n)
{
    /* sixteen partial sums: the loop is bound by loads, not by one add chain */
    float s[16] = {0};
    size_t i = 0;
    for (; i + 16 <= n; i += 16)
        for (int k = 0; k < 16; k++)
            s[k] += a[i + k];
    for (; i < n; i++)
        s[0] += a[i];
    float t = 0;
    for (int k = 0; k < 16; k++)
        t += s[k];
    return t;
}

static void run_part(job *j, int part)
{
    size_t unit = j->kind == 0 ? 64 : 16;    /* whole cache lines: bytes or floats */
    size_t per = (j->n / (size_t)j->parts + unit - 1) / unit * unit;
    size_t lo = (size_t)part * per, hi = lo + per;
    if (lo >= j->n)
        return;
    if (hi > j->n)
        hi = j->n;
    if (j->kind == 0)
        memcpy(j->dst + lo, j->a + lo, hi - lo);
    else if (j->kind == 2)
        j->sums[part] = read_loop((const float *)j->a + lo, hi - lo);
    else
        add_loop((float *)j->dst + lo, (const float *)j->a + lo, (const float *)j->b + lo, hi - lo);
}

static void *worker(void *arg)
{
    int id = (int)(intptr_t)arg;
    unsigned seen = 0;
    for (;;) {
        unsigned g = atomic_load(&pool.gen);
        for (int i = 0; i < SPIN && g == seen; i++) {
            __builtin_ia32_pause();
            g = atomic_load(&pool.gen);
        }
        if (g == seen) {
            pthread_mutex_lock(&pool.lock);
            pool.sleeping++;
            while ((g = atomic_load(&pool.gen)) == seen)
                pthread_cond_wait(&pool.wake, &pool.lock);
            pool.sleeping--;
            pthread_mutex_unlock(&pool.lock);
        }
        seen = g;
        if (id < pool.j.parts)
            run_part(&pool.j, id);
        atomic_fetch_sub(&pool.pending, 1);
    }
    return NULL;
}

int floor_threads(void)
{
    const char *s = getenv("UFN_NUM_THREADS");
    long n = s && *s ? strtol(s, NULL, 10) : 0;
    if (n <= 0) {
        cpu_set_t set;
        n = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : sysconf(_SC_NPROCESSORS_ONLN);
    }
    return n < 1 ? 1 : n > MAX_THREADS ? MAX_THREADS : (int)n;
}

static int run(job *j, size_t elements)
{
    int threads = elements < PARALLEL_MIN ? 1 : floor_threads();
    j->parts = threads;
    if (threads == 1) {
        run_part(j, 0);
        return 0;
    }
    while (pool.started < threads - 1) {
        pthread_t t;
        if (pthread_create(&t, NULL, worker, (void *)(intptr_t)(pool.started + 1)) != 0)
            return -1;
        pthread_detach(t);
        pool.started++;
    }
    pool.j = *j;
    atomic_store(&pool.pending, pool.started);
    pthread_mutex_lock(&pool.lock);
    atomic_fetch_add(&pool.gen, 1);
    if (pool.sleeping)
        pthread_cond_broadcast(&pool.wake);
    pthread_mutex_unlock(&pool.lock);
    run_part(&pool.j, 0);
    while (atomic_load(&pool.pending) > 0)
        __builtin_ia32_pause();
    *j = pool.j;
    return 0;
}

int floor_memcpy(void *dst, const void *src, size_t bytes)
{
    job j = {.kind = 0, .dst = dst, .a = src, .n = bytes};
    return run(&j, bytes / 4);
}

int floor_add(float *c, const float *a, const float *b, size_t n)
{
    job j = {.kind = 1, .dst = (char *)c, .a = (const char *)a, .b = (const char *)b, .n = n};
    return run(&j, n);
}

int floor_read(const float *a, size_t n, float *sum)
{
    job j = {.kind = 2, .a = (const char *)a, .n = n};
    int rc = run(&j, n);
    float t = 0;
    for (int k = 0; k < j.parts; k++)
        t += j.sums[k];
    *sum = t;
    return rc;
}
