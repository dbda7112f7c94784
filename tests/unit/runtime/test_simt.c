/* test_simt.c - the thread engine (runtime/sim/simt.c) with kernels written
 * straight against ufn_sim.h: thread coordinates, the barrier and its
 * _count/_and/_or forms, early exits, warp exchanges with full and partial
 * masks, shared memory, and every check: bounds, races (also the shadow
 * rules of simcheck.c on their own), divergent barriers, bad warp masks,
 * deadlocks.  Each kernel takes one parameter, a pointer to its test's
 * state. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "ufn_sim.h"
#include "sim/simt.h"

/* A launch of `entry` over grid x block with state `arg`. */
static ufn_simt_launch launch(ufn_sim_entry entry, void *arg, uint32_t gx, uint32_t bx,
                              uint32_t by, bool fibers)
{
    static void *params[1];
    params[0] = arg;
    ufn_simt_launch l = {
        .kernel = "test",
        .entry = entry,
        .params = params,
        .grid = { gx, 1, 1 },
        .block = { bx, by, 1 },
        .fibers = fibers,
        .checks = true,
        .first = 0,
        .end = gx,
    };
    return l;
}

#define STATE(T) T *st = *(T **)p

static void expect_report(ufn_simt_launch *l, int fault, const char *text)
{
    assert_int_equal(ufn_simt_run(l), fault);
    if (!strstr(l->report, text))
        fail_msg("report \"%s\" lacks \"%s\"", l->report, text);
}

/* ---- coordinates, thread after thread ------------------------------------------------- */

typedef struct coords_state {
    uint32_t seen[4][6][4];    /* [block][thread y][thread x]: 1 + x + 8y + 64b + 1000 dims */
} coords_state;

static void k_coords(void **p)
{
    STATE(coords_state);
    st->seen[blockIdx.x][threadIdx.y][threadIdx.x] +=
        1 + threadIdx.x + 8 * threadIdx.y + 64 * blockIdx.x +
        1000 * (blockDim.x == 4 && blockDim.y == 6 && gridDim.x == 4 && threadIdx.z == 0);
}

static void test_coordinates(void **state)
{
    (void)state;
    coords_state s;
    memset(&s, 0, sizeof s);
    for (int fibers = 0; fibers < 2; fibers++) {
        memset(&s, 0, sizeof s);
        ufn_simt_launch l = launch(k_coords, &s, 4, 4, 6, fibers);
        assert_int_equal(ufn_simt_run(&l), 0);
        for (uint32_t b = 0; b < 4; b++)
            for (uint32_t y = 0; y < 6; y++)
                for (uint32_t x = 0; x < 4; x++)
                    assert_int_equal(s.seen[b][y][x], 1001 + x + 8 * y + 64 * b);
    }
    /* the caller's coordinates are as they were */
    assert_int_equal(blockDim.x, 0);
}

/* ---- the barrier: a tree reduction in shared memory ----------------------------------------- */

typedef struct reduce_state {
    int block;
    int64_t out[8];
} reduce_state;

static void k_reduce(void **p)
{
    STATE(reduce_state);
    UFN_SHARED_ARRAY(int64_t, s, 256, 0);
    uint32_t t = threadIdx.x;
    UFN_STORE(int64_t, &s[t], (int64_t)(blockIdx.x * 1000 + t));
    ufn_syncthreads();
    for (uint32_t half = blockDim.x / 2; half > 0; half /= 2) {
        if (t < half)
            UFN_STORE(int64_t, &s[t], UFN_LOAD(int64_t, &s[t]) + UFN_LOAD(int64_t, &s[t + half]));
        ufn_syncthreads();
    }
    if (t == 0)
        st->out[blockIdx.x] = UFN_LOAD(int64_t, &s[0]);
}

static void test_barrier_reduction(void **state)
{
    (void)state;
    reduce_state s = { 0 };
    ufn_simt_launch l = launch(k_reduce, &s, 8, 256, 1, true);
    l.static_shared = 256 * 8;
    assert_int_equal(ufn_simt_run(&l), 0);
    for (int b = 0; b < 8; b++)
        assert_int_equal(s.out[b], (int64_t)b * 1000 * 256 + 255 * 256 / 2);
}

/* Numba's simulator on 8 threads with pred = t < 5: count 5, and 0, or 1. */
typedef struct pred_state {
    int count[8], all[8], any[8];
} pred_state;

