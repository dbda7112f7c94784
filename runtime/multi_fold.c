/* multi_fold.c - reducing with any binary ufunc: along the first
 * dimension of an array (ufn_fold), over the parts of a sharded array, and
 * element by element on host memory (ufn_combine_host, what an MPI
 * reduction operator calls).
 *
 * The ufunc is named by its general entry, `int f(const ufn_array *, const
 * ufn_array *, ufn_array *)`; ufn_func_of (call.c) finds the descriptor
 * behind it.  It needs a signature T(T, T) for the array's dtype, and must
 * be associative (the order below regroups the rows); it need not be
 * commutative: rows are only ever combined with their neighbours, the
 * earlier one first.
 *
 * The order, fixed by the number of rows alone (so the same on every
 * backend, and the same bits where the ufunc's are):
 *   one array    rows (0,1), (2,3), ... are combined by one call of f on
 *                two strided views, then the results likewise, level after
 *                level; an odd last row joins the pair before it, by one
 *                call more.  About 2 log2(n) calls, each over all the rows
 *                of its level, in the memory the array lives in (device
 *                arrays stay on their device).  Scratch: n/2 rows, then n/4.
 *   sharded      each device folds its own rows so, at once; then the
 *                partial results are combined in device order
 *                (((p0 f p1) f p2) ...) on the first device, each brought
 *                there with a peer copy.
 * A reduction written for the ufunc itself (ufunc.reduce, issue 17 part 1)
 * is faster for one array; when it exists, fold_one is the one place to
 * call it from, and the combination of the devices' partials stays.
 */
#include <stdlib.h>
#include <string.h>

#include "ufnrt.h"

/* What one fold needs to know about the ufunc. */
typedef struct folder {
    ufn_binary_ufunc f;
    const ufn_func *func;
    const ufn_loop *loop;               /* its T(T, T) signature */
    const char *name;
    ufn_dtype dtype;                    /* T of the T(T, T) signature */
} folder;

/* The descriptor behind f, and its T(T, T) signature for dtype t. */
static int describe(ufn_binary_ufunc f, ufn_dtype t, const char *fn, folder *out)
{
    if (!f)
        return ufn_fail(UFN_ERR_INVALID, "%s: the ufunc is NULL", fn);
    const ufn_func *func = ufn_func_of(f);
    if (!func)
        return ufn_fail(UFN_ERR_INVALID, "%s: the function is not the general entry of a ufunc "
                        "compiled by ufnc", fn);
    const char *name = func->name ? func->name : "ufunc";
    if (func->nin != 2 || func->nout != 1 || func->ncore != 0)
        return ufn_fail(UFN_ERR_INVALID, "%s: %s is not a binary ufunc (two inputs, one output, "
                        "no core dimensions)", fn, name);
    for (int i = 0; i < func->nloops; i++) {
        const ufn_dtype *ty = func->loops[i].types;
        if (ty && ty[0] == t && ty[1] == t && ty[2] == t) {
            *out = (folder){ f, func, &func->loops[i], name, t };
            return UFN_OK;
        }
    }
    return ufn_fail(UFN_ERR_DTYPE, "%s: %s has no signature %s(%s, %s) to reduce with", fn, name,
                    ufn_dtype_name(t), ufn_dtype_name(t), ufn_dtype_name(t));
}

/* ---- views ------------------------------------------------------------------------------- */

/* Rows first, first + step, ..., `rows` of them, of a (a view). */
static ufn_array rows_of(const ufn_array *a, int64_t first, int64_t step, int64_t rows)
{
    ufn_array v = *a;
    v.data = (char *)a->data + first * a->strides[0] * ufn_dtype_size(a->dtype);
    v.strides[0] = a->strides[0] * step;
    v.shape[0] = rows;
    v.flags &= ~UFN_FLAG_OWNER_MASK;
    return v;
}

/* r (one row's shape) with a first dimension of 1 in front: what f writes
 * at the last level. */
static ufn_array with_row_dim(const ufn_array *r)
{
    ufn_array v = *r;
    v.ndim = r->ndim + 1;
    v.shape[0] = 1;
    v.strides[0] = 0;
    for (int d = 0; d < r->ndim; d++) {
        v.shape[d + 1] = r->shape[d];
        v.strides[d + 1] = r->strides[d];
    }
    v.flags &= ~UFN_FLAG_OWNER_MASK;
    return v;
}

/* ---- one array --------------------------------------------------------------------------- */

