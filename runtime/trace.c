/* trace.c - UFN_TRACE, the test hook and the program's trace callback.
 *
 * Whoever does the work reports it: a backend's alloc/free/copy/execute
 * functions report their own allocations, transfers, launches and host
 * loops, and the CUDA backend also its staging copies.  A reporter that
 * times its operation takes ufn_trace_clock() before it and reports the
 * event with that start (ufn_emit_since); the duration is the calling
 * thread's time in the operation: for work queued on a device stream the
 * time to queue it, and the wait shows in the sync that follows.
 *
 * UFN_TRACE is a list of words separated by commas:
 *   1 (or any other word)  one line per event on stderr, a timed event's
 *                          with its duration (issue 19: the trace is where
 *                          one looks for where the time goes)
 *   time                   the same (the word once asked for durations)
 *   summary                at exit, per kind of event: count, amount, time
 * "" and "0" are off.  A hook (ufn_set_trace_hook, tests) and the
 * program's callback (ufn_set_trace_callback) see every event whether or
 * not UFN_TRACE is set.  When nothing listens, ufn_trace() costs two
 * relaxed loads and ufn_trace_clock() the same.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ufnrt.h"

/* The public kinds are the internal ones, in the same order. */
_Static_assert((int)UFN_TRACE_GRAPH == (int)UFN_EV_GRAPH && (int)UFN_TRACE_ALLOC == (int)UFN_EV_ALLOC,
               "ufn_trace_kind (ufn.h) and ufn_event_kind (ufnrt.h) differ");
#define NKINDS (UFN_EV_GRAPH + 1)

enum { MODE_LINES = 1, MODE_SUMMARY = 2 };

static pthread_once_t env_once = PTHREAD_ONCE_INIT;
static atomic_int env_mode;

static pthread_mutex_t hook_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_bool hook_set;
static ufn_trace_hook hook_fn;
static void *hook_ctx;
static ufn_trace_callback user_fn;
static void *user_ctx;

/* The summary's totals, under hook_lock. */
static struct {
    uint64_t count, amount, timed, timed_ns;
} totals[NKINDS];

static void print_summary(void);

static int parse_mode(const char *s)
{
    if (!s || !*s || strcmp(s, "0") == 0)
        return 0;
    int mode = 0;
    while (*s) {
        size_t n = strcspn(s, ",");
        if (n == 7 && strncmp(s, "summary", 7) == 0)
            mode |= MODE_SUMMARY;
        else if (n > 0)
            mode |= MODE_LINES;
        s += n + (s[n] == ',');
    }
    return mode;
}

static void read_env(void)
{
    int mode = parse_mode(getenv("UFN_TRACE"));
    if (mode & MODE_SUMMARY)
        atexit(print_summary);
    atomic_store(&env_mode, mode);
}

bool ufn_tracing(void)
{
    pthread_once(&env_once, read_env);
    return atomic_load_explicit(&env_mode, memory_order_relaxed) ||
           atomic_load_explicit(&hook_set, memory_order_relaxed);
}

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t ufn_trace_clock(void)
{
    return ufn_tracing() ? now_ns() : 0;
}

static void set_hooks(ufn_trace_hook hook, void *ctx, bool internal)
{
    pthread_mutex_lock(&hook_lock);
    if (internal) {
        hook_fn = hook;
        hook_ctx = ctx;
    }
    atomic_store(&hook_set, hook_fn != NULL || user_fn != NULL);
    pthread_mutex_unlock(&hook_lock);
}

void ufn_set_trace_hook(ufn_trace_hook hook, void *ctx)
{
    set_hooks(hook, ctx, true);
}

void ufn_set_trace_callback(ufn_trace_callback callback, void *ctx)
{
    pthread_mutex_lock(&hook_lock);
    user_fn = callback;
    user_ctx = ctx;
    pthread_mutex_unlock(&hook_lock);
    set_hooks(NULL, NULL, false);
}

void ufn_trace_fork(ufn_fork_phase phase)
{
    if (phase == UFN_FORK_PREPARE)
        pthread_mutex_lock(&hook_lock);
    else
        pthread_mutex_unlock(&hook_lock);
}

const char *ufn_event_name(ufn_event_kind kind)
{
    switch (kind) {
    case UFN_EV_ALLOC: return "alloc";
    case UFN_EV_FREE: return "free";
    case UFN_EV_H2D: return "H2D";
    case UFN_EV_D2H: return "D2H";
    case UFN_EV_D2D: return "D2D";
    case UFN_EV_LAUNCH: return "launch";
    case UFN_EV_HOST_LOOP: return "host-loop";
    case UFN_EV_SYNC: return "sync";
    case UFN_EV_CHOICE: return "choice";
    case UFN_EV_KERNEL: return "kernel";
    case UFN_EV_PEER: return "P2P";
    case UFN_EV_GRAPH: return "graph";
    }
    return "?";
}

