/* kernel_module.c - the host side of kernel_kernels.cu, written by hand the
 * way ufnc's host stub is to be: the kernels' prototypes (both C builds),
 * the trampolines that unpack a parameter array, block runners for the
 * host backend (the threads of a block as loops, split at barriers, values
 * that live across a barrier kept per thread in ctx), and the tables:
 * sim_kernels, parameter kinds, signatures, kernels - every table with
 * designated initialisers.  Block runners may use atomics and printf, never
 * barriers or warp functions: ufn_sim.h with UFN_CHECKS 0 gives them what
 * they may use. */
#include <stddef.h>

#define UFN_CHECKS 0
#include "ufn_sim.h"
#include "ufn_math.h"
#include "kernel_module.h"

/* ---- the kernels: simulator build, host build (UFN_HOST_ENTRY) --------------------- */

#define KERNELS(S)                                                                        \
    void ktest__add__f32##S(ufn_view_f32_1 x, ufn_view_f32_1 y, ufn_view_f32_1 out);      \
    void ktest__add__i32##S(ufn_view_i32_1 x, ufn_view_i32_1 y, ufn_view_i32_1 out);      \
    void ktest__grey__f32##S(ufn_view_f32_3 rgb, ufn_view_f32_2 out);                     \
    void ktest__matmul__f32##S(ufn_view_f32_2 a, ufn_view_f32_2 b, ufn_view_f32_2 c);     \
    void ktest__hist__f32##S(ufn_view_f32_1 x, ufn_view_i32_1 bins, float lo, float width); \
    void ktest__block_sum__f32##S(ufn_view_f32_1 x, ufn_view_f32_1 out);                  \
    void ktest__fill__f64##S(ufn_view_f64_2 a, double v);                                 \
    void ktest__fill__i32##S(ufn_view_i32_2 a, int32_t v);                                \
    void ktest__fill__f64_i64##S(ufn_view_f64_2 a, int64_t v);                            \
    void ktest__oob__f32##S(ufn_view_f32_1 x, ufn_view_f32_1 out);                        \
    void ktest__race__f32##S(ufn_view_f32_1 x, ufn_view_f32_1 out);                       \
    void ktest__divergent__f32##S(ufn_view_f32_1 x);                                     \
    void ktest__atomics##S(ufn_view_i32_1 i32, ufn_view_i64_1 i64, ufn_view_u32_1 u32,      \
                           ufn_view_u64_1 u64, ufn_view_f32_1 f32, ufn_view_f64_1 f64,      \
                           ufn_view_i64_1 old, ufn_view_f64_1 oldf);                        \
    void ktest__warps##S(ufn_view_i64_1 out);                                               \
    void ktest__hello##S(int64_t n);                                                      \
    void ktest__deep##S(int64_t n, ufn_view_i64_1 out);
KERNELS()
KERNELS(__host)
#undef KERNELS

/* ---- trampolines: p[k] points at parameter k ------------------------------------------ *
 * name_sim calls the simulator's build of a kernel, name__host the host's. */

