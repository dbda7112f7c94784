/* test_backend.c - choosing the backend (UFN_BACKEND, ufn_init), UFN_TRACE
 * and the trace hook, thread-local errors, descriptors and transfers on the
 * host backend.
 *
 * The backend is chosen once per process, so every scenario that sets
 * UFN_BACKEND runs in a forked child (which has chosen nothing yet: the
 * parent never calls the runtime before forking them).
 */
#include <ctype.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "testfuncs.h"

/* Run fn in a child with the environment variable set; expect exit 0. */
static void in_child(const char *var, const char *value, int (*fn)(void))
{
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        if (var)
            setenv(var, value, 1);
        _exit(fn());
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    if (WEXITSTATUS(status) != 0)
        fail_msg("child with %s=%s failed at check %d", var ? var : "-", value ? value : "-",
                 WEXITSTATUS(status));
}

#define CHECK(n, cond) do { if (!(cond)) return (n); } while (0)

static int child_default(void)
{
    const char *b = ufn_backend();
    CHECK(1, b && (strcmp(b, "host") == 0 || strcmp(b, "cuda") == 0));
    CHECK(2, ufn_device_count() >= 1);
    return 0;
}

static int child_host(void)
{
    CHECK(1, ufn_backend() && strcmp(ufn_backend(), "host") == 0);
    CHECK(2, ufn_device_count() == 1);
    CHECK(3, ufn_init("host") == 0);
    CHECK(4, ufn_init("auto") == 0);
    CHECK(5, ufn_init("cuda") == UFN_ERR_BACKEND);
    CHECK(6, strstr(ufn_error(), "the host backend is already in use") != NULL);
    return 0;
}

static int child_bogus(void)
{
    CHECK(1, ufn_backend() == NULL);
    CHECK(2, strcmp(ufn_error(), "UFN_BACKEND: \"bogus\" names no backend (auto, cuda, host, "
                                 "sim)") == 0);
    ufn_array d;
    CHECK(3, ufn_device_array(UFN_FLOAT32, 1, (int64_t[]){4}, &d) == UFN_ERR_BACKEND);
    CHECK(4, strstr(ufn_error(), "bogus") != NULL);
    float x[4] = {0};
    ufn_array a = ufn_host(x, UFN_FLOAT32, 1, (int64_t[]){4}), o = {0};
    CHECK(5, call2(&add_func, &a, &a, &o) == UFN_ERR_BACKEND);
    CHECK(6, o.memory == UFN_MEM_NONE);
    CHECK(7, ufn_device_count() == UFN_ERR_BACKEND);
    CHECK(8, ufn_synchronize() == UFN_ERR_BACKEND);
    /* an explicit valid choice still works */
    CHECK(9, ufn_init("nope") == UFN_ERR_BACKEND);
    CHECK(10, ufn_init("host") == 0);
    CHECK(11, call2(&add_func, &a, &a, &o) == 0);
    ufn_free(&o);
    return 0;
}

static int child_cuda(void)
{
    const char *b = ufn_backend();
    if (b)
        return strcmp(b, "cuda") == 0 ? 0 : 1;      /* a machine with a GPU */
    int st = ufn_error_status();
    CHECK(2, st == UFN_ERR_NO_DRIVER || st == UFN_ERR_NO_DEVICE || st == UFN_ERR_DRIVER);
    ufn_array d;
    CHECK(3, ufn_device_array(UFN_FLOAT32, 1, (int64_t[]){4}, &d) == st);
    return 0;
}

static int child_sim(void)
{
    const char *b = ufn_backend();
    if (b)
        return strcmp(b, "sim") == 0 ? 0 : 1;       /* once the simulator is built in */
    CHECK(2, ufn_error_status() == UFN_ERR_NO_DRIVER);
    return 0;
}

static int child_init_first(void)
{
    CHECK(1, ufn_init("host") == 0);
    CHECK(2, strcmp(ufn_backend(), "host") == 0);
    return 0;
}

static void *ask_backend(void *arg)
{
    *(const char **)arg = ufn_backend();
    return NULL;
}

static int child_racing_threads(void)
{
    enum { T = 8 };
    pthread_t t[T];
    const char *got[T];
    for (int i = 0; i < T; i++)
        pthread_create(&t[i], NULL, ask_backend, &got[i]);
    for (int i = 0; i < T; i++)
        pthread_join(t[i], NULL);
    for (int i = 0; i < T; i++)
        CHECK(1 + i, got[i] && got[i] == got[0]);
    return 0;
}

