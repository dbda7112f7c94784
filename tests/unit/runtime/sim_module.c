/* sim_module.c - the host side of sim_kernels.cu, written by hand the way
 * ufnc's host stub would be: prototypes of the kernels (compiled as C for
 * the simulator), one trampoline per kernel that unpacks the cuLaunchKernel
 * parameter array, the ufn_sim_kernel table, and the ufunc descriptors. */
#include <stddef.h>

#include "sim_module.h"

void ufn_test_add_f32_contig(uint32_t n, const float *a, const float *b, float *out);
void ufn_test_add_f32_strided(ufn_kiter it, const float *a, ufn_kstrides sa, const float *b,
                              ufn_kstrides sb, float *out, ufn_kstrides so);
void ufn_test_half_i16_contig(uint32_t n, const int16_t *x, double *out);
void ufn_test_half_i16_strided(ufn_kiter it, const int16_t *x, ufn_kstrides sx, double *out,
                               ufn_kstrides so);
void ufn_test_divmod_i32_strided(ufn_kiter it, const int32_t *a, ufn_kstrides sa,
                                 const int32_t *b, ufn_kstrides sb, int32_t *q, ufn_kstrides sq,
                                 int32_t *r, ufn_kstrides sr);
void ufn_test_l2_norm_f32(ufn_kiter it, ufn_kcore core, const float *vec, ufn_kstrides lv,
                          ufn_kstrides cv, float *out, ufn_kstrides lo, ufn_kstrides co);
void ufn_test_cumsum_f64(ufn_kiter it, ufn_kcore core, const double *x, ufn_kstrides lx,
                         ufn_kstrides cx, double *out, ufn_kstrides lo, ufn_kstrides co);
void ufn_test_coords(uint32_t n, uint32_t *out);

/* ---- trampolines: params[k] points at the k-th kernel parameter ---------------- */

#define ARG(T, k) (*(T *)p[k])

static void run_add_contig(void **p)
{
    ufn_test_add_f32_contig(ARG(uint32_t, 0), ARG(const float *, 1), ARG(const float *, 2),
                            ARG(float *, 3));
}

static void run_add_strided(void **p)
{
    ufn_test_add_f32_strided(ARG(ufn_kiter, 0), ARG(const float *, 1), ARG(ufn_kstrides, 2),
                             ARG(const float *, 3), ARG(ufn_kstrides, 4), ARG(float *, 5),
                             ARG(ufn_kstrides, 6));
}

static void run_half_contig(void **p)
{
    ufn_test_half_i16_contig(ARG(uint32_t, 0), ARG(const int16_t *, 1), ARG(double *, 2));
}

static void run_half_strided(void **p)
{
    ufn_test_half_i16_strided(ARG(ufn_kiter, 0), ARG(const int16_t *, 1), ARG(ufn_kstrides, 2),
                              ARG(double *, 3), ARG(ufn_kstrides, 4));
}

static void run_divmod_strided(void **p)
{
    ufn_test_divmod_i32_strided(ARG(ufn_kiter, 0), ARG(const int32_t *, 1), ARG(ufn_kstrides, 2),
                                ARG(const int32_t *, 3), ARG(ufn_kstrides, 4),
                                ARG(int32_t *, 5), ARG(ufn_kstrides, 6), ARG(int32_t *, 7),
                                ARG(ufn_kstrides, 8));
}

static void run_l2_norm(void **p)
{
    ufn_test_l2_norm_f32(ARG(ufn_kiter, 0), ARG(ufn_kcore, 1), ARG(const float *, 2),
                         ARG(ufn_kstrides, 3), ARG(ufn_kstrides, 4), ARG(float *, 5),
                         ARG(ufn_kstrides, 6), ARG(ufn_kstrides, 7));
}

static void run_cumsum(void **p)
{
    ufn_test_cumsum_f64(ARG(ufn_kiter, 0), ARG(ufn_kcore, 1), ARG(const double *, 2),
                        ARG(ufn_kstrides, 3), ARG(ufn_kstrides, 4), ARG(double *, 5),
                        ARG(ufn_kstrides, 6), ARG(ufn_kstrides, 7));
}

static void run_coords(void **p)
{
    ufn_test_coords(ARG(uint32_t, 0), ARG(uint32_t *, 1));
}

/* ---- the size of each parameter: the simulator copies them at launch -------- */

#define P sizeof(void *)
#define KI sizeof(ufn_kiter)
#define KS sizeof(ufn_kstrides)
#define KC sizeof(ufn_kcore)
static const size_t add_contig[] = { sizeof(uint32_t), P, P, P };
static const size_t add_strided[] = { KI, P, KS, P, KS, P, KS };
static const size_t half_contig[] = { sizeof(uint32_t), P, P };
static const size_t half_strided[] = { KI, P, KS, P, KS };
static const size_t divmod_strided[] = { KI, P, KS, P, KS, P, KS, P, KS };
static const size_t gufunc_1_1[] = { KI, KC, P, KS, KS, P, KS, KS };
static const size_t coords[] = { sizeof(uint32_t), P };

