/* trace.c - UFN_TRACE=1 and the event hook.
 *
 * Whoever does the work reports it: a backend's alloc/free/copy/execute
 * functions report their own allocations, transfers, launches and host
 * loops, and the CUDA backend also its staging copies.  With UFN_TRACE set
 * (to anything but "" or "0") each event is one line on stderr; a hook set
 * by ufn_set_trace_hook() sees every event whether or not UFN_TRACE is set.
 * When neither is on, ufn_trace() costs two relaxed loads.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "ufnrt.h"

static pthread_once_t env_once = PTHREAD_ONCE_INIT;
static atomic_bool env_trace;

static pthread_mutex_t hook_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_bool hook_set;
static ufn_trace_hook hook_fn;
static void *hook_ctx;

static void read_env(void)
{
    const char *s = getenv("UFN_TRACE");
    atomic_store(&env_trace, s && *s && !(s[0] == '0' && s[1] == '\0'));
}

bool ufn_tracing(void)
{
    pthread_once(&env_once, read_env);
    return atomic_load_explicit(&env_trace, memory_order_relaxed) ||
           atomic_load_explicit(&hook_set, memory_order_relaxed);
}

void ufn_set_trace_hook(ufn_trace_hook hook, void *ctx)
{
    pthread_mutex_lock(&hook_lock);
    hook_fn = hook;
    hook_ctx = ctx;
    atomic_store(&hook_set, hook != NULL);
    pthread_mutex_unlock(&hook_lock);
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
    }
    return "?";
}

void ufn_trace(const ufn_event *ev)
{
    if (!ufn_tracing())
        return;
    if (atomic_load_explicit(&env_trace, memory_order_relaxed)) {
        const char *unit = ev->kind == UFN_EV_LAUNCH || ev->kind == UFN_EV_HOST_LOOP
                               ? "elements"
                           : ev->kind == UFN_EV_KERNEL ? "threads" : "bytes";
        /* One fprintf per line, so that lines of several threads do not mix. */
        if (ev->kind == UFN_EV_SYNC)
            fprintf(stderr, "ufn: %-4s %-9s device %d\n", ev->backend ? ev->backend : "?",
                    ufn_event_name(ev->kind), ev->device);
        else if (ev->kind == UFN_EV_PEER)
            fprintf(stderr, "ufn: %-4s %-9s %zu bytes device %d to device %d\n",
                    ev->backend ? ev->backend : "?", ufn_event_name(ev->kind), ev->bytes,
                    ev->from, ev->device);
        else if (ev->kind == UFN_EV_CHOICE)
            fprintf(stderr, "ufn: %-4s %-9s %s\n", ev->backend ? ev->backend : "?",
                    ufn_event_name(ev->kind), ev->name ? ev->name : "");
        else
            fprintf(stderr, "ufn: %-4s %-9s %s%s%zu %s device %d\n",
                    ev->backend ? ev->backend : "?", ufn_event_name(ev->kind),
                    ev->name ? ev->name : "", ev->name ? " " : "", ev->bytes, unit, ev->device);
    }
    if (atomic_load_explicit(&hook_set, memory_order_relaxed)) {
        pthread_mutex_lock(&hook_lock);
        ufn_trace_hook fn = hook_fn;
        void *ctx = hook_ctx;
        pthread_mutex_unlock(&hook_lock);
        if (fn)
            fn(ev, ctx);
    }
}

void ufn_emit(ufn_event_kind kind, const char *backend, const char *name, size_t bytes,
              int device)
{
    if (!ufn_tracing())
        return;
    ufn_event ev = {kind, backend, name, bytes, device, device};
    ufn_trace(&ev);
}
