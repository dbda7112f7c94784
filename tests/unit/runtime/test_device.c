/* test_device.c - the device paths of the runtime core, through a fake
 * backend whose "device" memory is tracked host memory.
 *
 * The fake backend checks that a DEVICE plan only holds pointers into its
 * own allocations and runs it with the host loops; it traces what it does
 * like a real backend, and the tests assert the exact transfers: host inputs
 * copied to the device for a mixed call, results copied back to host
 * outputs, device-to-device copies for overlapping operands, nothing moved
 * for device-resident calls, and no device memory left behind.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "testfuncs.h"

/* ---- the fake backend -------------------------------------------------------------------- */

#define MAXALLOC 256

static struct {
    char *base[MAXALLOC];
    size_t bytes[MAXALLOC];
    int live;
    int executed;
    ufn_memory last_plan_memory;
    int syncs;
    int stream_syncs;
    ufn_stream_impl *freed_on;   /* the stream of the last free */
} fake;

static int fake_count(const ufn_backend_ops *be)
{
    (void)be;
    return 2;
}

static int fake_alloc(const ufn_backend_ops *be, int device, size_t bytes, ufn_stream_impl *s,
                      void **ptr)
{
    (void)be, (void)s;
    for (int i = 0; i < MAXALLOC; i++)
        if (!fake.base[i]) {
            if (posix_memalign((void **)&fake.base[i], 256, bytes) != 0)
                return ufn_fail(UFN_ERR_DEVICE_NOMEM, "out of fake device memory");
            fake.bytes[i] = bytes;
            fake.live++;
            *ptr = fake.base[i];
            ufn_emit(UFN_EV_ALLOC, "fake", NULL, bytes, device);
            return 0;
        }
    return ufn_fail(UFN_ERR_DEVICE_NOMEM, "too many fake allocations");
}

static void fake_free(const ufn_backend_ops *be, int device, void *ptr, ufn_stream_impl *s)
{
    (void)be;
    fake.freed_on = s;
    for (int i = 0; i < MAXALLOC; i++)
        if (fake.base[i] == ptr) {
            free(ptr);
            fake.base[i] = NULL;
            fake.live--;
            ufn_emit(UFN_EV_FREE, "fake", NULL, 0, device);
            return;
        }
    fail_msg("fake_free of a pointer the fake device never gave");
}

static bool on_device(const void *p, size_t bytes)
{
    for (int i = 0; i < MAXALLOC; i++)
        if (fake.base[i] && (const char *)p >= fake.base[i] &&
            (const char *)p + bytes <= fake.base[i] + fake.bytes[i])
            return true;
    return false;
}

static int fake_copy(ufn_event_kind kind, int device, void *dst, const void *src, size_t bytes)
{
    assert_true(kind == UFN_EV_D2H || on_device(dst, bytes));
    assert_true(kind == UFN_EV_H2D || on_device(src, bytes));
    memmove(dst, src, bytes);
    ufn_emit(kind, "fake", NULL, bytes, device);
    return 0;
}

static int fake_h2d(const ufn_backend_ops *be, int device, void *dst, const void *src,
                    size_t bytes, ufn_stream_impl *s)
{
    (void)be, (void)s;
    return fake_copy(UFN_EV_H2D, device, dst, src, bytes);
}

static int fake_d2h(const ufn_backend_ops *be, int device, void *dst, const void *src,
                    size_t bytes, ufn_stream_impl *s)
{
    (void)be, (void)s;
    return fake_copy(UFN_EV_D2H, device, dst, src, bytes);
}

static int fake_d2d(const ufn_backend_ops *be, int device, void *dst, const void *src,
                    size_t bytes, ufn_stream_impl *s)
{
    (void)be, (void)s;
    return fake_copy(UFN_EV_D2D, device, dst, src, bytes);
}

static int fake_execute(const ufn_backend_ops *be, const ufn_plan *p, ufn_stream_impl *s)
{
    (void)be, (void)s;
    fake.executed++;
    fake.last_plan_memory = p->memory;
    if (p->memory == UFN_MEM_DEVICE)
        for (int k = 0; k < p->nargs; k++)
            if (!p->by_value[k] && !on_device(p->data[k], (size_t)p->elsize[k]))
                fail_msg("operand %d of a device plan is not device memory", k);
    ufn_emit(UFN_EV_LAUNCH, "fake", p->func->name, (size_t)p->n, p->device);
    return ufn_host_execute(p);
}

