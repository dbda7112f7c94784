/* alloc.c - the registry of runtime-owned allocations.
 *
 * Every buffer the runtime hands out (device arrays, outputs it allocates,
 * host buffers of ufn_copy_to_host) is entered here under a fresh 64-bit id
 * that is never reused.  A descriptor carries the id in alloc_id, so a stale
 * descriptor (a copy kept after ufn_free) is recognised by its id and never
 * dereferenced.  The table is an open-addressing hash (linear probing,
 * backward-shift deletion) under one mutex.
 *
 * `memory` records which allocator to give the memory back to:
 * UFN_MEM_DEVICE for the backend's alloc/free (on the host backend that is
 * also host memory), UFN_MEM_HOST for malloc/free, UFN_MEM_SHARDED for the
 * record of a sharded array (ufn_shards_free gives back its parts too).
 */
#include <pthread.h>
#include <stdlib.h>

#include "ufnrt.h"

typedef struct entry {
    uint64_t id;              /* 0: empty slot */
    char *base;
    size_t bytes;
    ufn_memory memory;
    int device;
} entry;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static entry *table;
static size_t cap;            /* a power of two, or 0 */
static size_t count;
static uint64_t next_id = 1;

static size_t slot_of(uint64_t id, size_t mask)
{
    return (size_t)((id * 0x9E3779B97F4A7C15ull) >> 17) & mask;
}

static bool grow(void)
{
    size_t ncap = cap ? cap * 2 : 64;
    entry *nt = calloc(ncap, sizeof *nt);
    if (!nt)
        return false;
    for (size_t i = 0; i < cap; i++) {
        if (!table[i].id)
            continue;
        size_t j = slot_of(table[i].id, ncap - 1);
        while (nt[j].id)
            j = (j + 1) & (ncap - 1);
        nt[j] = table[i];
    }
    free(table);
    table = nt;
    cap = ncap;
    return true;
}

/* The slot holding id, or cap if none.  Call with the lock held. */
static size_t find(uint64_t id)
{
    if (!cap || !id)
        return cap;
    for (size_t j = slot_of(id, cap - 1);; j = (j + 1) & (cap - 1)) {
        if (table[j].id == id)
            return j;
        if (!table[j].id)
            return cap;
    }
}

uint64_t ufn_registry_add(void *base, size_t bytes, ufn_memory memory, int device)
{
    uint64_t id = 0;
    pthread_mutex_lock(&lock);
    if ((count + 1) * 4 <= cap * 3 || grow()) {
        id = next_id++;
        size_t j = slot_of(id, cap - 1);
        while (table[j].id)
            j = (j + 1) & (cap - 1);
        table[j] = (entry){id, base, bytes, memory, device};
        count++;
    }
    pthread_mutex_unlock(&lock);
    if (!id)
        ufn_fail(UFN_ERR_NOMEM, "out of host memory for the allocation registry");
    return id;
}

int ufn_registry_check(uint64_t id, const void *ptr, size_t bytes)
{
    pthread_mutex_lock(&lock);
    size_t j = find(id);
    entry e = j < cap ? table[j] : (entry){0};
    pthread_mutex_unlock(&lock);
    if (!e.id)
        return ufn_fail(UFN_ERR_FREED,
                        "the array was freed or was never allocated by the runtime "
                        "(allocation #%llu is not live)", (unsigned long long)id);
    const char *p = ptr;
    if (p < e.base || bytes > e.bytes || (size_t)(p - e.base) > e.bytes - bytes)
        return ufn_fail(UFN_ERR_INVALID,
                        "the array's elements lie outside its allocation #%llu (%zu bytes)",
                        (unsigned long long)id, e.bytes);
    return UFN_OK;
}

bool ufn_registry_live(uint64_t id)
{
    pthread_mutex_lock(&lock);
    bool live = find(id) < cap;
    pthread_mutex_unlock(&lock);
    return live;
}

void *ufn_registry_remove(uint64_t id, ufn_memory *memory, int *device)
{
    void *base = NULL;
    pthread_mutex_lock(&lock);
    size_t j = find(id);
    if (j < cap) {
        base = table[j].base;
        if (memory)
            *memory = table[j].memory;
        if (device)
            *device = table[j].device;
        /* Backward-shift deletion: pull later entries of the run into the hole. */
        size_t hole = j;
        for (size_t k = (j + 1) & (cap - 1); table[k].id; k = (k + 1) & (cap - 1)) {
            size_t home = slot_of(table[k].id, cap - 1);
            /* k's entry may move to the hole if its home is not in (hole, k]. */
            bool in_range = hole <= k ? (home > hole && home <= k) : (home > hole || home <= k);
            if (!in_range) {
                table[hole] = table[k];
                hole = k;
            }
        }
        table[hole] = (entry){0};
        count--;
    }
    pthread_mutex_unlock(&lock);
    return base;
}

void ufn_registry_fork(ufn_fork_phase phase)
{
    if (phase == UFN_FORK_PREPARE)
        pthread_mutex_lock(&lock);
    else
        pthread_mutex_unlock(&lock);   /* the forking thread took it: in the child too */
}

size_t ufn_registry_count(void)
{
    pthread_mutex_lock(&lock);
    size_t n = count;
    pthread_mutex_unlock(&lock);
    return n;
}
