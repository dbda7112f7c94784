/* multi_devices.c - the devices a process spreads its work over.
 *
 * By default a call runs on one device, the default one (UFN_DEVICE).  A
 * device set - UFN_DEVICES=all or a list such as 0,2, or ufn_set_devices() -
 * makes host-array calls split into one slab per device of the set
 * (multi_split.c) and new sharded arrays spread over it (multi_shard.c).
 *
 * The set is a mask of ordinals below 64 in one atomic word, read by every
 * host-array call without a lock; 0 means "none set: the default device".
 * Ordinals are checked against the backend's device count when the set is
 * made.  The host backend has one device, the CPU, whose threads are its
 * parallelism: there, ordinals are accepted and the set stays empty, so a
 * program written for several GPUs runs unchanged.
 *
 * backend.c reads UFN_DEVICES when it chooses the backend (a value that
 * means nothing fails the choice, as a bad UFN_BACKEND does) and holds the
 * public functions; this file calls nothing above error.c.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ufnrt.h"

static _Atomic uint64_t device_mask;

static int count_of(const ufn_backend_ops *be)
{
    return be->device_memory == UFN_MEM_DEVICE ? be->device_count(be) : 1;
}

static int check_ordinal(const ufn_backend_ops *be, long v, const char *origin)
{
    if (v < 0 || v >= UFN_MAX_SET)
        return ufn_fail(UFN_ERR_INVALID, "%s: device %ld is not an ordinal from 0 to %d", origin,
                        v, UFN_MAX_SET - 1);
    int n = count_of(be);
    if (be->device_memory == UFN_MEM_DEVICE && v >= n)
        return ufn_fail(UFN_ERR_NO_DEVICE, "%s: no %s device %ld: there %s %d (0 to %d)", origin,
                        be->name, v, n == 1 ? "is" : "are", n, n - 1);
    return UFN_OK;
}

/* The mask for a set; the host backend's is always empty. */
static uint64_t store(const ufn_backend_ops *be, uint64_t mask)
{
    if (be->device_memory != UFN_MEM_DEVICE)
        mask = 0;
    atomic_store_explicit(&device_mask, mask, memory_order_release);
    return mask;
}

int ufn_devices_set(const ufn_backend_ops *be, const int *ordinals, int n)
{
    static const char origin[] = "ufn_set_devices";
    if (n < 0)
        return ufn_fail(UFN_ERR_INVALID, "%s: a negative number of devices (%d)", origin, n);
    if (n > 0 && !ordinals)
        return ufn_fail(UFN_ERR_INVALID, "%s: the list of ordinals is NULL", origin);
    uint64_t mask = 0;
    for (int i = 0; i < n; i++) {
        int st = check_ordinal(be, ordinals[i], origin);
        if (st < 0)
            return st;
        mask |= (uint64_t)1 << ordinals[i];
    }
    store(be, mask);
    return UFN_OK;
}

int ufn_devices_configure(const ufn_backend_ops *be)
{
    const char *env = getenv("UFN_DEVICES");
    if (!env || !*env) {
        store(be, 0);
        return UFN_OK;
    }
    char origin[80];
    snprintf(origin, sizeof origin, "UFN_DEVICES=%.40s", env);
    uint64_t mask = 0;
    if (strcmp(env, "all") == 0) {
        int n = count_of(be);
        for (int i = 0; i < n && i < UFN_MAX_SET; i++)
            mask |= (uint64_t)1 << i;
        store(be, mask);
        return UFN_OK;
    }
    for (const char *p = env;;) {
        char *end;
        errno = 0;
        long v = strtol(p, &end, 10);
        if (end == p || errno || (*end && *end != ','))
            return ufn_fail(UFN_ERR_INVALID, "%s is neither \"all\" nor a list of device "
                            "ordinals such as 0,1,3", origin);
        int st = check_ordinal(be, v, origin);
        if (st < 0)
            return st;
        mask |= (uint64_t)1 << v;
        if (!*end)
            break;
        p = end + 1;
    }
    store(be, mask);
    return UFN_OK;
}

uint64_t ufn_device_mask(void)
{
    return atomic_load_explicit(&device_mask, memory_order_acquire);
}

int ufn_mask_devices(uint64_t mask, int *ordinals)
{
    int n = 0;
    for (int i = 0; i < UFN_MAX_SET; i++)
        if (mask & ((uint64_t)1 << i))
            ordinals[n++] = i;
    return n;
}

void ufn_block_range(int64_t n, int parts, int part, int64_t *first, int64_t *count)
{
    if (n < 0 || parts < 1 || part < 0 || part >= parts) {
        *first = *count = 0;
        return;
    }
    int64_t q = n / parts, r = n % parts;
    *count = q + (part < r);
    *first = part * q + (part < r ? part : r);
}
