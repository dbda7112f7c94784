/* trace.c - ufn_set_trace_callback and NVTX ranges.
 *
 * The callback sees each event of a call with its kind, amount, device and
 * duration (timed events), and nothing once removed.  With
 * UFN_NVTX_LIBRARY naming tests/interop/fake_nvtx.c's library, each call on
 * a device backend (sim) is one range named after the ufunc, a kernel
 * launch one named after the kernel, a reduction on the device one named
 * "plus.reduce"; the host backend pushes none.  run.sh runs it with UFN_TRACE=time,summary and
 * checks the lines (durations) and the summary at exit.
 */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "interop.h"

#define N 1000
#define MAX_EVENTS 64

static struct {
    int n;
    ufn_trace_event ev[MAX_EVENTS];
    char names[MAX_EVENTS][96];
} seen;

static void callback(const ufn_trace_event *ev, void *ctx)
{
    CHECK(ctx == &seen);
    CHECK(ev->size == sizeof *ev);
    if (seen.n < MAX_EVENTS) {
        seen.ev[seen.n] = *ev;
        snprintf(seen.names[seen.n], sizeof seen.names[0], "%s", ev->name ? ev->name : "");
        seen.n++;
    }
}

/* The first event of this kind, or NULL. */
static const ufn_trace_event *find(ufn_trace_kind kind)
{
    for (int i = 0; i < seen.n; i++)
        if (seen.ev[i].kind == kind)
            return &seen.ev[i];
    return NULL;
}

static const char *name_of(const ufn_trace_event *ev)
{
    return seen.names[ev - seen.ev];
}

static const char *nvtx_log(void)
{
    const char *path = getenv("UFN_NVTX_LIBRARY");
    void *lib = path ? dlopen(path, RTLD_NOW | RTLD_NOLOAD) : NULL;
    if (!lib)
        return NULL;      /* the runtime did not load it */
    const char *(*log)(void);
    *(void **)&log = dlsym(lib, "fake_nvtx_log");
    const char *text = log ? log() : NULL;
    dlclose(lib);
    return text;
}

int main(void)
{
    static float x[N], y[N];
    for (int i = 0; i < N; i++)
        x[i] = (float)i;
    int64_t shape[1] = { N };
    ufn_array xa = ufn_host(x, UFN_FLOAT32, 1, shape), ya = ufn_host(y, UFN_FLOAT32, 1, shape);
    ufn_array two = ufn_scalar_float32(2.0f);
    bool device = strcmp(ufn_backend(), "host") != 0;

    ufn_set_trace_callback(callback, &seen);
    CHECK(axpb(&xa, &two, &ya) == UFN_OK);
    ufn_set_trace_callback(NULL, NULL);
    CHECK(y[N - 1] == 2.0f * (N - 1) + 1.0f);
    int during = seen.n;
    CHECK(axpb(&xa, &two, &ya) == UFN_OK);
    CHECK(seen.n == during);      /* removed: no more events */

    if (device) {
        const ufn_trace_event *h2d = find(UFN_TRACE_H2D), *launch = find(UFN_TRACE_LAUNCH),
                              *d2h = find(UFN_TRACE_D2H);
        CHECK(h2d && h2d->amount == sizeof x && strcmp(h2d->kind_name, "H2D") == 0);
        CHECK(h2d && h2d->seconds >= 0 && h2d->start_ns > 0);
        CHECK(launch && launch->amount == N && strstr(name_of(launch), "axpb"));
        CHECK(launch && launch->seconds >= 0 && strcmp(launch->backend, ufn_backend()) == 0);
        CHECK(d2h && d2h->amount == sizeof y && d2h->device == 0 && d2h->from_device == 0);
        CHECK(find(UFN_TRACE_HOST_LOOP) == NULL);
    } else {
        const ufn_trace_event *loop = find(UFN_TRACE_HOST_LOOP);
        CHECK(loop && loop->amount == N && strcmp(name_of(loop), "axpb") == 0);
        CHECK(loop && loop->seconds >= 0 && loop->start_ns > 0);
        CHECK(find(UFN_TRACE_LAUNCH) == NULL);
    }
    const ufn_trace_event *free_ev = find(UFN_TRACE_FREE);
    CHECK(!free_ev || free_ev->seconds == -1.0);     /* frees are not timed */

    if (getenv("UFN_NVTX_LIBRARY")) {
        /* a kernel launch, and a reduction of a device array */
        ufn_array half = ufn_scalar_float32(0.5f), xd = { 0 }, sum = { 0 };
        CHECK(scale(ufn_launch_1d(4, 256), &ya, &half) == UFN_OK);
        CHECK(y[N - 1] == (2.0f * (N - 1) + 1.0f) * 0.5f);
        CHECK(ufn_to_device(&xa, &xd) == UFN_OK);
        CHECK(plus_reduce(&xd, NULL, &sum) == UFN_OK);
        ufn_free(&sum);
        ufn_free(&xd);
        static const char want[] = "push axpb\npop\npush axpb\npop\npush scale\npop\n"
                                   "push plus.reduce\npop\n";
        const char *log = nvtx_log();
        if (device)
            CHECK(log && strcmp(log, want) == 0);
        else
            CHECK(!log || !*log);
        if (log && device && strcmp(log, want) != 0)
            fprintf(stderr, "trace: NVTX record:\n%s", log);
    }
    return done("trace");
}
