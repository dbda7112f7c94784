/* devices.c - ufn_set_device: new device arrays and host-array calls go to
 * the device it names (sim with UFN_SIM_DEVICES=2), a device the backend
 * lacks is refused; the host backend takes any ordinal and stays on 0.
 * And what README's examples print: ufn_error() names the ufunc once, so a
 * program prints it alone ("axpb: ...", not "axpb: axpb: ..."). */
#include <string.h>

#include "check.h"
#include "interop.h"

int main(void)
{
    bool host = strcmp(ufn_backend(), "host") == 0;
    CHECK(ufn_get_device() == 0);
    CHECK(ufn_set_device(-1) == UFN_ERR_NO_DEVICE);
    CHECK(ufn_set_device(host ? 7 : 2) == (host ? UFN_OK : UFN_ERR_NO_DEVICE));
    CHECK(ufn_set_device(1) == UFN_OK);
    CHECK(ufn_get_device() == (host ? 0 : 1));

    double x[4] = { 0, 1, 2, 3 }, y[4];
    int64_t shape[1] = { 4 };
    ufn_array xh = ufn_host(x, UFN_FLOAT64, 1, shape), dev = { 0 }, out = { 0 };
    CHECK(ufn_to_device(&xh, &dev) == UFN_OK);
    CHECK(dev.device == (host ? 0 : 1));
    ufn_array a = ufn_scalar_float64(3.0);
    CHECK(axpb(&dev, &a, &out) == UFN_OK);
    CHECK(out.device == dev.device);
    ufn_array yh = ufn_host(y, UFN_FLOAT64, 1, shape);
    CHECK(ufn_copy_to_host(&out, &yh) == UFN_OK);
    for (int i = 0; i < 4; i++)
        CHECK(y[i] == 3.0 * x[i] + 1.0);
    ufn_free(&dev);
    ufn_free(&out);

    double z[3] = { 0 };
    int64_t three[1] = { 3 };
    ufn_array za = ufn_host(z, UFN_FLOAT64, 1, three);
    CHECK(axpb(&xh, &za, &out) == UFN_ERR_SHAPE);
    CHECK(strncmp(ufn_error(), "axpb: ", 6) == 0 && !strstr(ufn_error(), "axpb: axpb"));

    CHECK(ufn_set_device(0) == UFN_OK);
    CHECK(ufn_get_device() == 0);
    CHECK(ufn_to_device(&xh, &dev) == UFN_OK);
    CHECK(dev.device == 0);
    ufn_free(&dev);
    return done("devices");
}
