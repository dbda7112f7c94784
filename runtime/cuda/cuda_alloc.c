/* cuda_alloc.c - the caching device allocator.
 *
 * cuMemAlloc and cuMemFree are slow (and cuMemFree synchronises the device),
 * so a freed block goes to a free list of its size class and the next
 * request of that class takes it back.  Requests round up to a class: four
 * classes per power of two (at most 25% slack) up to UFN_CACHE_LARGE, and
 * multiples of 2 MiB above, where a free block is reused when it is at most
 * an eighth larger than asked.  The cache keeps everything until the driver
 * runs out of memory; then it gives the free blocks back and retries once.
 *
 * A block freed while queued work may still use it must not be handed out
 * before that work is done.  Frees are stream-ordered: free records an
 * event on the stream the block was last used on (the caller's), and a
 * request for use on that same stream takes the block back at once - the
 * stream's order keeps the new work behind the old - while a request for
 * another stream waits for the event first.  (An event on the legacy
 * default stream instead would make every stream wait at every free.)
 *
 * Blocks handed out are kept in a hash by address, so that free knows their
 * size.  One lock per device guards all of it.
 */
#include <stdlib.h>

#include "cudrv.h"

struct cuda_block {
    cuda_block *next;        /* hash chain while live, free list while cached */
    CUdeviceptr ptr;
    size_t size;             /* what cuMemAlloc was asked for */
    size_t bytes;            /* what the caller asked for, while live: the trace
                                reports the same size at free as at alloc */
    CUevent freed;           /* recorded at free; reuse waits for it (or NULL) */
    CUstream freed_on;       /* ... on this stream, whose own work needs no wait */
};

#define LARGE_STEP ((size_t)2 << 20)
#define MIN_CLASS ((size_t)512)
#define MAX_BYTES ((size_t)1 << 48)

/* The class of a request: its index in free_small, or -1 above the
 * small limit; *size is the rounded size. */
static int size_class(size_t bytes, size_t *size)
{
    if (bytes <= MIN_CLASS) {
        *size = MIN_CLASS;
        return 0;
    }
    if (bytes > UFN_CACHE_LARGE) {
        *size = (bytes + LARGE_STEP - 1) / LARGE_STEP * LARGE_STEP;
        return -1;
    }
    int k = 63 - __builtin_clzll((unsigned long long)(bytes - 1));  /* 2^k < bytes <= 2^(k+1) */
    size_t base = (size_t)1 << k, quarter = base / 4;
    size_t sub = (bytes - base + quarter - 1) / quarter;               /* 1..4 */
    *size = base + sub * quarter;
    return 4 * k + (int)sub - 4 * 9;   /* 512 = 2^9 is class 0 */
}

size_t cuda_cache_class_size(size_t bytes)
{
    size_t size;
    size_class(bytes, &size);
    return size;
}

/* ---- the hash of live blocks --------------------------------------------------- */

static size_t bucket_of(const cuda_cache *c, CUdeviceptr p)
{
    return (size_t)(((p >> 8) * 0x9e3779b97f4a7c15ull) >> 32) & (c->nbuckets - 1);
}

static bool live_grow(cuda_cache *c)
{
    size_t n = c->nbuckets ? 2 * c->nbuckets : 64;
    cuda_block **buckets = calloc(n, sizeof *buckets);
    if (!buckets)
        return false;
    cuda_block **old = c->live;
    size_t nold = c->nbuckets;
    c->live = buckets;
    c->nbuckets = n;
    for (size_t i = 0; i < nold; i++) {
        for (cuda_block *blk = old[i], *next; blk; blk = next) {
            next = blk->next;
            size_t h = bucket_of(c, blk->ptr);
            blk->next = buckets[h];
            buckets[h] = blk;
        }
    }
    free(old);
    return true;
}

static bool live_add(cuda_cache *c, cuda_block *blk)
{
    if (c->nlive >= c->nbuckets && !live_grow(c) && c->nbuckets == 0)
        return false;
    size_t h = bucket_of(c, blk->ptr);
    blk->next = c->live[h];
    c->live[h] = blk;
    c->nlive++;
    return true;
}

