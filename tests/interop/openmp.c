/* openmp.c - ufn_set_num_threads and calls from an OpenMP program (built
 * with -fopenmp, run on the host backend).
 *
 * Calls made inside a parallel region must run on their calling threads
 * alone: the process then has the OpenMP team's threads and no pool
 * workers.  The test counts the process's threads (/proc/self/task) after
 * such a region, then makes one call outside it and sees the workers
 * appear - so the count does show the pool when it is used.
 */
#include <dirent.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>

#include "check.h"
#include "interop.h"

#define TEAM 4
#define N (1 << 20)     /* per thread: far above what the pool splits */

static int process_threads(void)
{
    DIR *d = opendir("/proc/self/task");
    int n = 0;
    if (!d)
        return -1;
    for (struct dirent *e; (e = readdir(d));)
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

/* y = 2x + 1 over x[i] = i, checked. */
static int call_and_check(double *x, double *y, long n)
{
    for (long i = 0; i < n; i++)
        x[i] = (double)i;
    int64_t shape[1] = { n };
    ufn_array xa = ufn_host(x, UFN_FLOAT64, 1, shape);
    ufn_array ya = ufn_host(y, UFN_FLOAT64, 1, shape);
    ufn_array two = ufn_scalar_float64(2.0);
    if (axpb(&xa, &two, &ya) < 0)
        return -1;
    for (long i = 0; i < n; i++)
        if (y[i] != 2.0 * (double)i + 1.0)
            return 1;
    return 0;
}

int main(void)
{
    CHECK(ufn_set_num_threads(-1) == UFN_ERR_INVALID);
    CHECK(ufn_set_num_threads(257) == UFN_ERR_INVALID);
    CHECK(ufn_set_num_threads(3) == UFN_OK);
    CHECK(ufn_get_num_threads() == 3);
    CHECK(ufn_set_num_threads(0) == UFN_OK);     /* the default again */
    CHECK(ufn_get_num_threads() >= 1);
    CHECK(ufn_set_num_threads(TEAM) == UFN_OK);

    double *x = malloc(sizeof(double) * N * TEAM), *y = malloc(sizeof(double) * N * TEAM);
    if (!x || !y)
        return 2;
    int bad = 0;
#pragma omp parallel num_threads(TEAM) reduction(+ : bad)
    {
        int t = omp_get_thread_num();
        bad += call_and_check(x + (long)t * N, y + (long)t * N, N) != 0;
    }
    CHECK(bad == 0);
    int team = process_threads();
    /* The main thread and the team's other TEAM - 1 (kept by libgomp). */
    CHECK(team == TEAM);
    if (team != TEAM)
        fprintf(stderr, "openmp: %d threads after the parallel region, %d expected\n", team,
                TEAM);

    /* Outside a region the call uses the pool: its workers appear. */
    CHECK(call_and_check(x, y, (long)N * TEAM) == 0);
    int after = process_threads();
    CHECK(after == team + TEAM - 1);
    free(x);
    free(y);
    return done("openmp");
}