static void k_predicates(void **p)
{
    STATE(pred_state);
    int t = (int)threadIdx.x;
    st->count[t] = ufn_syncthreads_count(t < 5);
    st->all[t] = ufn_syncthreads_and(t < 5);
    st->any[t] = ufn_syncthreads_or(t < 5);
}

static void test_barrier_predicates(void **state)
{
    (void)state;
    pred_state s;
    memset(&s, 0xff, sizeof s);
    ufn_simt_launch l = launch(k_predicates, &s, 1, 8, 1, true);
    assert_int_equal(ufn_simt_run(&l), 0);
    for (int t = 0; t < 8; t++) {
        assert_int_equal(s.count[t], 5);
        assert_int_equal(s.all[t], 0);
        assert_int_equal(s.any[t], 1);
    }
}

/* Threads that returned do not hold a later barrier (sm_70 and later). */
typedef struct early_state {
    int after[64];
} early_state;

static void k_early_exit(void **p)
{
    STATE(early_state);
    int t = (int)threadIdx.x;
    if (t >= 40)
        return;
    ufn_syncthreads();
    st->after[t] = ufn_syncthreads_count(1);
}

static void test_early_exit(void **state)
{
    (void)state;
    early_state s = { { 0 } };
    ufn_simt_launch l = launch(k_early_exit, &s, 3, 64, 1, true);
    assert_int_equal(ufn_simt_run(&l), 0);
    for (int t = 0; t < 64; t++)
        assert_int_equal(s.after[t], t < 40 ? 40 : 0);
}

/* print: block after block, in thread order between two barriers. */
static void k_print(void **p)
{
    int barrier = **(int **)p;
    printf("a%u.%u ", blockIdx.x, threadIdx.x);
    if (barrier)
        ufn_syncthreads();
    printf("b%u.%u ", blockIdx.x, threadIdx.x);
}

/* Run l with standard output going into buf. */
static void capture(ufn_simt_launch *l, char *buf, size_t size)
{
    fflush(stdout);
    FILE *tmp = tmpfile();
    assert_non_null(tmp);
    int saved = dup(1);
    dup2(fileno(tmp), 1);
    int st = ufn_simt_run(l);
    fflush(stdout);
    dup2(saved, 1);
    close(saved);
    assert_int_equal(st, 0);
    rewind(tmp);
    size_t n = fread(buf, 1, size - 1, tmp);
    buf[n] = '\0';
    fclose(tmp);
}

static void test_print_order(void **state)
{
    (void)state;
    char out[256];
    int barrier = 0;
    ufn_simt_launch l = launch(k_print, &barrier, 2, 3, 1, false);
    capture(&l, out, sizeof out);
    assert_string_equal(out, "a0.0 b0.0 a0.1 b0.1 a0.2 b0.2 a1.0 b1.0 a1.1 b1.1 a1.2 b1.2 ");
    barrier = 1;
    l.fibers = true;
    capture(&l, out, sizeof out);
    assert_string_equal(out, "a0.0 a0.1 a0.2 b0.0 b0.1 b0.2 a1.0 a1.1 a1.2 b1.0 b1.1 b1.2 ");
}

/* ---- warps ---------------------------------------------------------------------------------- */

typedef struct warp_state {
    int32_t idx[96], up[96], down[96], xr[96];
    double f64[96];
    unsigned ballot[96];
    int all[96], any[96];
    unsigned active[96];
} warp_state;

static void k_warp(void **p)
{
    STATE(warp_state);
    int t = (int)threadIdx.x, lane = ufn_laneid();
    st->idx[t] = ufn_shfl_sync_i32(0xffffffffu, t * 10, 3);
    st->up[t] = ufn_shfl_up_sync_i32(0xffffffffu, t, 2);
    st->down[t] = ufn_shfl_down_sync_i32(0xffffffffu, t, 16);
    st->xr[t] = ufn_shfl_xor_sync_i32(0xffffffffu, t, 1);
    st->f64[t] = ufn_shfl_down_sync_f64(0xffffffffu, t + 0.25, 1);
    st->ballot[t] = ufn_ballot_sync(0xffffffffu, lane % 3 == 0);
    st->all[t] = ufn_all_sync(0xffffffffu, t < 64);
    st->any[t] = ufn_any_sync(0xffffffffu, t == 70);
    st->active[t] = ufn_activemask();
}

