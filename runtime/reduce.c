/* reduce.c - ufunc.reduce on the host, in NumPy's order of evaluation.
 *
 * ufn_reduce(f, a, opts, out) reduces a with a binary ufunc f that has a
 * T(T, T) signature for a's dtype, with NumPy's arguments (ufn_reduce_opts:
 * axes, keepdims, initial, where) and NumPy's errors, word for word.
 *
 * The order (DESIGN 7: NumPy 2.4's, the reference for every backend; NumPy
 * 1.x summed a contiguous axis in chunks of its 8192-element buffer).  The
 * axes are visited as NumPy's iterator visits them: size-1 axes dropped,
 * the rest sorted by the input's stride, largest outermost (ties keep C
 * order; negative strides are not flipped).  Each result starts from
 * `initial`, else the identity (0 or 1), else the first element of its
 * reduced elements (which is then skipped).  Then:
 *
 *   sequential   every ufunc but NumPy's add: acc = f(acc, x) over the
 *                reduced elements in that order.  Vectorised across the
 *                results (one call of the ufunc's host loop per reduced
 *                position for up to CHUNK results at once), so each result
 *                sees exactly this order.
 *   pairwise     a ufunc whose body is `return x + y` (func->sum) on
 *                float32/float64 and complex64/complex128 (the complex
 *                form below), when the innermost axis is reduced (as
 *                np.add.reduce along a contiguous axis): the reduced axes
 *                inside the innermost kept one form a block, summed as one
 *                sequence with NumPy's pairwise_sum (below); blocks are
 *                added to acc in order (acc += pw(block)).  With where=,
 *                each run of selected elements of a block is one sequence,
 *                as NumPy's masked loop calls the inner loop per run.
 *
 * pairwise_sum, as NumPy's loops (loops_utils.h) define it: fewer than 8
 * elements: 0 + x0 + x1 + ...; up to 128: eight accumulators r[j] over
 * x[j], x[j+8], ..., then ((r0+r1)+(r2+r3)) + ((r4+r5)+(r6+r7)), then the
 * last n % 8 added one by one; more: split at n2 = n/2 rounded down to a
 * multiple of 8, pw(first n2) + pw(rest).
 *
 * Threads: the results are shared among the pool's threads; a single
 * pairwise result of many elements is split along its own tree (the
 * subtrees summed at once, then combined in the tree's order), so the
 * bits never depend on the number of threads.
 *
 * Device arrays of the cuda and sim backends are reduced on the device by
 * the signature's reduce kernel where reduce_device.c can (trailing axes of
 * a contiguous array, a reorderable ufunc), in the kernel's order; the
 * others here, through host copies, the result going back to the input's
 * device. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ufnrt.h"

#define CHUNK 512            /* results per call of the host loop (sequential) */
#define PW_BLOCK 128         /* NumPy's PW_BLOCKSIZE */
#define PW_SPLIT_MIN 65536   /* a single pairwise sum this long is split over threads */
#define PW_SEGMENTS 16       /* into this many subtrees (a power of two) */

/* A reduction, its axes in iteration order (outermost first). */
typedef struct reduction {
    const ufn_func *f;
    const char *name;
    ufn_host_loop loop;
    ufn_dtype dt;
    int esize;
    int nd;                             /* axes of length > 1 */
    int64_t shape[UFN_MAXDIMS];
    int64_t as[UFN_MAXDIMS];            /* the input's byte strides */
    int64_t os[UFN_MAXDIMS];            /* the result's; 0 on reduced axes */
    int64_t ws[UFN_MAXDIMS];            /* the mask's; 0 where it broadcasts */
    bool red[UFN_MAXDIMS];
    const char *a;
    char *o;
    const unsigned char *w;             /* NULL: no where= */
    bool has_init;
    _Alignas(16) unsigned char init[16];
    int64_t count;                      /* reduced elements per result */
    int threads;
} reduction;

/* ---- positions --------------------------------------------------------------------------- */

/* The axes listed in `axes` (n of them), in iteration order: shape and the
 * byte offset of index i of their flattened (C-order) product, per array. */
typedef struct axset {
    int n;
    int64_t shape[UFN_MAXDIMS];
    int64_t as[UFN_MAXDIMS], os[UFN_MAXDIMS], ws[UFN_MAXDIMS];
    int64_t size;
} axset;

static axset axes_where(const reduction *r, bool reduced, int from, int to)
{
    axset s = { .size = 1 };
    for (int d = from; d < to; d++) {
        if (r->red[d] != reduced)
            continue;
        s.shape[s.n] = r->shape[d];
        s.as[s.n] = r->as[d];
        s.os[s.n] = r->os[d];
        s.ws[s.n] = r->ws[d];
        s.size *= r->shape[d];
        s.n++;
    }
    return s;
}