static void test_backend_choice(void **state)
{
    (void)state;
    in_child(NULL, NULL, child_default);
    in_child("UFN_BACKEND", "auto", child_default);
    in_child("UFN_BACKEND", "host", child_host);
    in_child("UFN_BACKEND", "bogus", child_bogus);
    in_child("UFN_BACKEND", "cuda", child_cuda);
    in_child("UFN_BACKEND", "sim", child_sim);
    in_child("UFN_BACKEND", "cuda", child_init_first);     /* ufn_init overrides the variable */
    in_child("UFN_BACKEND", "host", child_racing_threads);
}

/* ---- bad environment values: a status and a message, as for UFN_BACKEND ---------------------- */

static const char *bad_value_text;

static int child_bad_value(void)
{
    double x[4] = {1, 2, 3, 4};
    ufn_array a = ufn_host(x, UFN_FLOAT64, 1, (int64_t[]){4}), o = {0};
    CHECK(1, call2(&add_func, &a, &a, &o) == UFN_ERR_INVALID);
    CHECK(2, strstr(ufn_error(), bad_value_text) != NULL);
    CHECK(3, ufn_backend() == NULL);
    CHECK(4, o.memory == UFN_MEM_NONE);
    return 0;
}

static void bad(const char *var, const char *value, const char *text)
{
    bad_value_text = text;
    in_child(var, value, child_bad_value);
}

static void test_bad_environment(void **state)
{
    (void)state;
    bad("UFN_NUM_THREADS", "abc", "UFN_NUM_THREADS=abc is not a number of threads (1 to 256)");
    bad("UFN_NUM_THREADS", "0", "UFN_NUM_THREADS=0 is not a number of threads");
    bad("UFN_NUM_THREADS", "1000", "UFN_NUM_THREADS=1000 is not a number of threads");
    bad("UFN_HOST_ISA", "avx1024", "UFN_HOST_ISA=avx1024 names no instruction set (baseline, avx2, avx512)");
    bad("UFN_STAGE_BYTES", "0", "UFN_STAGE_BYTES=0 is not a number of bytes (4096 to 2^40)");
    bad("UFN_STAGE_BYTES", "16M", "UFN_STAGE_BYTES=16M is not a number of bytes");
}

/* ---- UFN_TRACE ------------------------------------------------------------------------------- */

/* Whether buf has the line prefix, then for a timed event its duration
 * as " (12.345 us)" (any value), then the end of the line. */
static bool has_line(const char *buf, const char *prefix, bool timed)
{
    for (const char *p = strstr(buf, prefix); p; p = strstr(p + 1, prefix)) {
        if (p != buf && p[-1] != '\n')
            continue;
        const char *q = p + strlen(prefix);
        if (timed) {
            if (strncmp(q, " (", 2) != 0 || !isdigit((unsigned char)q[2]))
                continue;
            for (q += 2; isdigit((unsigned char)*q); q++)
                ;
            if (q[0] != '.' || !isdigit((unsigned char)q[1]) || !isdigit((unsigned char)q[2]) ||
                !isdigit((unsigned char)q[3]))
                continue;
            q += 4;
            if (strncmp(q, " us)", 4) != 0)
                continue;
            q += 4;
        }
        if (*q == '\n')
            return true;
    }
    return false;
}

/* UFN_TRACE=1 (and =time, the same): one line per event, a timed event's
 * with its duration (issue 19), a free's without. */
static int child_trace(void)
{
    char path[] = "/tmp/ufn-trace-XXXXXX";
    int fd = mkstemp(path);
    CHECK(1, fd >= 0);
    dup2(fd, 2);
    CHECK(2, ufn_init("host") == 0);
    double x[4] = {1, 2, 3, 4};
    ufn_array a = ufn_host(x, UFN_FLOAT64, 1, (int64_t[]){4}), d, o = {0};
    CHECK(3, ufn_to_device(&a, &d) == 0);
    CHECK(4, call2(&add_func, &d, &d, &o) == 0);
    ufn_free(&d);
    ufn_free(&o);
    char buf[4096] = {0};
    lseek(fd, 0, SEEK_SET);
    CHECK(5, read(fd, buf, sizeof buf - 1) > 0);
    unlink(path);
    CHECK(6, has_line(buf, "ufn: host alloc     32 bytes device 0", false));
    CHECK(7, has_line(buf, "ufn: host H2D       32 bytes device 0", true));
    CHECK(8, has_line(buf, "ufn: host host-loop add 4 elements device 0", true));
    CHECK(9, has_line(buf, "ufn: host free      0 bytes device 0", false));
    return 0;
}