static void test_warp_functions(void **state)
{
    (void)state;
    warp_state s;
    memset(&s, 0, sizeof s);
    ufn_simt_launch l = launch(k_warp, &s, 1, 96, 1, true);
    assert_int_equal(ufn_simt_run(&l), 0);
    unsigned every_third = 0;
    for (int k = 0; k < 32; k += 3)
        every_third |= 1u << k;
    for (int t = 0; t < 96; t++) {
        int lane = t % 32, base = t - lane;
        assert_int_equal(s.idx[t], (base + 3) * 10);
        assert_int_equal(s.up[t], lane >= 2 ? t - 2 : t);       /* own value below lane 2 */
        assert_int_equal(s.down[t], lane < 16 ? t + 16 : t);
        assert_int_equal(s.xr[t], t ^ 1);
        assert_true(s.f64[t] == (lane < 31 ? t + 1.25 : t + 0.25));
        assert_int_equal(s.ballot[t], every_third);
        assert_int_equal(s.all[t], base < 64);
        assert_int_equal(s.any[t], base == 64);
        assert_int_equal(s.active[t], 0xffffffffu);
    }
}

/* Lanes of one warp on two paths, each half with its own mask. */
typedef struct halves_state {
    int32_t got[32];
} halves_state;

static void k_halves(void **p)
{
    STATE(halves_state);
    int t = (int)threadIdx.x;
    if (t < 16)
        st->got[t] = ufn_shfl_xor_sync_i32(0x0000ffffu, t, 8);
    else
        st->got[t] = ufn_shfl_sync_i32(0xffff0000u, t * 2, 31);
}

static void test_partial_masks(void **state)
{
    (void)state;
    halves_state s;
    memset(&s, 0, sizeof s);
    ufn_simt_launch l = launch(k_halves, &s, 1, 32, 1, true);
    assert_int_equal(ufn_simt_run(&l), 0);
    for (int t = 0; t < 32; t++)
        assert_int_equal(s.got[t], t < 16 ? t ^ 8 : 62);
}

/* A partial warp: the last warp of a 48-thread block has 16 lanes. */
typedef struct partial_state {
    int32_t sum[48];
} partial_state;

static void k_partial_warp(void **p)
{
    STATE(partial_state);
    int t = (int)threadIdx.x;
    unsigned mask = ufn_activemask();
    int32_t v = t;
    for (int d = 8; d > 0; d /= 2)
        v += ufn_shfl_down_sync_i32(mask, v, d);
    st->sum[t] = v;
}

static void test_partial_warp(void **state)
{
    (void)state;
    partial_state s;
    memset(&s, 0, sizeof s);
    ufn_simt_launch l = launch(k_partial_warp, &s, 1, 48, 1, true);
    assert_int_equal(ufn_simt_run(&l), 0);
    assert_int_equal(s.sum[0], 15 * 16 / 2);       /* lanes 0..15 of warp 0 */
    assert_int_equal(s.sum[32], 32 * 16 + 15 * 16 / 2);
}

/* activemask after an early return: the lanes still there, and a shuffle
 * over exactly them passes the checks. */
typedef struct active_state {
    unsigned mask[32];
    int32_t sum[32];
} active_state;

static void k_active(void **p)
{
    STATE(active_state);
    int t = (int)threadIdx.x;
    if (t >= 20)
        return;
    unsigned mask = ufn_activemask();
    st->mask[t] = mask;
    st->sum[t] = ufn_shfl_xor_sync_i32(mask, t, 16) + t;
}

static void test_activemask(void **state)
{
    (void)state;
    active_state s;
    memset(&s, 0, sizeof s);
    ufn_simt_launch l = launch(k_active, &s, 1, 32, 1, true);
    assert_int_equal(ufn_simt_run(&l), 0);
    for (int t = 0; t < 20; t++) {
        assert_int_equal(s.mask[t], 0x000fffffu);
        /* lanes 16..19 read lanes 0..3 and back; 4..15 read lanes 20..31,
         * which are not in the mask: their own value */
        assert_int_equal(s.sum[t], t < 4 || t >= 16 ? (t ^ 16) + t : 2 * t);
    }
}

/* ---- dynamic shared memory -------------------------------------------------------------------- */

typedef struct dyn_state {
    uintptr_t base, dyn;
    uint32_t bytes, poison;
    float sum;
} dyn_state;