static int fake_stream(const ufn_backend_ops *be, ufn_stream_impl *s)
{
    (void)be, (void)s;
    return 0;
}

static int fake_stream_sync(const ufn_backend_ops *be, ufn_stream_impl *s)
{
    (void)be, (void)s;
    fake.stream_syncs++;
    return 0;
}

static int fake_sync(const ufn_backend_ops *be)
{
    (void)be;
    fake.syncs++;
    return 0;
}

static const ufn_backend_ops fake_backend = {
    .name = "fake",
    .device_memory = UFN_MEM_DEVICE,
    .device_count = fake_count,
    .alloc = fake_alloc,
    .free = fake_free,
    .copy_h2d = fake_h2d,
    .copy_d2h = fake_d2h,
    .copy_d2d = fake_d2d,
    .execute = fake_execute,
    .stream_create = fake_stream,
    .stream_destroy = fake_stream,
    .stream_synchronize = fake_stream_sync,
    .synchronize = fake_sync,
};

/* ---- trace recording ----------------------------------------------------------------------- */

static struct {
    int count[8];
    size_t bytes[8];
} seen;

static void hook(const ufn_event *ev, void *ctx)
{
    (void)ctx;
    seen.count[ev->kind]++;
    seen.bytes[ev->kind] += ev->bytes;
}

static void reset_trace(void)
{
    memset(&seen, 0, sizeof seen);
}

static int setup(void **state)
{
    (void)state;
    reset_trace();
    fake.executed = 0;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    if (fake.live != 0)
        fail_msg("%d fake device allocations left", fake.live);
    if (ufn_registry_count() != 0)
        fail_msg("%zu registry entries left", ufn_registry_count());
    return 0;
}

/* ---- tests ----------------------------------------------------------------------------------- */

static void test_transfers(void **state)
{
    (void)state;
    assert_string_equal(ufn_backend(), "fake");
    assert_int_equal(ufn_device_count(), 2);
    double h[6] = {1, 2, 3, 4, 5, 6};
    ufn_array ha = ufn_host(h, UFN_FLOAT64, 2, (int64_t[]){2, 3});
    ufn_array d;
    assert_int_equal(ufn_to_device(&ha, &d), 0);
    assert_int_equal(d.memory, UFN_MEM_DEVICE);
    assert_true(on_device(d.data, 48));
    assert_true(seen.count[UFN_EV_ALLOC] == 1 && seen.count[UFN_EV_H2D] == 1);
    assert_int_equal(seen.bytes[UFN_EV_H2D], 48);
    /* back into a new host buffer */
    ufn_array back = {0};
    assert_int_equal(ufn_copy_to_host(&d, &back), 0);
    assert_int_equal(back.memory, UFN_MEM_HOST);
    assert_memory_equal(back.data, h, sizeof h);
    assert_int_equal(seen.count[UFN_EV_D2H], 1);
    ufn_free(&back);
    /* into a strided host view (the transpose of a 3x2 buffer) */
    double t[6] = {0};
    ufn_array ht = ufn_host_strided(t, UFN_FLOAT64, 2, (int64_t[]){2, 3}, (int64_t[]){1, 2});
    assert_int_equal(ufn_copy_to_host(&d, &ht), 0);
    double want[6] = {1, 4, 2, 5, 3, 6};
    assert_memory_equal(t, want, sizeof t);
    /* a strided host source goes over packed */
    ufn_array d2;
    assert_int_equal(ufn_to_device(&ht, &d2), 0);
    assert_int_equal(ufn_copy_to_host(&d2, &ha), 0);
    assert_true(h[0] == 1 && h[5] == 6);
    /* mismatched destinations */
    float f[6];
    ufn_array hf = ufn_host(f, UFN_FLOAT32, 2, (int64_t[]){2, 3});
    assert_int_equal(ufn_copy_to_host(&d, &hf), UFN_ERR_DTYPE);
    ufn_array hs = ufn_host(h, UFN_FLOAT64, 1, (int64_t[]){6});
    assert_int_equal(ufn_copy_to_host(&d, &hs), UFN_ERR_SHAPE);
    ufn_array dd;
    assert_int_equal(ufn_device_array(UFN_INT16, 1, (int64_t[]){10}, &dd), 0);
    assert_int_equal(ufn_copy_to_host(&d, &dd), UFN_ERR_WRONG_MEMORY);
    assert_int_equal(ufn_to_device(&d, &ha), UFN_ERR_WRONG_MEMORY);
    ufn_free(&dd);
    ufn_free(&d);
    ufn_free(&d2);
    assert_int_equal(seen.count[UFN_EV_FREE], 3);
}

