/* cuda_test.h - what the tests of the CUDA backend over the simulator share
 * (test_cuda_backend.c, test_cuda_hardening.c): the backend, a trace log,
 * plans built by hand as call.c would build them, and device arrays.  The
 * helpers are static inline: a test that does not use one gets no warning. */
#ifndef CUDA_TEST_H
#define CUDA_TEST_H

#include <pthread.h>

#include "cuda/cudrv.h"
#include "sim_module.h"

static const ufn_backend_ops *be;

/* ---- trace log -------------------------------------------------------------------- */

#define MAX_EVENTS 100000

static struct {
    ufn_event ev[MAX_EVENTS];
    int n;
} tlog;

/* Events come from every thread that works for a call (a call split over
 * several devices has one per device). */
static pthread_mutex_t tlog_lock = PTHREAD_MUTEX_INITIALIZER;

static inline void hook(const ufn_event *ev, void *ctx)
{
    (void)ctx;
    pthread_mutex_lock(&tlog_lock);
    if (tlog.n < MAX_EVENTS)
        tlog.ev[tlog.n++] = *ev;
    pthread_mutex_unlock(&tlog_lock);
}

static inline void trace_start(void)
{
    tlog.n = 0;
    ufn_set_trace_hook(hook, NULL);
}

static inline void trace_stop(void)
{
    ufn_set_trace_hook(NULL, NULL);
}

static inline int count(ufn_event_kind kind)
{
    int c = 0;
    for (int i = 0; i < tlog.n; i++)
        c += tlog.ev[i].kind == kind;
    return c;
}

static inline size_t total(ufn_event_kind kind)
{
    size_t c = 0;
    for (int i = 0; i < tlog.n; i++)
        if (tlog.ev[i].kind == kind)
            c += tlog.ev[i].bytes;
    return c;
}

/* The largest launch (elements) in the log. */
static inline size_t largest_launch(void)
{
    size_t m = 0;
    for (int i = 0; i < tlog.n; i++)
        if (tlog.ev[i].kind == UFN_EV_LAUNCH && tlog.ev[i].bytes > m)
            m = tlog.ev[i].bytes;
    return m;
}

/* ---- plans and arrays ------------------------------------------------------------------ */

static inline int dtype_size(ufn_dtype t)
{
    switch (t) {
    case UFN_BOOL: case UFN_INT8: case UFN_UINT8: return 1;
    case UFN_INT16: case UFN_UINT16: return 2;
    case UFN_INT32: case UFN_UINT32: case UFN_FLOAT32: return 4;
    case UFN_COMPLEX128: return 16;
    default: return 8;
    }
}

static inline void plan_init(ufn_plan *p, const ufn_func *f, ufn_memory mem, int device, int ndim,
                      const int64_t *shape)
{
    memset(p, 0, sizeof *p);
    p->func = f;
    p->loop = &f->loops[0];
    p->nargs = f->nin + f->nout;
    p->memory = mem;
    p->device = device;
    p->ndim = ndim;
    p->n = 1;
    for (int d = 0; d < ndim; d++) {
        p->shape[d] = shape[d];
        p->n *= shape[d];
    }
    for (int k = 0; k < p->nargs; k++)
        p->elsize[k] = dtype_size(p->loop->types[k]);
}

/* Operand k: its data and element strides (NULL: C-contiguous over the loop). */
static inline void plan_arg(ufn_plan *p, int k, void *data, const int64_t *strides)
{
    p->data[k] = data;
    int64_t s = 1;
    for (int d = p->ndim - 1; d >= 0; d--) {
        p->strides[k][d] = strides ? strides[d] : s;
        s *= p->shape[d];
    }
}

static inline void *to_dev(const void *host, size_t bytes, int device)
{
    void *d = NULL;
    assert_int_equal(be->alloc(be, device, bytes, NULL, &d), 0);
    assert_int_equal(be->copy_h2d(be, device, d, host, bytes, NULL), 0);
    return d;
}

static inline void *dev_alloc(size_t bytes, int device)
{
    void *d = NULL;
    assert_int_equal(be->alloc(be, device, bytes, NULL, &d), 0);
    return d;
}

static inline void from_dev(void *host, const void *dev, size_t bytes, int device)
{
    assert_int_equal(be->copy_d2h(be, device, host, dev, bytes, NULL), 0);
}

static inline float *floats(size_t n, float scale)
{
    float *a = malloc(n * sizeof *a);
    for (size_t i = 0; i < n; i++)
        a[i] = (float)i * scale + 0.25f;
    return a;
}

static inline int setup(void **state)
{
    (void)state;
    be = ufn_sim_backend();
    return be ? 0 : -1;
}

static inline int teardown_each(void **state)
{
    (void)state;
    trace_stop();
    ufn_cuda_set_split_limit(0);
    ufn_cuda_set_stage_bytes(0);
    ufn_sim_set_latency(0);
    ufn_sim_inject_failure(NULL, 0, 0);
    return 0;
}

#endif /* CUDA_TEST_H */