static int child_no_trace(void)
{
    char path[] = "/tmp/ufn-trace-XXXXXX";
    int fd = mkstemp(path);
    CHECK(1, fd >= 0);
    dup2(fd, 2);
    double x[4] = {1, 2, 3, 4};
    ufn_array a = ufn_host(x, UFN_FLOAT64, 1, (int64_t[]){4}), o = {0};
    CHECK(2, call2(&add_func, &a, &a, &o) == 0);
    ufn_array bad = ufn_host(x, UFN_FLOAT64, 1, (int64_t[]){3});
    CHECK(3, call2(&add_func, &a, &bad, &o) == UFN_ERR_SHAPE);   /* errors are not printed */
    ufn_free(&o);
    off_t size = lseek(fd, 0, SEEK_END);
    unlink(path);
    CHECK(4, size == 0);
    return 0;
}

static void test_trace_env(void **state)
{
    (void)state;
    in_child("UFN_TRACE", "1", child_trace);
    in_child("UFN_TRACE", "time", child_trace);
    in_child("UFN_TRACE", "0", child_no_trace);
    in_child(NULL, NULL, child_no_trace);
}

/* ---- the trace hook (in this process, host backend) ------------------------------------------- */

static ufn_event events[64];
static char names[64][32];
static int nevents;

static void record(const ufn_event *ev, void *ctx)
{
    (void)ctx;
    if (nevents < 64) {
        events[nevents] = *ev;
        snprintf(names[nevents], sizeof names[0], "%s", ev->name ? ev->name : "");
        nevents++;
    }
}

static void test_trace_hook(void **state)
{
    (void)state;
    nevents = 0;
    ufn_set_trace_hook(record, NULL);
    assert_true(ufn_tracing());
    float x[10] = {0};
    ufn_array a = ufn_host(x, UFN_FLOAT32, 1, (int64_t[]){10}), d, o = {0};
    assert_int_equal(ufn_to_device(&a, &d), 0);
    assert_int_equal(call2(&atan2_func, &d, &a, &o), 0);
    ufn_free(&d);
    ufn_free(&o);
    ufn_set_trace_hook(NULL, NULL);
    /* UFN_BACKEND=auto (unset) chose in the first call, and said why */
    int first = events[0].kind == UFN_EV_CHOICE;
    if (first)
        assert_true(strncmp(names[0], "auto: ", 6) == 0);
    const ufn_event *e = events + first;
    assert_int_equal(nevents, 4 + first);
    assert_true(e[0].kind == UFN_EV_ALLOC && e[0].bytes == 40);
    assert_true(e[1].kind == UFN_EV_H2D && e[1].bytes == 40);
    assert_true(e[2].kind == UFN_EV_HOST_LOOP && e[2].bytes == 10);
    assert_string_equal(names[2 + first], "gpu_arctan2");
    assert_string_equal(e[2].backend, "host");
    assert_int_equal(e[3].kind, UFN_EV_FREE);
    assert_string_equal(ufn_event_name(UFN_EV_CHOICE), "choice");
    assert_string_equal(ufn_event_name(UFN_EV_D2H), "D2H");
    assert_string_equal(ufn_event_name(UFN_EV_LAUNCH), "launch");
}

/* ---- errors are per thread --------------------------------------------------------------------- */

static void *fresh_thread_error(void *arg)
{
    *(int *)arg = ufn_error()[0] == '\0' && ufn_error_status() == 0;
    return NULL;
}

static void test_errors_per_thread(void **state)
{
    (void)state;
    ufn_array bad = ufn_host(NULL, UFN_FLOAT32, -3, NULL), o = {0};
    assert_int_equal(call2(&add_func, &bad, &bad, &o), UFN_ERR_NDIM);
    assert_true(ufn_error()[0] != '\0');
    int clean = 0;
    pthread_t t;
    pthread_create(&t, NULL, fresh_thread_error, &clean);
    pthread_join(t, NULL);
    assert_true(clean);
    assert_int_equal(ufn_error_status(), UFN_ERR_NDIM);
    ufn_clear_error();
    assert_string_equal(ufn_error(), "");
}

/* ---- descriptors and transfers on the host backend ------------------------------------------- */