/* Byte offsets of flattened index i of s, in the input, result and mask. */
static void offsets(const axset *s, int64_t i, int64_t *ao, int64_t *oo, int64_t *wo)
{
    int64_t a = 0, o = 0, w = 0;
    for (int d = s->n - 1; d >= 0; d--) {
        int64_t k = i % s->shape[d];
        i /= s->shape[d];
        a += k * s->as[d];
        o += k * s->os[d];
        w += k * s->ws[d];
    }
    *ao = a;
    if (oo)
        *oo = o;
    if (wo)
        *wo = w;
}

/* ---- sequential -------------------------------------------------------------------------- */

typedef struct seq_job {
    const reduction *r;
    axset rows;                         /* kept axes but the innermost */
    axset red;                          /* reduced axes */
    int64_t len, vs, vos, vws;          /* the innermost kept axis: length, strides */
    int64_t chunks;                     /* per row */
} seq_job;

static void seq_task(void *ctx, int64_t task)
{
    const seq_job *j = ctx;
    const reduction *r = j->r;
    int64_t row = task / j->chunks, c0 = (task % j->chunks) * CHUNK;
    int64_t n = j->len - c0 < CHUNK ? j->len - c0 : CHUNK;
    int64_t ao, oo, wo;
    offsets(&j->rows, row, &ao, &oo, &wo);
    const char *a = r->a + ao + c0 * j->vs;
    const unsigned char *w = r->w ? r->w + wo + c0 * j->vws : NULL;
    char *o = r->o + oo + c0 * j->vos;
    _Alignas(64) unsigned char buf[2][CHUNK * 16];
    unsigned char *acc = buf[0], *next = buf[1];
    size_t es = (size_t)r->esize;
    int64_t first = 0;
    for (int64_t i = 0; i < n; i++) {
        if (r->has_init)
            memcpy(acc + i * es, r->init, es);
        else
            memcpy(acc + i * es, a + i * j->vs, es);
    }
    if (!r->has_init)
        first = 1;
    for (int64_t k = first; k < j->red.size; k++) {
        int64_t rao, rwo;
        offsets(&j->red, k, &rao, NULL, &rwo);
        char *args[3] = { (char *)acc, (char *)a + rao, (char *)next };
        ufn_index dims[1] = { n }, steps[3] = { (ufn_index)es, j->vs, (ufn_index)es };
        r->loop(args, dims, steps);
        if (w)
            for (int64_t i = 0; i < n; i++)
                if (!w[rwo + i * j->vws])
                    memcpy(next + i * es, acc + i * es, es);
        unsigned char *t = acc;
        acc = next;
        next = t;
    }
    for (int64_t i = 0; i < n; i++)
        memcpy(o + i * j->vos, acc + i * es, es);
}

static int reduce_sequential(const reduction *r)
{
    /* the innermost kept axis is the vector; the others are rows */
    int inner = -1;
    for (int d = 0; d < r->nd; d++)
        if (!r->red[d])
            inner = d;
    seq_job j = { .r = r, .len = 1 };
    j.rows = axes_where(r, false, 0, inner < 0 ? 0 : inner);
    j.red = axes_where(r, true, 0, r->nd);
    if (inner >= 0) {
        j.len = r->shape[inner];
        j.vs = r->as[inner];
        j.vos = r->os[inner];
        j.vws = r->ws[inner];
    }
    j.chunks = (j.len + CHUNK - 1) / CHUNK;
    int64_t tasks = j.rows.size * j.chunks;
    ufn_pool_run(tasks > 1 ? r->threads : 1, tasks, seq_task, &j);
    return UFN_OK;
}

/* ---- pairwise ---------------------------------------------------------------------------- */

/* A block: the reduced axes summed as one sequence, from a base address. */
typedef struct block {
    int n;
    int64_t shape[UFN_MAXDIMS], stride[UFN_MAXDIMS];
    int64_t wstride[UFN_MAXDIMS];       /* the mask's */
    int64_t size;
} block;

/* Copy elements [start, start + n) of the block at p to dst, packed. */
static void gather(const block *b, const char *p, int64_t start, int64_t n, size_t es, char *dst)
{
    int64_t idx[UFN_MAXDIMS], rest = start;
    const char *q = p;
    for (int d = b->n - 1; d >= 0; d--) {
        idx[d] = rest % b->shape[d];
        rest /= b->shape[d];
        q += idx[d] * b->stride[d];
    }
    for (int64_t i = 0; i < n; i++) {
        memcpy(dst + (size_t)i * es, q, es);
        for (int d = b->n - 1; d >= 0; d--) {
            q += b->stride[d];
            if (++idx[d] < b->shape[d])
                break;
            q -= idx[d] * b->stride[d];
            idx[d] = 0;
        }
    }
}

/* NumPy's pairwise_sum for one type: over n elements at p, `s` bytes apart;
 * and over elements [start, start + n) of a block of several axes.  The
 * eight accumulators of a contiguous leaf are one vector (GCC's vector
 * extension: the same eight additions in the same order, lane by lane). */