static cuda_block *live_take(cuda_cache *c, CUdeviceptr p)
{
    if (c->nbuckets == 0)
        return NULL;
    for (cuda_block **link = &c->live[bucket_of(c, p)]; *link; link = &(*link)->next) {
        cuda_block *blk = *link;
        if (blk->ptr == p) {
            *link = blk->next;
            c->nlive--;
            return blk;
        }
    }
    return NULL;
}

/* ---- free lists ---------------------------------------------------------------- */

static cuda_block *cached_take(cuda_cache *c, int cls, size_t size)
{
    cuda_block **link;
    if (cls >= 0) {
        link = &c->free_small[cls];
    } else {
        cuda_block **best = NULL;
        for (link = &c->free_large; *link; link = &(*link)->next) {
            size_t s = (*link)->size;
            if (s >= size && s - size <= size / 8 && (!best || s < (*best)->size))
                best = link;
        }
        link = best;
    }
    if (!link || !*link)
        return NULL;
    cuda_block *blk = *link;
    *link = blk->next;
    c->cached_bytes -= blk->size;
    return blk;
}

static void cached_put(cuda_cache *c, cuda_block *blk)
{
    size_t size;
    int cls = size_class(blk->size, &size);
    cuda_block **list = cls >= 0 ? &c->free_small[cls] : &c->free_large;
    blk->next = *list;
    *list = blk;
    c->cached_bytes += blk->size;
}

/* Spare events, so that a free does not create one each time. */
static CUevent event_get(cuda_backend *b, cuda_cache *c)
{
    if (c->nevents > 0)
        return c->events[--c->nevents];
    CUevent e = NULL;
    if (b->drv->cuEventCreate(&e, CU_EVENT_DISABLE_TIMING) != CUDA_SUCCESS)
        return NULL;   /* NULL too if it said success but made none: free waits instead */
    return e;
}

static void event_put(cuda_backend *b, cuda_cache *c, CUevent e)
{
    if (!e)
        return;
    if (c->nevents == c->cap_events) {
        int cap = c->cap_events ? 2 * c->cap_events : 16;
        CUevent *events = realloc(c->events, (size_t)cap * sizeof *events);
        if (!events) {
            b->drv->cuEventDestroy(e);
            return;
        }
        c->events = events;
        c->cap_events = cap;
    }
    c->events[c->nevents++] = e;
}

/* ---- allocation ------------------------------------------------------------------ */

static int out_of_memory(cuda_backend *b, cuda_device *d, CUresult r, size_t bytes)
{
    size_t free_bytes = 0, total = 0;
    b->drv->cuMemGetInfo(&free_bytes, &total);
    return ufn_fail(UFN_ERR_DEVICE_NOMEM,
                    "cuMemAlloc(%zu bytes) failed: %s (%s) on %s device %d (%s), which has "
                    "%zu of %zu bytes free",
                    bytes, ufn_cudrv_error_name(b->drv, r), ufn_cudrv_error_text(b->drv, r),
                    b->drv->name, d->ordinal, d->name, free_bytes, total);
}