static void k_dynamic(void **p)
{
    STATE(dyn_state);
    UFN_SHARED_ARRAY(int32_t, fixed, 5, 0);
    float *d = (float *)ufn_dyn_shared();
    uint32_t n = ufn_dyn_shared_bytes() / 4, t = threadIdx.x;
    (void)fixed;
    UFN_STORE(float, &d[t], (float)t);
    ufn_syncthreads();
    if (t == 0) {
        UFN_SHARED_ARRAY(uint32_t, unwritten, 5, 0);
        st->poison = UFN_LOAD(uint32_t, &unwritten[4]);
        float s = 0;
        for (uint32_t i = 0; i < n; i++)
            s += UFN_LOAD(float, &d[i]);
        st->sum = s;
        st->base = (uintptr_t)fixed;
        st->dyn = (uintptr_t)d;
        st->bytes = ufn_dyn_shared_bytes();
    }
}

static void test_dynamic_shared(void **state)
{
    (void)state;
    dyn_state s = { 0 };
    ufn_simt_launch l = launch(k_dynamic, &s, 2, 64, 1, true);
    l.static_shared = 20;
    l.dynamic_shared = 64 * 4;
    assert_int_equal(ufn_simt_run(&l), 0);
    assert_true(s.sum == 63 * 64 / 2);
    assert_int_equal(s.bytes, 256);
    assert_int_equal(s.dyn - s.base, UFN_KDYN_OFFSET(20));
    assert_int_equal(s.dyn - s.base, 32);
    assert_int_equal(s.poison, 0xA5A5A5A5u);    /* shared memory starts poisoned */
}

/* ---- checks ------------------------------------------------------------------------------------ */

typedef struct bounds_state {
    int data[8];
    int ran[64];
} bounds_state;

static void k_bounds(void **p)
{
    STATE(bounds_state);
    int64_t t = threadIdx.x + blockIdx.x * blockDim.x;
    int *data = st->data;
#line 7 "add.ufn"
    data[UFN_BOUNDS(t, 8, 0, "x")] = 1;
    st->ran[t] = 1;
}
#line 330 "test_simt.c"

static void test_bounds(void **state)
{
    (void)state;
    bounds_state s;
    memset(&s, 0, sizeof s);
    ufn_simt_launch l = launch(k_bounds, &s, 4, 4, 1, false);
    expect_report(&l, UFN_SIMT_BOUNDS,
                  "index 8 is out of bounds for axis 0 of x with size 8, in thread (0,0,0) of "
                  "block (2,0,0) at add.ufn:7");
    /* the launch stopped at the fault: block 3 never ran */
    for (int t = 0; t < 16; t++)
        assert_int_equal(s.ran[t], t < 8);
    /* and the same on fibers */
    memset(&s, 0, sizeof s);
    l = launch(k_bounds, &s, 4, 4, 1, true);
    expect_report(&l, UFN_SIMT_BOUNDS, "in thread (0,0,0) of block (2,0,0) at add.ufn:7");
    /* unchecked: the index goes through (here, into ran[] beside data[]) */
    memset(&s, 0, sizeof s);
    l = launch(k_bounds, &s, 3, 4, 1, false);
    l.checks = false;
    assert_int_equal(ufn_simt_run(&l), 0);
    assert_int_equal(s.ran[11], 1);
}

/* Thread 1 reads what thread 0 wrote, with no barrier between. */
static void k_race(void **p)
{
    int *mode = *(int **)p;
    UFN_SHARED_ARRAY(float, s, 32, 0);
    uint32_t t = threadIdx.x;
#line 8 "race.ufn"
    UFN_STORE(float, &s[t], 1.0f);
    if (*mode == 1)
        ufn_syncthreads();
#line 9 "race.ufn"
    float v = UFN_LOAD(float, &s[(t + 1) % 32]);
    (void)v;
}
#line 370 "test_simt.c"

static void test_race(void **state)
{
    (void)state;
    int mode = 0;
    ufn_simt_launch l = launch(k_race, &mode, 1, 32, 1, true);
    l.static_shared = 128;
    expect_report(&l, UFN_SIMT_RACE,
                  "shared-memory race in block (0,0,0): thread (1,0,0) writes 4 bytes at shared "
                  "offset 4 (race.ufn:8) that thread (0,0,0) read (race.ufn:9) with no barrier "
                  "in between");
    /* the barrier orders them */
    mode = 1;
    assert_int_equal(ufn_simt_run(&l), 0);
    /* thread after thread the race is the same race */
    mode = 0;
    l.fibers = false;
    expect_report(&l, UFN_SIMT_RACE, "thread (1,0,0) writes 4 bytes at shared offset 4");
    /* unchecked: no report */
    l.checks = false;
    assert_int_equal(ufn_simt_run(&l), 0);
}

