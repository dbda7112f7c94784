/* cudrv.c - the real CUDA driver, loaded at run time.
 *
 * No link-time dependency on CUDA: libcuda.so.1 is opened with dlopen, and
 * every entry point is fetched with cuGetProcAddress_v2 at the ABI version
 * the table was written for (aot-anchors.md 5.4), with the legacy default
 * stream's semantics (the caching allocator relies on them: an event on the
 * NULL stream waits for every blocking stream).  Asking for libcuda.so.1,
 * not libcuda.so, keeps the toolkit's stub out unless someone installs it
 * under that name; then the stub answers CUDA_ERROR_STUB_LIBRARY and we say so.
 */
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cudrv.h"

typedef CUresult (*get_proc_fn)(const char *symbol, void **fn, int version,
                                unsigned long long flags, int *found);

/* Each table member, the driver symbol it is fetched as, and the version. */
static const struct {
    const char *symbol;
    int version;
    size_t offset;
    bool optional;           /* newer than 12.0: missing, it stays NULL */
} entries[] = {
#define E(name, version) { #name, version, offsetof(ufn_cudrv, name), false }
#define OPT(name, symbol, version) { #symbol, version, offsetof(ufn_cudrv, name), true }
    E(cuDriverGetVersion, 2020),   /* first: the version decides the rest */
    E(cuGetErrorName, 6000),
    E(cuGetErrorString, 6000),
    E(cuInit, 2000),
    E(cuDeviceGetCount, 2000),
    E(cuDeviceGet, 2000),
    E(cuDeviceGetAttribute, 2000),
    E(cuDeviceGetName, 2000),
    E(cuDevicePrimaryCtxRetain, 7000),
    E(cuDevicePrimaryCtxRelease, 11000),
    E(cuCtxPushCurrent, 4000),
    E(cuCtxPopCurrent, 4000),
    E(cuCtxSynchronize, 2000),
    E(cuCtxSetLimit, 3010),
    E(cuCtxGetLimit, 3010),
    E(cuLibraryLoadData, 12000),
    E(cuLibraryGetKernel, 12000),
    E(cuKernelGetFunction, 12000),
    E(cuLibraryUnload, 12000),
    E(cuLibraryGetGlobal, 12000),
    E(cuMemAlloc, 3020),
    E(cuMemFree, 3020),
    E(cuMemAllocHost, 3020),
    E(cuMemFreeHost, 2000),
    E(cuMemGetInfo, 3020),
    E(cuPointerGetAttribute, 4000),
    E(cuMemcpyHtoDAsync, 3020),
    E(cuMemcpyDtoHAsync, 3020),
    E(cuMemcpyDtoDAsync, 3020),
    E(cuMemcpyPeerAsync, 4000),
    E(cuStreamCreate, 2000),
    E(cuStreamDestroy, 4000),
    E(cuStreamSynchronize, 2000),
    E(cuStreamWaitEvent, 3020),
    E(cuEventCreate, 2000),
    E(cuEventRecord, 2000),
    E(cuEventSynchronize, 2000),
    E(cuEventDestroy, 4000),
    E(cuLaunchKernel, 4000),
    E(cuOccupancyMaxPotentialBlockSize, 6050),
    E(cuOccupancyMaxActiveBlocksPerMultiprocessor, 6050),
    E(cuFuncGetAttribute, 2020),
    E(cuFuncSetAttribute, 9000),
    OPT(cuStreamBeginCapture, cuStreamBeginCapture, 10010),
    OPT(cuStreamEndCapture, cuStreamEndCapture, 10000),
    OPT(cuGraphInstantiate, cuGraphInstantiateWithFlags, 11040),
    OPT(cuGraphLaunch, cuGraphLaunch, 10000),
    OPT(cuGraphExecDestroy, cuGraphExecDestroy, 10000),
    OPT(cuGraphDestroy, cuGraphDestroy, 10000),
    OPT(cuStreamGetCtx, cuStreamGetCtx, 9020),
#undef OPT
#undef E
};

