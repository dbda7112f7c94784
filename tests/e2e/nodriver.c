/* nodriver - a program built from a sample (sqrt.ufn's gpu_sqrt) on a
 * machine without a GPU or a CUDA driver.
 *
 *   nodriver host        the backend chosen must be "host", and calls work
 *   nodriver no-driver   (run with UFN_BACKEND=cuda) the backend is refused
 *                        with UFN_ERR_NO_DRIVER and a message naming the
 *                        driver library; calls fail the same way, outputs
 *                        untouched, and nothing crashes or exits
 */
#include "e2e.h"
#include "sqrt.h"

int main(int argc, char **argv)
{
    float in[4] = {0, 1, 4, 9}, out[4] = {-1, -1, -1, -1};
    int64_t n = 4;
    ufn_array I = ufn_host(in, UFN_FLOAT32, 1, &n), O = ufn_host(out, UFN_FLOAT32, 1, &n);

    if (argc != 2) {
        fprintf(stderr, "usage: nodriver host|no-driver\n");
        return 2;
    }
    e2e_name = "nodriver";
    if (!strcmp(argv[1], "host")) {
        const char *b = ufn_backend();
        e2e_begin("without UFN_BACKEND the backend is host");
        E2E_CHECK(b && !strcmp(b, "host"), "ufn_backend() = %s (%s)", b ? b : "NULL", ufn_error());
        E2E_CHECK(ufn_device_count() == 1, "ufn_device_count() = %d", ufn_device_count());
        E2E_CALL(gpu_sqrt(&I, &O));
        E2E_CHECK(out[0] == 0 && out[1] == 1 && out[2] == 2 && out[3] == 3,
                  "gpu_sqrt gave %g %g %g %g", out[0], out[1], out[2], out[3]);
        e2e_end();
    } else {
        const char *b = ufn_backend();
        const char *why = ufn_error();
        e2e_begin("UFN_BACKEND=cuda without a driver is refused clearly");
        E2E_CHECK(b == NULL, "ufn_backend() = %s, expected NULL", b ? b : "NULL");
        E2E_CHECK(strstr(why, "libcuda") != NULL || strstr(why, "driver") != NULL,
                  "ufn_error() after ufn_backend() says \"%s\"", why);
        E2E_CHECK(ufn_device_count() == UFN_ERR_NO_DRIVER, "ufn_device_count() = %d, expected %d",
                  ufn_device_count(), UFN_ERR_NO_DRIVER);
        E2E_REFUSED(gpu_sqrt(&I, &O), UFN_ERR_NO_DRIVER, "gpu_sqrt: ");
        E2E_REFUSED(gpu_sqrt_float32(4, in, out), UFN_ERR_NO_DRIVER, "driver");
        ufn_array dev = {0};
        E2E_REFUSED(ufn_to_device(&I, &dev), UFN_ERR_NO_DRIVER, "driver");
        E2E_CHECK(out[0] == -1 && out[3] == -1, "a refused call wrote its output");
        /* the status is its own: no other failure shares it */
        for (int s = -1; s >= UFN_ERR_ALIGN; s--)
            E2E_CHECK(s == UFN_ERR_NO_DRIVER || strcmp(ufn_status_name(s), "UFN_ERR_NO_DRIVER"),
                      "status %d is also named UFN_ERR_NO_DRIVER", s);
        e2e_end();
        printf("    (the message: %s)\n", ufn_error());
    }
    return e2e_finish();
}
