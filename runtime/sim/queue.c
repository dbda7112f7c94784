/* queue.c - the simulated GPU's streams and events: work queued on a
 * stream runs on that stream's own thread, in order, while the host goes on
 * (simrt.h has the rules of who waits for whom).
 *
 * One mutex guards every queue and event, and one condition variable says
 * "something ran or was queued": simple, and fast enough for a simulator.
 * A stream's thread starts with its first operation and ends when the
 * stream is destroyed and its queue is empty.  The legacy (NULL) stream of
 * each device is made on first use and lives as long as the process.
 *
 * Nothing here calls sim.c: the work of an operation is a function pointer
 * it carries.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "simrt.h"

#define THREAD_STACK ((size_t)8 << 20)   /* kernels run on these threads */

static struct {
    pthread_mutex_t lock;
    pthread_cond_t changed;      /* an operation was queued or ran */
    bool cond_ready;
    uint64_t seq;                /* the last number handed out */
    uint64_t latency_ns;
    CUstream legacy[SIM_MAX_DEVICES];
    CUstream streams[SIM_MAX_DEVICES];   /* every live stream, by device */
} q = { .lock = PTHREAD_MUTEX_INITIALIZER };

static pthread_once_t cond_once = PTHREAD_ONCE_INIT;

/* The condition variable waits on the monotonic clock (latency deadlines). */
static void make_cond(void)
{
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&q.changed, &attr);
    pthread_condattr_destroy(&attr);
}

static void lock(void)
{
    pthread_once(&cond_once, make_cond);
    pthread_mutex_lock(&q.lock);
}

static void unlock(void)
{
    pthread_mutex_unlock(&q.lock);
}

static uint64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static void wait_until(uint64_t deadline_ns)
{
    struct timespec t = { (time_t)(deadline_ns / 1000000000u), (long)(deadline_ns % 1000000000u) };
    pthread_cond_timedwait(&q.changed, &q.lock, &t);
}

sim_op *sq_op_new(size_t bytes)
{
    return calloc(1, sizeof(sim_op) + bytes);
}

static void nodes_release(sim_nodes *nodes);

/* Lock held. */
static void op_free(sim_op *op)
{
    if (op->event && --op->event->refs == 0)
        free(op->event);
    if (op->graph)
        nodes_release(op->graph);
    free(op->heap);
    free(op);
}

/* Lock held. */
static void nodes_release(sim_nodes *nodes)
{
    if (!nodes || --nodes->refs > 0)
        return;
    for (sim_op *op = nodes->head, *next; op; op = next) {
        next = op->next;
        op_free(op);
    }
    free(nodes);
}

/* ---- who waits for whom (lock held) ------------------------------------------------ */

/* Has stream s work numbered below seq still to run? */
static bool busy_before(CUstream s, uint64_t seq)
{
    return s && s->head && s->head->seq < seq;
}

/* Has any blocking stream of the device (the legacy one too, if `legacy`)
 * work numbered below seq still to run? */
static bool device_busy_before(int device, uint64_t seq, bool legacy)
{
    for (CUstream s = q.streams[device]; s; s = s->next)
        if (s->blocking && busy_before(s, seq))
            return true;
    return legacy && busy_before(q.legacy[device], seq);
}

/* May the head of s start now? */
static bool ready(CUstream s, const sim_op *op)
{
    if (s->legacy && device_busy_before(s->device, op->seq, false))
        return false;
    if (!s->legacy && s->blocking && busy_before(q.legacy[s->device], op->seq))
        return false;
    if (op->kind == SIM_WAIT && op->event->reached < op->gen)
        return false;
    return true;
}

/* ---- a stream's thread ---------------------------------------------------------------- */

static void unlink_stream(CUstream s)
{
    for (CUstream *p = &q.streams[s->device]; *p; p = &(*p)->next)
        if (*p == s) {
            *p = s->next;
            return;
        }
}

static void *stream_main(void *arg)
{
    CUstream s = arg;
    lock();
    for (;;) {
        sim_op *op = s->head;
        if (!op) {
            if (s->dying)
                break;
            pthread_cond_wait(&q.changed, &q.lock);
            continue;
        }
        uint64_t now = op->ready_ns ? now_ns() : 0;
        if (now < op->ready_ns) {
            wait_until(op->ready_ns);
            continue;
        }
        if (!ready(s, op)) {
            pthread_cond_wait(&q.changed, &q.lock);
            continue;
        }
        if (op->kind == SIM_WORK) {
            unlock();
            op->run(op);
            lock();
        } else if (op->kind == SIM_RECORD && op->event->reached < op->gen) {
            op->event->reached = op->gen;
        }
        s->head = op->next;
        if (!s->head)
            s->tail = NULL;
        op_free(op);
        pthread_cond_broadcast(&q.changed);
    }
    unlink_stream(s);
    pthread_cond_broadcast(&q.changed);
    unlock();
    free(s);
    return NULL;
}