/* Names and texts of the results we may meet, for when the driver cannot
 * name them itself (it is missing, or it is the simulator). */
static const struct {
    CUresult code;
    const char *name;
    const char *text;
} results[] = {
    { CUDA_SUCCESS, "CUDA_SUCCESS", "no error" },
    { CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE", "invalid argument" },
    { CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory" },
    { CUDA_ERROR_NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED", "initialization error" },
    { CUDA_ERROR_DEINITIALIZED, "CUDA_ERROR_DEINITIALIZED", "driver shutting down" },
    { CUDA_ERROR_STUB_LIBRARY, "CUDA_ERROR_STUB_LIBRARY",
      "CUDA driver is a stub library" },
    { CUDA_ERROR_NO_DEVICE, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected" },
    { CUDA_ERROR_INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal" },
    { CUDA_ERROR_INVALID_IMAGE, "CUDA_ERROR_INVALID_IMAGE", "device kernel image is invalid" },
    { CUDA_ERROR_INVALID_CONTEXT, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context" },
    { CUDA_ERROR_NO_BINARY_FOR_GPU, "CUDA_ERROR_NO_BINARY_FOR_GPU",
      "no kernel image is available for execution on the device" },
    { CUDA_ERROR_INVALID_PTX, "CUDA_ERROR_INVALID_PTX",
      "a PTX JIT compilation failed" },
    { CUDA_ERROR_UNSUPPORTED_PTX_VERSION, "CUDA_ERROR_UNSUPPORTED_PTX_VERSION",
      "the provided PTX was compiled with an unsupported toolchain." },
    { CUDA_ERROR_INVALID_HANDLE, "CUDA_ERROR_INVALID_HANDLE", "invalid resource handle" },
    { CUDA_ERROR_ILLEGAL_STATE, "CUDA_ERROR_ILLEGAL_STATE", "the operation is not permitted in the current state" },
    { CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND", "named symbol not found" },
    { CUDA_ERROR_NOT_READY, "CUDA_ERROR_NOT_READY", "device not ready" },
    { CUDA_ERROR_ILLEGAL_ADDRESS, "CUDA_ERROR_ILLEGAL_ADDRESS",
      "an illegal memory access was encountered" },
    { CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES",
      "too many resources requested for launch" },
    { CUDA_ERROR_LAUNCH_TIMEOUT, "CUDA_ERROR_LAUNCH_TIMEOUT",
      "the launch timed out and was terminated" },
    { CUDA_ERROR_ASSERT, "CUDA_ERROR_ASSERT", "device-side assert triggered" },
    { CUDA_ERROR_HARDWARE_STACK_ERROR, "CUDA_ERROR_HARDWARE_STACK_ERROR",
      "hardware stack error" },
    { CUDA_ERROR_ILLEGAL_INSTRUCTION, "CUDA_ERROR_ILLEGAL_INSTRUCTION",
      "an illegal instruction was encountered" },
    { CUDA_ERROR_MISALIGNED_ADDRESS, "CUDA_ERROR_MISALIGNED_ADDRESS", "misaligned address" },
    { CUDA_ERROR_INVALID_PC, "CUDA_ERROR_INVALID_PC", "invalid program counter" },
    { CUDA_ERROR_LAUNCH_FAILED, "CUDA_ERROR_LAUNCH_FAILED", "unspecified launch failure" },
    { CUDA_ERROR_NOT_SUPPORTED, "CUDA_ERROR_NOT_SUPPORTED", "operation not supported" },
    { CUDA_ERROR_SYSTEM_DRIVER_MISMATCH, "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH",
      "system has unsupported display driver / cuda driver combination" },
    { CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED",
      "operation not permitted when stream is capturing" },
    { CUDA_ERROR_STREAM_CAPTURE_INVALIDATED, "CUDA_ERROR_STREAM_CAPTURE_INVALIDATED",
      "operation failed due to a previous error during capture" },
    { CUDA_ERROR_STREAM_CAPTURE_IMPLICIT, "CUDA_ERROR_STREAM_CAPTURE_IMPLICIT",
      "operation would make the legacy stream depend on a capturing blocking stream" },
    { CUDA_ERROR_UNKNOWN, "CUDA_ERROR_UNKNOWN", "unknown error" },
    { UFN_CUDA_NO_RESULT, "CUDA_SUCCESS without a result",
      "the driver reported success but returned nothing: it is broken, or not a CUDA driver" },
};

static int result_index(CUresult r)
{
    for (size_t i = 0; i < sizeof results / sizeof results[0]; i++)
        if (results[i].code == r)
            return (int)i;
    return -1;
}

const char *ufn_cudrv_error_name(const ufn_cudrv *drv, CUresult r)
{
    const char *s = NULL;
    if (drv && drv->cuGetErrorName && drv->cuGetErrorName(r, &s) == CUDA_SUCCESS && s)
        return s;
    int i = result_index(r);
    return i >= 0 ? results[i].name : "CUDA_ERROR_UNRECOGNIZED";
}

const char *ufn_cudrv_error_text(const ufn_cudrv *drv, CUresult r)
{
    const char *s = NULL;
    if (drv && drv->cuGetErrorString && drv->cuGetErrorString(r, &s) == CUDA_SUCCESS && s)
        return s;
    int i = result_index(r);
    return i >= 0 ? results[i].text : "unrecognized error code";
}

int ufn_cudrv_fail(const ufn_cudrv *drv, CUresult r, const char *call, ...)
{
    char what[256];
    va_list ap;
    va_start(ap, call);
    vsnprintf(what, sizeof what, call, ap);
    va_end(ap);
    bool fault = r == CUDA_ERROR_ILLEGAL_ADDRESS || r == CUDA_ERROR_LAUNCH_TIMEOUT ||
                 r == CUDA_ERROR_ASSERT || r == CUDA_ERROR_HARDWARE_STACK_ERROR ||
                 r == CUDA_ERROR_ILLEGAL_INSTRUCTION || r == CUDA_ERROR_MISALIGNED_ADDRESS ||
                 r == CUDA_ERROR_INVALID_PC || r == CUDA_ERROR_LAUNCH_FAILED;
    char report[600];
    if (fault && drv && drv->sim_report && drv->sim_report(report, sizeof report))
        return ufn_fail(UFN_ERR_KERNEL, "%s", report);
    int status = r == CUDA_ERROR_OUT_OF_MEMORY ? UFN_ERR_DEVICE_NOMEM
                 : fault                       ? UFN_ERR_KERNEL
                                               : UFN_ERR_DRIVER;
    const char *name = ufn_cudrv_error_name(drv, r);
    if (strcmp(name, "CUDA_ERROR_UNRECOGNIZED") == 0)
        return ufn_fail(status, "%s failed: CUDA error %d (%s)", what, r,
                        ufn_cudrv_error_text(drv, r));
    return ufn_fail(status, "%s failed: %s (%s)", what, name, ufn_cudrv_error_text(drv, r));
}

static int stub_failure(const char *path)
{
    return ufn_fail(UFN_ERR_NO_DRIVER,
                    "%s is the CUDA toolkit's stub, not a driver (CUDA_ERROR_STUB_LIBRARY): "
                    "install the NVIDIA driver, or take the toolkit's stubs directory out of "
                    "the library path",
                    path);
}

/* Fetch every entry of the table; the driver version is checked after the
 * first, before asking for entries an old driver lacks. */
static int resolve(ufn_cudrv *drv, get_proc_fn get_proc, const char *path)
{
    for (size_t i = 0; i < sizeof entries / sizeof entries[0]; i++) {
        void *fn = NULL;
        int found = -1;
        CUresult r = get_proc(entries[i].symbol, &fn, entries[i].version,
                              CU_GET_PROC_ADDRESS_LEGACY_STREAM, &found);
        if (r == CUDA_ERROR_STUB_LIBRARY)
            return stub_failure(path);
        if (entries[i].optional && (r != CUDA_SUCCESS || found != CU_GET_PROC_ADDRESS_SUCCESS || !fn))
            continue;
        if (r != CUDA_SUCCESS || found != CU_GET_PROC_ADDRESS_SUCCESS || !fn) {
            const char *why = found == CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT
                                  ? "the driver is too old for it"
                                  : "the symbol is missing";
            return ufn_fail(UFN_ERR_NO_DRIVER,
                            "the CUDA driver %s has no %s at ABI version %d (%s): "
                            "ufnc needs a CUDA 12.0 or newer driver",
                            path, entries[i].symbol, entries[i].version, why);
        }
        memcpy((char *)drv + entries[i].offset, &fn, sizeof fn);
        if (i == 0) {
            int version = 0;
            r = drv->cuDriverGetVersion(&version);
            if (r == CUDA_ERROR_STUB_LIBRARY)
                return stub_failure(path);
            if (r != CUDA_SUCCESS)
                return ufn_cudrv_fail(drv, r, "cuDriverGetVersion");
            drv->version = version;
            if (version < UFN_CUDA_MIN_DRIVER)
                return ufn_fail(UFN_ERR_NO_DRIVER,
                                "the CUDA driver %s is version %d.%d, too old: ufnc needs "
                                "12.0 or newer",
                                path, version / 1000, version % 1000 / 10);
        }
    }
    return 0;
}

static int start(ufn_cudrv *drv, const char *path)
{
    CUresult r = drv->cuInit(0);
    if (r == CUDA_ERROR_STUB_LIBRARY)
        return stub_failure(path);
    if (r == CUDA_ERROR_NO_DEVICE)
        return ufn_fail(UFN_ERR_NO_DEVICE, "no CUDA device: cuInit(0) failed: %s (%s)",
                        ufn_cudrv_error_name(drv, r), ufn_cudrv_error_text(drv, r));
    if (r != CUDA_SUCCESS)
        return ufn_cudrv_fail(drv, r, "cuInit(0)");
    int count = 0;
    r = drv->cuDeviceGetCount(&count);
    if (r != CUDA_SUCCESS)
        return ufn_cudrv_fail(drv, r, "cuDeviceGetCount");
    if (count <= 0)
        return ufn_fail(UFN_ERR_NO_DEVICE, "the CUDA driver %s reports no device", path);
    return 0;
}

int ufn_cudrv_load(ufn_cudrv *drv)
{
    const char *env = getenv("UFN_CUDA_LIBRARY");
    const char *path = env && *env ? env : "libcuda.so.1";
    memset(drv, 0, sizeof *drv);
    drv->name = "cuda";

    void *dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!dl) {
        const char *why = dlerror();
        return ufn_fail(UFN_ERR_NO_DRIVER, "no CUDA driver: cannot load %s%s: %s", path,
                        env && *env ? " (UFN_CUDA_LIBRARY)" : "", why ? why : "dlopen failed");
    }
    get_proc_fn get_proc;
    void *sym = dlsym(dl, "cuGetProcAddress_v2");
    memcpy(&get_proc, &sym, sizeof sym);
    int status;
    if (!sym)
        status = ufn_fail(UFN_ERR_NO_DRIVER,
                          "the CUDA driver %s has no cuGetProcAddress_v2: it is older than "
                          "12.0, and ufnc needs 12.0 or newer",
                          path);
    else
        status = resolve(drv, get_proc, path);
    if (status == 0)
        status = start(drv, path);
    if (status != 0) {
        dlclose(dl);
        memset(drv, 0, sizeof *drv);
        drv->name = "cuda";
        return status;
    }
    drv->dl = dl;
    return 0;
}
