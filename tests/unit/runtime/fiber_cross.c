/* fiber_cross.c - the context switch of another architecture, built by a
 * cross compiler and run under qemu-user (make check-kernelsrt does when
 * aarch64-linux-gnu-gcc and qemu-aarch64 are installed).  No cmocka: there
 * is none for the target.  It checks what test_fiber checks first: values
 * in the callee-saved integer and floating-point registers survive a
 * thousand switches, a fiber starts with an aligned stack, and exits. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "sim/simt.h"

static ufn_fiber main_fiber, fiber;
static volatile long counter;
static volatile double acc;
static uintptr_t alignment = 99;

static void ping(void *arg)
{
    (void)arg;
    long a = 1, b = 2, c = 3;
    double x = 0.5, y = 1.5;
    for (int i = 0; i < 1000; i++) {
        a += b;
        b ^= c;
        c += i;
        x = x * 1.0001 + y;
        counter = a + b + c;
        acc = x;
        ufn_fiber_switch(&fiber, &main_fiber);
    }
    counter = -1;
    ufn_fiber_exit(&fiber, &main_fiber);
}

static void aligned(void *arg)
{
    (void)arg;
    _Alignas(16) volatile char probe[16];
    alignment = (uintptr_t)probe & 15u;
    ufn_fiber_exit(&fiber, &main_fiber);
}

int main(void)
{
    ufn_stacks s;
    if (ufn_stacks_alloc(&s, 2, 64 << 10) != 0)
        return 2;
    ufn_fiber_make(&fiber, ufn_stack_at(&s, 0), s.size, ping, NULL);
    long a = 1, b = 2, c = 3;
    double x = 0.5, y = 1.5;
    int bad = 0;
    for (int i = 0; i < 1000; i++) {
        ufn_fiber_switch(&main_fiber, &fiber);
        a += b;
        b ^= c;
        c += i;
        x = x * 1.0001 + y;
        bad += counter != a + b + c || acc != x;
    }
    ufn_fiber_switch(&main_fiber, &fiber);
    bad += counter != -1;
    ufn_fiber_make(&fiber, ufn_stack_at(&s, 1), s.size, aligned, NULL);
    ufn_fiber_switch(&main_fiber, &fiber);
    bad += alignment != 0;
    printf("%s    fiber switch (%s): %s\n", bad ? "FAIL" : "ok  ", ufn_fiber_kind(),
           bad ? "values lost or a misaligned stack" : "1000 round trips, aligned stacks");
    return bad != 0;
}