/* Start s's thread; lock held. */
static CUresult start(CUstream s)
{
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&attr, THREAD_STACK);
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);   /* the application's signals are not ours */
    pthread_t t;
    int err = pthread_create(&t, &attr, stream_main, s);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_attr_destroy(&attr);
    if (err)
        return CUDA_ERROR_OUT_OF_MEMORY;
    s->started = true;
    return CUDA_SUCCESS;
}

/* ---- streams ------------------------------------------------------------------------------ */

static CUstream stream_alloc(int device, bool legacy, bool blocking)
{
    CUstream s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->tag = TAG_STREAM;
    s->device = device;
    s->legacy = legacy;
    s->blocking = blocking;
    if (!legacy) {
        s->next = q.streams[device];
        q.streams[device] = s;
    }
    return s;
}

CUresult sq_stream_new(int device, unsigned flags, CUstream *out)
{
    lock();
    CUstream s = stream_alloc(device, false, !(flags & CU_STREAM_NON_BLOCKING));
    unlock();
    if (!s)
        return CUDA_ERROR_OUT_OF_MEMORY;
    *out = s;
    return CUDA_SUCCESS;
}

void sq_stream_release(CUstream s)
{
    lock();
    nodes_release(s->capture);   /* a capture still open is dropped */
    s->capture = NULL;
    s->tag = TAG_DEAD;
    s->dying = true;
    bool now = !s->started;
    if (now)
        unlink_stream(s);
    pthread_cond_broadcast(&q.changed);
    unlock();
    if (now)
        free(s);   /* never ran anything; else its thread frees it */
}

/* The stream work on s goes to: s, or the device's legacy stream. */
static CUstream target(CUstream s, int device)
{
    if (s)
        return s;
    if (!q.legacy[device])
        q.legacy[device] = stream_alloc(device, true, true);
    return q.legacy[device];
}

/* Invalidate the captures of the device's blocking streams; were there any?
 * Lock held. */
static bool invalidate_blocking(int device)
{
    bool any = false;
    for (CUstream s = q.streams[device]; s; s = s->next)
        if (s->blocking && s->capture) {
            s->capture_status = CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
            any = true;
        }
    return any;
}

/* Record op into t's capture; lock held. */
static CUresult capture(CUstream t, sim_op *op)
{
    if (t->capture_status != CUDA_SUCCESS) {
        op_free(op);
        return CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
    }
    sim_nodes *n = t->capture;
    if (n->tail)
        n->tail->next = op;
    else
        n->head = op;
    n->tail = op;
    n->count++;
    return CUDA_SUCCESS;
}

CUresult sq_submit(CUstream s, int device, sim_op *op, uint64_t *seq, bool *captured)
{
    lock();
    if (captured)
        *captured = false;
    if (s && s->capture) {
        CUresult r = capture(s, op);
        if (r == CUDA_SUCCESS && captured)
            *captured = true;
        unlock();
        return r;
    }
    if (!s && invalidate_blocking(device)) {
        op_free(op);
        unlock();
        return CUDA_ERROR_STREAM_CAPTURE_IMPLICIT;
    }
    CUstream t = target(s, device);
    CUresult r = !t ? CUDA_ERROR_OUT_OF_MEMORY : t->started ? CUDA_SUCCESS : start(t);
    if (r != CUDA_SUCCESS) {
        op_free(op);
        unlock();
        return r;
    }
    if (op->kind == SIM_RECORD)
        op->gen = ++op->event->recorded;
    else if (op->kind == SIM_WAIT)
        op->gen = op->event->recorded;   /* the record queued last, if any */
    op->seq = ++q.seq;
    op->ready_ns = q.latency_ns ? now_ns() + q.latency_ns : 0;
    if (t->tail)
        t->tail->next = op;
    else
        t->head = op;
    t->tail = op;
    if (seq)
        *seq = op->seq;
    pthread_cond_broadcast(&q.changed);
    unlock();
    return CUDA_SUCCESS;
}

void sq_wait_op(CUstream s, int device, uint64_t seq)
{
    lock();
    CUstream t = target(s, device);
    while (busy_before(t, seq + 1))
        pthread_cond_wait(&q.changed, &q.lock);
    unlock();
}

void sq_stream_sync(CUstream s, int device)
{
    lock();
    uint64_t seq = q.seq + 1;
    if (s) {
        while (busy_before(s, seq))
            pthread_cond_wait(&q.changed, &q.lock);
    } else {
        /* as a marker queued on the legacy stream now would */
        while (device_busy_before(device, seq, true))
            pthread_cond_wait(&q.changed, &q.lock);
    }
    unlock();
}

static bool any_busy(int device, uint64_t seq)
{
    for (CUstream s = q.streams[device]; s; s = s->next)
        if (busy_before(s, seq))
            return true;
    return busy_before(q.legacy[device], seq);
}

void sq_device_sync(int device)
{
    lock();
    uint64_t seq = q.seq + 1;
    for (int d = device < 0 ? 0 : device; d < (device < 0 ? SIM_MAX_DEVICES : device + 1); d++)
        while (any_busy(d, seq))
            pthread_cond_wait(&q.changed, &q.lock);
    unlock();
}