static void test_device_resident_call(void **state)
{
    (void)state;
    double x[4] = {1, 2, 3, 4};
    ufn_array hx = ufn_host(x, UFN_FLOAT64, 1, (int64_t[]){4});
    ufn_array dx, dout = {0};
    assert_int_equal(ufn_to_device(&hx, &dx), 0);
    reset_trace();
    assert_int_equal(call2(&add_func, &dx, &dx, &dout), 0);
    assert_int_equal(dout.memory, UFN_MEM_DEVICE);
    assert_int_equal(fake.last_plan_memory, UFN_MEM_DEVICE);
    /* only the output was allocated; nothing moved */
    assert_int_equal(seen.count[UFN_EV_ALLOC], 1);
    assert_int_equal(seen.count[UFN_EV_H2D] + seen.count[UFN_EV_D2H] + seen.count[UFN_EV_D2D], 0);
    assert_int_equal(seen.count[UFN_EV_LAUNCH], 1);
    ufn_array r = {0};
    assert_int_equal(ufn_copy_to_host(&dout, &r), 0);
    assert_true(((double *)r.data)[3] == 8);
    ufn_free(&r);
    /* in place on the device: no copies either */
    reset_trace();
    assert_int_equal(call2(&add_func, &dx, &dout, &dx), 0);
    assert_int_equal(seen.count[UFN_EV_D2D] + seen.count[UFN_EV_ALLOC], 0);
    ufn_free(&dx);
    ufn_free(&dout);
}

static void test_mixed_host_and_device(void **state)
{
    (void)state;
    double x[4] = {1, 2, 3, 4}, y[4] = {10, 20, 30, 40};
    ufn_array hx = ufn_host(x, UFN_FLOAT64, 1, (int64_t[]){4});
    ufn_array hy = ufn_host(y, UFN_FLOAT64, 1, (int64_t[]){4});
    ufn_array dx, out = {0};
    assert_int_equal(ufn_to_device(&hx, &dx), 0);
    reset_trace();
    assert_int_equal(call2(&add_func, &dx, &hy, &out), 0);
    /* the host input went over once; the result stays on the device */
    assert_int_equal(seen.count[UFN_EV_H2D], 1);
    assert_int_equal(seen.bytes[UFN_EV_H2D], 32);
    assert_int_equal(seen.count[UFN_EV_D2H], 0);
    assert_int_equal(out.memory, UFN_MEM_DEVICE);
    /* a host output with device inputs: computed there, copied back */
    double r[4];
    ufn_array hr = ufn_host(r, UFN_FLOAT64, 1, (int64_t[]){4});
    reset_trace();
    assert_int_equal(call2(&add_func, &dx, &out, &hr), 0);
    assert_int_equal(seen.count[UFN_EV_D2H], 1);
    for (int i = 0; i < 4; i++)
        assert_true(r[i] == 2 * x[i] + y[i]);
    /* strided host output of another dtype */
    float rf[8] = {0};
    ufn_array hf = ufn_host_strided(rf, UFN_FLOAT32, 1, (int64_t[]){4}, (int64_t[]){2});
    assert_int_equal(call2(&add_func, &dx, &dx, &hf), 0);
    assert_true(rf[0] == 2 && rf[6] == 8 && rf[1] == 0);
    /* a weak scalar goes to the kernel by value: no device memory, no copy */
    reset_trace();
    ufn_array s = ufn_scalar_int32(5);
    assert_int_equal(call2(&add_func, &dx, &s, &hr), 0);
    assert_int_equal(seen.count[UFN_EV_H2D], 0);
    assert_int_equal(seen.count[UFN_EV_ALLOC], 1);   /* the result, on its way to hr */
    assert_true(r[3] == 9);
    /* a host input of another dtype is converted, then copied */
    int32_t yi[4] = {1, 1, 1, 1};
    ufn_array hyi = ufn_host(yi, UFN_INT32, 1, (int64_t[]){4});
    assert_int_equal(call2(&add_func, &dx, &hyi, &hr), 0);
    assert_true(r[0] == 2 && r[3] == 5);
    /* a gufunc with a device matrix and a host vector */
    double A[6] = {1, 2, 3, 4, 5, 6}, v[3] = {1, 1, 1};
    ufn_array hA = ufn_host(A, UFN_FLOAT64, 2, (int64_t[]){2, 3});
    ufn_array hv = ufn_host(v, UFN_FLOAT64, 1, (int64_t[]){3});
    ufn_array dA, dots = {0};
    assert_int_equal(ufn_to_device(&hA, &dA), 0);
    assert_int_equal(call2(&inner_func, &dA, &hv, &dots), 0);
    assert_int_equal(dots.memory, UFN_MEM_DEVICE);
    ufn_array hd = {0};
    assert_int_equal(ufn_copy_to_host(&dots, &hd), 0);
    assert_true(((double *)hd.data)[0] == 6 && ((double *)hd.data)[1] == 15);
    ufn_free(&hd);
    ufn_free(&dots);
    ufn_free(&dA);
    ufn_free(&dx);
    ufn_free(&out);
}

