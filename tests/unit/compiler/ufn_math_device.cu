/* ufn_math_device.cu - include/ufn_math.h must compile in every world that
 * includes it: nvcc device and host code, C++, and C11 (the simulator
 * compiles generated .cu files as C).  `make check-mathlib-nvcc` builds this
 * file all those ways; it is never run, only compiled (and ptxas checks the
 * kernels for spills and local memory).
 *
 * every_helper() calls each UFN_FN of ufn_math.h and ufn_complex.h once;
 * ufn_test_math_def() (ufn_math_calls.h) calls each row of math.def.
 * tests/unit/compiler/check_mathlib_coverage.sh keeps the list complete.
 *
 * Every function, trigonometry included, must pass ptxas without spills and
 * without local memory: ufn_libm.h's argument reductions keep their words
 * in registers (CUDA's own sin and cos kept a local array there).
 */
#include "ufn_math.h"
#include "ufn_math_calls.h"

#if defined(__CUDACC__)
#define TEST_DEVICE static __device__
#define TEST_KERNEL extern "C" __global__ void
#else
#define TEST_DEVICE static
#define TEST_KERNEL void
#endif

struct ufn_test_args {
    double d[2];
    float f[2];
    int64_t i[2];
    uint64_t u[2];
    ufn_c128 z[2];
    ufn_c64 w[2];
};

#define CRE(c) ((double)(c).re + (double)(c).im)

