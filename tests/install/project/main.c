/* main.c - the install test's user program: samples/polar.ufn and scale.ufn
 * called through their generated headers; prints the backend and "ok" when
 * every result is right. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "polar.h"
#include "scale.h"

int main(void)
{
    float points[4][2] = {{1, 0}, {0, 2}, {-3, -3}, {3, 4}};
    float polar[4][2];
    int64_t shape[2] = {4, 2};
    ufn_array in = ufn_host(points, UFN_FLOAT32, 2, shape);
    ufn_array out = ufn_host(polar, UFN_FLOAT32, 2, shape);
    if (gpu_polar(&in, &out) < 0) {
        fprintf(stderr, "gpu_polar: %s\n", ufn_error());
        return 1;
    }
    double x[3] = {0, 1, -2}, y[3];
    if (scale_float64(3, x, y) < 0) {
        fprintf(stderr, "scale: %s\n", ufn_error());
        return 1;
    }
    int bad = 0;
    for (int i = 0; i < 4; i++) {
        float rho = hypotf(points[i][0], points[i][1]);
        float theta = atan2f(points[i][1], points[i][0]);
        bad |= fabsf(polar[i][0] - rho) > 1e-5f * rho || fabsf(polar[i][1] - theta) > 1e-6f;
    }
    for (int i = 0; i < 3; i++)
        bad |= y[i] != 3 * x[i] + 1;
    printf("backend %s: %s\n", ufn_backend(), bad ? "WRONG" : "ok");
    return bad;
}