static void test_all_host_call_gives_host_plan(void **state)
{
    (void)state;
    double x[3] = {1, 2, 3};
    ufn_array hx = ufn_host(x, UFN_FLOAT64, 1, (int64_t[]){3});
    ufn_array o = {0};
    assert_int_equal(call2(&add_func, &hx, &hx, &o), 0);
    assert_int_equal(fake.last_plan_memory, UFN_MEM_HOST);
    assert_int_equal(o.memory, UFN_MEM_HOST);
    assert_int_equal(seen.count[UFN_EV_H2D], 0);
    ufn_free(&o);
}

static void test_device_refusals(void **state)
{
    (void)state;
    int32_t xi[4] = {1, 2, 3, 4};
    double x[4] = {1, 2, 3, 4};
    ufn_array hi = ufn_host(xi, UFN_INT32, 1, (int64_t[]){4});
    ufn_array hx = ufn_host(x, UFN_FLOAT64, 1, (int64_t[]){4});
    ufn_array di, dx, out = {0};
    assert_int_equal(ufn_to_device(&hi, &di), 0);
    assert_int_equal(ufn_to_device(&hx, &dx), 0);
    /* device inputs are never converted */
    assert_int_equal(call2(&add_func, &di, &dx, &out), UFN_ERR_DTYPE);
    assert_string_equal(ufn_error(), "add: input 0 is a device array of int32, but the signature "
                                     "float64(float64, float64) takes float64; device arrays are "
                                     "not converted");
    assert_int_equal(out.memory, UFN_MEM_NONE);
    /* device outputs must match exactly */
    ufn_array df;
    assert_int_equal(ufn_device_array(UFN_FLOAT32, 1, (int64_t[]){4}, &df), 0);
    assert_int_equal(call2(&add_func, &dx, &dx, &df), UFN_ERR_OUTPUT);
    assert_non_null(strstr(ufn_error(), "device outputs must match exactly"));
    /* operands on two devices */
    ufn_array other = dx;
    other.device = 1;
    assert_int_equal(call2(&add_func, &dx, &other, &out), UFN_ERR_WRONG_MEMORY);
    assert_string_equal(ufn_error(), "add: operands are on different devices (0 and 1)");
    other.device = 5;
    assert_int_equal(call2(&add_func, &dx, &other, &out), UFN_ERR_NO_DEVICE);
    /* a freed device array */
    ufn_array stale = dx;
    ufn_free(&dx);
    assert_int_equal(call2(&add_func, &stale, &hx, &out), UFN_ERR_FREED);
    assert_int_equal(ufn_copy_to_host(&stale, &out), UFN_ERR_FREED);
    assert_int_equal(out.memory, UFN_MEM_NONE);
    assert_int_equal(fake.executed, 0);
    ufn_free(&di);
    ufn_free(&df);
}