#define ARG(T, k) (*(T *)p[k])
#define TRAMPOLINES(T, S)                                                                  \
    static void add_f32##T(void **p)                                                      \
    {                                                                                     \
        ktest__add__f32##S(ARG(ufn_view_f32_1, 0), ARG(ufn_view_f32_1, 1), ARG(ufn_view_f32_1, 2)); \
    }                                                                                     \
    static void add_i32##T(void **p)                                                      \
    {                                                                                     \
        ktest__add__i32##S(ARG(ufn_view_i32_1, 0), ARG(ufn_view_i32_1, 1), ARG(ufn_view_i32_1, 2)); \
    }                                                                                     \
    static void grey##T(void **p)                                                         \
    {                                                                                     \
        ktest__grey__f32##S(ARG(ufn_view_f32_3, 0), ARG(ufn_view_f32_2, 1));              \
    }                                                                                     \
    static void matmul##T(void **p)                                                       \
    {                                                                                     \
        ktest__matmul__f32##S(ARG(ufn_view_f32_2, 0), ARG(ufn_view_f32_2, 1), ARG(ufn_view_f32_2, 2)); \
    }                                                                                     \
    static void hist##T(void **p)                                                         \
    {                                                                                     \
        ktest__hist__f32##S(ARG(ufn_view_f32_1, 0), ARG(ufn_view_i32_1, 1), ARG(float, 2), ARG(float, 3)); \
    }                                                                                     \
    static void block_sum##T(void **p)                                                    \
    {                                                                                     \
        ktest__block_sum__f32##S(ARG(ufn_view_f32_1, 0), ARG(ufn_view_f32_1, 1));         \
    }                                                                                     \
    static void fill_f64##T(void **p) { ktest__fill__f64##S(ARG(ufn_view_f64_2, 0), ARG(double, 1)); } \
    static void fill_i32##T(void **p) { ktest__fill__i32##S(ARG(ufn_view_i32_2, 0), ARG(int32_t, 1)); } \
    static void fill_f64_i64##T(void **p) { ktest__fill__f64_i64##S(ARG(ufn_view_f64_2, 0), ARG(int64_t, 1)); } \
    static void oob##T(void **p) { ktest__oob__f32##S(ARG(ufn_view_f32_1, 0), ARG(ufn_view_f32_1, 1)); } \
    static void race##T(void **p) { ktest__race__f32##S(ARG(ufn_view_f32_1, 0), ARG(ufn_view_f32_1, 1)); } \
    static void divergent##T(void **p) { ktest__divergent__f32##S(ARG(ufn_view_f32_1, 0)); } \
    static void atomics##T(void **p)                                                      \
    {                                                                                     \
        ktest__atomics##S(ARG(ufn_view_i32_1, 0), ARG(ufn_view_i64_1, 1), ARG(ufn_view_u32_1, 2), \
                          ARG(ufn_view_u64_1, 3), ARG(ufn_view_f32_1, 4), ARG(ufn_view_f64_1, 5), \
                          ARG(ufn_view_i64_1, 6), ARG(ufn_view_f64_1, 7));                \
    }                                                                                     \
    static void warps##T(void **p) { ktest__warps##S(ARG(ufn_view_i64_1, 0)); }           \
    static void hello##T(void **p) { ktest__hello##S(ARG(int64_t, 0)); }                 \
    static void deep##T(void **p) { ktest__deep##S(ARG(int64_t, 0), ARG(ufn_view_i64_1, 1)); }
TRAMPOLINES(_sim, )
TRAMPOLINES(__host, __host)
#undef TRAMPOLINES

/* ---- block runners -------------------------------------------------------------------------- */

/* A block's coordinates from its linear id (x fastest). */
static void block_at(const ufn_kblocks *b, uint64_t linear, int64_t *bx, int64_t *by)
{
    *bx = (int64_t)(linear % b->grid[0]);
    *by = (int64_t)(linear / b->grid[0] % b->grid[1]);
}

/* add_kernel: no barrier, so one loop over the block's threads; the
 * grid-stride loop inside.  The inner loop is what a C compiler vectorises. */
static void add_f32_blocks(void **p, const ufn_kblocks *b)
{
    ufn_view_f32_1 x = ARG(ufn_view_f32_1, 0), y = ARG(ufn_view_f32_1, 1), out = ARG(ufn_view_f32_1, 2);
    int64_t bdx = b->block[0], stride = bdx * b->grid[0];
    for (uint64_t blk = b->first; blk < b->end; blk++) {
        int64_t bx, by;
        block_at(b, blk, &bx, &by);
        for (int64_t tx = 0; tx < bdx; tx++)
            for (int64_t i = bx * bdx + tx; i < x.shape[0]; i += stride)
                out.data[i * out.stride[0]] = x.data[i * x.stride[0]] + y.data[i * y.stride[0]];
    }
}

static void add_i32_blocks(void **p, const ufn_kblocks *b)
{
    ufn_view_i32_1 x = ARG(ufn_view_i32_1, 0), y = ARG(ufn_view_i32_1, 1), out = ARG(ufn_view_i32_1, 2);
    int64_t bdx = b->block[0], stride = bdx * b->grid[0];
    for (uint64_t blk = b->first; blk < b->end; blk++) {
        int64_t bx, by;
        block_at(b, blk, &bx, &by);
        for (int64_t tx = 0; tx < bdx; tx++)
            for (int64_t i = bx * bdx + tx; i < x.shape[0]; i += stride)
                out.data[i * out.stride[0]] =
                    (int32_t)((int64_t)x.data[i * x.stride[0]] + y.data[i * y.stride[0]]);
    }
}