TEST_DEVICE double every_helper(const struct ufn_test_args *a)
{
    double d = a->d[0], e = a->d[1], acc = 0.0, m;
    float f = a->f[0], g = a->f[1], mf;
    int64_t i = a->i[0], j = a->i[1];
    uint64_t u = a->u[0], v = a->u[1];
    ufn_c128 z = a->z[0], y = a->z[1];
    ufn_c64 w = a->w[0], x = a->w[1];

    /* bits and predicates */
    acc += (double)(ufn_bits_f32(f) + ufn_bits_f64(d));
    acc += ufn_isnan_f32(f) + ufn_isinf_f32(f) + ufn_isfinite_f32(f);
    acc += ufn_isnan_f64(d) + ufn_isinf_f64(d) + ufn_isfinite_f64(d);

    /* integer arithmetic */
    acc += (double)(ufn_add_i64(i, j) + ufn_sub_i64(i, j) + ufn_mul_i64(i, j) + ufn_neg_i64(i));
    acc += (double)ufn_abs_i64(i) + (double)ufn_abs_f32(f) + ufn_abs_f64(d);
    acc += (double)ufn_wrap_index(i, 10);
    acc += (double)(ufn_floordiv_i64(i, j) + ufn_mod_i64(i, j));
    acc += (double)(ufn_floordiv_u64(u, v) + ufn_mod_u64(u, v));
    acc += (double)(ufn_pow_i64(i, j) + (int64_t)ufn_pow_u64(u, v));
    acc += (double)(ufn_shl_i64(i, j) + ufn_shr_i64(i, j));
    acc += (double)(ufn_shl_u64(u, j) + ufn_shr_u64(u, j));

    /* float // % ** */
    acc += ufn_divmod_f64(d, e, &m) + m;
    acc += (double)(ufn_divmod_f32(f, g, &mf) + mf);
    acc += ufn_floordiv_f64(d, e) + ufn_mod_f64(d, e);
    acc += (double)(ufn_floordiv_f32(f, g) + ufn_mod_f32(f, g));
    acc += (double)ufn_div_const_f32(f, 255.0f, 0x1.010102p-8f) + ufn_div_const_f64(d, 3.0, 0x1.5555555555555p-2);
    acc += ufn_powi_f64(d, i) + (double)ufn_powi_f32(f, i);
    acc += ufn_pow_f64(d, e) + (double)ufn_pow_f32(f, g);

    /* float -> int */
    acc += (double)(ufn_f32_to_i8(f) + ufn_f32_to_i16(f) + ufn_f32_to_i32(f) + ufn_f32_to_i64(f));
    acc += (double)(ufn_f32_to_u8(f) + ufn_f32_to_u16(f) + ufn_f32_to_u32(f) + ufn_f32_to_u64(f));
    acc += (double)(ufn_f64_to_i8(d) + ufn_f64_to_i16(d) + ufn_f64_to_i32(d) + ufn_f64_to_i64(d));
    acc += (double)(ufn_f64_to_u8(d) + ufn_f64_to_u16(d) + ufn_f64_to_u32(d) + ufn_f64_to_u64(d));

    /* builtins and math extras */
    acc += (double)(ufn_min_i64(i, j) + ufn_max_i64(i, j) + (int64_t)(ufn_min_u64(u, v) + ufn_max_u64(u, v)));
    acc += (double)(ufn_min_f32(f, g) + ufn_max_f32(f, g)) + ufn_min_f64(d, e) + ufn_max_f64(d, e);
    acc += ufn_round_f64(d) + (double)ufn_round_f32(f);
    acc += ufn_rint_f64(d) + (double)ufn_rint_f32(f);
    acc += ufn_round_ndigits_f64(d, i) + (double)ufn_round_ndigits_f32(f, i);
    acc += ufn_degrees_f64(d) + ufn_radians_f64(d) + (double)(ufn_degrees_f32(f) + ufn_radians_f32(f));
    acc += ufn_log_base_f64(d, e) + (double)ufn_log_base_f32(f, g);
    acc += ufn_ldexp_f64(d, i) + (double)ufn_ldexp_f32(f, i);

    /* complex arithmetic */
    acc += CRE(ufn_c128_make(d, e)) + CRE(ufn_c64_make(f, g));
    acc += CRE(ufn_c128_from_f64(d)) + CRE(ufn_c64_from_f32(f));
    acc += CRE(ufn_c128_from_c64(w)) + CRE(ufn_c64_from_c128(z));
    acc += CRE(ufn_c128_add(z, y)) + CRE(ufn_c128_sub(z, y)) + CRE(ufn_c128_mul(z, y));
    acc += CRE(ufn_c128_div(z, y)) + CRE(ufn_c128_neg(z)) + CRE(ufn_c128_conj(z));
    acc += CRE(ufn_c64_add(w, x)) + CRE(ufn_c64_sub(w, x)) + CRE(ufn_c64_mul(w, x));
    acc += CRE(ufn_c64_div(w, x)) + CRE(ufn_c64_neg(w)) + CRE(ufn_c64_conj(w));
    acc += ufn_c128_eq(z, y) + ufn_c128_ne(z, y) + ufn_c64_eq(w, x) + ufn_c64_ne(w, x);
    acc += ufn_c128_abs(z) + (double)ufn_c64_abs(w);

    /* cmath predicates and phase */
    acc += ufn_cisnan_c128(z) + ufn_cisinf_c128(z) + ufn_cisfinite_c128(z);
    acc += ufn_cisnan_c64(w) + ufn_cisinf_c64(w) + ufn_cisfinite_c64(w);
    acc += ufn_cphase_c128(z) + (double)ufn_cphase_c64(w);

    /* cmath without sin/cos */
    acc += CRE(ufn_clog_c64(w)) + CRE(ufn_clog10_c64(w)) + CRE(ufn_clog_base_c64(w, x));
    acc += CRE(ufn_csqrt_c64(w)) + CRE(ufn_casin_c64(w)) + CRE(ufn_cacos_c64(w));
    acc += CRE(ufn_catan_c64(w)) + CRE(ufn_casinh_c64(w)) + CRE(ufn_cacosh_c64(w));
    acc += CRE(ufn_catanh_c64(w));
    acc += CRE(ufn_clog_c128(z)) + CRE(ufn_clog10_c128(z)) + CRE(ufn_clog_base_c128(z, y));
    acc += CRE(ufn_csqrt_c128(z)) + CRE(ufn_casin_c128(z)) + CRE(ufn_cacos_c128(z));
    acc += CRE(ufn_catan_c128(z)) + CRE(ufn_casinh_c128(z)) + CRE(ufn_cacosh_c128(z));
    acc += CRE(ufn_catanh_c128(z));

    /* cmath with sin and cos, complex ** (polar form), math.def rows */
    acc += CRE(ufn_cexp_c64(w)) + CRE(ufn_crect_c64(f, g)) + CRE(ufn_csin_c64(w));
    acc += CRE(ufn_ccos_c64(w)) + CRE(ufn_ctan_c64(w)) + CRE(ufn_csinh_c64(w));
    acc += CRE(ufn_ccosh_c64(w)) + CRE(ufn_ctanh_c64(w));
    acc += CRE(ufn_c128_pow(z, y)) + CRE(ufn_c128_powi(z, i)) + CRE(ufn_c128_pow_polar(z, y));
    acc += CRE(ufn_c64_pow(w, x)) + CRE(ufn_c64_powi(w, i));
    acc += CRE(ufn_cexp_c128(z)) + CRE(ufn_crect_c128(d, e)) + CRE(ufn_csin_c128(z));
    acc += CRE(ufn_ccos_c128(z)) + CRE(ufn_ctan_c128(z)) + CRE(ufn_csinh_c128(z));
    acc += CRE(ufn_ccosh_c128(z)) + CRE(ufn_ctanh_c128(z));
    acc += ufn_test_math_def(f, d, i, w, z);
    return acc;
}

/* One thread per argument set, grid-stride, as generated kernels run. */
TEST_KERNEL ufn_math_test_kernel(const struct ufn_test_args *args, double *out, int64_t n)
{
#if defined(__CUDACC__)
    int64_t k;
    for (k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; k < n; k += (int64_t)gridDim.x * blockDim.x)
        out[k] = every_helper(&args[k]);
#else
    int64_t k;
    for (k = 0; k < n; k++)
        out[k] = every_helper(&args[k]);
#endif
}

/* The same helpers from host code (the host half of __host__ __device__). */
double ufn_math_test_host(const struct ufn_test_args *a);
double ufn_math_test_host(const struct ufn_test_args *a)
{
    return ufn_floordiv_f64(a->d[0], a->d[1]) + (double)ufn_f32_to_i64(a->f[0]) +
           CRE(ufn_catanh_c128(a->z[0])) + CRE(ufn_csqrt_c64(a->w[0])) +
           ufn_test_math_def(a->f[0], a->d[0], a->i[0], a->w[0], a->z[0]);
}