static void test_descriptors(void **state)
{
    (void)state;
    double x[6];
    ufn_array a = ufn_host(x, UFN_FLOAT64, 2, (int64_t[]){2, 3});
    assert_true(a.memory == UFN_MEM_HOST && a.strides[0] == 3 && a.strides[1] == 1);
    assert_int_equal(a.alloc_id, 0);
    assert_int_equal(ufn_size(&a), 6);
    ufn_array s = ufn_scalar_complex64(1.5f, -2);
    assert_true(s.ndim == 0 && s.data == NULL && (s.flags & UFN_WEAK));
    float c[2];
    memcpy(c, s.value.bytes, 8);
    assert_true(c[0] == 1.5f && c[1] == -2);
    assert_int_equal(ufn_size(&s), 1);
    ufn_array u = ufn_scalar_uint64(UINT64_MAX);
    assert_true(u.value.u64 == UINT64_MAX && u.dtype == UFN_UINT64);
    assert_true(ufn_scalar_bool(7).value.bytes[0] == 1);
    assert_true(ufn_scalar_float32(0.5f).value.f32 == 0.5f);
    ufn_array e = {0};
    assert_int_equal(ufn_size(&e), 0);
    assert_int_equal(ufn_size(NULL), -1);
    ufn_array bad = ufn_host(x, UFN_FLOAT64, 40, NULL);
    assert_int_equal(ufn_size(&bad), -1);
    ufn_array neg = ufn_host(x, UFN_FLOAT64, 1, (int64_t[]){-1});
    assert_int_equal(ufn_size(&neg), -1);
    /* ufn_free leaves views alone */
    ufn_free(&a);
    assert_ptr_equal(a.data, x);
    ufn_free(NULL);
}

static void test_host_backend_transfers(void **state)
{
    (void)state;
    int16_t h[6] = {1, 2, 3, 4, 5, 6};
    ufn_array a = ufn_host_strided(h + 5, UFN_INT16, 2, (int64_t[]){2, 3}, (int64_t[]){-3, -1});
    ufn_array d;
    assert_int_equal(ufn_to_device(&a, &d), 0);
    assert_int_equal(d.memory, UFN_MEM_HOST);      /* the host backend's "device" */
    assert_true(d.alloc_id != 0 && (uintptr_t)d.data % 64 == 0);
    int16_t want[6] = {6, 5, 4, 3, 2, 1};
    assert_memory_equal(d.data, want, sizeof want);
    ufn_array back = {0};
    assert_int_equal(ufn_copy_to_host(&d, &back), 0);
    assert_memory_equal(back.data, want, sizeof want);
    assert_ptr_not_equal(back.data, d.data);
    ufn_free(&back);
    /* a scalar goes to the device as a 0-d array */
    ufn_array s = ufn_scalar_float64(2.5), ds;
    assert_int_equal(ufn_to_device(&s, &ds), 0);
    assert_true(ds.ndim == 0 && *(double *)ds.data == 2.5 && !(ds.flags & UFN_WEAK));
    ufn_free(&ds);
    ufn_array z;
    assert_int_equal(ufn_device_array(UFN_COMPLEX128, 2, (int64_t[]){0, 4}, &z), 0);
    assert_non_null(z.data);
    ufn_free(&z);
    /* misuse */
    assert_int_equal(ufn_to_device(NULL, &d), UFN_ERR_INVALID);
    assert_int_equal(ufn_to_device(&a, NULL), UFN_ERR_INVALID);
    assert_int_equal(ufn_device_array(UFN_FLOAT32, 1, NULL, &z), UFN_ERR_INVALID);
    assert_int_equal(ufn_device_array(UFN_FLOAT32, 1, (int64_t[]){4}, NULL), UFN_ERR_INVALID);
    assert_int_equal(ufn_device_array((ufn_dtype)13, 1, (int64_t[]){4}, &z), UFN_ERR_DTYPE);
    assert_int_equal(ufn_device_array(UFN_FLOAT32, 33, (int64_t[33]){0}, &z), UFN_ERR_NDIM);
    assert_int_equal(ufn_device_array(UFN_FLOAT32, 1, (int64_t[]){-4}, &z), UFN_ERR_SHAPE);
    assert_int_equal(ufn_device_array(UFN_FLOAT32, 2, (int64_t[]){1ll << 62, 4}, &z),
                     UFN_ERR_OVERFLOW);
    assert_int_equal(ufn_copy_to_host(&d, NULL), UFN_ERR_INVALID);
    ufn_array stale = d;
    ufn_free(&d);
    assert_int_equal(ufn_copy_to_host(&stale, &back), UFN_ERR_FREED);
    char want_msg[200];
    snprintf(want_msg, sizeof want_msg, "ufn_copy_to_host: the device array: the array was freed "
             "or was never allocated by the runtime (allocation #%llu is not live)",
             (unsigned long long)stale.alloc_id);
    assert_string_equal(ufn_error(), want_msg);
    assert_int_equal(back.memory, UFN_MEM_NONE);
    assert_int_equal(ufn_registry_count(), 0);
}

int main(void)
{
    /* The children must inherit a runtime that has chosen nothing. */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_backend_choice),
        cmocka_unit_test(test_bad_environment),
        cmocka_unit_test(test_trace_env),
        cmocka_unit_test(test_trace_hook),
        cmocka_unit_test(test_errors_per_thread),
        cmocka_unit_test(test_descriptors),
        cmocka_unit_test(test_host_backend_transfers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