static void test_device_overlap(void **state)
{
    (void)state;
    double x[6] = {0, 1, 2, 3, 4, 5};
    ufn_array hx = ufn_host(x, UFN_FLOAT64, 1, (int64_t[]){6});
    ufn_array d;
    assert_int_equal(ufn_to_device(&hx, &d), 0);
    /* d[1:] = d[:-1] + 1 reads the old values: the input is copied on the device */
    ufn_array src = d, dst = d;
    src.shape[0] = dst.shape[0] = 5;
    dst.data = (double *)d.data + 1;
    ufn_array one = ufn_scalar_float64(1);
    reset_trace();
    assert_int_equal(call2(&add_func, &src, &one, &dst), 0);
    assert_int_equal(seen.count[UFN_EV_D2D], 1);
    assert_int_equal(seen.bytes[UFN_EV_D2D], 40);
    ufn_array r = {0};
    assert_int_equal(ufn_copy_to_host(&d, &r), 0);
    double want[6] = {0, 1, 2, 3, 4, 5};
    assert_memory_equal(r.data, want, sizeof want);
    ufn_free(&r);
    ufn_free(&d);
}

/* A call's device temporaries (a host input, a scalar of a gufunc) are freed
 * stream-ordered on the call's stream: the call does not wait for its own
 * kernel (it synchronised the stream once). */
static void test_temporaries_without_waiting(void **state)
{
    (void)state;
    double x[4] = {1, 2, 3, 4}, y[4] = {10, 20, 30, 40};
    ufn_array hx = ufn_host(x, UFN_FLOAT64, 1, (int64_t[]){4});
    ufn_array hy = ufn_host(y, UFN_FLOAT64, 1, (int64_t[]){4});
    ufn_array dx, out = {0};
    assert_int_equal(ufn_to_device(&hx, &dx), 0);
    ufn_stream s;
    assert_int_equal(ufn_stream_create(&s), 0);
    ufn_set_stream(s);
    fake.stream_syncs = 0;
    fake.freed_on = NULL;
    assert_int_equal(call2(&add_func, &dx, &hy, &out), 0);   /* hy: a device temporary */
    assert_int_equal(fake.stream_syncs, 0);
    ufn_stream_impl *on = fake.freed_on;                     /* s's object */
    assert_non_null(on);
    assert_ptr_equal(on->backend, &fake_backend);
    ufn_free(&out);                                          /* ufn_free: on the current stream */
    assert_ptr_equal(fake.freed_on, on);
    ufn_set_stream(NULL);
    ufn_free(&dx);
    assert_null(fake.freed_on);
    assert_int_equal(ufn_stream_destroy(s), 0);
}

static void test_streams(void **state)
{
    (void)state;
    ufn_stream s;
    assert_int_equal(ufn_stream_create(&s), 0);
    assert_non_null(s);
    ufn_set_stream(s);
    assert_ptr_equal(ufn_get_stream(), s);
    assert_int_equal(ufn_stream_synchronize(s), 0);
    int before = fake.syncs;
    assert_int_equal(ufn_synchronize(), 0);
    assert_int_equal(fake.syncs, before + 1);
    assert_int_equal(ufn_stream_destroy(s), 0);
    assert_null(ufn_get_stream());          /* destroying the current stream resets it */
    assert_int_equal(ufn_stream_destroy(NULL), 0);
    assert_int_equal(ufn_stream_create(NULL), UFN_ERR_INVALID);
    /* the backend cannot be changed now */
    assert_int_equal(ufn_init("host"), UFN_ERR_BACKEND);
    assert_int_equal(ufn_init(NULL), 0);
}

int main(void)
{
    if (ufn_use_backend(&fake_backend) != 0)
        return 1;
    ufn_set_trace_hook(hook, NULL);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_transfers, setup, teardown),
        cmocka_unit_test_setup_teardown(test_device_resident_call, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mixed_host_and_device, setup, teardown),
        cmocka_unit_test_setup_teardown(test_all_host_call_gives_host_plan, setup, teardown),
        cmocka_unit_test_setup_teardown(test_device_refusals, setup, teardown),
        cmocka_unit_test_setup_teardown(test_device_overlap, setup, teardown),
        cmocka_unit_test_setup_teardown(test_temporaries_without_waiting, setup, teardown),
        cmocka_unit_test_setup_teardown(test_streams, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