/* What an event's amount counts. */
static const char *unit_of(ufn_event_kind kind)
{
    return kind == UFN_EV_LAUNCH || kind == UFN_EV_HOST_LOOP ? "elements"
           : kind == UFN_EV_KERNEL                           ? "threads"
           : kind == UFN_EV_GRAPH                            ? "kernels"
           : kind == UFN_EV_SYNC || kind == UFN_EV_CHOICE    ? ""
                                                             : "bytes";
}

/* " (12.345 us)" for a timed event, else "". */
static void format_duration(char *buf, size_t size, uint64_t ns, bool timed)
{
    buf[0] = '\0';
    if (timed)
        snprintf(buf, size, " (%.3f us)", (double)ns / 1e3);
}

static void print_line(const ufn_event *ev, uint64_t ns, bool timed)
{
    char dur[48];
    format_duration(dur, sizeof dur, ns, timed);
    const char *be = ev->backend ? ev->backend : "?";
    const char *kind = ufn_event_name(ev->kind);
    /* One fprintf per line, so that lines of several threads do not mix. */
    if (ev->kind == UFN_EV_SYNC)
        fprintf(stderr, "ufn: %-4s %-9s device %d%s\n", be, kind, ev->device, dur);
    else if (ev->kind == UFN_EV_PEER)
        fprintf(stderr, "ufn: %-4s %-9s %zu bytes device %d to device %d%s\n", be, kind,
                ev->bytes, ev->from, ev->device, dur);
    else if (ev->kind == UFN_EV_CHOICE)
        fprintf(stderr, "ufn: %-4s %-9s %s\n", be, kind, ev->name ? ev->name : "");
    else
        fprintf(stderr, "ufn: %-4s %-9s %s%s%zu %s device %d%s\n", be, kind,
                ev->name ? ev->name : "", ev->name ? " " : "", ev->bytes, unit_of(ev->kind),
                ev->device, dur);
}

static void print_summary(void)
{
    pthread_mutex_lock(&hook_lock);
    fprintf(stderr, "ufn: summary   %-9s %10s %16s %-8s %12s\n", "kind", "count", "amount", "",
            "time (ms)");
    for (int k = 0; k < NKINDS; k++) {
        if (!totals[k].count || k == UFN_EV_CHOICE)
            continue;
        char time[32] = "-";     /* a kind nobody times (frees) */
        if (totals[k].timed)
            snprintf(time, sizeof time, "%.3f", (double)totals[k].timed_ns / 1e6);
        fprintf(stderr, "ufn: summary   %-9s %10llu %16llu %-8s %12s\n",
                ufn_event_name((ufn_event_kind)k), (unsigned long long)totals[k].count,
                (unsigned long long)totals[k].amount, unit_of((ufn_event_kind)k), time);
    }
    pthread_mutex_unlock(&hook_lock);
}

void ufn_trace(const ufn_event *ev)
{
    if (!ufn_tracing())
        return;
    bool timed = ev->start_ns != 0;
    uint64_t end = timed ? now_ns() : 0;
    uint64_t ns = timed && end > ev->start_ns ? end - ev->start_ns : 0;
    int mode = atomic_load_explicit(&env_mode, memory_order_relaxed);
    if (mode & MODE_LINES)
        print_line(ev, ns, timed);
    if (!(mode & MODE_SUMMARY) && !atomic_load_explicit(&hook_set, memory_order_relaxed))
        return;
    pthread_mutex_lock(&hook_lock);
    if (mode & MODE_SUMMARY && (int)ev->kind >= 0 && ev->kind < NKINDS) {
        totals[ev->kind].count++;
        totals[ev->kind].amount += ev->bytes;
        totals[ev->kind].timed += timed;
        totals[ev->kind].timed_ns += ns;
    }
    ufn_trace_hook fn = hook_fn;
    void *ctx = hook_ctx;
    ufn_trace_callback ufn = user_fn;
    void *uctx = user_ctx;
    pthread_mutex_unlock(&hook_lock);
    if (fn)
        fn(ev, ctx);
    if (ufn) {
        ufn_trace_event pub = {
            .size = sizeof pub,
            .kind = (ufn_trace_kind)ev->kind,
            .kind_name = ufn_event_name(ev->kind),
            .backend = ev->backend,
            .name = ev->name,
            .amount = ev->bytes,
            .device = ev->device,
            .from_device = ev->from,
            .seconds = timed ? (double)ns / 1e9 : -1.0,
            .start_ns = ev->start_ns,
        };
        ufn(&pub, uctx);
    }
}

void ufn_emit_since(ufn_event_kind kind, const char *backend, const char *name, size_t bytes,
                    int device, uint64_t start_ns)
{
    if (!ufn_tracing())
        return;
    ufn_event ev = { kind, backend, name, bytes, device, device, start_ns };
    ufn_trace(&ev);
}

void ufn_emit(ufn_event_kind kind, const char *backend, const char *name, size_t bytes,
              int device)
{
    ufn_emit_since(kind, backend, name, bytes, device, 0);
}
