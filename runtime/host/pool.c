/* pool.c - the host backend's persistent worker threads.
 *
 * Workers are created on the first call big enough to need them (never for
 * small calls) and live as long as the process.  One call at a time owns the
 * pool: ufn_pool_run() try-locks it, and a thread that finds it busy (another
 * application thread's call, or a call from inside a worker) runs its tasks
 * itself.  So concurrent calls never wait on each other and nothing can
 * deadlock; results do not depend on which thread ran which task.
 *
 * A job is a counter of tasks that the caller and the workers take from with
 * an atomic increment, and a number of helper slots.  Workers spin briefly
 * on the job generation before sleeping on a condition variable, so
 * back-to-back calls start quickly.  A woken worker takes part only if it
 * claims a slot; it reads the job only after claiming one and checks out
 * when it has no more tasks.  When the caller has run out of tasks it
 * cancels the slots nobody claimed and waits for the claimed ones to check
 * out (the job lives on its stack).  Every claim is matched by one check-out,
 * so a worker that wakes late can never take part in the wrong job.  After
 * fork() the child starts with no workers (pthread_atfork).  A call made
 * from inside an OpenMP parallel region runs on its caller alone (openmp.c
 * says why).
 */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "ufnrt.h"

#define MAX_WORKERS 255
#define SPIN 4000

static struct {
    pthread_mutex_t busy;           /* held by the call that owns the pool */
    pthread_mutex_t lock;           /* protects sleeping and the condition variables */
    pthread_cond_t wake, done;
    int nworkers;                   /* started (under busy) */
    int sleeping;                   /* workers waiting on `wake` (under lock) */
    atomic_uint_fast64_t generation;
    /* the current job, written by the owner before bumping generation */
    ufn_task_fn fn;
    void *ctx;
    int64_t ntasks;
    atomic_int slots;               /* helper places not yet claimed */
    atomic_int_fast64_t next;       /* next task to take */
    atomic_int pending;             /* places not yet checked out or cancelled */
} pool = {
    .busy = PTHREAD_MUTEX_INITIALIZER,
    .lock = PTHREAD_MUTEX_INITIALIZER,
    .wake = PTHREAD_COND_INITIALIZER,
    .done = PTHREAD_COND_INITIALIZER,
};

static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

static bool claim_slot(void)
{
    int n = atomic_load(&pool.slots);
    while (n > 0)
        if (atomic_compare_exchange_weak(&pool.slots, &n, n - 1))
            return true;
    return false;
}

static void take_tasks(ufn_task_fn fn, void *ctx, int64_t ntasks)
{
    for (;;) {
        int64_t t = atomic_fetch_add(&pool.next, 1);
        if (t >= ntasks)
            return;
        fn(ctx, t);
    }
}

static void *worker(void *arg)
{
    (void)arg;
    uint_fast64_t seen = atomic_load(&pool.generation);
    for (;;) {
        uint_fast64_t g = seen;
        for (int i = 0; i < SPIN && g == seen; i++) {
            cpu_relax();
            g = atomic_load(&pool.generation);
        }
        if (g == seen) {
            pthread_mutex_lock(&pool.lock);
            pool.sleeping++;
            while ((g = atomic_load(&pool.generation)) == seen)
                pthread_cond_wait(&pool.wake, &pool.lock);
            pool.sleeping--;
            pthread_mutex_unlock(&pool.lock);
        }
        seen = g;
        if (!claim_slot())
            continue;
        take_tasks(pool.fn, pool.ctx, pool.ntasks);
        if (atomic_fetch_sub(&pool.pending, 1) == 1) {
            pthread_mutex_lock(&pool.lock);
            pthread_cond_signal(&pool.done);
            pthread_mutex_unlock(&pool.lock);
        }
    }
    return NULL;
}

/* In a forked child only the forking thread exists: forget the workers. */
static void after_fork_child(void)
{
    pthread_mutex_init(&pool.busy, NULL);
    pthread_mutex_init(&pool.lock, NULL);
    pthread_cond_init(&pool.wake, NULL);
    pthread_cond_init(&pool.done, NULL);
    pool.nworkers = 0;
    pool.sleeping = 0;
}

static void register_atfork(void)
{
    pthread_atfork(NULL, NULL, after_fork_child);
}

/* Start workers up to `want`; with `busy` held.  Keeps those it could start. */
static void start_workers(int want)
{
    if (want > MAX_WORKERS)
        want = MAX_WORKERS;
    if (pool.nworkers >= want)
        return;
    pthread_once(&atfork_once, register_atfork);
    /* Workers run no signal handlers of the application. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    while (pool.nworkers < want) {
        pthread_t t;
        if (pthread_create(&t, &attr, worker, NULL) != 0)
            break;
        pool.nworkers++;
    }
    pthread_attr_destroy(&attr);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}

int ufn_pool_run(int nthreads, int64_t ntasks, ufn_task_fn fn, void *ctx)
{
    if (ntasks <= 0)
        return 0;
    if (nthreads <= 1 || ntasks == 1 || ufn_omp_in_parallel() ||
        pthread_mutex_trylock(&pool.busy) != 0) {
        for (int64_t t = 0; t < ntasks; t++)
            fn(ctx, t);
        return 1;
    }
    start_workers(nthreads - 1);
    int helpers = nthreads - 1;
    if (helpers > pool.nworkers)
        helpers = pool.nworkers;
    if ((int64_t)helpers > ntasks - 1)
        helpers = (int)(ntasks - 1);
    pool.fn = fn;
    pool.ctx = ctx;
    pool.ntasks = ntasks;
    atomic_store(&pool.next, 0);
    atomic_store(&pool.pending, helpers);
    atomic_store(&pool.slots, helpers);

    pthread_mutex_lock(&pool.lock);
    atomic_fetch_add(&pool.generation, 1);
    if (pool.sleeping)
        pthread_cond_broadcast(&pool.wake);
    pthread_mutex_unlock(&pool.lock);

    take_tasks(fn, ctx, ntasks);
    int cancelled = atomic_exchange(&pool.slots, 0);
    int claimed = helpers - cancelled;
    atomic_fetch_sub(&pool.pending, cancelled);

    for (int i = 0; i < SPIN && atomic_load(&pool.pending) > 0; i++)
        cpu_relax();
    if (atomic_load(&pool.pending) > 0) {
        pthread_mutex_lock(&pool.lock);
        while (atomic_load(&pool.pending) > 0)
            pthread_cond_wait(&pool.done, &pool.lock);
        pthread_mutex_unlock(&pool.lock);
    }
    pthread_mutex_unlock(&pool.busy);
    return claimed + 1;
}
