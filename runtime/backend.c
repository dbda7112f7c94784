/* backend.c - choosing the backend once per process.
 *
 * The first call that needs a backend chooses it under a lock, from
 * ufn_init()'s argument or UFN_BACKEND: auto (cuda when a driver and a
 * device are there and the driver can run the calling module's code, else
 * host; UFN_TRACE says which and why), cuda, host or sim.  An explicit choice that
 * fails stays failed, with its own status (UFN_ERR_NO_DRIVER, ...), and every
 * later call reports it; ufn_init() may still make a valid choice then.
 * After the choice, finding the backend is one atomic load.
 *
 * fork(): this file registers the runtime's atfork handlers (when a backend
 * is first asked for, before any other lock or thread exists).  They take
 * every lock of the runtime before the fork, in one order - this file's,
 * the cuda and sim backends' and the simulator's, the allocation registry,
 * the trace hook - and give them back after it; the host backend's pool
 * forgets its workers in the child (pool.c).  A child of a process whose
 * backend is cuda or sim cannot use it: neither the CUDA driver nor the
 * simulator's stream threads survive a fork, so its calls fail with
 * UFN_ERR_BACKEND and say so.  On the host backend the child works.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ufnrt.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static const ufn_backend_ops *_Atomic chosen;
static int failed_status;           /* nonzero: the choice from UFN_BACKEND failed */
static char failed_msg[512];
static int device_ordinal;
static bool forked_device;          /* a child of a process that used a device backend */
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

/* ---- fork() ------------------------------------------------------------------------ */

static void fork_prepare(void)
{
    pthread_mutex_lock(&lock);
    ufn_cuda_fork(UFN_FORK_PREPARE);
    ufn_registry_fork(UFN_FORK_PREPARE);
    ufn_trace_fork(UFN_FORK_PREPARE);
}

static void fork_release(ufn_fork_phase phase)
{
    ufn_trace_fork(phase);
    ufn_registry_fork(phase);
    ufn_cuda_fork(phase);
    pthread_mutex_unlock(&lock);
}

static void fork_parent(void)
{
    fork_release(UFN_FORK_PARENT);
}

static void fork_child(void)
{
    const ufn_backend_ops *be = atomic_load(&chosen);
    if (be && be->device_memory == UFN_MEM_DEVICE) {
        forked_device = true;
        atomic_store(&chosen, NULL);
        failed_status = UFN_ERR_BACKEND;
        snprintf(failed_msg, sizeof failed_msg,
                 "the %s backend cannot be used in a child process made by fork() after it "
                 "started: neither the CUDA driver nor the runtime's device threads survive a "
                 "fork (fork before the first call, or use the host backend)", be->name);
    }
    fork_release(UFN_FORK_CHILD);
}

static void register_atfork(void)
{
    pthread_atfork(fork_prepare, fork_parent, fork_child);
}

/* auto: the cuda backend if it starts and can run module m's code (when a
 * call brought one), else host; the trace says which, and why. */
static const ufn_backend_ops *choose_auto(const ufn_module *m)
{
    const ufn_backend_ops *be = ufn_cuda_backend();
    if (be && m && ufn_cuda_check_module(m) < 0)
        be = NULL;
    if (ufn_tracing()) {
        char why[600];
        snprintf(why, sizeof why, "auto: %s", be ? "a CUDA driver and device" : ufn_error());
        ufn_emit(UFN_EV_CHOICE, be ? be->name : "host", why, 0, 0);
    }
    ufn_clear_error();
    return be ? be : &ufn_backend_host;
}

/* Choose by name; with the lock held.  On success sets `chosen`.  The
 * runtime's other variables are read first: a value that means nothing is
 * refused here, and with it the choice, as a bad UFN_BACKEND is. */
static int choose(const char *name, const char *origin, const ufn_module *m)
{
    const char *bad = ufn_host_config_error();
    if (!bad)
        bad = ufn_stage_config_error();
    if (bad)
        return ufn_fail(UFN_ERR_INVALID, "%s", bad);
    const ufn_backend_ops *be = NULL;
    if (!name || !*name || strcmp(name, "auto") == 0) {
        be = choose_auto(m);
    } else if (strcmp(name, "host") == 0) {
        be = &ufn_backend_host;
    } else if (strcmp(name, "cuda") == 0 || strcmp(name, "sim") == 0) {
        be = name[0] == 'c' ? ufn_cuda_backend() : ufn_sim_backend();
        if (!be) {
            int st = ufn_error_status();
            return ufn_fail_prefix(st < 0 ? st : UFN_ERR_BACKEND, origin);
        }
    } else {
        return ufn_fail(UFN_ERR_BACKEND, "%s: \"%s\" names no backend (auto, cuda, host, sim)",
                        origin, name);
    }
    if (forked_device && be->device_memory == UFN_MEM_DEVICE)
        return ufn_fail(UFN_ERR_BACKEND, "%s", failed_msg);
    int device = 0;
    const char *dev = getenv("UFN_DEVICE");
    if (dev && *dev && be->device_memory == UFN_MEM_DEVICE && !be->default_device) {
        char *end;
        long v = strtol(dev, &end, 10);
        int count = be->device_count(be);
        if (*end || v < 0 || v >= count)
            return ufn_fail(UFN_ERR_NO_DEVICE, "UFN_DEVICE=%s: no such device (%d device%s)", dev,
                            count, count == 1 ? "" : "s");
        device = (int)v;
    }
    int st = ufn_devices_configure(be);
    if (st < 0)
        return st;
    device_ordinal = device;
    atomic_store(&chosen, be);
    return UFN_OK;
}

