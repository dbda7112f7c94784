/* data.c - reproducible inputs: splitmix64, uniform and normal deviates. */
#include "bench.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

rng rng_seed(uint64_t seed)
{
    return (rng){seed * 0x9E3779B97F4A7C15ull + 1};
}

static uint64_t next(rng *r)
{
    uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

double rng_uniform(rng *r, double lo, double hi)
{
    return lo + (hi - lo) * ((double)(next(r) >> 11) * 0x1.0p-53);
}

/* Box-Muller; one value per call is plenty fast for set-up. */
double rng_normal(rng *r, double mean, double sd)
{
    double u = rng_uniform(r, 0x1.0p-53, 1.0), v = rng_uniform(r, 0.0, 1.0);
    return mean + sd * sqrt(-2.0 * log(u)) * cos(2.0 * 3.14159265358979323846 * v);
}

void *bench_alloc(size_t bytes)
{
    void *p = NULL;
    size_t rounded = (bytes + 4095) & ~(size_t)4095;
    if (posix_memalign(&p, 4096, rounded ? rounded : 4096) != 0)
        return NULL;
    memset(p, 0, rounded ? rounded : 4096);
    return p;
}
