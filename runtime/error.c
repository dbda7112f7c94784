/* error.c - the last failure of each thread, and status names.
 *
 * Every failure in the runtime goes through ufn_fail(), which formats the
 * message into a thread-local buffer and returns the status, so that a caller
 * can write `return ufn_fail(UFN_ERR_SHAPE, "...")`.  The library never prints
 * its errors; ufn_error() hands the text to the application.
 */
#include <stdio.h>
#include <string.h>

#include "ufnrt.h"

#define MSG_MAX 1024

static _Thread_local char last_error[MSG_MAX];
static _Thread_local int last_status;

const char *ufn_error(void)
{
    return last_error;
}

void ufn_clear_error(void)
{
    last_error[0] = '\0';
    last_status = UFN_OK;
}

int ufn_error_status(void)
{
    return last_status;
}

int ufn_vfail(int status, const char *fmt, va_list ap)
{
    /* The message may be built from the previous one (ufn_fail_prefix), so
     * format into a scratch buffer first. */
    char buf[MSG_MAX];
    vsnprintf(buf, sizeof buf, fmt, ap);
    memcpy(last_error, buf, sizeof buf);
    last_status = status;
    return status;
}

int ufn_fail(int status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ufn_vfail(status, fmt, ap);
    va_end(ap);
    return status;
}

int ufn_set_error(int status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ufn_vfail(status, fmt, ap);
    va_end(ap);
    return status;
}

int ufn_fail_prefix(int status, const char *prefix)
{
    size_t n = strlen(prefix);
    if (n == 0 || (strncmp(last_error, prefix, n) == 0 && last_error[n] == ':'))
        return status;       /* already says whose failure it is */
    return ufn_fail(status, "%s: %s", prefix, last_error);
}

/* A recursive helper of generated code went too deep, on this thread (it
 * runs a host loop, or a simulated kernel); the caller of the loop or the
 * grid takes the flag (ufn_abi.h, "recursion"). */
static _Thread_local bool depth_exceeded;

__attribute__((visibility("default"))) void ufn_depth_exceeded(void)
{
    depth_exceeded = true;
}

bool ufn_depth_take(void)
{
    bool hit = depth_exceeded;
    depth_exceeded = false;
    return hit;
}

const char *ufn_status_name(int status)
{
    switch (status) {
    case UFN_OK: return "UFN_OK";
    case UFN_ERR_INVALID: return "UFN_ERR_INVALID";
    case UFN_ERR_NDIM: return "UFN_ERR_NDIM";
    case UFN_ERR_SHAPE: return "UFN_ERR_SHAPE";
    case UFN_ERR_CORE_DIM: return "UFN_ERR_CORE_DIM";
    case UFN_ERR_DTYPE: return "UFN_ERR_DTYPE";
    case UFN_ERR_OVERFLOW: return "UFN_ERR_OVERFLOW";
    case UFN_ERR_NOMEM: return "UFN_ERR_NOMEM";
    case UFN_ERR_DEVICE_NOMEM: return "UFN_ERR_DEVICE_NOMEM";
    case UFN_ERR_NO_DRIVER: return "UFN_ERR_NO_DRIVER";
    case UFN_ERR_NO_DEVICE: return "UFN_ERR_NO_DEVICE";
    case UFN_ERR_DRIVER: return "UFN_ERR_DRIVER";
    case UFN_ERR_FREED: return "UFN_ERR_FREED";
    case UFN_ERR_WRONG_MEMORY: return "UFN_ERR_WRONG_MEMORY";
    case UFN_ERR_NO_CODE: return "UFN_ERR_NO_CODE";
    case UFN_ERR_BACKEND: return "UFN_ERR_BACKEND";
    case UFN_ERR_OUTPUT: return "UFN_ERR_OUTPUT";
    case UFN_ERR_ALIGN: return "UFN_ERR_ALIGN";
    case UFN_ERR_RECURSION: return "UFN_ERR_RECURSION";
    case UFN_ERR_LAUNCH: return "UFN_ERR_LAUNCH";
    case UFN_ERR_KERNEL: return "UFN_ERR_KERNEL";
    case UFN_ERR_MPI: return "UFN_ERR_MPI";
    }
    return "UFN_ERR_UNKNOWN";
}