static void grey_blocks(void **p, const ufn_kblocks *b)
{
    ufn_view_f32_3 rgb = ARG(ufn_view_f32_3, 0);
    ufn_view_f32_2 out = ARG(ufn_view_f32_2, 1);
    for (uint64_t blk = b->first; blk < b->end; blk++) {
        int64_t bx, by;
        block_at(b, blk, &bx, &by);
        for (int64_t ty = 0; ty < b->block[1]; ty++)
            for (int64_t tx = 0; tx < b->block[0]; tx++) {
                int64_t i = bx * b->block[0] + tx, j = by * b->block[1] + ty;
                if (i < out.shape[0] && j < out.shape[1]) {
                    const float *px = &rgb.data[i * rgb.stride[0] + j * rgb.stride[1]];
                    out.data[i * out.stride[0] + j * out.stride[1]] =
                        (float)(0.299 * px[0] + 0.587 * px[rgb.stride[2]] + 0.114 * px[2 * rgb.stride[2]]);
                }
            }
    }
}

/* matmul: its two barriers sit in a loop whose trip count is the same for
 * every thread, so the block splits into three regions - load a tile,
 * accumulate, store - each a loop over the threads; `acc` lives across the
 * barriers, so it is kept per thread in ctx (host_ctx_bytes 4). */
static void matmul_blocks(void **p, const ufn_kblocks *b)
{
    ufn_view_f32_2 a = ARG(ufn_view_f32_2, 0), bm = ARG(ufn_view_f32_2, 1), c = ARG(ufn_view_f32_2, 2);
    float *sa = (float *)(b->shared + 0), *sb = (float *)(b->shared + 1024);
    float *acc = (float *)b->ctx;
    int64_t bdx = b->block[0], bdy = b->block[1];
    int64_t n = (a.shape[1] + KTEST_TPB - 1) / KTEST_TPB;
    for (uint64_t blk = b->first; blk < b->end; blk++) {
        int64_t bx, by;
        block_at(b, blk, &bx, &by);
        for (int64_t t = 0; t < bdx * bdy; t++)
            acc[t] = 0.0f;
        for (int64_t tile = 0; tile < n; tile++) {
            for (int64_t ty = 0; ty < bdy; ty++)
                for (int64_t tx = 0; tx < bdx; tx++) {
                    int64_t col = bx * bdx + tx, row = by * bdy + ty;
                    sa[ty * KTEST_TPB + tx] = 0.0f;
                    sb[ty * KTEST_TPB + tx] = 0.0f;
                    if (row < a.shape[0] && tile * KTEST_TPB + tx < a.shape[1])
                        sa[ty * KTEST_TPB + tx] = a.data[row * a.stride[0] + (tile * KTEST_TPB + tx) * a.stride[1]];
                    if (col < bm.shape[1] && tile * KTEST_TPB + ty < bm.shape[0])
                        sb[ty * KTEST_TPB + tx] = bm.data[(tile * KTEST_TPB + ty) * bm.stride[0] + col * bm.stride[1]];
                }
            /* syncthreads */
            for (int64_t ty = 0; ty < bdy; ty++)
                for (int64_t tx = 0; tx < bdx; tx++) {
                    float v = acc[ty * bdx + tx];
                    for (int64_t k = 0; k < KTEST_TPB; k++)
                        v = v + sa[ty * KTEST_TPB + k] * sb[k * KTEST_TPB + tx];
                    acc[ty * bdx + tx] = v;
                }
            /* syncthreads */
        }
        for (int64_t ty = 0; ty < bdy; ty++)
            for (int64_t tx = 0; tx < bdx; tx++) {
                int64_t col = bx * bdx + tx, row = by * bdy + ty;
                if (row < c.shape[0] && col < c.shape[1])
                    c.data[row * c.stride[0] + col * c.stride[1]] = acc[ty * bdx + tx];
            }
    }
}

