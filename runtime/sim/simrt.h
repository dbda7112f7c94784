/* simrt.h - the simulator's internal header, shared by sim.c (the driver's
 * entry points) and queue.c (streams, events and the work they queue).
 *
 * The simulated GPU is as asynchronous as a real one: every stream has a
 * thread of its own that runs the stream's work in order, while the host
 * thread that queued it goes on.  What waits for what is the driver's rule:
 *
 *   - a stream runs its operations one after another, in the order queued;
 *   - the legacy default stream (the NULL CUstream) of a device waits for
 *     the work queued before it on every blocking stream of that device, and
 *     they wait for the work queued before theirs on it; streams created
 *     with CU_STREAM_NON_BLOCKING wait for nothing but their own;
 *   - cuStreamWaitEvent waits for the cuEventRecord last queued before it;
 *   - cuStreamSynchronize, cuCtxSynchronize and cuEventSynchronize block the
 *     host until what they name has run.
 *
 * Every operation gets a number from one process-wide counter when it is
 * queued; "the work queued before" is work with a smaller number, so waits
 * only ever point back in time and cannot deadlock.
 */
#ifndef UFN_SIMRT_H
#define UFN_SIMRT_H

#include <pthread.h>

#include "cuda/cudrv.h"
#include "ufn_sim.h"   /* dim3 */

#define SIM_MAX_DEVICES 64

typedef struct sim_op sim_op;
typedef void (*sim_work)(sim_op *op);

typedef enum sim_op_kind {
    SIM_WORK,       /* run(op): a copy or a launch */
    SIM_RECORD,     /* an event is reached */
    SIM_WAIT        /* wait until an event's record `gen` is reached */
} sim_op_kind;

/* One operation queued on a stream.  data[] holds the work's own arguments
 * (copied when it was queued, as the driver copies kernel parameters). */
struct sim_op {
    sim_op *next;
    sim_op_kind kind;
    uint64_t seq;               /* the process-wide order of queueing */
    uint64_t ready_ns;          /* not started before (ufn_sim_set_latency) */
    sim_work run;
    struct CUevent_st *event;   /* SIM_RECORD, SIM_WAIT (holds a reference) */
    uint64_t gen;
    void *heap;                 /* freed with the op */
    _Alignas(16) unsigned char data[];
};

/* Handle checks: every object starts with a tag. */
enum {
    TAG_STREAM = 0x5354524d,
    TAG_EVENT = 0x45564e54,
    TAG_LIBRARY = 0x4c494252,
    TAG_KERNEL = 0x4b45524e,
    TAG_FUNCTION = 0x46554e43,
    TAG_DEAD = 0x44454144
};

struct CUstream_st {
    unsigned tag;
    int device;
    bool legacy;                /* the device's NULL stream */
    bool blocking;              /* synchronises with the legacy stream */
    bool dying;                 /* destroyed: freed once its work has run */
    bool started;               /* its thread exists */
    sim_op *head, *tail;        /* queued; head is running or next */
    struct CUstream_st *next;   /* the device's streams */
};

struct CUevent_st {
    unsigned tag;
    int refs;                   /* the handle, and each queued op naming it */
    uint64_t recorded;          /* records queued */
    uint64_t reached;           /* records run */
};

/* ---- grid.c ----------------------------------------------------------------------- */

/* An operation that runs kernel over the grid, holding a copy of the launch's
 * parameters; NULL when out of memory. */
sim_op *sq_launch_op(const ufn_sim_kernel *kernel, dim3 grid, dim3 block, void **params);

/* ---- queue.c ------------------------------------------------------------------ */

/* A zeroed operation with `bytes` of data; NULL when out of memory. */
sim_op *sq_op_new(size_t bytes);
/* Queue op on stream s (NULL: the device's legacy stream) and return its
 * number; the stream owns op from here on. */
CUresult sq_submit(CUstream s, int device, sim_op *op, uint64_t *seq);
/* Block until the operation numbered seq, queued on s, has run. */
void sq_wait_op(CUstream s, int device, uint64_t seq);

CUresult sq_stream_new(int device, unsigned flags, CUstream *out);
void sq_stream_release(CUstream s);
/* Until the work queued on s so far has run (NULL: the legacy stream, with
 * what it waits for). */
void sq_stream_sync(CUstream s, int device);
/* Until every stream of the device (-1: of every device) is idle. */
void sq_device_sync(int device);

CUresult sq_event_new(CUevent *out);
void sq_event_release(CUevent e);
CUresult sq_event_record(CUevent e, CUstream s, int device);
CUresult sq_event_wait(CUstream s, int device, CUevent e);
void sq_event_sync(CUevent e);

/* fork(): the queues' lock (see ufn_fork_phase). */
void sq_fork(ufn_fork_phase phase);
/* Operations queued on the device's streams and not yet run. */
uint64_t sq_pending(int device);
void sq_set_latency_ns(uint64_t ns);

#endif /* UFN_SIMRT_H */
