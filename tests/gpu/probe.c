/* probe.c - is there a GPU for make check-gpu (or bench-gpu)?  Starts the
 * cuda backend and says which devices it has, or why not, and exits 1
 * without one.  Its argument names the target in the message. */
#include <stdio.h>

#include "ufn.h"

int main(int argc, char **argv)
{
    const char *who = argc > 1 ? argv[1] : "check-gpu";
    if (ufn_init("cuda") != UFN_OK) {
        fprintf(stderr, "%s: no CUDA device: %s\n", who, ufn_error());
        return 1;
    }
    int n = ufn_device_count();
    if (n < 1) {
        fprintf(stderr, "%s: no CUDA device: %s\n", who, ufn_error());
        return 1;
    }
    printf("%s: the cuda backend has %d device%s\n", who, n, n == 1 ? "" : "s");
    return 0;
}
