/* test_cudrv.c - starting the backends: the real driver loader's failure
 * modes (no library, the toolkit's stub, an old driver, cuInit failing, no
 * device), the ABI versions it asks for, and the environment variables
 * (UFN_CUDA_LIBRARY, UFN_DEVICE, UFN_SIM_DEVICES, UFN_SIM_MEMORY).
 *
 * A backend starts once per process, so each case runs in a child process
 * with its own environment and sends its result back through a pipe. */
#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "cuda/cudrv.h"
#include "sim_module.h"

#define FAKE FAKE_CUDA_DIR "/fakecuda/libcuda.so.1"
#define FAKE_NOGPA FAKE_CUDA_DIR "/fakecuda-nogpa/libcuda.so.1"

typedef struct result {
    int status;
    char message[1024];
    int value[24];
    unsigned long long flags;
    char bad[256];       /* a check in the child that failed (no cmocka there) */
} result;

/* Checks inside the child cannot use cmocka's asserts: they record. */
#define CHILD_CHECK(r, cond)                                                      \
    do {                                                                          \
        if (!(cond) && !(r)->bad[0])                                              \
            snprintf((r)->bad, sizeof (r)->bad, "%s:%d: %s", __FILE__, __LINE__, #cond); \
    } while (0)

/* Run fn in a child with the given environment ("NAME=VALUE", or "NAME="
 * to unset), and return what it found. */
static result in_child(const char *const *env, int (*fn)(result *))
{
    int fd[2];
    assert_int_equal(pipe(fd), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(fd[0]);
        for (; *env; env++) {
            char name[128];
            const char *eq = strchr(*env, '=');
            snprintf(name, sizeof name, "%.*s", (int)(eq - *env), *env);
            if (eq[1])
                setenv(name, eq + 1, 1);
            else
                unsetenv(name);
        }
        result r;
        memset(&r, 0, sizeof r);
        r.status = fn(&r);
        if (!r.message[0])   /* fn may report something else */
            snprintf(r.message, sizeof r.message, "%s", ufn_error());
        ssize_t w = write(fd[1], &r, sizeof r);
        _exit(w == (ssize_t)sizeof r ? 0 : 1);
    }
    close(fd[1]);
    result r;
    size_t got = 0;
    while (got < sizeof r) {
        ssize_t n = read(fd[0], (char *)&r + got, sizeof r - got);
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    close(fd[0]);
    int wstatus;
    waitpid(pid, &wstatus, 0);
    assert_true(WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0);
    assert_int_equal(got, sizeof r);
    if (r.bad[0])
        fail_msg("in the child: %s", r.bad);
    return r;
}

#define ENV(...) ((const char *const[]){ __VA_ARGS__, NULL })

static void expect(const result *r, int status, const char *text)
{
    if (r->status != status || !strstr(r->message, text))
        print_error("status %d, message \"%s\"; expected %d and \"%s\"\n", r->status,
                    r->message, status, text);
    assert_int_equal(r->status, status);
    assert_non_null(strstr(r->message, text));
}

/* ---- the loader ------------------------------------------------------------------- */

static const char *const versioned[] = {
    "cuMemAlloc", "cuMemFree", "cuMemAllocHost", "cuMemGetInfo", "cuMemcpyHtoDAsync",
    "cuMemcpyDtoHAsync", "cuMemcpyDtoDAsync", "cuLaunchKernel", "cuCtxPushCurrent",
    "cuCtxPopCurrent", "cuStreamDestroy", "cuEventDestroy", "cuDevicePrimaryCtxRelease",
    "cuLibraryLoadData", "cuOccupancyMaxPotentialBlockSize", "cuDriverGetVersion",
    "cuPointerGetAttribute", "cuStreamBeginCapture", "cuStreamEndCapture",
    "cuGraphInstantiateWithFlags", "cuGraphLaunch",
};
static const int expected_version[] = {
    3020, 3020, 3020, 3020, 3020, 3020, 3020, 4000, 4000, 4000, 4000, 4000, 11000, 12000,
    6050, 2020, 4000, 10010, 10000, 11040, 10000,
};
#define NVERSIONED ((int)(sizeof versioned / sizeof versioned[0]))

static int load(result *r)
{
    ufn_cudrv drv;
    int status = ufn_cudrv_load(&drv);
    if (status == 0) {
        int (*version)(const char *);
        void *sym = dlsym(drv.dl, "fake_requested_version");
        memcpy(&version, &sym, sizeof sym);
        for (int i = 0; i < NVERSIONED && sym; i++)
            r->value[i] = version(versioned[i]);
        unsigned long long (*flags)(void);
        sym = dlsym(drv.dl, "fake_requested_flags");
        memcpy(&flags, &sym, sizeof sym);
        r->flags = sym ? flags() : ~0ull;
        CHILD_CHECK(r, strcmp(drv.name, "cuda") == 0);
        CHILD_CHECK(r, !drv.sim);
        /* the graph calls are optional: FAKE_CUDA_MODE=nograph has none */
        const char *mode = getenv("FAKE_CUDA_MODE");
        bool graphs = !mode || strcmp(mode, "nograph") != 0;
        CHILD_CHECK(r, !drv.cuStreamBeginCapture == !graphs && !drv.cuStreamEndCapture == !graphs &&
                       !drv.cuGraphInstantiate == !graphs && !drv.cuGraphLaunch == !graphs &&
                       !drv.cuGraphExecDestroy == !graphs && !drv.cuGraphDestroy == !graphs);
    }
    return status;
}

static void test_no_library(void **state)
{
    (void)state;
    result r = in_child(ENV("UFN_CUDA_LIBRARY=/nonexistent/libcuda.so.1"), load);
    expect(&r, UFN_ERR_NO_DRIVER,
           "no CUDA driver: cannot load /nonexistent/libcuda.so.1 (UFN_CUDA_LIBRARY): ");
    expect(&r, UFN_ERR_NO_DRIVER, "No such file");
}

/* Without UFN_CUDA_LIBRARY the loader asks for libcuda.so.1 (absent here). */
static void test_default_library(void **state)
{
    (void)state;
    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (h) {
        dlclose(h);
        skip();   /* a machine with a driver */
    }
    result r = in_child(ENV("UFN_CUDA_LIBRARY="), load);
    expect(&r, UFN_ERR_NO_DRIVER, "no CUDA driver: cannot load libcuda.so.1: ");
}

static void test_no_get_proc_address(void **state)
{
    (void)state;
    result r = in_child(ENV("UFN_CUDA_LIBRARY=" FAKE_NOGPA), load);
    expect(&r, UFN_ERR_NO_DRIVER, "has no cuGetProcAddress_v2: it is older than 12.0");
}

static void test_stub(void **state)
{
    (void)state;
    result r = in_child(ENV("UFN_CUDA_LIBRARY=" FAKE, "FAKE_CUDA_MODE=stub"), load);
    expect(&r, UFN_ERR_NO_DRIVER,
           FAKE " is the CUDA toolkit's stub, not a driver (CUDA_ERROR_STUB_LIBRARY)");
}

/* The toolkit's real stub, when it is installed. */
static void test_toolkit_stub(void **state)
{
    (void)state;
    if (!CUDA_STUB_LIBRARY[0])
        skip();
    char env[512];
    snprintf(env, sizeof env, "UFN_CUDA_LIBRARY=%s", CUDA_STUB_LIBRARY);
    result r = in_child(ENV(env), load);
    expect(&r, UFN_ERR_NO_DRIVER, "is the CUDA toolkit's stub, not a driver");
}

static void test_old_driver(void **state)
{
    (void)state;
    result r = in_child(ENV("UFN_CUDA_LIBRARY=" FAKE, "FAKE_CUDA_MODE=old"), load);
    expect(&r, UFN_ERR_NO_DRIVER, "is version 11.8, too old: ufnc needs 12.0 or newer");
}

static void test_missing_entry(void **state)
{
    (void)state;
    result r = in_child(ENV("UFN_CUDA_LIBRARY=" FAKE, "FAKE_CUDA_MODE=missing"), load);
    expect(&r, UFN_ERR_NO_DRIVER, "has no cuLibraryLoadData at ABI version 12000");
}

static void test_init_fails(void **state)
{
    (void)state;
    result r = in_child(ENV("UFN_CUDA_LIBRARY=" FAKE, "FAKE_CUDA_MODE=initfail"), load);
    expect(&r, UFN_ERR_DRIVER,
           "cuInit(0) failed: CUDA_ERROR_SYSTEM_DRIVER_MISMATCH (system has unsupported "
           "display driver / cuda driver combination)");
}

static void test_no_device(void **state)
{
    (void)state;
    result r = in_child(ENV("UFN_CUDA_LIBRARY=" FAKE, "FAKE_CUDA_MODE=nodevice"), load);
    expect(&r, UFN_ERR_NO_DEVICE, "reports no device");
}

static void test_pinned_versions(void **state)
{
    (void)state;
    result r = in_child(ENV("UFN_CUDA_LIBRARY=" FAKE, "FAKE_CUDA_MODE=ok"), load);
    assert_int_equal(r.status, 0);
    assert_int_equal(r.flags, CU_GET_PROC_ADDRESS_LEGACY_STREAM);   /* legacy NULL stream */
    for (int i = 0; i < NVERSIONED; i++) {
        if (r.value[i] != expected_version[i])
            print_error("%s asked at %d, expected %d\n", versioned[i], r.value[i],
                        expected_version[i]);
        assert_int_equal(r.value[i], expected_version[i]);
    }
}

/* A driver without the graph calls loads; they stay NULL (checked in load). */
static void test_graph_calls_optional(void **state)
{
    (void)state;
    result r = in_child(ENV("UFN_CUDA_LIBRARY=" FAKE, "FAKE_CUDA_MODE=nograph"), load);
    assert_int_equal(r.status, 0);
    assert_string_equal(r.bad, "");
}

/* ---- the backends start once, and say why they cannot ------------------------------- */

static int start_cuda(result *r)
{
    const ufn_backend_ops *be = ufn_cuda_backend();
    if (!be) {
        /* Asked again: the same failure, not a second attempt. */
        char first[1024];
        snprintf(first, sizeof first, "%s", ufn_error());
        ufn_clear_error();
        CHILD_CHECK(r, ufn_cuda_backend() == NULL);
        CHILD_CHECK(r, strcmp(ufn_error(), first) == 0);
        return ufn_cuda_backend_state()->status;
    }
    cuda_backend *b = ufn_cuda_backend_state();
    r->value[0] = be->device_count(be);
    r->value[1] = be->default_device(be);
    r->value[2] = b->devs[b->current].sms;
    r->value[3] = b->devs[b->current].cc_major;
    CHILD_CHECK(r, strcmp(be->name, "cuda") == 0);
    CHILD_CHECK(r, strcmp(b->devs[0].name, "fake GPU") == 0);
    return 0;
}

static void test_cuda_backend_no_driver(void **state)
{
    (void)state;
    result r = in_child(ENV("UFN_CUDA_LIBRARY=/nonexistent/libcuda.so.1"), start_cuda);
    expect(&r, UFN_ERR_NO_DRIVER, "cannot load /nonexistent/libcuda.so.1");
}

static void test_cuda_backend_starts(void **state)
{
    (void)state;
    result r = in_child(ENV("UFN_CUDA_LIBRARY=" FAKE, "FAKE_CUDA_MODE=ok", "UFN_DEVICE="),
                        start_cuda);
    assert_int_equal(r.status, 0);
    assert_int_equal(r.value[0], 1);   /* devices */
    assert_int_equal(r.value[1], 0);   /* default device */
    assert_int_equal(r.value[2], 4);   /* its SMs */
    assert_int_equal(r.value[3], 9);   /* compute capability 9.x */
}

static void test_cuda_backend_bad_device(void **state)
{
    (void)state;
    result r = in_child(ENV("UFN_CUDA_LIBRARY=" FAKE, "FAKE_CUDA_MODE=ok", "UFN_DEVICE=1"),
                        start_cuda);
    expect(&r, UFN_ERR_NO_DEVICE, "UFN_DEVICE=1 names no cuda device: there is 1 (0 to 0)");
}

/* A host call on the cuda backend loads the module first. */
static int run_on_cuda(result *r)
{
    const ufn_backend_ops *be = ufn_cuda_backend();
    if (!be)
        return ufn_cuda_backend_state()->status;
    static ufn_module with_fatbin;
    static const unsigned char image[16] = { 0x50, 0xed, 0x55, 0xba };
    with_fatbin = test_module;
    with_fatbin.name = "with_fatbin";
    with_fatbin.fatbin = image;
    with_fatbin.fatbin_size = sizeof image;
    ufn_func f = test_add;
    f.module = r->value[0] ? &with_fatbin : &test_module;
    float a = 1, out;
    ufn_plan p;
    memset(&p, 0, sizeof p);
    p.func = &f;
    p.loop = &f.loops[0];
    p.nargs = 3;
    p.memory = UFN_MEM_HOST;
    p.n = 1;
    p.data[0] = p.data[1] = (char *)&a;
    p.data[2] = (char *)&out;
    p.elsize[0] = p.elsize[1] = p.elsize[2] = 4;
    return be->execute(be, &p, NULL);
}

static int run_without_fatbin(result *r)
{
    r->value[0] = 0;
    return run_on_cuda(r);
}

static int run_with_fatbin(result *r)
{
    r->value[0] = 1;
    return run_on_cuda(r);
}

static void test_cuda_backend_no_code(void **state)
{
    (void)state;
    result r = in_child(ENV("UFN_CUDA_LIBRARY=" FAKE, "FAKE_CUDA_MODE=ok", "UFN_DEVICE="),
                        run_without_fatbin);
    expect(&r, UFN_ERR_NO_CODE,
           "module 'sim_kernels' was built without CUDA device code: compile it with "
           "ufnc --target=cuda");
    r = in_child(ENV("UFN_CUDA_LIBRARY=" FAKE, "FAKE_CUDA_MODE=ok", "UFN_DEVICE="),
                 run_with_fatbin);
    expect(&r, UFN_ERR_NO_CODE,
           "module 'with_fatbin' has no code device 0 (fake GPU, sm_90) can run: "
           "cuLibraryLoadData failed: CUDA_ERROR_NO_BINARY_FOR_GPU");
    expect(&r, UFN_ERR_NO_CODE, "rebuild it with ufnc --arch=sm_90");
}

static int start_sim(result *r)
{
    const ufn_backend_ops *be = ufn_sim_backend();
    if (!be)
        return ufn_sim_backend_state()->status;
    r->value[0] = be->device_count(be);
    r->value[1] = be->default_device(be);
    void *p = NULL;
    r->value[2] = be->alloc(be, be->default_device(be), 2 << 20, NULL, &p);
    if (p)
        be->free(be, be->default_device(be), p, NULL);
    return 0;
}

static void test_sim_environment(void **state)
{
    (void)state;
    result r = in_child(ENV("UFN_SIM_DEVICES=", "UFN_DEVICE=", "UFN_SIM_MEMORY="), start_sim);
    assert_int_equal(r.status, 0);
    assert_int_equal(r.value[0], 2);
    assert_int_equal(r.value[1], 0);
    assert_int_equal(r.value[2], 0);

    r = in_child(ENV("UFN_SIM_DEVICES=3", "UFN_DEVICE=2", "UFN_SIM_MEMORY=1M"), start_sim);
    assert_int_equal(r.status, 0);
    assert_int_equal(r.value[0], 3);
    assert_int_equal(r.value[1], 2);
    assert_int_equal(r.value[2], UFN_ERR_DEVICE_NOMEM);   /* 2 MiB of 1 */

    r = in_child(ENV("UFN_SIM_DEVICES=0", "UFN_DEVICE="), start_sim);
    expect(&r, UFN_ERR_NO_DEVICE, "the sim driver reports no device (UFN_SIM_DEVICES=0)");

    r = in_child(ENV("UFN_SIM_DEVICES=two"), start_sim);
    expect(&r, UFN_ERR_INVALID, "UFN_SIM_DEVICES=two is not a number of simulated devices");

    r = in_child(ENV("UFN_SIM_DEVICES=", "UFN_SIM_MEMORY=12Q"), start_sim);
    expect(&r, UFN_ERR_INVALID, "UFN_SIM_MEMORY=12Q is not a number of bytes");

    r = in_child(ENV("UFN_SIM_DEVICES=", "UFN_SIM_MEMORY=", "UFN_DEVICE=2"), start_sim);
    expect(&r, UFN_ERR_NO_DEVICE, "UFN_DEVICE=2 names no sim device: there are 2 (0 to 1)");

    r = in_child(ENV("UFN_SIM_DEVICES=", "UFN_DEVICE=first"), start_sim);
    expect(&r, UFN_ERR_NO_DEVICE, "UFN_DEVICE=first names no sim device");
}

/* ---- which toolkit built a module ---------------------------------------------------- */

/* A fatbin of one entry: PTX of ISA major.minor (kind 1), or a cubin whose
 * payload holds `text` (kind 2), laid out as nvcc lays them out. */
static size_t fake_fatbin(unsigned char *buf, int kind, int major, int minor, const char *text)
{
    size_t payload = text ? strlen(text) + 1 : 32, body = 64 + payload;
    memset(buf, 0, 16 + body);
    const unsigned char head[] = { 0x50, 0xed, 0x55, 0xba, 1, 0, 16, 0 };
    memcpy(buf, head, sizeof head);
    memcpy(buf + 8, &body, 8);                      /* little-endian, as on the device */
    unsigned char *e = buf + 16;
    e[0] = (unsigned char)kind;
    e[2] = e[3] = 1;
    e[4] = 64;
    memcpy(e + 8, &payload, 8);
    e[24] = (unsigned char)minor;
    e[26] = (unsigned char)major;
    e[28] = 90;
    if (text)
        memcpy(e + 64, text, payload);
    return 16 + body;
}

static void test_fatbin_toolkit(void **state)
{
    (void)state;
    unsigned char buf[512];
    size_t n = fake_fatbin(buf, 1, 9, 0, NULL);
    assert_int_equal(ufn_fatbin_toolkit(buf, n), 13000);         /* PTX ISA 9: CUDA 13 */
    n = fake_fatbin(buf, 1, 8, 4, NULL);
    assert_int_equal(ufn_fatbin_toolkit(buf, n), 12000);
    n = fake_fatbin(buf, 2, 8, 1, "\x7f" "ELF...Cuda compilation tools, release 12.4, V12.4.131");
    assert_int_equal(ufn_fatbin_toolkit(buf, n), 12040);          /* ptxas's banner */
    n = fake_fatbin(buf, 2, 8, 1, "a cubin without a banner");
    assert_int_equal(ufn_fatbin_toolkit(buf, n), 0);
    n = fake_fatbin(buf, 1, 9, 0, NULL);
    assert_int_equal(ufn_fatbin_toolkit(buf, n - 1), 0);          /* truncated */
    buf[0] = 0;
    assert_int_equal(ufn_fatbin_toolkit(buf, n), 0);              /* not a fatbin */
    assert_int_equal(ufn_fatbin_toolkit(NULL, 0), 0);
    if (SIM_KERNELS_FATBIN[0]) {                                  /* what this nvcc makes */
        FILE *f = fopen(SIM_KERNELS_FATBIN, "rb");
        assert_non_null(f);
        static unsigned char image[1 << 20];
        size_t got = fread(image, 1, sizeof image, f);
        fclose(f);
        int v = ufn_fatbin_toolkit(image, got);
        assert_true(v >= 12000 && v % 10 == 0);
    }
}

static unsigned char cuda13_image[512];
static ufn_module cuda13;
static ufn_func cuda13_add;

/* test_add in a module whose fatbin CUDA 13 built. */
static void make_cuda13_module(void)
{
    cuda13 = test_module;
    cuda13.name = "cuda13";
    cuda13.fatbin = cuda13_image;
    cuda13.fatbin_size = fake_fatbin(cuda13_image, 1, 9, 0, NULL);
    cuda13_add = test_add;
    cuda13_add.module = &cuda13;
}

static int run_cuda13_on_cuda(result *r)
{
    (void)r;
    make_cuda13_module();
    const ufn_backend_ops *be = ufn_cuda_backend();
    if (!be)
        return ufn_cuda_backend_state()->status;
    float a = 1, out;
    ufn_plan p;
    memset(&p, 0, sizeof p);
    p.func = &cuda13_add;
    p.loop = &cuda13_add.loops[0];
    p.nargs = 3;
    p.memory = UFN_MEM_HOST;
    p.n = 1;
    p.data[0] = p.data[1] = (char *)&a;
    p.data[2] = (char *)&out;
    p.elsize[0] = p.elsize[1] = p.elsize[2] = 4;
    return be->execute(be, &p, NULL);
}

static char choice[600];

static void choice_hook(const ufn_event *ev, void *ctx)
{
    (void)ctx;
    if (ev->kind == UFN_EV_CHOICE)
        snprintf(choice, sizeof choice, "%s: %s", ev->backend, ev->name);
}

/* UFN_BACKEND=auto and the first call is of the CUDA 13 module. */
static int call_cuda13_auto(result *r)
{
    make_cuda13_module();
    ufn_set_trace_hook(choice_hook, NULL);
    float a[2] = { 1, 2 };
    ufn_array x = ufn_host(a, UFN_FLOAT32, 1, (int64_t[]){ 2 }), o = { 0 };
    const ufn_array *in[] = { &x, &x };
    ufn_array *out[] = { &o };
    int st = ufn_call(&cuda13_add, in, out);   /* the table has no host loop: NO_CODE */
    CHILD_CHECK(r, st == UFN_ERR_NO_CODE);
    CHILD_CHECK(r, ufn_backend() && strcmp(ufn_backend(), "host") == 0);
    snprintf(r->message, sizeof r->message, "%s", choice);
    return 0;
}

static void test_driver_older_than_module(void **state)
{
    (void)state;
    /* UFN_BACKEND=cuda: the call says why it cannot run */
    result r = in_child(ENV("UFN_CUDA_LIBRARY=" FAKE, "FAKE_CUDA_MODE=ok", "UFN_DEVICE="),
                        run_cuda13_on_cuda);
    expect(&r, UFN_ERR_NO_DRIVER,
           "module 'cuda13' was built by CUDA 13.0, and the CUDA driver is 12.4, which runs "
           "code of CUDA 12 and older: update the NVIDIA driver, or build the module with a "
           "CUDA 12 toolkit");
    /* auto: host, and the trace says why */
    r = in_child(ENV("UFN_CUDA_LIBRARY=" FAKE, "FAKE_CUDA_MODE=ok", "UFN_DEVICE=",
                     "UFN_BACKEND=auto"),
                 call_cuda13_auto);
    assert_int_equal(r.status, 0);
    if (!strstr(r.message, "host: auto: module 'cuda13' was built by CUDA 13.0"))
        fail_msg("the choice traced: \"%s\"", r.message);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_library),
        cmocka_unit_test(test_default_library),
        cmocka_unit_test(test_no_get_proc_address),
        cmocka_unit_test(test_stub),
        cmocka_unit_test(test_toolkit_stub),
        cmocka_unit_test(test_old_driver),
        cmocka_unit_test(test_missing_entry),
        cmocka_unit_test(test_init_fails),
        cmocka_unit_test(test_no_device),
        cmocka_unit_test(test_pinned_versions),
        cmocka_unit_test(test_graph_calls_optional),
        cmocka_unit_test(test_cuda_backend_no_driver),
        cmocka_unit_test(test_cuda_backend_starts),
        cmocka_unit_test(test_cuda_backend_bad_device),
        cmocka_unit_test(test_cuda_backend_no_code),
        cmocka_unit_test(test_sim_environment),
        cmocka_unit_test(test_fatbin_toolkit),
        cmocka_unit_test(test_driver_older_than_module),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
