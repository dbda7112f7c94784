/* kernel.c - ufn_launch_kernel: a @cuda.jit kernel's launch, from the
 * caller's arrays to a ufn_kplan that the backend runs.
 *
 * The steps, in order (everything up to the moving of arguments only
 * checks, so a refused launch never writes anything):
 *
 *   1. check the kernel's tables, the launch and every argument;
 *   2. decide the device: the one the device arrays are on (all on one),
 *      else the current device;
 *   3. choose the signature by the arguments (dispatch, below);
 *   4. check the launch against the device's limits, which the backend
 *      reports (the host backend keeps a GPU's, so what runs there runs on
 *      a GPU);
 *   5. move the arguments: on a device backend every host array is copied
 *      to a new device array before the launch, and back after it (a
 *      kernel may write any of them), as Numba does; device arrays stay;
 *      the same host view passed twice is one device array;
 *   6. build the parameter array (ufn_abi.h's layout) and launch on the
 *      thread's stream: the launch is queued work like a copy, its
 *      parameters copied when it is queued, so the call may return before
 *      the kernel ran.  With host arrays, wait for it and copy them back;
 *      the device copies are freed stream-ordered, without waiting.
 *
 * A kernel that fails while it runs (a check of the simulator, a fault on
 * the GPU) is reported with UFN_ERR_KERNEL by the first call that waits for
 * it: this launch when it had host arrays (it waits before copying back),
 * else the next synchronising call of the stream or device
 * (ufn_stream_synchronize, ufn_synchronize, ufn_copy_to_host).
 *
 * Dispatch: a signature matches when every array argument has the
 * parameter's dtype and ndim exactly and the layout it demands (C or F
 * contiguity), and every scalar parameter gets a 0-d argument it can take:
 * its own dtype, or a conversion that loses nothing - a weak scalar
 * (ufn_scalar_*, a Python number) by kind and value (an integer into any
 * integer type that holds it or into a float, a float into float32 or
 * float64, a bool into bool), a typed 0-d array by NumPy's safe casting.
 * Of the matching signatures the one with the fewest conversions wins, the
 * first declared among equals (Numba ranks conversions the same way).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ufnrt.h"

#define MAX_PARAMS 256   /* a kernel's parameters (the parameter space is 32 KiB anyway) */

ufn_launch ufn_launch_1d(uint32_t blocks, uint32_t threads)
{
    ufn_launch l = { { blocks, 1, 1 }, { threads, 1, 1 }, 0 };
    return l;
}

ufn_launch ufn_launch_2d(uint32_t blocks_x, uint32_t blocks_y, uint32_t threads_x,
                         uint32_t threads_y)
{
    ufn_launch l = { { blocks_x, blocks_y, 1 }, { threads_x, threads_y, 1 }, 0 };
    return l;
}

ufn_launch ufn_launch_3d(ufn_dim3 grid, ufn_dim3 block)
{
    ufn_launch l = { grid, block, 0 };
    return l;
}

/* One argument on its way to the kernel. */
typedef struct karg {
    const ufn_array *user;
    ufn_array arr;             /* what the kernel gets: the device copy, or the user's array */
    uint64_t temp;             /* a device copy to give back */
    bool copy_back;            /* a host array copied in: copy it back after the launch */
} karg;

typedef struct klaunch {
    const ufn_kernel *k;
    const ufn_backend_ops *be;
    ufn_stream_impl *stream;   /* the thread's current stream */
    int device;
    int nargs;
    karg *arg;
    const ufn_ksig *sig;
    uint32_t grid[3], block[3];
    size_t dynamic;
    bool temps;
} klaunch;

static const char *param_name(const ufn_kernel *k, int i, char *buf, size_t size)
{
    if (k->param_names && k->param_names[i])
        snprintf(buf, size, "argument %s", k->param_names[i]);
    else
        snprintf(buf, size, "argument %d", i);
    return buf;
}

/* ---- 1. checks ------------------------------------------------------------------------ */