static void hist_blocks(void **p, const ufn_kblocks *b)
{
    ufn_view_f32_1 x = ARG(ufn_view_f32_1, 0);
    ufn_view_i32_1 bins = ARG(ufn_view_i32_1, 1);
    float lo = ARG(float, 2), width = ARG(float, 3);
    for (uint64_t blk = b->first; blk < b->end; blk++)
        for (int64_t tx = 0; tx < b->block[0]; tx++) {
            int64_t i = (int64_t)(blk % b->grid[0]) * b->block[0] + tx;
            if (i < x.shape[0]) {
                int64_t k = ufn_f32_to_i64((x.data[i * x.stride[0]] - lo) / width);
                if (0 <= k && k < bins.shape[0])
                    (void)ufn_atomic_add_i32(&bins.data[k * bins.stride[0]], 1);
            }
        }
}

static void fill_f64_blocks(void **p, const ufn_kblocks *b)
{
    ufn_view_f64_2 a = ARG(ufn_view_f64_2, 0);
    double v = ARG(double, 1);
    for (uint64_t blk = b->first; blk < b->end; blk++) {
        int64_t bx, by;
        block_at(b, blk, &bx, &by);
        for (int64_t ty = 0; ty < b->block[1]; ty++)
            for (int64_t tx = 0; tx < b->block[0]; tx++) {
                int64_t i = bx * b->block[0] + tx, j = by * b->block[1] + ty;
                if (i < a.shape[0] && j < a.shape[1])
                    a.data[i * a.stride[0] + j * a.stride[1]] = v + (double)(10 * i) + (double)j;
            }
    }
}

static void fill_i32_blocks(void **p, const ufn_kblocks *b)
{
    ufn_view_i32_2 a = ARG(ufn_view_i32_2, 0);
    int32_t v = ARG(int32_t, 1);
    for (uint64_t blk = b->first; blk < b->end; blk++) {
        int64_t bx, by;
        block_at(b, blk, &bx, &by);
        for (int64_t ty = 0; ty < b->block[1]; ty++)
            for (int64_t tx = 0; tx < b->block[0]; tx++) {
                int64_t i = bx * b->block[0] + tx, j = by * b->block[1] + ty;
                if (i < a.shape[0] && j < a.shape[1])
                    a.data[i * a.stride[0] + j * a.stride[1]] = (int32_t)((int64_t)v + 10 * i + j);
            }
    }
}

/* ---- tables ------------------------------------------------------------------------------------ */

/* The size of each parameter, which the simulator copies when a launch is
 * queued (the driver reads them from a fatbin): an N-d view is 8 + 16 N
 * bytes, a scalar its value's size. */
#define V1 sizeof(ufn_view_f32_1)
#define V2 sizeof(ufn_view_f32_2)
#define V3 sizeof(ufn_view_f32_3)
static const size_t v1_v1_v1[] = { V1, V1, V1 };
static const size_t v3_v2[] = { V3, V2 };
static const size_t v2_v2_v2[] = { V2, V2, V2 };
static const size_t hist_sizes[] = { V1, V1, sizeof(float), sizeof(float) };
static const size_t v1_v1[] = { V1, V1 };
static const size_t v2_f64[] = { V2, sizeof(double) };
static const size_t v2_i32[] = { V2, sizeof(int32_t) };
static const size_t v2_i64[] = { V2, sizeof(int64_t) };
static const size_t v1[] = { V1 };
static const size_t v1_x8[] = { V1, V1, V1, V1, V1, V1, V1, V1 };
static const size_t i64[] = { sizeof(int64_t) };
static const size_t i64_v1[] = { sizeof(int64_t), V1 };
#define SIZES(a) .nparams = (int)(sizeof a / sizeof a[0]), .param_sizes = a