#define PAIRWISE(T, NAME)                                                                        \
    typedef T NAME##_v __attribute__((vector_size(16)));                                         \
    enum { NAME##_K = 8 / (16 / (int)sizeof(T)) };   /* 16-byte vectors in eight lanes */       \
    static T NAME##_leaf(const char *p, int64_t n)                                               \
    {                                                                                            \
        NAME##_v r[NAME##_K], x;                                                                 \
        _Pragma("GCC unroll 4") for (int k = 0; k < NAME##_K; k++)                               \
            memcpy(&r[k], p + 16 * k, 16);                                                       \
        int64_t i;                                                                               \
        for (i = 8; i < n - (n % 8); i += 8) {                                                   \
            _Pragma("GCC unroll 4") for (int k = 0; k < NAME##_K; k++) {                         \
                memcpy(&x, p + i * (int64_t)sizeof(T) + 16 * k, 16);                             \
                r[k] += x;                                                                       \
            }                                                                                    \
        }                                                                                        \
        T a[8];                                                                                  \
        memcpy(a, r, sizeof a);                                                                  \
        T res = ((a[0] + a[1]) + (a[2] + a[3])) + ((a[4] + a[5]) + (a[6] + a[7]));              \
        for (; i < n; i++)                                                                       \
            res += *(const T *)(p + i * (int64_t)sizeof(T));                                     \
        return res;                                                                              \
    }                                                                                            \
    static T NAME(const char *p, int64_t n, int64_t s)                                           \
    {                                                                                            \
        if (n >= 8 && n <= PW_BLOCK && s == (int64_t)sizeof(T))                                  \
            return NAME##_leaf(p, n);                                                            \
        if (n < 8) {                                                                             \
            T res = 0.;                                                                          \
            for (int64_t i = 0; i < n; i++)                                                      \
                res += *(const T *)(p + i * s);                                                  \
            return res;                                                                          \
        }                                                                                        \
        if (n <= PW_BLOCK) {                                                                     \
            T r[8];                                                                              \
            for (int k = 0; k < 8; k++)                                                          \
                r[k] = *(const T *)(p + k * s);                                                  \
            int64_t i;                                                                           \
            for (i = 8; i < n - (n % 8); i += 8)                                                 \
                for (int k = 0; k < 8; k++)                                                      \
                    r[k] += *(const T *)(p + (i + k) * s);                                       \
            T res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));          \
            for (; i < n; i++)                                                                   \
                res += *(const T *)(p + i * s);                                                  \
            return res;                                                                          \
        }                                                                                        \
        int64_t n2 = n / 2;                                                                      \
        n2 -= n2 % 8;                                                                            \
        return NAME(p, n2, s) + NAME(p + n2 * s, n - n2, s);                                     \
    }                                                                                            \
    static T NAME##_block(const block *b, const char *p, int64_t start, int64_t n)               \
    {                                                                                            \
        if (b->n == 1)                                                                           \
            return NAME(p + start * b->stride[0], n, b->stride[0]);                              \
        if (n <= PW_BLOCK) {                                                                     \
            T tmp[PW_BLOCK];                                                                     \
            gather(b, p, start, n, sizeof(T), (char *)tmp);                                      \
            return NAME((const char *)tmp, n, sizeof(T));                                        \
        }                                                                                        \
        int64_t n2 = n / 2;                                                                      \
        n2 -= n2 % 8;                                                                            \
        return NAME##_block(b, p, start, n2) + NAME##_block(b, p, start + n2, n - n2);           \
    }

PAIRWISE(float, pw_f32)
PAIRWISE(double, pw_f64)

/* NumPy's pairwise_sum of complex numbers (loops_utils.h's complex form):
 * the float algorithm on the real and imaginary parts as 2n scalars, so in
 * elements: fewer than 4: 0 + x0 + x1 + ...; up to 64: four accumulators
 * (eight scalars) over x[j], x[j+4], ..., then (r0 + r2) + (r4 + r6) for the
 * real part and (r1 + r3) + (r5 + r7) for the imaginary one, then the last
 * n % 4 one by one; more: split at (n - n % 8) / 2 elements.  s: the byte
 * stride of the elements. */