static int check_kernel(const ufn_kernel *k)
{
    if (!k)
        return ufn_fail(UFN_ERR_INVALID, "the kernel descriptor is NULL");
    const char *name = k->name ? k->name : "kernel";
    if (ufn_check_module(k->module, name) < 0)
        return UFN_ERR_INVALID;
    if (k->nparams < 0 || k->nparams > MAX_PARAMS)
        return ufn_fail(UFN_ERR_INVALID, "%s: %d parameters (at most %d)", name, k->nparams,
                        MAX_PARAMS);
    if (k->nsigs < 1 || !k->sigs)
        return ufn_fail(UFN_ERR_INVALID, "%s: the kernel has no signatures", name);
    for (int s = 0; s < k->nsigs; s++) {
        if (!k->sigs[s].kernel || (k->nparams > 0 && !k->sigs[s].params))
            return ufn_fail(UFN_ERR_INVALID, "%s: signature %d has no %s", name, s,
                            k->sigs[s].kernel ? "parameters" : "kernel name");
        for (int i = 0; i < k->nparams; i++) {
            const ufn_kparam *p = &k->sigs[s].params[i];
            if (!ufn_dtype_valid(p->dtype) || p->ndim < 0 || p->ndim > UFN_MAXDIMS ||
                p->layout < UFN_LAYOUT_A || p->layout > UFN_LAYOUT_F)
                return ufn_fail(UFN_ERR_INVALID, "%s: signature %d: bad parameter %d", name, s,
                                i);
        }
    }
    return 0;
}

static int check_args(klaunch *c, ufn_array *const *args)
{
    if (c->nargs > 0 && !args)
        return ufn_fail(UFN_ERR_INVALID, "the argument list is NULL");
    for (int i = 0; i < c->nargs; i++) {
        char what[96];
        param_name(c->k, i, what, sizeof what);
        int st = ufn_check_array(args[i], NULL);
        if (st < 0)
            return ufn_fail_prefix(st, what);
        c->arg[i].user = args[i];
    }
    return 0;
}

/* ---- 2. the device ------------------------------------------------------------------------- */

static int choose_device(klaunch *c)
{
    bool found = false;
    c->device = ufn_current_device();
    for (int i = 0; i < c->nargs; i++) {
        const ufn_array *a = c->arg[i].user;
        if (a->memory != UFN_MEM_DEVICE || (a->ndim == 0 && !a->data))
            continue;
        if (found && a->device != c->device)
            return ufn_fail(UFN_ERR_WRONG_MEMORY, "arguments are on different devices (%d and "
                            "%d)", c->device, a->device);
        found = true;
        c->device = a->device;
    }
    return 0;
}

/* ---- 3. dispatch ------------------------------------------------------------------------------ */

/* Does the integer value of a 0-d argument fit dtype t? */
static bool int_fits(const ufn_array *a, ufn_dtype t)
{
    bool neg = false;
    uint64_t mag;
    if (ufn_dtype_kind(a->dtype) == UFN_KIND_UINT || a->dtype == UFN_BOOL) {
        ufn_convert(&mag, UFN_UINT64, 0, ufn_array_ptr(a), a->dtype, 0, 1);
    } else {
        int64_t v;
        ufn_convert(&v, UFN_INT64, 0, ufn_array_ptr(a), a->dtype, 0, 1);
        neg = v < 0;
        mag = neg ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    }
    int bits = ufn_dtype_size(t) * 8;
    if (ufn_dtype_kind(t) == UFN_KIND_UINT)
        return !neg && (bits == 64 || mag < (uint64_t)1 << bits);
    uint64_t max = bits == 64 ? (uint64_t)INT64_MAX : ((uint64_t)1 << (bits - 1)) - 1;
    return neg ? mag <= max + 1 : mag <= max;
}