static const ufn_sim_kernel sim_kernels[] = {
    { .name = "ktest__add__f32", .entry = add_f32_sim, SIZES(v1_v1_v1) },
    { .name = "ktest__add__i32", .entry = add_i32_sim, SIZES(v1_v1_v1) },
    { .name = "ktest__grey__f32", .entry = grey_sim, SIZES(v3_v2) },
    { .name = "ktest__matmul__f32", .entry = matmul_sim, SIZES(v2_v2_v2), .flags = UFN_KF_BARRIER,
      .static_shared = 2048 },
    { .name = "ktest__hist__f32", .entry = hist_sim, SIZES(hist_sizes), .flags = UFN_KF_ATOMIC },
    { .name = "ktest__block_sum__f32", .entry = block_sum_sim, SIZES(v1_v1),
      .flags = UFN_KF_BARRIER | UFN_KF_WARP | UFN_KF_DYN_SHARED },
    { .name = "ktest__fill__f64", .entry = fill_f64_sim, SIZES(v2_f64) },
    { .name = "ktest__fill__i32", .entry = fill_i32_sim, SIZES(v2_i32) },
    { .name = "ktest__fill__f64_i64", .entry = fill_f64_i64_sim, SIZES(v2_i64) },
    { .name = "ktest__oob__f32", .entry = oob_sim, SIZES(v1_v1) },
    { .name = "ktest__race__f32", .entry = race_sim, SIZES(v1_v1), .static_shared = 256 },
    { .name = "ktest__divergent__f32", .entry = divergent_sim, SIZES(v1), .flags = UFN_KF_BARRIER },
    { .name = "ktest__atomics", .entry = atomics_sim, SIZES(v1_x8), .flags = UFN_KF_ATOMIC },
    { .name = "ktest__warps", .entry = warps_sim, SIZES(v1), .flags = UFN_KF_BARRIER | UFN_KF_WARP },
    { .name = "ktest__hello", .entry = hello_sim, SIZES(i64), .flags = UFN_KF_PRINT },
};

/* deep() calls a recursive helper: its module says so, as a generated
 * module with recursive helpers does. */
static const ufn_sim_kernel rec_sim_kernels[] = {
    { .name = "ktest__deep", .entry = deep_sim, SIZES(i64_v1) },
};

ufn_module ktest_module = {
    .abi_version = UFN_ABI_VERSION,
    .name = "ktest",
    .sim_kernels = sim_kernels,
    .nsim_kernels = sizeof sim_kernels / sizeof sim_kernels[0],
};

static ufn_module ktest_rec_module = {
    .abi_version = UFN_ABI_VERSION,
    .name = "ktest_rec",
    .sim_kernels = rec_sim_kernels,
    .nsim_kernels = 1,
    .recursion_frame = UFN_RECURSION_FRAME,
};

static ufn_module ktest_module_no_host = {
    .abi_version = UFN_ABI_VERSION,
    .name = "ktest_no_host",
    .sim_kernels = sim_kernels,
    .nsim_kernels = sizeof sim_kernels / sizeof sim_kernels[0],
};

#define A1(T) { .dtype = T, .ndim = 1, .layout = UFN_LAYOUT_A }
#define A2(T) { .dtype = T, .ndim = 2, .layout = UFN_LAYOUT_A }
#define SCALAR(T) { .dtype = T, .ndim = 0 }

static const ufn_kparam add_f32_params[] = { A1(UFN_FLOAT32), A1(UFN_FLOAT32), A1(UFN_FLOAT32) };
static const ufn_kparam add_i32_params[] = { A1(UFN_INT32), A1(UFN_INT32), A1(UFN_INT32) };
static const ufn_kparam grey_params[] = { { .dtype = UFN_FLOAT32, .ndim = 3 }, A2(UFN_FLOAT32) };
static const ufn_kparam matmul_params[] = { A2(UFN_FLOAT32), A2(UFN_FLOAT32), A2(UFN_FLOAT32) };
static const ufn_kparam hist_params[] = { A1(UFN_FLOAT32), A1(UFN_INT32), SCALAR(UFN_FLOAT32),
                                          SCALAR(UFN_FLOAT32) };
static const ufn_kparam pair_f32_params[] = { A1(UFN_FLOAT32), A1(UFN_FLOAT32) };
static const ufn_kparam one_f32_params[] = { A1(UFN_FLOAT32) };
static const ufn_kparam fill_f64_params[] = { { .dtype = UFN_FLOAT64, .ndim = 2, .layout = UFN_LAYOUT_C },
                                              SCALAR(UFN_FLOAT64) };
static const ufn_kparam fill_f64_i64_params[] = { { .dtype = UFN_FLOAT64, .ndim = 2, .layout = UFN_LAYOUT_C },
                                                  SCALAR(UFN_INT64) };
static const ufn_kparam fill_i32_params[] = { { .dtype = UFN_INT32, .ndim = 2, .layout = UFN_LAYOUT_F },
                                              SCALAR(UFN_INT32) };

static const ufn_kparam atomics_params[] = { A1(UFN_INT32), A1(UFN_INT64), A1(UFN_UINT32),
                                             A1(UFN_UINT64), A1(UFN_FLOAT32), A1(UFN_FLOAT64),
                                             A1(UFN_INT64), A1(UFN_FLOAT64) };
