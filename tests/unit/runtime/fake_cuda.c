/* fake_cuda.c - a stand-in libcuda.so.1 for the tests of the driver loader
 * (runtime/cuda/cudrv.c).  mk/rtcuda.mk builds it twice:
 *
 *   fakecuda/libcuda.so.1        exports cuGetProcAddress_v2; FAKE_CUDA_MODE
 *                                says how the "driver" behaves:
 *       stub      every call answers CUDA_ERROR_STUB_LIBRARY (34), as the
 *                 toolkit's stub libcuda.so does
 *       old       a 11.8 driver
 *       missing   cuLibraryLoadData cannot be found
 *       initfail  cuInit fails with CUDA_ERROR_SYSTEM_DRIVER_MISMATCH (803)
 *       nodevice  cuInit works, cuDeviceGetCount says 0
 *       nograph   as ok, without the graph calls (cuGraph*, cuStream*Capture)
 *       ok        a 12.4 driver with one device: enough of the API for the
 *                 backend to start (devices, attributes, primary context) and
 *                 to find that the device has no code in any module
 *                 (cuLibraryLoadData answers CUDA_ERROR_NO_BINARY_FOR_GPU)
 *   fakecuda-nogpa/libcuda.so.1  built with -DFAKE_NO_GET_PROC: exports only
 *                                cuInit, like a driver older than 12.0
 *
 * fake_requested_version(name) tells the tests at which ABI version the
 * loader asked for an entry point, fake_requested_flags() with which flags.
 */
#include <stdlib.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))

typedef int CUresult;

static const char *mode(void)
{
    const char *m = getenv("FAKE_CUDA_MODE");
    return m ? m : "ok";
}

static int is(const char *m)
{
    return strcmp(mode(), m) == 0;
}

EXPORT CUresult cuInit(unsigned flags)
{
    (void)flags;
    if (is("stub"))
        return 34;
    if (is("initfail"))
        return 803;
    return 0;
}

#ifndef FAKE_NO_GET_PROC

static struct {
    const char *name;
    int version;
    unsigned long long flags;
} requested[64];
static int nrequested;

EXPORT int fake_requested_version(const char *name)
{
    for (int i = 0; i < nrequested; i++)
        if (strcmp(requested[i].name, name) == 0)
            return requested[i].version;
    return -1;
}

/* The flags of every request ORed together. */
EXPORT unsigned long long fake_requested_flags(void)
{
    unsigned long long f = 0;
    for (int i = 0; i < nrequested; i++)
        f |= requested[i].flags;
    return f;
}

static CUresult driver_version(int *v)
{
    *v = is("old") ? 11080 : 12040;
    return 0;
}

static CUresult device_count(int *n)
{
    *n = is("nodevice") ? 0 : 1;
    return 0;
}

static CUresult device_get(int *dev, int ordinal)
{
    if (ordinal != 0)
        return 101;
    *dev = 0;
    return 0;
}

static CUresult device_attribute(int *value, int attr, int dev)
{
    (void)dev;
    *value = attr == 16 ? 4 : attr == 75 ? 9 : 0;   /* 4 SMs, compute capability 9.0 */
    return 0;
}

static CUresult device_name(char *name, int len, int dev)
{
    (void)dev;
    strncpy(name, "fake GPU", (size_t)len);
    name[len - 1] = '\0';
    return 0;
}

static int context;

static CUresult primary_retain(void **ctx, int dev)
{
    (void)dev;
    *ctx = &context;
    return 0;
}

static CUresult ctx_push(void *ctx)
{
    return ctx == &context ? 0 : 201;
}

static CUresult ctx_pop(void **ctx)
{
    if (ctx)
        *ctx = &context;
    return 0;
}

/* The device is newer than any code in the image (no image is read). */
static CUresult library_load(void **lib, const void *image, void *o1, void **v1, unsigned n1,
                             void *o2, void **v2, unsigned n2)
{
    (void)lib, (void)image, (void)o1, (void)v1, (void)n1, (void)o2, (void)v2, (void)n2;
    return 209;   /* CUDA_ERROR_NO_BINARY_FOR_GPU */
}

static CUresult error_name(CUresult r, const char **s)
{
    *s = r == 803   ? "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH"
         : r == 209 ? "CUDA_ERROR_NO_BINARY_FOR_GPU"
                    : "CUDA_ERROR_UNKNOWN";
    return 0;
}

static CUresult error_string(CUresult r, const char **s)
{
    *s = r == 803   ? "system has unsupported display driver / cuda driver combination"
         : r == 209 ? "no kernel image is available for execution on the device"
                    : "unknown error";
    return 0;
}

static CUresult not_supported(void)
{
    return 801;
}

static const struct {
    const char *name;
    void *fn;
    int since;
} table[] = {
    { "cuInit", (void *)cuInit, 2000 },
    { "cuDriverGetVersion", (void *)driver_version, 2020 },
    { "cuDeviceGetCount", (void *)device_count, 2000 },
    { "cuDeviceGet", (void *)device_get, 2000 },
    { "cuDeviceGetAttribute", (void *)device_attribute, 2000 },
    { "cuDeviceGetName", (void *)device_name, 2000 },
    { "cuDevicePrimaryCtxRetain", (void *)primary_retain, 7000 },
    { "cuGetErrorName", (void *)error_name, 6000 },
    { "cuGetErrorString", (void *)error_string, 6000 },
    { "cuCtxPushCurrent", (void *)ctx_push, 4000 },
    { "cuCtxPopCurrent", (void *)ctx_pop, 4000 },
    { "cuLibraryLoadData", (void *)library_load, 12000 },
    { "cuLibraryGetKernel", (void *)not_supported, 12000 },
    { "cuKernelGetFunction", (void *)not_supported, 12000 },
    { "cuLibraryUnload", (void *)not_supported, 12000 },
};

EXPORT CUresult cuGetProcAddress_v2(const char *symbol, void **fn, int version,
                                    unsigned long long flags, int *found)
{
    if (is("stub"))
        return 34;
    if (nrequested < 64) {
        requested[nrequested].name = symbol;
        requested[nrequested].flags = flags;
        requested[nrequested++].version = version;
    }
    *fn = NULL;
    if ((is("missing") && strcmp(symbol, "cuLibraryLoadData") == 0) ||
        (is("nograph") && (strncmp(symbol, "cuGraph", 7) == 0 || strstr(symbol, "Capture")))) {
        *found = 1;   /* CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND */
        return 500;   /* CUDA_ERROR_NOT_FOUND */
    }
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        if (strcmp(table[i].name, symbol) == 0) {
            if (version < table[i].since) {
                *found = 2;   /* VERSION_NOT_SUFFICIENT */
                return 500;
            }
            *fn = table[i].fn;
            *found = 0;
            return 0;
        }
    }
    *fn = (void *)not_supported;   /* everything else exists but is not implemented */
    *found = 0;
    return 0;
}

#endif /* FAKE_NO_GET_PROC */
