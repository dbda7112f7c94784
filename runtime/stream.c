/* stream.c - streams, as checked handles.
 *
 * A ufn_stream the program holds is not a pointer but a handle: a slot of
 * the table below and the slot's generation, packed into the pointer-sized
 * value (NULL stays the default stream).  Every function that takes one
 * looks it up first, so a destroyed stream, one destroyed twice, or a value
 * nobody made is refused with UFN_ERR_INVALID instead of dereferenced - as
 * freed arrays are refused with UFN_ERR_FREED.  Destroying a stream bumps
 * its slot's generation, so a new stream in the same slot does not bring
 * the old handle back to life.
 *
 * The backends see the stream object itself (ufn_stream_impl); the calls
 * find the thread's current one with ufn_current_stream().
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ufnrt.h"

#define SLOT_BITS 24     /* the low bits of a handle: slot + 1 */

typedef struct slot {
    ufn_stream_impl *obj;    /* NULL: free */
    uint32_t gen;
} slot;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static slot *table;
static size_t cap;
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

static _Thread_local ufn_stream current_stream;

/* The table's lock is never held while calling out: fork() takes it alone. */
static void fork_prepare(void)
{
    pthread_mutex_lock(&lock);
}

static void fork_release(void)
{
    pthread_mutex_unlock(&lock);
}

static void register_atfork(void)
{
    pthread_atfork(fork_prepare, fork_release, fork_release);
}

static ufn_stream handle_of(size_t i, uint32_t gen)
{
    return (ufn_stream)(uintptr_t)(((uint64_t)gen << SLOT_BITS | (i + 1)) & UINTPTR_MAX);
}

/* A new slot for obj; lock held.  Its handle, or NULL when out of memory. */
static ufn_stream insert(ufn_stream_impl *obj)
{
    size_t i = 0;
    while (i < cap && table[i].obj)
        i++;
    if (i == cap) {
        size_t ncap = cap ? 2 * cap : 16;
        if (ncap >= ((size_t)1 << SLOT_BITS) - 1)
            return NULL;
        slot *t = realloc(table, ncap * sizeof *t);
        if (!t)
            return NULL;
        memset(t + cap, 0, (ncap - cap) * sizeof *t);
        table = t;
        cap = ncap;
    }
    table[i].obj = obj;
    return handle_of(i, table[i].gen);
}

/* The slot of a live handle, or -1; lock held. */
static long find(ufn_stream h)
{
    uint64_t v = (uint64_t)(uintptr_t)h;
    uint64_t i = (v & (((uint64_t)1 << SLOT_BITS) - 1)) - 1;
    if (!v || i >= cap || !table[i].obj || handle_of(i, table[i].gen) != h)
        return -1;
    return (long)i;
}

static int refuse(const char *what)
{
    return ufn_fail(UFN_ERR_INVALID, "%s: the stream was destroyed already, or was never made by "
                    "ufn_stream_create", what);
}

/* The object of handle h (NULL for the default stream); false if h is not
 * a live stream. */
static bool lookup(ufn_stream h, ufn_stream_impl **out)
{
    *out = NULL;
    if (!h)
        return true;
    pthread_mutex_lock(&lock);
    long i = find(h);
    if (i >= 0)
        *out = table[i].obj;
    pthread_mutex_unlock(&lock);
    return i >= 0;
}

int ufn_current_stream(ufn_stream_impl **out)
{
    if (lookup(current_stream, out))
        return UFN_OK;
    return ufn_fail(UFN_ERR_INVALID, "the current stream (ufn_set_stream) was destroyed, or was "
                    "never made by ufn_stream_create");
}

ufn_stream_impl *ufn_current_stream_or_default(void)
{
    ufn_stream_impl *s;
    if (ufn_current_stream(&s) < 0) {
        ufn_clear_error();
        s = NULL;
    }
    return s;
}

int ufn_stream_register(ufn_stream_impl *s, ufn_stream *out)
{
    pthread_once(&atfork_once, register_atfork);
    pthread_mutex_lock(&lock);
    ufn_stream h = insert(s);
    pthread_mutex_unlock(&lock);
    if (!h)
        return ufn_fail(UFN_ERR_NOMEM, "out of host memory for a stream handle");
    *out = h;
    return UFN_OK;
}

int ufn_stream_create(ufn_stream *stream)
{
    if (!stream)
        return ufn_fail(UFN_ERR_INVALID, "ufn_stream_create: the stream pointer is NULL");
    const ufn_backend_ops *be;
    int st = ufn_get_backend(&be);
    if (st < 0)
        return st;
    ufn_stream_impl *s = calloc(1, sizeof *s);
    if (!s)
        return ufn_fail(UFN_ERR_NOMEM, "ufn_stream_create: out of host memory");
    s->backend = be;
    if (be->stream_create && (st = be->stream_create(be, s)) < 0) {
        free(s);
        return st;
    }
    if ((st = ufn_stream_register(s, stream)) < 0) {
        if (be->stream_destroy)
            be->stream_destroy(be, s);
        free(s);
        return ufn_fail_prefix(st, "ufn_stream_create");
    }
    return UFN_OK;
}

int ufn_stream_destroy(ufn_stream stream)
{
    if (!stream)
        return UFN_OK;      /* the default stream is never destroyed */
    pthread_mutex_lock(&lock);
    long i = find(stream);
    ufn_stream_impl *s = NULL;
    if (i >= 0) {
        s = table[i].obj;
        table[i].obj = NULL;
        table[i].gen++;
    }
    pthread_mutex_unlock(&lock);
    if (!s)
        return refuse("ufn_stream_destroy");
    if (current_stream == stream)
        current_stream = NULL;
    int st = s->backend->stream_destroy ? s->backend->stream_destroy(s->backend, s) : UFN_OK;
    free(s);
    return st;
}

int ufn_stream_synchronize(ufn_stream stream)
{
    ufn_stream_impl *s;
    if (!lookup(stream, &s))
        return refuse("ufn_stream_synchronize");
    int st;
    const ufn_backend_ops *be;
    if (s) {
        be = s->backend;
    } else if ((st = ufn_get_backend(&be)) < 0) {
        return st;
    }
    return be->stream_synchronize ? be->stream_synchronize(be, s) : UFN_OK;
}

void ufn_set_stream(ufn_stream stream)
{
    current_stream = stream;
}

ufn_stream ufn_get_stream(void)
{
    return current_stream;
}