/* 0: exact, 1: a conversion, -1: no. */
static int scalar_match(const ufn_array *a, ufn_dtype t)
{
    if (a->dtype == t)
        return 0;
    ufn_kind from = ufn_dtype_kind(a->dtype), to = ufn_dtype_kind(t);
    if (!ufn_is_weak(a))
        return ufn_can_cast_safe(a->dtype, t) ? 1 : -1;
    switch (from) {
    case UFN_KIND_BOOL: return to == UFN_KIND_BOOL ? 1 : -1;
    case UFN_KIND_UINT:
    case UFN_KIND_INT:
        if (to == UFN_KIND_FLOAT || to == UFN_KIND_COMPLEX)
            return 1;
        return (to == UFN_KIND_INT || to == UFN_KIND_UINT) && int_fits(a, t) ? 1 : -1;
    case UFN_KIND_FLOAT: return to == UFN_KIND_FLOAT || to == UFN_KIND_COMPLEX ? 1 : -1;
    default: return to == UFN_KIND_COMPLEX ? 1 : -1;
    }
}

/* The conversions signature s needs, or -1 when it does not match. */
static int sig_match(const klaunch *c, const ufn_ksig *s)
{
    int conversions = 0;
    for (int i = 0; i < c->nargs; i++) {
        const ufn_array *a = c->arg[i].user;
        const ufn_kparam *p = &s->params[i];
        if (p->ndim == 0) {
            if (a->ndim != 0)
                return -1;
            int m = scalar_match(a, p->dtype);
            if (m < 0)
                return -1;
            conversions += m;
        } else if (a->ndim != p->ndim || a->dtype != p->dtype ||
                   (p->layout == UFN_LAYOUT_C && !ufn_is_c_contiguous(a)) ||
                   (p->layout == UFN_LAYOUT_F && !ufn_is_f_contiguous(a))) {
            return -1;
        }
    }
    return conversions;
}

/* An argument as Numba would type it: "float32[:, ::1]", "int64". */
static void describe(const ufn_array *a, char *buf, size_t size)
{
    size_t n = (size_t)snprintf(buf, size, "%s", ufn_dtype_name(a->dtype));
    if (a->ndim == 0 || n >= size)
        return;
    bool c = ufn_is_c_contiguous(a), f = !c && ufn_is_f_contiguous(a);
    n += (size_t)snprintf(buf + n, size - n, "[");
    for (int d = 0; d < a->ndim && n < size; d++) {
        bool unit = (c && d == a->ndim - 1) || (f && d == 0);
        n += (size_t)snprintf(buf + n, size - n, "%s%s", d ? ", " : "", unit ? "::1" : ":");
    }
    if (n < size)
        snprintf(buf + n, size - n, "]");
}

static int no_match(const klaunch *c)
{
    char got[512] = "", sigs[512] = "";
    size_t n = 0;
    for (int i = 0; i < c->nargs && n < sizeof got; i++) {
        char one[160];
        describe(c->arg[i].user, one, sizeof one);
        n += (size_t)snprintf(got + n, sizeof got - n, "%s%s", i ? ", " : "", one);
    }
    n = 0;
    for (int s = 0; s < c->k->nsigs && n < sizeof sigs; s++)
        n += (size_t)snprintf(sigs + n, sizeof sigs - n, "%s%s", s ? ", " : "",
                              c->k->sigs[s].signature ? c->k->sigs[s].signature : "?");
    return ufn_fail(UFN_ERR_DTYPE, "no signature matches the arguments (%s); the signatures "
                    "are: %s", got, sigs);
}

static int choose_signature(klaunch *c)
{
    int best = -1, best_conv = 0;
    for (int s = 0; s < c->k->nsigs; s++) {
        int conv = sig_match(c, &c->k->sigs[s]);
        if (conv >= 0 && (best < 0 || conv < best_conv)) {
            best = s;
            best_conv = conv;
        }
    }
    if (best < 0)
        return no_match(c);
    c->sig = &c->k->sigs[best];
    return 0;
}

/* ---- 4. the launch and the device's limits ------------------------------------------------------ */

