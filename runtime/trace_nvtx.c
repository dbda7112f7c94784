/* trace_nvtx.c - NVTX ranges for profilers (Nsight Systems) on the device
 * backends.
 *
 * Each ufunc call on the cuda (or sim) backend is one range named after the
 * ufunc, pushed before its transfers and launches and popped when the call
 * returns (call.c); a @cuda.jit launch one named after the kernel
 * (kernel.c), a reduction on the device one named "ufunc.reduce"
 * (reduce.c), so that a profile's timeline shows which call queued which
 * kernels.  libnvToolsExt is loaded at run time as the driver is (dlopen,
 * no link-time dependency): UFN_NVTX_LIBRARY names it (default
 * libnvToolsExt.so.1; "" turns ranges off).  Without it, or on the host
 * backend, a call costs one pthread_once check.  Only its two entry points
 * are used: nvtxRangePushA and nvtxRangePop, per thread, as NVTX nests them.
 */
#define _GNU_SOURCE 1
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>

#include "ufnrt.h"

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static int (*range_push)(const char *message);
static int (*range_pop)(void);

static void load(void)
{
    const char *path = getenv("UFN_NVTX_LIBRARY");
    if (path && !*path)
        return;
    void *lib = dlopen(path ? path : "libnvToolsExt.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib)
        return;
    void *push = dlsym(lib, "nvtxRangePushA"), *pop = dlsym(lib, "nvtxRangePop");
    if (!push || !pop) {
        dlclose(lib);
        return;
    }
    /* POSIX: dlsym's result may be used as a function pointer. */
    *(void **)&range_push = push;
    *(void **)&range_pop = pop;
}

bool ufn_nvtx_push(bool device, const char *name)
{
    if (!device)
        return false;
    pthread_once(&load_once, load);
    if (!range_push)
        return false;
    range_push(name);
    return true;
}

void ufn_nvtx_pop(void)
{
    if (range_pop)
        range_pop();
}