/* Copy row 0 of a (one row) into the new C-contiguous array dst of its
 * memory: the result of folding a single row. */
static int copy_row(const ufn_array *a, const ufn_array *dst)
{
    ufn_array row = rows_of(a, 0, 1, 1);
    size_t bytes = ufn_array_bytes(dst);
    if (bytes == 0)
        return UFN_OK;
    if (a->memory == UFN_MEM_HOST) {
        ufn_array d1 = with_row_dim(dst);
        int64_t ds[UFN_MAXDIMS], ss[UFN_MAXDIMS];
        ufn_byte_strides(&d1, ds);
        ufn_byte_strides(&row, ss);
        ufn_copy_nd(row.ndim, row.shape, d1.data, d1.dtype, ds, row.data, row.dtype, ss);
        return UFN_OK;
    }
    const ufn_backend_ops *be;
    ufn_stream_impl *s;
    int st = ufn_get_backend(&be);
    if (st == UFN_OK)
        st = ufn_current_stream(&s);
    if (st < 0)
        return st;
    if (ufn_is_c_contiguous(&row))
        return be->copy_d2d(be, a->device, dst->data, row.data, bytes, s);
    ufn_array packed = { 0 };
    st = ufn_copy_to_host(&row, &packed);   /* a strided row: through the host */
    if (st == UFN_OK)
        st = be->copy_h2d(be, a->device, dst->data, packed.data, bytes, s);
    ufn_free(&packed);
    return st;
}

/* Fold a (host or one device's memory, any strides, n >= 1 rows) into
 * `res`, a C-contiguous array of one row's shape in a's memory. */
static int fold_rows(const folder *fo, const ufn_array *a, const ufn_array *res)
{
    int64_t n = a->shape[0];
    if (n == 1)
        return copy_row(a, res);
    /* Scratch for the levels: n/2 rows, and n/4 for the one after. */
    int64_t shape[UFN_MAXDIMS];
    memcpy(shape, a->shape, (size_t)a->ndim * sizeof *shape);
    ufn_array buf[2] = { { 0 }, { 0 } };
    int st = UFN_OK;
    for (int i = 0; i < 2 && st == UFN_OK; i++) {
        shape[0] = n >> (i + 1);
        if (shape[0] > 1)
            st = ufn_alloc_array(fo->dtype, a->ndim, shape, a->memory, a->device, &buf[i]);
    }
    ufn_array cur = *a, last = with_row_dim(res);
    for (int level = 0; st == UFN_OK && cur.shape[0] > 1; level++) {
        int64_t m = cur.shape[0], h = m / 2;
        ufn_array dst = h == 1 ? last : rows_of(&buf[level % 2], 0, 1, h);
        ufn_array even = rows_of(&cur, 0, 2, h), odd = rows_of(&cur, 1, 2, h);
        st = fo->f(&even, &odd, &dst);
        if (st == UFN_OK && m % 2) {
            ufn_array tail = rows_of(&dst, h - 1, 1, 1), extra = rows_of(&cur, m - 1, 1, 1);
            st = fo->f(&tail, &extra, &tail);
        }
        cur = dst;
    }
    ufn_free(&buf[0]);
    ufn_free(&buf[1]);
    return st;
}

/* A new C-contiguous array of one row of a's shape, in memory `mem` of
 * `device`. */
static int new_result(const folder *fo, const ufn_array *a, ufn_memory mem, int device,
                      ufn_array *res)
{
    return ufn_alloc_array(fo->dtype, a->ndim - 1, a->shape + 1, mem, device, res);
}

/* ---- a sharded array --------------------------------------------------------------------- */

/* Fold every part on its device, then combine the partial results in
 * device order on the first device that has rows; the result there. */