static void k_divergent(void **p)
{
    (void)p;
    if (threadIdx.x < 16) {
#line 8 "bar.ufn"
        ufn_syncthreads();
    } else {
#line 11 "bar.ufn"
        ufn_syncthreads();
    }
}
#line 405 "test_simt.c"

static void test_divergent_barrier(void **state)
{
    (void)state;
    ufn_simt_launch l = launch(k_divergent, NULL, 1, 64, 1, true);
    expect_report(&l, UFN_SIMT_BARRIER,
                  "divergent barrier in block (0,0,0): thread (0,0,0) waits at bar.ufn:8, "
                  "thread (16,0,0) at bar.ufn:11");
    /* unchecked, the two barriers count as one, as on older GPUs */
    l.checks = false;
    assert_int_equal(ufn_simt_run(&l), 0);
}

/* Lane 5 exits while the rest of its warp shuffles with a full mask. */
static void k_exited_lane(void **p)
{
    (void)p;
    if (threadIdx.x == 5)
        return;
#line 20 "warp.ufn"
    (void)ufn_shfl_down_sync_f32(0xffffffffu, 1.0f, 1);
}
#line 428 "test_simt.c"

static void k_full_mask(void **p)
{
    (void)p;
#line 40 "warp.ufn"
    (void)ufn_shfl_sync_i32(0xffffffffu, 1, 0);
}
#line 436 "test_simt.c"

static void test_bad_warp_masks(void **state)
{
    (void)state;
    ufn_simt_launch l = launch(k_exited_lane, NULL, 1, 32, 1, true);
    expect_report(&l, UFN_SIMT_BARRIER,
                  "shfl_down_sync at warp.ufn:20 in thread (0,0,0) of block (0,0,0) names lane 5 "
                  "in its mask 0xffffffff, but thread (5,0,0) has exited");
    l.checks = false;
    assert_int_equal(ufn_simt_run(&l), 0);
    /* a full mask in a 40-thread block: lanes 8-31 of warp 1 do not exist */
    l = launch(k_full_mask, NULL, 1, 40, 1, true);
    expect_report(&l, UFN_SIMT_BARRIER, "names lane 8 in its mask 0xffffffff, but the block has "
                                        "no thread 40 (it has 40)");
}

/* Warp 0 waits in a shuffle for lane 3, which waits at a barrier. */
static void k_deadlock(void **p)
{
    (void)p;
    if (threadIdx.x == 3) {
#line 30 "dead.ufn"
        ufn_syncthreads();
    }
#line 31 "dead.ufn"
    (void)ufn_ballot_sync(0xffffffffu, 1);
}
#line 456 "test_simt.c"

static void test_deadlock(void **state)
{
    (void)state;
    ufn_simt_launch l = launch(k_deadlock, NULL, 1, 32, 1, true);
    l.checks = false;    /* a deadlock is reported even without checks: it cannot go on */
    expect_report(&l, UFN_SIMT_DEADLOCK, "deadlock in block (0,0,0): ");
    assert_non_null(strstr(l.report, "at the barrier at dead.ufn:30"));
    assert_non_null(strstr(l.report, "in ballot_sync (mask 0xffffffff) at dead.ufn:31"));
}

/* A kernel whose table entry does not admit its barrier. */
static void test_misuse(void **state)
{
    (void)state;
    pred_state s;
    ufn_simt_launch l = launch(k_predicates, &s, 1, 8, 1, false);
    expect_report(&l, UFN_SIMT_MISUSE, "does not say UFN_KF_BARRIER");
    l = launch(k_warp, &s, 1, 8, 1, false);
    expect_report(&l, UFN_SIMT_MISUSE, "does not say UFN_KF_WARP");
}

/* Stacks and fibers are reused from block to block and run to run,
 * whatever state the last run left them in. */
static void test_reuse_after_faults(void **state)
{
    (void)state;
    for (int round = 0; round < 3; round++) {
        ufn_simt_launch bad = launch(k_divergent, NULL, 1, 64, 1, true);
        assert_int_equal(ufn_simt_run(&bad), UFN_SIMT_BARRIER);
        reduce_state s = { 0 };
        ufn_simt_launch l = launch(k_reduce, &s, 8, 256, 1, true);
        l.static_shared = 256 * 8;
        assert_int_equal(ufn_simt_run(&l), 0);
        assert_int_equal(s.out[7], 7 * 1000 * 256 + 255 * 256 / 2);
    }
}

