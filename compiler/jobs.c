/* jobs.c - how many threads nvcc may use for the architectures (issue 19).
 *
 * Under `make -jN` the N job slots are shared through make's jobserver
 * (MAKEFLAGS --jobserver-auth: a pipe "R,W", or "fifo:PATH" from make 4.4
 * on): a running job holds one slot implicitly, and takes more by reading
 * one byte per slot, which it writes back when done.  ufnc takes what is
 * free at once (it never waits: a slot it waited for would be one another
 * job could not start), runs nvcc with that many threads, and gives them
 * back after nvcc, on any exit and on a signal.
 *
 * make 4.3 closes the pipe in recipes not marked '+': MAKEFLAGS says -jN
 * but the slots cannot be reached.  Then ufnc keeps to its one slot.
 * Without make, or under a serial make, nvcc gets every CPU. */
#include "ufnc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int read_fd = -1, write_fd = -1;
static volatile int held;               /* slots taken from the jobserver */
static char tokens[MAX_ARCHS];          /* the bytes read: written back as they were */

/* The value of `--jobserver-auth=` (or make 4.1's `--jobserver-fds=`) in
 * MAKEFLAGS, and whether it asks for parallel jobs at all (-jN, N > 1). */
static const char *jobserver_auth(const char *flags, bool *parallel)
{
    *parallel = false;
    const char *auth = NULL;
    for (const char *p = flags; *p;) {
        while (*p == ' ')
            p++;
        size_t len = strcspn(p, " ");
        if (!strncmp(p, "--jobserver-auth=", 17) && len > 17)
            auth = arena_strndup(p + 17, len - 17);
        else if (!strncmp(p, "--jobserver-fds=", 16) && len > 16)
            auth = arena_strndup(p + 16, len - 16);
        else if (p[0] == '-' && p[1] == 'j' && atoi(p + 2) != 1)
            *parallel = true;       /* -jN, or -j alone: no limit */
        p += len;
    }
    return auth;
}

/* A new, non-blocking way to read the pipe or FIFO: setting O_NONBLOCK on
 * the descriptors make handed down would change them for make too. */
static bool open_jobserver(const char *auth)
{
    if (!strncmp(auth, "fifo:", 5)) {
        read_fd = open(auth + 5, O_RDWR | O_NONBLOCK | O_CLOEXEC);
        write_fd = read_fd;
        return read_fd >= 0;
    }
    int r, w;
    if (sscanf(auth, "%d,%d", &r, &w) != 2 || r < 0 || w < 0 || fcntl(r, F_GETFD) < 0 || fcntl(w, F_GETFD) < 0)
        return false;
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", r);
    read_fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    write_fd = w;
    return read_fd >= 0;
}

int jobs_threads(int want)
{
    const char *flags = getenv("MAKEFLAGS");
    bool parallel = false;
    const char *auth = flags ? jobserver_auth(flags, &parallel) : NULL;
    if (!auth || !parallel)
        return 0;                       /* nvcc's 0: as many as there are CPUs */
    if (read_fd < 0 && !open_jobserver(auth))
        return 1;
    while (held + 1 < want && held < MAX_ARCHS) {
        char c;
        ssize_t n = read(read_fd, &c, 1);
        if (n != 1)
            break;                      /* none free now (EAGAIN), or make is gone */
        tokens[held++] = c;
    }
    return held + 1;
}

/* Async-signal-safe: write(2) only (driver.c calls it from its handler). */
void jobs_release(void)
{
    while (held > 0) {
        char c = tokens[held - 1];
        if (write(write_fd, &c, 1) != 1 && errno == EINTR)
            continue;
        held--;
    }
}
