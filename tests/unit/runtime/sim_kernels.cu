/* sim_kernels.cu - kernels written by hand in the style ufnc generates, for
 * the CUDA backend's tests.
 *
 * The same file is compiled twice: as C11 by cc for the simulator (then
 * ufn_kernel.h includes ufn_sim.h), and by nvcc into a fatbin, which proves
 * it is valid CUDA as well.  The kernels take the three parameter forms of
 * ufn_abi.h; the host side (trampolines, tables) is in sim_module.c, as a
 * generated host stub would have it.
 *
 *   add       float32(float32, float32)       contiguous (16-byte path) + strided
 *   half      float64(int16)                  contiguous + strided: mixed sizes
 *   divmod    (int32, int32) -> (int32, int32) two outputs, strided only
 *   l2_norm   (float32[:], float32[:]) '(i)->()'
 *   cumsum    (float64[:], float64[:]) '(n)->(n)'
 *   coords    records each thread's coordinates (the simulator's own tests)
 */
#include "ufn_kernel.h"

/* The element offsets of iteration i in each operand (C order, innermost
 * dimension last), the way generated strided kernels compute them. */
UFN_DEVICE void offsets2(const ufn_kiter *it, uint32_t i, const ufn_kstrides *s0,
                         const ufn_kstrides *s1, int64_t *o0, int64_t *o1)
{
    int64_t a = 0, b = 0;
    for (int d = it->ndim - 1; d >= 0; d--) {
        uint32_t idx = i % it->shape[d];
        i /= it->shape[d];
        a += (int64_t)idx * s0->s[d];
        b += (int64_t)idx * s1->s[d];
    }
    *o0 = a;
    *o1 = b;
}

UFN_DEVICE int64_t offset1(const ufn_kiter *it, uint32_t i, const ufn_kstrides *s)
{
    int64_t o = 0;
    for (int d = it->ndim - 1; d >= 0; d--) {
        o += (int64_t)(i % it->shape[d]) * s->s[d];
        i /= it->shape[d];
    }
    return o;
}

/* Is p 16-byte aligned?  (Spelled out: the helper's name in ufn_kernel.h
 * has changed once already.) */
UFN_DEVICE int aligned16(const void *p)
{
    return ((uintptr_t)p & 15u) == 0;
}

/* ---- add: float32(float32, float32) --------------------------------------------- */

/* tests/unit/runtime/sim_module.c: def add(a, b): return a + b */
UFN_DEVICE float add_f32(float a, float b)
{
    return a + b;
}

UFN_KERNEL ufn_test_add_f32_contig(uint32_t n, const float *__restrict__ a,
                                   const float *__restrict__ b, float *__restrict__ out)
{
    uint32_t first = UFN_FIRST_INDEX(), step = UFN_GRID_STRIDE();
    uint32_t done = 0;
    if (aligned16(a) && aligned16(b) && aligned16(out)) {
        uint32_t groups = n / 4;
        for (uint32_t g = first; g < groups; g += step) {
            float va[4], vb[4], vo[4];
            ufn_load16(va, a + 4 * (size_t)g);
            ufn_load16(vb, b + 4 * (size_t)g);
            for (int j = 0; j < 4; j++)
                vo[j] = add_f32(va[j], vb[j]);
            ufn_store16(out + 4 * (size_t)g, vo);
        }
        done = groups * 4;
    }
    for (uint32_t i = done + first; i < n; i += step)
        out[i] = add_f32(__ldg(a + i), __ldg(b + i));
}

UFN_KERNEL ufn_test_add_f32_strided(ufn_kiter it, const float *__restrict__ a, ufn_kstrides sa,
                                    const float *__restrict__ b, ufn_kstrides sb,
                                    float *__restrict__ out, ufn_kstrides so)
{
    for (uint32_t i = UFN_FIRST_INDEX(); i < it.n; i += UFN_GRID_STRIDE()) {
        int64_t oa, ob;
        offsets2(&it, i, &sa, &sb, &oa, &ob);
        /* a NULL input is a scalar passed by value (ufn_abi.h) */
        out[offset1(&it, i, &so)] = add_f32(a ? a[oa] : ufn_kscalar_f32(sa),
                                            b ? b[ob] : ufn_kscalar_f32(sb));
    }
}

/* ---- half: float64(int16) --------------------------------------------------------- */

UFN_DEVICE double half_i16(int16_t x)
{
    return x * 0.5;
}