uint64_t sq_pending(int device)
{
    uint64_t n = 0;
    lock();
    for (CUstream s = q.streams[device]; s; s = s->next)
        for (sim_op *op = s->head; op; op = op->next)
            n++;
    if (q.legacy[device])
        for (sim_op *op = q.legacy[device]->head; op; op = op->next)
            n++;
    unlock();
    return n;
}

void sq_fork(ufn_fork_phase phase)
{
    if (phase == UFN_FORK_PREPARE)
        lock();
    else
        unlock();   /* in the child, with the streams' threads gone */
}

void sq_set_latency_ns(uint64_t ns)
{
    lock();
    q.latency_ns = ns;
    unlock();
}

/* ---- events ---------------------------------------------------------------------------------- */

CUresult sq_event_new(CUevent *out)
{
    CUevent e = calloc(1, sizeof *e);
    if (!e)
        return CUDA_ERROR_OUT_OF_MEMORY;
    e->tag = TAG_EVENT;
    e->refs = 1;
    *out = e;
    return CUDA_SUCCESS;
}

void sq_event_release(CUevent e)
{
    lock();
    e->tag = TAG_DEAD;
    bool last = --e->refs == 0;
    unlock();
    if (last)
        free(e);
}

static CUresult event_op(CUevent e, CUstream s, int device, sim_op_kind kind)
{
    sim_op *op = sq_op_new(0);
    if (!op)
        return CUDA_ERROR_OUT_OF_MEMORY;
    op->kind = kind;
    op->event = e;
    lock();
    e->refs++;   /* given back when the op is freed, run or not */
    unlock();
    return sq_submit(s, device, op, NULL, NULL);
}

CUresult sq_event_record(CUevent e, CUstream s, int device)
{
    return event_op(e, s, device, SIM_RECORD);
}

CUresult sq_event_wait(CUstream s, int device, CUevent e)
{
    return event_op(e, s, device, SIM_WAIT);
}

void sq_event_sync(CUevent e)
{
    lock();
    uint64_t gen = e->recorded;
    while (e->reached < gen)
        pthread_cond_wait(&q.changed, &q.lock);
    unlock();
}

/* ---- capture and graphs ------------------------------------------------------------------- */

CUresult sq_capture_begin(CUstream s)
{
    sim_nodes *n = calloc(1, sizeof *n);
    if (!n)
        return CUDA_ERROR_OUT_OF_MEMORY;
    n->refs = 1;
    lock();
    CUresult r = CUDA_SUCCESS;
    if (s->capture) {
        r = CUDA_ERROR_ILLEGAL_STATE;
        free(n);
    } else {
        s->capture = n;
        s->capture_status = CUDA_SUCCESS;
    }
    unlock();
    return r;
}

CUresult sq_capture_end(CUstream s, sim_nodes **nodes)
{
    lock();
    sim_nodes *n = s->capture;
    CUresult r = !n ? CUDA_ERROR_ILLEGAL_STATE : s->capture_status;
    s->capture = NULL;
    if (r != CUDA_SUCCESS) {
        if (n)
            nodes_release(n);
        n = NULL;
        if (r != CUDA_ERROR_ILLEGAL_STATE)
            r = CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
    }
    unlock();
    *nodes = n;
    return r;
}

/* Lock held. */
static CUresult refuse(CUstream s)
{
    if (!s->capture)
        return CUDA_SUCCESS;
    if (s->capture_status != CUDA_SUCCESS)
        return CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
    s->capture_status = CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
    return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
}

CUresult sq_capture_refuse(CUstream s)
{
    if (!s)
        return CUDA_SUCCESS;
    lock();
    CUresult r = refuse(s);
    unlock();
    return r;
}

CUresult sq_capture_refuse_device(int device)
{
    CUresult r = CUDA_SUCCESS;
    lock();
    for (CUstream s = q.streams[device]; s; s = s->next)
        if (s->capture) {
            refuse(s);
            r = CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
        }
    unlock();
    return r;
}

/* A graph launch: every captured operation, in the order captured. */
static void run_graph(sim_op *op)
{
    for (sim_op *node = op->graph->head; node; node = node->next)
        if (node->kind == SIM_WORK)
            node->run(node);
}

CUresult sq_graph_submit(CUstream s, int device, sim_nodes *nodes)
{
    if (s) {
        lock();
        bool capturing = s->capture != NULL;
        unlock();
        if (capturing)   /* a graph inside a graph: not simulated */
            return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
    }
    sim_op *op = sq_op_new(0);
    if (!op)
        return CUDA_ERROR_OUT_OF_MEMORY;
    op->run = run_graph;
    sq_nodes_retain(nodes);
    op->graph = nodes;
    return sq_submit(s, device, op, NULL, NULL);
}

void sq_nodes_retain(sim_nodes *nodes)
{
    lock();
    nodes->refs++;
    unlock();
}

void sq_nodes_release(sim_nodes *nodes)
{
    lock();
    nodes_release(nodes);
    unlock();
}