#define PW_C_BLOCK (PW_BLOCK / 2)
#define PAIRWISE_COMPLEX(T, NAME)                                                                \
    static void NAME(const char *p, int64_t n, int64_t s, T *re, T *im)                          \
    {                                                                                            \
        if (n < 4) {                                                                             \
            T r = 0., i = 0.;                                                                    \
            for (int64_t k = 0; k < n; k++) {                                                    \
                r += ((const T *)(p + k * s))[0];                                                \
                i += ((const T *)(p + k * s))[1];                                                \
            }                                                                                    \
            *re = r;                                                                             \
            *im = i;                                                                             \
            return;                                                                              \
        }                                                                                        \
        if (n <= PW_C_BLOCK) {                                                                   \
            T r[8];                                                                              \
            for (int j = 0; j < 4; j++) {                                                        \
                r[2 * j] = ((const T *)(p + j * s))[0];                                          \
                r[2 * j + 1] = ((const T *)(p + j * s))[1];                                      \
            }                                                                                    \
            int64_t k;                                                                           \
            for (k = 4; k < n - (n % 4); k += 4)                                                 \
                for (int j = 0; j < 4; j++) {                                                    \
                    r[2 * j] += ((const T *)(p + (k + j) * s))[0];                               \
                    r[2 * j + 1] += ((const T *)(p + (k + j) * s))[1];                           \
                }                                                                                \
            T rr = (r[0] + r[2]) + (r[4] + r[6]), ri = (r[1] + r[3]) + (r[5] + r[7]);            \
            for (; k < n; k++) {                                                                 \
                rr += ((const T *)(p + k * s))[0];                                               \
                ri += ((const T *)(p + k * s))[1];                                               \
            }                                                                                    \
            *re = rr;                                                                            \
            *im = ri;                                                                            \
            return;                                                                              \
        }                                                                                        \
        int64_t n2 = (n - n % 8) / 2;                                                            \
        T r1, i1, r2, i2;                                                                        \
        NAME(p, n2, s, &r1, &i1);                                                                \
        NAME(p + n2 * s, n - n2, s, &r2, &i2);                                                   \
        *re = r1 + r2;                                                                           \
        *im = i1 + i2;                                                                           \
    }                                                                                            \
    static void NAME##_block(const block *b, const char *p, int64_t start, int64_t n, T *re,     \
                             T *im)                                                              \
    {                                                                                            \
        if (b->n == 1) {                                                                         \
            NAME(p + start * b->stride[0], n, b->stride[0], re, im);                             \
            return;                                                                              \
        }                                                                                        \
        if (n <= PW_C_BLOCK) {                                                                   \
            T tmp[2 * PW_C_BLOCK];                                                               \
            gather(b, p, start, n, 2 * sizeof(T), (char *)tmp);                                  \
            NAME((const char *)tmp, n, 2 * sizeof(T), re, im);                                   \
            return;                                                                              \
        }                                                                                        \
        int64_t n2 = (n - n % 8) / 2;                                                            \
        T r1, i1, r2, i2;                                                                        \
        NAME##_block(b, p, start, n2, &r1, &i1);                                                 \
        NAME##_block(b, p, start + n2, n - n2, &r2, &i2);                                        \
        *re = r1 + r2;                                                                           \
        *im = i1 + i2;                                                                           \
    }

PAIRWISE_COMPLEX(float, pw_c64)
PAIRWISE_COMPLEX(double, pw_c128)

/* acc (of the result's type) += the pairwise sum of one sequence of a block;
 * a complex acc part by part, as NumPy's complex add does. */
static void pw_into(ufn_dtype dt, const block *b, const char *p, int64_t start, int64_t n, void *acc)
{
    if (dt == UFN_FLOAT32) {
        *(float *)acc += pw_f32_block(b, p, start, n);
    } else if (dt == UFN_FLOAT64) {
        *(double *)acc += pw_f64_block(b, p, start, n);
    } else if (dt == UFN_COMPLEX64) {
        float re, im;
        pw_c64_block(b, p, start, n, &re, &im);
        ((float *)acc)[0] += re;
        ((float *)acc)[1] += im;
    } else {
        double re, im;
        pw_c128_block(b, p, start, n, &re, &im);
        ((double *)acc)[0] += re;
        ((double *)acc)[1] += im;
    }
}

/* The subtrees of one long sum: the split rule applied `levels` times.
 * seg[i] = (start, n) of leaf i, in order. */
static int split_tree(int64_t start, int64_t n, int levels, int64_t (*seg)[2], int k)
{
    if (levels == 0 || n <= PW_BLOCK) {
        seg[k][0] = start;
        seg[k][1] = n;
        return k + 1;
    }
    int64_t n2 = n / 2;
    n2 -= n2 % 8;
    k = split_tree(start, n2, levels - 1, seg, k);
    return split_tree(start + n2, n - n2, levels - 1, seg, k);
}

typedef struct pw_job {
    const reduction *r;
    block blk;
    axset outs;                         /* kept axes: one result each */
    axset outer;                        /* reduced axes outside the block, in order */
    /* a single long sum, split */
    const char *base;
    int64_t (*seg)[2];
    double part[PW_SEGMENTS];           /* each subtree's sum (a float's bits, for float32) */
} pw_job;

static void pw_segment_task(void *ctx, int64_t task)
{
    pw_job *j = ctx;
    if (j->r->dt == UFN_FLOAT32) {
        float f = pw_f32_block(&j->blk, j->base, j->seg[task][0], j->seg[task][1]);
        memcpy(&j->part[task], &f, sizeof f);   /* the float's bits, not widened */
    } else {
        j->part[task] = pw_f64_block(&j->blk, j->base, j->seg[task][0], j->seg[task][1]);
    }
}