static const ufn_kparam warps_params[] = { A1(UFN_INT64) };
static const ufn_kparam hello_params[] = { SCALAR(UFN_INT64) };
static const ufn_kparam deep_params[] = { SCALAR(UFN_INT64), A1(UFN_INT64) };

static const char *const add_names[] = { "x", "y", "out" };
static const char *const grey_names[] = { "rgb", "out" };
static const char *const matmul_names[] = { "a", "b", "c" };
static const char *const hist_names[] = { "x", "bins", "lo", "width" };
static const char *const pair_names[] = { "x", "out" };
static const char *const fill_names[] = { "a", "v" };

#define ADD_SIGS(BLOCKS_F32, BLOCKS_I32)                                                          \
    {                                                                                             \
        { .signature = "void(float32[:], float32[:], float32[:])", .params = add_f32_params,     \
          .kernel = "ktest__add__f32", .host_blocks = { BLOCKS_F32 }, .host_thread = add_f32__host }, \
        { .signature = "void(int32[:], int32[:], int32[:])", .params = add_i32_params,           \
          .kernel = "ktest__add__i32", .host_blocks = { BLOCKS_I32 }, .host_thread = add_i32__host }, \
    }
static const ufn_ksig add_sigs[] = ADD_SIGS(add_f32_blocks, add_i32_blocks);
static const ufn_ksig add_sigs_fibers[] = ADD_SIGS(NULL, NULL);

#define ONE_SIG(var, sig, params_, name, flags_, shared, ctx, blocks, thread) \
    static const ufn_ksig var[] = { { .signature = sig, .params = params_, .kernel = name,     \
                                      .flags = flags_, .static_shared = shared,                \
                                      .host_blocks = { blocks }, .host_ctx_bytes = ctx,        \
                                      .host_thread = thread } }
ONE_SIG(grey_sigs, "void(float32[:, :, :], float32[:, :])", grey_params, "ktest__grey__f32", 0, 0,
        0, grey_blocks, grey__host);
ONE_SIG(grey_sigs_fibers, "void(float32[:, :, :], float32[:, :])", grey_params,
        "ktest__grey__f32", 0, 0, 0, NULL, grey__host);
ONE_SIG(matmul_sigs, "void(float32[:, :], float32[:, :], float32[:, :])", matmul_params,
        "ktest__matmul__f32", UFN_KF_BARRIER, 2048, 4, matmul_blocks, matmul__host);
ONE_SIG(matmul_sigs_fibers, "void(float32[:, :], float32[:, :], float32[:, :])", matmul_params,
        "ktest__matmul__f32", UFN_KF_BARRIER, 2048, 0, NULL, matmul__host);
ONE_SIG(hist_sigs, "void(float32[:], int32[:], float32, float32)", hist_params,
        "ktest__hist__f32", UFN_KF_ATOMIC, 0, 0, hist_blocks, hist__host);
ONE_SIG(hist_sigs_fibers, "void(float32[:], int32[:], float32, float32)", hist_params,
        "ktest__hist__f32", UFN_KF_ATOMIC, 0, 0, NULL, hist__host);
ONE_SIG(block_sum_sigs, "void(float32[:], float32[:])", pair_f32_params, "ktest__block_sum__f32",
        UFN_KF_BARRIER | UFN_KF_WARP | UFN_KF_DYN_SHARED, 0, 0, NULL, block_sum__host);
ONE_SIG(oob_sigs, "void(float32[:], float32[:])", pair_f32_params, "ktest__oob__f32", 0, 0, 0,
        NULL, oob__host);
ONE_SIG(race_sigs, "void(float32[:], float32[:])", pair_f32_params, "ktest__race__f32", 0, 256,
        0, NULL, race__host);
ONE_SIG(divergent_sigs, "void(float32[:])", one_f32_params, "ktest__divergent__f32",
        UFN_KF_BARRIER, 0, 0, NULL, divergent__host);
ONE_SIG(atomics_sigs, "void(int32[:], int64[:], uint32[:], uint64[:], float32[:], float64[:], "
        "int64[:], float64[:])", atomics_params, "ktest__atomics", UFN_KF_ATOMIC, 0, 0, NULL,
        atomics__host);
