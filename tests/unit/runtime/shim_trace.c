/* shim_trace.c - runtime/trace.c's interface for the CUDA backend's tests,
 * for a tree that does not have trace.c yet (see mk/rtcuda.mk). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "ufnrt.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static ufn_trace_hook hook;
static void *hook_ctx;

static const char *const names[] = { "alloc", "free", "h2d", "d2h", "d2d",
                                     "launch", "host-loop", "sync" };

const char *ufn_event_name(ufn_event_kind kind)
{
    return (unsigned)kind < sizeof names / sizeof names[0] ? names[kind] : "?";
}

void ufn_set_trace_hook(ufn_trace_hook h, void *ctx)
{
    pthread_mutex_lock(&lock);
    hook = h;
    hook_ctx = ctx;
    pthread_mutex_unlock(&lock);
}

bool ufn_tracing(void)
{
    const char *env = getenv("UFN_TRACE");
    return hook || (env && *env && *env != '0');
}

void ufn_trace(const ufn_event *ev)
{
    pthread_mutex_lock(&lock);
    if (hook)
        hook(ev, hook_ctx);
    pthread_mutex_unlock(&lock);
    const char *env = getenv("UFN_TRACE");
    if (env && *env && *env != '0')
        fprintf(stderr, "ufn: %s %s dev%d %s %zu\n", ev->backend, ufn_event_name(ev->kind),
                ev->device, ev->name ? ev->name : "-", ev->bytes);
}
