/* test_multi.c - several devices in one process, on four simulated GPUs:
 * which device a host-array call runs on, the device set (UFN_DEVICES,
 * ufn_set_devices), host-array calls split into one slab per device, and
 * sharded device arrays.  Calls go through ufn_call, as generated entries
 * do; the trace hook and the simulator's statistics say which device did
 * what and which bytes crossed. */
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cuda_test.h"

#define NDEV 4

static int call2(const ufn_func *f, const ufn_array *a, const ufn_array *b, ufn_array *out)
{
    const ufn_array *in[2] = { a, b };
    ufn_array *o[1] = { out };
    return ufn_call(f, in, o);
}

/* Events of one kind on one device in the log. */
static int count_on(ufn_event_kind kind, int device)
{
    int c = 0;
    for (int i = 0; i < tlog.n; i++)
        c += tlog.ev[i].kind == kind && tlog.ev[i].device == device;
    return c;
}

/* ---- which device ------------------------------------------------------------------------ */

/* A call on host arrays runs on the default device, UFN_DEVICE=1 here (it
 * went to device 0 whatever UFN_DEVICE said). */
static void test_host_call_on_default_device(void **state)
{
    (void)state;
    enum { N = 1000 };
    float *a = floats(N, 1.0f), out[N];
    int64_t n = N;
    ufn_array x = ufn_host(a, UFN_FLOAT32, 1, &n), r = ufn_host(out, UFN_FLOAT32, 1, &n);
    trace_start();
    assert_int_equal(call2(&test_add, &x, &x, &r), 0);
    trace_stop();
    assert_int_equal(count_on(UFN_EV_LAUNCH, 1), 1);
    assert_int_equal(count(UFN_EV_LAUNCH), 1);
    for (int i = 0; i < N; i++)
        assert_float_equal(out[i], 2 * a[i], 0);
    free(a);
}

static int setup_multi(void **state)
{
    if (setup(state) != 0)
        return -1;
    return ufn_init("sim") == 0 ? 0 : -1;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_host_call_on_default_device, teardown_each),
    };
    unsetenv("UFN_SIM_MEMORY");
    unsetenv("UFN_SIM_LATENCY");
    unsetenv("UFN_STAGE_BYTES");
    unsetenv("UFN_DEVICES");
    setenv("UFN_SIM_DEVICES", "4", 1);
    setenv("UFN_DEVICE", "1", 1);
    return cmocka_run_group_tests(tests, setup_multi, NULL);
}