int ufn_get_backend(const ufn_backend_ops **out)
{
    return ufn_get_backend_for(NULL, out);
}

int ufn_get_backend_for(const ufn_module *m, const ufn_backend_ops **out)
{
    const ufn_backend_ops *be = atomic_load_explicit(&chosen, memory_order_acquire);
    if (be) {
        *out = be;
        return UFN_OK;
    }
    pthread_once(&atfork_once, register_atfork);
    int st = UFN_OK;
    pthread_mutex_lock(&lock);
    be = atomic_load(&chosen);
    if (!be && !failed_status) {
        st = choose(getenv("UFN_BACKEND"), "UFN_BACKEND", m);
        if (st < 0) {
            failed_status = st;
            snprintf(failed_msg, sizeof failed_msg, "%s", ufn_error());
        }
        be = atomic_load(&chosen);
    }
    if (!be) {
        st = failed_status;
        ufn_fail(st, "%s", failed_msg);
    }
    pthread_mutex_unlock(&lock);
    *out = be;
    return st;
}

const ufn_backend_ops *ufn_active_backend(void)
{
    const ufn_backend_ops *be;
    return ufn_get_backend(&be) < 0 ? NULL : be;
}

int ufn_init(const char *backend)
{
    pthread_once(&atfork_once, register_atfork);
    int st = UFN_OK;
    pthread_mutex_lock(&lock);
    const ufn_backend_ops *be = atomic_load(&chosen);
    if (be) {
        const char *want = backend && *backend ? backend : "auto";
        if (strcmp(want, "auto") != 0 && strcmp(want, be->name) != 0)
            st = ufn_fail(UFN_ERR_BACKEND, "ufn_init(\"%s\"): the %s backend is already in use",
                          want, be->name);
    } else {
        st = choose(backend, "ufn_init", NULL);
    }
    pthread_mutex_unlock(&lock);
    return st;
}

int ufn_use_backend(const ufn_backend_ops *backend)
{
    pthread_once(&atfork_once, register_atfork);
    int st = UFN_OK;
    pthread_mutex_lock(&lock);
    const ufn_backend_ops *be = atomic_load(&chosen);
    if (be && be != backend)
        st = ufn_fail(UFN_ERR_BACKEND, "the %s backend is already in use", be->name);
    else
        atomic_store(&chosen, backend);
    pthread_mutex_unlock(&lock);
    return st;
}

int ufn_current_device(void)
{
    const ufn_backend_ops *be = atomic_load_explicit(&chosen, memory_order_acquire);
    if (be && be->default_device)
        return be->default_device(be);
    return device_ordinal;
}

const char *ufn_backend(void)
{
    const ufn_backend_ops *be = ufn_active_backend();
    return be ? be->name : NULL;
}

int ufn_device_count(void)
{
    const ufn_backend_ops *be;
    int st = ufn_get_backend(&be);
    return st < 0 ? st : be->device_count(be);
}

int ufn_set_devices(const int *ordinals, int n)
{
    const ufn_backend_ops *be;
    int st = ufn_get_backend(&be);
    return st < 0 ? st : ufn_devices_set(be, ordinals, n);
}

int ufn_get_devices(int *ordinals, int max)
{
    const ufn_backend_ops *be;
    int st = ufn_get_backend(&be);
    if (st < 0)
        return st;
    if (max < 0 || (max > 0 && !ordinals))
        return ufn_fail(UFN_ERR_INVALID, "ufn_get_devices: %s", max < 0 ? "max is negative"
                                                                : "the ordinal buffer is NULL");
    int set[UFN_MAX_SET];
    int n = ufn_mask_devices(ufn_device_mask(), set);
    if (n == 0)
        set[n++] = ufn_current_device();
    for (int i = 0; i < n && i < max; i++)
        ordinals[i] = set[i];
    return n;
}

int ufn_synchronize(void)
{
    const ufn_backend_ops *be;
    int st = ufn_get_backend(&be);
    if (st < 0)
        return st;
    return be->synchronize ? be->synchronize(be) : UFN_OK;
}