#define KERNEL(kname, run, sizes) \
    { .name = kname, .entry = run, .nparams = sizeof sizes / sizeof sizes[0], .param_sizes = sizes }

static const ufn_sim_kernel sim_kernels[] = {
    KERNEL("ufn_test_add_f32_contig", run_add_contig, add_contig),
    KERNEL("ufn_test_add_f32_strided", run_add_strided, add_strided),
    KERNEL("ufn_test_half_i16_contig", run_half_contig, half_contig),
    KERNEL("ufn_test_half_i16_strided", run_half_strided, half_strided),
    KERNEL("ufn_test_divmod_i32_strided", run_divmod_strided, divmod_strided),
    KERNEL("ufn_test_l2_norm_f32", run_l2_norm, gufunc_1_1),
    KERNEL("ufn_test_cumsum_f64", run_cumsum, gufunc_1_1),
    KERNEL("ufn_test_coords", run_coords, coords),
};

ufn_module test_module = {
    .abi_version = UFN_ABI_VERSION,
    .name = "sim_kernels",
    .sim_kernels = sim_kernels,
    .nsim_kernels = (int)(sizeof sim_kernels / sizeof sim_kernels[0]),
};

ufn_module test_module_host_only = {
    .abi_version = UFN_ABI_VERSION,
    .name = "host_only",
};

/* ---- ufuncs ------------------------------------------------------------------------ */

static const ufn_dtype add_types[] = { UFN_FLOAT32, UFN_FLOAT32, UFN_FLOAT32 };
static const ufn_loop add_loops[] = {
    { .signature = "float32(float32, float32)", .types = add_types, .kernel_contig = "ufn_test_add_f32_contig",
      .kernel_strided = "ufn_test_add_f32_strided" },
};
const ufn_func test_add = { "add", &test_module, 2, 1, 1, add_loops,
                            NULL, 0, NULL, NULL, NULL, NULL, UFN_IDENTITY_NONE, false };
const ufn_func test_add_host_only = { "add", &test_module_host_only, 2, 1, 1, add_loops,
                                      NULL, 0, NULL, NULL, NULL, NULL, UFN_IDENTITY_NONE, false };

static const ufn_loop missing_loops[] = {
    { .signature = "float32(float32, float32)", .types = add_types, .kernel_contig = "no_such_contig", .kernel_strided = "no_such_strided" },
};
const ufn_func test_missing = { "missing", &test_module, 2, 1, 1, missing_loops,
                                NULL, 0, NULL, NULL, NULL, NULL, UFN_IDENTITY_NONE, false };

static const ufn_dtype half_types[] = { UFN_INT16, UFN_FLOAT64 };
static const ufn_loop half_loops[] = {
    { .signature = "float64(int16)", .types = half_types, .kernel_contig = "ufn_test_half_i16_contig",
      .kernel_strided = "ufn_test_half_i16_strided" },
};
const ufn_func test_half = { "half", &test_module, 1, 1, 1, half_loops,
                             NULL, 0, NULL, NULL, NULL, NULL, UFN_IDENTITY_NONE, false };

static const ufn_dtype divmod_types[] = { UFN_INT32, UFN_INT32, UFN_INT32, UFN_INT32 };
static const ufn_loop divmod_loops[] = {
    { .signature = "(int32, int32) -> (int32, int32)", .types = divmod_types, .kernel_contig = NULL,
      .kernel_strided = "ufn_test_divmod_i32_strided" },
};
const ufn_func test_divmod = { "divmod", &test_module, 2, 2, 1, divmod_loops,
                               NULL, 0, NULL, NULL, NULL, NULL, UFN_IDENTITY_NONE, false };

static const char *const core_i[] = { "i" };
static const char *const core_n[] = { "n" };
static const int64_t core_free[] = { -1 };

static const ufn_dtype l2_types[] = { UFN_FLOAT32, UFN_FLOAT32 };
static const ufn_loop l2_loops[] = {
    { .signature = "(float32[:], float32[:])", .types = l2_types, .kernel_contig = NULL, .kernel_strided = "ufn_test_l2_norm_f32" },
};
static const int l2_core_ndim[] = { 1, 0 };
static const int l2_core_dims[] = { 0 };
const ufn_func test_l2_norm = { "l2_norm", &test_module, 1, 1, 1, l2_loops,
                                "(i)->()", 1, core_i, core_free, l2_core_ndim, l2_core_dims, UFN_IDENTITY_NONE, false };

static const ufn_dtype cumsum_types[] = { UFN_FLOAT64, UFN_FLOAT64 };
static const ufn_loop cumsum_loops[] = {
    { .signature = "(float64[:], float64[:])", .types = cumsum_types, .kernel_contig = NULL, .kernel_strided = "ufn_test_cumsum_f64" },
};
static const int cumsum_core_ndim[] = { 1, 1 };
static const int cumsum_core_dims[] = { 0, 0 };
const ufn_func test_cumsum = { "cumsum", &test_module, 1, 1, 1, cumsum_loops,
                               "(n)->(n)", 1, core_n, core_free, cumsum_core_ndim,
                               cumsum_core_dims, UFN_IDENTITY_NONE, false };