static int check_launch(klaunch *c, const ufn_launch *l)
{
    const uint32_t g[3] = { l->grid.x, l->grid.y ? l->grid.y : 1, l->grid.z ? l->grid.z : 1 };
    const uint32_t b[3] = { l->block.x, l->block.y ? l->block.y : 1, l->block.z ? l->block.z : 1 };
    if (g[0] == 0 || b[0] == 0)
        return ufn_fail(UFN_ERR_LAUNCH, "a launch of %u x %u x %u blocks of %u x %u x %u threads: "
                        "the x dimensions of the grid and of the block must be at least 1 "
                        "(0 in y or z means 1)", g[0], g[1], g[2], b[0], b[1], b[2]);
    ufn_klimits lim;
    int st = c->be->kernel_limits ? c->be->kernel_limits(c->be, c->device, &lim)
                                  : ufn_fail(UFN_ERR_NO_CODE, "the %s backend runs no kernels",
                                             c->be->name);
    if (st < 0)
        return st;
    static const char axis[3] = { 'x', 'y', 'z' };
    for (int d = 0; d < 3; d++) {
        if (b[d] > lim.block[d])
            return ufn_fail(UFN_ERR_LAUNCH, "a block of %u threads in %c; the device allows "
                            "%u x %u x %u at most", b[d], axis[d], lim.block[0], lim.block[1],
                            lim.block[2]);
        if (g[d] > lim.grid[d])
            return ufn_fail(UFN_ERR_LAUNCH, "a grid of %u blocks in %c; the device allows "
                            "%u x %u x %u at most", g[d], axis[d], lim.grid[0], lim.grid[1],
                            lim.grid[2]);
    }
    uint64_t threads = (uint64_t)b[0] * b[1] * b[2];
    if (threads > lim.threads)
        return ufn_fail(UFN_ERR_LAUNCH, "a block of %llu threads (%u x %u x %u); the device "
                        "allows %u per block", (unsigned long long)threads, b[0], b[1], b[2],
                        lim.threads);
    size_t stat = c->sig->static_shared;
    if (l->shared_bytes > lim.shared_optin || stat + l->shared_bytes > lim.shared_optin)
        return ufn_fail(UFN_ERR_LAUNCH, "%zu bytes of shared memory per block (%zu static + "
                        "%zu dynamic); the device allows %zu (%zu without opting in, which "
                        "the runtime does when needed)", stat + l->shared_bytes, stat,
                        l->shared_bytes, lim.shared_optin, lim.shared);
    memcpy(c->grid, g, sizeof g);
    memcpy(c->block, b, sizeof b);
    c->dynamic = l->shared_bytes;
    return 0;
}

/* ---- 5. moving arguments -------------------------------------------------------------------------- */

/* Dense strides in C order, or in Fortran order when the array is
 * F-contiguous and not C-contiguous (a copy keeps a signature's F layout). */
static void dense_strides(const ufn_array *a, int64_t *out)
{
    if (!ufn_is_c_contiguous(a) && ufn_is_f_contiguous(a)) {
        int64_t s = 1;
        for (int d = 0; d < a->ndim; d++) {
            out[d] = s;
            s *= a->shape[d];
        }
    } else {
        ufn_c_strides(a->ndim, a->shape, out);
    }
}

static bool same_strides(const ufn_array *a, const int64_t *strides)
{
    for (int d = 0; d < a->ndim; d++)
        if (a->shape[d] != 1 && a->strides[d] != strides[d])
            return false;
    return true;
}

/* Copy between a host array and its dense device copy, packing through a
 * host buffer when the host array is not dense in the copy's order. */
static int transfer(klaunch *c, const ufn_array *host, const ufn_array *dev, bool to_device)
{
    size_t bytes = ufn_array_bytes(host);
    if (bytes == 0)
        return 0;
    const ufn_backend_ops *be = c->be;
    if (same_strides(host, dev->strides))
        return to_device ? be->copy_h2d(be, c->device, dev->data, host->data, bytes, c->stream)
                         : be->copy_d2h(be, c->device, host->data, dev->data, bytes, c->stream);
    int64_t len = (int64_t)bytes;
    ufn_array tmp;
    int st = ufn_alloc_array(UFN_UINT8, 1, &len, UFN_MEM_HOST, 0, &tmp);
    if (st < 0)
        return st;
    int64_t hs[UFN_MAXDIMS], ds[UFN_MAXDIMS];
    ufn_byte_strides(host, hs);
    ufn_byte_strides(dev, ds);
    if (to_device) {
        ufn_copy_nd(host->ndim, host->shape, tmp.data, host->dtype, ds, host->data, host->dtype,
                    hs);
        st = be->copy_h2d(be, c->device, dev->data, tmp.data, bytes, c->stream);
    } else {
        st = be->copy_d2h(be, c->device, tmp.data, dev->data, bytes, c->stream);
        if (st == 0)
            ufn_copy_nd(host->ndim, host->shape, host->data, host->dtype, hs, tmp.data,
                        host->dtype, ds);
    }
    ufn_release(tmp.alloc_id);
    return st;
}

