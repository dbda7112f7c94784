/* openmp.c - cooperating with an OpenMP program.
 *
 * A ufunc called from inside an OpenMP parallel region already runs on one
 * of the program's threads, and the others are busy with their own share:
 * if the call also woke the pool's workers, the machine would run threads x
 * workers threads on its cores.  So such a call runs on its calling thread
 * alone (pool.c asks here).  The OpenMP runtime is not linked in: its
 * omp_in_parallel() is looked up in the process (dlsym), so a program
 * without OpenMP pays one failed look-up per parallel call, and libufnrt
 * needs no OpenMP of its own.  A runtime loaded later (dlopen of a library
 * built with -fopenmp, RTLD_GLOBAL) is found by the next look-up.
 */
#define _GNU_SOURCE 1
#include <dlfcn.h>
#include <stdatomic.h>

#include "ufnrt.h"

typedef int (*omp_query)(void);

static _Atomic(omp_query) in_parallel;

bool ufn_omp_in_parallel(void)
{
    omp_query q = atomic_load_explicit(&in_parallel, memory_order_acquire);
    if (!q) {
        /* A data pointer converted to a function pointer: POSIX guarantees
         * dlsym's result may be used so. */
        void *sym = dlsym(RTLD_DEFAULT, "omp_in_parallel");
        if (!sym)
            return false;
        *(void **)&q = sym;
        atomic_store_explicit(&in_parallel, q, memory_order_release);
    }
    return q() != 0;
}