/* ---- the shadow rules on their own ------------------------------------------------------------ */

typedef struct shadow_case {
    uint32_t a;                /* first accessor, its kind */
    int ka;
    uint32_t b;                /* second accessor, its kind */
    int kb;
    uint32_t sync_between;     /* warp syncs of b's warp between the two */
    bool new_epoch;
    bool races;
} shadow_case;

static void test_shadow_rules(void **state)
{
    (void)state;
    enum { R = UFN_ACCESS_READ, W = UFN_ACCESS_WRITE, A = UFN_ACCESS_ATOMIC };
    static const shadow_case cases[] = {
        { 0, W, 1, R, 0, false, true },     /* read after write */
        { 0, R, 1, W, 0, false, true },     /* write after read */
        { 0, W, 1, W, 0, false, true },     /* write after write */
        { 0, R, 1, R, 0, false, false },    /* two reads */
        { 0, W, 0, R, 0, false, false },    /* one thread */
        { 0, A, 1, A, 0, false, false },    /* two atomics */
        { 0, A, 1, R, 0, false, true },     /* atomic and plain */
        { 0, W, 1, A, 0, false, true },
        { 0, W, 1, R, 0, true, false },     /* a barrier between */
        { 0, W, 1, R, 1, false, false },    /* lanes of one warp, synced */
        { 0, W, 33, R, 1, false, true },    /* another warp's sync orders nothing */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const shadow_case *c = &cases[i];
        ufn_shadow sh[4];
        memset(sh, 0, sizeof sh);
        uint32_t syncs[2] = { 0, 0 };
        ufn_accessor a = { c->a, 1, syncs, "s.ufn", 1 };
        ufn_race r;
        assert_true(ufn_shadow_access(sh, 0, 4, c->ka, &a, &r));
        syncs[c->b / 32] += c->sync_between;
        ufn_accessor b = { c->b, c->new_epoch ? 2 : 1, syncs, "s.ufn", 2 };
        bool ok = ufn_shadow_access(sh, 0, 4, c->kb, &b, &r);
        if (ok == c->races)
            fail_msg("case %zu: %s", i, c->races ? "no race found" : "a race found");
        if (!ok) {
            assert_int_equal(r.other, c->a);
            assert_int_equal(r.other_kind, c->ka);
            assert_int_equal(r.line, 1);
            assert_int_equal(r.offset, 0);
        }
    }
    /* several readers, then a writer of another warp: the race names no one */
    ufn_shadow sh[1];
    memset(sh, 0, sizeof sh);
    uint32_t syncs[2] = { 0, 0 };
    ufn_race r;
    for (uint32_t t = 0; t < 3; t++) {
        ufn_accessor rd = { t, 5, syncs, "m.ufn", 3 };
        assert_true(ufn_shadow_access(sh, 0, 1, UFN_ACCESS_READ, &rd, &r));
    }
    ufn_accessor wr = { 40, 5, syncs, "m.ufn", 4 };
    assert_false(ufn_shadow_access(sh, 0, 1, UFN_ACCESS_WRITE, &wr, &r));
    assert_int_equal(r.other, UINT32_MAX);
    assert_int_equal(r.other_kind, UFN_ACCESS_READ);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_coordinates),
        cmocka_unit_test(test_barrier_reduction),
        cmocka_unit_test(test_barrier_predicates),
        cmocka_unit_test(test_early_exit),
        cmocka_unit_test(test_print_order),
        cmocka_unit_test(test_warp_functions),
        cmocka_unit_test(test_partial_masks),
        cmocka_unit_test(test_partial_warp),
        cmocka_unit_test(test_activemask),
        cmocka_unit_test(test_dynamic_shared),
        cmocka_unit_test(test_bounds),
        cmocka_unit_test(test_race),
        cmocka_unit_test(test_divergent_barrier),
        cmocka_unit_test(test_bad_warp_masks),
        cmocka_unit_test(test_deadlock),
        cmocka_unit_test(test_misuse),
        cmocka_unit_test(test_reuse_after_faults),
        cmocka_unit_test(test_shadow_rules),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