/* Combine the subtrees' sums as the tree does: leaves k..k+m. */
static double combine64(const double *part, int k, int m)
{
    return m == 1 ? part[k] : combine64(part, k, m / 2) + combine64(part, k + m / 2, m - m / 2);
}

static float combine32(const double *part, int k, int m)
{
    if (m == 1) {
        float f;
        memcpy(&f, &part[k], sizeof f);
        return f;
    }
    return combine32(part, k, m / 2) + combine32(part, k + m / 2, m - m / 2);
}

/* Sum elements [start, start + n) of a block into acc, splitting a long
 * one over the pool.  The tree of split_tree is the pairwise tree only
 * while every level splits, which n >= PW_SPLIT_MIN guarantees for 4
 * levels (n / 16 > 128). */
static void pw_run(pw_job *j, const char *base, int64_t start, int64_t n, void *acc, bool split)
{
    bool real = j->r->dt == UFN_FLOAT32 || j->r->dt == UFN_FLOAT64;   /* complex: one thread */
    if (!split || !real || n < PW_SPLIT_MIN || j->r->threads < 2) {
        pw_into(j->r->dt, &j->blk, base, start, n, acc);
        return;
    }
    int64_t seg[PW_SEGMENTS][2];
    int m = split_tree(start, n, 4, seg, 0);
    j->base = base;
    j->seg = seg;
    ufn_pool_run(j->r->threads, m, pw_segment_task, j);
    if (j->r->dt == UFN_FLOAT32)
        *(float *)acc += combine32(j->part, 0, m);
    else
        *(double *)acc += combine64(j->part, 0, m);
}

/* The mask's byte offset of element i of a block. */
static int64_t mask_offset(const block *b, int64_t i)
{
    int64_t off = 0;
    for (int d = b->n - 1; d >= 0; d--) {
        off += (i % b->shape[d]) * b->wstride[d];
        i /= b->shape[d];
    }
    return off;
}

/* One result: acc from initial or the first element, then block after
 * block, each block one sequence (or one per run of where=). */
static void pw_result(pw_job *j, int64_t out, bool split)
{
    const reduction *r = j->r;
    size_t es = (size_t)r->esize;
    int64_t ao, oo, wo;
    offsets(&j->outs, out, &ao, &oo, &wo);
    _Alignas(16) unsigned char acc[16];
    bool first = !r->has_init;
    if (r->has_init)
        memcpy(acc, r->init, es);
    for (int64_t k = 0; k < j->outer.size; k++) {
        int64_t bao, bwo;
        offsets(&j->outer, k, &bao, NULL, &bwo);
        const char *base = r->a + ao + bao;
        if (!r->w) {
            int64_t start = 0;
            if (first) {
                memcpy(acc, base, es);
                start = 1;
                first = false;
            }
            pw_run(j, base, start, j->blk.size - start, acc, split);
            continue;
        }
        /* runs of selected elements (where= always comes with an initial) */
        const unsigned char *wbase = r->w + wo + bwo;
        int64_t run = -1;
        for (int64_t i = 0; i <= j->blk.size; i++) {
            bool on = i < j->blk.size && wbase[mask_offset(&j->blk, i)] != 0;
            if (on && run < 0)
                run = i;
            if (!on && run >= 0) {
                pw_into(r->dt, &j->blk, base, run, i - run, acc);
                run = -1;
            }
        }
    }
    memcpy(r->o + oo, acc, es);
}

static void pw_task(void *ctx, int64_t task)
{
    pw_result(ctx, task, false);
}

static int reduce_pairwise(const reduction *r)
{
    int inner = -1;                     /* the innermost kept axis */
    for (int d = 0; d < r->nd; d++)
        if (!r->red[d])
            inner = d;
    pw_job j = { .r = r };
    j.outs = axes_where(r, false, 0, r->nd);
    j.outer = axes_where(r, true, 0, inner < 0 ? 0 : inner);
    axset in = axes_where(r, true, inner < 0 ? 0 : inner, r->nd);
    j.blk.n = in.n;
    j.blk.size = in.size;
    for (int d = 0; d < in.n; d++) {
        j.blk.shape[d] = in.shape[d];
        j.blk.stride[d] = in.as[d];
        j.blk.wstride[d] = in.ws[d];
    }
    /* adjacent axes that are one in memory are one axis (the fast path) */
    int n = 0;
    for (int d = 0; d < j.blk.n; d++) {
        if (n > 0 && j.blk.stride[n - 1] == j.blk.stride[d] * j.blk.shape[d]
            && j.blk.wstride[n - 1] == j.blk.wstride[d] * j.blk.shape[d]) {
            j.blk.shape[n - 1] *= j.blk.shape[d];
            j.blk.stride[n - 1] = j.blk.stride[d];
            j.blk.wstride[n - 1] = j.blk.wstride[d];
            continue;
        }
        j.blk.shape[n] = j.blk.shape[d];
        j.blk.stride[n] = j.blk.stride[d];
        j.blk.wstride[n] = j.blk.wstride[d];
        n++;
    }
    j.blk.n = n;
    if (j.outs.size == 1)
        pw_result(&j, 0, true);
    else
        ufn_pool_run(r->threads, j.outs.size, pw_task, &j);
    return UFN_OK;
}

