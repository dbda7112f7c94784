/* simt.h - the cooperative thread engine's internal header: how the threads
 * of a CUDA block run on one CPU thread.
 *
 * The simulated driver (sim.c) and the host backend's fiber form
 * (host/kernel_host.c) run kernels through it; generated code reaches it
 * through the ufn_sim_* functions that ufn_sim.h declares.  Sections, lowest
 * first (each file calls only those above it):
 *
 *   fiber.c     contexts with their own stacks and a hand-written switch
 *               (x86-64, aarch64; ucontext elsewhere), annotated for ASan
 *               and TSan
 *   simcheck.c  the shared-memory race detector: shadow memory per byte,
 *               tagged with the barrier interval (epoch) of its accesses
 *   simt.c      the engine: blocks thread after thread (no barriers) or as
 *               fibers (barriers, warp functions), the barrier, warp
 *               exchanges, bounds and synchronisation checks, reports
 */
#ifndef UFN_SIMT_H
#define UFN_SIMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ufn_abi.h"

/* ==== fiber.c ===================================================================== */

typedef void (*ufn_fiber_fn)(void *arg);

/* A context: a saved stack pointer, and the stack it runs on.  A fiber made
 * by ufn_fiber_make starts in fn(arg), which must never return: it ends with
 * ufn_fiber_exit.  The thread's own context (stack == NULL) needs no making:
 * zero it and switch away from it. */
typedef struct ufn_fiber {
    void *sp;                  /* saved stack pointer while switched out */
    char *stack;               /* lowest usable byte (a guard page lies below); NULL: the thread's */
    size_t size;
    ufn_fiber_fn fn;
    void *arg;
    bool dirty;                /* left in the middle of a frame: unpoison before reuse (ASan) */
    void *fake_stack;          /* ASan's fake stack, saved while switched out */
    const void *asan_bottom;   /* the stack as ASan knows it (the thread's: learnt on first switch) */
    size_t asan_size;
    void *tsan;                /* TSan's fiber object */
    void *uc;                  /* ucontext_t, in the fallback build */
} ufn_fiber;

/* Stacks for n fibers, each `size` usable bytes above a PROT_NONE guard page
 * (where the kernel allows as many mappings; else without), reserved but not
 * committed until touched. */
typedef struct ufn_stacks {
    char *base;
    size_t bytes;              /* of the whole mapping */
    size_t stride;             /* guard + stack */
    size_t size;               /* usable bytes of each */
    int n;
    unsigned *valgrind;        /* valgrind's id of each stack (when built with its header) */
} ufn_stacks;

int ufn_stacks_alloc(ufn_stacks *s, int n, size_t size);
void ufn_stacks_free(ufn_stacks *s);
char *ufn_stack_at(const ufn_stacks *s, int i);

/* Prepare f to start in fn(arg) on [stack, stack + size) at the next switch
 * to it.  The fiber object may be made again after it exited. */
void ufn_fiber_make(ufn_fiber *f, char *stack, size_t size, ufn_fiber_fn fn, void *arg);
/* Save the current context in `from` and continue `to`; returns when some
 * fiber switches back to `from`. */
void ufn_fiber_switch(ufn_fiber *from, ufn_fiber *to);
/* Leave `from` for good (its stack may be reused) and continue `to`. */
_Noreturn void ufn_fiber_exit(ufn_fiber *from, ufn_fiber *to);
/* Release what the sanitizers keep for a fiber that will not run again. */
void ufn_fiber_destroy(ufn_fiber *f);
/* Which switch this build uses: "x86-64", "aarch64" or "ucontext". */
const char *ufn_fiber_kind(void);

/* ==== simcheck.c ==================================================================== */

/* Thread ids in shadow entries are linear ids + 1: 0 is "nobody", MANY is
 * "several threads". */
#define UFN_SHADOW_MANY 0xffffu

/* What the race detector keeps for one byte of shared memory.  An entry
 * speaks only for the barrier interval `epoch`; an older epoch reads as
 * empty, so nothing is ever cleared between intervals or blocks. */