ONE_SIG(warps_sigs, "void(int64[:])", warps_params, "ktest__warps",
        UFN_KF_BARRIER | UFN_KF_WARP, 0, 0, NULL, warps__host);
ONE_SIG(hello_sigs, "void(int64)", hello_params, "ktest__hello", UFN_KF_PRINT, 0, 0, NULL,
        hello__host);
ONE_SIG(deep_sigs, "void(int64, int64[:])", deep_params, "ktest__deep", 0, 0, 0, NULL,
        deep__host);
ONE_SIG(no_host_sigs, "void(float32[:], float32[:], float32[:])", add_f32_params,
        "ktest__add__f32", 0, 0, 0, NULL, NULL);

static const ufn_ksig fill_sigs[] = {
    { .signature = "void(float64[:, ::1], float64)", .params = fill_f64_params,
      .kernel = "ktest__fill__f64", .host_blocks = { fill_f64_blocks }, .host_thread = fill_f64__host },
    { .signature = "void(int32[::1, :], int32)", .params = fill_i32_params,
      .kernel = "ktest__fill__i32", .host_blocks = { fill_i32_blocks }, .host_thread = fill_i32__host },
};

/* fill for float64 arrays with a float64 or an int64 value: which one an
 * argument picks is dispatch's choice (the thread entry only). */
static const ufn_ksig pick_sigs[] = {
    { .signature = "void(float64[:, ::1], float64)", .params = fill_f64_params,
      .kernel = "ktest__fill__f64", .host_thread = fill_f64__host },
    { .signature = "void(float64[:, ::1], int64)", .params = fill_f64_i64_params,
      .kernel = "ktest__fill__f64_i64", .host_thread = fill_f64_i64__host },
};

#define KERNEL(var, name_, names, n, sigs_, module_)                                              \
    const ufn_kernel var = { .name = name_, .module = &module_, .nparams = n,                   \
                             .param_names = names, .nsigs = sizeof sigs_ / sizeof sigs_[0],   \
                             .sigs = sigs_ }
KERNEL(ktest_add, "add_kernel", add_names, 3, add_sigs, ktest_module);
KERNEL(ktest_add_fibers, "add_kernel", add_names, 3, add_sigs_fibers, ktest_module);
KERNEL(ktest_grey, "grey", grey_names, 2, grey_sigs, ktest_module);
KERNEL(ktest_grey_fibers, "grey", grey_names, 2, grey_sigs_fibers, ktest_module);
KERNEL(ktest_matmul, "matmul", matmul_names, 3, matmul_sigs, ktest_module);
KERNEL(ktest_matmul_fibers, "matmul", matmul_names, 3, matmul_sigs_fibers, ktest_module);
KERNEL(ktest_hist, "hist", hist_names, 4, hist_sigs, ktest_module);
KERNEL(ktest_hist_fibers, "hist", hist_names, 4, hist_sigs_fibers, ktest_module);
KERNEL(ktest_block_sum, "block_sum", pair_names, 2, block_sum_sigs, ktest_module);
KERNEL(ktest_fill, "fill", fill_names, 2, fill_sigs, ktest_module);
KERNEL(ktest_pick, "fill", fill_names, 2, pick_sigs, ktest_module);
KERNEL(ktest_oob, "oob", pair_names, 2, oob_sigs, ktest_module);
KERNEL(ktest_race, "race", pair_names, 2, race_sigs, ktest_module);
KERNEL(ktest_divergent, "divergent", pair_names, 1, divergent_sigs, ktest_module);
static const char *const atomics_names[] = { "i32", "i64", "u32", "u64", "f32", "f64", "old",
                                            "oldf" };
static const char *const out_names[] = { "out" };
static const char *const n_names[] = { "n" };
KERNEL(ktest_atomics, "atomics", atomics_names, 8, atomics_sigs, ktest_module);
KERNEL(ktest_warps, "warps", out_names, 1, warps_sigs, ktest_module);
KERNEL(ktest_hello, "hello", n_names, 1, hello_sigs, ktest_module);
static const char *const deep_names[] = { "n", "out" };
KERNEL(ktest_deep, "deep", deep_names, 2, deep_sigs, ktest_rec_module);
KERNEL(ktest_no_host, "add_kernel", add_names, 3, no_host_sigs, ktest_module_no_host);