/* ---- arguments --------------------------------------------------------------------------- */

/* f's T(T, T) host loop for dtype t (for the methods.c entries too). */
int ufn_method_loop(const ufn_func *f, ufn_dtype t, const char *method, const ufn_loop **out)
{
    if (!f)
        return ufn_fail(UFN_ERR_INVALID, "the ufunc descriptor is NULL");
    const char *name = f->name ? f->name : "ufunc";
    if (ufn_check_module(f->module, name) < 0)
        return UFN_ERR_INVALID;
    if (f->nin != 2 || f->nout != 1 || f->ncore != 0)
        return ufn_fail(UFN_ERR_INVALID, "%s.%s: %s is not a binary ufunc", name, method, name);
    for (int i = 0; i < f->nloops; i++) {
        const ufn_dtype *ty = f->loops[i].types;
        if (ty && ty[0] == t && ty[1] == t && ty[2] == t) {
            *out = &f->loops[i];
            return UFN_OK;
        }
    }
    return ufn_fail(UFN_ERR_DTYPE, "%s.%s: %s has no signature %s(%s, %s)", name, method, name,
                    ufn_dtype_name(t), ufn_dtype_name(t), ufn_dtype_name(t));
}

/* The reduced axes (NumPy's checks and words), as flags per axis. */
static int reduced_axes(const reduction *r, int ndim, const ufn_reduce_opts *o, bool *red, int *naxes)
{
    memset(red, 0, UFN_MAXDIMS * sizeof *red);
    *naxes = 0;
    if (o && o->naxes == UFN_AXES_ALL) {
        for (int d = 0; d < ndim; d++)
            red[d] = true;
        *naxes = ndim;
        return UFN_OK;
    }
    int n = o && o->naxes > 0 ? o->naxes : 1;
    if (o && (o->naxes < UFN_AXES_ALL || o->naxes > UFN_MAXDIMS))
        return ufn_fail(UFN_ERR_INVALID, "%s.reduce: naxes %d is neither UFN_AXES_ALL nor 0..%d",
                        r->name, o->naxes, UFN_MAXDIMS);
    if (ndim == 0 && !(o && o->naxes > 0))
        return UFN_OK;                  /* a 0-d array: nothing to reduce */
    for (int i = 0; i < n; i++) {
        int ax = o && o->naxes > 0 ? o->axes[i] : 0;
        if (ax < -ndim || ax >= ndim)
            return ufn_fail(UFN_ERR_INVALID, "%s.reduce: axis %d is out of bounds for array of "
                            "dimension %d", r->name, ax, ndim);
        if (ax < 0)
            ax += ndim;
        if (red[ax])
            return ufn_fail(UFN_ERR_INVALID, "%s.reduce: duplicate value in 'axis'", r->name);
        red[ax] = true;
        (*naxes)++;
    }
    return UFN_OK;
}

/* where=: a bool host array that broadcasts to a's shape; its byte strides
 * aligned with a's axes (0 where it broadcasts). */
static int where_strides(const reduction *r, const ufn_array *a, const ufn_array *w, int64_t *ws)
{
    int st = ufn_check_array(w, "where");
    if (st < 0)
        return st;
    if (w->dtype != UFN_BOOL || w->memory != UFN_MEM_HOST)
        return ufn_fail(UFN_ERR_INVALID, "%s.reduce: where= must be a bool host array", r->name);
    int64_t bs[UFN_MAXDIMS];
    ufn_byte_strides(w, bs);
    bool ok = w->ndim <= a->ndim;
    for (int d = 0; d < a->ndim; d++) {
        int wd = d - (a->ndim - w->ndim);
        ws[d] = 0;
        if (wd < 0)
            continue;
        if (w->shape[wd] == a->shape[d])
            ws[d] = bs[wd];
        else if (w->shape[wd] != 1)
            ok = false;
    }
    if (!ok)
        return ufn_fail(UFN_ERR_SHAPE, "%s.reduce: operands could not be broadcast together: "
                        "where= of %d dimensions does not broadcast to the array's shape",
                        r->name, w->ndim);
    return UFN_OK;
}

/* The start of every result: initial=, else the identity, else none. */
static int start_value(reduction *r, const ufn_reduce_opts *o)
{
    if (o && o->initial) {
        memcpy(r->init, o->initial, (size_t)r->esize);
        r->has_init = true;
    } else if (r->f->identity == UFN_IDENTITY_ZERO || r->f->identity == UFN_IDENTITY_ONE) {
        int64_t v = r->f->identity == UFN_IDENTITY_ONE;
        ufn_convert(r->init, r->dt, 0, &v, UFN_INT64, 0, 1);
        r->has_init = true;
    }
    return UFN_OK;
}