static bool same_view(const ufn_array *a, const ufn_array *b)
{
    if (a->data != b->data || a->memory != b->memory || a->dtype != b->dtype ||
        a->ndim != b->ndim)
        return false;
    for (int d = 0; d < a->ndim; d++)
        if (a->shape[d] != b->shape[d] || a->strides[d] != b->strides[d])
            return false;
    return true;
}

/* A host array as a new dense device array (the same host view passed
 * twice becomes one device array: what the kernel writes through either
 * name is what comes back). */
static int to_device(klaunch *c, int i)
{
    karg *k = &c->arg[i];
    for (int j = 0; j < i; j++) {
        if (c->arg[j].copy_back && same_view(c->arg[j].user, k->user)) {
            k->arr = c->arg[j].arr;
            return 0;
        }
    }
    const ufn_array *a = k->user;
    int64_t len = (int64_t)ufn_array_bytes(a);
    ufn_array buf;
    int st = ufn_alloc_array(UFN_UINT8, 1, &len, UFN_MEM_DEVICE, c->device, &buf);
    if (st < 0)
        return st;
    k->temp = buf.alloc_id;
    c->temps = true;
    k->arr = *a;
    k->arr.memory = UFN_MEM_DEVICE;
    k->arr.device = c->device;
    k->arr.data = buf.data;
    k->arr.alloc_id = 0;
    dense_strides(a, k->arr.strides);
    k->copy_back = true;
    return transfer(c, a, &k->arr, true);
}

static int move_args(klaunch *c)
{
    bool device_backend = c->be->device_memory == UFN_MEM_DEVICE;
    for (int i = 0; i < c->nargs; i++) {
        karg *k = &c->arg[i];
        k->arr = *k->user;
        if (k->user->ndim == 0 || !device_backend || k->user->memory == UFN_MEM_DEVICE)
            continue;
        int st = to_device(c, i);
        if (st < 0)
            return st;
    }
    return 0;
}

/* ---- 6. parameters, launch, copies back ---------------------------------------------------------- */

/* The bytes parameter i takes in the parameter buffer. */
static size_t param_bytes(const ufn_kparam *p)
{
    if (p->ndim == 0)
        return 16;   /* any scalar, complex128 included */
    return sizeof(void *) + 2 * (size_t)p->ndim * sizeof(int64_t);
}

/* The value of a 0-d argument in the parameter's type. */
static int scalar_value(klaunch *c, const ufn_array *a, ufn_dtype t, void *out)
{
    _Alignas(16) unsigned char raw[16];
    const void *src = ufn_array_ptr(a);
    if (a->data && a->memory == UFN_MEM_DEVICE && c->be->device_memory == UFN_MEM_DEVICE) {
        int st = c->be->copy_d2h(c->be, c->device, raw, a->data,
                                 (size_t)ufn_dtype_size(a->dtype), c->stream);
        if (st < 0)
            return st;
        src = raw;
    }
    ufn_convert(out, t, 0, src, a->dtype, 0, 1);
    return 0;
}

/* params[i] points at parameter i, laid out in `buf`. */
static int build_params(klaunch *c, unsigned char *buf, void **params)
{
    size_t off = 0;
    for (int i = 0; i < c->nargs; i++) {
        const ufn_kparam *p = &c->sig->params[i];
        unsigned char *slot = buf + off;
        params[i] = slot;
        off += param_bytes(p);
        if (p->ndim == 0) {
            int st = scalar_value(c, c->arg[i].user, p->dtype, slot);
            if (st < 0)
                return st;
            continue;
        }
        const ufn_array *a = &c->arg[i].arr;
        memcpy(slot, &a->data, sizeof(void *));
        memcpy(slot + sizeof(void *), a->shape, (size_t)p->ndim * sizeof(int64_t));
        memcpy(slot + sizeof(void *) + (size_t)p->ndim * sizeof(int64_t), a->strides,
               (size_t)p->ndim * sizeof(int64_t));
    }
    return 0;
}

