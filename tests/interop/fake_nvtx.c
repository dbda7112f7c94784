/* fake_nvtx.c - a stand-in for libnvToolsExt.so.1 (UFN_NVTX_LIBRARY): it
 * records the ranges pushed and popped, and the test reads the record
 * through fake_nvtx_log(). */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char record[4096];
static int depth;

static void add(const char *line)
{
    pthread_mutex_lock(&lock);
    size_t used = strlen(record);
    snprintf(record + used, sizeof record - used, "%s\n", line);
    pthread_mutex_unlock(&lock);
}

int nvtxRangePushA(const char *message)
{
    char line[160];
    snprintf(line, sizeof line, "push %s", message ? message : "(null)");
    add(line);
    return __atomic_fetch_add(&depth, 1, __ATOMIC_RELAXED);
}

int nvtxRangePop(void)
{
    add("pop");
    return __atomic_sub_fetch(&depth, 1, __ATOMIC_RELAXED);
}

const char *fake_nvtx_log(void)
{
    return record;
}