/* The axes in iteration order (NumPy's iterator: by the input's stride,
 * largest first, ties in C order), length-1 axes left out. */
static void iteration_order(reduction *r, const ufn_array *a, const int64_t *as,
                            const int64_t *os, const int64_t *ws, const bool *red)
{
    int order[UFN_MAXDIMS], n = 0;
    for (int d = 0; d < a->ndim; d++)
        if (a->shape[d] != 1)
            order[n++] = d;
    for (int i = 1; i < n; i++) {       /* insertion sort: stable */
        int d = order[i], k = i;
        int64_t s = llabs(as[d]);
        while (k > 0 && llabs(as[order[k - 1]]) < s) {
            order[k] = order[k - 1];
            k--;
        }
        order[k] = d;
    }
    r->nd = n;
    for (int i = 0; i < n; i++) {
        int d = order[i];
        r->shape[i] = a->shape[d];
        r->as[i] = as[d];
        r->os[i] = red[d] ? 0 : os[d];
        r->ws[i] = ws[d];
        r->red[i] = red[d];
    }
}

/* ---- the entry --------------------------------------------------------------------------- */

/* Reduce host array a into the host result res (checked, shaped). */
static int reduce_host(reduction *r, const ufn_array *a, const bool *red, const int64_t *ws,
                       const ufn_array *res)
{
    int64_t as[UFN_MAXDIMS], rs[UFN_MAXDIMS], os[UFN_MAXDIMS];
    ufn_byte_strides(a, as);
    ufn_byte_strides(res, rs);
    /* the result's strides on a's axes (keepdims or not) */
    for (int d = 0, k = 0; d < a->ndim; d++) {
        bool kept_axis = !red[d] || res->ndim == a->ndim;
        os[d] = red[d] ? 0 : rs[k];
        if (kept_axis)
            k++;
    }
    r->a = ufn_array_ptr(a);
    r->o = res->data;
    iteration_order(r, a, as, os, ws, red);
    int64_t outs = ufn_size(res);
    if (outs == 0)
        return UFN_OK;
    if (r->count == 0) {                /* the identity or initial, everywhere */
        int64_t ones[UFN_MAXDIMS];
        for (int d = 0; d < res->ndim; d++)
            ones[d] = 0;
        ufn_copy_nd(res->ndim, res->shape, res->data, r->dt, rs, (const char *)r->init, r->dt, ones);
        return UFN_OK;
    }
    bool inner_reduced = r->nd == 0 || r->red[r->nd - 1];
    bool floats = r->dt == UFN_FLOAT32 || r->dt == UFN_FLOAT64 || r->dt == UFN_COMPLEX64
                  || r->dt == UFN_COMPLEX128;
    if (r->f->sum && inner_reduced && floats)
        return reduce_pairwise(r);
    return reduce_sequential(r);
}

/* The result's shape: a's without the reduced axes, or with 1 there. */
static int result_shape(const ufn_array *a, const bool *red, bool keepdims, int64_t *shape)
{
    int n = 0;
    for (int d = 0; d < a->ndim; d++) {
        if (!red[d])
            shape[n++] = a->shape[d];
        else if (keepdims)
            shape[n++] = 1;
    }
    return n;
}

static int check_out(const reduction *r, const ufn_array *out, int ndim, const int64_t *shape,
                     ufn_memory mem)
{
    int st = ufn_check_array(out, "out");
    if (st < 0)
        return st;
    bool same = out->ndim == ndim && out->dtype == r->dt && out->memory == mem;
    for (int d = 0; same && d < ndim; d++)
        same = out->shape[d] == shape[d];
    if (!same)
        return ufn_fail(UFN_ERR_OUTPUT, "%s.reduce: out must be a %s array of the result's shape "
                        "and the input's memory, or passed empty", r->name, ufn_dtype_name(r->dt));
    return UFN_OK;
}

/* A device array on its device (reduce_device.c): the result allocated
 * there when out is empty. */
static int reduce_on_device(const reduction *r, const ufn_loop *loop, const ufn_backend_ops *be,
                            const ufn_array *a, int ndim, const int64_t *shape, ufn_array *out)
{
    ufn_array res = *out;
    int st = UFN_OK;
    char name[160];   /* the NVTX range: "add.reduce" */
    snprintf(name, sizeof name, "%s.reduce", r->f->name ? r->f->name : "ufunc");
    bool range = ufn_nvtx_push(be->device_memory == UFN_MEM_DEVICE, name);
    if (out->memory == UFN_MEM_NONE)
        st = ufn_alloc_array(r->dt, ndim, shape, a->memory, a->device, &res);
    if (st == UFN_OK)
        st = ufn_reduce_device(r->f, loop, be, a, r->count, r->has_init ? r->init : NULL, &res);
    if (range)
        ufn_nvtx_pop();
    return ufn_finish_result(out, &res, st);
}