static int fold_sharded(const folder *fo, const ufn_array *a, ufn_array *res)
{
    const ufn_shards *t = ufn_shards_of(a);
    const ufn_backend_ops *be;
    int st = ufn_get_backend(&be);
    if (st < 0)
        return st;
    ufn_array part[UFN_MAX_SET];
    int have[UFN_MAX_SET], n = 0;
    for (int p = 0; p < t->nparts && st == UFN_OK; p++) {
        if (t->rows[p] == 0)
            continue;
        ufn_array view;
        ufn_shards_part(t, p, &view);
        st = new_result(fo, &view, view.memory, view.device, &part[n]);
        if (st == UFN_OK && (st = fold_rows(fo, &view, &part[n])) < 0)
            ufn_free(&part[n]);
        if (st == UFN_OK)
            have[n++] = p;
    }
    for (int i = 1; i < n && st == UFN_OK; i++) {
        ufn_array *acc = &part[0], moved = part[i];
        int from = t->device[have[i]], to = t->device[have[0]];
        if (from != to) {
            st = new_result(fo, a, acc->memory, to, &moved);
            if (st == UFN_OK)
                st = be->copy_peer(be, to, moved.data, from, part[i].data,
                                   ufn_array_bytes(&moved));
        }
        if (st == UFN_OK)
            st = fo->f(acc, &moved, acc);
        if (moved.alloc_id != part[i].alloc_id)
            ufn_free(&moved);
    }
    for (int i = 1; i < n; i++)
        ufn_free(&part[i]);
    if (st < 0) {
        if (n > 0)
            ufn_free(&part[0]);
        return st;
    }
    *res = part[0];
    return UFN_OK;
}

/* ---- the entry points ----------------------------------------------------------------------- */

int ufn_fold(ufn_binary_ufunc f, const ufn_array *a, ufn_array *out)
{
    static const char fn[] = "ufn_fold";
    int st = ufn_check_whole(a, "ufn_fold: the array");
    if (st < 0)
        return st;
    if (!out)
        return ufn_fail(UFN_ERR_INVALID, "%s: the output pointer is NULL", fn);
    if (out->memory != UFN_MEM_NONE)
        return ufn_fail(UFN_ERR_OUTPUT, "%s: the output must be passed empty: the result is "
                        "allocated where the array lives (on the first device of a sharded "
                        "one)", fn);
    folder fo;
    if ((st = describe(f, a->dtype, fn, &fo)) < 0)
        return st;
    if (a->ndim < 1)
        return ufn_fail(UFN_ERR_NDIM, "%s: %s: a 0-d array has no first dimension to reduce",
                        fn, fo.name);
    if (a->shape[0] == 0)   /* NumPy's words */
        return ufn_fail(UFN_ERR_SHAPE, "%s: zero-size array to reduction operation %s which "
                        "has no identity", fn, fo.name);
    ufn_array res = { 0 };
    if (a->memory == UFN_MEM_SHARDED) {
        /* each device's work on its own default stream, whatever this
         * thread's current one is (it belongs to one device) */
        ufn_stream saved = ufn_get_stream();
        ufn_set_stream(NULL);
        st = fold_sharded(&fo, a, &res);
        ufn_set_stream(saved);
    } else {
        st = new_result(&fo, a, a->memory, a->device, &res);
        if (st == UFN_OK && (st = fold_rows(&fo, a, &res)) < 0)
            ufn_free(&res);
    }
    if (st < 0)
        return ufn_fail_prefix(st, fn);
    ufn_hand_over(out, &res);
    return UFN_OK;
}

int ufn_combine_host(ufn_binary_ufunc f, ufn_dtype dtype, const void *in, void *inout, size_t n)
{
    static const char fn[] = "ufn_combine_host";
    folder fo;
    int st = describe(f, dtype, fn, &fo);
    if (st < 0)
        return st;
    if (!ufn_host_pick_loop(fo.loop, ufn_host_isa()))
        return ufn_fail(UFN_ERR_NO_CODE, "%s: %s: the module has no host code for %s (was it "
                        "built without --target=host?)", fn, fo.name, fo.loop->signature);
    if (n == 0)
        return UFN_OK;
    if (!in || !inout)
        return ufn_fail(UFN_ERR_INVALID, "%s: a NULL buffer", fn);
    if (n > (size_t)INT64_MAX)
        return ufn_fail(UFN_ERR_OVERFLOW, "%s: n = %zu does not fit in int64", fn, n);
    ufn_plan p;
    memset(&p, 0, sizeof p);
    p.func = fo.func;
    p.loop = fo.loop;
    p.nargs = 3;
    p.memory = UFN_MEM_HOST;
    p.ndim = 1;
    p.shape[0] = p.n = (int64_t)n;
    p.data[0] = (char *)in;
    p.data[1] = p.data[2] = inout;   /* the output is input 1, element for element */
    for (int k = 0; k < 3; k++) {
        p.elsize[k] = ufn_dtype_size(dtype);
        p.strides[k][0] = 1;
    }
    p.contiguous = true;
    st = ufn_host_execute(&p);
    return st < 0 ? ufn_fail_prefix(st, fo.name) : UFN_OK;
}
