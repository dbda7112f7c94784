/* test_fiber.c - the context switch of the thread engine (runtime/sim/fiber.c):
 * values live across switches, many fibers taking turns, fibers that exit and
 * stacks made again, the stack's alignment, and the guard page below a stack.
 * mk/kernelsrt.mk builds it twice: with the hand-written switch of this
 * machine, and with the ucontext fallback (-DUFN_FIBER_UCONTEXT). */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "sim/simt.h"

static ufn_fiber main_fiber;
static ufn_stacks stacks;

static int setup(void **state)
{
    (void)state;
    return ufn_stacks_alloc(&stacks, 8, 64 << 10);
}

static int teardown(void **state)
{
    (void)state;
    ufn_stacks_free(&stacks);
    return 0;
}

/* ---- ping-pong: values in registers and on the stack survive ---------------------- */

typedef struct pingpong {
    ufn_fiber f;
    volatile long counter;
    double acc;
} pingpong;

/* Keeps a mix of integer and floating-point values live across every
 * switch, so that a register the switch forgot to save shows. */
static void ping(void *arg)
{
    pingpong *p = arg;
    long a = 1, b = 2, c = 3;
    double x = 0.5, y = 1.5;
    for (int i = 0; i < 1000; i++) {
        a += b;
        b ^= c;
        c += i;
        x = x * 1.0001 + y;
        p->counter = a + b + c;
        p->acc = x;
        ufn_fiber_switch(&p->f, &main_fiber);
    }
    p->counter = -1;
    ufn_fiber_exit(&p->f, &main_fiber);
}

static void test_pingpong(void **state)
{
    (void)state;
    pingpong p;
    memset(&p, 0, sizeof p);
    ufn_fiber_make(&p.f, ufn_stack_at(&stacks, 0), stacks.size, ping, &p);
    long a = 1, b = 2, c = 3;
    double x = 0.5, y = 1.5;
    for (int i = 0; i < 1000; i++) {
        ufn_fiber_switch(&main_fiber, &p.f);
        a += b;
        b ^= c;
        c += i;
        x = x * 1.0001 + y;
        assert_int_equal(p.counter, a + b + c);
        assert_true(p.acc == x);
    }
    ufn_fiber_switch(&main_fiber, &p.f);
    assert_int_equal(p.counter, -1);
    ufn_fiber_destroy(&p.f);
}

/* ---- a ring of fibers, each handing on to the next ------------------------------------- */

enum { RING = 8, ROUNDS = 100 };

static struct {
    ufn_fiber f[RING];
    int log[RING * ROUNDS + 1];
    int n;
} ring;

static void ring_member(void *arg)
{
    int me = (int)(intptr_t)arg;
    for (int r = 0; r < ROUNDS; r++) {
        ring.log[ring.n++] = me;
        ufn_fiber *next = me + 1 < RING ? &ring.f[me + 1] : &ring.f[0];
        if (me == RING - 1 && r == ROUNDS - 1)
            ufn_fiber_exit(&ring.f[me], &main_fiber);
        ufn_fiber_switch(&ring.f[me], next);
    }
    ufn_fiber_exit(&ring.f[me], &main_fiber);   /* not reached for the others */
}

static void test_ring(void **state)
{
    (void)state;
    memset(&ring, 0, sizeof ring);
    for (int i = 0; i < RING; i++)
        ufn_fiber_make(&ring.f[i], ufn_stack_at(&stacks, i), stacks.size, ring_member,
                       (void *)(intptr_t)i);
    ufn_fiber_switch(&main_fiber, &ring.f[0]);
    assert_int_equal(ring.n, RING * ROUNDS);
    for (int k = 0; k < ring.n; k++)
        assert_int_equal(ring.log[k], k % RING);
    /* every fiber but the last was abandoned in mid-switch: make them again
     * on the same stacks, and they start afresh */
    ring.n = 0;
    for (int i = 0; i < RING; i++)
        ufn_fiber_make(&ring.f[i], ufn_stack_at(&stacks, i), stacks.size, ring_member,
                       (void *)(intptr_t)i);
    ufn_fiber_switch(&main_fiber, &ring.f[0]);
    assert_int_equal(ring.n, RING * ROUNDS);
    for (int i = 0; i < RING; i++)
        ufn_fiber_destroy(&ring.f[i]);
}

/* ---- alignment, and deep frames ------------------------------------------------------------ */

static uintptr_t seen_alignment;
static ufn_fiber deep;

static long recurse(int depth, volatile char *prev)
{
    volatile char frame[512];
    frame[0] = (char)depth;
    (void)prev;
    return depth == 0 ? frame[0] : recurse(depth - 1, frame) + frame[0];
}

static void aligned(void *arg)
{
    (void)arg;
    _Alignas(16) volatile char probe[16];
    seen_alignment = (uintptr_t)probe & 15u;
    /* a third of the 64 KiB stack in 512-byte frames (ASan's redzones
     * about double them) */
    assert_int_equal(recurse(40, probe), 40 * 41 / 2);
    ufn_fiber_exit(&deep, &main_fiber);
}

static void test_alignment_and_depth(void **state)
{
    (void)state;
    seen_alignment = 99;
    ufn_fiber_make(&deep, ufn_stack_at(&stacks, 0), stacks.size, aligned, NULL);
    ufn_fiber_switch(&main_fiber, &deep);
    assert_int_equal(seen_alignment, 0);
    ufn_fiber_destroy(&deep);
}

/* ---- the guard page --------------------------------------------------------------------------- */

static void overflow(void *arg)
{
    volatile char *bottom = arg;
    bottom[-1] = 1;   /* the byte below the stack: the guard page */
    _exit(0);
}

static void test_guard_page(void **state)
{
    (void)state;
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        signal(SIGSEGV, SIG_DFL);   /* ASan's handler would report and exit instead */
        signal(SIGBUS, SIG_DFL);
        ufn_fiber f;
        memset(&f, 0, sizeof f);
        char *stack = ufn_stack_at(&stacks, 1);
        ufn_fiber_make(&f, stack, stacks.size, overflow, stack);
        ufn_fiber_switch(&main_fiber, &f);
        _exit(3);
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    /* killed by the fault; under ASan, its handler may still report and exit 1 */
    if (WIFSIGNALED(status))
        assert_true(WTERMSIG(status) == SIGSEGV || WTERMSIG(status) == SIGBUS);
    else
        assert_true(WIFEXITED(status) && WEXITSTATUS(status) != 0 && WEXITSTATUS(status) != 3);
}

int main(void)
{
    printf("fiber switch: %s\n", ufn_fiber_kind());
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pingpong),
        cmocka_unit_test(test_ring),
        cmocka_unit_test(test_alignment_and_depth),
        cmocka_unit_test(test_guard_page),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