int ufn_reduce(const ufn_func *f, const ufn_array *a, const ufn_reduce_opts *opts, ufn_array *out)
{
    const ufn_loop *loop;
    int st = ufn_check_array(a, "the array");
    if (st < 0)
        return st;
    if ((st = ufn_method_loop(f, a->dtype, "reduce", &loop)) < 0)
        return st;
    if (!out)
        return ufn_fail(UFN_ERR_INVALID, "%s.reduce: out is NULL", f->name);
    reduction r = { .f = f, .name = f->name, .dt = a->dtype, .esize = ufn_dtype_size(a->dtype),
                    .threads = ufn_host_threads() };
    r.loop = ufn_host_pick_loop(loop, ufn_host_isa());
    if (!r.loop)
        return ufn_fail(UFN_ERR_NO_CODE, "%s.reduce: the module was built without host code, "
                        "which reduce runs", f->name);
    bool red[UFN_MAXDIMS];
    int naxes;
    if ((st = reduced_axes(&r, a->ndim, opts, red, &naxes)) < 0)
        return st;
    if (naxes > 1 && f->identity == UFN_IDENTITY_NONE)
        return ufn_fail(UFN_ERR_INVALID, "%s.reduce: reduction operation '%s' is not reorderable, "
                        "so at most one axis may be specified", f->name, f->name);
    start_value(&r, opts);
    int64_t ws[UFN_MAXDIMS] = { 0 };
    if (opts && opts->where) {
        if (!r.has_init)
            return ufn_fail(UFN_ERR_INVALID, "%s.reduce: reduction operation '%s' does not have an "
                            "identity, so to use a where mask one has to specify 'initial'",
                            f->name, f->name);
        if ((st = where_strides(&r, a, opts->where, ws)) < 0)
            return st;
        r.w = ufn_array_ptr(opts->where);
    }
    r.count = 1;
    for (int d = 0; d < a->ndim; d++)
        if (red[d])
            r.count *= a->shape[d];
    if (r.count == 0 && !r.has_init)    /* NumPy's words */
        return ufn_fail(UFN_ERR_SHAPE, "%s.reduce: zero-size array to reduction operation %s "
                        "which has no identity", f->name, f->name);
    int64_t shape[UFN_MAXDIMS];
    int ndim = result_shape(a, red, opts && opts->keepdims, shape);
    const ufn_backend_ops *be = NULL;
    if (a->memory == UFN_MEM_DEVICE && (st = ufn_get_backend(&be)) < 0)
        return st;
    /* cuda and sim device arrays: through the host (see the top) */
    bool staged = be && be != &ufn_backend_host;
    if (out->memory != UFN_MEM_NONE && (st = check_out(&r, out, ndim, shape, a->memory)) < 0)
        return st;
    if (staged && out->memory != UFN_MEM_NONE && !ufn_is_c_contiguous(out))
        return ufn_fail(UFN_ERR_OUTPUT, "%s.reduce: a device out must be C-contiguous", f->name);
    if (staged) {
        int64_t results = 1;
        for (int d = 0; d < ndim; d++)
            results *= shape[d];
        const char *why = ufn_reduce_device_refusal(f, loop, be, a, red, opts && opts->where,
                                                    r.count, results);
        if (!why)
            return reduce_on_device(&r, loop, be, a, ndim, shape, out);
        if (ufn_tracing()) {
            char line[160];
            snprintf(line, sizeof line, "%s.reduce through the host: %s", f->name, why);
            ufn_emit(UFN_EV_CHOICE, be->name, line, 0, a->device);
        }
    }
    ufn_array ha = *a, hres = { 0 }, res = *out;
    if (staged) {
        ha = (ufn_array){ 0 };
        st = ufn_copy_to_host(a, &ha);
        if (st == UFN_OK)
            st = ufn_alloc_array(r.dt, ndim, shape, UFN_MEM_HOST, 0, &hres);
    } else if (out->memory == UFN_MEM_NONE) {
        st = ufn_alloc_array(r.dt, ndim, shape, a->memory, a->device, &res);
        hres = res;
    } else {
        hres = *out;
    }
    if (st == UFN_OK)
        st = reduce_host(&r, &ha, red, ws, &hres);
    if (staged && st == UFN_OK) {
        if (out->memory == UFN_MEM_NONE)
            st = ufn_to_device(&hres, &res);
        else {
            ufn_stream_impl *s;
            st = ufn_current_stream(&s);
            if (st == UFN_OK)
                st = be->copy_h2d(be, out->device, out->data, hres.data, ufn_array_bytes(&hres), s);
        }
    }
    if (staged) {
        ufn_free(&ha);
        ufn_free(&hres);
    }
    return ufn_finish_result(out, &res, st);
}