UFN_KERNEL ufn_test_half_i16_contig(uint32_t n, const int16_t *__restrict__ x,
                                    double *__restrict__ out)
{
    for (uint32_t i = UFN_FIRST_INDEX(); i < n; i += UFN_GRID_STRIDE())
        out[i] = half_i16(x[i]);
}

UFN_KERNEL ufn_test_half_i16_strided(ufn_kiter it, const int16_t *__restrict__ x, ufn_kstrides sx,
                                     double *__restrict__ out, ufn_kstrides so)
{
    for (uint32_t i = UFN_FIRST_INDEX(); i < it.n; i += UFN_GRID_STRIDE()) {
        int64_t ox, oo;
        offsets2(&it, i, &sx, &so, &ox, &oo);
        out[oo] = half_i16(x ? x[ox] : ufn_kscalar_i16(sx));
    }
}

/* ---- divmod: (int32, int32) -> (int32, int32), Python's floor rules ----------------- */

UFN_KERNEL ufn_test_divmod_i32_strided(ufn_kiter it, const int32_t *__restrict__ a,
                                       ufn_kstrides sa, const int32_t *__restrict__ b,
                                       ufn_kstrides sb, int32_t *__restrict__ q, ufn_kstrides sq,
                                       int32_t *__restrict__ r, ufn_kstrides sr)
{
    for (uint32_t i = UFN_FIRST_INDEX(); i < it.n; i += UFN_GRID_STRIDE()) {
        int64_t oa, ob, oq, orr;
        offsets2(&it, i, &sa, &sb, &oa, &ob);
        offsets2(&it, i, &sq, &sr, &oq, &orr);
        int32_t x = a ? a[oa] : ufn_kscalar_i32(sa), y = b ? b[ob] : ufn_kscalar_i32(sb);
        int32_t d = y ? x / y : 0, m = y ? x % y : 0;
        if (m != 0 && ((m < 0) != (y < 0))) {
            d -= 1;
            m += y;
        }
        q[oq] = d;
        r[orr] = m;
    }
}

/* ---- l2_norm: (float32[:], float32[:]) '(i)->()' --------------------------------------- */

UFN_KERNEL ufn_test_l2_norm_f32(ufn_kiter it, ufn_kcore core, const float *__restrict__ vec,
                                ufn_kstrides lv, ufn_kstrides cv, float *__restrict__ out,
                                ufn_kstrides lo, ufn_kstrides co)
{
    (void)co;
    for (uint32_t i = UFN_FIRST_INDEX(); i < it.n; i += UFN_GRID_STRIDE()) {
        int64_t ov, oo;
        offsets2(&it, i, &lv, &lo, &ov, &oo);
        float acc = 0.0f;
        for (int64_t j = 0; j < core.dim[0]; j++) {
            float v = vec[ov + j * cv.s[0]];
            acc += v * v;
        }
        out[oo] = sqrtf(acc);
    }
}

/* ---- cumsum: (float64[:], float64[:]) '(n)->(n)' ----------------------------------------- */

UFN_KERNEL ufn_test_cumsum_f64(ufn_kiter it, ufn_kcore core, const double *__restrict__ x,
                               ufn_kstrides lx, ufn_kstrides cx, double *__restrict__ out,
                               ufn_kstrides lo, ufn_kstrides co)
{
    for (uint32_t i = UFN_FIRST_INDEX(); i < it.n; i += UFN_GRID_STRIDE()) {
        int64_t ox, oo;
        offsets2(&it, i, &lx, &lo, &ox, &oo);
        double acc = 0.0;
        for (int64_t j = 0; j < core.dim[0]; j++) {
            acc += x[ox + j * cx.s[0]];
            out[oo + j * co.s[0]] = acc;
        }
    }
}

/* ---- coords: where each thread ran ---------------------------------------------------------- */

/* out[linear thread id] = 1 + the thread's six coordinates packed in 5 bits
 * each, so that a test can check every thread ran exactly once, where it should. */
UFN_KERNEL ufn_test_coords(uint32_t n, uint32_t *__restrict__ out)
{
    uint32_t block = (blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x;
    uint32_t thread = (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
    uint32_t id = block * (blockDim.x * blockDim.y * blockDim.z) + thread;
    if (id < n)
        out[id] += 1 + (blockIdx.x | blockIdx.y << 5 | blockIdx.z << 10 | threadIdx.x << 15 |
                        threadIdx.y << 20 | threadIdx.z << 25);
}
