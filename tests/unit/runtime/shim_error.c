/* shim_error.c - the few error functions of runtime/error.c the CUDA
 * backend's tests need, for a tree that does not have error.c yet (the
 * Makefile fragment mk/rtcuda.mk links this only then). */
#include <stdarg.h>
#include <stdio.h>

#include "ufnrt.h"

static _Thread_local char message[1024];

int ufn_vfail(int status, const char *fmt, va_list ap)
{
    vsnprintf(message, sizeof message, fmt, ap);
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

void ufn_clear_error(void)
{
    message[0] = '\0';
}

const char *ufn_error(void)
{
    return message;
}