int cuda_cache_alloc(cuda_backend *b, cuda_device *d, size_t bytes, CUstream s, CUdeviceptr *ptr)
{
    const ufn_cudrv *drv = b->drv;
    if (bytes > MAX_BYTES)
        return out_of_memory(b, d, CUDA_ERROR_OUT_OF_MEMORY, bytes);
    uint64_t t0 = ufn_trace_clock();
    size_t size;
    int cls = size_class(bytes, &size);

    pthread_mutex_lock(&d->lock);
    cuda_block *blk = cached_take(&d->cache, cls, size);
    pthread_mutex_unlock(&d->lock);
    const char *how = "cache";
    if (blk) {
        if (blk->freed) {
            CUresult r = blk->freed_on == s ? CUDA_SUCCESS : drv->cuEventSynchronize(blk->freed);
            pthread_mutex_lock(&d->lock);
            event_put(b, &d->cache, blk->freed);
            pthread_mutex_unlock(&d->lock);
            blk->freed = NULL;
            if (r != CUDA_SUCCESS) {
                pthread_mutex_lock(&d->lock);
                cached_put(&d->cache, blk);
                pthread_mutex_unlock(&d->lock);
                return ufn_cudrv_fail(drv, r, "cuEventSynchronize (reusing a device block)");
            }
        }
    } else {
        how = NULL;
        blk = malloc(sizeof *blk);
        if (!blk)
            return ufn_fail(UFN_ERR_NOMEM, "out of host memory allocating device memory");
        *blk = (cuda_block){ .size = size };
        CUresult r = drv->cuMemAlloc(&blk->ptr, size);
        if (r == CUDA_ERROR_OUT_OF_MEMORY) {
            cuda_cache_release(b, d);
            r = drv->cuMemAlloc(&blk->ptr, size);
        }
        if (r == CUDA_SUCCESS && !blk->ptr)
            r = UFN_CUDA_NO_RESULT;
        if (r != CUDA_SUCCESS) {
            free(blk);
            if (r == CUDA_ERROR_OUT_OF_MEMORY)
                return out_of_memory(b, d, r, bytes);
            return ufn_cudrv_fail(drv, r, "cuMemAlloc(%zu bytes)", bytes);
        }
    }
    blk->bytes = bytes;
    pthread_mutex_lock(&d->lock);
    bool ok = live_add(&d->cache, blk);
    if (!ok)
        cached_put(&d->cache, blk);
    pthread_mutex_unlock(&d->lock);
    if (!ok)
        return ufn_fail(UFN_ERR_NOMEM, "out of host memory allocating device memory");
    *ptr = blk->ptr;
    cuda_trace_since(b, UFN_EV_ALLOC, how, bytes, d->ordinal, t0);
    return 0;
}

void cuda_cache_free(cuda_backend *b, cuda_device *d, CUdeviceptr ptr, CUstream s)
{
    pthread_mutex_lock(&d->lock);
    cuda_block *blk = live_take(&d->cache, ptr);
    size_t bytes = blk ? blk->bytes : 0;   /* once cached, the block is another thread's */
    if (blk) {
        blk->freed = event_get(b, &d->cache);
        blk->freed_on = s;
        if (blk->freed && b->drv->cuEventRecord(blk->freed, s) != CUDA_SUCCESS) {
            event_put(b, &d->cache, blk->freed);
            blk->freed = NULL;
        }
        if (!blk->freed)
            b->drv->cuCtxSynchronize();   /* no event: wait here instead */
        cached_put(&d->cache, blk);
    }
    pthread_mutex_unlock(&d->lock);
    if (blk)
        cuda_trace(b, UFN_EV_FREE, NULL, bytes, d->ordinal);
}

void cuda_cache_release(cuda_backend *b, cuda_device *d)
{
    pthread_mutex_lock(&d->lock);
    cuda_block *list = NULL;
    for (int i = 0; i < (int)(sizeof d->cache.free_small / sizeof d->cache.free_small[0]); i++) {
        cuda_block *blk;
        while ((blk = d->cache.free_small[i]) != NULL) {
            d->cache.free_small[i] = blk->next;
            blk->next = list;
            list = blk;
        }
    }
    for (cuda_block *blk; (blk = d->cache.free_large) != NULL;) {
        d->cache.free_large = blk->next;
        blk->next = list;
        list = blk;
    }
    d->cache.cached_bytes = 0;
    pthread_mutex_unlock(&d->lock);

    for (cuda_block *blk = list, *next; blk; blk = next) {
        next = blk->next;
        b->drv->cuMemFree(blk->ptr);   /* waits for the device */
        if (blk->freed) {
            pthread_mutex_lock(&d->lock);
            event_put(b, &d->cache, blk->freed);
            pthread_mutex_unlock(&d->lock);
        }
        free(blk);
    }
}