static int run(klaunch *c)
{
    size_t total = 0;
    for (int i = 0; i < c->nargs; i++)
        total += param_bytes(&c->sig->params[i]);
    unsigned char *buf = aligned_alloc(16, (total + 16) & ~(size_t)15);
    void **params = malloc(((size_t)c->nargs + 1) * sizeof *params);
    int st = buf && params ? 0 : ufn_fail(UFN_ERR_NOMEM, "out of host memory");
    if (st == 0)
        st = build_params(c, buf, params);
    if (st == 0) {
        ufn_kplan plan = {
            .kernel = c->k,
            .sig = c->sig,
            .device = c->device,
            .grid = { c->grid[0], c->grid[1], c->grid[2] },
            .block = { c->block[0], c->block[1], c->block[2] },
            .dynamic_shared = c->dynamic,
            .params = params,
        };
        st = c->be->launch_kernel(c->be, &plan, c->stream);
    }
    free(buf);
    free(params);
    return st;
}

/* Wait for the kernel (its fault is this launch's status), then copy the
 * host arrays back. */
static int copy_back(klaunch *c)
{
    if (!c->temps)
        return 0;
    int st = c->be->stream_synchronize ? c->be->stream_synchronize(c->be, c->stream) : 0;
    if (st < 0)
        return st;
    for (int i = 0; i < c->nargs; i++) {
        karg *k = &c->arg[i];
        if (!k->copy_back || !k->temp)
            continue;   /* not copied in, or the alias of an earlier argument */
        st = transfer(c, k->user, &k->arr, false);
        if (st < 0)
            return st;
    }
    return 0;
}

/* Device memory is freed stream-ordered, behind the launch and the copies. */
static void release_temps(klaunch *c)
{
    for (int i = 0; i < c->nargs; i++)
        ufn_release(c->arg[i].temp);
}

static int launch(klaunch *c, const ufn_launch *l, ufn_array *const *args)
{
    int st;
    if (!l)
        return ufn_fail(UFN_ERR_INVALID, "the launch configuration is NULL");
    if ((st = check_args(c, args)) < 0 || (st = ufn_get_backend_for(c->k->module, &c->be)) < 0 ||
        (st = ufn_current_stream(&c->stream)) < 0 || (st = choose_device(c)) < 0 ||
        (st = choose_signature(c)) < 0 || (st = check_launch(c, l)) < 0)
        return st;
    if (!c->be->launch_kernel)
        return ufn_fail(UFN_ERR_NO_CODE, "the %s backend runs no kernels", c->be->name);
    /* Every argument is accepted: from here on only resources and the
     * kernel itself can fail.  On a device, one NVTX range around the
     * launch and its copies, as a ufunc call has. */
    bool range = ufn_nvtx_push(c->be->device_memory == UFN_MEM_DEVICE, c->k->name);
    st = move_args(c);
    if (st == 0)
        st = run(c);
    if (st == 0)
        st = copy_back(c);
    release_temps(c);
    if (range)
        ufn_nvtx_pop();
    return st;
}

int ufn_launch_kernel(const ufn_kernel *k, const ufn_launch *l, ufn_array *const *args)
{
    int st = check_kernel(k);
    if (st < 0)
        return st;
    /* on the heap: an argument holds a descriptor of half a kilobyte */
    karg *arg = calloc(k->nparams > 0 ? (size_t)k->nparams : 1, sizeof *arg);
    klaunch c = { .k = k, .nargs = k->nparams, .arg = arg };
    st = arg ? launch(&c, l, args) : ufn_fail(UFN_ERR_NOMEM, "out of host memory");
    free(arg);
    return st < 0 ? ufn_fail_prefix(st, k->name ? k->name : "kernel") : st;
}
