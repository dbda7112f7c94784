/* reduce_trace.c - add.reduce of a device array on the device, for
 * trace.sh: the sum of 100000 float32 over every axis, and over the last
 * axis of the same values as (4, 25000), each in two launches of the
 * signature's reduce kernel with nothing copied to the host between them
 * (reduce_trace.expected). */
#include <stdio.h>

#include "methods.h"

int main(void)
{
    enum { N = 100000 };
    static float x[N];
    for (int i = 0; i < N; i++)
        x[i] = (float)(i % 7);
    int64_t shape[1] = {N}, rows[2] = {4, N / 4};
    ufn_array h = ufn_host(x, UFN_FLOAT32, 1, shape), h2 = ufn_host(x, UFN_FLOAT32, 2, rows);
    ufn_array d = {0}, d2 = {0}, sum = {0}, sums = {0}, back = {0}, back2 = {0};
    ufn_reduce_opts all = {.naxes = UFN_AXES_ALL}, last = {.naxes = 1, .axes = {-1}};
    int st = ufn_to_device(&h, &d);
    if (st == 0)
        st = add_reduce(&d, &all, &sum);
    if (st == 0)
        st = ufn_copy_to_host(&sum, &back);
    if (st == 0)
        st = ufn_to_device(&h2, &d2);
    if (st == 0)
        st = add_reduce(&d2, &last, &sums);
    if (st == 0)
        st = ufn_copy_to_host(&sums, &back2);
    if (st != 0) {
        fprintf(stderr, "reduce_trace: %s\n", ufn_error());
        return 1;
    }
    const float *r = back2.data;
    printf("sum %.1f, rows %.1f %.1f %.1f %.1f\n", *(const float *)back.data, r[0], r[1], r[2], r[3]);
    ufn_array *all_arrays[] = {&d, &d2, &sum, &sums, &back, &back2};
    for (int k = 0; k < 6; k++)
        ufn_free(all_arrays[k]);
    return 0;
}