typedef struct ufn_shadow {
    uint32_t epoch;
    uint16_t writer;           /* the last plain writer: 0 or a thread (+1) */
    uint16_t reader;           /* plain reader(s) */
    uint16_t atomic;           /* atomic accessor(s) */
    int16_t reader_warp;       /* the warp of every reader; -1 none yet, -2 several */
    uint32_t wsync;            /* the writer's warp's sync count at the write */
    uint32_t rsync;            /* the least sync count of the readers' warp at a read */
    uint32_t async;            /* ... of the atomic accessor's warp */
    int wline, rline, aline;
    const char *wfile, *rfile, *afile;
} ufn_shadow;

enum { UFN_ACCESS_READ, UFN_ACCESS_WRITE, UFN_ACCESS_ATOMIC };

/* Who accesses: a thread of the block, in the current barrier interval. */
typedef struct ufn_accessor {
    uint32_t thread;           /* linear id in the block */
    uint32_t epoch;
    const uint32_t *warp_syncs;  /* completed warp-synchronising calls, per warp */
    const char *file;
    int line;
} ufn_accessor;

/* A race the detector found: the other access and its site. */
typedef struct ufn_race {
    int kind, other_kind;      /* UFN_ACCESS_* of this access and of the earlier one */
    uint32_t other;            /* linear id of the earlier accessor */
    size_t offset;             /* byte of shared memory */
    const char *file;
    int line;
} ufn_race;

/* Record an access of `n` bytes whose shadow starts at sh (byte `offset` of
 * shared memory); false, with the first conflict in *race, when it races
 * with an access of another thread in the same interval that no warp
 * synchronisation orders. */
bool ufn_shadow_access(ufn_shadow *sh, size_t offset, size_t n, int kind,
                       const ufn_accessor *who, ufn_race *race);
/* The words for an access kind: "read", "write", "atomic". */
const char *ufn_access_name(int kind);

/* ==== simt.c ========================================================================= */

/* What went wrong in a run (ufn_simt_launch.fault). */
enum {
    UFN_SIMT_OK = 0,
    UFN_SIMT_BOUNDS,           /* an index out of bounds (memcheck) */
    UFN_SIMT_RACE,             /* a shared-memory race (racecheck) */
    UFN_SIMT_BARRIER,          /* threads at different barriers, a bad warp mask (synccheck) */
    UFN_SIMT_DEADLOCK,         /* no thread can go on */
    UFN_SIMT_MISUSE,           /* the kernel's table entry does not say what it uses */
    UFN_SIMT_NOMEM             /* no memory for stacks or shadow */
};

/* One run of a kernel over some blocks on the calling thread. */
typedef struct ufn_simt_launch {
    const char *kernel;        /* its name, for reports */
    ufn_sim_entry entry;       /* runs one thread: the trampoline of the kernel */
    void **params;
    uint32_t grid[3], block[3];
    size_t static_shared;      /* bytes; dynamic shared memory starts at UFN_KDYN_OFFSET of it */
    size_t dynamic_shared;
    bool fibers;               /* barriers or warp functions: run the block as fibers */
    bool checks;               /* bounds, races, barrier sites */
    uint64_t first, end;       /* linear block ids (x fastest) to run */
    /* out */
    int fault;                 /* UFN_SIMT_*: the first fault, the run stopped there */
    char report[512];          /* what, where: "out-of-bounds index 8 ..." */
} ufn_simt_launch;

/* Run blocks [first, end) of the launch, one after another, each with its
 * own shared memory.  Returns l->fault.  Thread-safe: every CPU thread has
 * its own engine (stacks, shared memory and shadow are reused between runs). */
int ufn_simt_run(ufn_simt_launch *l);

/* Bytes of stack of each simulated thread: reserved, committed only as far
 * as a thread touches it (a GPU thread has 1 KiB by default). */
#define UFN_SIMT_STACK ((size_t)256 << 10)

#endif /* UFN_SIMT_H */
