/* pipeline - device arrays through several calls (pipeline.ufn): outputs
 * allocated in device memory, host and device operands mixed, a gufunc and
 * a strided view of device memory, results copied back once; and the misuse
 * of device arrays.  On the host backend "device" memory is host memory and
 * the same code runs.
 */
#include "e2e.h"
#include "pipeline.h"

enum { R = 64, C = 8, N = R * C };

int main(int argc, char **argv)
{
    static float x[N], y[N], back[N], norms[R], tnorms[C];
    sample_rng rng = {11};
    int64_t shape[2] = {R, C};

    e2e_start(argc, argv, "pipeline");
    for (int i = 0; i < N; i++) {
        x[i] = (float)(int)sample_uniform(&rng, -64, 64) / 8;
        y[i] = (float)(int)sample_uniform(&rng, -64, 64) / 8;
    }

    ufn_array xh = ufn_host(x, UFN_FLOAT32, 2, shape), yh = ufn_host(y, UFN_FLOAT32, 2, shape);
    ufn_array xd = {0}, yd = {0}, s = {0}, t = {0}, nd = {0}, td = {0};
    ufn_array two = ufn_scalar_float32(2.0f);

    e2e_begin("to_device, then calls on device arrays with empty outputs");
    E2E_CALL(ufn_to_device(&xh, &xd));
    E2E_CALL(ufn_to_device(&yh, &yd));
    /* where ufn_device_array puts memory: the device, or the host's own
     * memory on the host backend */
    const ufn_memory device_memory = xd.memory;
    E2E_CHECK(device_memory == (strcmp(ufn_backend(), "host") ? UFN_MEM_DEVICE : UFN_MEM_HOST),
              "to_device gave memory %d on the %s backend", device_memory, ufn_backend());
    E2E_CALL(square(&xd, &s));                  /* s = x*x, allocated on the device */
    E2E_CALL(axpy(&two, &s, &yd, &t));          /* t = 2*s + y */
    E2E_CALL(norm(&t, &nd));                    /* (64, 8) -> (64,) */
    E2E_CHECK(s.memory == device_memory && t.memory == device_memory && nd.memory == device_memory,
              "outputs of device calls are not in device memory (%d %d %d)", s.memory, t.memory,
              nd.memory);
    E2E_CHECK(t.ndim == 2 && t.shape[0] == R && t.shape[1] == C && nd.ndim == 1 && nd.shape[0] == R,
              "output shapes: t %d-d (%lld, %lld), norm %d-d (%lld)", t.ndim, (long long)t.shape[0],
              (long long)t.shape[1], nd.ndim, (long long)nd.shape[0]);
    e2e_end();

    /* A transposed view of device memory: the columns' norms. */
    ufn_array tv = t;
    tv.shape[0] = C, tv.shape[1] = R, tv.strides[0] = 1, tv.strides[1] = C;
    tv.flags = 0;
    e2e_begin("a gufunc over a transposed view of a device array");
    E2E_CALL(norm(&tv, &td));
    e2e_end();

    ufn_array bh = ufn_host(back, UFN_FLOAT32, 2, shape), nh = ufn_host(norms, UFN_FLOAT32, 1, &shape[0]);
    int64_t c = C;
    ufn_array th = ufn_host(tnorms, UFN_FLOAT32, 1, &c), alloc = {0};
    e2e_begin("copy_to_host: into given arrays and into an allocated one");
    E2E_CALL(ufn_copy_to_host(&t, &bh));
    E2E_CALL(ufn_copy_to_host(&nd, &nh));
    E2E_CALL(ufn_copy_to_host(&td, &th));
    E2E_CALL(ufn_copy_to_host(&s, &alloc));
    E2E_CHECK(alloc.memory == UFN_MEM_HOST && alloc.ndim == 2 && alloc.shape[0] == R &&
              alloc.shape[1] == C, "the allocated copy is memory %d, %d-d", alloc.memory, alloc.ndim);
    e2e_end();

    e2e_begin("the values: 2*x*x + y, row and column norms (float32 arithmetic, exact inputs)");
    for (int i = 0; i < N; i++) {
        float w = 2.0f * (x[i] * x[i]) + y[i];
        E2E_CHECK(back[i] == w, "t[%d] = %g, expected %g", i, back[i], w);
        if (alloc.data)
            E2E_CHECK(((float *)alloc.data)[i] == x[i] * x[i], "s[%d] = %g, expected %g", i,
                      ((float *)alloc.data)[i], x[i] * x[i]);
    }
    for (int r = 0; r < R; r++) {
        double acc = 0.0;
        for (int k = 0; k < C; k++)
            acc += (double)(back[r * C + k] * back[r * C + k]);
        E2E_CHECK(norms[r] == (float)sqrt(acc), "norm of row %d = %.9g, expected %.9g", r, norms[r],
                  (float)sqrt(acc));
    }
    for (int k = 0; k < C; k++) {
        double acc = 0.0;
        for (int r = 0; r < R; r++)
            acc += (double)(back[r * C + k] * back[r * C + k]);
        E2E_CHECK(tnorms[k] == (float)sqrt(acc), "norm of column %d = %.9g, expected %.9g", k,
                  tnorms[k], (float)sqrt(acc));
    }
    e2e_end();
    sample_dump_exact("t", UFN_FLOAT32, back, N);
    sample_dump_exact("norms", UFN_FLOAT32, norms, R);
    sample_dump_exact("column_norms", UFN_FLOAT32, tnorms, C);

    /* A host operand with device ones: copied in, the result on the device. */
    ufn_array mixed = {0};
    float mback[N];
    ufn_array mh = ufn_host(mback, UFN_FLOAT32, 2, shape);
    e2e_begin("host and device operands in one call");
    E2E_CALL(axpy(&two, &xh, &yd, &mixed));
    E2E_CHECK(mixed.memory == device_memory, "the result is in memory %d", mixed.memory);
    E2E_CALL(ufn_copy_to_host(&mixed, &mh));
    for (int i = 0; i < N; i++)
        E2E_CHECK(mback[i] == 2.0f * x[i] + y[i], "[%d] = %g, expected %g", i, mback[i],
                  2.0f * x[i] + y[i]);
    e2e_end();

    /* Misuse: a freed array, a copy of the wrong shape. */
    ufn_array stale = s;
    ufn_free(&s);
    ufn_array out = {0};
    float small[4];
    int64_t four = 4;
    ufn_array sh = ufn_host(small, UFN_FLOAT32, 1, &four);
    e2e_begin("a freed device array and a copy of the wrong shape are refused");
    E2E_REFUSED(square(&stale, &out), UFN_ERR_FREED, "input 0");
    E2E_CHECK(out.memory == UFN_MEM_NONE, "the refused call allocated an output");
    E2E_REFUSED(ufn_copy_to_host(&t, &sh), UFN_ERR_SHAPE, "");
    e2e_end();

    ufn_array *all[] = {&xd, &yd, &t, &nd, &td, &alloc, &mixed};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        ufn_free(all[i]);
    return e2e_finish();
}
