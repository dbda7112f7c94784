/* fake-cuda.c - stands in for libcuda.so.1 in tests/driver/run.sh
 * (UFN_CUDA_LIBRARY), for ufnc --arch=native: the GPUs are the compute
 * capabilities listed in $FAKE_GPUS ("90,80,90"); none when it is empty. */
#include <stdlib.h>

static int gpu[16], ngpus;

int cuInit(unsigned flags)
{
    (void)flags;
    const char *s = getenv("FAKE_GPUS");
    ngpus = 0;
    while (s && *s && ngpus < 16) {
        char *end;
        gpu[ngpus++] = (int)strtol(s, &end, 10);
        s = *end ? end + 1 : end;
    }
    return 0;
}

int cuDeviceGetCount(int *n)
{
    *n = ngpus;
    return 0;
}

int cuDeviceGet(int *dev, int ordinal)
{
    *dev = ordinal;
    return ordinal < ngpus ? 0 : 101;           /* CUDA_ERROR_INVALID_DEVICE */
}

int cuDeviceGetAttribute(int *v, int attr, int dev)
{
    if (dev < 0 || dev >= ngpus || (attr != 75 && attr != 76))
        return 1;                               /* CUDA_ERROR_INVALID_VALUE */
    *v = attr == 75 ? gpu[dev] / 10 : gpu[dev] % 10;
    return 0;
}
